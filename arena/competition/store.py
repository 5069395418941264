"""Competition results in SQLite: append-only, resumable, safe to kill, shared by cooperating arenas.

The model, as the tables hold it:

* **competitions** (table ``tournaments``): one row per competition, found by
  its ``name``; ``--fresh`` starts another row under the same name, and the
  latest one is the current one. ``config`` holds what the competition is
  (game, parameters, limits, format: a change of these is refused) and what
  may grow (cycles, the schedule's size).
* **versions**: every version of every bot that ever entered a competition:
  its name, version number (1, 2, ...), slot (the bot's place in the
  competition, which fixes its pairings' deals), command, content hash and
  process mode. A version is *current* until it is retired (``changed``: its
  files changed and a new version took its place; ``removed``: it left the
  field). Its *admission* is ``pending`` until it has been built and has
  answered a first request, then ``admitted`` or ``not_admitted`` (with the
  reason: the build's last lines, or why it did not start).
* **matches** and their **faults**: every finished match, with the versions
  in its seats. The current standings are the matches whose two versions are
  both current and admitted; the history is all of them.
* **pair_totals**: the standings' running totals per ordered pair of
  versions (:mod:`arena.competition.totals`), added to in the same
  transaction as each match, so that standings are read from a row per pair
  met, never recounted from the matches.
* **changes**: one line per change a run found (a bot added, changed,
  removed, not admitted; more cycles), for ``arena results --history``.
* **arenas** and **claims**: the arena processes working on this database,
  and the matches (``match:<key>``) and persistent bots (``bot:<version id>``)
  each has claimed, so that several arenas cooperate without playing a match
  twice. A claim whose arena died (even by ``kill -9``) is taken over.

Every finished match is written in one transaction, with its faults, under a
``UNIQUE (tournament_id, match_key)`` constraint, and its claim is dropped in
the same transaction: a match is either recorded completely or not at all,
and never twice. While an arena writes, the database runs in WAL mode, so
``arena results`` can read it meanwhile; when the last writer closes it goes
back to a plain rollback journal, so a database at rest is one file and
reading it leaves no ``-wal``/``-shm`` files beside it.

The schema (:mod:`arena.competition.schema`, with the server's own tables)
grows by migrations that are only ever appended to ``MIGRATIONS``; each runs in the same transaction as the row in
``schema_migrations`` that says it ran. An Arena database says so in its
header (``PRAGMA application_id``); a file that is neither empty nor Arena's
is refused, never written to.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from .._errors import StoreError
from . import schema
from .records import FaultRow as FaultRow
from .records import PlayedMatch as PlayedMatch
from .records import log_halves, read_matches
from .schema import _SCHEMA_1_TABLES, add_table
from .schema import APPLICATION_ID as APPLICATION_ID
from .schema import MIGRATIONS as MIGRATIONS
from .totals import COLUMNS, Pair, PairTotals, Quad, deal_change, deal_totals, from_row, table_result, to_row

ADMISSIONS = ("pending", "admitted", "not_admitted")
PROCESS_MODES = ("fresh", "reused", "persistent")
HEARTBEAT_S = 20.0
"""How often a running arena says it is alive (seen only by arenas on other hosts)."""
STALE_AFTER_S = 120.0
"""An arena on another host that has not said so for this long is taken for dead, and its claims are free."""

_OUTCOME_SQL = {
    "won": "m.winner = ?",
    "drew": "m.winner IS NULL AND instr(m.forfeit, ?) = 0",
    "lost": "((m.winner IS NOT NULL AND m.winner <> ?) OR (m.winner IS NULL AND instr(m.forfeit, ?) > 0))",
}
"""A match's outcome for the seat given (once for each ``?``): a forfeit without a winner is the forfeiter's loss."""


@dataclass(frozen=True)
class TournamentRow:
    """A competition as stored."""

    id: int
    fingerprint: str
    seed: int
    name: str
    game: str
    config: dict[str, Any]
    created_at: str


@dataclass(frozen=True)
class BotRow:
    """A bot of a tournament: its name, command, what the user wrote, and content hash."""

    name: str
    command: tuple[str, ...]
    source: str
    digest: str
    reuse: bool


@dataclass(frozen=True)
class VersionRow:
    """One version of a bot in a competition."""

    id: int
    name: str
    version: int
    slot: int
    """The bot's place in the competition (the order bots joined it); it fixes the deals of its pairings."""
    command: tuple[str, ...]
    source: str
    digest: str
    process: str
    """``fresh`` (a process per match), ``reused`` (resets at ``match_start``) or ``persistent``."""
    admission: str
    """``pending``, ``admitted`` or ``not_admitted``."""
    reason: str
    """Why it was not admitted (the build's last lines, or what went wrong at start)."""
    added_at: str
    retired_at: str | None = None
    retired_because: str = ""
    """``changed`` or ``removed``."""

    @property
    def label(self) -> str:
        """How the version is named in match keys and the history: ``name``, then ``name.v2``, ..."""
        return version_label(self.name, self.version)

    @property
    def current(self) -> bool:
        """Whether it is in the competition's field (not retired)."""
        return self.retired_at is None


def version_label(name: str, version: int) -> str:
    """``name`` for a bot's first version, ``name.vN`` for later ones."""
    return name if version == 1 else f"{name}.v{version}"


@dataclass(frozen=True)
class ChangeRow:
    """A change a run found in a competition, as the line it printed."""

    at: str
    kind: str
    bot: str
    line: str


@dataclass(frozen=True)
class Holder:
    """The arena process holding a claim."""

    arena_id: int
    host: str
    pid: int

    def __str__(self) -> str:
        here = socket.gethostname()
        return f"the arena with pid {self.pid}" + ("" if self.host == here else f" on {self.host}")


class Store:
    """An open results database."""

    def __init__(self, connection: sqlite3.Connection, path: Path, *, readonly: bool = False) -> None:
        self._db = connection
        self.path = path
        self.readonly = readonly
        self._depth = 0

    # Opening ------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Store:
        """Open (or, unless ``readonly``, create) the database at ``path`` and bring its schema up to date.

        A file that is neither empty nor an Arena database is refused. Read
        only, nothing is written beside the file.
        """
        try:
            if readonly:
                connection = _open_for_reading(path)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(path, isolation_level=None, timeout=10)
                _refuse_foreign(connection, path)
                connection.execute("PRAGMA journal_mode=WAL")
                # NORMAL is durable against a killed process (not a power cut) and much faster than FULL.
                connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            store = cls(connection, path, readonly=readonly)
            if readonly:
                _refuse_foreign(connection, path)
                store._check_version()
            else:
                store._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable results database: {exc}") from None
        return store

    def reader(self) -> Store:
        """Another connection on this store's database, read only, for a thread of this process (SQLite's
        connections are each one thread's). It sees what this one has committed.

        Never by :meth:`open`'s look at the file's header: a process that opens and closes its database file by
        any other means than SQLite drops every POSIX lock it holds on it, this connection's too (another process
        could then think itself the last one, checkpoint and delete the WAL under it).
        """
        connection = sqlite3.connect(f"file:{_uri_path(self.path)}?mode=ro", uri=True, isolation_level=None, timeout=10)
        return Store(connection, self.path, readonly=True)

    def close(self) -> None:
        """Close the database; the last writer to leave puts it back to one file (no ``-wal``, no ``-shm``)."""
        if not self.readonly:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA busy_timeout = 0")  # another arena still writing: leave WAL on for it
                self._db.execute("PRAGMA journal_mode=DELETE")
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Make the store calls inside one transaction (another arena waits for it, then sees all of it)."""
        with self._transaction():
            yield

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self._depth:  # inside an outer transaction: part of it
            self._depth += 1
            try:
                yield self._db
            finally:
                self._depth -= 1
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0
        self._db.execute("COMMIT")

    def schema_version(self) -> int:
        """How many migrations have run (0 for a new database)."""
        exists = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ).fetchone()
        if not exists:
            return 0
        row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def _check_version(self) -> None:
        version = self.schema_version()
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this arena knows"
                f" ({len(MIGRATIONS)}): upgrade arena"
            )
        if version < len(MIGRATIONS):
            raise StoreError(
                f"{self.path} has schema version {version}; run a tournament on it once (it is upgraded then)"
            )

    def _migrate(self) -> None:
        schema.migrate(self._db, self.path)

    # Competitions -------------------------------------------------------
    def latest(self, name: str) -> TournamentRow | None:
        """The current competition called ``name`` (the latest started under that name), if any."""
        row = self._db.execute("SELECT * FROM tournaments WHERE name = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()
        return _tournament(row) if row else None

    def create_competition(self, *, name: str, seed: int, game: str, config: dict[str, Any]) -> TournamentRow:
        """Start a new competition called ``name`` (an older one of that name stays, in the history)."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO tournaments (fingerprint, seed, name, game, config, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                # Schema 1 identified a tournament by a hash of its field; now each row has a unique token.
                (f"competition-{secrets.token_hex(8)}", seed, name, game, json.dumps(config, sort_keys=True), _now()),
            )
            tid = cursor.lastrowid
        assert tid is not None
        found = self.tournament(tid)
        assert found is not None
        return found

    def update_config(self, tid: int, config: dict[str, Any]) -> None:
        """Replace the stored config of ``tid`` (a rerun may ask for more cycles)."""
        with self._transaction() as db:
            db.execute("UPDATE tournaments SET config = ? WHERE id = ?", (json.dumps(config, sort_keys=True), tid))

    def tournament(self, tid: int | None = None) -> TournamentRow | None:
        """The competition with id ``tid``, or the latest one."""
        if tid is None:
            row = self._db.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self._db.execute("SELECT * FROM tournaments WHERE id = ?", (tid,)).fetchone()
        return _tournament(row) if row else None

    def tournaments(self) -> list[TournamentRow]:
        """Every competition in the database, oldest first."""
        return [_tournament(row) for row in self._db.execute("SELECT * FROM tournaments ORDER BY id")]

    def bots(self, tid: int) -> list[BotRow]:
        """The current bots of competition ``tid`` (its field), by name."""
        return [
            BotRow(v.name, v.command, v.source, v.digest, v.process != "fresh")
            for v in sorted(self.versions(tid, current=True), key=lambda v: v.name)
        ]

    # Versions -----------------------------------------------------------
    def versions(self, tid: int, *, current: bool = False) -> list[VersionRow]:
        """Every version of every bot of ``tid`` (only the current field with ``current``), by slot and version."""
        where = " AND retired_at IS NULL" if current else ""
        rows = self._db.execute(
            "SELECT id, name, version, slot, command, source, digest, process, admission, reason, added_at,"
            f" retired_at, retired_because FROM versions WHERE tournament_id = ?{where} ORDER BY slot, version",
            (tid,),
        )
        return [_version(row) for row in rows]

    def add_version(
        self, tid: int, *, name: str, slot: int, command: Sequence[str], source: str, digest: str, process: str
    ) -> VersionRow:
        """Enter a new version of ``name`` (its first, or the next one), pending admission."""
        assert process in PROCESS_MODES, process
        with self._transaction() as db:
            (latest,) = db.execute(
                "SELECT COALESCE(MAX(version), 0) FROM versions WHERE tournament_id = ? AND name = ?", (tid, name)
            ).fetchone()
            cursor = db.execute(
                "INSERT INTO versions (tournament_id, name, version, slot, command, source, digest, process,"
                " admission, reason, added_at, retired_at, retired_because)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', '', ?, NULL, '')",
                (tid, name, latest + 1, slot, json.dumps(list(command)), source, digest, process, _now()),
            )
            vid = cursor.lastrowid
        assert vid is not None
        return self.version(vid)

    def version(self, vid: int) -> VersionRow:
        """The version with id ``vid``."""
        row = self._db.execute(
            "SELECT id, name, version, slot, command, source, digest, process, admission, reason, added_at,"
            " retired_at, retired_because FROM versions WHERE id = ?",
            (vid,),
        ).fetchone()
        if row is None:
            raise StoreError(f"{self.path} has no bot version {vid}")
        return _version(row)

    def retire(self, vid: int, because: str) -> None:
        """Take version ``vid`` out of the current field (``changed`` or ``removed``); its matches stay."""
        with self._transaction() as db:
            db.execute(
                "UPDATE versions SET retired_at = ?, retired_because = ? WHERE id = ? AND retired_at IS NULL",
                (_now(), because, vid),
            )

    def reinstate(self, vid: int) -> None:
        """Bring a retired version back into the field (the same bot, unchanged, entered again)."""
        with self._transaction() as db:
            db.execute("UPDATE versions SET retired_at = NULL, retired_because = '' WHERE id = ?", (vid,))

    def set_admission(self, vid: int, admission: str, reason: str = "") -> None:
        """Record whether version ``vid`` was admitted, and if not, why."""
        assert admission in ADMISSIONS, admission
        with self._transaction() as db:
            db.execute("UPDATE versions SET admission = ?, reason = ? WHERE id = ?", (admission, reason, vid))

    # Changes ------------------------------------------------------------
    def log_change(self, tid: int, kind: str, line: str, bot: str = "") -> None:
        """Keep one line a run printed about a change it found."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO changes (tournament_id, at, kind, bot, line) VALUES (?, ?, ?, ?, ?)",
                (tid, _now(), kind, bot, line),
            )

    def changes(self, tid: int) -> list[ChangeRow]:
        """Every change recorded for ``tid``, oldest first."""
        rows = self._db.execute(
            "SELECT at, kind, bot, line FROM changes WHERE tournament_id = ? ORDER BY id", (tid,)
        ).fetchall()
        return [ChangeRow(*row) for row in rows]

    # Matches ------------------------------------------------------------
    def finished_keys(self, tid: int) -> set[str]:
        """The keys of the matches of ``tid`` already recorded."""
        return {row[0] for row in self._db.execute("SELECT match_key FROM matches WHERE tournament_id = ?", (tid,))}

    def match_keys(self, tid: int) -> Iterator[str]:
        """The keys of the matches of ``tid``, one at a time (a million of them are never held at once)."""
        cursor = self._db.execute("SELECT match_key FROM matches WHERE tournament_id = ?", (tid,))
        while rows := cursor.fetchmany(10_000):
            for (key,) in rows:
                yield key

    def count_matches(self, tid: int, *, current: bool = False) -> int:
        """How many matches of ``tid`` are recorded (only between current, admitted versions with ``current``)."""
        if not current:
            return int(self._db.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,)).fetchone()[0])
        query = f"SELECT COUNT(*) FROM matches m WHERE m.tournament_id = ? AND {_CURRENT}"
        return int(self._db.execute(query, (tid,)).fetchone()[0])

    def points(self, tid: int) -> dict[str, float]:
        """Each current, admitted bot's total points over the current standings' matches."""
        out: dict[str, float] = {}
        for name, points in self._db.execute(
            "SELECT bot, SUM(points) FROM (SELECT m.bot_a AS bot, m.points_a AS points FROM matches m"
            f" WHERE m.tournament_id = ? AND {_CURRENT} UNION ALL SELECT m.bot_b, m.points_b FROM matches m"
            f" WHERE m.tournament_id = ? AND {_CURRENT}) GROUP BY bot",
            (tid, tid),
        ):
            out[name] = float(points)
        return out

    def count_matches_of(self, tid: int, vid: int) -> int:
        """How many matches of ``tid`` version ``vid`` has played."""
        (count,) = self._db.execute(
            "SELECT COUNT(*) FROM matches WHERE tournament_id = ? AND (version_a = ? OR version_b = ?)", (tid, vid, vid)
        ).fetchone()
        return int(count)

    def fault_counts(self, tid: int) -> dict[str, Counter[str]]:
        """Faults by kind of each current, admitted bot, over the current standings' matches."""
        out: dict[str, Counter[str]] = {}
        for bot, kind, count in self._db.execute(
            "SELECT f.bot, f.kind, COUNT(*) FROM faults f JOIN matches m ON m.id = f.match_id"
            f" WHERE m.tournament_id = ? AND {_CURRENT} GROUP BY f.bot, f.kind",
            (tid,),
        ):
            out.setdefault(bot, Counter())[kind] = count
        return out

    def record_match(self, tid: int, match: PlayedMatch, *, arena: int | None = None) -> bool:
        """Record a finished match and its faults in one transaction; ``False`` if it was already there.

        The match's claim (by ``arena``, or by anyone) goes in the same transaction.
        """
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO matches (tournament_id, match_key, cycle, deal, leg, bot_a, bot_b, seed,"
                " points_a, points_b, winner, forfeit, reason, duration_s, peak_rss_a, peak_rss_b, log_path,"
                " finished_at, version_a, version_b)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _match_values(tid, match),
            )
            db.execute("DELETE FROM claims WHERE tournament_id = ? AND item = ?", (tid, _match_item(match.key)))
            if cursor.rowcount == 0:
                return False
            match_id = cursor.lastrowid
            assert match_id is not None
            _insert_faults(db, match_id, match)
            before = read_matches(db, "m.tournament_id = ? AND m.deal = ? AND m.id < ?", (tid, match.deal, match_id))
            _add_totals(db, tid, deal_change(before, match), log_halves(match), match_id)
            finished = table_result([*before, match])
            if finished is not None and table_result(before) is None:  # the deal's second table
                add_table(db, tid, *finished, touched=match_id)
        return True

    def record_matches(self, tid: int, matches: Sequence[PlayedMatch]) -> None:
        """Record many finished matches, of deals the store has none of yet, in one transaction (an import, a
        benchmark's history of a million matches): what :meth:`record_match` does for each, in bulk.
        """
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO matches (tournament_id, match_key, cycle, deal, leg, bot_a, bot_b, seed,"
                " points_a, points_b, winner, forfeit, reason, duration_s, peak_rss_a, peak_rss_b, log_path,"
                " finished_at, version_a, version_b)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (_match_values(tid, match) for match in matches),
            )
            for match in matches:
                if match.faults:
                    (match_id,) = db.execute(
                        "SELECT id FROM matches WHERE tournament_id = ? AND match_key = ?", (tid, match.key)
                    ).fetchone()
                    _insert_faults(db, match_id, match)
            by_deal: dict[str, list[PlayedMatch]] = {}
            for match in matches:
                by_deal.setdefault(match.deal, []).append(match)
            change: dict[Pair, PairTotals] = {}
            for deal, played in by_deal.items():
                (stored,) = db.execute(
                    "SELECT COUNT(*) FROM matches WHERE tournament_id = ? AND deal = ?", (tid, deal)
                ).fetchone()
                if stored > len(played):
                    raise StoreError(f"deal {deal} has matches in {self.path} already: record its matches one by one")
                for pair, part in deal_totals(played).items():
                    change.setdefault(pair, PairTotals()).add(part)
                finished = table_result(played)
                if finished is not None:
                    add_table(db, tid, *finished, touched=0)
            logs: dict[int, int] = {}
            for match in matches:
                for vid, half in log_halves(match).items():
                    logs[vid] = logs.get(vid, 0) + half
            (last,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches WHERE tournament_id = ?", (tid,)).fetchone()
            _add_totals(db, tid, change, logs, last)

    def pair_totals(self, tid: int, *, among: Iterable[int] | None = None) -> dict[Pair, PairTotals]:
        """The standings' running totals of ``tid``, by ordered pair of versions (those that met; of two of ``among``).

        The standings of a field read these rows, never the matches (see
        :mod:`arena.competition.standings`).
        """
        query = f"SELECT version, opponent, {', '.join(COLUMNS)}, faults FROM pair_totals WHERE tournament_id = ?"
        args: tuple[Any, ...] = (tid,)
        if among is not None:
            ids = json.dumps(sorted(set(among)))
            query += " AND version IN (SELECT value FROM json_each(?)) AND opponent IN (SELECT value FROM json_each(?))"
            args = (tid, ids, ids)
        out = {}
        for version, opponent, *values, faults in self._db.execute(query, args):
            out[version, opponent] = from_row(values, faults)
        return out

    def table_totals(self, tid: int) -> dict[Quad, tuple[int, ...]]:
        """The deals at two tables of ``tid`` by their four versions ``(a1, b1, a2, b2)``: how many had team ONE
        ({``a1``, ``b2``}) total 0, 0.5, 1, 1.5 and 2 (see :func:`~arena.competition.totals.table_result`)."""
        return self.table_totals_since(tid, -1)[0]

    def table_totals_since(self, tid: int, touched: int) -> tuple[dict[Quad, tuple[int, ...]], int]:
        """The table totals that matches after match id ``touched`` changed, and the last such id."""
        rows = self._db.execute(
            "SELECT a1, b1, a2, b2, t0, t1, t2, t3, t4, touched FROM table_totals"
            " WHERE tournament_id = ? AND touched > ?",
            (tid, touched),
        ).fetchall()
        out = {tuple(row[:4]): tuple(row[4:9]) for row in rows}
        return out, max([touched, *(row[9] for row in rows)])

    def pair_totals_since(self, tid: int, touched: int) -> tuple[dict[Pair, PairTotals], int]:
        """The pair totals of ``tid`` that matches after match id ``touched`` changed, and the id to ask from next.

        A reader that keeps every pair's totals reads only what changed (a few
        rows a second on a busy ladder), by the index on ``touched``.
        """
        out = {}
        last = touched
        for version, opponent, *values, faults, mark in self._db.execute(
            f"SELECT version, opponent, {', '.join(COLUMNS)}, faults, touched FROM pair_totals"
            " WHERE tournament_id = ? AND touched > ?",
            (tid, touched),
        ):
            out[version, opponent] = from_row(values, faults)
            last = max(last, mark)
        return out, last

    def opponents(self, version: int) -> dict[int, PairTotals]:
        """What ``version`` did against each opponent it met, by the opponent's id (by the totals' primary key)."""
        return {
            opponent: from_row(values, faults)
            for opponent, *values, faults in self._db.execute(
                f"SELECT opponent, {', '.join(COLUMNS)}, faults FROM pair_totals WHERE version = ?", (version,)
            )
        }

    def fault_totals(self, tid: int) -> dict[int, Counter[str]]:
        """Every fault of each version of ``tid`` (against anyone), by kind, by version id (from the pair totals)."""
        out: dict[int, Counter[str]] = {}
        for version, faults in self._db.execute(
            "SELECT version, faults FROM pair_totals WHERE tournament_id = ? AND faults <> '{}'", (tid,)
        ):
            out.setdefault(version, Counter()).update(json.loads(faults))
        return out

    def log_bytes(self, tid: int) -> dict[int, int]:
        """Each version's half of the match logs it played (as they were when recorded), by version id."""
        return {
            vid: int(total)
            for vid, total in self._db.execute(
                "SELECT version, SUM(log_bytes) FROM pair_totals WHERE tournament_id = ? GROUP BY version", (tid,)
            )
        }

    def all_versioned(self, tid: int) -> bool:
        """Whether every match of ``tid`` is tied to two versions (so the pair totals count all of them)."""
        return not self._db.execute(
            "SELECT 1 FROM matches WHERE tournament_id = ? AND (version_a IS NULL OR version_b IS NULL) LIMIT 1",
            (tid,),
        ).fetchone()

    def pair_totals_of(self, pairs: Iterable[Pair]) -> dict[Pair, PairTotals]:
        """The stored totals of ``pairs`` (those that met)."""
        out = {}
        for version, opponent in pairs:
            row = self._db.execute(
                f"SELECT {', '.join(COLUMNS)}, faults FROM pair_totals WHERE version = ? AND opponent = ?",
                (version, opponent),
            ).fetchone()
            if row:
                out[version, opponent] = from_row(row[:-1], row[-1])
        return out

    def latest_faults(self, tid: int, versions: Iterable[int], limit: int) -> list[tuple[PlayedMatch, FaultRow]]:
        """The last ``limit`` faults of ``versions``, newest first, each with its match (by the faults' index)."""
        ids: set[int] = set()
        for vid in set(versions):
            ids.update(
                row[0]
                for row in self._db.execute(
                    "SELECT match_id FROM faults WHERE version = ? ORDER BY match_id DESC LIMIT ?", (vid, limit)
                )
            )
        if not ids:
            return []
        chosen = sorted(ids, reverse=True)[:limit]
        where = f"m.tournament_id = ? AND m.id IN ({', '.join('?' * len(chosen))})"
        matches = read_matches(self._db, where, (tid, *chosen), order="m.id DESC")
        wanted = set(versions)
        found = [(m, f) for m in matches for f in reversed(m.faults) if m.versions[0 if f.seat == "A" else 1] in wanted]
        return found[:limit]

    def match(self, tid: int, key: str) -> PlayedMatch | None:
        """The recorded match ``key`` of ``tid`` (by the unique index on keys)."""
        found = read_matches(self._db, "m.tournament_id = ? AND m.match_key = ?", (tid, key))
        return found[0] if found else None

    def has_match(self, tid: int, key: str) -> bool:
        """Whether match ``key`` of ``tid`` is recorded."""
        query = "SELECT 1 FROM matches WHERE tournament_id = ? AND match_key = ?"
        return self._db.execute(query, (tid, key)).fetchone() is not None

    def latest_matches(
        self,
        tid: int,
        limit: int,
        *,
        before: int | None = None,
        versions: Iterable[int] | None = None,
        opponents: Iterable[int] | None = None,
        result: str | None = None,
    ) -> list[PlayedMatch]:
        """The last ``limit`` matches of ``tid``, newest first: of ``versions`` only, and before match id ``before``;
        with ``versions``, against ``opponents`` only and with ``result`` (``won``, ``drew`` or ``lost``) for them.

        A page of a bot's history reads ``limit`` rows by the index on each
        seat's version (keyset pagination: the next page is ``before`` the
        last id shown), however long the history.
        """
        below = before if before is not None else 1 << 62
        if versions is None:
            return read_matches(
                self._db, "m.tournament_id = ? AND m.id < ?", (tid, below), order="m.id DESC", limit=limit
            )
        against = sorted(set(opponents)) if opponents is not None else None
        found: list[PlayedMatch] = []
        for vid in set(versions):
            for seat, other in (("a", "b"), ("b", "a")):
                where = f"m.version_{seat} = ? AND m.id < ? AND m.tournament_id = ?"
                args: list[object] = [vid, below, tid]
                if against is not None:
                    where += f" AND m.version_{other} IN ({', '.join('?' * len(against)) or 'NULL'})"
                    args += against
                if result is not None:
                    where += " AND " + _OUTCOME_SQL[result]
                    args += [seat.upper()] * _OUTCOME_SQL[result].count("?")
                found += read_matches(self._db, where, tuple(args), order="m.id DESC", limit=limit)
        unique = {m.row_id: m for m in found}
        return sorted(unique.values(), key=lambda m: -m.row_id)[:limit]

    def matches(self, tid: int, *, current: bool = False) -> list[PlayedMatch]:
        """The recorded matches of ``tid`` in the order they finished (only the current standings' with ``current``)."""
        return read_matches(self._db, "m.tournament_id = ?" + (f" AND {_CURRENT}" if current else ""), (tid,))

    def finished_times(self, tid: int, keys: Sequence[str]) -> dict[str, str]:
        """When each of the matches ``keys`` of ``tid`` finished (ISO 8601, UTC), by key (for the pages' dates)."""
        out: dict[str, str] = {}
        for start in range(0, len(keys), 500):  # (SQLite's limit on a statement's parameters)
            chunk = list(keys[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            for key, when in self._db.execute(
                f"SELECT match_key, finished_at FROM matches WHERE tournament_id = ? AND match_key IN ({marks})",
                (tid, *chunk),
            ):
                out[key] = when
        return out

    # Arenas and claims --------------------------------------------------
    def register_arena(self) -> int:
        """Enter this process as an arena working on the database; forget arenas that died."""
        me = psutil.Process()
        with self._transaction() as db:
            for arena_id, host, pid, started, heartbeat in db.execute("SELECT * FROM arenas").fetchall():
                if not _alive(host, pid, started, heartbeat):
                    db.execute("DELETE FROM claims WHERE arena_id = ?", (arena_id,))
                    db.execute("DELETE FROM arenas WHERE id = ?", (arena_id,))
            cursor = db.execute(
                "INSERT INTO arenas (host, pid, started, heartbeat) VALUES (?, ?, ?, ?)",
                (socket.gethostname(), os.getpid(), me.create_time(), time.time()),
            )
            arena_id = cursor.lastrowid
        assert arena_id is not None
        return arena_id

    def heartbeat(self, arena: int) -> None:
        """Say that ``arena`` is still alive."""
        with self._transaction() as db:
            db.execute("UPDATE arenas SET heartbeat = ? WHERE id = ?", (time.time(), arena))

    def unregister_arena(self, arena: int) -> None:
        """``arena`` is leaving: drop it and every claim it still holds."""
        with self._transaction() as db:
            db.execute("DELETE FROM claims WHERE arena_id = ?", (arena,))
            db.execute("DELETE FROM arenas WHERE id = ?", (arena,))

    def claim_match(self, tid: int, key: str, arena: int) -> Holder | bool:
        """Claim match ``key`` for ``arena``: ``True``, ``False`` if it is recorded already, or its live holder."""
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM matches WHERE tournament_id = ? AND match_key = ?", (tid, key)).fetchone():
                return False
            return _claim(db, tid, _match_item(key), arena)

    def claim_bot(self, tid: int, vid: int, arena: int) -> Holder | bool:
        """Claim every match of the persistent version ``vid`` for ``arena``: ``True``, or its live holder."""
        with self._transaction() as db:
            return _claim(db, tid, f"bot:{vid}", arena)

    def holders(self, tid: int) -> dict[str, Holder]:
        """The claims on ``tid`` held by live arenas, by item (``match:<key>``, ``bot:<version id>``)."""
        out = {}
        for item, arena_id, host, pid, started, heartbeat in self._db.execute(
            "SELECT c.item, a.id, a.host, a.pid, a.started, a.heartbeat FROM claims c JOIN arenas a"
            " ON a.id = c.arena_id WHERE c.tournament_id = ?",
            (tid,),
        ):
            if _alive(host, pid, started, heartbeat):
                out[item] = Holder(arena_id, host, pid)
        return out


_CURRENT = (
    "EXISTS (SELECT 1 FROM versions va WHERE va.id = m.version_a AND va.retired_at IS NULL"
    " AND va.admission = 'admitted')"
    " AND EXISTS (SELECT 1 FROM versions vb WHERE vb.id = m.version_b AND vb.retired_at IS NULL"
    " AND vb.admission = 'admitted')"
)
"""SQL: match ``m`` is between two current, admitted versions (it counts in the current standings)."""


def _match_values(tid: int, match: PlayedMatch) -> tuple[Any, ...]:
    """A match's row of ``matches``, in the order the inserts name the columns."""
    return (
        tid, match.key, match.cycle, match.deal, match.leg, match.bot_a, match.bot_b, match.seed, match.points[0],
        match.points[1], match.winner, json.dumps(list(match.forfeit)), match.reason, match.duration_s,
        match.peak_rss[0], match.peak_rss[1], match.log_path, _now(), match.versions[0], match.versions[1],
    )  # fmt: skip


def _insert_faults(db: sqlite3.Connection, match_id: int, match: PlayedMatch) -> None:
    for fault in match.faults:
        db.execute(
            "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match_id, fault.seat, fault.bot, fault.kind, fault.reason, fault.request_id, fault.request_type,
                match.versions[0 if fault.seat == "A" else 1],
            ),
        )  # fmt: skip


def _add_totals(
    db: sqlite3.Connection, tid: int, change: dict[Pair, PairTotals], log_halves: dict[int, int], touched: int
) -> None:
    """Add a match's ``change`` to the stored totals of its pairs (in the caller's transaction); ``touched``: the
    id of the last match added, which readers of what changed since ask by (:meth:`Store.pair_totals_since`)."""
    for (version, opponent), delta in change.items():
        row = db.execute(
            f"SELECT {', '.join(COLUMNS)}, faults, log_bytes FROM pair_totals WHERE version = ? AND opponent = ?",
            (version, opponent),
        ).fetchone()
        totals, logs = (from_row(row[:-2], row[-2]), row[-1]) if row else (PairTotals(), 0)
        totals.add(delta)
        values, faults = to_row(totals)
        db.execute(
            f"INSERT OR REPLACE INTO pair_totals (tournament_id, version, opponent, {', '.join(COLUMNS)}, faults,"
            f" log_bytes, touched) VALUES ({', '.join('?' * (len(COLUMNS) + 6))})",
            (tid, version, opponent, *values, faults, logs + log_halves.get(version, 0), touched),
        )


def _match_item(key: str) -> str:
    return f"match:{key}"


def _claim(db: sqlite3.Connection, tid: int, item: str, arena: int) -> Holder | bool:
    row = db.execute(
        "SELECT a.id, a.host, a.pid, a.started, a.heartbeat FROM claims c LEFT JOIN arenas a ON a.id = c.arena_id"
        " WHERE c.tournament_id = ? AND c.item = ?",
        (tid, item),
    ).fetchone()
    if row is not None and row[0] is not None and row[0] != arena and _alive(*row[1:]):
        return Holder(row[0], row[1], row[2])
    db.execute(
        "INSERT OR REPLACE INTO claims (tournament_id, item, arena_id, claimed_at) VALUES (?, ?, ?, ?)",
        (tid, item, arena, _now()),
    )
    return True


def _alive(host: str, pid: int, started: float, heartbeat: float) -> bool:
    """Whether the arena process (``pid``, started at ``started``, on ``host``) still runs.

    On this host the process table says so exactly, also after a ``kill -9``
    (a pid taken by a later process has another start time); an arena on
    another host is alive while its heartbeat is recent.
    """
    if host != socket.gethostname():
        return time.time() - heartbeat < STALE_AFTER_S
    try:
        return abs(psutil.Process(pid).create_time() - started) < 0.01
    except psutil.Error:
        return False


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection that leaves nothing beside the file.

    A database at rest is in rollback-journal mode (the last writer puts it
    back) and is read normally. A database whose header says WAL but has no
    ``-wal`` file beside it (nobody is writing, or a writer of an older arena
    closed it) would make SQLite create ``-wal`` and ``-shm`` files even for a
    reader, so it is opened as immutable: a writer starting meanwhile appends
    to its own WAL file and does not change the main file we read.
    """
    if not path.is_file():
        raise StoreError(f"no results database at {path}")
    uri = f"file:{_uri_path(path)}?mode=ro"
    if _header_says_wal(path) and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10)


def _uri_path(path: Path) -> str:
    from urllib.parse import quote

    return quote(str(path.absolute()))


def _header_says_wal(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and header.startswith(b"SQLite format 3\0") and header[18] == 2


def _refuse_foreign(connection: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`StoreError` unless the database is empty or Arena's (never write to another program's file)."""
    (app_id,) = connection.execute("PRAGMA application_id").fetchone()
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id == APPLICATION_ID or not tables or (app_id == 0 and tables >= _SCHEMA_1_TABLES):
        return
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    raise StoreError(
        f"{path} is another program's SQLite database (tables: {shown}), not an Arena results database;"
        " give --db a new file"
    )


def _tournament(row: tuple[Any, ...]) -> TournamentRow:
    return TournamentRow(
        id=row[0],
        fingerprint=row[1],
        seed=row[2],
        name=row[3],
        game=row[4],
        config=json.loads(row[5]),
        created_at=row[6],
    )


def _version(row: tuple[Any, ...]) -> VersionRow:
    return VersionRow(
        id=row[0],
        name=row[1],
        version=row[2],
        slot=row[3],
        command=tuple(json.loads(row[4])),
        source=row[5],
        digest=row[6],
        process=row[7],
        admission=row[8],
        reason=row[9],
        added_at=row[10],
        retired_at=row[11],
        retired_because=row[12],
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
