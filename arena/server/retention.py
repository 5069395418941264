"""How long a server keeps its match logs: the last deals of each pair, the pinned, all within a budget.

Every match of the ladder leaves a log (gzip JSONL under ``data_dir/logs``,
its path in the ``matches`` table). Over months they outgrow the disk, so the
server prunes them, in a thread, every ``prune_every_s``:

- of each pair of versions, the logs of its last ``keep_deals`` deals are
  kept (a deal's two legs are kept or pruned together: a replay shows the
  other leg);
- a deal a participant pinned (one of its own bots' matches, at most
  ``pins_per_participant`` of them) or the organiser pinned is kept;
- all the kept logs together take at most ``log_budget_bytes``: past it, the
  oldest unpinned deals go first, whatever their pair.

A pruned match keeps its result (the standings never read logs); its page
says when and why its log went. Each run that prunes writes one line in the
competition's changes (how many logs, how many bytes, why) and the match's
own row says which reason took it (``match_logs.pruned_why``).

What the pruner knows of each log (its size, its pair, its deal) is kept in
``match_logs`` (server schema 3), filled by the pruner itself from the
matches recorded since its last run: the sizes are read once, in the
thread, never at start, and every choice is one SQL query over indexed
columns, not a pass over the matches in Python.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .._errors import ConfigError

logger = logging.getLogger("arena.server.retention")

BATCH = 2000
"""Rows written in one transaction: the ladder's own writes wait at most one batch."""


@dataclass(frozen=True)
class Retention:
    """The config's retention policy (``[server]``)."""

    keep_deals: int = 20
    """The last deals of each pair of versions whose logs are kept (0: none but the pinned)."""
    log_budget_bytes: int = 10 << 30
    """All match logs kept together; past it the oldest unpinned deals are pruned (0: no budget)."""
    pins_per_participant: int = 50
    """Deals one participant may pin (the organiser: any number)."""
    prune_every_s: float = 600.0
    """How often the pruner runs."""


@dataclass(frozen=True)
class Pruned:
    """What one run of the pruner did."""

    logs: int = 0
    bytes: int = 0
    past_keep: int = 0
    """Logs pruned for being past their pair's last ``keep_deals`` deals."""
    over_budget: int = 0
    """Logs pruned to bring all logs under the budget."""

    def line(self, policy: Retention) -> str:
        """The change line the run leaves (which and why)."""
        why = []
        if self.past_keep:
            why.append(f"{self.past_keep} past the last {policy.keep_deals} deals of their pair")
        if self.over_budget:
            why.append(f"{self.over_budget} the oldest unpinned, over the {size_text(policy.log_budget_bytes)} budget")
        return f"pruned {self.logs} match logs ({size_text(self.bytes)}): {'; '.join(why)}"


@dataclass(frozen=True)
class LogState:
    """A match's log as the retention sees it."""

    pruned_at: str | None
    pruned_why: str
    pinned_by: tuple[int, ...]
    """The participants (ids) who pinned its deal."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection of the pruner's own on the server's database (each thread its own)."""
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    db.execute("PRAGMA foreign_keys=ON")
    return db


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction on ``db`` (autocommit mode), taken at once (``BEGIN IMMEDIATE``)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def catch_up(db: sqlite3.Connection, stop: threading.Event | None = None) -> int:
    """Note the size, pair and deal of each log recorded since the last run (of every competition); how many.

    Match ids are the database's, in the order recorded: the matches after
    the last one noted are read by their ids (the primary key), a batch at a
    time, whatever the history's length.
    """
    noted = 0
    after = int(db.execute("SELECT COALESCE(MAX(match_id), 0) FROM match_logs").fetchone()[0])
    while True:
        # (The unary + keeps the planner on the ids' range: by an index of versions it would read every match.)
        rows = db.execute(
            "SELECT m.id, m.tournament_id, m.log_path, MIN(m.version_a, m.version_b), MAX(m.version_a, m.version_b),"
            " (SELECT MIN(d.id) FROM matches d WHERE d.tournament_id = m.tournament_id AND d.deal = m.deal)"
            " FROM matches m WHERE m.id > ? AND m.log_path IS NOT NULL"
            " AND +m.version_a IS NOT NULL AND +m.version_b IS NOT NULL ORDER BY m.id LIMIT ?",
            (after, BATCH),
        ).fetchall()
        if not rows or (stop is not None and stop.is_set()):
            return noted
        sized = [(mid, tid, low, high, first, _file_size(path)) for mid, tid, path, low, high, first in rows]
        with transaction(db):
            db.executemany(
                "INSERT OR IGNORE INTO match_logs (match_id, tournament_id, low, high, deal_first, bytes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                sized,
            )
        noted += len(sized)
        after = rows[-1][0]


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# An unpinned deal: no pin names its first match.
_UNPINNED = "NOT EXISTS (SELECT 1 FROM log_pins p WHERE p.deal_first = l.deal_first)"


def past_keep(db: sqlite3.Connection, tid: int, keep: int) -> list[int]:
    """The kept, unpinned logs (match ids) of deals older than their pair's last ``keep``."""
    rows = db.execute(
        "SELECT match_id FROM (SELECT l.match_id, l.deal_first, DENSE_RANK() OVER"
        " (PARTITION BY l.low, l.high ORDER BY l.deal_first DESC) AS newer"
        " FROM match_logs l WHERE l.tournament_id = ? AND l.pruned_at IS NULL) AS ranked"
        f" JOIN match_logs l USING (match_id) WHERE ranked.newer > ? AND {_UNPINNED}",
        (tid, keep),
    ).fetchall()
    return [row[0] for row in rows]


def over_budget(db: sqlite3.Connection, tid: int, budget: int) -> list[int]:
    """The oldest unpinned kept logs (match ids, whole deals) to prune to bring all kept logs within ``budget``."""
    kept = db.execute(
        "SELECT COALESCE(SUM(bytes), 0) FROM match_logs WHERE pruned_at IS NULL AND tournament_id = ?", (tid,)
    )
    excess = int(kept.fetchone()[0]) - budget
    if excess <= 0:
        return []
    rows = db.execute(
        "WITH deals AS (SELECT l.deal_first, SUM(l.bytes) AS size FROM match_logs l"
        f" WHERE l.tournament_id = ? AND l.pruned_at IS NULL AND {_UNPINNED} GROUP BY l.deal_first),"
        " running AS (SELECT deal_first, size, SUM(size) OVER (ORDER BY deal_first) AS upto FROM deals)"
        " SELECT l.match_id FROM running r JOIN match_logs l ON l.deal_first = r.deal_first"
        " WHERE r.upto - r.size < ? AND l.pruned_at IS NULL",
        (tid, excess),
    ).fetchall()
    return [row[0] for row in rows]


def prune(db: sqlite3.Connection, tid: int, policy: Retention, *, stop: threading.Event | None = None) -> Pruned:
    """Prune by ``policy``: past each pair's last deals, then the oldest over the budget; log the run.

    ``stop``, once set (the server stopping), ends the run at its next batch.
    """
    catch_up(db, stop)
    why = f"past the last {policy.keep_deals} deals of its pair"
    past = _drop(db, past_keep(db, tid, policy.keep_deals), why, stop)
    over = (0, 0)
    if policy.log_budget_bytes and not (stop is not None and stop.is_set()):
        why = f"the oldest unpinned log when all logs took over the {size_text(policy.log_budget_bytes)} budget"
        over = _drop(db, over_budget(db, tid, policy.log_budget_bytes), why, stop)
    done = Pruned(logs=past[0] + over[0], bytes=past[1] + over[1], past_keep=past[0], over_budget=over[0])
    if done.logs:
        line = done.line(policy)
        logger.info("%s", line)
        with transaction(db):
            db.execute(
                "INSERT INTO changes (tournament_id, at, kind, bot, line) VALUES (?, ?, 'logs', '', ?)",
                (tid, _now(), line),
            )
    return done


def _drop(db: sqlite3.Connection, match_ids: list[int], why: str, stop: threading.Event | None) -> tuple[int, int]:
    """Delete the logs of ``match_ids`` and say so in their rows; the versions' log quotas are credited."""
    count = freed = 0
    for start in range(0, len(match_ids), BATCH):
        if stop is not None and stop.is_set():
            break
        chunk = match_ids[start : start + BATCH]
        marks = ", ".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT l.match_id, l.bytes, m.log_path, m.version_a, m.version_b FROM match_logs l"
            f" JOIN matches m ON m.id = l.match_id WHERE l.match_id IN ({marks}) AND l.pruned_at IS NULL",
            chunk,
        ).fetchall()
        # The files go first: a kill between leaves a row saying "kept" of a missing file (its page says the log
        # is missing), never a file no row accounts for.
        for row in rows:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(row[2])
        at = _now()
        with transaction(db):
            for mid, size, _path, version_a, version_b in rows:
                db.execute("UPDATE match_logs SET pruned_at = ?, pruned_why = ? WHERE match_id = ?", (at, why, mid))
                half = (size + 1) // 2
                for version, opponent in ((version_a, version_b), (version_b, version_a)):
                    db.execute(
                        "UPDATE pair_totals SET log_bytes = MAX(0, log_bytes - ?) WHERE version = ? AND opponent = ?",
                        (half, version, opponent),
                    )
        count += len(rows)
        freed += sum(row[1] for row in rows)
    return count, freed


def state_of(db: sqlite3.Connection, match_id: int) -> LogState | None:
    """The retention's view of a match's log (``None``: the pruner has not seen it yet, so it is kept)."""
    row = db.execute("SELECT deal_first, pruned_at, pruned_why FROM match_logs WHERE match_id = ?", (match_id,))
    found = row.fetchone()
    if found is None:
        return None
    pins = db.execute("SELECT participant_id FROM log_pins WHERE deal_first = ? ORDER BY at", (found[0],)).fetchall()
    return LogState(pruned_at=found[1], pruned_why=found[2], pinned_by=tuple(p[0] for p in pins))


def pin(db: sqlite3.Connection, tid: int, match_id: int, participant_id: int, *, cap: int | None) -> None:
    """Pin the deal of ``match_id`` for ``participant_id`` (at most ``cap`` pins; ``None``: no cap).

    Raises :class:`ConfigError` with what to do when the log is gone or the
    participant has used its pins.
    """
    catch_up(db)
    with transaction(db):
        found = db.execute("SELECT deal_first, pruned_at FROM match_logs WHERE match_id = ?", (match_id,)).fetchone()
        if found is None:
            raise ConfigError("this match has no log to pin")
        if found[1] is not None:
            raise ConfigError("this match's log is already pruned")
        if cap is not None:
            used = db.execute("SELECT COUNT(*) FROM log_pins WHERE participant_id = ?", (participant_id,)).fetchone()
            if int(used[0]) >= cap:
                raise ConfigError(f"you have pinned {cap} deals, the most the server keeps: unpin one first")
        db.execute(
            "INSERT OR IGNORE INTO log_pins (deal_first, participant_id, at) VALUES (?, ?, ?)",
            (found[0], participant_id, _now()),
        )


def unpin(db: sqlite3.Connection, match_id: int, participant_id: int | None) -> None:
    """Take ``participant_id``'s pin off the deal of ``match_id`` (``None``: every pin, the organiser's call)."""
    with transaction(db):
        found = db.execute("SELECT deal_first FROM match_logs WHERE match_id = ?", (match_id,)).fetchone()
        if found is None:
            return
        if participant_id is None:
            db.execute("DELETE FROM log_pins WHERE deal_first = ?", (found[0],))
        else:
            db.execute("DELETE FROM log_pins WHERE deal_first = ? AND participant_id = ?", (found[0], participant_id))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def size_text(count: int) -> str:
    """``count`` bytes for a person: KiB, MiB or GiB."""
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GiB"
    return f"{count / (1 << 20):.1f} MiB" if count >= 1 << 20 else f"{count / 1024:.0f} KiB"


def relocate_logs(database: Path, logs: Path) -> int:
    """Point the match logs' paths at ``logs`` when the data folder was moved (a backup restored elsewhere).

    The matches record their logs by full path; a data folder copied to
    another path finds its logs under its own ``logs/``. One look at the
    last match's path decides (nothing to do, the usual case, costs one
    indexed read); a move rewrites every path in one statement. How many
    were rewritten.
    """
    with contextlib.closing(connect(database)) as db:
        row = db.execute("SELECT log_path FROM matches WHERE log_path IS NOT NULL ORDER BY id DESC LIMIT 1")
        found = row.fetchone()
        if found is None:
            return 0
        old = str(Path(found[0]).parent)
        if old == str(logs) or not (logs / Path(found[0]).name).exists():
            return 0  # in place, or not a copy of this folder's logs: left as they are
        prefix = old + "/"
        with transaction(db):
            changed = db.execute(
                "UPDATE matches SET log_path = ? || substr(log_path, ?) WHERE substr(log_path, 1, ?) = ?",
                (f"{logs}/", len(prefix) + 1, len(prefix), prefix),
            ).rowcount
        return int(changed)
