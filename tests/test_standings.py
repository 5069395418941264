"""The standings kept as pair totals in the store equal the board counted over the matches, whatever happened."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import random
import shutil
import signal
import sqlite3
import time
import tracemalloc
from pathlib import Path

import pytest

from arena import StoreError
from arena.competition.board import Leaderboard
from arena.competition.ratings import Fitter, Outcome
from arena.competition.results import board_from_store
from arena.competition.standings import PairArrays, leaderboard
from arena.competition.store import FaultRow, PlayedMatch, Store
from arena.competition.totals import PairTotals, exact

MAX_FAULTS = 6


def _same(got: Leaderboard, want: Leaderboard, *, cells: bool = True) -> None:
    assert got.matches == want.matches
    assert [row.bot for row in got.standings] == [row.bot for row in want.standings]
    for mine, theirs in zip(got.standings, want.standings, strict=True):
        for name in ("rank", "deals", "matches", "wins", "draws", "losses", "faults", "disqualified"):
            assert getattr(mine, name) == getattr(theirs, name), (mine.bot, name)
        for name in ("rating", "rating_error", "los_next", "points", "mean", "mean_low", "mean_high"):
            a, b = getattr(mine, name), getattr(theirs, name)
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-9), (mine.bot, name)
    for bot, row_cells in want.pairwise.items() if cells else ():
        for other, cell in row_cells.items():
            drawn = got.pairwise[bot][other]
            assert (drawn.matches, drawn.wins, drawn.draws, drawn.losses, drawn.pentanomial(), drawn.paired) == (
                cell.matches, cell.wins, cell.draws, cell.losses, cell.pentanomial(), cell.paired,
            )  # fmt: skip
            for name in ("elo", "elo_error95", "los", "rating_difference", "rating_difference_error95"):
                a, b = getattr(drawn, name), getattr(cell, name)
                assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-9)


class History:
    """A competition played at random into a store: duplicate pairs, odd deals, faults, forfeits, replacements."""

    def __init__(self, path: Path, seed: int) -> None:
        self.path = path
        self.rng = random.Random(seed)
        self.store = Store.open(path)
        self.tid = self.store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        self.strength: dict[int, float] = {}
        self.table = PairArrays(self.tid)
        """Kept across checks, brought up to date by what changed, as a server keeps it."""
        self.fielded = PairArrays(self.tid)
        """The same, read for the field as it changes (as the server's standings read it)."""
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
        got = PairArrays.of_pairs(pairs).totals(field, cells=True).board(max_faults=MAX_FAULTS)
        want = leaderboard(list(field.values()), self.store.matches(self.tid, current=True), max_faults=MAX_FAULTS)
        _same(got, want)
        self.table.refresh(self.store)
        _same(self.table.totals(field).board(max_faults=MAX_FAULTS, head_to_head=False), want, cells=False)
        self.fielded.refresh(self.store, field)
        _same(self.fielded.totals(field).board(max_faults=MAX_FAULTS, head_to_head=False), want, cells=False)


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


def test_a_fields_standings_never_read_a_retired_versions_pair_rows_and_read_them_when_it_comes_back(
    tmp_path: Path,
) -> None:
    history = History(tmp_path / "r.sqlite", 4)
    for _ in range(60):
        history.play_deal()
    retired = min(history.playing())
    history.store.set_admission(retired, "not_admitted")
    for _ in range(30):
        history.play_deal()
    field = history.playing()
    assert retired not in field and any(retired in pair for pair in history.store.pair_totals(history.tid))
    arrays = PairArrays(history.tid)
    arrays.refresh(history.store, field)
    assert all(retired not in pair for pair in arrays.places)  # (its rows stay on disk)
    want = leaderboard(list(field.values()), history.store.matches(history.tid, current=True), max_faults=MAX_FAULTS)
    _same(arrays.totals(field).board(max_faults=MAX_FAULTS, head_to_head=False), want, cells=False)
    history.store.set_admission(retired, "admitted")  # (back in the field, with what it played before)
    for _ in range(10):
        history.play_deal()
    field = history.playing()
    assert retired in field
    arrays.refresh(history.store, field)
    want = leaderboard(list(field.values()), history.store.matches(history.tid, current=True), max_faults=MAX_FAULTS)
    _same(arrays.totals(field).board(max_faults=MAX_FAULTS, head_to_head=False), want, cells=False)
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


def test_a_database_of_schema_2_migrates_to_pair_totals_that_equal_its_matches(tmp_path: Path) -> None:
    from arena.competition.store import MIGRATIONS
    from arena.competition.totals import PairTotals, deal_totals

    # A database as the arena before schema 3 left it: recorded by this store, then schema 3's tables and
    # column taken away again (a faithful schema 2: its migrations are kept as they shipped).
    path = tmp_path / "old.sqlite"
    history = History(path, 11)
    for _ in range(120):
        history.play_deal()
    history.replace()
    for _ in range(40):
        history.play_deal()
    tid = history.tid
    matches = history.store.matches(tid)
    incremental = history.store.pair_totals(tid)
    history.store.close()
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE pair_totals; DROP INDEX matches_by_odd_deal; DROP INDEX matches_by_version_a;"
        " DROP INDEX matches_by_version_b; DROP INDEX faults_by_version; ALTER TABLE faults DROP COLUMN version;"
        " DROP TABLE table_totals; DROP TABLE table_seats; DELETE FROM schema_migrations WHERE version >= 3;"
    )
    db.close()
    with Store.open(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
        assert store.matches(tid) == matches  # nothing lost
        want: dict[tuple[int, int], PairTotals] = {}
        by_deal: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_deal.setdefault(match.deal, []).append(match)
        for deal in by_deal.values():
            for pair, part in deal_totals(deal).items():
                want.setdefault(pair, PairTotals()).add(part)
        assert store.pair_totals(tid) == want
        for pair, totals in incremental.items():  # kept match by match: the same sums, to the last bit but the spread's
            assert totals.deal_means == pytest.approx(want[pair].deal_means, rel=1e-12)
            assert totals.deal_squares == pytest.approx(want[pair].deal_squares, rel=1e-12)
            totals.deal_means, totals.deal_squares = want[pair].deal_means, want[pair].deal_squares
            assert totals == want[pair]
        faulted = store.latest_faults(tid, [v.id for v in store.versions(tid)], 1000)
        assert len(faulted) == sum(len(m.faults) for m in matches)
        field = {v.id: v.name for v in store.versions(tid, current=True)}
        _same(
            board_from_store(store, tid),
            leaderboard(list(field.values()), store.matches(tid, current=True), max_faults=0),
        )


def _count(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])


@pytest.mark.slow
def test_the_pair_totals_survive_kill_9_of_a_real_server_and_equal_its_matches(tmp_path: Path) -> None:
    from arena.competition.totals import PairTotals, deal_totals
    from arena.server.config import load

    from .servertools import server_process, write_config

    config = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"))
    db = load(config).data_dir / "server.sqlite"
    for target in (6, 14):  # killed twice while the ladder plays, each time after some more matches
        with server_process(config) as server:
            deadline = time.monotonic() + 120
            while _count(db) < target:
                assert time.monotonic() < deadline, "".join(server.output)
                time.sleep(0.1)
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()
    with Store.open(db) as store:
        tid = store.tournaments()[-1].id
        matches = store.matches(tid)
        assert len(matches) >= 14
        want: dict[tuple[int, int], PairTotals] = {}
        by_deal: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_deal.setdefault(match.deal, []).append(match)
        for deal in by_deal.values():
            for pair, part in deal_totals(deal).items():
                want.setdefault(pair, PairTotals()).add(part)
        got = store.pair_totals(tid)
        assert got.keys() == want.keys()
        for pair, totals in got.items():
            assert totals.deal_squares == pytest.approx(want[pair].deal_squares, rel=1e-12)
            assert totals.deal_means == pytest.approx(want[pair].deal_means, rel=1e-12)
            totals.deal_means, totals.deal_squares = want[pair].deal_means, want[pair].deal_squares
            assert totals == want[pair]
        field = {v.id: v.name for v in store.versions(tid, current=True) if v.admission == "admitted"}
        config_faults = int(store.tournament(tid).config.get("max_faults", 0))  # type: ignore[union-attr]
        _same(
            board_from_store(store, tid),
            leaderboard(list(field.values()), store.matches(tid, current=True), max_faults=config_faults),
        )


def test_a_servers_database_made_before_schema_3_opens_and_migrates_without_loss(tmp_path: Path) -> None:
    # tests/data/server-schema2.sqlite: made by the arena before this schema (tests/data/make_server_schema2.py).
    from arena.competition.totals import PairTotals, deal_totals
    from arena.server.config import load
    from arena.server.service import Competition

    from .servertools import write_config

    config = write_config(tmp_path, house=("minimal-python", "random-python", "simple-py"))
    config.write_text(config.read_text().replace('name = "Test ladder"', 'name = "Old ladder"'))  # its competition
    data = load(config).data_dir
    data.mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "data" / "server-schema2.sqlite", data / "server.sqlite")
    with contextlib.closing(sqlite3.connect(data / "server.sqlite")) as db:
        before = {
            table: db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in ("participants", "versions", "matches", "faults", "entries")  # (a start rewrites the config)
        }
    competition = Competition(load(config))
    try:
        assert competition.played == len(before["matches"]) == 80
        assert competition.state.participant_named("alice") is not None
        store, tid = competition.store, competition.tid
        matches = store.matches(tid)
        want: dict[tuple[int, int], PairTotals] = {}
        by_deal: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_deal.setdefault(match.deal, []).append(match)
        for deal in by_deal.values():
            for pair, part in deal_totals(deal).items():
                want.setdefault(pair, PairTotals()).add(part)
        assert store.pair_totals(tid) == want
        assert sum(len(m.faults) for m in matches) == len(before["faults"]) > 0
        field = {v.id: v.row.name for v in competition.versions() if v.playing}
        _same(competition.board().board, leaderboard(list(field.values()), matches, max_faults=10), cells=False)
    finally:
        competition.close()
    with contextlib.closing(sqlite3.connect(data / "server.sqlite")) as db:
        for table, rows in before.items():  # every row as it was (the faults gained a column: its first ones)
            now = db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            assert [row[: len(rows[0])] for row in now] == rows, table


def test_matches_recorded_in_bulk_give_the_totals_of_matches_recorded_one_by_one(tmp_path: Path) -> None:
    history = History(tmp_path / "one.sqlite", 5)
    for _ in range(80):
        history.play_deal()
    matches = history.store.matches(history.tid)
    with Store.open(tmp_path / "bulk.sqlite") as bulk:
        tid = bulk.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        for version in history.store.versions(history.tid):  # the same ids
            bulk.add_version(
                tid, name=version.name, slot=version.slot, command=version.command, source=version.source,
                digest=version.digest, process=version.process,
            )  # fmt: skip
        bulk.record_matches(tid, matches[:60])
        bulk.record_matches(tid, matches[60:])
        assert bulk.matches(tid) == matches
        got, want = bulk.pair_totals(tid), history.store.pair_totals(history.tid)
        assert got.keys() == want.keys()
        for pair, totals in got.items():
            assert totals.deal_means == pytest.approx(want[pair].deal_means, rel=1e-12)
            totals.deal_means, totals.deal_squares = want[pair].deal_means, want[pair].deal_squares
            assert totals == want[pair]
        with pytest.raises(StoreError, match="one by one"):
            bulk.record_matches(tid, [dataclasses.replace(matches[0], key="again")])  # a deal recorded already
    history.store.close()


def test_a_fields_totals_read_its_rows_columns_one_at_a_time_not_a_copy_of_them_all() -> None:
    """Each drawing of a server's standings sums the field's pair rows (90,000 of 24 columns at 300 versions). The
    rows were copied whole first, twice (all of them, then the fit's half): the drawing process grew by 47 MiB a
    second at a million matches. What a drawing makes beyond the arrays it holds stays a small part of them."""
    count = 120
    pairs = {
        (a, b): PairTotals(matches=2, wins=1, losses=1, points_for=3.0, points_against=2.0, deals=1,
                           fit_score=1.0, fit_games=2.0, unit_squares=1.0, unit_products=2.0, unit_counts=4.0)
        for a in range(1, count + 1) for b in range(1, count + 1) if a != b
    }  # fmt: skip
    arrays = PairArrays.of_pairs(pairs)
    names = {v: f"v{v}" for v in range(1, count + 1)}
    arrays.totals(names)  # (once before: what is made once and kept is not a drawing's)
    tracemalloc.start()
    try:
        totals = arrays.totals(names)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert totals.matches == count * (count - 1)
    assert peak < arrays.values.nbytes / 2, (peak, arrays.values.nbytes)
