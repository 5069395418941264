"""Playing a competition: admit the bots, then play the pending matches, ``jobs`` at once, each recorded as it ends.

* **Admission.** Before play, every new or changed bot is built and must
  pass the basic handshake of ``arena check`` (start, answer a first request
  legally). One that fails is *not admitted*: the reason (the build's last
  lines, or why it did not start) is recorded and shown under the
  leaderboard, and everyone else plays. It is tried again when its files
  change (a new version), or with ``recheck``.
* **Process modes.** A bot whose manifest says ``reuse = false`` gets a fresh
  process per match; ``reuse = true`` keeps processes between matches
  (:mod:`arena.supervisor._pool`; the bot resets at ``match_start``), never
  giving one process both legs of a duplicate deal; ``reuse = "persistent"``
  keeps **one** process for all its matches, played in schedule order (its
  next match starts only when its previous one has finished), so its results
  do not depend on ``jobs``. **The two legs of a deal never overlap**: a
  deal's second leg starts when its first has ended, whatever ``jobs``, so no
  two processes of a bot are ever in the same deal at once. A process that faulted is replaced by a fresh
  one (a persistent bot's state is then lost). Elsewhere than here (a
  cluster) through a :class:`MatchExecutor`.
* **Results** go to SQLite (:mod:`arena.competition.store`), one transaction
  per finished match under a unique key, so running the same command again
  resumes: the matches already recorded are not played again, even after a
  ``kill -9``. Several arenas may work on one database: each claims a match
  before playing it (and a persistent bot for all its matches), so no match
  is played twice; the claims of an arena that died are taken over.
* **Faults** cost only the offender (the game's forfeit rules); a bot with
  more than ``max_faults`` faults is disqualified and plays no more matches.
* **A game's error** (its own code raised in a match, or asked a seat more
  than its ``max_requests()``) is nobody's fault: that match is not recorded
  (its log holds the game's traceback), the run goes on, and after
  :data:`MAX_GAME_ERRORS` of them no further match starts (a broken game
  would only fail again). ``Summary.game_errors`` says which.
* **Flat over long runs.** Nothing grows with the number of matches played:
  the schedule is made one match at a time, standings and fault counts are
  kept as running totals, and finished matches live only in the database.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import trio

from protocol import SEATS

from .._errors import GAME_ERROR_STATUS, BuildError
from ..bots.spec import BotSpec
from ..checks.bot import handshake
from ..checks.hints import printable
from ..supervisor import STARTS_AHEAD as STARTS_AHEAD
from ..supervisor import BotPool, PoolStats, open_pool
from ..supervisor.build import ensure_built
from ..supervisor.play import new_seed
from .board import disqualification
from .plan import OpenedCompetition, Plan
from .playing import MAX_GAME_ERRORS, play_scheduled
from .progress import Progress, QuietProgress
from .schedule import Entrant, Scheduled
from .store import HEARTBEAT_S, Holder, PlayedMatch, Store, VersionRow

WINDOW_PER_JOB = 4
"""How far ahead of the oldest waiting match the runner looks for one it may start (times ``jobs``)."""


# Running -------------------------------------------------------------------------
@dataclass
class Summary:
    """What one run of a competition did."""

    tournament_id: int
    seed: int
    scheduled: int
    already_done: int
    played: int = 0
    skipped: int = 0
    """Matches not played because a bot in them was disqualified."""
    left_to_others: int = 0
    """Matches left to another arena working on the same database (it claimed them, or their persistent bot)."""
    interrupted: bool = False
    stopped: bool = False
    """The run's ``watch`` ended it before the schedule did (``arena compare``'s test reached its verdict)."""
    elapsed_s: float = 0.0
    pool: PoolStats = field(default_factory=PoolStats)
    disqualified: dict[str, str] = field(default_factory=dict)
    in_flight_at_disqualification: dict[str, int] = field(default_factory=dict)
    """For each bot disqualified in this run: how many of its matches were under way when it was (they finished)."""
    not_admitted: dict[str, str] = field(default_factory=dict)
    game_errors: list[str] = field(default_factory=list)
    """One line for each match the game's own code ended (not recorded): its key, what failed, its log."""
    stopped_by_game: bool = False
    """The run stopped starting matches after :data:`MAX_GAME_ERRORS` game errors."""


class _Runner:
    """Plays the pending matches of one competition with ``jobs`` matches at once."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        competition: OpenedCompetition,
        entrants: list[Entrant],
        *,
        jobs: int,
        progress: Progress,
        log_dir: Path | None,
        arena: int,
    ) -> None:
        self.plan = plan
        self.store = store
        self.tid = competition.id
        self.competition = competition
        self.entrants = entrants
        self.jobs = jobs
        self.progress = progress
        self.log_dir = log_dir
        self.arena = arena
        self.finished = store.finished_keys(self.tid)
        self.total = plan.count(competition, entrants)
        self.done = sum(1 for m in self.schedule() if m.key in self.finished)
        self.points = {e.name: 0.0 for e in entrants}
        self.points.update({k: v for k, v in store.points(self.tid).items() if k in self.points})
        self.faults: dict[str, Counter[str]] = store.fault_counts(self.tid)
        self.banned = {
            name: why
            for name, kinds in self.faults.items()
            if name in self.points and (why := disqualification(kinds, plan.config.max_faults))
        }
        self.foreign: dict[str, Holder] = {}
        """Persistent bots another arena plays (their matches are left to it)."""
        self.skipped = 0
        self.played = 0
        self.left = 0
        self.executor: MatchExecutor | None = None
        self.forget_deal: Callable[[int], None] = lambda deal: None
        """Told each deal the processes may forget, besides the local pool (the executor's workers: their pools)."""
        self.on_ban: Callable[[str], None] = lambda name: None
        """Told each bot as it is disqualified (the executor: its matches waiting their turn are not played)."""
        self.watch: Callable[[PlayedMatch], bool] | None = None
        """Told each match this run records; returning True ends the run (matches in flight are abandoned)."""
        self.stopped = False
        self.game_errors: list[str] = []
        self.say: Callable[[str], None] = lambda line: None
        self.in_flight_at_ban: dict[str, int] = {}
        """For each bot disqualified in this run: how many of its matches were under way when it was."""
        self._playing: Counter[str] = Counter()
        """Matches under way of each bot."""
        self._busy: set[str] = set()
        self._running = 0
        self._wake = trio.Event()
        self._window: deque[Scheduled] = deque()
        self._scope: trio.CancelScope | None = None
        self._on_deal: dict[int, int] = {}
        """Matches in flight on each deal."""
        self._dealing: set[str] = set()
        """The deals (by id) of the matches in flight: a deal's next match starts when its last has ended."""
        self._closed: set[int] = set()
        """Deals whose last match has ended (or will not be played here), while others on them are in flight."""

    def schedule(self) -> Iterator[Scheduled]:
        """The whole schedule of the admitted field, made one match at a time."""
        return self.plan.schedule(self.competition, self.entrants)

    def _count(self, match: PlayedMatch) -> None:
        for seat_index, seat in enumerate(SEATS):
            name = match.bot(seat)
            if name in self.points:
                self.points[name] += match.points[seat_index]
        for fault in match.faults:
            kinds = self.faults.setdefault(fault.bot, Counter())
            kinds[fault.kind] += 1
            why = disqualification(kinds, self.plan.config.max_faults)
            if why and fault.bot not in self.banned:
                # None of its matches starts from now (_take); those under way (this one aside) finish.
                under_way = self._playing[fault.bot] - 1
                self.in_flight_at_ban[fault.bot] = under_way
                self.say(
                    f"{fault.bot} is disqualified, {why}; none of its matches starts from now"
                    + (f"; {under_way} already under way will finish" if under_way else "")
                )
                self.on_ban(fault.bot)
            if why:
                self.banned[fault.bot] = why

    def leader(self) -> str:
        if not any(self.points.values()):
            return ""
        name = max(self.points, key=lambda n: (n not in self.banned, self.points[n]))
        return f"{name} ({self.points[name]:g} {self.plan.game.points_name})"

    def claim_persistent_bots(self, say: Callable[[str], None]) -> None:
        """Claim each persistent bot for this arena, or leave its matches to the arena that has it."""
        for entrant in self.entrants:
            if entrant.persistent and entrant.version_id is not None:
                held = self.store.claim_bot(self.tid, entrant.version_id, self.arena)
                if isinstance(held, Holder):
                    self.foreign[entrant.name] = held
                    say(
                        f"{entrant.name} keeps its state across matches and is played by {held}:"
                        " its matches are left to it"
                    )

    def _pending(self, pool: BotPool) -> Iterator[Scheduled]:
        for match in self.schedule():
            if match.key not in self.finished:
                yield match
            elif match.last_of_deal:  # recorded by an earlier run: the deal may be forgotten after this run's
                self._forget(match, pool)

    async def run(self, pool: BotPool) -> None:
        pending = self._pending(pool)
        window = self._window
        size = max(8, WINDOW_PER_JOB * self.jobs)
        async with trio.open_nursery() as nursery:
            self._scope = nursery.cancel_scope
            while True:
                while len(window) < size and (nxt := next(pending, None)) is not None:
                    window.append(nxt)
                while self._running < self.jobs and (match := self._take(window, pool)) is not None:
                    self._running += 1
                    self._playing.update((match.bot_a, match.bot_b))
                    self._busy.update(match.persistent)
                    self._on_deal[match.seed] = self._on_deal.get(match.seed, 0) + 1
                    self._dealing.add(match.deal)
                    nursery.start_soon(self._one, match, pool)
                if not window and self._running == 0:
                    break
                await self._wake.wait()
                self._wake = trio.Event()

    def _take(self, window: deque[Scheduled], pool: BotPool) -> Scheduled | None:
        """The first match of ``window`` that may start now (dropping those that will not be played here)."""
        waiting: set[str] = set(self._busy)
        for match in list(window):
            if match.bot_a in self.banned or match.bot_b in self.banned:
                window.remove(match)
                self.skipped += 1
                self._drop(match, pool)
                continue
            if self.foreign.keys() & {match.bot_a, match.bot_b}:
                window.remove(match)
                self.left += 1
                self._drop(match, pool)
                continue
            if waiting.intersection(match.persistent):
                waiting.update(match.persistent)  # a persistent bot plays its matches in schedule order
                continue
            if match.deal in self._dealing:
                # The other leg of its deal is in play. Two processes of one bot, one in each leg at once, could
                # tell each other the cards (anything they share is a channel): the legs are played one after
                # the other, as a persistent bot's matches are.
                continue
            claim = self.store.claim_match(self.tid, match.key, self.arena)
            if claim is False:  # another arena recorded it meanwhile
                window.remove(match)
                self.done += 1
                self._forget(match, pool)
                continue
            if claim is not True:  # another arena is playing it
                window.remove(match)
                self.left += 1
                self._drop(match, pool)
                continue
            window.remove(match)
            return match
        return None

    def _drop(self, match: Scheduled, pool: BotPool) -> None:
        self.total -= 1
        self._forget(match, pool)
        self.progress.advance(self.done, self.total, self.leader())

    def _forget(self, match: Scheduled, pool: BotPool) -> None:
        """``match`` is over, or will not be played here; when all matches on its deal are, processes may forget it.

        Not when the deal's last match ends, but when every match on the deal
        has: legs finish in any order, and a leg still starting may yet be
        handed a process that a finished leg of its deal released.
        """
        if self.plan.deals:  # a deals file deals its seeds to many pairings: never forgotten
            return
        seed = match.seed
        if match.last_of_deal:
            self._closed.add(seed)
        if seed in self._closed and not self._on_deal.get(seed):
            self._closed.discard(seed)
            self._on_deal.pop(seed, None)
            pool.forget(seed)
            self.forget_deal(seed)

    async def _one(self, scheduled: Scheduled, pool: BotPool) -> None:
        try:
            match = await self._play(scheduled, pool)
            if match is None:  # not played: a bot of it was disqualified while it waited its turn (elsewhere)
                self.skipped += 1
                self.total -= 1
                self.progress.advance(self.done, self.total, self.leader())
                return
            if match.game_error:
                self._game_error(match)
                return
            recorded = self.store.record_match(self.tid, match, arena=self.arena)
            if recorded:
                self._count(match)
            self.done += 1
            self.played += 1
            self.progress.finished(match, self.done, self.total)
            self.progress.advance(self.done, self.total, self.leader())
            if recorded and self.watch is not None and self.watch(match) and self._scope is not None:
                self.stopped = True  # the matches in flight are abandoned, as on Ctrl-C
                self._scope.cancel()
        finally:
            for name in (scheduled.bot_a, scheduled.bot_b):
                if name in self.banned:  # disqualified: the processes started ahead for its matches, and its idle
                    pool.drop(name)  # ones (this match's, once released), stop now, not at the run's end
            self._playing.subtract((scheduled.bot_a, scheduled.bot_b))
            self._busy.difference_update(scheduled.persistent)
            self._dealing.discard(scheduled.deal)
            self._on_deal[scheduled.seed] -= 1
            self._forget(scheduled, pool)
            self._running -= 1
            self._wake.set()

    def _game_error(self, match: PlayedMatch) -> None:
        """The game's own code ended ``match``: not recorded, said, and the run stops after too many."""
        log = f"; log: {match.log_path}" if match.log_path else ""
        self.game_errors.append(f"{match.key} (seed {match.seed}): {match.game_error}{log}")
        self.say(f"game error in match {match.key}, not recorded (the game's own code failed): {match.game_error}{log}")
        self.total -= 1
        self.progress.advance(self.done, self.total, self.leader())
        if len(self.game_errors) >= MAX_GAME_ERRORS and self._scope is not None and not self.stopped:
            self.say(f"{len(self.game_errors)} game errors: no further match starts (fix the game, then resume)")
            self.stopped = True
            self._scope.cancel()

    def _log_path(self, scheduled: Scheduled) -> Path | None:
        if self.log_dir is None:
            return None
        return self.log_dir / f"{scheduled.key}.jsonl.gz"  # compressed: arena replay and read_log read it

    async def _play(self, scheduled: Scheduled, pool: BotPool) -> PlayedMatch | None:
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
            seated=lambda: self._prepare_next(pool),
        )

    def _prepare_next(self, pool: BotPool) -> None:
        """Start the processes of the matches likely to come next while this one plays (:meth:`BotPool.prepare_for`:
        those of the next :data:`STARTS_AHEAD`)."""
        out = self.banned.keys() | self.foreign.keys()
        coming = [m for m in self._window if not ({m.bot_a, m.bot_b} & out)][:STARTS_AHEAD]
        pool.prepare_for(
            (self.plan.specs[name] for m in coming for name in (m.bot_a, m.bot_b)), self.plan.config.limits
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

    async def __call__(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch | None:
        """Play ``scheduled``, logged at ``log_path``, and return it as the store records it.

        ``None``: it was not played, since a bot of it was disqualified before it began.
        """
        ...


OpenExecutor = Callable[[Plan, int], AbstractAsyncContextManager[MatchExecutor]]
"""Opens a :class:`MatchExecutor` for a tournament (its plan and id); given to :func:`run_tournament`."""


async def admit(
    plan: Plan,
    store: Store,
    competition: OpenedCompetition,
    *,
    log_dir: Path,
    jobs: int,
    say: Callable[[str], None],
    recheck: bool = False,
) -> dict[str, str]:
    """Build every bot of the field and admit the new ones that pass the handshake; the bots not admitted, with why.

    A version already admitted is only built (an up-to-date build is a
    no-op); a new one is built and must start and answer a first request
    legally; one not admitted earlier is left out unless ``recheck``.
    """
    limiter = trio.CapacityLimiter(max(1, jobs))
    refused: dict[str, str] = {}

    async def one(version: VersionRow) -> None:
        spec = plan.specs[version.name]
        if version.admission == "not_admitted" and not recheck:
            refused[version.name] = version.reason
            say(f"{version.name} is not admitted (unchanged since: {version.reason.splitlines()[0]})")
            return
        async with limiter:
            others = [name for name in plan.specs if name != version.name]
            reason = await _admission(plan, spec, version, log_dir / spec.name, say, others)
        if reason:
            refused[version.name] = reason
            if version.admission != "not_admitted" or version.reason != reason:
                store.set_admission(version.id, "not_admitted", reason)
                store.log_change(
                    competition.id, "not_admitted", f"not admitted: {version.name}: {reason}", version.name
                )
            say(f"not admitted: {version.name}: {reason}")
        elif version.admission != "admitted":
            store.set_admission(version.id, "admitted")
            if version.admission == "not_admitted":
                store.log_change(competition.id, "admitted", f"{version.name} is admitted now", version.name)

    async with trio.open_nursery() as nursery:
        for version in competition.field:
            nursery.start_soon(one, version)
    competition.field = store.versions(competition.id, current=True)
    return refused


async def _admission(
    plan: Plan, spec: BotSpec, version: VersionRow, log_dir: Path, say: Callable[[str], None], others: list[str]
) -> str:
    """Why ``version`` cannot play (its build failed, it did not start or answer), or ``""``.

    Its handshake names one of ``others`` (the field's other bots) as its opponent.
    """
    try:
        await ensure_built(spec, log=say)
    except BuildError as exc:
        return str(exc)
    if version.admission == "admitted":
        return ""
    log_dir.mkdir(parents=True, exist_ok=True)
    # A random deal: one that follows from the version's id would tell the bot that this is the handshake.
    check = await handshake(spec, plan.game, plan.config.limits, log_dir, seed=new_seed(), opponent_names=others)
    if check.passed:
        return ""
    return "\n".join([f"did not pass the handshake: {check.detail}", *check.where])


# The run -------------------------------------------------------------------------------
async def run_tournament(
    plan: Plan,
    store: Store,
    competition: OpenedCompetition,
    *,
    jobs: int,
    reuse: bool = True,
    progress: Progress | None = None,
    handle_signals: bool = False,
    say: Callable[[str], None] = lambda _text: None,
    executor: OpenExecutor | None = None,
    recheck: bool = False,
    watch: Callable[[PlayedMatch], bool] | None = None,
    refused: dict[str, str] | None = None,
    processes: int = 1,
    fit_processes: bool = False,
    pin: bool = True,
) -> Summary:
    """Admit the field's bots, then play the matches of ``competition`` not yet in ``store``.

    With ``processes`` over 1 (and ``jobs`` over 1), the ``jobs`` matches at
    once are played by that many supervisor processes, each a share of them
    (:class:`~arena.competition.worker.Supervisors`), this one among them;
    the schedule, the results, the progress and the fault counts stay in this
    process. With ``fit_processes``, a run too short to repay the start of
    another process gets fewer (see :func:`processes_for`). With ``pin``,
    when there is one process per CPU this one may use, each keeps to a CPU
    of its own with its bots (:mod:`~arena.competition.cpus`).
    With ``executor`` the matches are played by the executor it opens (a
    Dask cluster's workers: :mod:`arena.competition.cluster`), ``jobs`` at once (``0``: as
    many as the workers have threads); results are still recorded here.

    With ``handle_signals``, Ctrl-C (SIGINT) and SIGTERM stop the run cleanly:
    matches in flight are abandoned (their processes killed), finished ones
    stay recorded, and the summary says the run was interrupted.

    ``watch`` is told every match this run records, as it is recorded; when
    it returns True the run ends there, abandoning the matches in flight
    (``arena compare``'s test reached its verdict; ``Summary.stopped``).
    A caller that has run :func:`admit` itself passes what it ``refused``
    (the bots not admitted), and admission is not run again.
    """
    progress = progress or QuietProgress()
    config = plan.config
    log_dir = config.log_dir / f"tournament-{competition.id}" if config.logs else None
    started = time.monotonic()
    spawned = _spawn_ahead(
        plan, store, competition, processes if jobs > 1 else 1, fit=fit_processes, reuse=reuse, executor=executor
    )
    try:
        return await _run(
            plan, store, competition, jobs=jobs, reuse=reuse, progress=progress, handle_signals=handle_signals,
            say=say, executor=executor, recheck=recheck, watch=watch, refused=refused, processes=processes,
            fit_processes=fit_processes, log_dir=log_dir, started=started, spawned=spawned, pin=pin,
        )  # fmt: skip
    finally:
        if spawned:
            from .worker import stop_spawned

            stop_spawned(spawned)


def _spawn_ahead(
    plan: Plan,
    store: Store,
    competition: OpenedCompetition,
    processes: int,
    *,
    fit: bool,
    reuse: bool,
    executor: OpenExecutor | None,
) -> list[subprocess.Popen[bytes]]:
    """The match workers a run over several processes will want, started now: they import the arena while the bots
    are admitted. As many as the whole field's matches left repay (:func:`processes_for`); none for a cluster."""
    if processes < 2 or executor is not None:
        return []
    left = sum(plan.matches_per_bot(competition.cycles).values()) // 2 - len(store.finished_keys(competition.id))
    reused = reuse and all(spec.reuse for spec in plan.specs.values())
    count = _fitted(processes, left, reused) if fit else processes
    if count < 2:
        return []
    from .worker import spawn_worker  # (only when matches go to other processes)

    return [spawn_worker(session=True) for _ in range(count - 1)]


async def _run(
    plan: Plan,
    store: Store,
    competition: OpenedCompetition,
    *,
    jobs: int,
    reuse: bool,
    progress: Progress,
    handle_signals: bool,
    say: Callable[[str], None],
    executor: OpenExecutor | None,
    recheck: bool,
    watch: Callable[[PlayedMatch], bool] | None,
    refused: dict[str, str] | None,
    processes: int,
    fit_processes: bool,
    log_dir: Path | None,
    started: float,
    spawned: list[subprocess.Popen[bytes]],
    pin: bool,
) -> Summary:
    if refused is None:
        with tempfile.TemporaryDirectory(prefix="arena-admission-") as scratch:
            refused = await admit(
                plan,
                store,
                competition,
                log_dir=(log_dir / "admission") if log_dir else Path(scratch),
                jobs=jobs or 1,
                say=say,
                recheck=recheck,
            )
    entrants = [competition.entrant(v) for v in competition.admitted]
    names = [e.name for e in entrants]
    playable = plan.playable(names)
    arena = store.register_arena()
    try:
        runner = _Runner(
            plan,
            store,
            competition,
            entrants if playable else [],
            jobs=max(1, jobs),
            progress=progress,
            log_dir=log_dir,
            arena=arena,
        )
        runner.watch = watch
        runner.say = say
        store.update_config(
            competition.id,
            plan.stored_config(cycles=competition.cycles, scheduled=runner.total, scheme=competition.scheme),
        )
        summary = Summary(
            tournament_id=competition.id,
            seed=competition.seed,
            scheduled=runner.total,
            already_done=runner.done,
            not_admitted=refused,
        )
        if not playable:
            say(
                "nothing to play: fewer than two admitted bots"
                + (" (or the challenger is not admitted)" if entrants else "")
            )
        elif runner.done == runner.total:
            say(f"nothing new to play: all {runner.total} matches are recorded")
        elif runner.done:
            say(f"resuming: {runner.done} of {runner.total} recorded")
        runner.claim_persistent_bots(say)

        def stderr_path(spec: BotSpec, number: int) -> Path | None:
            return log_dir / "stderr" / f"{spec.name}.{number}.log" if log_dir else None

        progress.start(runner.total, runner.done)
        try:
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as nursery:
                    if handle_signals:
                        await nursery.start(_stop_on_signal, scope, summary)
                    nursery.start_soon(_heartbeat, store, arena)
                    async with open_pool(reuse=reuse, stderr_path=stderr_path) as pool:
                        summary.pool = pool.stats
                        if executor is not None:
                            async with executor(plan, competition.id) as opened:
                                runner.executor = opened
                                runner.jobs = jobs or opened.slots
                                await runner.run(pool)
                        elif (
                            (count := processes_for(processes, runner, reuse=reuse) if fit_processes else processes) > 1
                            and runner.jobs > 1
                            and runner.done < runner.total
                        ):
                            summary.pool = await _run_in_processes(
                                runner, pool, count, reuse=reuse, say=say, spawned=spawned, pin=pin
                            )
                        else:
                            await runner.run(pool)
                    nursery.cancel_scope.cancel()
        finally:
            progress.stop()
    finally:
        store.unregister_arena(arena)
    summary.played = runner.played
    summary.skipped = runner.skipped
    summary.stopped = runner.stopped
    summary.game_errors = list(runner.game_errors)
    summary.stopped_by_game = len(runner.game_errors) >= MAX_GAME_ERRORS
    summary.left_to_others = runner.left
    summary.elapsed_s = time.monotonic() - started
    summary.disqualified = dict(runner.banned)
    summary.in_flight_at_disqualification = dict(runner.in_flight_at_ban)
    return summary


def game_error_status(summary: Summary) -> int:
    """Say the matches the game's own code ended, on stderr; the exit status: 0, or GAME_ERROR_STATUS when any."""
    if not summary.game_errors:
        return 0
    stopped = "; the run stopped starting matches" if summary.stopped_by_game else ""
    print(
        f"arena: {len(summary.game_errors)} game error(s): the game's own code failed, those matches are not"
        f" recorded{stopped} (each log holds the game's traceback; arena replay --verify LOG reproduces it):",
        file=sys.stderr,
    )
    for line in summary.game_errors:
        print(f"  {printable(line)}", file=sys.stderr)
    return GAME_ERROR_STATUS


async def _run_in_processes(
    runner: _Runner,
    pool: BotPool,
    processes: int,
    *,
    reuse: bool,
    say: Callable[[str], None],
    spawned: list[subprocess.Popen[bytes]],
    pin: bool,
) -> PoolStats:
    """Play ``runner``'s matches in ``processes`` supervisor processes, this one among them; what their pools did.

    This process plays its share from the first match, while the others
    start (see :func:`~arena.competition.worker.open_supervisors`): a run
    too short to repay a worker's start is played here as at ``--processes 1``.
    """
    from .worker import open_supervisors  # (only when matches go to other processes: it starts them)

    config = runner.plan.config
    here = _LocalTurns(runner, pool)
    async with open_supervisors(
        config.game, config.params, config.limits, runner.plan.specs, tournament_id=runner.tid, jobs=runner.jobs,
        processes=processes, reuse=reuse, stderr_dir=runner.log_dir / "stderr" if runner.log_dir else None, say=say,
        local=here.play, spawned=spawned, pin=pin,
    ) as supervisors:  # fmt: skip
        here.turns.total_tokens = max(1, supervisors.local_share)
        runner.executor = supervisors
        runner.jobs = supervisors.slots
        runner.forget_deal = supervisors.forget
        runner.on_ban = supervisors.drop
        await runner.run(pool)
        pool.close()  # this process's bots stop while the workers stop theirs
        total = await supervisors.pool_stats()
    for name, count in dataclasses.asdict(pool.stats).items():
        setattr(total, name, getattr(total, name) + count)
    return total


class _LocalTurns:
    """The matches the tournament's own process plays beside its match workers: its share at once, more waiting.

    The waiting matches' processes are started while the one before plays (as
    :meth:`_Runner._prepare_next` does in one process); a match whose bot is
    disqualified while it waits is not played (as a worker withdraws it).
    """

    def __init__(self, runner: _Runner, pool: BotPool) -> None:
        self.runner = runner
        self.pool = pool
        self.turns = trio.CapacityLimiter(1)
        self.waiting: deque[Scheduled] = deque()

    async def play(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch | None:
        runner = self.runner
        self.waiting.append(scheduled)
        try:
            async with self.turns:
                self.waiting.remove(scheduled)
                if runner.banned.keys() & {scheduled.bot_a, scheduled.bot_b}:
                    return None
                return await play_scheduled(
                    runner.plan.game, runner.plan.specs, runner.plan.config.limits, scheduled, self.pool,
                    log_path=log_path, tournament_id=runner.tid, seated=self._start_next,
                )  # fmt: skip
        finally:
            if scheduled in self.waiting:
                self.waiting.remove(scheduled)

    def _start_next(self) -> None:
        plan, banned = self.runner.plan, self.runner.banned.keys()
        coming = [m for m in self.waiting if not ({m.bot_a, m.bot_b} & banned)][:STARTS_AHEAD]
        self.pool.prepare_for((plan.specs[name] for m in coming for name in (m.bot_a, m.bot_b)), plan.config.limits)


MATCHES_TO_REPAY_A_PROCESS = 250
"""Matches left to play, per supervisor process past the first, below which a run starts no more of them
(:func:`processes_for`), when every bot reuses its processes: a match worker's start (Python importing the arena,
a few tenths of a second of CPU) and its bots' starts cost more than a short run gains from a second CPU.
Measured (five Python ports, load 6-9): a second process added 1.3 s of CPU to a 200-match run of 3 s, 1.1 s to
one of 1,000 (9.5 s); ``bench_speed.py --whole-runs`` on an idle machine is the way to tune it."""
MATCHES_TO_REPAY_A_PROCESS_FRESH = 8
"""The same where some bot starts a fresh process for every match (each start costs tens of milliseconds)."""


def processes_for(requested: int, runner: _Runner, *, reuse: bool) -> int:
    """How many of ``requested`` supervisor processes the matches left to ``runner`` repay (at least one)."""
    reused = reuse and all(runner.plan.specs[entrant.name].reuse for entrant in runner.entrants)
    return _fitted(requested, runner.total - runner.done, reused)


def _fitted(requested: int, left: int, reused: bool) -> int:
    per = MATCHES_TO_REPAY_A_PROCESS if reused else MATCHES_TO_REPAY_A_PROCESS_FRESH
    return max(1, min(requested, 1 + left // per))


def supervisor_processes(requested: int | None, jobs: int) -> int:
    """How many supervisor processes play ``jobs`` matches at once: ``requested``, or one per CPU; never over ``jobs``.

    A supervisor is one thread (a trio loop): more of them than the CPUs
    this process may run on only add memory and contention, while more
    matches than CPUs still help when the bots think slowly (one loop waits
    on many bots at once for little).
    """
    if requested is None:
        try:
            requested = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            requested = os.cpu_count() or 1
    return max(1, min(jobs, requested))


async def _heartbeat(store: Store, arena: int) -> None:
    while True:
        await trio.sleep(HEARTBEAT_S)
        store.heartbeat(arena)


async def _stop_on_signal(
    scope: trio.CancelScope, summary: Summary, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            summary.interrupted = True
            scope.cancel()
            return
