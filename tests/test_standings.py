"""The standings kept as pair totals in the store equal the board counted over the matches, whatever happened."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from arena.competition.ratings import Fitter, Outcome
from arena.competition.results import Leaderboard, leaderboard, tally_of_pairs
from arena.competition.store import FaultRow, PlayedMatch, Store
from arena.competition.totals import exact

MAX_FAULTS = 6


def _same(got: Leaderboard, want: Leaderboard) -> None:
    assert got.matches == want.matches
    assert [row.bot for row in got.standings] == [row.bot for row in want.standings]
    for mine, theirs in zip(got.standings, want.standings, strict=True):
        for name in ("rank", "deals", "matches", "wins", "draws", "losses", "faults", "disqualified"):
            assert getattr(mine, name) == getattr(theirs, name), (mine.bot, name)
        for name in ("rating", "rating_error", "los_next", "points", "mean", "mean_low", "mean_high"):
            a, b = getattr(mine, name), getattr(theirs, name)
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-9), (mine.bot, name)
    for bot, cells in want.pairwise.items():
        for other, cell in cells.items():
            mine = got.pairwise[bot][other]
            assert (mine.matches, mine.wins, mine.draws, mine.losses, mine.pairs) == (
                cell.matches, cell.wins, cell.draws, cell.losses, cell.pairs,
            )  # fmt: skip
            for name in ("elo", "elo_error95", "los", "rating_difference", "rating_difference_error95"):
                a, b = getattr(mine, name), getattr(cell, name)
                assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-9)


class History:
    """A competition played at random into a store: duplicate pairs, odd deals, faults, forfeits, replacements."""

    def __init__(self, path: Path, seed: int) -> None:
        self.path = path
        self.rng = random.Random(seed)
        self.store = Store.open(path)
        self.tid = self.store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        self.strength: dict[int, float] = {}
        self.deals = 0
        for name in ("ann", "bob", "cat", "dan", "eve"):
            self.enter(name)

    def enter(self, name: str) -> None:
        slot = len({v.name for v in self.store.versions(self.tid)})
        row = self.store.add_version(
            self.tid, name=name, slot=slot, command=("x",), source=name, digest=str(self.rng.random()), process="fresh"
        )
        self.store.set_admission(row.id, "admitted")
        self.strength[row.id] = self.rng.gauss(0, 1)

    def playing(self) -> dict[int, str]:
        return {v.id: v.name for v in self.store.versions(self.tid, current=True) if v.admission == "admitted"}

    def play_deal(self) -> None:
        field = self.playing()
        a, b = self.rng.sample(sorted(field), 2)
        self.deals += 1
        legs = self.rng.choice([1, 2, 2, 2, 2, 3])
        for leg in range(legs):
            first, second = (a, b) if leg % 2 == 0 else (b, a)
            edge = self.strength[first] - self.strength[second]
            roll = self.rng.random()
            forfeit: tuple[str, ...] = ()
            faults: tuple[FaultRow, ...] = ()
            if roll < 0.05:
                forfeit = ("A", "B")
            elif roll < 0.12:
                forfeit = (self.rng.choice("AB"),)
            for seat in forfeit:
                kind = self.rng.choice(["timeout", "crash"])
                faults += (FaultRow(seat, field[first if seat == "A" else second], kind, "x"),)
            if forfeit:
                winner = None if len(forfeit) == 2 else ("B" if forfeit == ("A",) else "A")
                points = (0.0, 0.0)
            else:
                p = 1 / (1 + math.exp(-edge))
                x = self.rng.random()
                winner = "A" if x < p * 0.9 else "B" if x > 1 - (1 - p) * 0.9 else None
                points = (self.rng.choice([0.0, 1.5, 3.25, 7.0]), self.rng.choice([0.0, 2.0, 4.5]))
            self.store.record_match(
                self.tid,
                PlayedMatch(
                    key=f"d{self.deals}-{leg}", cycle=0, deal=f"d{self.deals}", leg=leg, bot_a=field[first],
                    bot_b=field[second], seed=self.deals, points=points, winner=winner, forfeit=forfeit,
                    faults=faults, versions=(first, second),
                ),
            )  # fmt: skip

    def replace(self) -> None:
        field = self.playing()
        old = self.rng.choice(sorted(field))
        with self.store.transaction():
            self.store.retire(old, "changed")
            self.enter(field[old])

    def reopen(self) -> None:
        self.store.close()
        self.store = Store.open(self.path)

    def check(self) -> None:
        field = self.playing()
        pairs = self.store.pair_totals(self.tid)
        assert exact(pairs)
        got = tally_of_pairs(field, pairs).board(max_faults=MAX_FAULTS)
        want = leaderboard(list(field.values()), self.store.matches(self.tid, current=True), max_faults=MAX_FAULTS)
        _same(got, want)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_standings_from_pair_totals_equal_the_board_of_the_matches_after_random_histories(
    tmp_path: Path, seed: int
) -> None:
    history = History(tmp_path / "r.sqlite", seed)
    for step in range(400):
        roll = history.rng.random()
        if roll < 0.02:
            history.replace()
        elif roll < 0.03:
            history.reopen()
        else:
            history.play_deal()
        if step % 100 == 99:
            history.check()
    history.check()
    history.store.close()


def test_a_warm_started_fit_equals_a_fit_from_scratch() -> None:
    rng = random.Random(3)
    names = [f"b{i}" for i in range(40)]
    fitter = Fitter(names)
    last = None
    for round_ in range(5):
        for deal in range(300):
            a, b = rng.sample(names, 2)
            for first, second in ((a, b), (b, a)):
                fitter.add(Outcome(first, second, rng.choice([0.0, 0.5, 1.0]), f"r{round_}d{deal}"))
        warm = fitter.ratings(start=dict(zip(last.names, last.strengths, strict=True)) if last else None)
        cold = fitter.ratings()
        for name in names:
            assert warm[name].elo == pytest.approx(cold[name].elo, abs=1e-9)
            assert warm[name].error95 == pytest.approx(cold[name].error95, abs=1e-9)
        last = warm
