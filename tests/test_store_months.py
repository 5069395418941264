"""Months of data (issue 38), the store's side: the latest matches read by an index that gives their order, and
a version's rating history bounded however long it lives (also in a database written before the bound)."""

from __future__ import annotations

import contextlib
import itertools
import re
import sqlite3
from pathlib import Path

import pytest

from arena.competition.database.thinning import CHART_POINTS, STAGGER
from arena.competition.records import FaultRow
from arena.competition.store import PlayedMatch, Store
from arena.server.state import State


def _ladder(path: Path, matches: int) -> tuple[int, list[int]]:
    """A server's database with ``matches`` matches among four versions, through the recording path."""
    with Store.open(path) as store:
        State(store)
        tid = store.create_competition(name="ladder", seed=1, game="rps-poker/1", config={}).id
        vids = []
        for slot, name in enumerate("abcd"):
            version = store.add_version(
                tid, name=name, slot=slot, command=("x",), source=name, digest=name, process="fresh"
            )
            store.set_admission(version.id, "admitted")
            vids.append(version.id)
        played = []
        for n in range(matches):
            a, b = vids[n % 4], vids[(n // 4 + n + 1) % 4]
            if a == b:
                b = vids[(n + 2) % 4]
            faults = (FaultRow("B", "b", "timeout", "no answer"),) if n % 7 == 0 else ()
            played.append(
                PlayedMatch(f"m{n}", 0, f"d{n}", 0, "a", "b", n, (1.0, 0.0), "A", faults=faults, versions=(a, b))
            )
        store.record_matches(tid, played[: matches // 2])
        for match in played[matches // 2 :]:
            store.record_match(tid, match)
    return tid, vids


def _plans(path: Path, ask: str, tid: int, vids: list[int]) -> list[str]:
    """The query plans of the statements ``Store.latest_matches`` runs (as ``ask`` says) that read matches."""
    statements: list[str] = []
    with Store.open(path) as store:
        store._db.set_trace_callback(statements.append)
        if ask == "latest":
            found = store.latest_matches(tid, 100)
        elif ask == "before":
            found = store.latest_matches(tid, 100, before=found_id(store, tid))
        elif ask == "faults":  # (a bot page's latest faults: their matches by the primary key, never a pass
            # over the competition's matches by an index of the tournament, as SQLite chose at a million)
            found = store.latest_faults(tid, [vids[1]], 50)
        else:
            found = store.latest_matches(tid, 20, versions=[vids[0]])
        store._db.set_trace_callback(None)
        assert found
        plans = []
        for statement in statements:
            if statement.lstrip().upper().startswith("SELECT") and "FROM matches" in statement:
                rows = store._db.execute("EXPLAIN QUERY PLAN " + statement).fetchall()
                plans.append(" | ".join(str(row[-1]) for row in rows))
    assert plans
    return plans


def found_id(store: Store, tid: int) -> int:
    return store.latest_matches(tid, 300)[-1].row_id


@pytest.mark.parametrize("analyzed", [False, True])
@pytest.mark.parametrize("ask", ["latest", "before", "of a version", "faults"])
def test_the_latest_matches_are_read_by_an_index_in_their_order_never_sorted(
    tmp_path: Path, ask: str, analyzed: bool
) -> None:
    path = tmp_path / "server.sqlite"
    tid, vids = _ladder(path, 600)
    if analyzed:
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("ANALYZE")
    for plan in _plans(path, ask, tid, vids):
        assert "TEMP B-TREE" not in plan, plan
        assert "SCAN m" not in plan.replace("SCAN m USING", ""), plan  # no pass over the whole table


def _snapshots(path: Path, version_id: int) -> list[tuple[int, float, float | None]]:
    with Store.open(path) as store:
        return State(store).rating_history(version_id)


def test_a_version_keeps_a_bounded_evenly_spread_rating_history_however_long_it_lives(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    with Store.open(path) as store:
        state = State(store)
        for n in range(1, 3001):  # a snapshot every 10 matches, 30,000 matches; "late" joins at 20,000
            state.add_ratings(10 * n, [(1, 1500.0 + n, 30.0)] + ([(2, 1400.0 + n, 50.0)] if n > 2000 else []))
            if n in (200, 2000):
                assert len(state.rating_history(1)) <= CHART_POINTS + STAGGER
    history = _snapshots(path, 1)
    counts = [n for n, _elo, _error in history]
    assert CHART_POINTS // 2 <= len(history) <= CHART_POINTS + STAGGER, len(history)
    assert counts[0] == 10 and counts[-1] == 30_000  # its first and its current rating stay
    assert history[-1] == (30_000, 4500.0, 30.0)
    gaps = [b - a for a, b in itertools.pairwise(counts[:-1])]
    assert max(gaps) <= 2 * min(gaps), (min(gaps), max(gaps))  # evenly spread, old and new alike
    late = [n for n, _elo, _error in _snapshots(path, 2)]
    assert late[0] == 20_010 and late[-1] == 30_000 and CHART_POINTS // 2 <= len(late) <= CHART_POINTS + STAGGER
    with Store.open(path) as store:
        dates = State(store).rating_dates(1)
    assert set(dates) == set(counts)


def test_a_snapshot_keeps_what_reading_each_version_back_keeps_and_reads_nothing_back(tmp_path: Path) -> None:
    """The server takes a snapshot of 300 versions every few matches on its event loop: each version's newest
    snapshots are known from what was written, not read back (300 queries, 20-40 ms of the loop at a million
    matches). What is kept is what reading them back kept, snapshot for snapshot."""
    kept: list[list[tuple[int, int]]] = []
    for remembers in (True, False):
        path = tmp_path / f"remembers-{remembers}.sqlite"
        with Store.open(path) as store:
            state = State(store)
            reads: list[str] = []
            store._db.set_trace_callback(reads.append)
            for n in range(1, 1201):  # a version joining late, one leaving, a snapshot written again
                rows = [(1, 1500.0 + n, 30.0), (3, 1.0, 2.0)] + ([(2, 1400.0 + n, 50.0)] if n > 400 else [])
                state.add_ratings(10 * n, [row for row in rows if row[0] != 3 or n < 900])
                if n == 600:
                    state.add_ratings(10 * n, rows)
                if not remembers:
                    state.repos.ratings._ends.clear()  # as before: every version's newest read back
            store._db.set_trace_callback(None)
            selects = [r for r in reads if r.lstrip().upper().startswith("SELECT") and "rating_history" in r]
            if remembers:  # one read of each version, and one each time its buckets doubled
                assert len(selects) < 3 * 20, len(selects)
            else:
                assert len(selects) > 2000
            kept.append(store._db.execute("SELECT version_id, matches FROM rating_history ORDER BY 1, 2").fetchall())
    assert kept[0] == kept[1]
    assert len(kept[0]) < 3 * (CHART_POINTS + STAGGER)


def test_a_short_history_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    with Store.open(path) as store:
        state = State(store)
        for n in range(1, 101):
            state.add_ratings(n, [(7, float(n), 1.0)])
    assert [n for n, _elo, _error in _snapshots(path, 7)] == list(range(1, 101))


def test_the_history_chart_is_read_by_the_primary_key(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    with Store.open(path) as store:
        State(store).add_ratings(10, [(1, 1.0, 1.0), (2, 2.0, 2.0)])
        plan = " | ".join(
            str(row[-1])
            for row in store._db.execute(
                "EXPLAIN QUERY PLAN SELECT matches, elo, error95 FROM rating_history WHERE version_id = 1"
                " ORDER BY matches"
            )
        )
    assert "USING PRIMARY KEY" in plan and "TEMP B-TREE" not in plan, plan


def test_a_database_written_before_the_bound_is_thinned_when_it_opens(tmp_path: Path) -> None:
    """A server's database of the code before (server schema 3): its long history is thinned by the migration."""
    path = tmp_path / "server.sqlite"
    with Store.open(path) as store:
        State(store)
    with contextlib.closing(sqlite3.connect(path)) as db:  # as the code before left it: every snapshot, schema 3
        db.execute("DELETE FROM server_migrations WHERE version > 3")
        db.execute("DROP TABLE standings_saved")
        db.executemany(
            "INSERT INTO rating_history VALUES (?, ?, ?, ?, '2026-11-28T00:00:00+00:00')",
            [(10 * n, vid, 1500.0 + n, 20.0) for n in range(1, 5001) for vid in (1, 2)],
        )
        db.commit()
    with Store.open(path) as store:
        state = State(store)
        for vid in (1, 2):
            counts = [n for n, _elo, _error in state.rating_history(vid)]
            assert CHART_POINTS // 2 <= len(counts) <= CHART_POINTS + STAGGER
            assert counts[0] == 10 and counts[-1] == 50_000
        fresh = tmp_path / "fresh.sqlite"
        with Store.open(fresh) as other:
            State(other)
            tables = [
                db.execute("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'rating_history'").fetchall()
                for db in (store._db, other._db)
            ]
        assert tables[0] == tables[1]  # the table rebuilt as a new database has it
        kept = state.rating_history(1)
    with Store.open(path) as store:  # and it goes on as a bounded one
        state = State(store)
        for n in range(5001, 5101):
            state.add_ratings(10 * n, [(1, 1.0, 1.0)])
        history = state.rating_history(1)
    assert len(history) <= CHART_POINTS + STAGGER and history[0] == kept[0] and history[-1][0] == 51_000


def test_a_fields_pair_totals_are_read_by_the_primary_key_never_the_retired_versions_rows(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    tid, vids = _ladder(path, 400)
    field = vids[:3]  # the fourth retired
    with Store.open(path) as store:
        everything, newest = store.pair_totals_since(tid, -1)
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        found, last = store.pair_totals_since(tid, -1, among=field)
        store._db.set_trace_callback(None)
        assert found == {pair: totals for pair, totals in everything.items() if set(pair) <= set(field)}
        assert last == newest and found
        assert store.pair_totals_since(tid, last, among=field) == ({}, last)
        plans = {
            statement: " | ".join(str(row[-1]) for row in store._db.execute("EXPLAIN QUERY PLAN " + statement))
            for statement in statements
        }
        for statement, plan in plans.items():  # the field's rows by the key; the latest id, one row of the index
            assert "SCAN pair_totals" not in plan and "TEMP B-TREE" not in plan, plan
            if "json_each" in statement:
                # (the primary key, or the index that begins as it does: results schema 7's of the bot pages' columns)
                assert re.search(
                    r"INDEX (sqlite_autoindex_pair_totals_1|pair_records) \(version=\? AND opponent=\?\)", plan
                ), plan
            else:
                assert statement.endswith("LIMIT 1"), statement
