"""Deals at two tables (the ladder's scheme among strangers): their counts by the four versions that played them
(``table_totals``; see :func:`arena.competition.totals.table_result`), and their seats per two versions
(``table_seats``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from ..totals import Quad

if TYPE_CHECKING:  # (numpy is imported where it is used: a match worker, which imports this, never is)
    import numpy as np
    import numpy.typing as npt

    from .connection import Database

_ROW = "rowid, a1, b1, a2, b2, t0, t1, t2, t3, t4"

_FOUR_AMONG = (
    # (The unary + keeps the planner off the primary key: with four lists it would look up every four of them.)
    "+a1 IN (SELECT value FROM json_each(?1)) AND +b1 IN (SELECT value FROM json_each(?1))"
    " AND +a2 IN (SELECT value FROM json_each(?1)) AND +b2 IN (SELECT value FROM json_each(?1))"
)


class TableArrays(NamedTuple):
    """Rows of ``table_totals`` as arrays, in their rowids' order (a row keeps its rowid: it is updated in place)."""

    rowids: npt.NDArray[np.int64]
    quads: npt.NDArray[np.int32]
    """Each row's four versions ``(a1, b1, a2, b2)``."""
    counts: npt.NDArray[np.int32]
    """Each row's pentanomial counts of team ONE's total."""

    @classmethod
    def of(cls, rows: list[tuple[int, ...]]) -> TableArrays:
        """The arrays of ``rows`` (``rowid, a1, b1, a2, b2, t0 ... t4``), sorted by rowid."""
        import numpy as np

        table = np.array(rows, dtype=np.int64).reshape(-1, 10)
        table = table[np.argsort(table[:, 0], kind="stable")]
        return cls(table[:, 0].copy(), table[:, 1:5].astype(np.int32), table[:, 5:].astype(np.int32))


class TableTotals:
    """The table totals of a database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def since(self, tid: int, touched: int) -> tuple[dict[Quad, tuple[int, ...]], int]:
        """The table totals that matches after match id ``touched`` changed, and the last such id (:meth:`arrays_since`
        as a mapping)."""
        arrays, last = self.arrays_since(tid, touched)
        quads = [(a1, b1, a2, b2) for a1, b1, a2, b2 in arrays.quads.tolist()]
        return dict(zip(quads, map(tuple, arrays.counts.tolist()), strict=True)), last

    def arrays_since(self, tid: int, touched: int, *, among: Iterable[int] | None = None) -> tuple[TableArrays, int]:
        """:meth:`since` as arrays, and the id to ask from next.

        With ``among`` (a field's versions), only the deals of four of them
        (a retired version's deals stay on disk: a board never fits them),
        and the id to ask from next is the competition's latest.
        """
        if among is None:
            rows = self.db.tuples(
                f"SELECT {_ROW}, touched FROM table_totals WHERE tournament_id = ? AND touched > ?", (tid, touched)
            )
            last = max([touched, *(row[-1] for row in rows)])
            return TableArrays.of([row[:-1] for row in rows]), last
        rows = self.db.tuples(
            f"SELECT {_ROW} FROM table_totals WHERE {_FOUR_AMONG} AND +tournament_id = ?2 AND +touched > ?3",
            (json.dumps(sorted(set(among))), tid, touched),
        )
        newest = self.db.value(
            "SELECT touched FROM table_totals WHERE tournament_id = ? ORDER BY touched DESC LIMIT 1", (tid,)
        )
        return TableArrays.of(rows), max(touched, newest if newest is not None else touched)

    def arrays_touching(self, tid: int, versions: Iterable[int], among: Iterable[int]) -> TableArrays:
        """The rows of the deals of four of ``among`` with one of ``versions`` (what a field's board lacks when a
        version joins it: ``among`` includes ``versions``)."""
        ids = json.dumps(sorted(set(versions)))
        rows = self.db.tuples(
            f"SELECT {_ROW} FROM table_totals WHERE {_FOUR_AMONG} AND +tournament_id = ?2"
            " AND (a1 IN (SELECT value FROM json_each(?3)) OR b1 IN (SELECT value FROM json_each(?3))"
            " OR a2 IN (SELECT value FROM json_each(?3)) OR b2 IN (SELECT value FROM json_each(?3)))",
            (json.dumps(sorted(set(among))), tid, ids),
        )
        return TableArrays.of(rows)

    def finished(self, quad: Quad) -> int:
        """How many deals the four versions ``quad`` finished (by the primary key)."""
        found = self.db.value(
            "SELECT t0 + t1 + t2 + t3 + t4 FROM table_totals WHERE a1 = ? AND b1 = ? AND a2 = ? AND b2 = ?", quad
        )
        return int(found or 0)

    def seats(
        self, tid: int, among: Iterable[int]
    ) -> tuple[dict[int, int], dict[int, int], list[tuple[int, int, int]]]:
        """Of the finished deals at two tables: how many each of ``among`` played in seat A, in seat B, and
        ``(version, opponent, deals)`` for each two of ``among`` that sat at one table (``version`` in seat A):
        from ``table_seats``, a row per two versions, never a row per deal."""
        ids = json.dumps(sorted(set(among)))
        seat_a = dict(
            self.db.tuples(
                "SELECT version, SUM(deals) FROM table_seats WHERE version IN (SELECT value FROM json_each(?))"
                " AND +tournament_id = ? GROUP BY version",
                (ids, tid),
            )
        )
        seat_b = dict(
            self.db.tuples(
                "SELECT opponent, SUM(deals) FROM table_seats WHERE +opponent IN (SELECT value FROM json_each(?))"
                " AND tournament_id = ? GROUP BY opponent",
                (ids, tid),
            )
        )
        together = self.db.tuples(
            "SELECT version, opponent, deals FROM table_seats WHERE +version IN (SELECT value FROM json_each(?1))"
            " AND +opponent IN (SELECT value FROM json_each(?1)) AND +tournament_id = ?2",
            (ids, tid),
        )
        return seat_a, seat_b, [(int(v), int(o), int(n)) for v, o, n in together]
