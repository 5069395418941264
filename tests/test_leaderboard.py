"""The leaderboard: arithmetic against hand computations, one model for rank and rating, honest intervals, width."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
from typing import Any

import pytest

from arena.competition.board import MIN_DEALS, t975
from arena.competition.render import render
from arena.competition.standings import leaderboard
from arena.competition.store import FaultRow, PlayedMatch, TournamentRow


def hand_tournament() -> list[PlayedMatch]:
    def m(key: str, a: str, b: str, points: tuple[float, float], winner: str | None, **kw: Any) -> PlayedMatch:
        return PlayedMatch(key=key, cycle=1, deal=key[:2], leg=0 if key.endswith("a") else 1, bot_a=a, bot_b=b,
                           seed=1, points=points, winner=winner, **kw)  # fmt: skip

    return [
        m("d1a", "X", "Y", (6, 4), "A"),
        m("d1b", "Y", "X", (5, 5), None),
        m("d2a", "X", "Z", (3, 7), "B"),
        m("d2b", "Z", "X", (10, 0), "A", forfeit=("B",), faults=(FaultRow("B", "X", "timeout", "slow"),)),
        m("d3a", "Y", "Z", (8, 2), "A"),
        m("d3b", "Z", "Y", (4, 6), "B"),
    ]


def field(strengths: dict[str, float], deals: int, seed: int = 1, draw: float = 0.1) -> list[PlayedMatch]:
    """A round-robin on duplicate deals between bots of known Elo strengths (points: 10 - loser's points)."""
    rng = random.Random(seed)
    names = list(strengths)
    out = []
    for d in range(deals):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                luck = rng.gauss(0, 150)  # the deal favours seat A by this much, in both legs
                for leg, (x, y) in enumerate(((a, b), (b, a))):
                    p = 1 / (1 + 10 ** (-(strengths[x] - strengths[y] + luck) / 400))
                    r = rng.random()
                    winner = None if abs(r - p) < draw / 2 else "A" if r < p else "B"
                    share = rng.randint(6, 10)
                    points = {None: (5.0, 5.0), "A": (share, 10 - share), "B": (10 - share, share)}[winner]
                    deal = f"c{d}-{a}-vs-{b}"
                    out.append(PlayedMatch(key=f"{deal}-{leg}", cycle=d, deal=deal, leg=leg, bot_a=x, bot_b=y,
                                           seed=d, points=points, winner=winner))  # fmt: skip
    return out


# Arithmetic ----------------------------------------------------------------------------
def test_points_record_and_faults_match_the_hand_computation() -> None:
    board = leaderboard(["X", "Y", "Z"], hand_tournament(), max_faults=1, scheduled=6)
    rows = {row.bot: row for row in board.standings}
    x, y, z = rows["X"], rows["Y"], rows["Z"]
    assert (x.points, x.matches, x.wins, x.draws, x.losses, x.deals) == (14, 4, 1, 1, 2, 2)
    assert (y.points, y.matches, y.wins, y.draws, y.losses) == (23, 4, 2, 1, 1)
    assert (z.points, z.matches, z.wins, z.draws, z.losses) == (23, 4, 2, 0, 2)
    assert x.mean == 3.5 and y.mean == 5.75 and z.mean == 5.75
    assert x.score == 1.5 / 4
    assert x.faults == {"timeout": 1} and y.faults == {} and z.faults == {}
    assert not x.disqualified
    # Two deals each: too few for any interval.
    assert all(math.isnan(r.mean_low) and math.isnan(r.rating_error) for r in board.standings)
    assert [r.bot for r in board.standings] == ["Y", "Z", "X"]  # by rating: Y 2.5 of 4, Z 2 of 4, X 1.5 of 4
    assert y.rating > z.rating > x.rating
    assert sum(r.rating for r in board.standings) == pytest.approx(0, abs=1e-9)
    cell = board.pairwise["X"]["Y"]
    assert (cell.matches, cell.wins, cell.draws, cell.losses) == (2, 1, 1, 0)
    assert (cell.points_for, cell.points_against) == (11, 9)
    assert cell.score == 1.5
    assert cell.paired and (cell.wd, cell.pairs) == (1, 1)
    assert board.pairwise["Z"]["X"].wins == 2 and board.pairwise["X"]["Z"].losses == 2


def test_the_points_interval_counts_deals_and_stays_inside_the_points_range() -> None:
    matches = field({"a": 0, "b": 0, "c": 0}, deals=6, seed=4)
    board = leaderboard(["a", "b", "c"], matches, max_faults=0)
    for row in board.standings:
        per_deal: dict[str, list[float]] = {}
        for m in matches:
            for seat, i in (("A", 0), ("B", 1)):
                if m.bot(seat) == row.bot:
                    per_deal.setdefault(m.deal, []).append(m.points[i])
        means = [sum(v) / len(v) for v in per_deal.values()]
        assert len(means) == row.deals == 12
        sd = math.sqrt(sum((v - row.mean) ** 2 for v in means) / (len(means) - 1))
        half = t975(len(means) - 1) * sd / math.sqrt(len(means))
        assert row.mean_low == pytest.approx(max(0, row.mean - half))
        assert row.mean_high == pytest.approx(min(10, row.mean + half))
        assert 0 <= row.mean_low <= row.mean <= row.mean_high <= 10
        assert row.rating_error > 0


def test_an_interval_never_leaves_the_range_a_match_can_give() -> None:
    # Five deals: the Student-t half-width (t(4) = 2.78) would reach past 0 for a bot that nearly always loses.
    matches = field({"strong": 600, "weak": -600}, deals=MIN_DEALS, seed=2, draw=0)
    board = leaderboard(["strong", "weak"], matches, max_faults=0)
    weak = next(r for r in board.standings if r.bot == "weak")
    assert weak.mean_low >= 0 and weak.mean_high <= 10
    low = min(p for m in matches for p in m.points)
    assert weak.mean_low >= low


# One model for rank and rating ---------------------------------------------------------------
def test_rank_follows_the_rating_and_the_caption_says_so() -> None:
    # The points column ranks a high-scoring loser first; the rating (wins, draws, losses against whom) does not.
    strengths = {f"bot{i}": 40.0 * i for i in range(6)}
    matches = field(strengths, deals=8, seed=9)
    # bot0 loses most matches but, when it wins, wins 10-0: the most points per match of all.
    boosted = [
        PlayedMatch(**{**m.__dict__, "points": (10.0, 0.0) if m.winner == "A" else (0.0, 10.0)})
        if "bot0" in (m.bot(m.winner) if m.winner else "",)
        else m
        for m in matches
    ]
    board = leaderboard(list(strengths), boosted, max_faults=0)
    ratings = [r.rating for r in board.standings]
    assert ratings == sorted(ratings, reverse=True)
    assert [r.rank for r in board.standings] == list(range(1, 7))
    by_points = leaderboard(list(strengths), boosted, max_faults=0, rank_by="points")
    means = [r.mean for r in by_points.standings]
    assert means == sorted(means, reverse=True)
    text = render(board, "table", width=100)
    assert "Ranked by rating: Elo from a Bradley-Terry fit" in " ".join(text.split())
    assert "Ranked by points per match" in " ".join(render(by_points, "table", width=100).split())


def test_ranked_by_points_the_los_column_is_of_the_order_shown() -> None:
    # The same high-scoring loser: by points it is above a bot that the rating puts above it.
    strengths = {f"bot{i}": 40.0 * i for i in range(6)}
    boosted = [
        PlayedMatch(**{**m.__dict__, "points": (10.0, 0.0) if m.winner == "A" else (0.0, 10.0)})
        if "bot0" in (m.bot(m.winner) if m.winner else "",)
        else m
        for m in field(strengths, deals=8, seed=9)
    ]
    by_points = leaderboard(list(strengths), boosted, max_faults=0, rank_by="points")
    rows = by_points.standings
    assert any(upper.rating < lower.rating for upper, lower in itertools.pairwise(rows)), "a pair the rating inverts"
    shown = [row.los_next for row in by_points.standings[:-1]]
    assert all(los >= 0.5 for los in shown), f"a LOS under 50% in the order it describes: {shown}"
    assert math.isnan(by_points.standings[-1].los_next)
    words = " ".join(render(by_points, "table", width=100).split())
    assert "LOS: the chance that a bot's points per match are truly more than the next one down's" in words
    by_rating = leaderboard(list(strengths), boosted, max_faults=0)
    assert all(row.los_next >= 0.5 for row in by_rating.standings[:-1])
    assert "LOS: the chance that a bot is stronger than the next one down." in " ".join(
        render(by_rating, "table", width=100).split()
    )


def test_the_caption_speaks_of_n_too_small_only_when_a_row_says_it() -> None:
    strengths = {"a": 0.0, "b": 100.0}
    enough = leaderboard(list(strengths), field(strengths, deals=MIN_DEALS), max_faults=0)
    assert all(math.isfinite(row.rating_error) for row in enough.standings)
    assert "n too small" not in " ".join(render(enough, "table", width=100).split())
    few = leaderboard(list(strengths), field(strengths, deals=MIN_DEALS - 1), max_faults=0)
    text = " ".join(render(few, "table", width=100).split())
    assert "n too small" in text and f"(n too small: fewer than {MIN_DEALS} deals)" in text


def test_a_recorded_board_names_its_competition() -> None:
    board = leaderboard(["X", "Y", "Z"], hand_tournament(), max_faults=1, scheduled=6)
    assert render(board, "table", width=100).startswith("Leaderboard (6 matches of 6)")
    board.competition = TournamentRow(2, "c-1", 7, "Spring [bold]cup[/]", "badugi/1", {}, "2026-11-26")
    shown = render(board, "table", width=100).splitlines()
    assert shown[0] == "Competition 'Spring [bold]cup[/]', tournament 2: badugi/1"
    assert shown[1].startswith("Leaderboard (6 matches of 6)")
    assert json.loads(render(board, "json"))["competition"] == {
        "id": 2,
        "name": "Spring [bold]cup[/]",
        "game": "badugi/1",
    }


def test_a_gauntlet_s_challenger_is_not_ranked_by_its_extra_matches() -> None:
    def m(key: str, a: str, b: str, points: tuple[float, float], winner: str | None) -> PlayedMatch:
        return PlayedMatch(key=key, cycle=1, deal=key, leg=0, bot_a=a, bot_b=b, seed=1, points=points, winner=winner)

    # C meets Y and Z twice each and loses every time; with 16 turns it out-totals Y (12) and Z (12).
    matches = [
        m("g1", "C", "Y", (4, 6), "B"),
        m("g2", "Y", "C", (6, 4), "A"),
        m("g3", "C", "Z", (4, 6), "B"),
        m("g4", "Z", "C", (6, 4), "A"),
    ]
    board = leaderboard(["C", "Y", "Z"], matches, max_faults=10)
    rows = {row.bot: row for row in board.standings}
    assert rows["C"].points == 16 > rows["Y"].points == rows["Z"].points == 12
    assert rows["C"].rank == 3


def test_los_between_neighbours_follows_the_gap_and_its_uncertainty() -> None:
    strengths = {"top": 300.0, "twin1": 0.0, "twin2": 0.0, "bottom": -300.0}
    board = leaderboard(list(strengths), field(strengths, deals=20, seed=3), max_faults=0)
    order = [r.bot for r in board.standings]
    assert order[0] == "top" and order[-1] == "bottom"
    los = [r.los_next for r in board.standings]
    assert los[0] > 0.99 and los[2] > 0.99 and 0.5 <= los[1] < 0.99
    assert math.isnan(los[-1])


def test_more_faults_than_allowed_disqualify_and_rank_last_with_the_reason() -> None:
    matches = hand_tournament()
    matches[0] = PlayedMatch(**{**matches[0].__dict__, "faults": (FaultRow("B", "Y", "crash", "gone"),)})
    board = leaderboard(["X", "Y", "Z"], matches, max_faults=0)
    rows = {row.bot: row for row in board.standings}
    assert rows["X"].disqualified == "1 fault, more than the 0 allowed (timeout x1)"
    assert rows["Y"].disqualified == "1 fault, more than the 0 allowed (crash x1)"
    assert [r.bot for r in board.standings] == ["Z", "Y", "X"]
    text = render(board, "table")
    assert "X (DQ)" in text and "X was disqualified: 1 fault, more than the 0 allowed (timeout x1)" in text


def test_a_double_forfeit_is_a_loss_for_both_and_no_rating_outcome() -> None:
    both = PlayedMatch(key="k", cycle=1, deal="k", leg=0, bot_a="X", bot_b="Y", seed=1, points=(2, 3), winner=None,
                       forfeit=("A", "B"))  # fmt: skip
    board = leaderboard(["X", "Y"], [both], max_faults=5)
    for row in board.standings:
        assert (row.wins, row.draws, row.losses) == (0, 0, 1)
        assert row.rating == pytest.approx(0, abs=1e-9)
        assert math.isnan(row.mean_low)


# Rendering ----------------------------------------------------------------------------
def test_few_deals_say_n_too_small_never_plus_or_minus_zero() -> None:
    board = leaderboard(["X", "Y", "Z"], hand_tournament(), max_faults=1)
    text = render(board, "table", width=100)
    assert text.count("n too small") == 3
    assert "± 0" not in text and "±0" not in text


def test_the_leaderboard_of_twenty_bots_fits_80_columns_and_the_matrix_waits_to_be_asked() -> None:
    strengths = {f"contestant-{i:02}-long-name": 25.0 * i for i in range(20)}
    names = list(strengths)
    board = leaderboard(names, field(strengths, deals=3, seed=5), max_faults=0)
    text = render(board, "table", width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in names:
        assert name in text.replace("\n", "")  # a long name folds in its column, whole
    assert "Pairwise" not in text and "--pairwise shows it" in text
    forced = render(board, "table", width=80, pairwise=True)
    assert "Pairwise" in forced and "0-0…" not in forced and "…" not in forced
    small = leaderboard(names[:4], field({n: strengths[n] for n in names[:4]}, deals=3), max_faults=0)
    assert "Pairwise" in render(small, "table", width=80)
    assert "Pairwise" not in render(small, "table", width=80, pairwise=False)
    data = json.loads(render(board, "json"))
    assert len(data["pairwise"]) == 20 and all(len(row) == 19 for row in data["pairwise"].values())
    header = next(csv.reader(io.StringIO(render(board, "csv"))))
    assert f"vs:{names[1]}:wins" in header and len(header) == 17 + 20 * 3


def test_json_has_draws_neighbour_los_and_head_to_head_elo() -> None:
    strengths = {"a": 100.0, "b": 0.0, "c": -100.0}
    board = leaderboard(list(strengths), field(strengths, deals=30, seed=8), max_faults=0)
    data = json.loads(render(board, "json"))
    first, second, third = data["standings"]
    assert [s["bot"] for s in data["standings"]] == ["a", "b", "c"]
    assert first["draws"] > 0 and first["los_next"] > 0.5 and third["los_next"] is None
    assert data["ranked_by"] == "rating" and "Bradley-Terry" in data["caption"]
    ab = data["pairwise"]["a"]["b"]
    ba = data["pairwise"]["b"]["a"]
    assert ab["pairs"]["pairs"] == 30 and ab["wins"] == ba["losses"]
    assert ab["elo"] == pytest.approx(-ba["elo"]) and ab["elo"] > 0
    assert ab["elo_error95"] > 0 and 0.5 < ab["los"] <= 1
    assert ab["rating_difference"] == pytest.approx(first["rating"] - second["rating"])
    assert ab["rating_difference_error95"] > 0


def test_csv_names_every_column_and_carries_the_same_numbers() -> None:
    board = leaderboard(["X", "Y", "Z"], hand_tournament(), max_faults=1, scheduled=6)
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    last = rows[-1]
    assert (last["rank"], last["bot"], last["wins"], last["draws"], last["losses"]) == ("3", "X", "1", "1", "2")
    assert (last["vs:Y:wins"], last["vs:Y:draws"], last["vs:Y:losses"]) == ("1", "1", "0")
    assert last["vs:X:wins"] == "" and last["faults"] == "timeout=1"
    assert last["rating_error95"] == "" and float(last["points"]) == 14


def test_hostile_bot_names_reach_the_terminal_as_plain_text() -> None:
    names = ["\x1b[2Jwiper", "[bold]loud[/bold]", "[/]", "tab\there"]
    matches = field(dict.fromkeys(names, 0.0), deals=1)
    text = render(leaderboard(names, matches, max_faults=0), "table", width=120)
    assert "\x1b" not in text
    assert "\\x1b[2Jwiper" in text and "[bold]loud[/bold]" in text and "[/]" in text


def test_the_same_matches_in_another_order_give_the_same_board_to_the_last_digit() -> None:
    strengths = {"a": 50.0, "b": 0.0, "c": -20.0, "d": 10.0}
    matches = field(strengths, deals=7, seed=12)
    shuffled = matches[:]
    random.Random(1).shuffle(shuffled)
    names = list(strengths)
    assert render(leaderboard(names, matches, max_faults=0), "json") == render(
        leaderboard(names, shuffled, max_faults=0), "json"
    )


def test_no_line_of_the_table_ends_in_spaces() -> None:
    """A board piped to a file or pasted in an issue carries no padding after its last column."""
    strengths = {"first": 100.0, "second": 0.0, "third-with-a-name": -100.0}
    board = leaderboard(list(strengths), field(strengths, deals=3), max_faults=0)
    text = render(board, "table", width=80)
    assert "Pairwise" in text and "Ranked by rating" in text
    assert [line for line in text.splitlines() if line != line.rstrip()] == []
