"""A server's switches and one-time codes (table ``settings``: a key, a value)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Database


class Settings:
    """The settings of a server's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str, default: str = "") -> str:
        """The value of ``key``, or ``default``."""
        found = self.db.value("SELECT value FROM settings WHERE key = ?", (key,))
        return default if found is None else str(found)

    def set(self, key: str, value: str) -> None:
        """Set ``key``."""
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                (key, value, value),
            )

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        with self.db.transaction() as db:
            db.execute("DELETE FROM settings WHERE key = ?", (key,))

    def keys_set(self, prefix: str) -> list[str]:
        """The keys starting with ``prefix`` whose value is ``1``."""
        rows = self.db.rows("SELECT key FROM settings WHERE key LIKE ? AND value = '1'", (prefix + "%",))
        return [row["key"] for row in rows]
