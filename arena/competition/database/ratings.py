"""Rating snapshots for a server's charts (table ``rating_history``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .competitions import now

if TYPE_CHECKING:
    from .connection import Database


class RatingHistory:
    """The rating snapshots of a server's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, matches: int, rows: list[tuple[int, float, float]]) -> None:
        """Keep a snapshot of ratings (version id, elo, 95% error) after ``matches`` matches."""
        stamp = now()
        with self.db.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO rating_history (matches, version_id, elo, error95, at) VALUES (?, ?, ?, ?, ?)",
                [(matches, bot, elo, None if error != error else error, stamp) for bot, elo, error in rows],
            )

    def of(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first."""
        rows = self.db.rows(
            "SELECT matches, elo, error95 FROM rating_history WHERE version_id = ? ORDER BY matches", (version_id,)
        )
        return [(int(row["matches"]), float(row["elo"]), row["error95"]) for row in rows]

    def dates(self, version_id: int) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count."""
        rows = self.db.rows("SELECT matches, at FROM rating_history WHERE version_id = ?", (version_id,))
        return {int(row["matches"]): str(row["at"]) for row in rows}
