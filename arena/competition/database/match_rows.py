"""How a finished match is read from its rows (``matches`` and ``faults``), column by name."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from ..records import FaultRow, PlayedMatch

MATCH_COLUMNS = (
    "m.id, m.match_key, m.cycle, m.deal, m.leg, m.bot_a, m.bot_b, m.seed, m.points_a, m.points_b, m.winner,"
    " m.forfeit, m.reason, m.duration_s, m.peak_rss_a, m.peak_rss_b, m.log_path, m.version_a, m.version_b"
)
"""The columns :func:`played_match` reads (of ``matches m``)."""

_FAULT_COLUMNS = "match_id, seat, bot, kind, reason, request_id, request_type"


def read_matches(
    db: sqlite3.Connection, where: str, args: tuple[Any, ...], *, order: str = "m.id", limit: int | None = None
) -> list[PlayedMatch]:
    """The matches ``where`` says (SQL on ``matches m``), in ``order``, with their faults."""
    query = f"SELECT {MATCH_COLUMNS} FROM matches m WHERE {where} ORDER BY {order}"
    rows = _named(db, query + ("" if limit is None else f" LIMIT {int(limit)}"), args)
    faults: dict[int, list[FaultRow]] = {}
    if len(rows) > 2000:  # many matches: the faults of the same selection, in one pass
        found = _named(
            db,
            f"SELECT f.{_FAULT_COLUMNS.replace(', ', ', f.')} FROM faults f JOIN matches m ON m.id = f.match_id"
            f" WHERE {where} ORDER BY f.rowid",
            args,
        )
        for row in found:
            faults.setdefault(row["match_id"], []).append(fault_row(row))
    elif rows:
        ids = [row["id"] for row in rows]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            query = (
                f"SELECT {_FAULT_COLUMNS} FROM faults WHERE match_id IN ({', '.join('?' * len(chunk))}) ORDER BY rowid"
            )
            for row in _named(db, query, tuple(chunk)):
                faults.setdefault(row["match_id"], []).append(fault_row(row))
    return [played_match(row, faults.get(row["id"], ())) for row in rows]


def _named(db: sqlite3.Connection, query: str, args: tuple[Any, ...]) -> list[sqlite3.Row]:
    cursor = db.cursor()
    cursor.row_factory = sqlite3.Row
    return cursor.execute(query, args).fetchall()


def fault_row(row: sqlite3.Row) -> FaultRow:
    """A fault from its row of ``faults``."""
    return FaultRow(
        seat=row["seat"],
        bot=row["bot"],
        kind=row["kind"],
        reason=row["reason"],
        request_id=row["request_id"],
        request_type=row["request_type"],
    )


def played_match(row: sqlite3.Row, faults: Iterable[FaultRow]) -> PlayedMatch:
    """A match from its row of ``matches`` (:data:`MATCH_COLUMNS`) and its faults."""
    return PlayedMatch(
        key=row["match_key"],
        cycle=row["cycle"],
        deal=row["deal"],
        leg=row["leg"],
        bot_a=row["bot_a"],
        bot_b=row["bot_b"],
        seed=row["seed"],
        points=(row["points_a"], row["points_b"]),
        winner=row["winner"],
        forfeit=tuple(json.loads(row["forfeit"])),
        reason=row["reason"],
        duration_s=row["duration_s"],
        peak_rss=(row["peak_rss_a"], row["peak_rss_b"]),
        log_path=row["log_path"],
        faults=tuple(faults),
        versions=(row["version_a"], row["version_b"]),
        row_id=row["id"],
    )
