"""Competitions (table ``tournaments``) and the changes each run found in one (table ``changes``)."""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .connection import Database


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
class ChangeRow:
    """A change a run found in a competition, as the line it printed."""

    at: str
    kind: str
    bot: str
    line: str


def _tournament(row: sqlite3.Row) -> TournamentRow:
    return TournamentRow(
        id=row["id"],
        fingerprint=row["fingerprint"],
        seed=row["seed"],
        name=row["name"],
        game=row["game"],
        config=json.loads(row["config"]),
        created_at=row["created_at"],
    )


_COLUMNS = "id, fingerprint, seed, name, game, config, created_at"


class Competitions:
    """The competitions of a database, and their changes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def latest(self, name: str) -> TournamentRow | None:
        """The current competition called ``name`` (the latest started under that name), if any."""
        row = self.db.row(f"SELECT {_COLUMNS} FROM tournaments WHERE name = ? ORDER BY id DESC LIMIT 1", (name,))
        return _tournament(row) if row else None

    def create(self, *, name: str, seed: int, game: str, config: dict[str, Any]) -> int:
        """Start a new competition called ``name`` (an older one of that name stays, in the history); its id."""
        with self.db.transaction() as db:
            cursor = db.execute(
                "INSERT INTO tournaments (fingerprint, seed, name, game, config, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                # Schema 1 identified a tournament by a hash of its field; now each row has a unique token.
                (f"competition-{secrets.token_hex(8)}", seed, name, game, json.dumps(config, sort_keys=True), now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def update_config(self, tid: int, config: dict[str, Any]) -> None:
        """Replace the stored config of ``tid`` (a rerun may ask for more cycles)."""
        with self.db.transaction() as db:
            db.execute("UPDATE tournaments SET config = ? WHERE id = ?", (json.dumps(config, sort_keys=True), tid))

    def get(self, tid: int | None = None) -> TournamentRow | None:
        """The competition with id ``tid``, or the latest one."""
        if tid is None:
            row = self.db.row(f"SELECT {_COLUMNS} FROM tournaments ORDER BY id DESC LIMIT 1")
        else:
            row = self.db.row(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?", (tid,))
        return _tournament(row) if row else None

    def all(self) -> list[TournamentRow]:
        """Every competition in the database, oldest first."""
        return [_tournament(row) for row in self.db.rows(f"SELECT {_COLUMNS} FROM tournaments ORDER BY id")]

    def log_change(self, tid: int, kind: str, line: str, bot: str = "") -> None:
        """Keep one line a run printed about a change it found."""
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO changes (tournament_id, at, kind, bot, line) VALUES (?, ?, ?, ?, ?)",
                (tid, now(), kind, bot, line),
            )

    def changes(self, tid: int) -> list[ChangeRow]:
        """Every change recorded for ``tid``, oldest first."""
        rows = self.db.rows("SELECT at, kind, bot, line FROM changes WHERE tournament_id = ? ORDER BY id", (tid,))
        return [ChangeRow(at=row["at"], kind=row["kind"], bot=row["bot"], line=row["line"]) for row in rows]


def now() -> str:
    """The time now, as the database keeps it (ISO 8601, UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds")
