"""A server's participants (table ``participants``), their browser sessions (``sessions``) and login links'
codes (``login_codes``). Only hashes of secrets are stored: the hashing and the rules are the server's
(:mod:`arena.server.state`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .competitions import now

if TYPE_CHECKING:
    from .connection import Database

_BY_NAME = "WHERE name = ? COLLATE NOCASE ORDER BY name = ? DESC, id LIMIT 1"
"""A participant by name, whatever its case (the exact spelling first, in a database from before the rule)."""
_COLUMNS = "id, name, is_admin, is_house, disqualified, created_at"


@dataclass(frozen=True)
class Participant:
    """Someone who may submit bots (or the organiser, or a house bot's owner)."""

    id: int
    name: str
    is_admin: bool
    is_house: bool
    disqualified: str
    created_at: str


def _participant(row: sqlite3.Row) -> Participant:
    return Participant(
        id=row["id"],
        name=row["name"],
        is_admin=bool(row["is_admin"]),
        is_house=bool(row["is_house"]),
        disqualified=row["disqualified"],
        created_at=row["created_at"],
    )


class Participants:
    """The participants of a server's database, their tokens' hashes, sessions and login codes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def id_named(self, name: str) -> int | None:
        """The id of the participant called ``name`` (whatever its case)."""
        found = self.db.value(f"SELECT id FROM participants {_BY_NAME}", (name, name))
        return None if found is None else int(found)

    def add(self, name: str, token_hash: str, *, admin: bool, house: bool) -> int:
        """Enter a new participant (in the caller's transaction, if any); its id."""
        with self.db.transaction() as db:
            cursor = db.execute(
                "INSERT INTO participants (name, token_hash, is_admin, is_house, created_at) VALUES (?, ?, ?, ?, ?)",
                (name, token_hash, int(admin), int(house), now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def set_token(self, pid: int, token_hash: str) -> None:
        """Give ``pid`` a new token (its login codes are spent)."""
        with self.db.transaction() as db:
            db.execute("UPDATE participants SET token_hash = ? WHERE id = ?", (token_hash, pid))
            db.execute("DELETE FROM login_codes WHERE participant_id = ?", (pid,))

    def token_hash(self, pid: int) -> str | None:
        """The stored hash of ``pid``'s token (``""`` for a house bot's owner); ``None``: no such participant."""
        found = self.db.value("SELECT token_hash FROM participants WHERE id = ?", (pid,))
        return None if found is None else str(found)

    def admin_exists(self) -> bool:
        """Whether the organiser has a token yet."""
        return self.db.row("SELECT 1 FROM participants WHERE is_admin = 1") is not None

    def get(self, pid: int) -> Participant | None:
        """The participant with id ``pid``."""
        row = self.db.row(f"SELECT {_COLUMNS} FROM participants WHERE id = ?", (pid,))
        return _participant(row) if row else None

    def named(self, name: str) -> Participant | None:
        """The participant called ``name`` (whatever its case)."""
        row = self.db.row(f"SELECT {_COLUMNS} FROM participants {_BY_NAME}", (name, name))
        return _participant(row) if row else None

    def all(self) -> list[Participant]:
        """Everyone, in the order they joined."""
        return [_participant(row) for row in self.db.rows(f"SELECT {_COLUMNS} FROM participants ORDER BY id")]

    def set_disqualified(self, pid: int, reason: str) -> None:
        """Disqualify a participant's bot (``reason``) or readmit it (``""``)."""
        with self.db.transaction() as db:
            db.execute("UPDATE participants SET disqualified = ? WHERE id = ?", (reason, pid))

    # Sessions -------------------------------------------------------------------
    def add_session(self, id_hash: str, pid: int) -> None:
        """Start a session (its id's hash) of ``pid``."""
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO sessions (id_hash, participant_id, created_at) VALUES (?, ?, ?)", (id_hash, pid, now())
            )

    def session(self, id_hash: str) -> tuple[int, str] | None:
        """The participant of a session and when it started, by the session id's hash."""
        row = self.db.row("SELECT participant_id, created_at FROM sessions WHERE id_hash = ?", (id_hash,))
        return (row["participant_id"], row["created_at"]) if row else None

    def end_session(self, id_hash: str) -> None:
        """Forget a session."""
        with self.db.transaction() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (id_hash,))

    def end_sessions(self, pid: int) -> None:
        """Forget every session of ``pid`` (a new token ends them)."""
        with self.db.transaction() as db:
            db.execute("DELETE FROM sessions WHERE participant_id = ?", (pid,))

    # Login codes ----------------------------------------------------------------
    def add_login_code(self, code_hash: str, pid: int, expires_at: str) -> None:
        """Keep a login link's code (its hash) of ``pid``; expired ones are forgotten meanwhile."""
        with self.db.transaction() as db:
            db.execute("DELETE FROM login_codes WHERE expires_at < ?", (now(),))
            db.execute(
                "INSERT INTO login_codes (code_hash, participant_id, expires_at) VALUES (?, ?, ?)",
                (code_hash, pid, expires_at),
            )

    def use_login_code(self, code_hash: str, *, use: bool) -> int | None:
        """The participant of an unexpired login code (``use``: the code is spent, in the same transaction)."""
        with self.db.transaction() as db:
            row = self.db.row(
                "SELECT participant_id FROM login_codes WHERE code_hash = ? AND expires_at >= ?", (code_hash, now())
            )
            if row and use:
                db.execute("DELETE FROM login_codes WHERE code_hash = ?", (code_hash,))
        return row["participant_id"] if row else None
