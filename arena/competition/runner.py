"""Playing a tournament: the pending matches of the schedule, ``jobs`` at once, each recorded as it ends.

* **Concurrency.** ``jobs`` matches at once, in one trio run; bots whose
  manifest says ``reuse = true`` keep their processes between matches
  (:mod:`arena.supervisor._pool`); a process that faulted is replaced by a fresh one.
  Elsewhere than here (a cluster) through a :class:`MatchExecutor`.
* **Results** go to SQLite (:mod:`arena.competition.store`), one transaction per finished
  match under a unique key, so running the same command again resumes: the
  matches already recorded are not played again, even after a ``kill -9``.
* **Faults** cost only the offender (the game's forfeit rules); a bot with more
  than ``max_faults`` faults is disqualified and plays no more matches.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio

from protocol import SEATS, Limits, Result

from .._errors import BotFault
from ..bots.spec import BotSpec
from ..games import Game
from ..supervisor._pool import BotPool, PoolStats, open_pool
from ..supervisor.build import ensure_built
from ..supervisor.match import MatchRunner, Seat
from ..supervisor.matchlog import MatchLog
from ..supervisor.wires import wire_for
from .plan import Plan
from .progress import Progress, QuietProgress
from .results import disqualifications
from .schedule import Scheduled
from .store import FaultRow, PlayedMatch, Store


# Running -------------------------------------------------------------------------
@dataclass
class Summary:
    """What one run of a tournament did."""

    tournament_id: int
    seed: int
    scheduled: int
    already_done: int
    played: int = 0
    skipped: int = 0
    """Matches not played because a bot in them was disqualified."""
    interrupted: bool = False
    elapsed_s: float = 0.0
    pool: PoolStats = field(default_factory=PoolStats)
    disqualified: dict[str, str] = field(default_factory=dict)


class _Runner:
    """Plays the pending matches of one tournament with ``jobs`` workers."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        tid: int,
        schedule: list[Scheduled],
        *,
        jobs: int,
        progress: Progress,
        log_dir: Path | None,
    ) -> None:
        self.plan = plan
        self.store = store
        self.tid = tid
        self.jobs = jobs
        self.progress = progress
        self.log_dir = log_dir
        self.recorded = store.matches(tid)
        finished = {m.key for m in self.recorded}
        self.pending = [m for m in schedule if m.key not in finished]
        self.total = len(schedule)
        self.done = len(schedule) - len(self.pending)
        self.points = {name: 0.0 for name in plan.names}
        for match in self.recorded:
            self._count(match)
        self.banned = disqualifications(self.recorded, plan.config.max_faults)
        self.skipped = 0
        self.played = 0
        self.executor: MatchExecutor | None = None

    def _count(self, match: PlayedMatch) -> None:
        for seat_index, seat in enumerate(SEATS):
            name = match.bot(seat)
            if name in self.points:
                self.points[name] += match.points[seat_index]

    def leader(self) -> str:
        if not any(self.points.values()):
            return ""
        name = max(self.points, key=lambda n: (n not in self.banned, self.points[n]))
        return f"{name} ({self.points[name]:g} {self.plan.game.points_name})"

    async def run(self, pool: BotPool) -> None:
        queue = iter(self.pending)
        async with trio.open_nursery() as nursery:
            for _ in range(max(1, min(self.jobs, len(self.pending)))):
                nursery.start_soon(self._worker, queue, pool)

    async def _worker(self, queue: Any, pool: BotPool) -> None:
        for scheduled in queue:
            if scheduled.bot_a in self.banned or scheduled.bot_b in self.banned:
                self.skipped += 1
                self.total -= 1
                self.progress.advance(self.done, self.total, self.leader())
                continue
            match = await self._play(scheduled, pool)
            if self.store.record_match(self.tid, match):
                self.recorded.append(match)
                self._count(match)
                self.banned = disqualifications(self.recorded, self.plan.config.max_faults)
            self.done += 1
            self.played += 1
            self.progress.finished(match, self.done, self.total)
            self.progress.advance(self.done, self.total, self.leader())

    def _log_path(self, scheduled: Scheduled) -> Path | None:
        if self.log_dir is None:
            return None
        return self.log_dir / f"{scheduled.key}.jsonl.gz"  # compressed: arena replay and read_log read it

    async def _play(self, scheduled: Scheduled, pool: BotPool) -> PlayedMatch:
        if self.executor is not None:  # elsewhere, such as on a cluster
            return await self.executor(scheduled, self._log_path(scheduled))
        return await play_scheduled(
            self.plan.game,
            self.plan.specs,
            self.plan.config.limits,
            scheduled,
            pool,
            log_path=self._log_path(scheduled),
            tournament_id=self.tid,
        )


class MatchExecutor(Protocol):
    """Plays scheduled matches elsewhere than in this process's pool, such as on a cluster's workers.

    The tournament owns this interface and never imports an implementation:
    the command line picks one (:mod:`arena.competition.cluster`) and passes
    :func:`run_tournament` a factory that opens it.
    """

    @property
    def slots(self) -> int:
        """How many matches it can play at once."""
        ...

    async def __call__(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch:
        """Play ``scheduled``, logged at ``log_path``, and return it as the store records it."""
        ...


OpenExecutor = Callable[[Plan, int], AbstractAsyncContextManager[MatchExecutor]]
"""Opens a :class:`MatchExecutor` for a tournament (its plan and id); given to :func:`run_tournament`."""


async def play_scheduled(
    game: Game,
    specs: Mapping[str, BotSpec],
    limits: Limits,
    scheduled: Scheduled,
    pool: BotPool,
    *,
    log_path: Path | None,
    tournament_id: int,
) -> PlayedMatch:
    """Play ``scheduled`` with processes from ``pool`` and return it as the store records it."""
    names = (scheduled.bot_a, scheduled.bot_b)
    bots = []
    spawn_faults: dict[int, BotFault] = {}
    try:
        for index, name in enumerate(names):
            try:
                bots.append(await pool.acquire(specs[name], limits))
            except BotFault as fault:
                spawn_faults[index] = fault
        if spawn_faults:
            for bot in bots:  # the seat that did start played nothing: back to the pool
                pool.release(bot, faulted=False)
            return _unplayed(game, scheduled, spawn_faults)
        seats = [
            Seat(bot=bot, limits=limits, name=name, wire=wire_for(bot.spec.protocol, game))
            for bot, name in zip(bots, names, strict=True)
        ]
        log = MatchLog(log_path)
        try:
            runner = MatchRunner(
                game,
                scheduled.seed,
                seats,
                match_id=scheduled.key,
                log=log,
                header_extra={
                    "tournament": tournament_id,
                    "cycle": scheduled.cycle,
                    "deal": scheduled.deal,
                    "leg": scheduled.leg,
                },
            )
            record = await runner.run()
        finally:
            log.close()
    except BaseException:
        for bot in bots:  # abandoned mid-match (Ctrl-C): never reuse these
            pool.release(bot, faulted=True)
        raise
    offenders = {f.seat for f in record.faults}
    for seat, bot in zip(SEATS, bots, strict=True):
        pool.release(bot, faulted=seat in offenders)
    return _played(
        scheduled,
        record.result,
        tuple(
            FaultRow(f.seat, scheduled.bot(f.seat), f.kind, f.reason, f.request_id, f.request_type)
            for f in record.faults
        ),
        duration_s=record.duration_s,
        peak_rss=(record.stats[0].peak_rss or None, record.stats[1].peak_rss or None),
        log_path=str(record.log_path) if record.log_path else None,
    )


def _unplayed(game: Game, scheduled: Scheduled, faults: dict[int, BotFault]) -> PlayedMatch:
    """A bot that could not even start forfeits the match before it begins."""
    reason = "; ".join(f"{SEATS[s]} {f.kind}: {f.reason}" for s, f in sorted(faults.items()))
    result = game.new_match(scheduled.seed).forfeit(frozenset(faults), reason)
    rows = tuple(FaultRow(SEATS[s], scheduled.bot(SEATS[s]), f.kind, f.reason) for s, f in sorted(faults.items()))
    return _played(scheduled, result, rows)


def _played(
    scheduled: Scheduled,
    result: Result,
    faults: tuple[FaultRow, ...],
    *,
    duration_s: float = 0.0,
    peak_rss: tuple[int | None, int | None] = (None, None),
    log_path: str | None = None,
) -> PlayedMatch:
    """``scheduled`` as the store records it, once it ended with ``result``."""
    return PlayedMatch(
        key=scheduled.key,
        cycle=scheduled.cycle,
        deal=scheduled.deal,
        leg=scheduled.leg,
        bot_a=scheduled.bot_a,
        bot_b=scheduled.bot_b,
        seed=scheduled.seed,
        points=(float(result.points[0]), float(result.points[1])),
        winner=result.winner,
        forfeit=tuple(result.forfeit),
        reason=result.reason,
        faults=faults,
        duration_s=duration_s,
        peak_rss=peak_rss,
        log_path=log_path,
    )


async def run_tournament(
    plan: Plan,
    store: Store,
    tid: int,
    seed: int,
    *,
    jobs: int,
    reuse: bool = True,
    progress: Progress | None = None,
    handle_signals: bool = False,
    say: Callable[[str], None] = lambda _text: None,
    executor: OpenExecutor | None = None,
) -> Summary:
    """Build every bot, then play the matches of tournament ``tid`` not yet in ``store``.

    With ``executor`` the matches are played by the executor it opens (a
    Dask cluster's workers: :mod:`arena.competition.cluster`), ``jobs`` at once (``0``: as
    many as the workers have threads); results are still recorded here.

    With ``handle_signals``, Ctrl-C (SIGINT) and SIGTERM stop the run cleanly:
    matches in flight are abandoned (their processes killed), finished ones
    stay recorded, and the summary says the run was interrupted.
    """
    progress = progress or QuietProgress()
    for spec in plan.specs.values():
        await ensure_built(spec, log=say)
    schedule = plan.schedule(seed)
    config = plan.config
    log_dir = config.log_dir / f"tournament-{tid}" if config.logs else None
    runner = _Runner(plan, store, tid, schedule, jobs=jobs, progress=progress, log_dir=log_dir)
    summary = Summary(tournament_id=tid, seed=seed, scheduled=len(schedule), already_done=runner.done)
    started = time.monotonic()

    def stderr_path(spec: BotSpec, number: int) -> Path | None:
        return log_dir / "stderr" / f"{spec.name}.{number}.log" if log_dir else None

    progress.start(runner.total, runner.done)
    try:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                if handle_signals:
                    await nursery.start(_stop_on_signal, scope, summary)
                async with open_pool(reuse=reuse, stderr_path=stderr_path) as pool:
                    summary.pool = pool.stats
                    if executor is not None:
                        async with executor(plan, tid) as opened:
                            runner.executor = opened
                            runner.jobs = jobs or opened.slots
                            await runner.run(pool)
                    else:
                        await runner.run(pool)
                nursery.cancel_scope.cancel()
    finally:
        progress.stop()
    summary.played = runner.played
    summary.skipped = runner.skipped
    summary.elapsed_s = time.monotonic() - started
    summary.disqualified = dict(runner.banned)
    return summary


async def _stop_on_signal(
    scope: trio.CancelScope, summary: Summary, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            summary.interrupted = True
            scope.cancel()
            return
