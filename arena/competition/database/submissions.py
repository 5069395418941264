"""A server's uploads and their checks (table ``submissions``), and whose each version is (table ``entries``)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .competitions import now

if TYPE_CHECKING:
    from .connection import Database

_COLUMNS = (
    "id, participant_id, created_at, filename, language, size, status, message, report, folder, digest, finished_at"
)
_FIELDS = frozenset({"status", "message", "report", "folder", "digest", "finished_at"})


@dataclass(frozen=True)
class Submission:
    """One upload and what its check found."""

    id: int
    participant_id: int
    created_at: str
    filename: str
    language: str
    size: int
    status: str
    message: str
    report: list[dict[str, Any]]
    folder: str
    digest: str
    finished_at: str | None

    @property
    def done(self) -> bool:
        """Whether its check has finished (or it was refused before one)."""
        return self.status in ("passed", "failed", "refused")


@dataclass(frozen=True)
class Entry:
    """Whose a version of the results store is, and where its files are."""

    version_id: int
    participant_id: int
    submission_id: int | None
    """The upload it came from (``None`` for a house bot)."""
    folder: str


def _submission(row: sqlite3.Row) -> Submission:
    return Submission(
        id=row["id"],
        participant_id=row["participant_id"],
        created_at=row["created_at"],
        filename=row["filename"],
        language=row["language"],
        size=row["size"],
        status=row["status"],
        message=row["message"],
        report=json.loads(row["report"]),
        folder=row["folder"],
        digest=row["digest"],
        finished_at=row["finished_at"],
    )


class Submissions:
    """The uploads of a server's database, and the versions' entries."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, pid: int, *, filename: str, language: str, size: int) -> int:
        """Record a new upload, queued for its check; its id."""
        with self.db.transaction() as db:
            cursor = db.execute(
                "INSERT INTO submissions (participant_id, created_at, filename, language, size, status)"
                " VALUES (?, ?, ?, ?, ?, 'queued')",
                (pid, now(), filename, language, size),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def update(self, sid: int, fields: dict[str, Any]) -> None:
        """Set some of a submission's fields (``report`` as its list, stored as JSON)."""
        assert set(fields) <= _FIELDS, fields
        values = {key: json.dumps(value) if key == "report" else value for key, value in fields.items()}
        sets = ", ".join(f"{key} = ?" for key in values)
        with self.db.transaction() as db:
            db.execute(f"UPDATE submissions SET {sets} WHERE id = ?", (*values.values(), sid))

    def get(self, sid: int) -> Submission | None:
        """The submission with id ``sid``."""
        row = self.db.row(f"SELECT {_COLUMNS} FROM submissions WHERE id = ?", (sid,))
        return _submission(row) if row else None

    def latest(self, pid: int | None = None, *, limit: int = 100) -> list[Submission]:
        """The latest submissions (of participant ``pid``), newest first."""
        where, args = ("WHERE participant_id = ?", (pid,)) if pid is not None else ("", ())
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM submissions {where} ORDER BY id DESC LIMIT ?", (*args, limit))
        return [_submission(row) for row in rows]

    def count_since(self, pid: int, since: str) -> int:
        """How many uploads participant ``pid`` made at or after ``since`` (ISO 8601)."""
        query = "SELECT COUNT(*) FROM submissions WHERE participant_id = ? AND created_at >= ?"
        return int(self.db.value(query, (pid, since)))

    def unfinished(self) -> list[Submission]:
        """Submissions whose check had not finished (a restart checks them again)."""
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM submissions WHERE status IN ('queued', 'checking') ORDER BY id")
        return [_submission(row) for row in rows]

    # Versions' owners and folders ------------------------------------------------
    def add_entry(self, entry: Entry) -> None:
        """Say whose version ``entry.version_id`` is, and where its files are."""
        with self.db.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO entries (version_id, participant_id, submission_id, folder)"
                " VALUES (?, ?, ?, ?)",
                (entry.version_id, entry.participant_id, entry.submission_id, entry.folder),
            )

    def entries(self) -> dict[int, Entry]:
        """Every version's entry, by version id."""
        rows = self.db.rows("SELECT version_id, participant_id, submission_id, folder FROM entries")
        return {
            row["version_id"]: Entry(row["version_id"], row["participant_id"], row["submission_id"], row["folder"])
            for row in rows
        }
