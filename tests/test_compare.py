"""``arena compare``: its schedule, how pairs are scored and followed, and the SPRT's verdict on real bots."""

from __future__ import annotations

import random

import pytest

from arena._errors import ConfigError
from arena.competition.compare import (
    Comparison,
    Roles,
    board_score,
    check_roles,
    iter_compare_schedule,
    rounds_for,
)
from arena.competition.schedule import Scheduled
from arena.competition.sprt import Sprt
from arena.competition.store import PlayedMatch

H2H = Roles("new", "base")
FIELD = Roles("new", "base", ("x", "y"))


def played(s: Scheduled, winner: str | None) -> PlayedMatch:
    points = (5.0, 5.0) if winner is None else (7.0, 3.0) if winner == "A" else (3.0, 7.0)
    return PlayedMatch(key=s.key, cycle=s.cycle, deal=s.deal, leg=s.leg, bot_a=s.bot_a, bot_b=s.bot_b,
                       seed=s.seed, points=points, winner=winner)  # fmt: skip


def won_by(s: Scheduled, bot: str | None) -> PlayedMatch:
    """``s`` played, won by ``bot`` (``None``: a draw)."""
    return played(s, None if bot is None else "A" if s.bot_a == bot else "B")


# The schedule --------------------------------------------------------------------------
def test_head_to_head_plays_each_deal_twice_with_the_seats_swapped() -> None:
    schedule = list(iter_compare_schedule(H2H, seed=5, rounds=3))
    assert len(schedule) == 3 * H2H.matches_per_round == 6
    assert len({m.key for m in schedule}) == 6
    for first, second in zip(schedule[::2], schedule[1::2], strict=True):
        assert first.deal == second.deal and first.seed == second.seed
        assert (first.bot_a, first.bot_b, first.leg) == ("new", "base", 0)
        assert (second.bot_a, second.bot_b, second.leg) == ("base", "new", 1)
    assert len({m.seed for m in schedule}) == 3


def test_against_a_field_new_and_base_meet_each_opponent_on_the_same_deal_in_the_same_seats() -> None:
    schedule = list(iter_compare_schedule(FIELD, seed=5, rounds=2))
    assert len(schedule) == 2 * FIELD.matches_per_round == 16
    by_deal: dict[str, list[Scheduled]] = {}
    for match in schedule:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 4
    for matches in by_deal.values():
        assert len({m.seed for m in matches}) == 1
        new = [m for m in matches if "new" in (m.bot_a, m.bot_b)]
        base = [m for m in matches if "base" in (m.bot_a, m.bot_b)]
        for n, b in zip(new, base, strict=True):
            assert n.leg == b.leg
            assert (n.bot_a == "new") == (b.bot_a == "base") == (n.leg == 0)
            assert {n.bot_a, n.bot_b} - {"new"} == {b.bot_a, b.bot_b} - {"base"}
    assert len({m.seed for m in schedule}) == 4


def test_the_schedule_size_follows_max_matches_and_names_must_not_clash() -> None:
    assert rounds_for(H2H, 100) == 50 and rounds_for(FIELD, 100) == 12 and rounds_for(FIELD, 3) == 1
    with pytest.raises(ConfigError, match="different bots"):
        check_roles(Roles("a", "a"))
    with pytest.raises(ConfigError, match="same match key"):
        check_roles(Roles("n-b", "b", ("x", "x-n")))  # c1-vs-x-n-b-a: NEW against x, and BASE against x-n


# Scoring pairs ---------------------------------------------------------------------
def test_a_board_goes_to_the_better_result() -> None:
    assert [board_score(n, b) for n, b in [("W", "D"), ("W", "W"), ("D", "L"), ("L", "D"), ("L", "L")]] == [
        1.0, 0.5, 1.0, 0.0, 0.5,
    ]  # fmt: skip


def test_head_to_head_pairs_count_new_s_two_results() -> None:
    comparison = Comparison(H2H, Sprt(elo0=0, elo1=50), rounds=4)
    schedule = list(iter_compare_schedule(H2H, seed=1, rounds=4))
    winners = ["new", "new", "new", None, "base", "new", None, None]  # pairs: WW, WD, LW, DD
    lines = [line for s, w in zip(schedule, winners, strict=True) for line in comparison.add(won_by(s, w))]
    c = comparison.counts
    assert (c.ww, c.wd, c.wl, c.dd, c.ld, c.ll) == (1, 1, 1, 1, 0, 0)
    assert (c.wins, c.draws, c.losses) == (4, 3, 1)
    assert lines[0] == "Pair 1 of 4 (c1-new-vs-base): new W W against base: 2 of 2"
    assert lines[2] == "Pair 3 of 4 (c3-new-vs-base): new L W against base: 1 of 2"
    assert "Games 8: W-D-L 4-3-1  Ptnml(0-2) [0, 0, 2, 1, 1] (WL 1, DD 1)" in lines[-2]
    assert "Elo n too small (4 pairs)" in lines[-1] and "LLR" in lines[-1] and "(-2.94, 2.94) [0, 50] nElo" in lines[-1]
    assert comparison.finished and comparison.verdict is None and comparison.exit_code == 2


def test_against_a_field_each_seating_is_a_board_between_new_and_base() -> None:
    comparison = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=1)
    schedule = list(iter_compare_schedule(FIELD, seed=1, rounds=1))
    # against x: NEW wins in seat A, draws in seat B; BASE loses in seat A, draws in seat B -> boards W D
    # against y: NEW loses both; BASE wins in seat A, loses in seat B -> boards L D
    winners = ["new", None, "x", None, "y", "y", "base", "y"]
    lines = [line for s, w in zip(schedule, winners, strict=True) for line in comparison.add(won_by(s, w))]
    c = comparison.counts
    assert (c.wd, c.ld, c.pairs) == (1, 1, 2)
    assert lines[0] == "Pair 1 of 2 (c1-vs-x): new W D, base L D against x: new 1.5 of 2"
    assert lines[1] == "Pair 2 of 2 (c1-vs-y): new L L, base W L against y: new 0.5 of 2"
    assert "Boards 4: W-D-L 1-2-1" in lines[2]


def test_pairs_are_followed_in_schedule_order_whatever_order_matches_finish_in() -> None:
    rng = random.Random(3)
    schedule = list(iter_compare_schedule(FIELD, seed=9, rounds=6))
    results = [won_by(s, rng.choice(["new", "base", "x", "y", None])) for s in schedule]
    in_order = Comparison(FIELD, Sprt(elo0=0, elo1=30), rounds=6, every=3)
    expected = [line for r in results for line in in_order.add(r)]
    shuffled = results[:]
    rng.shuffle(shuffled)
    out_of_order = Comparison(FIELD, Sprt(elo0=0, elo1=30), rounds=6, every=3)
    assert [line for r in shuffled for line in out_of_order.add(r)] == expected
    assert out_of_order.llr == in_order.llr and out_of_order.counts == in_order.counts


def test_a_clearly_better_new_version_is_accepted_and_a_copy_rejected() -> None:
    test = Sprt(elo0=0, elo1=100)
    better = Comparison(H2H, test, rounds=500)
    for s in iter_compare_schedule(H2H, seed=2, rounds=500):
        better.add(won_by(s, "new"))
        if better.finished:
            break
    assert better.verdict == "H1" and better.exit_code == 0 and better.pairs_done < 20
    assert better.verdict_line().startswith("H1 accepted after")
    # A deterministic copy: every pair splits, each seat winning once.
    copy = Comparison(H2H, test, rounds=500)
    for s in iter_compare_schedule(H2H, seed=2, rounds=500):
        copy.add(played(s, "A" if s.seed % 2 else "B"))
        if copy.finished:
            break
    assert copy.verdict == "H0" and copy.exit_code == 1
    assert copy.counts.wl == copy.pairs_done
    assert copy.verdict_line().startswith("H0 accepted after")


def test_a_disqualified_opponent_s_pairs_are_skipped_and_a_disqualified_new_stops_the_test() -> None:
    schedule = list(iter_compare_schedule(FIELD, seed=1, rounds=2))
    comparison = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=2)
    banned = {"x": "11 faults"}
    for s in schedule:
        if "x" not in (s.bot_a, s.bot_b):
            comparison.add(won_by(s, "new"), banned)
    assert comparison.pairs_skipped == 2 and comparison.pairs_done == 2
    stopped = Comparison(FIELD, Sprt(elo0=0, elo1=50), rounds=2)
    stopped.add(won_by(schedule[0], "x"), {"new": "11 faults, more than the 10 allowed"})
    assert stopped.finished and stopped.exit_code == 2
    assert "new was disqualified: 11 faults" in stopped.verdict_line()
