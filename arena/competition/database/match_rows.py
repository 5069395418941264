"""How a finished match is read from its rows (``matches`` and ``faults``), column by place."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from typing import Any

from ..records import FaultRow, PlayedMatch

MATCH_COLUMNS = (
    "m.id, m.match_key, m.cycle, m.deal, m.leg, m.bot_a, m.bot_b, m.seed, m.points_a, m.points_b, m.winner,"
    " m.forfeit, m.reason, m.duration_s, m.peak_rss_a, m.peak_rss_b, m.log_path, m.version_a, m.version_b"
)
"""The columns :func:`read_matches` reads (of ``matches m``), in the order :func:`_played_match` takes them."""

_FAULT_COLUMNS = "match_id, seat, bot, kind, reason, request_id, request_type"

DEAL_KEYED = "(match_key = deal OR substr(match_key, 1, length(deal) + 1) = deal || '-')"
"""SQL (on ``matches``, unqualified): the match's key is its deal's id, or starts with it and a dash (the keys of
every scheme but a comparison's). Such a deal's matches are a range of the keys' index; the others' are in the
partial index ``matches_by_odd_deal`` (results schema 5)."""


def deal_ids(tid: int, deal: str) -> tuple[str, tuple[Any, ...]]:
    """SQL selecting the ids of deal ``deal``'s matches in competition ``tid``, and its arguments: the keyed ones
    by a range of the keys' index (``deal`` up to ``deal.``: a dash sorts just before a full stop), the others by
    the partial index; the two sets are disjoint."""
    query = (
        "SELECT id FROM matches WHERE tournament_id = ? AND match_key >= ? AND match_key < ? AND deal = ?"
        f" AND {DEAL_KEYED} UNION ALL SELECT id FROM matches WHERE tournament_id = ? AND deal = ? AND NOT {DEAL_KEYED}"
    )
    return query, (tid, deal, deal + ".", deal, tid, deal)


def read_matches(
    db: sqlite3.Connection,
    where: str,
    args: tuple[Any, ...],
    *,
    order: str = "m.id",
    limit: int | None = None,
    log_base: str | None = None,
) -> list[PlayedMatch]:
    """The matches ``where`` says (SQL on ``matches m``), in ``order``, with their faults; a relative log path
    joined to ``log_base`` when given (see :meth:`~arena.competition.database.Database.full_log`)."""
    query = f"SELECT {MATCH_COLUMNS} FROM matches m WHERE {where} ORDER BY {order}"
    rows = _plain(db, query + ("" if limit is None else f" LIMIT {int(limit)}"), args)
    faults: dict[int, list[FaultRow]] = {}
    if len(rows) > 2000:  # many matches: the faults of the same selection, in one pass
        found = _plain(
            db,
            f"SELECT f.{_FAULT_COLUMNS.replace(', ', ', f.')} FROM faults f JOIN matches m ON m.id = f.match_id"
            f" WHERE {where} ORDER BY f.rowid",
            args,
        )
        for row in found:
            faults.setdefault(row[0], []).append(FaultRow(*row[1:]))
    elif rows:
        ids = [row[0] for row in rows]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            query = (
                f"SELECT {_FAULT_COLUMNS} FROM faults WHERE match_id IN ({', '.join('?' * len(chunk))}) ORDER BY rowid"
            )
            for row in _plain(db, query, tuple(chunk)):
                faults.setdefault(row[0], []).append(FaultRow(*row[1:]))
    return [_played_match(row, faults.get(row[0], ()), log_base) for row in rows]


def _plain(db: sqlite3.Connection, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The rows of ``query`` as tuples, whatever the connection's row factory (a page reads hundreds of rows: a
    tuple's columns by place are several times quicker to read than a :class:`sqlite3.Row`'s by name)."""
    cursor = db.cursor()
    cursor.row_factory = None
    return cursor.execute(query, args).fetchall()


def _played_match(row: tuple[Any, ...], faults: Iterable[FaultRow], log_base: str | None) -> PlayedMatch:
    """A match from its row of ``matches`` (:data:`MATCH_COLUMNS`, in their order) and its faults."""
    (
        row_id, key, cycle, deal, leg, bot_a, bot_b, seed, points_a, points_b, winner, forfeit, reason, duration_s,
        peak_rss_a, peak_rss_b, log_path, version_a, version_b,
    ) = row  # fmt: skip
    return PlayedMatch(
        key=key,
        cycle=cycle,
        deal=deal,
        leg=leg,
        bot_a=bot_a,
        bot_b=bot_b,
        seed=seed,
        points=(points_a, points_b),
        winner=winner,
        forfeit=() if forfeit == "[]" else tuple(json.loads(forfeit)),
        reason=reason,
        duration_s=duration_s,
        peak_rss=(peak_rss_a, peak_rss_b),
        log_path=os.path.join(log_base, log_path) if log_base and log_path else log_path,
        faults=tuple(faults),
        versions=(version_a, version_b),
        row_id=row_id,
    )
