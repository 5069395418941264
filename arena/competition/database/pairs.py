"""The standings' running totals per ordered pair of versions (table ``pair_totals``; see
:mod:`arena.competition.totals`), added to in the same transaction as each match."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..totals import COLUMNS, Pair, PairTotals, from_row, to_row

if TYPE_CHECKING:  # (numpy is imported where it is used: a match worker, which imports this, never is)
    import numpy as np
    import numpy.typing as npt

    from .connection import Database

_TOTALS = ", ".join(COLUMNS)


class FieldRows(NamedTuple):
    """Pair totals as arrays: row ``k`` is ``version[k]`` against ``opponent[k]``, its :data:`COLUMNS` ``values[k]``,
    its faults by kind ``faults[k]`` (rows without faults have none)."""

    version: npt.NDArray[np.int64]
    opponent: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]
    faults: dict[int, dict[str, int]]


def _totals(row: sqlite3.Row) -> PairTotals:
    return from_row([row[name] for name in COLUMNS], row["faults"])


def add_totals(
    db: sqlite3.Connection, tid: int, change: dict[Pair, PairTotals], log_halves: dict[int, int], touched: int
) -> None:
    """Add a match's ``change`` to the stored totals of its pairs (in the caller's transaction); ``touched``: the
    id of the last match added, which readers of what changed since ask by (:meth:`PairTotalsTable.since`)."""
    for (version, opponent), delta in change.items():
        cursor = db.cursor()
        cursor.row_factory = sqlite3.Row
        row = cursor.execute(
            f"SELECT {_TOTALS}, faults, log_bytes FROM pair_totals WHERE version = ? AND opponent = ?",
            (version, opponent),
        ).fetchone()
        totals, logs = (_totals(row), row["log_bytes"]) if row else (PairTotals(), 0)
        totals.add(delta)
        values, faults = to_row(totals)
        db.execute(
            f"INSERT OR REPLACE INTO pair_totals (tournament_id, version, opponent, {_TOTALS}, faults,"
            f" log_bytes, touched) VALUES ({', '.join('?' * (len(COLUMNS) + 6))})",
            (tid, version, opponent, *values, faults, logs + log_halves.get(version, 0), touched),
        )


class PairTotalsTable:
    """The pair totals of a database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def of_competition(self, tid: int, *, among: Iterable[int] | None = None) -> dict[Pair, PairTotals]:
        """The running totals of ``tid``, by ordered pair of versions (those that met; of two of ``among``)."""
        query = f"SELECT version, opponent, {_TOTALS}, faults FROM pair_totals WHERE tournament_id = ?"
        args: tuple[Any, ...] = (tid,)
        if among is not None:
            ids = json.dumps(sorted(set(among)))
            query += " AND version IN (SELECT value FROM json_each(?)) AND opponent IN (SELECT value FROM json_each(?))"
            args = (tid, ids, ids)
        return {(row["version"], row["opponent"]): _totals(row) for row in self.db.rows(query, args)}

    def of_pairs(self, pairs: Iterable[Pair]) -> dict[Pair, PairTotals]:
        """The stored totals of ``pairs`` (those that met)."""
        out = {}
        for version, opponent in pairs:
            row = self.db.row(
                f"SELECT {_TOTALS}, faults FROM pair_totals WHERE version = ? AND opponent = ?", (version, opponent)
            )
            if row:
                out[version, opponent] = _totals(row)
        return out

    def since(
        self, tid: int, touched: int, *, among: Iterable[int] | None = None
    ) -> tuple[dict[Pair, PairTotals], int]:
        """The pair totals of ``tid`` that matches after match id ``touched`` changed, and the id to ask from next.

        A reader that keeps every pair's totals reads only what changed (a few
        rows a second on a busy ladder), by the index on ``touched``. With
        ``among`` (a field's versions), only the pairs of two of them, by the
        primary key, however many retired versions' rows the competition has;
        the id to ask from next is then the competition's latest, so that
        retired versions' rows are never read.
        """
        if among is None:
            rows = self.db.rows(
                f"SELECT version, opponent, {_TOTALS}, faults, touched FROM pair_totals"
                " WHERE tournament_id = ? AND touched > ?",
                (tid, touched),
            )
            last = max([touched, *(row["touched"] for row in rows)])
        else:
            ids = json.dumps(sorted(set(among)))
            # (The unary + keeps the planner on the primary key: by the competition's index it would read every row.)
            rows = self.db.rows(
                f"SELECT version, opponent, {_TOTALS}, faults, touched FROM pair_totals"
                " WHERE version IN (SELECT value FROM json_each(?)) AND opponent IN (SELECT value FROM json_each(?))"
                " AND +tournament_id = ? AND +touched > ?",
                (ids, ids, tid, touched),
            )
            newest = self.db.value(
                "SELECT touched FROM pair_totals WHERE tournament_id = ? ORDER BY touched DESC LIMIT 1", (tid,)
            )
            last = max(touched, newest if newest is not None else touched)
        return {(row["version"], row["opponent"]): _totals(row) for row in rows}, last

    def field_rows(self, tid: int, among: Iterable[int]) -> tuple[FieldRows, int]:
        """The totals of each pair of two of ``among`` as arrays (a board's first read: no object per row; the
        field's rows by a scan of the table, where the primary key's lookup of every two of 300 versions took
        longer), and the id to ask from next: the competition's latest, so retired versions' rows are never read."""
        ids = json.dumps(sorted(set(among)))
        rows = self.db.tuples(
            f"SELECT version, opponent, {_TOTALS}, faults FROM pair_totals"
            " WHERE +version IN (SELECT value FROM json_each(?1)) AND +opponent IN (SELECT value FROM json_each(?1))"
            " AND +tournament_id = ?2",
            (ids, tid),
        )
        newest = self.db.value(
            "SELECT touched FROM pair_totals WHERE tournament_id = ? ORDER BY touched DESC LIMIT 1", (tid,)
        )
        import numpy as np

        table = np.array([row[:-1] for row in rows], dtype=np.float64).reshape(-1, len(COLUMNS) + 2)
        order = np.lexsort((table[:, 1], table[:, 0]))  # by the primary key, as the lookup gave them (SQLite's
        table = table[order]  # ORDER BY read the table through the key's index: 1.7x slower)
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        faults = {int(position[k]): json.loads(row[-1]) for k, row in enumerate(rows) if row[-1] != "{}"}
        found = FieldRows(table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2:].copy(), faults)
        return found, newest if newest is not None else -1

    def touching(self, tid: int, versions: Iterable[int], among: Iterable[int]) -> dict[Pair, PairTotals]:
        """The totals of each pair of one of ``versions`` and one of ``among`` (either way round), by the primary
        key: what a field's standings lack when a version joins it."""
        ids, others = json.dumps(sorted(set(versions))), json.dumps(sorted(set(among)))
        rows = self.db.rows(
            f"SELECT version, opponent, {_TOTALS}, faults FROM pair_totals"
            " WHERE version IN (SELECT value FROM json_each(?)) AND opponent IN (SELECT value FROM json_each(?))"
            " AND +tournament_id = ?"
            f" UNION ALL SELECT version, opponent, {_TOTALS}, faults FROM pair_totals"
            " WHERE version IN (SELECT value FROM json_each(?)) AND opponent IN (SELECT value FROM json_each(?))"
            " AND +tournament_id = ?",
            (ids, others, tid, others, ids, tid),
        )
        return {(row["version"], row["opponent"]): _totals(row) for row in rows}

    def deals_among(self, tid: int, among: Iterable[int]) -> list[tuple[int, int, int]]:
        """``(version, opponent, deals)`` of each ordered pair of ``among`` that met (only the column a ladder's pair
        book needs: every row's totals take 0.6 s at 100,000 matches), by the primary key."""
        ids = json.dumps(sorted(set(among)))
        rows = self.db.tuples(  # (a scan: the key's lookup of every two of 300 versions took longer)
            "SELECT version, opponent, deals FROM pair_totals"
            " WHERE +version IN (SELECT value FROM json_each(?1)) AND +opponent IN (SELECT value FROM json_each(?1))"
            " AND +tournament_id = ?2",
            (ids, tid),
        )
        return sorted((int(version), int(opponent), int(deals)) for version, opponent, deals in rows)

    def opponents(self, version: int) -> dict[int, PairTotals]:
        """What ``version`` did against each opponent it met, by the opponent's id (by the totals' primary key)."""
        rows = self.db.rows(f"SELECT opponent, {_TOTALS}, faults FROM pair_totals WHERE version = ?", (version,))
        return {row["opponent"]: _totals(row) for row in rows}

    def records(
        self, versions: Iterable[int], among: Iterable[int] | None = None
    ) -> dict[int, dict[int, tuple[int, int, int, int, float, float]]]:
        """``(matches, wins, draws, losses, points for, points against)`` of each of ``versions`` against each
        opponent it met (of ``among`` only, when given), by version and opponent id: only the columns a bot's page
        shows (building every row's whole totals took most of a bot page's time at 100,000 matches), by the
        primary key."""
        ids = json.dumps(sorted(set(versions)))
        query = (
            "SELECT version, opponent, matches, wins, draws, losses, points_for, points_against FROM pair_totals"
            " WHERE version IN (SELECT value FROM json_each(?))"
        )
        args: tuple[str, ...] = (ids,)
        if among is not None:
            query += " AND opponent IN (SELECT value FROM json_each(?))"
            args += (json.dumps(sorted(set(among))),)
        out: dict[int, dict[int, tuple[int, int, int, int, float, float]]] = {}
        # Plain tuples, not rows read by name: a bot page reads a few hundred of them at each request.
        for version, opponent, matches, wins, draws, losses, points_for, against in self.db.connection.execute(
            query, args
        ):
            out.setdefault(version, {})[opponent] = (matches, wins, draws, losses, float(points_for), float(against))
        return out

    def record_sums(self, versions: Iterable[int]) -> dict[int, tuple[int, int, int, int]]:
        """``(matches, wins, draws, losses)`` of each of ``versions`` against everyone, by version id (summed by
        SQLite over the version's rows of the primary key: a long-lived version met every version since)."""
        rows = self.db.rows(
            "SELECT version, SUM(matches) AS m, SUM(wins) AS w, SUM(draws) AS d, SUM(losses) AS l FROM pair_totals"
            " WHERE version IN (SELECT value FROM json_each(?)) GROUP BY version",
            (json.dumps(sorted(set(versions))),),
        )
        return {row["version"]: (int(row["m"]), int(row["w"]), int(row["d"]), int(row["l"])) for row in rows}

    def faults(self, tid: int) -> dict[int, Counter[str]]:
        """Every fault of each version of ``tid`` (against anyone), by kind, by version id."""
        out: dict[int, Counter[str]] = {}
        for row in self.db.rows(
            "SELECT version, faults FROM pair_totals WHERE tournament_id = ? AND faults <> '{}'", (tid,)
        ):
            out.setdefault(row["version"], Counter()).update(json.loads(row["faults"]))
        return out

    def log_bytes(self, tid: int) -> dict[int, int]:
        """Each version's half of the match logs it played (as they were when recorded), by version id."""
        rows = self.db.rows(
            "SELECT version, SUM(log_bytes) AS total FROM pair_totals WHERE tournament_id = ? GROUP BY version", (tid,)
        )
        return {row["version"]: int(row["total"]) for row in rows}
