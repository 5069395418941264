"""Finished matches and their faults (tables ``matches`` and ``faults``): recorded one transaction each, with
their pairs' totals, and read by index."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..._errors import StoreError
from ..records import FaultRow, PlayedMatch, log_halves
from ..totals import Pair, PairTotals, deal_change, deal_totals, table_result
from .claims import match_item
from .competitions import now
from .match_rows import deal_ids, read_matches
from .pairs import add_totals
from .schema import add_table

if TYPE_CHECKING:
    from .connection import Database

OUTCOME_SQL = {
    "won": "m.winner = ?",
    "drew": "m.winner IS NULL AND instr(m.forfeit, ?) = 0",
    "lost": "((m.winner IS NOT NULL AND m.winner <> ?) OR (m.winner IS NULL AND instr(m.forfeit, ?) > 0))",
}
"""A match's outcome for the seat given (once for each ``?``): a forfeit without a winner is the forfeiter's loss."""

CURRENT = (
    "EXISTS (SELECT 1 FROM versions va WHERE va.id = m.version_a AND va.retired_at IS NULL"
    " AND va.admission = 'admitted')"
    " AND EXISTS (SELECT 1 FROM versions vb WHERE vb.id = m.version_b AND vb.retired_at IS NULL"
    " AND vb.admission = 'admitted')"
)
"""SQL: match ``m`` is between two current, admitted versions (it counts in the current standings)."""

_INSERT = (
    "INTO matches (tournament_id, match_key, cycle, deal, leg, bot_a, bot_b, seed, points_a, points_b, winner,"
    " forfeit, reason, duration_s, peak_rss_a, peak_rss_b, log_path, finished_at, version_a, version_b)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class Matches:
    """The finished matches of a database: their recording, and every read of them."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # Recording ----------------------------------------------------------
    def record(self, tid: int, match: PlayedMatch) -> bool:
        """Record a finished match and its faults in one transaction; ``False`` if it was already there.

        The match's claim (by anyone) goes in the same transaction, and its change of its pairs' totals (and of
        its deal's table totals, when it finishes a deal at two tables).
        """
        with self.db.transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE " + _INSERT, _match_values(tid, match, self.db.stored_log(match.log_path))
            )
            db.execute("DELETE FROM claims WHERE tournament_id = ? AND item = ?", (tid, match_item(match.key)))
            if cursor.rowcount == 0:
                return False
            match_id = cursor.lastrowid
            assert match_id is not None
            _insert_faults(db, match_id, match)
            ids, args = deal_ids(tid, match.deal)
            before = read_matches(db, f"m.id IN ({ids}) AND m.id < ?", (*args, match_id), log_base=self.db.log_base)
            add_totals(db, tid, deal_change(before, match), log_halves(match), match_id)
            finished = table_result([*before, match])
            if finished is not None and table_result(before) is None:  # the deal's second table
                add_table(db, tid, *finished, touched=match_id)
        return True

    def record_many(self, tid: int, matches: Sequence[PlayedMatch]) -> None:
        """Record many finished matches, of deals the database has none of yet, in one transaction (an import, a
        benchmark's history of a million matches): what :meth:`record` does for each, in bulk.
        """
        with self.db.transaction() as db:
            db.executemany(
                "INSERT " + _INSERT, (_match_values(tid, m, self.db.stored_log(m.log_path)) for m in matches)
            )
            for match in matches:
                if match.faults:
                    (match_id,) = db.execute(
                        "SELECT id FROM matches WHERE tournament_id = ? AND match_key = ?", (tid, match.key)
                    ).fetchone()
                    _insert_faults(db, match_id, match)
            by_deal: dict[str, list[PlayedMatch]] = {}
            for match in matches:
                by_deal.setdefault(match.deal, []).append(match)
            change: dict[Pair, PairTotals] = {}
            for deal, played in by_deal.items():
                ids, args = deal_ids(tid, deal)
                stored = self.db.value(f"SELECT COUNT(*) FROM ({ids})", args)
                if stored > len(played):
                    raise StoreError(
                        f"deal {deal} has matches in {self.db.path} already: record its matches one by one"
                    )
                for pair, part in deal_totals(played).items():
                    change.setdefault(pair, PairTotals()).add(part)
                finished = table_result(played)
                if finished is not None:
                    add_table(db, tid, *finished, touched=0)
            logs: dict[int, int] = {}
            for match in matches:
                for vid, half in log_halves(match).items():
                    logs[vid] = logs.get(vid, 0) + half
            last = self.db.value("SELECT COALESCE(MAX(id), 0) FROM matches WHERE tournament_id = ?", (tid,))
            add_totals(db, tid, change, logs, last)

    # Keys and counts ----------------------------------------------------
    def keys(self, tid: int) -> Iterator[str]:
        """The keys of the matches of ``tid``, one at a time (a million of them are never held at once)."""
        for row in self.db.stream("SELECT match_key FROM matches WHERE tournament_id = ?", (tid,)):
            yield row["match_key"]

    def has(self, tid: int, key: str) -> bool:
        """Whether match ``key`` of ``tid`` is recorded."""
        return self.db.row("SELECT 1 FROM matches WHERE tournament_id = ? AND match_key = ?", (tid, key)) is not None

    def count(self, tid: int, *, current: bool = False) -> int:
        """How many matches of ``tid`` are recorded (only between current, admitted versions with ``current``)."""
        if not current:
            return int(self.db.value("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,)))
        return int(self.db.value(f"SELECT COUNT(*) FROM matches m WHERE m.tournament_id = ? AND {CURRENT}", (tid,)))

    def count_of(self, tid: int, vid: int) -> int:
        """How many matches of ``tid`` version ``vid`` has played."""
        query = "SELECT COUNT(*) FROM matches WHERE tournament_id = ? AND (version_a = ? OR version_b = ?)"
        return int(self.db.value(query, (tid, vid, vid)))

    def all_versioned(self, tid: int) -> bool:
        """Whether every match of ``tid`` is tied to two versions (so the pair totals count all of them)."""
        return not self.db.row(
            "SELECT 1 FROM matches WHERE tournament_id = ? AND (version_a IS NULL OR version_b IS NULL) LIMIT 1",
            (tid,),
        )

    def points(self, tid: int) -> dict[str, float]:
        """Each current, admitted bot's total points over the current standings' matches."""
        rows = self.db.rows(
            "SELECT bot, SUM(points) AS total FROM (SELECT m.bot_a AS bot, m.points_a AS points FROM matches m"
            f" WHERE m.tournament_id = ? AND {CURRENT} UNION ALL SELECT m.bot_b, m.points_b FROM matches m"
            f" WHERE m.tournament_id = ? AND {CURRENT}) GROUP BY bot",
            (tid, tid),
        )
        return {row["bot"]: float(row["total"]) for row in rows}

    def fault_counts(self, tid: int) -> dict[str, Counter[str]]:
        """Faults by kind of each current, admitted bot, over the current standings' matches."""
        out: dict[str, Counter[str]] = {}
        for row in self.db.rows(
            "SELECT f.bot, f.kind, COUNT(*) AS count FROM faults f JOIN matches m ON m.id = f.match_id"
            f" WHERE m.tournament_id = ? AND {CURRENT} GROUP BY f.bot, f.kind",
            (tid,),
        ):
            out.setdefault(row["bot"], Counter())[row["kind"]] = row["count"]
        return out

    def finished_times(self, tid: int, ids: Sequence[int]) -> dict[str, str]:
        """When each of the matches ``ids`` (row ids) of ``tid`` finished (ISO 8601, UTC), by key (for the pages'
        dates), by the primary key (by the keys' index, each row was looked up twice: a third of a bot page's
        reads)."""
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):  # (SQLite's limit on a statement's parameters)
            chunk = list(ids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT match_key, finished_at FROM matches WHERE id IN ({marks}) AND +tournament_id = ?"
            out.update(self.db.tuples(query, (*chunk, tid)))
        return out

    # Matches ------------------------------------------------------------
    def get(self, tid: int, key: str) -> PlayedMatch | None:
        """The recorded match ``key`` of ``tid`` (by the unique index on keys)."""
        found = read_matches(
            self.db.connection, "m.tournament_id = ? AND m.match_key = ?", (tid, key), log_base=self.db.log_base
        )
        return found[0] if found else None

    def of(self, tid: int, *, current: bool = False) -> list[PlayedMatch]:
        """The recorded matches of ``tid`` in the order they finished (only the current standings' with ``current``)."""
        where = "m.tournament_id = ?" + (f" AND {CURRENT}" if current else "")
        return read_matches(self.db.connection, where, (tid,), log_base=self.db.log_base)

    def latest(
        self,
        tid: int,
        limit: int,
        *,
        before: int | None = None,
        versions: Iterable[int] | None = None,
        opponents: Iterable[int] | None = None,
        result: str | None = None,
    ) -> list[PlayedMatch]:
        """The last ``limit`` matches of ``tid``, newest first: of ``versions`` only, and before match id ``before``;
        with ``versions``, against ``opponents`` only and with ``result`` (``won``, ``drew`` or ``lost``) for them.

        A page of a bot's history reads ``limit`` rows by the index on each
        seat's version (keyset pagination: the next page is ``before`` the
        last id shown), however long the history.
        """
        below = before if before is not None else 1 << 62
        db = self.db.connection
        if versions is None:
            # By the primary key, newest first: no sort, ``limit`` rows read (and, for an older competition of the
            # same file, the newer ones' passed over). The unary + keeps the planner off the indexes that start
            # with the competition, which would sort every match of it.
            where = "m.id < ? AND +m.tournament_id = ?"
            return read_matches(db, where, (below, tid), order="m.id DESC", limit=limit, log_base=self.db.log_base)
        against = sorted(set(opponents)) if opponents is not None else None
        ids: set[int] = set()
        for vid in set(versions):  # the ids first (each seat's index), then only the rows shown are read
            for seat, other in (("a", "b"), ("b", "a")):
                where = f"m.version_{seat} = ? AND m.id < ? AND m.tournament_id = ?"
                args: list[object] = [vid, below, tid]
                if against is not None:
                    where += f" AND m.version_{other} IN ({', '.join('?' * len(against)) or 'NULL'})"
                    args += against
                if result is not None:
                    where += " AND " + OUTCOME_SQL[result]
                    args += [seat.upper()] * OUTCOME_SQL[result].count("?")
                query = f"SELECT m.id FROM matches m WHERE {where} ORDER BY m.id DESC LIMIT {int(limit)}"
                ids.update(row[0] for row in db.execute(query, args))
        chosen = sorted(ids, reverse=True)[:limit]
        if not chosen:
            return []
        where = f"m.id IN ({', '.join('?' * len(chosen))})"
        return read_matches(db, where, tuple(chosen), order="m.id DESC", log_base=self.db.log_base)

    def of_keys(self, tid: int, keys: Sequence[str]) -> list[PlayedMatch]:
        """The recorded matches of ``tid`` among ``keys`` (by the unique index on keys), in the order recorded."""
        found: list[PlayedMatch] = []
        for start in range(0, len(keys), 500):  # (SQLite's limit on a statement's parameters)
            chunk = tuple(keys[start : start + 500])
            where = f"m.tournament_id = ? AND m.match_key IN ({', '.join('?' * len(chunk))})"
            found += read_matches(self.db.connection, where, (tid, *chunk), log_base=self.db.log_base)
        return sorted(found, key=lambda m: m.row_id)

    def recorded(self, tid: int, keys: Sequence[str]) -> set[str]:
        """Which of ``keys`` are recorded matches of ``tid`` (one read of the keys' index, however many)."""
        out: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = tuple(keys[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT match_key FROM matches WHERE tournament_id = ? AND match_key IN ({marks})"
            out.update(row[0] for row in self.db.connection.execute(query, (tid, *chunk)))
        return out

    def latest_faults(self, tid: int, versions: Iterable[int], limit: int) -> list[tuple[PlayedMatch, FaultRow]]:
        """The last ``limit`` faults of ``versions``, newest first, each with its match (by the faults' index)."""
        ids: set[int] = set()
        for vid in set(versions):
            rows = self.db.rows(
                "SELECT match_id FROM faults WHERE version = ? ORDER BY match_id DESC LIMIT ?", (vid, limit)
            )
            ids.update(row["match_id"] for row in rows)
        if not ids:
            return []
        chosen = sorted(ids, reverse=True)[:limit]
        # (By the primary key: with the tournament's column indexed, SQLite went through every match of it by an
        # index of the tournament's and sorted them, 0.2 s a bot page at a million matches; the + keeps it off.)
        where = f"+m.tournament_id = ? AND m.id IN ({', '.join('?' * len(chosen))})"
        matches = read_matches(self.db.connection, where, (tid, *chosen), order="m.id DESC", log_base=self.db.log_base)
        wanted = set(versions)
        found = [(m, f) for m in matches for f in reversed(m.faults) if m.versions[0 if f.seat == "A" else 1] in wanted]
        return found[:limit]


def _match_values(tid: int, match: PlayedMatch, log_path: str | None) -> tuple[Any, ...]:
    """A match's row of ``matches``, in the order the inserts name the columns (its log's path as stored)."""
    return (
        tid, match.key, match.cycle, match.deal, match.leg, match.bot_a, match.bot_b, match.seed, match.points[0],
        match.points[1], match.winner, json.dumps(list(match.forfeit)), match.reason, match.duration_s,
        match.peak_rss[0], match.peak_rss[1], log_path, now(), match.versions[0], match.versions[1],
    )  # fmt: skip


def _insert_faults(db: sqlite3.Connection, match_id: int, match: PlayedMatch) -> None:
    for fault in match.faults:
        db.execute(
            "INSERT INTO faults (match_id, seat, bot, kind, reason, request_id, request_type, version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match_id, fault.seat, fault.bot, fault.kind, fault.reason, fault.request_id, fault.request_type,
                match.versions[0 if fault.seat == "A" else 1],
            ),
        )  # fmt: skip
