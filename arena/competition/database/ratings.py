"""Rating snapshots for a server's charts (table ``rating_history``), kept at a chart's resolution.

See :mod:`arena.competition.database.thinning` for how a version's history stays bounded.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from .competitions import now
from .thinning import CHART_POINTS as CHART_POINTS
from .thinning import bucket_width, buckets, thin

if TYPE_CHECKING:
    from .connection import Database


class RatingHistory:
    """The rating snapshots of a server's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, matches: int, rows: list[tuple[int, float, float]]) -> None:
        """Keep a snapshot of ratings (version id, elo, 95% error) after ``matches`` matches; each version's
        history stays within its buckets (:mod:`~arena.competition.database.thinning`)."""
        stamp = now()
        with self.db.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO rating_history (matches, version_id, elo, error95, at) VALUES (?, ?, ?, ?, ?)",
                [(matches, bot, elo, None if error != error else error, stamp) for bot, elo, error in rows],
            )
            for version_id, _elo, _error in rows:
                self._keep_bounded(db, version_id)

    def _keep_bounded(self, db: sqlite3.Connection, version_id: int) -> None:
        """After a new latest snapshot: drop the one before it if it shares a bucket with an earlier one; thin the
        whole version when its buckets just doubled."""
        # Its newest three snapshots and its first, by the primary key, in one statement.
        cursor = db.cursor()
        cursor.row_factory = sqlite3.Row
        found = cursor.execute(
            "SELECT matches, (SELECT MIN(matches) FROM rating_history WHERE version_id = ?) AS first"
            " FROM rating_history WHERE version_id = ? ORDER BY matches DESC LIMIT 3",
            (version_id, version_id),
        ).fetchall()
        newest = [row["matches"] for row in found]
        if len(newest) < 3:
            return
        first = found[0]["first"]
        last, before, earlier = newest
        count = buckets(version_id)
        width = bucket_width(first, last, count)
        if width != bucket_width(first, before, count):
            thin(db, version_id)
        elif (before - first) // width == (earlier - first) // width:
            db.execute("DELETE FROM rating_history WHERE version_id = ? AND matches = ?", (version_id, before))

    def of(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first (by the primary key)."""
        rows = self.db.rows(
            "SELECT matches, elo, error95 FROM rating_history WHERE version_id = ? ORDER BY matches", (version_id,)
        )
        return [(int(row["matches"]), float(row["elo"]), row["error95"]) for row in rows]

    def latest(self, version_ids: list[int]) -> dict[int, float]:
        """The newest snapshot's elo of each of ``version_ids`` that has one (by the primary key)."""
        out: dict[int, float] = {}
        for version_id in version_ids:
            elo = self.db.value(
                "SELECT elo FROM rating_history WHERE version_id = ? ORDER BY matches DESC LIMIT 1", (version_id,)
            )
            if elo is not None:
                out[version_id] = float(elo)
        return out

    def dates(self, version_id: int) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count."""
        rows = self.db.rows("SELECT matches, at FROM rating_history WHERE version_id = ?", (version_id,))
        return {int(row["matches"]): str(row["at"]) for row in rows}
