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
import threading
from dataclasses import dataclass
from pathlib import Path

from ..competition.database import Database, Repositories
from ..competition.database.logs import LogState as LogState
from ..competition.database.logs import MatchLogs

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


def connect(path: Path) -> Database:
    """A connection of the pruner's own on the server's database (each thread its own)."""
    return Database.for_thread(path)


def catch_up(db: Database, stop: threading.Event | None = None) -> int:
    """Note the size, pair and deal of each log recorded since the last run (of every competition); how many.

    Match ids are the database's, in the order recorded: the matches after
    the last one noted are read by their ids (the primary key), a batch at a
    time, whatever the history's length.
    """
    logs = MatchLogs(db)
    noted = 0
    after = logs.last_noted()
    while True:
        found = logs.unnoted(after, BATCH)
        if not found or (stop is not None and stop.is_set()):
            return noted
        logs.note([(log, _file_size(log.log_path)) for log in found])
        noted += len(found)
        after = found[-1].match_id


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def past_keep(db: Database, tid: int, keep: int) -> list[int]:
    """The kept, unpinned logs (match ids) of deals older than their pair's last ``keep``."""
    return MatchLogs(db).past_keep(tid, keep)


def over_budget(db: Database, tid: int, budget: int) -> list[int]:
    """The oldest unpinned kept logs (match ids, whole deals) to prune to bring all kept logs within ``budget``."""
    return MatchLogs(db).over_budget(tid, budget)


def prune(db: Database, tid: int, policy: Retention, *, stop: threading.Event | None = None) -> Pruned:
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
        Repositories(db).competitions.log_change(tid, "logs", line)
    return done


def _drop(db: Database, match_ids: list[int], why: str, stop: threading.Event | None) -> tuple[int, int]:
    """Delete the logs of ``match_ids`` and say so in their rows; the versions' log quotas are credited."""
    logs = MatchLogs(db)
    count = freed = 0
    for start in range(0, len(match_ids), BATCH):
        if stop is not None and stop.is_set():
            break
        kept = logs.kept(match_ids[start : start + BATCH])
        # The files go first: a kill between leaves a row saying "kept" of a missing file (its page says the log
        # is missing), never a file no row accounts for.
        for log in kept:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(log.log_path)
        logs.mark_pruned(kept, why)
        count += len(kept)
        freed += sum(log.bytes for log in kept)
    return count, freed


def state_of(db: Database, match_id: int) -> LogState | None:
    """The retention's view of a match's log (``None``: the pruner has not seen it yet, so it is kept)."""
    return MatchLogs(db).state_of(match_id)


def pin(db: Database, tid: int, match_id: int, participant_id: int, *, cap: int | None) -> None:
    """Pin the deal of ``match_id`` for ``participant_id`` (at most ``cap`` pins; ``None``: no cap).

    Raises :class:`ConfigError` with what to do when the log is gone or the
    participant has used its pins.
    """
    catch_up(db)
    MatchLogs(db).pin(match_id, participant_id, cap=cap)


def unpin(db: Database, match_id: int, participant_id: int | None) -> None:
    """Take ``participant_id``'s pin off the deal of ``match_id`` (``None``: every pin, the organiser's call)."""
    MatchLogs(db).unpin(match_id, participant_id)


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
        logs_db = MatchLogs(db)
        last = logs_db.last_path()
        if last is None:
            return 0
        old = str(Path(last).parent)
        if old == str(logs) or not (logs / Path(last).name).exists():
            return 0  # in place, or not a copy of this folder's logs: left as they are
        return logs_db.move_paths(old, str(logs))
