"""Bot versions of a competition (table ``versions``): their field, admission and retirement."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..._errors import StoreError
from .competitions import now

if TYPE_CHECKING:
    from .connection import Database

ADMISSIONS = ("pending", "admitted", "not_admitted")
PROCESS_MODES = ("fresh", "reused", "persistent")


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


_COLUMNS = (
    "id, name, version, slot, command, source, digest, process, admission, reason, added_at, retired_at,"
    " retired_because"
)


def _version(row: sqlite3.Row) -> VersionRow:
    return VersionRow(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        slot=row["slot"],
        command=tuple(json.loads(row["command"])),
        source=row["source"],
        digest=row["digest"],
        process=row["process"],
        admission=row["admission"],
        reason=row["reason"],
        added_at=row["added_at"],
        retired_at=row["retired_at"],
        retired_because=row["retired_because"],
    )


class Versions:
    """The bot versions of a database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def of(self, tid: int, *, current: bool = False) -> list[VersionRow]:
        """Every version of every bot of ``tid`` (only the current field with ``current``), by slot and version."""
        where = " AND retired_at IS NULL" if current else ""
        rows = self.db.rows(
            f"SELECT {_COLUMNS} FROM versions WHERE tournament_id = ?{where} ORDER BY slot, version", (tid,)
        )
        return [_version(row) for row in rows]

    def add(
        self, tid: int, *, name: str, slot: int, command: Sequence[str], source: str, digest: str, process: str
    ) -> int:
        """Enter a new version of ``name`` (its first, or the next one), pending admission; its id."""
        assert process in PROCESS_MODES, process
        with self.db.transaction() as db:
            (latest,) = db.execute(
                "SELECT COALESCE(MAX(version), 0) FROM versions WHERE tournament_id = ? AND name = ?", (tid, name)
            ).fetchone()
            cursor = db.execute(
                "INSERT INTO versions (tournament_id, name, version, slot, command, source, digest, process,"
                " admission, reason, added_at, retired_at, retired_because)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', '', ?, NULL, '')",
                (tid, name, latest + 1, slot, json.dumps(list(command)), source, digest, process, now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def get(self, vid: int) -> VersionRow:
        """The version with id ``vid``."""
        row = self.db.row(f"SELECT {_COLUMNS} FROM versions WHERE id = ?", (vid,))
        if row is None:
            raise StoreError(f"{self.db.path} has no bot version {vid}")
        return _version(row)

    def retire(self, vid: int, because: str) -> None:
        """Take version ``vid`` out of the current field (``changed`` or ``removed``); its matches stay."""
        with self.db.transaction() as db:
            db.execute(
                "UPDATE versions SET retired_at = ?, retired_because = ? WHERE id = ? AND retired_at IS NULL",
                (now(), because, vid),
            )

    def reinstate(self, vid: int) -> None:
        """Bring a retired version back into the field (the same bot, unchanged, entered again)."""
        with self.db.transaction() as db:
            db.execute("UPDATE versions SET retired_at = NULL, retired_because = '' WHERE id = ?", (vid,))

    def set_admission(self, vid: int, admission: str, reason: str = "") -> None:
        """Record whether version ``vid`` was admitted, and if not, why."""
        assert admission in ADMISSIONS, admission
        with self.db.transaction() as db:
            db.execute("UPDATE versions SET admission = ?, reason = ? WHERE id = ?", (admission, reason, vid))
