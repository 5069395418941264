"""What a match costs the database: a deal's matches found without an index of every match's deal (results
schema 5), a server's match logs' paths relative to its folder (server schema 6), and a database of the old
layout, migrated, reading every match, log and replay the same."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import sqlite3
from pathlib import Path

from arena.competition.database.schema import MIGRATIONS, SERVER_MIGRATIONS
from arena.competition.store import PlayedMatch, Store
from arena.competition.totals import Pair, PairTotals, deal_totals
from arena.replay.cli import log_path_from_db
from arena.server import retention
from arena.server.state import State


def _played(key: str, deal: str, leg: int, versions: tuple[int, int], number: int, log: Path) -> PlayedMatch:
    log.write_bytes(b"x" * (50 + number))
    return PlayedMatch(
        key=key, cycle=1, deal=deal, leg=leg, bot_a="ab"[leg], bot_b="ba"[leg], seed=number,
        points=(float(number % 3), float((number + leg) % 2)), winner="AB"[(number + leg) % 2],
        versions=versions if leg == 0 else versions[::-1], log_path=str(log),
    )  # fmt: skip


# Deals whose keys are their id and a dash (a pair's legs, two tables), a comparison's (keys that do not start with
# the deal's id), and deals whose ids are each other's prefix (``x`` and ``x-z``, ``x-a`` among ``x``'s keys' range),
# an odd key inside a keyed deal's range (``x+1``), a key equal to its deal.
DEALS = (
    ("x", ("x-a", "x-b")),
    ("x-z", ("x-z-a", "x-z-b")),
    ("x-a", ("x-a-1", "x-a-2")),
    ("c1-vs-y", ("c1-a-vs-y-a", "c1-b-vs-y-b")),
    ("y", ("y+1", "y-b")),
    ("solo", ("solo",)),
    ("p~q~r~s~0", ("p~q~r~s~0-1", "p~q~r~s~0-2")),
)


def build(path: Path) -> tuple[int, list[PlayedMatch]]:
    """A server's database of the deals above, each leg recorded one at a time (the second after other deals'
    matches), with a log per match under its folder; the matches as recorded."""
    logs = path.parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    played: list[PlayedMatch] = []
    with Store.open(path) as store:
        State(store)
        tid = store.create_competition(name="ladder", seed=3, game="rps-poker/1", config={"scheduled": 4}).id
        vids = []
        for slot, name in enumerate(("a", "b")):
            vids.append(
                store.add_version(
                    tid, name=name, slot=slot, command=("x",), source=name, digest=name, process="fresh"
                ).id
            )
            store.set_admission(vids[-1], "admitted")
        for leg in range(2):
            for number, (deal, keys) in enumerate(DEALS):
                if leg < len(keys):
                    match = _played(keys[leg], deal, leg, (vids[0], vids[1]), number, logs / f"{keys[leg]}.jsonl.gz")
                    assert store.record_match(tid, match)
                    played.append(match)
    return tid, played


def _from_scratch(matches: list[PlayedMatch]) -> dict[Pair, PairTotals]:
    by_deal: dict[str, list[PlayedMatch]] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    want: dict[Pair, PairTotals] = {}
    for deal in by_deal.values():
        for pair, part in deal_totals(deal).items():
            want.setdefault(pair, PairTotals()).add(part)
    return want


def _indexes(path: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def _deal_firsts(path: Path) -> dict[int, int]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT match_id, deal_first FROM match_logs").fetchall())


def test_a_deals_matches_are_found_by_their_keys_whatever_the_scheme(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    tid, _played_matches = build(path)
    assert "matches_by_deal" not in _indexes(path)  # (the old code kept an index of every match's deal)
    with Store.open(path) as store:
        assert store.pair_totals(tid) == _from_scratch(store.matches(tid))
        # Each deal's two legs counted together (a leg counted alone, or twice, changes the pentanomial counts).
        assert sum(t.deals for t in store.pair_totals(tid).values()) == 2 * len(DEALS)
    with contextlib.closing(retention.connect(path)) as db:
        retention.catch_up(db)
    with Store.open(path) as store:
        ids = {m.key: m.row_id for m in store.matches(tid)}
    firsts = _deal_firsts(path)
    for _deal, keys in DEALS:
        assert {firsts[ids[key]] for key in keys} == {ids[keys[0]]}


def _stored_paths(path: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT match_key, log_path FROM matches").fetchall())


def _logs_found(path: Path, tid: int, played: list[PlayedMatch]) -> None:
    """Every match's log, as the store, the pruner and ``arena replay --db`` find it, is the file under ``path``'s
    folder, and the pruner notes its size."""
    folder = path.parent.resolve()
    with Store.open(path, readonly=True) as store:
        for match in store.matches(tid):
            assert match.log_path == str(folder / "logs" / f"{match.key}.jsonl.gz")
    for match in played:
        assert log_path_from_db(path, match.key).resolve() == folder / "logs" / f"{match.key}.jsonl.gz"
    with contextlib.closing(retention.connect(path)) as db:
        retention.catch_up(db)
    with contextlib.closing(sqlite3.connect(path)) as db:
        sizes = dict(db.execute("SELECT m.match_key, l.bytes FROM match_logs l JOIN matches m ON m.id = l.match_id"))
    assert sizes == {m.key: (folder / "logs" / f"{m.key}.jsonl.gz").stat().st_size for m in played}


def test_a_servers_logs_are_kept_relative_to_its_folder_which_may_move(tmp_path: Path) -> None:
    path = tmp_path / "data" / "server.sqlite"
    tid, played = build(path)
    assert _stored_paths(path) == {m.key: f"logs/{m.key}.jsonl.gz" for m in played}  # the full path, before
    moved = tmp_path / "elsewhere" / "data"
    moved.parent.mkdir()
    shutil.move(path.parent, moved)  # a data folder restored elsewhere: nothing to rewrite
    assert retention.relocate_logs(moved / "server.sqlite", moved / "logs") == 0
    _logs_found(moved / "server.sqlite", tid, played)


def test_a_results_database_keeps_its_logs_paths_as_given(tmp_path: Path) -> None:
    with Store.open(tmp_path / "results.sqlite") as store:  # a tournament's: relative to where it ran
        tid = store.create_competition(name="t", seed=3, game="rps-poker/1", config={"scheduled": 4}).id
        vids = [store.add_version(tid, name=n, slot=i, command=("x",), source=n, digest=n, process="fresh").id
                for i, n in enumerate("ab")]  # fmt: skip
        (tmp_path / "logs").mkdir()
        match = _played("x-a", "x", 0, (vids[0], vids[1]), 1, tmp_path / "logs" / "x-a.jsonl.gz")
        store.record_match(tid, dataclasses.replace(match, log_path="runs/logs/x-a.jsonl.gz"))
        assert store.matches(tid)[0].log_path == "runs/logs/x-a.jsonl.gz"


def _old_layout(path: Path, folder: Path) -> None:
    """Take ``path`` back to the layout before results schema 5 and server schema 6: the index of every match's
    deal, and each log's full path under ``folder`` (and no index of the bot pages' records: results schema 7)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(
            "DROP INDEX matches_by_odd_deal; CREATE INDEX matches_by_deal ON matches (tournament_id, deal);"
            " DROP TABLE table_seats; DROP INDEX pair_records; DELETE FROM schema_migrations WHERE version >= 5;"
            " DROP TABLE standings_saved; DELETE FROM server_migrations WHERE version >= 6;"
        )
        db.execute("UPDATE matches SET log_path = ? || log_path", (f"{folder}/",))
        db.commit()


def test_a_database_of_the_old_layout_migrates_reading_every_match_log_and_replay_the_same(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    tid, played = build(path)
    with Store.open(path) as store:
        matches, totals = store.matches(tid), store.pair_totals(tid)
    _old_layout(path, tmp_path.resolve())
    with Store.open(path) as store:
        State(store)  # (the server's migrations)
        assert store.schema_version() == len(MIGRATIONS) and store.db.schema_version("server") == len(SERVER_MIGRATIONS)
        assert store.matches(tid) == matches  # nothing lost
        assert store.pair_totals(tid) == totals
        for match in played:
            assert store.match(tid, match.key) == next(m for m in matches if m.key == match.key)
    indexes = _indexes(path)
    assert "matches_by_deal" not in indexes and "matches_by_odd_deal" in indexes
    with contextlib.closing(sqlite3.connect(path)) as db:
        odd = {row[0] for row in db.execute("SELECT match_key FROM matches INDEXED BY matches_by_odd_deal WHERE "
                                            "tournament_id = 1 AND deal > '' AND NOT (match_key = deal OR"
                                            " substr(match_key, 1, length(deal) + 1) = deal || '-')")}  # fmt: skip
    assert odd == {"c1-a-vs-y-a", "c1-b-vs-y-b", "y+1"}  # only the odd keys are in the partial index
    assert _stored_paths(path) == {m.key: f"logs/{m.key}.jsonl.gz" for m in played}
    _logs_found(path, tid, played)


def test_a_database_of_the_old_layout_moved_elsewhere_finds_its_logs(tmp_path: Path) -> None:
    """Full paths under a folder the data has left since: kept at the migration, rewritten by the server's look
    for a moved folder (relative now), and found."""
    path = tmp_path / "before" / "server.sqlite"
    tid, played = build(path)
    _old_layout(path, path.parent.resolve())
    moved = tmp_path / "after"
    shutil.move(path.parent, moved)
    with Store.open(moved / "server.sqlite") as store:
        State(store)
    assert set(_stored_paths(moved / "server.sqlite").values()) == {
        f"{path.parent.resolve()}/logs/{m.key}.jsonl.gz" for m in played
    }
    assert retention.relocate_logs(moved / "server.sqlite", moved / "logs") == len(played)
    assert _stored_paths(moved / "server.sqlite") == {m.key: f"logs/{m.key}.jsonl.gz" for m in played}
    _logs_found(moved / "server.sqlite", tid, played)
