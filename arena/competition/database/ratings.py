"""Rating snapshots for a server's charts (table ``rating_history``), kept at a chart's resolution.

See :mod:`arena.competition.database.thinning` for how a version's history stays bounded.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
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
        self._ends: dict[int, tuple[int, list[int]]] = {}
        """Each version's first snapshot and its newest (up to three, oldest first), as this connection wrote
        them (the only writer of the table): a snapshot of 300 versions read them back, 300 queries on the
        server's loop at each snapshot, 20-40 ms of it at a million matches."""

    def add(self, matches: int, rows: list[tuple[int, float, float]]) -> None:
        """Keep a snapshot of ratings (version id, elo, 95% error) after ``matches`` matches; each version's
        history stays within its buckets (:mod:`~arena.competition.database.thinning`)."""
        stamp = now()
        try:
            with self.db.transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO rating_history (matches, version_id, elo, error95, at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(matches, bot, elo, None if error != error else error, stamp) for bot, elo, error in rows],
                )
                for version_id, _elo, _error in rows:
                    self._keep_bounded(db, version_id, matches)
        except BaseException:
            self._ends.clear()  # (rolled back: read again)
            raise

    def _keep_bounded(self, db: sqlite3.Connection, version_id: int, matches: int) -> None:
        """After a new latest snapshot (at ``matches``): drop the one before it if it shares a bucket with an
        earlier one; thin the whole version when its buckets just doubled."""
        known = self._ends.get(version_id)
        if known is not None and (not known[1] or matches > known[1][-1]):
            first, newest = known[0], [*known[1], matches][-3:]
        elif known is not None and matches in known[1]:  # (the latest written again)
            first, newest = known
        else:
            first, newest = self._read_ends(db, version_id)
        self._ends[version_id] = (first, newest)
        if len(newest) < 3:
            return
        earlier, before, last = newest
        count = buckets(version_id)
        width = bucket_width(first, last, count)
        if width != bucket_width(first, before, count):
            thin(db, version_id)
            del self._ends[version_id]  # (read again at its next snapshot)
        elif (before - first) // width == (earlier - first) // width:
            db.execute("DELETE FROM rating_history WHERE version_id = ? AND matches = ?", (version_id, before))
            self._ends[version_id] = (first, [earlier, last])

    @staticmethod
    def _read_ends(db: sqlite3.Connection, version_id: int) -> tuple[int, list[int]]:
        """A version's first snapshot and its newest three (oldest first), by the primary key, in one statement."""
        found = db.execute(
            "SELECT matches, (SELECT MIN(matches) FROM rating_history WHERE version_id = ?)"
            " FROM rating_history WHERE version_id = ? ORDER BY matches DESC LIMIT 3",
            (version_id, version_id),
        ).fetchall()
        return (int(found[0][1]), [int(row[0]) for row in reversed(found)]) if found else (0, [])

    def of(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first (by the primary key)."""
        # (As SQLite gives them: the columns' types are the tuple's, INTEGER and REAL; a chart reads a few hundred.)
        return self.db.tuples(
            "SELECT matches, elo, error95 FROM rating_history WHERE version_id = ? ORDER BY matches", (version_id,)
        )

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

    def dates(self, version_id: int, at: Iterable[int] | None = None) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count (by
        the primary key): only those at the match counts ``at`` (the first 500 of them), when given."""
        query, args = "SELECT matches, at FROM rating_history WHERE version_id = ?", [version_id]
        if at is not None:
            wanted = sorted(set(at))[:500]  # (a chart's axis: a few)
            query += f" AND matches IN ({', '.join('?' * len(wanted)) or 'NULL'})"
            args += wanted
        return {int(matches): str(stamp) for matches, stamp in self.db.tuples(query, args)}
