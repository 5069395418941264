from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from arena import StoreError
from arena.competition.store import APPLICATION_ID, MIGRATIONS, FaultRow, Holder, PlayedMatch, Store


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


def new_tournament(store: Store, seed: int = 5, name: str = "t") -> int:
    row = store.create_competition(name=name, seed=seed, game="rps-poker/1", config={"max_faults": 3, "scheduled": 4})
    for slot, (bot, process) in enumerate((("x", "reused"), ("y", "fresh"))):
        version = store.add_version(
            row.id,
            name=bot,
            slot=slot,
            command=("python3", f"{bot}.py"),
            source=bot,
            digest=f"d-{bot}",
            process=process,
        )
        store.set_admission(version.id, "admitted")
    return row.id


def versions(store: Store, tid: int) -> dict[str, int]:
    return {v.name: v.id for v in store.versions(tid, current=True)}


def test_a_new_database_runs_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # while an arena writes
    with Store.open(path) as store:  # reopening runs nothing again
        assert store.schema_version() == len(MIGRATIONS)
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # at rest: one file
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_a_match_and_its_faults_round_trip(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        ids = versions(store, tid)
        played = match(
            "c1-x-vs-y-a",
            points=(10.0, 0.0),
            forfeit=("B",),
            reason="B timeout: slow",
            peak_rss=(1000, None),
            faults=(FaultRow("B", "y", "timeout", "no answer within 2s", 7, "main_play"),),
            versions=(ids["x"], ids["y"]),
        )
        assert store.record_match(tid, played)
        assert store.matches(tid) == [played]
        assert store.matches(tid, current=True) == [played]
        assert store.finished_keys(tid) == {"c1-x-vs-y-a"}
        assert [b.name for b in store.bots(tid)] == ["x", "y"]
        assert store.bots(tid)[0].command == ("python3", "x.py")
        assert store.points(tid) == {"x": 10.0, "y": 0.0}
        assert store.fault_counts(tid) == {"y": {"timeout": 1}}


def test_the_same_match_is_never_recorded_twice(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        fault = (FaultRow("A", "x", "crash", "gone"),)
        assert store.record_match(tid, match("k-a", faults=fault))
        assert not store.record_match(tid, match("k-a", points=(0.0, 10.0), faults=fault))
        (only,) = store.matches(tid)
        assert only.points == (6.0, 4.0)
        assert len(only.faults) == 1


def test_a_competition_is_found_by_name_and_a_fresh_one_takes_its_place(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        first = new_tournament(store, seed=5, name="league")
        other = new_tournament(store, seed=5, name="cup")  # the same seed is no clash
        assert store.latest("league").id == first  # type: ignore[union-attr]
        again = new_tournament(store, seed=5, name="league")  # --fresh: a new one, the old one kept
        assert again not in (first, other)
        assert store.latest("league").id == again  # type: ignore[union-attr]
        assert store.latest("nothing") is None
        assert [t.id for t in store.tournaments()] == [first, other, again]


def test_versions_retire_and_come_back_and_only_current_ones_count(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        ids = versions(store, tid)
        store.record_match(tid, match("c1-x-vs-y-a", versions=(ids["x"], ids["y"])))
        store.retire(ids["x"], "changed")
        newer = store.add_version(tid, name="x", slot=0, command=("x",), source="x", digest="d2", process="fresh")
        assert (newer.version, newer.slot, newer.admission, newer.label) == (2, 0, "pending", "x.v2")
        assert store.matches(tid, current=True) == []
        assert len(store.matches(tid)) == 1
        assert store.count_matches(tid) == 1 and store.count_matches(tid, current=True) == 0
        store.set_admission(newer.id, "not_admitted", "build failed")
        old = store.version(ids["x"])
        assert (old.current, old.retired_because) == (False, "changed")
        assert [(v.label, v.admission, v.reason) for v in store.versions(tid, current=True)] == [
            ("x.v2", "not_admitted", "build failed"),
            ("y", "admitted", ""),
        ]
        store.retire(newer.id, "changed")
        store.reinstate(ids["x"])
        assert len(store.matches(tid, current=True)) == 1
        store.log_change(tid, "changed", "x changed", "x")
        assert [(c.kind, c.bot, c.line) for c in store.changes(tid)] == [("changed", "x", "x changed")]


def test_a_schema_1_database_is_migrated_and_its_bots_become_version_1(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("INSERT INTO schema_migrations VALUES (1, 'then')")
    db.execute("INSERT INTO tournaments VALUES (1, 'abc', 7, 'rps-poker round-robin', 'rps-poker/1', '{}', 'then')")
    for name in ("zed", "amy"):  # entered in this order: their slots follow it, not the alphabet
        db.execute("INSERT INTO bots VALUES (1, ?, '[\"run\"]', ?, ?, 1)", (name, name, f"d-{name}"))
    db.execute(
        "INSERT INTO matches (tournament_id, match_key, cycle, deal, leg, bot_a, bot_b, seed, points_a, points_b,"
        " winner, forfeit, reason, duration_s, finished_at) VALUES (1, 'c1-zed-vs-amy-a', 1, 'c1-zed-vs-amy', 0,"
        " 'zed', 'amy', 3, 6, 4, 'A', '[]', '', 0.1, 'then')"
    )
    db.commit()
    db.close()
    with Store.open(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
        field = store.versions(1, current=True)
        assert [(v.name, v.version, v.slot, v.process, v.admission) for v in field] == [
            ("zed", 1, 0, "reused", "admitted"),
            ("amy", 1, 1, "reused", "admitted"),
        ]
        (played,) = store.matches(1, current=True)
        assert played.versions == (field[0].id, field[1].id)
        assert store.latest("rps-poker round-robin").seed == 7  # type: ignore[union-attr]


def test_arenas_claim_matches_and_take_over_the_claims_of_a_dead_one(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = new_tournament(store)
        mine = store.register_arena()
        assert store.claim_match(tid, "k-a", mine) is True
        assert store.claim_match(tid, "k-a", mine) is True  # claiming again is harmless
        other = store.register_arena()  # a second arena (this same process, for the test)
        held = store.claim_match(tid, "k-a", other)
        assert isinstance(held, Holder) and held.arena_id == mine and "pid" in str(held)
        assert isinstance(store.claim_bot(tid, 1, mine), bool)
        assert isinstance(store.claim_bot(tid, 1, other), Holder)
        # The first arena dies (kill -9): its pid no longer runs with its start time.
        store._db.execute("UPDATE arenas SET started = started - 1000 WHERE id = ?", (mine,))
        assert store.claim_match(tid, "k-a", other) is True
        assert store.claim_bot(tid, 1, other) is True
        assert store.record_match(tid, match("k-a"), arena=other)
        assert store.claim_match(tid, "k-a", mine) is False  # recorded: nothing to claim
        assert "match:k-a" not in store.holders(tid)  # recording dropped its claim
        store.unregister_arena(other)
        assert store.holders(tid) == {}
        third = store.register_arena()  # registering forgets dead arenas, and their claims
        assert [row[0] for row in store._db.execute("SELECT id FROM arenas")] == [third]


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


@pytest.mark.parametrize("readonly", [False, True])
def test_another_program_s_sqlite_database_is_refused_and_left_as_it_was(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "app.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers (name) VALUES ('ada')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"another program's SQLite database \(tables: customers\).*give --db a new"):
        Store.open(path, readonly=readonly)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]


def test_an_empty_file_or_an_empty_sqlite_database_becomes_a_results_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    sqlite3.connect(tmp_path / "blank.sqlite").close()
    for path in (empty, tmp_path / "blank.sqlite"):
        with Store.open(path) as store:
            assert store.schema_version() == len(MIGRATIONS)


def test_reading_a_database_leaves_no_files_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        tid = new_tournament(store)
        store.record_match(tid, match("k-a"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]
    with Store.open(path, readonly=True) as reader:
        assert len(reader.matches(tid)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]
    # A database left in WAL mode (an older arena closed it so) is read without files too.
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]
    with Store.open(path, readonly=True) as reader:
        assert len(reader.matches(tid)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]


def test_a_reader_reads_a_database_without_the_migrations_that_only_add_an_index(tmp_path: Path) -> None:
    """``arena results`` on a database an older arena wrote: a migration that only adds an index (results schema
    7's of the bot pages' records) changes nothing a reader reads, so it is not refused for it (a reader never
    migrates); one that changes the layout still is."""
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        tid = new_tournament(store)
        store.record_match(tid, match("k-a"))
    db = sqlite3.connect(path)
    db.execute("DROP INDEX pair_records")
    db.execute("DELETE FROM schema_migrations WHERE version = 7")
    db.commit()
    with Store.open(path, readonly=True) as reader:
        assert len(reader.matches(tid)) == 1
    db.execute("DELETE FROM schema_migrations WHERE version = 6")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="run a tournament on it once"):
        Store.open(path, readonly=True)


def test_a_database_from_a_newer_arena_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_migrations VALUES (?, 'later')", (len(MIGRATIONS) + 1,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer than this arena knows"):
        Store.open(path)


def test_an_arena_opening_a_database_another_is_converting_waits_for_it_not_fails(tmp_path: Path) -> None:
    # A database at rest is in rollback-journal mode; two arenas started together both put it in WAL mode. While
    # one holds the rollback journal's write lock, SQLite fails the other's conversion at once ("database is
    # locked", no busy handler): an idle CI run lost an arena so. The opening waits until the lock is released.
    path = tmp_path / "r.sqlite"
    Store.open(path).close()
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # the write lock another arena's conversion takes first
    release = threading.Timer(0.3, other.execute, ("COMMIT",))
    release.start()
    try:
        with Store.open(path) as store:
            assert store.db.value("PRAGMA journal_mode") == "wal"
    finally:
        release.join()
        other.close()
