"""Tournament results in SQLite: append-only, resumable, safe to kill.

Every finished match is written in one transaction, with its faults, under a
``UNIQUE (tournament_id, match_key)`` constraint: a match is either recorded
completely or not at all, and never twice. The database runs in WAL mode, so
``arena results`` can read it while a tournament writes, and a ``kill -9``
loses at most the matches that were still being played.

The schema grows by migrations that are only ever appended to
``MIGRATIONS``; each runs in the same transaction as the row in
``schema_migrations`` that says it ran.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import StoreError

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: tournaments, their bots, matches and faults
    (
        """CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            seed INTEGER NOT NULL,
            name TEXT NOT NULL,
            game TEXT NOT NULL,
            config TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (fingerprint, seed)
        )""",
        """CREATE TABLE bots (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            name TEXT NOT NULL,
            command TEXT NOT NULL,
            source TEXT NOT NULL,
            digest TEXT NOT NULL,
            reuse INTEGER NOT NULL,
            PRIMARY KEY (tournament_id, name)
        )""",
        """CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            match_key TEXT NOT NULL,
            cycle INTEGER NOT NULL,
            deal TEXT NOT NULL,
            leg INTEGER NOT NULL,
            bot_a TEXT NOT NULL,
            bot_b TEXT NOT NULL,
            seed INTEGER NOT NULL,
            points_a REAL NOT NULL,
            points_b REAL NOT NULL,
            winner TEXT,
            forfeit TEXT NOT NULL,
            reason TEXT NOT NULL,
            duration_s REAL NOT NULL,
            peak_rss_a INTEGER,
            peak_rss_b INTEGER,
            log_path TEXT,
            finished_at TEXT NOT NULL,
            UNIQUE (tournament_id, match_key)
        )""",
        """CREATE TABLE faults (
            match_id INTEGER NOT NULL REFERENCES matches(id),
            seat TEXT NOT NULL,
            bot TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            request_id INTEGER,
            request_type TEXT NOT NULL
        )""",
        "CREATE INDEX faults_by_match ON faults (match_id)",
    ),
)
"""The schema, as migrations in order. Append; never edit one that has shipped."""


@dataclass(frozen=True)
class FaultRow:
    """A fault as stored: the seat, the bot in it, the kind and the reason."""

    seat: str
    bot: str
    kind: str
    reason: str
    request_id: int | None = None
    request_type: str = ""


@dataclass(frozen=True)
class PlayedMatch:
    """One finished match as the store keeps it."""

    key: str
    cycle: int
    deal: str
    """The deal's id: the two legs of a duplicate pair share it."""
    leg: int
    bot_a: str
    bot_b: str
    seed: int
    points: tuple[float, float]
    winner: str | None
    """``"A"``, ``"B"`` or ``None`` (draw, or both faulted)."""
    forfeit: tuple[str, ...] = ()
    reason: str = ""
    duration_s: float = 0.0
    peak_rss: tuple[int | None, int | None] = (None, None)
    log_path: str | None = None
    faults: tuple[FaultRow, ...] = field(default=())

    def bot(self, seat: str) -> str:
        """The bot in ``seat``."""
        return self.bot_a if seat == "A" else self.bot_b


@dataclass(frozen=True)
class TournamentRow:
    """A tournament as stored."""

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


class Store:
    """An open results database."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    # Opening ------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Store:
        """Open (or, unless ``readonly``, create) the database at ``path`` and bring its schema up to date."""
        try:
            if readonly:
                if not path.is_file():
                    raise StoreError(f"no results database at {path}")
                connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=10)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(path, isolation_level=None, timeout=10)
                connection.execute("PRAGMA journal_mode=WAL")
                # NORMAL is durable against a killed process (not a power cut) and much faster than FULL.
                connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            store = cls(connection, path)
            if readonly:
                store._check_version()
            else:
                store._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable results database: {exc}") from None
        return store

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
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
            raise StoreError(f"{self.path} has schema version {version}; open it once for writing to upgrade it")

    def _migrate(self) -> None:
        with self._transaction() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
        version = self.schema_version()
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this arena knows"
                f" ({len(MIGRATIONS)}): upgrade arena"
            )
        for number in range(version + 1, len(MIGRATIONS) + 1):
            with self._transaction() as db:
                # Another process may have migrated between our read and our lock.
                if db.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (number,)).fetchone():
                    continue
                for statement in MIGRATIONS[number - 1]:
                    db.execute(statement)
                db.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, _now()))

    # Tournaments --------------------------------------------------------
    def find_tournament(self, fingerprint: str, seed: int | None) -> TournamentRow | None:
        """The tournament with this fingerprint (and seed; the latest one when ``seed`` is ``None``)."""
        if seed is None:
            row = self._db.execute(
                "SELECT * FROM tournaments WHERE fingerprint = ? ORDER BY id DESC LIMIT 1", (fingerprint,)
            ).fetchone()
        else:
            row = self._db.execute(
                "SELECT * FROM tournaments WHERE fingerprint = ? AND seed = ?", (fingerprint, seed)
            ).fetchone()
        return _tournament(row) if row else None

    def create_tournament(
        self, *, fingerprint: str, seed: int, name: str, game: str, config: dict[str, Any], bots: list[BotRow]
    ) -> TournamentRow:
        """Record a new tournament and its bots (or return the one already there)."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO tournaments (fingerprint, seed, name, game, config, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (fingerprint, seed, name, game, json.dumps(config, sort_keys=True), _now()),
            )
            (tid,) = db.execute(
                "SELECT id FROM tournaments WHERE fingerprint = ? AND seed = ?", (fingerprint, seed)
            ).fetchone()
            for bot in bots:
                db.execute(
                    "INSERT OR IGNORE INTO bots VALUES (?, ?, ?, ?, ?, ?)",
                    (tid, bot.name, json.dumps(list(bot.command)), bot.source, bot.digest, int(bot.reuse)),
                )
        found = self.tournament(tid)
        assert found is not None
        return found

    def update_config(self, tid: int, config: dict[str, Any]) -> None:
        """Replace the stored config of ``tid`` (a rerun may ask for more cycles)."""
        with self._transaction() as db:
            db.execute("UPDATE tournaments SET config = ? WHERE id = ?", (json.dumps(config, sort_keys=True), tid))

    def tournament(self, tid: int | None = None) -> TournamentRow | None:
        """The tournament with id ``tid``, or the latest one."""
        if tid is None:
            row = self._db.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self._db.execute("SELECT * FROM tournaments WHERE id = ?", (tid,)).fetchone()
        return _tournament(row) if row else None

    def tournaments(self) -> list[TournamentRow]:
        """Every tournament in the database, oldest first."""
        return [_tournament(row) for row in self._db.execute("SELECT * FROM tournaments ORDER BY id")]

    def bots(self, tid: int) -> list[BotRow]:
        """The bots of tournament ``tid``."""
        rows = self._db.execute(
            "SELECT name, command, source, digest, reuse FROM bots WHERE tournament_id = ? ORDER BY name", (tid,)
        )
        return [BotRow(r[0], tuple(json.loads(r[1])), r[2], r[3], bool(r[4])) for r in rows]

    # Matches ------------------------------------------------------------
    def finished_keys(self, tid: int) -> set[str]:
        """The keys of the matches of ``tid`` already recorded."""
        return {row[0] for row in self._db.execute("SELECT match_key FROM matches WHERE tournament_id = ?", (tid,))}

    def record_match(self, tid: int, match: PlayedMatch) -> bool:
        """Record a finished match and its faults in one transaction; ``False`` if it was already there."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO matches (tournament_id, match_key, cycle, deal, leg, bot_a, bot_b, seed,"
                " points_a, points_b, winner, forfeit, reason, duration_s, peak_rss_a, peak_rss_b, log_path,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tid,
                    match.key,
                    match.cycle,
                    match.deal,
                    match.leg,
                    match.bot_a,
                    match.bot_b,
                    match.seed,
                    match.points[0],
                    match.points[1],
                    match.winner,
                    json.dumps(list(match.forfeit)),
                    match.reason,
                    match.duration_s,
                    match.peak_rss[0],
                    match.peak_rss[1],
                    match.log_path,
                    _now(),
                ),
            )
            if cursor.rowcount == 0:
                return False
            match_id = cursor.lastrowid
            for fault in match.faults:
                db.execute(
                    "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (match_id, fault.seat, fault.bot, fault.kind, fault.reason, fault.request_id, fault.request_type),
                )
        return True

    def matches(self, tid: int) -> list[PlayedMatch]:
        """Every recorded match of tournament ``tid``, in the order they finished."""
        faults: dict[int, list[FaultRow]] = {}
        for row in self._db.execute(
            "SELECT f.match_id, f.seat, f.bot, f.kind, f.reason, f.request_id, f.request_type"
            " FROM faults f JOIN matches m ON m.id = f.match_id WHERE m.tournament_id = ? ORDER BY f.rowid",
            (tid,),
        ):
            faults.setdefault(row[0], []).append(FaultRow(*row[1:]))
        out = []
        for row in self._db.execute(
            "SELECT id, match_key, cycle, deal, leg, bot_a, bot_b, seed, points_a, points_b, winner, forfeit,"
            " reason, duration_s, peak_rss_a, peak_rss_b, log_path FROM matches WHERE tournament_id = ? ORDER BY id",
            (tid,),
        ):
            out.append(
                PlayedMatch(
                    key=row[1],
                    cycle=row[2],
                    deal=row[3],
                    leg=row[4],
                    bot_a=row[5],
                    bot_b=row[6],
                    seed=row[7],
                    points=(row[8], row[9]),
                    winner=row[10],
                    forfeit=tuple(json.loads(row[11])),
                    reason=row[12],
                    duration_s=row[13],
                    peak_rss=(row[14], row[15]),
                    log_path=row[16],
                    faults=tuple(faults.get(row[0], ())),
                )
            )
        return out


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
