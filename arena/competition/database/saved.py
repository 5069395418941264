"""A server's standings arrays as its last run left them (table ``standings_saved``): where its next start begins.

A competition server holds every pair's totals and its field's deals at two
tables as arrays (:class:`arena.competition.standings.PairArrays`), read from
``pair_totals`` and ``table_totals`` at its first drawing of the standings: at
a million matches, hundreds of thousands of rows through Python, most of its
start. On a clean stop it keeps those arrays here, one row per competition,
with the ``touched`` marks they were read up to; the next start reads the
arrays back and only the rows touched since (every change of those tables
moves ``touched`` on: :func:`~arena.competition.database.pairs.add_totals`,
:func:`~arena.competition.database.schema.add_table`), the same reads a
running server makes each second. Nothing else depends on the row: a
missing, stale or unreadable one costs the full read, never a wrong table,
and a migration that rewrites either table's rows deletes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .competitions import now

if TYPE_CHECKING:
    from .connection import Database


class Saved(NamedTuple):
    """A competition's saved standings arrays."""

    layout: str
    """What the arrays hold and how (:data:`arena.competition.standings.SAVED_LAYOUT`): another is not read."""
    pairs_touched: int
    tables_touched: int
    arrays: bytes


class SavedStandings:
    """The saved standings arrays of a server's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def put(self, tid: int, saved: Saved) -> None:
        """Keep ``saved`` as competition ``tid``'s (in place of what it had)."""
        with self.db.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO standings_saved"
                " (tournament_id, layout, pairs_touched, tables_touched, arrays, saved_at) VALUES (?, ?, ?, ?, ?, ?)",
                (tid, saved.layout, saved.pairs_touched, saved.tables_touched, saved.arrays, now()),
            )

    def get(self, tid: int) -> Saved | None:
        """Competition ``tid``'s saved arrays, if it has them."""
        row = self.db.row(
            "SELECT layout, pairs_touched, tables_touched, arrays FROM standings_saved WHERE tournament_id = ?",
            (tid,),
        )
        if row is None:
            return None
        return Saved(row["layout"], row["pairs_touched"], row["tables_touched"], bytes(row["arrays"]))
