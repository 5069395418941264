"""``arena tournament``: many matches between many bots, fair, concurrent, resumable.

* **Schedule.** Round-robin (every pair of bots) or gauntlet (one challenger
  against the field), repeated ``cycles`` times. With **duplicate deals** (on
  by default for card games) each deal is played twice with the seats swapped,
  and the two matches share a ``deal`` id, so the luck of the cards cancels.
  Every match seed derives from the tournament seed
  (:func:`arena.games.derive_seed`) and is recorded.
* **Concurrency.** ``jobs`` matches at once, in one trio run; bots whose
  manifest says ``reuse = true`` keep their processes between matches
  (:mod:`arena._pool`); a process that faulted is replaced by a fresh one.
* **Results** go to SQLite (:mod:`arena.store`), one transaction per finished
  match under a unique key, so running the same command again resumes: the
  matches already recorded are not played again, even after a ``kill -9``.
* **Faults** cost only the offender (the game's forfeit rules); a bot with more
  than ``max_faults`` faults is disqualified and plays no more matches.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec
import trio

from protocol import SEATS, Limits, Result

from . import config as config_mod
from ._errors import BotFault, ConfigError
from ._pool import BotPool, PoolStats, open_pool
from .bots import BotSpec, resolve
from .build import ensure_built
from .config import TournamentConfig, effective_jobs
from .games import Game, derive_seed, get_game
from .match import MatchRunner, Seat, wire_for
from .matchlog import MatchLog
from .play import new_seed
from .results import disqualifications, render
from .store import BotRow, FaultRow, PlayedMatch, Store


# The schedule ------------------------------------------------------------------
@dataclass(frozen=True)
class Scheduled:
    """One match of the schedule: who sits where, and its seed."""

    key: str
    """Unique in the tournament; also the ``match_id`` the bots are told."""
    cycle: int
    deal: str
    leg: int
    bot_a: str
    bot_b: str
    seed: int

    def bot(self, seat: str) -> str:
        """The bot in ``seat``."""
        return self.bot_a if seat == "A" else self.bot_b


def pairs(names: Sequence[str], fmt: str, challenger: str = "") -> list[tuple[str, str]]:
    """The pairs that meet once per cycle: every pair (round-robin), or the challenger against each other bot.

    Round-robin pairs come in rounds by the circle method, so every bot plays
    once per round and a tournament stopped half-way has been fair to all.
    """
    if fmt == "gauntlet":
        first = challenger or names[0]
        if first not in names:
            raise ConfigError(f"gauntlet challenger {first!r} is not one of the bots: {', '.join(names)}")
        return [(first, other) for other in names if other != first]
    players: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    out: list[tuple[str, str]] = []
    for _ in range(len(players) - 1):
        half = len(players) // 2
        for a, b in zip(players[:half], reversed(players[half:]), strict=True):
            if a is not None and b is not None:
                first, second = (a, b) if names.index(a) < names.index(b) else (b, a)
                out.append((first, second))
        players = [players[0], players[-1], *players[1:-1]]
    return out


def make_schedule(
    names: Sequence[str],
    *,
    seed: int,
    cycles: int,
    duplicate: bool,
    fmt: str = "round-robin",
    challenger: str = "",
) -> list[Scheduled]:
    """Every match of the tournament, in the order they are started.

    A deal's seed is ``derive_seed(seed, "deal", cycle, first, second)``, so
    it depends on the bots' names and not on their order on the command line
    or on how many cycles are asked for. With ``duplicate`` both legs share
    the deal's seed with the seats swapped; without, the seats alternate from
    one cycle to the next.
    """
    out: list[Scheduled] = []
    for cycle in range(1, cycles + 1):
        for first, second in pairs(names, fmt, challenger):
            deal = f"c{cycle}-{first}-vs-{second}"
            deal_seed = derive_seed(seed, "deal", cycle, *sorted((first, second)))
            if duplicate:
                seatings = [(first, second), (second, first)]
            else:
                seatings = [(first, second) if cycle % 2 else (second, first)]
            for leg, (a, b) in enumerate(seatings):
                out.append(Scheduled(f"{deal}-{'ab'[leg]}", cycle, deal, leg, a, b, deal_seed))
    keys = {m.key for m in out}
    if len(keys) != len(out):
        raise ConfigError('two bots\' names make the same match key; rename one (name = "..." in its bot.toml)')
    return out


# Preparing a tournament ---------------------------------------------------------
@dataclass
class Plan:
    """A checked tournament: the game, the bots under unique names, and the schedule's shape."""

    config: TournamentConfig
    game: Game
    specs: dict[str, BotSpec]
    duplicate: bool

    @property
    def names(self) -> list[str]:
        """The bots' names, in the config's order."""
        return list(self.specs)

    def fingerprint(self) -> str:
        """What makes two runs the same tournament (everything but seed, cycles, jobs and paths)."""
        identity = {
            "game": self.game.game_id,
            "params": self.game.params,
            "format": self.config.format,
            "challenger": self.config.challenger,
            "duplicate": self.duplicate,
            "max_faults": self.config.max_faults,
            "limits": msgspec.to_builtins(self.config.limits),
            "bots": sorted((s.name, s.digest, list(s.command)) for s in self.specs.values()),
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]

    def schedule(self, seed: int) -> list[Scheduled]:
        """The schedule for tournament seed ``seed``."""
        c = self.config
        return make_schedule(
            self.names, seed=seed, cycles=c.cycles, duplicate=self.duplicate, fmt=c.format, challenger=c.challenger
        )

    def stored_config(self, scheduled: int) -> dict[str, Any]:
        """The config as the results database keeps it."""
        c = self.config
        return {
            "name": c.name,
            "game": self.game.game_id,
            "params": self.game.params,
            "format": c.format,
            "challenger": c.challenger,
            "cycles": c.cycles,
            "duplicate_deals": self.duplicate,
            "max_faults": c.max_faults,
            "limits": msgspec.to_builtins(c.limits),
            "scheduled": scheduled,
            "points_name": self.game.points_name,
            "source": c.source,
        }


def prepare(config: TournamentConfig) -> Plan:
    """Check ``config``: the game and its parameters, and every bot (named uniquely)."""
    game = get_game(config.game, config.params)
    specs: dict[str, BotSpec] = {}
    for entry in config.bots:
        spec = resolve(entry.text, base=entry.base)
        if entry.protocol:
            spec = spec.speaking(entry.protocol)
        wire_for(spec.protocol, game)  # an unknown protocol, or one of another game, is an error now
        name = entry.name or spec.name
        if not name or "/" in name:
            raise ConfigError(f"bot {entry.text!r}: its name {name!r} must be non-empty and have no '/'")
        unique, n = name, 1
        while unique in specs:
            n += 1
            unique = f"{name}#{n}"
        specs[unique] = spec.with_name(unique) if unique != spec.name else spec
    if len(specs) < 2:
        raise ConfigError("a tournament needs at least two bots")
    duplicate = type(game).duplicate_deals if config.duplicate_deals is None else config.duplicate_deals
    if config.format == "gauntlet":
        pairs(list(specs), "gauntlet", config.challenger)  # checks the challenger's name
    return Plan(config=config, game=game, specs=specs, duplicate=duplicate)


def open_tournament(plan: Plan, store: Store, *, fresh: bool = False) -> tuple[int, int]:
    """The tournament's id and seed in ``store``: the one to resume, or a new one."""
    fingerprint = plan.fingerprint()
    existing = None if fresh else store.find_tournament(fingerprint, plan.config.seed)
    seed = existing.seed if existing else plan.config.seed if plan.config.seed is not None else new_seed()
    scheduled = len(plan.schedule(seed))
    bots = [BotRow(name, s.command, s.source, s.digest, s.reuse) for name, s in plan.specs.items()]
    row = store.create_tournament(
        fingerprint=fingerprint,
        seed=seed,
        name=plan.config.name or f"{plan.game.id} {plan.config.format}",
        game=plan.game.game_id,
        config=plan.stored_config(scheduled),
        bots=bots,
    )
    # A rerun with more cycles extends the tournament; one with fewer plays nothing new and
    # must not shrink the schedule the matches already recorded belong to.
    if existing is None or scheduled >= int(existing.config.get("scheduled", 0)):
        store.update_config(row.id, plan.stored_config(scheduled))
    return row.id, seed


# Progress ----------------------------------------------------------------------
class Progress(Protocol):
    """What a tournament tells the person watching."""

    def start(self, total: int, done: int) -> None: ...
    def advance(self, done: int, total: int, leader: str) -> None: ...
    def stop(self) -> None: ...


class QuietProgress:
    """Says nothing."""

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, done: int, total: int, leader: str) -> None:
        pass

    def stop(self) -> None:
        pass


class PlainProgress:
    """A line now and then, for logs and pipes (not a terminal)."""

    def __init__(self, write: Callable[[str], None] = print, every_s: float = 2.0) -> None:
        self._write = write
        self._every = every_s
        self._t0 = 0.0
        self._first_done = 0
        self._last = 0.0
        self._last_tenth = -1

    def start(self, total: int, done: int) -> None:
        self._t0 = self._last = time.monotonic()
        self._first_done = done

    def advance(self, done: int, total: int, leader: str) -> None:
        now = time.monotonic()
        tenth = 10 * done // max(total, 1)
        if done < total and now - self._last < self._every and tenth == self._last_tenth:
            return
        self._last, self._last_tenth = now, tenth
        played = done - self._first_done
        rate = played / max(now - self._t0, 1e-9)
        eta = (total - done) / rate if rate > 0 else math.inf
        eta_text = "-" if math.isinf(eta) else _clock(eta)
        self._write(
            f"[{done:>{len(str(total))}}/{total}] {rate:.2f} matches/s, ETA {eta_text}, leader: {leader or '-'}"
        )

    def stop(self) -> None:
        pass


class RichProgress:
    """A live bar in the terminal: done/total, rate, ETA and the current leader."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("[bold]tournament"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("leader: {task.fields[leader]}"),
        )
        self._task: Any = None
        self._t0 = 0.0
        self._first_done = 0

    def start(self, total: int, done: int) -> None:
        self._t0 = time.monotonic()
        self._first_done = done
        self._task = self._progress.add_task("tournament", total=total, completed=done, rate="", leader="-")
        self._progress.start()

    def advance(self, done: int, total: int, leader: str) -> None:
        rate = (done - self._first_done) / max(time.monotonic() - self._t0, 1e-9)
        self._progress.update(
            self._task, completed=done, total=total, rate=f"{rate:.2f} matches/s", leader=leader or "-"
        )

    def stop(self) -> None:
        self._progress.stop()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02}"


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
            self.progress.advance(self.done, self.total, self.leader())

    def _log_path(self, scheduled: Scheduled) -> Path | None:
        if self.log_dir is None:
            return None
        return self.log_dir / f"{scheduled.key}.jsonl.gz"  # compressed: arena replay and read_log read it

    async def _play(self, scheduled: Scheduled, pool: BotPool) -> PlayedMatch:
        if self.executor is not None:  # elsewhere, such as on a cluster (arena.cluster)
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


MatchExecutor = Callable[[Scheduled, Path | None], Awaitable[PlayedMatch]]
"""Plays a scheduled match, logged at the given path, elsewhere than in this process's pool (:mod:`arena.cluster`)."""


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
    cluster: str = "",
) -> Summary:
    """Build every bot, then play the matches of tournament ``tid`` not yet in ``store``.

    With ``cluster`` (a Dask scheduler's address) the matches are played on
    the cluster's workers (:mod:`arena.cluster`), ``jobs`` at once (``0``: as
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
                    if cluster:
                        from .cluster import open_executor

                        async with open_executor(cluster, plan, tid, reuse=reuse) as executor:
                            runner.executor = executor
                            runner.jobs = jobs or executor.slots
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


# The command line ------------------------------------------------------------------
def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The tournament config from a TOML file, or from the short form, with command-line overrides."""
    from .cli import _params, limits_from

    target = Path(args.target)
    if args.target.endswith(".toml"):
        if args.bots:
            raise ConfigError("give either a config file or a game and its bots, not both")
        config = config_mod.load(target)
        for key in ("cycles", "seed", "jobs", "max_faults"):
            value = getattr(args, key)
            if value is not None:
                setattr(config, key, value)
        if args.db is not None:
            config.db = Path(args.db)
        if args.no_log:
            config.logs = False
        if args.duplicate is not None:
            config.duplicate_deals = args.duplicate
        return config
    return config_mod.from_command_line(
        args.target,
        args.bots,
        cycles=args.cycles if args.cycles is not None else 1,
        seed=args.seed,
        jobs=args.jobs if args.jobs is not None else 0,
        duplicate_deals=args.duplicate,
        max_faults=args.max_faults if args.max_faults is not None else config_mod.DEFAULT_MAX_FAULTS,
        fmt="gauntlet" if args.gauntlet else "round-robin",
        challenger="",
        limits=limits_from(args),
        params=_params(args.param),
        db=Path(args.db) if args.db is not None else config_mod.DEFAULT_DB,
        log_dir=Path(args.log_dir),
        logs=not args.no_log,
    )


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run (or resume) a tournament and print its leaderboard."""
    config = config_from_args(args)
    config.cluster = args.cluster or config.cluster
    plan = prepare(config)
    jobs = config.jobs if config.cluster else effective_jobs(config.jobs)
    with Store.open(config.db) as store:
        tid, seed = open_tournament(plan, store, fresh=args.fresh)
        schedule_size = len(plan.schedule(seed))
        done = len(store.finished_keys(tid))
        dup = "duplicate deals" if plan.duplicate else "no duplicate deals"
        print(
            f"Tournament {tid} in {config.db}: {plan.game.game_id}, {config.format}, {len(plan.specs)} bots, "
            f"{config.cycles} cycle(s), {dup}; seed {seed}; {schedule_size} matches"
            + (f", {done} already done" if done else "")
            + (f"; on the cluster at {config.cluster}" if config.cluster else f"; {jobs} at once")
        )
        progress: Progress = (
            QuietProgress() if args.quiet else RichProgress() if sys.stdout.isatty() else PlainProgress()
        )
        summary = trio.run(
            lambda: run_tournament(
                plan,
                store,
                tid,
                seed,
                jobs=jobs,
                reuse=not args.no_reuse,
                progress=progress,
                handle_signals=True,
                say=print,
                cluster=config.cluster,
            )
        )
        from .results import board_from_store

        board = board_from_store(store, tid)
    sys.stdout.write(render(board, "table"))
    rate = summary.played / summary.elapsed_s if summary.elapsed_s > 0 else 0.0
    print(
        f"Played {summary.played} matches in {summary.elapsed_s:.1f}s ({rate:.2f}/s); "
        f"processes started: {summary.pool.started}, reused: {summary.pool.reused}"
        + (f"; {summary.skipped} skipped (disqualified bots)" if summary.skipped else "")
    )
    if summary.interrupted:
        print(
            f"Interrupted: {board.matches} of {board.scheduled} matches are recorded; "
            "run the same command again to resume.",
            file=sys.stderr,
        )
        return 130
    print(f"Results: {config.db} (arena results {config.db})")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena tournament`` to the command line."""
    from .cli import _limits_args, number

    parser = sub.add_parser(
        "tournament",
        help="run or resume a tournament (round-robin or gauntlet) and print its leaderboard",
        description=(
            "arena tournament CONFIG.toml, or the short form: arena tournament GAME BOT BOT... "
            "Running the same command again resumes it: finished matches are not replayed."
        ),
    )
    parser.add_argument("target", metavar="CONFIG.toml|GAME", help="a tournament config file, or a game id")
    parser.add_argument("bots", nargs="*", metavar="BOT", help="bots (folders, executables, command lines)")
    parser.add_argument("--cycles", type=int, help="times the whole schedule is played (default 1)")
    parser.add_argument("--seed", type=int, help="tournament seed (default: resume the last one, or random)")
    parser.add_argument("--jobs", "-j", type=number(int), help="matches at once (default: the CPU count)")
    dup = parser.add_mutually_exclusive_group()
    dup.add_argument("--duplicate", dest="duplicate", action="store_true", default=None, help="duplicate deals")
    dup.add_argument("--no-duplicate", dest="duplicate", action="store_false", help="each deal once")
    parser.add_argument(
        "--max-faults",
        type=int,
        help=f"disqualify a bot with more faults than this (default {config_mod.DEFAULT_MAX_FAULTS})",
    )
    parser.add_argument("--gauntlet", action="store_true", help="the first bot plays each other bot (not every pair)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    parser.add_argument("--db", help=f"results database (default {config_mod.DEFAULT_DB})")
    parser.add_argument("--log-dir", default=str(config_mod.DEFAULT_LOG_DIR), help="where match logs go")
    parser.add_argument("--no-log", action="store_true", help="write no match logs")
    parser.add_argument("--no-reuse", action="store_true", help="a fresh process per match, even for reusable bots")
    parser.add_argument("--fresh", action="store_true", help="start a new tournament instead of resuming")
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    parser.add_argument(
        "--cluster", metavar="ADDRESS", help="play the matches on a Dask cluster, such as tcp://scheduler:8786"
    )
    _limits_args(parser)
    parser.set_defaults(handler=cmd_tournament)
