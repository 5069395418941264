from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena import StoreError
from arena.competition.store import MIGRATIONS, BotRow, FaultRow, PlayedMatch, Store


def match(key: str, **changes: object) -> PlayedMatch:
    base: dict[str, object] = {
        "key": key,
        "cycle": 1,
        "deal": key.rsplit("-", 1)[0],
        "leg": 0,
        "bot_a": "x",
        "bot_b": "y",
        "seed": 11,
        "points": (6.0, 4.0),
        "winner": "A",
    }
    base.update(changes)
    return PlayedMatch(**base)  # type: ignore[arg-type]


def new_tournament(store: Store, seed: int = 5) -> int:
    row = store.create_tournament(
        fingerprint="f" * 16,
        seed=seed,
        name="t",
        game="rps-poker/1",
        config={"max_faults": 3, "scheduled": 4},
        bots=[BotRow("x", ("python3", "x.py"), "x", "d1", True), BotRow("y", ("y",), "y", "d2", False)],
    )
    return row.id


def test_a_new_database_runs_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
    with Store.open(path) as store:  # reopening runs nothing again
        assert store.schema_version() == len(MIGRATIONS)
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_match_and_its_faults_round_trip(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        played = match(
            "c1-x-vs-y-a",
            points=(10.0, 0.0),
            forfeit=("B",),
            reason="B timeout: slow",
            peak_rss=(1000, None),
            faults=(FaultRow("B", "y", "timeout", "no answer within 2s", 7, "main_play"),),
        )
        assert store.record_match(tid, played)
        assert store.matches(tid) == [played]
        assert store.finished_keys(tid) == {"c1-x-vs-y-a"}
        assert [b.name for b in store.bots(tid)] == ["x", "y"]
        assert store.bots(tid)[0].command == ("python3", "x.py")


def test_the_same_match_is_never_recorded_twice(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        fault = (FaultRow("A", "x", "crash", "gone"),)
        assert store.record_match(tid, match("k-a", faults=fault))
        assert not store.record_match(tid, match("k-a", points=(0.0, 10.0), faults=fault))
        (only,) = store.matches(tid)
        assert only.points == (6.0, 4.0)
        assert len(only.faults) == 1


def test_the_same_fingerprint_and_seed_is_the_same_tournament(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        first = new_tournament(store, seed=5)
        assert new_tournament(store, seed=5) == first
        other = new_tournament(store, seed=6)
        assert other != first
        found = store.find_tournament("f" * 16, None)
        assert found is not None and found.id == other  # the latest, when no seed is asked for
        assert store.find_tournament("f" * 16, 5) is not None
        assert store.find_tournament("g" * 16, None) is None


def test_a_reader_sees_committed_matches_while_a_writer_holds_the_database(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store.open(path) as writer:
        tid = new_tournament(writer)
        writer.record_match(tid, match("k-a"))
        with Store.open(path, readonly=True) as reader:
            assert len(reader.matches(tid)) == 1
            writer.record_match(tid, match("k-b", leg=1))
            assert len(reader.matches(tid)) == 2
            with pytest.raises(sqlite3.OperationalError):
                reader._db.execute("DELETE FROM matches")


def test_a_failed_match_write_leaves_nothing_behind(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        broken = match("k-a", faults=(FaultRow("A", "x", "crash", None),))  # type: ignore[arg-type]
        with pytest.raises(sqlite3.IntegrityError):
            store.record_match(tid, broken)
        assert store.matches(tid) == []
        assert store.record_match(tid, match("k-a"))


def test_opening_a_missing_or_foreign_file_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no results database"):
        Store.open(tmp_path / "none.sqlite", readonly=True)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable results database"):
        Store.open(junk)


def test_a_database_from_a_newer_arena_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_migrations VALUES (?, 'later')", (len(MIGRATIONS) + 1,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer than this arena knows"):
        Store.open(path)
