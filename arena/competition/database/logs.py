"""What a server's log retention knows of each match's log (table ``match_logs``: its size, pair and deal, whether
and why it was pruned) and the pins that keep a deal's logs (table ``log_pins``). The policy is
:mod:`arena.server.retention`'s; every choice here is one query over indexed columns."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from ..._errors import ConfigError
from .competitions import now
from .match_rows import DEAL_KEYED

if TYPE_CHECKING:
    from .connection import Database

_KEYED, _ODD = (
    f"(SELECT MIN(id) FROM matches WHERE tournament_id = m.tournament_id AND match_key >= m.deal"
    f" AND match_key < m.deal || '.' AND deal = m.deal AND {DEAL_KEYED})",
    f"(SELECT MIN(id) FROM matches WHERE tournament_id = m.tournament_id AND deal = m.deal AND NOT {DEAL_KEYED})",
)
_DEAL_FIRST = f"MIN(IFNULL({_KEYED}, {_ODD}), IFNULL({_ODD}, {_KEYED}))"
"""SQL: the id of the first match of match ``m``'s deal (by the keys' index, or the partial index of the odd keys:
see :data:`~arena.competition.database.match_rows.DEAL_KEYED`)."""

_UNPINNED = "NOT EXISTS (SELECT 1 FROM log_pins p WHERE p.deal_first = l.deal_first)"
"""SQL: log ``l``'s deal is not pinned (no pin names its first match)."""


@dataclass(frozen=True)
class LogState:
    """A match's log as the retention sees it."""

    pruned_at: str | None
    pruned_why: str
    pinned_by: tuple[int, ...]
    """The participants (ids) who pinned its deal."""


@dataclass(frozen=True)
class Unnoted:
    """A recorded match's log the retention has not noted yet."""

    match_id: int
    tournament_id: int
    log_path: str
    low: int
    """The lower of its two versions' ids."""
    high: int
    deal_first: int
    """The id of its deal's first match (which names the deal)."""


@dataclass(frozen=True)
class KeptLog:
    """A log not yet pruned, with what pruning it changes."""

    match_id: int
    bytes: int
    log_path: str
    version_a: int
    version_b: int


class MatchLogs:
    """The retention's records of a server's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def last_noted(self) -> int:
        """The id of the last match whose log was noted (0: none)."""
        return int(self.db.value("SELECT COALESCE(MAX(match_id), 0) FROM match_logs"))

    def unnoted(self, after: int, limit: int) -> list[Unnoted]:
        """The next ``limit`` matches after match id ``after`` that have a log and two versions, by id."""
        # (The unary + keeps the planner on the ids' range: by an index of versions it would read every match.)
        rows = self.db.rows(
            "SELECT m.id AS match_id, m.tournament_id, m.log_path, MIN(m.version_a, m.version_b) AS low,"
            " MAX(m.version_a, m.version_b) AS high,"
            f" {_DEAL_FIRST} AS deal_first FROM matches m WHERE m.id > ? AND m.log_path IS NOT NULL"
            " AND +m.version_a IS NOT NULL AND +m.version_b IS NOT NULL ORDER BY m.id LIMIT ?",
            (after, limit),
        )
        found = [Unnoted(**{f.name: row[f.name] for f in fields(Unnoted)}) for row in rows]
        return [dataclasses.replace(u, log_path=self.db.full_log(u.log_path) or u.log_path) for u in found]

    def note(self, logs: Sequence[tuple[Unnoted, int]]) -> None:
        """Keep each log with its size in bytes, in one transaction."""
        with self.db.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO match_logs (match_id, tournament_id, low, high, deal_first, bytes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(u.match_id, u.tournament_id, u.low, u.high, u.deal_first, size) for u, size in logs],
            )

    def past_keep(self, tid: int, keep: int) -> list[int]:
        """The kept, unpinned logs (match ids) of deals older than their pair's last ``keep``."""
        rows = self.db.rows(
            "SELECT match_id FROM (SELECT l.match_id, l.deal_first, DENSE_RANK() OVER"
            " (PARTITION BY l.low, l.high ORDER BY l.deal_first DESC) AS newer"
            " FROM match_logs l WHERE l.tournament_id = ? AND l.pruned_at IS NULL) AS ranked"
            f" JOIN match_logs l USING (match_id) WHERE ranked.newer > ? AND {_UNPINNED}",
            (tid, keep),
        )
        return [row["match_id"] for row in rows]

    def over_budget(self, tid: int, budget: int) -> list[int]:
        """The oldest unpinned kept logs (match ids, whole deals) to prune to bring all kept logs within
        ``budget``."""
        kept = self.db.value(
            "SELECT COALESCE(SUM(bytes), 0) FROM match_logs WHERE pruned_at IS NULL AND tournament_id = ?", (tid,)
        )
        excess = int(kept) - budget
        if excess <= 0:
            return []
        rows = self.db.rows(
            "WITH deals AS (SELECT l.deal_first, SUM(l.bytes) AS size FROM match_logs l"
            f" WHERE l.tournament_id = ? AND l.pruned_at IS NULL AND {_UNPINNED} GROUP BY l.deal_first),"
            " running AS (SELECT deal_first, size, SUM(size) OVER (ORDER BY deal_first) AS upto FROM deals)"
            " SELECT l.match_id FROM running r JOIN match_logs l ON l.deal_first = r.deal_first"
            " WHERE r.upto - r.size < ? AND l.pruned_at IS NULL",
            (tid, excess),
        )
        return [row["match_id"] for row in rows]

    def kept(self, match_ids: Sequence[int]) -> list[KeptLog]:
        """The logs of ``match_ids`` (at most 999) not pruned yet."""
        marks = ", ".join("?" * len(match_ids))
        rows = self.db.rows(
            f"SELECT l.match_id, l.bytes, m.log_path, m.version_a, m.version_b FROM match_logs l"
            f" JOIN matches m ON m.id = l.match_id WHERE l.match_id IN ({marks}) AND l.pruned_at IS NULL",
            tuple(match_ids),
        )
        found = [KeptLog(**{f.name: row[f.name] for f in fields(KeptLog)}) for row in rows]
        return [dataclasses.replace(k, log_path=self.db.full_log(k.log_path) or k.log_path) for k in found]

    def mark_pruned(self, logs: Sequence[KeptLog], why: str) -> None:
        """Say in their rows that ``logs`` were pruned (now, for ``why``), and credit their versions' log quotas
        (each its half), in one transaction."""
        at = now()
        with self.db.transaction() as db:
            for log in logs:
                db.execute(
                    "UPDATE match_logs SET pruned_at = ?, pruned_why = ? WHERE match_id = ?", (at, why, log.match_id)
                )
                half = (log.bytes + 1) // 2
                for version, opponent in ((log.version_a, log.version_b), (log.version_b, log.version_a)):
                    db.execute(
                        "UPDATE pair_totals SET log_bytes = MAX(0, log_bytes - ?) WHERE version = ? AND opponent = ?",
                        (half, version, opponent),
                    )

    def state_of(self, match_id: int) -> LogState | None:
        """The retention's view of a match's log (``None``: not noted yet)."""
        found = self.db.row("SELECT deal_first, pruned_at, pruned_why FROM match_logs WHERE match_id = ?", (match_id,))
        if found is None:
            return None
        pins = self.db.rows(
            "SELECT participant_id FROM log_pins WHERE deal_first = ? ORDER BY at", (found["deal_first"],)
        )
        return LogState(
            pruned_at=found["pruned_at"],
            pruned_why=found["pruned_why"],
            pinned_by=tuple(p["participant_id"] for p in pins),
        )

    def pin(self, match_id: int, participant_id: int, *, cap: int | None) -> None:
        """Pin the deal of ``match_id`` for ``participant_id`` (at most ``cap`` pins; ``None``: no cap), or
        :class:`ConfigError` saying what to do when the log is gone or the participant has used its pins."""
        with self.db.transaction() as db:
            found = self.db.row("SELECT deal_first, pruned_at FROM match_logs WHERE match_id = ?", (match_id,))
            if found is None:
                raise ConfigError("this match has no log to pin")
            if found["pruned_at"] is not None:
                raise ConfigError("this match's log is already pruned")
            if cap is not None:
                used = self.db.value("SELECT COUNT(*) FROM log_pins WHERE participant_id = ?", (participant_id,))
                if int(used) >= cap:
                    raise ConfigError(f"you have pinned {cap} deals, the most the server keeps: unpin one first")
            db.execute(
                "INSERT OR IGNORE INTO log_pins (deal_first, participant_id, at) VALUES (?, ?, ?)",
                (found["deal_first"], participant_id, now()),
            )

    def unpin(self, match_id: int, participant_id: int | None) -> None:
        """Take ``participant_id``'s pin off the deal of ``match_id`` (``None``: every pin)."""
        with self.db.transaction() as db:
            deal = self.db.value("SELECT deal_first FROM match_logs WHERE match_id = ?", (match_id,))
            if deal is None:
                return
            if participant_id is None:
                db.execute("DELETE FROM log_pins WHERE deal_first = ?", (deal,))
            else:
                db.execute("DELETE FROM log_pins WHERE deal_first = ? AND participant_id = ?", (deal, participant_id))

    def last_path(self) -> str | None:
        """The log path of the last match that has one (a relative one joined to the database's folder)."""
        found = self.db.value("SELECT log_path FROM matches WHERE log_path IS NOT NULL ORDER BY id DESC LIMIT 1")
        return None if found is None else self.db.full_log(str(found))

    def move_paths(self, old: str, new: str) -> int:
        """Rewrite every log path under folder ``old`` to the same name under ``new`` (one statement; relative to
        the database's folder when ``new`` is under it, as a server's database keeps them); how many."""
        old_prefix = old + "/"
        new = self.db.stored_log(new) or new
        with self.db.transaction() as db:
            changed = db.execute(
                "UPDATE matches SET log_path = ? || substr(log_path, ?) WHERE substr(log_path, 1, ?) = ?",
                (f"{new}/", len(old_prefix) + 1, len(old_prefix), old_prefix),
            ).rowcount
        return int(changed)
