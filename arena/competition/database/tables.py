"""Deals at two tables (the ladder's scheme among strangers): their counts by the four versions that played them
(``table_totals``; see :func:`arena.competition.totals.table_result`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..totals import Quad

if TYPE_CHECKING:
    from .connection import Database


class TableTotals:
    """The table totals of a database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def since(self, tid: int, touched: int) -> tuple[dict[Quad, tuple[int, ...]], int]:
        """The table totals that matches after match id ``touched`` changed, and the last such id."""
        rows = self.db.rows(
            "SELECT a1, b1, a2, b2, t0, t1, t2, t3, t4, touched FROM table_totals"
            " WHERE tournament_id = ? AND touched > ?",
            (tid, touched),
        )
        out: dict[Quad, tuple[int, ...]] = {
            (row["a1"], row["b1"], row["a2"], row["b2"]): tuple(row[f"t{k}"] for k in range(5)) for row in rows
        }
        return out, max([touched, *(row["touched"] for row in rows)])

    def deals(self, tid: int) -> list[tuple[int, int, int, int, int]]:
        """``(a1, b1, a2, b2, deals)``: the deals at two tables each four versions finished."""
        rows = self.db.rows(
            "SELECT a1, b1, a2, b2, t0 + t1 + t2 + t3 + t4 AS n FROM table_totals WHERE tournament_id = ?", (tid,)
        )
        return [(row["a1"], row["b1"], row["a2"], row["b2"], row["n"]) for row in rows]
