"""Every speed goal of the supervisor in one run, each as a ratio against a baseline measured in the same run.

The machine this runs on may be busy (other test runs, other engineers), so
no figure stands alone: each is printed beside the load average at the time
it was taken, and each goal is a ratio of two figures taken moments apart
(the arena's path against the barest way of doing the same thing). The
arena's own CPU time per match is printed too: it depends far less on the
load than wall-clock rates do.

1. **Reused processes.** A round-robin of the five ported RPS Poker bots
   (``sample_bots/rps-poker/*-py``, duplicate deals, match logs off), every
   bot reusing its process, at ``--jobs 1`` and ``--jobs 2``, against the
   *in-process reference*: the same game engine calling the same bots'
   ``Bot`` classes in this process, every message encoded and decoded as on
   the wire (the arena's encoder, the bot's ``json.loads``/``json.dumps``,
   the arena's answer decoder). Goal: 0.5x at ``--jobs 1``; ``--jobs 2``
   faster than ``--jobs 1``.
2. **Fresh processes.** The same round-robin with a fresh process per match,
   and one start measured alone: a sandboxed start of a bot (start, answer one
   request, exit) against a bare start of the same command, with
   bubblewrap's own cost (``bwrap ... true`` against ``true``) shown.
   Goal: 1.5x.
3. **One request.** The arena's path (trio, bounded reads, the answer
   decoder) against a bare blocking pipe ping-pong with the same bot.
   Goal: 1.1x.
4. **Supervisor memory.** The arena's resident memory with 64 matches of a
   light C bot in flight, per match; and over a long run of matches, the
   resident memory after the first tenth against the end. Goal: under 1 MiB
   per concurrent match; flat.
5. **arena play.** From the command to the first request a C bot reads,
   against Python starting and importing trio (the floor of a trio program);
   ``arena --version`` and ``arena --help`` against the same floor.
   Goals: 1.25x; under half.

The table numbers each goal as issue 31's items: 1 every core (``--jobs``),
2 the arena's CPU per match (its own CPU time against the in-process
reference's, the bots' not counted: goal 1x) and one request, 3 starts,
4 ``arena play`` and the command line, 5 memory.

``--profile`` adds where the arena's CPU goes in a reused ``--jobs 1`` run
(cProfile on CPU time, grouped by area), the figures behind any goal not met.

Usage: ``python benchmarks/bench_speed.py [--cycles N] [--quick] [--profile] [--every-core]``
(``--quick``: fewer repetitions, for a look; the figures in docs/performance.md are a full run).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import importlib.util
import itertools
import json
import math
import os
import platform
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import psutil
import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import protocol  # noqa: E402
from arena.bots.spec import resolve  # noqa: E402
from arena.competition import plan as _plan  # noqa: E402
from arena.competition import runner  # noqa: E402
from arena.competition.config import BotEntry, TournamentConfig  # noqa: E402
from arena.competition.runner import admit, run_tournament  # noqa: E402
from arena.competition.store import Store  # noqa: E402
from arena.competition.worker import WORKER_MAIN  # noqa: E402
from arena.games import derive_seed, get_game  # noqa: E402
from arena.sandbox import summary as sandbox_summary  # noqa: E402
from arena.sandbox._programs import find_program  # noqa: E402
from arena.supervisor._process import BotProcess, OutputWatch, open_bot  # noqa: E402
from arena.supervisor.play import QUIT_LINE, spawn_options  # noqa: E402
from arena.supervisor.wires import wire_for  # noqa: E402
from protocol import SEATS, Limits, MatchEnd, MatchStart  # noqa: E402
from protocol.rps_poker import DraftPick  # noqa: E402

RPS = REPO / "sample_bots" / "rps-poker"
FIVE = ["basic-odds-py", "minimal-valid-py", "obvious-strats-py", "simple-py", "tsh-py"]
PING_BOT = "simple-py"
GAME = "rps-poker"


def load() -> float:
    """The one-minute load average now."""
    return os.getloadavg()[0]


def cpu_all() -> float:
    """CPU seconds this process and every descendant it has reaped (whose own reaped descendants count in it) used."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return cpu_self() + usage.ru_utime + usage.ru_stime


def cpu_self() -> float:
    """CPU seconds this process (all its threads) has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# The in-process reference ---------------------------------------------------------------------


def _load_port(name: str) -> ModuleType:
    path = RPS / name / "bot.py"
    spec = importlib.util.spec_from_file_location(f"_bench_port_{name.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _InProcessBot:
    """A port's ``Bot`` object behind the very dispatch of its ``serve`` loop, one line at a time."""

    def __init__(self, module: ModuleType) -> None:
        self.bot = module.Bot()

    def feed(self, line: bytes) -> bytes | None:
        """What the bot's process would write back for ``line`` (a request's answer, or nothing)."""
        message = json.loads(line)
        kind = message["type"]
        bot = self.bot
        if kind == "draft_pick":
            return self._answer(message["id"], bot.draft_pick(message["cards"]))
        if kind == "draft_receive":
            bot.draft_receive(message["card"])
        elif kind == "main_play":
            return self._answer(message["id"], bot.main_play(message["hand"], message["base"]))
        elif kind == "main_result":
            bot.main_postprocess(message["opponent_card"])
        return None

    @staticmethod
    def _answer(request_id: int, action: int) -> bytes:
        return (json.dumps({"id": request_id, "action": action}) + "\n").encode()


def round_robin(names: list[str], cycles: int) -> list[tuple[str, str, int]]:
    """(bot A, bot B, seed) of a round-robin with duplicate deals, as a tournament plays it."""
    matches = []
    for cycle in range(cycles):
        for a, b in itertools.combinations(names, 2):
            seed = derive_seed(1, "deal", cycle, a, b)
            matches += [(a, b, seed), (b, a, seed)]
    return matches


def inprocess_rate(names: list[str], cycles: int, repeat: int) -> float:
    """Matches per second of the engine driving the ports' ``Bot`` objects in this process (best of ``repeat``)."""
    schedule = round_robin(names, cycles)
    return max(len(schedule) / _inprocess_run(names, schedule, time.perf_counter) for _ in range(repeat))


def inprocess_cpu_ms(names: list[str], cycles: int, repeat: int) -> float:
    """CPU milliseconds per match of the same in-process reference (the least of ``repeat``): its whole cost, engine
    and bots together, in the one process (a busy machine changes it far less than the rate)."""
    schedule = round_robin(names, cycles)
    return min(_inprocess_run(names, schedule, time.process_time) for _ in range(repeat)) / len(schedule) * 1e3


Asked = dict[int, tuple[str, bytes]]
"""A step's requests: by seat, the bot asked and the request's line."""


def _play_schedule(
    names: list[str],
    schedule: list[tuple[str, str, int]],
    tell: Callable[[str, bytes], None],
    ask: Callable[[Asked], dict[int, bytes]],
) -> None:
    """Play ``schedule`` with the game engine and codec alone: ``tell`` a bot a line (a notice, its match's start
    and end), ``ask`` bots a step's requests and get their answers' lines. The in-process reference and the least
    relay are this loop, around bots in this process or in processes of their own."""
    game = get_game(GAME)
    limits = Limits()
    wires = {name: wire_for("json", game) for name in names}
    next_id = dict.fromkeys(names, 1)
    for a, b, seed in schedule:
        seats = (a, b)
        state = game.new_match(seed)
        for index, name in enumerate(seats):
            start = MatchStart(
                match_id=f"{seed}", game=game.game_id, seat=SEATS[index], params=game.params,
                limits=limits, opponent=seats[1 - index],
            )  # fmt: skip
            tell(name, protocol.encode(start))
        for seat, notice in state.start().notices:
            tell(seats[seat], protocol.encode(notice))
        while not state.is_over:
            requests = {}
            for seat, request in sorted(state.requests().items()):
                name = seats[seat]
                requests[seat] = msgspec.structs.replace(request, id=next_id[name])
                next_id[name] += 1
            lines = ask({seat: (seats[seat], protocol.encode(request)) for seat, request in requests.items()})
            actions = {}
            for seat, request in requests.items():
                answer = wires[seats[seat]].decode(lines[seat].rstrip(b"\n"), request)
                actions[seat] = state.check(seat, answer.action)
            for seat, notice in state.apply(actions).notices:
                tell(seats[seat], protocol.encode(notice))
        result = state.result()
        for index, name in enumerate(seats):
            tell(name, protocol.encode(MatchEnd(match_id=f"{seed}", seat=SEATS[index], result=result)))


def _inprocess_run(names: list[str], schedule: list[tuple[str, str, int]], clock: Callable[[], float]) -> float:
    """Play ``schedule`` in process (fresh ``Bot`` objects, each reused over its matches); the ``clock`` it took."""
    bots = {name: _InProcessBot(_load_port(name)) for name in names}  # one object per bot, reused

    def ask(asked: Asked) -> dict[int, bytes]:
        answers = {}
        for seat, (name, line) in asked.items():
            answer = bots[name].feed(line)
            assert answer is not None
            answers[seat] = answer
        return answers

    def tell(name: str, line: bytes) -> None:
        bots[name].feed(line)  # (a notice: no answer)

    started = clock()
    _play_schedule(names, schedule, tell, ask)
    return clock() - started


def relay_floor_cpu_ms(names: list[str], cycles: int, repeat: int) -> float:
    """CPU milliseconds per match of the least any Python supervisor of bot processes does: the same matches, the
    same engine and codec, each bot a bare process (no jail) written to with one ``os.write`` a request (its notices
    in the same write) and read with one blocking ``readline``; no clocks, limits, log or faults (the least of
    ``repeat``; this process's CPU only, as the arena's is counted)."""
    schedule = round_robin(names, cycles)
    return min(_relay_floor_run(names, schedule)[0] for _ in range(repeat)) / len(schedule) * 1e3


def relay_floor_rate(names: list[str], cycles: int, repeat: int) -> float:
    """Matches per second of the same least relay (the best of ``repeat``): what no supervisor that talks to the
    bots' processes over pipes can beat on this machine, whatever it does per message."""
    schedule = round_robin(names, cycles)
    return max(len(schedule) / _relay_floor_run(names, schedule)[1] for _ in range(repeat))


def _relay_floor_run(names: list[str], schedule: list[tuple[str, str, int]]) -> tuple[float, float]:
    """Play ``schedule`` through the least relay (the bots started before the clock starts): its CPU and wall s."""
    processes = {}
    for name in names:
        spec = resolve(str(RPS / name))
        processes[name] = subprocess.Popen(
            bare_command(spec.command, spec.cwd), cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=_bare_env(), start_new_session=True,
        )  # fmt: skip
    held: dict[str, list[bytes]] = {name: [] for name in names}  # lines to a bot, until its next request

    def write(name: str) -> None:
        stdin = processes[name].stdin
        assert stdin is not None
        os.write(stdin.fileno(), b"".join(held[name]))
        held[name].clear()

    def ask(asked: Asked) -> dict[int, bytes]:
        for name, line in asked.values():
            held[name].append(line)
            write(name)
        answers = {}
        for seat, (name, _line) in asked.items():
            stdout = processes[name].stdout
            assert stdout is not None
            answers[seat] = stdout.readline()
        return answers

    def tell(name: str, line: bytes) -> None:
        held[name].append(line)

    try:
        _play_schedule(names, schedule, tell, ask)  # untimed: the bots start during it
        started, wall = time.process_time(), time.perf_counter()
        _play_schedule(names, schedule, tell, ask)
        for name in names:
            write(name)
        return time.process_time() - started, time.perf_counter() - wall
    finally:
        for process in processes.values():
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(QUIT_LINE)
            process.stdin.close()
            process.wait()
            process.stdout.close()


# Tournaments through the arena -------------------------------------------------------------------


def reusable_copies(names: list[str], into: Path) -> list[Path]:
    """Copies of the ports that all say ``reuse = true`` (two keep state between matches, so they say false)."""
    folders = []
    for name in names:
        folder = into / name
        shutil.copytree(RPS / name, folder)
        manifest = folder / "bot.toml"
        lines = [line for line in manifest.read_text().splitlines() if not line.strip().startswith("reuse")]
        manifest.write_text("\n".join([*lines, "reuse = true", ""]))
        folders.append(folder)
    return folders


@dataclass
class Run:
    """One tournament run's figures."""

    matches: int
    wall_s: float
    arena_cpu_s: float
    started: int
    load: float
    all_cpu_s: float = 0.0
    """CPU of the arena and of every process it started and reaped (bots, launchers, supervisor processes)."""

    @property
    def rate(self) -> float:
        return self.matches / self.wall_s

    @property
    def all_cpu_per_match_ms(self) -> float:
        return self.all_cpu_s / self.matches * 1000

    @property
    def cpu_per_match_ms(self) -> float:
        return self.arena_cpu_s / self.matches * 1000


@contextlib.contextmanager
def no_starts_ahead() -> Iterator[None]:
    """The runner starts no process ahead of its match (each start waits for the match before to end)."""
    saved = runner._Runner._prepare_next
    runner._Runner._prepare_next = lambda self, pool: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        runner._Runner._prepare_next = saved  # type: ignore[method-assign]


@contextlib.contextmanager
def starts_ahead(matches: int) -> Iterator[None]:
    """Each supervisor process starts the fresh processes of ``matches`` matches ahead (default: ``STARTS_AHEAD``)."""
    saved = runner.STARTS_AHEAD
    runner.STARTS_AHEAD = matches
    try:
        yield
    finally:
        runner.STARTS_AHEAD = saved


def tournament(
    folders: list[Path],
    *,
    jobs: int,
    reuse: bool,
    cycles: int,
    profile: cProfile.Profile | None = None,
    ahead: bool = True,
    processes: int = 1,
) -> Run:
    """Play one fresh round-robin of ``folders`` and time its matches (the bots are built and admitted before).

    ``ahead=False``: no process is started ahead of its match (the baseline of the starts-ahead goal).
    ``processes``: supervisor processes sharing the ``jobs`` (their CPU counts in the arena's, sampled).
    """
    with tempfile.TemporaryDirectory() as tmp, contextlib.nullcontext() if ahead else no_starts_ahead():
        config = TournamentConfig(
            game=GAME, bots=[BotEntry(text=str(f)) for f in folders], cycles=cycles, seed=1,
            db=Path(tmp) / "bench.sqlite", logs=False,
        )  # fmt: skip
        plan = _plan.prepare(config)
        with Store.open(config.db) as store:
            competition = _plan.open_competition(plan, store)
            trio.run(lambda: admit(plan, store, competition, log_dir=Path(tmp), jobs=1, say=lambda _: None))
            workers: dict[int, float] = {}

            async def play() -> Any:
                async with trio.open_nursery() as nursery:
                    if processes > 1:
                        nursery.start_soon(_sample_workers, workers, processes - 1)
                    summary = await run_tournament(
                        plan, store, competition, jobs=jobs, reuse=reuse, processes=processes
                    )
                    nursery.cancel_scope.cancel()
                return summary

            before_load, cpu, started, everything = load(), cpu_self(), time.perf_counter(), cpu_all()
            if profile is not None:
                profile.enable()
            summary = trio.run(play)
            if profile is not None:
                profile.disable()
            wall = time.perf_counter() - started
        arena_cpu = cpu_self() - cpu + sum(workers.values())
        everything = cpu_all() - everything
        return Run(summary.played, wall, arena_cpu, summary.pool.started, max(before_load, load()), everything)


async def _sample_workers(found: dict[int, float], count: int) -> None:
    """Keep in ``found`` the CPU seconds each of the ``count`` supervisor processes (match workers) has used so far.

    Read every 50 ms until cancelled, so a worker's last 50 ms before it
    exits may be missed (a fraction of a millisecond a match over a run's
    hundreds). The workers are looked for among this process's children
    only until all are found: that look walks all of ``/proc``.
    """
    me = psutil.Process()
    workers: dict[int, psutil.Process] = {}
    while True:
        if len(workers) < count:
            for child in me.children():
                with contextlib.suppress(psutil.Error):
                    if child.pid not in workers and WORKER_MAIN in " ".join(child.cmdline()):
                        workers[child.pid] = child
        for pid, worker in list(workers.items()):
            try:
                times = worker.cpu_times()
            except psutil.Error:
                continue
            found[pid] = times.user + times.system
        await trio.sleep(0.05)


STEADY_FACTOR = 5
"""The steady-state run plays this many times the short run's matches."""
STEADY_REPEATS = 2
"""Steady-state measures per job count, the best kept."""


def better(rate: float, best: float) -> bool:
    """Whether ``rate`` beats ``best`` (a steady-state rate is ``nan`` where the runs were too noisy to tell)."""
    return not math.isnan(rate) and (math.isnan(best) or rate > best)


def steady(short: Run, long: Run) -> Run:
    """What the matches of ``long`` past ``short``'s count cost: the rate once every process is started.

    Both runs start the same processes and admit the same bots; the
    difference between them is matches alone (warm processes), so fixed costs
    (process starts, the first imports of a bot) drop out.
    """
    return Run(
        long.matches - short.matches,
        long.wall_s - short.wall_s if long.wall_s > short.wall_s else math.nan,  # (nan: too noisy to tell)
        long.arena_cpu_s - short.arena_cpu_s,
        long.started - short.started,
        max(short.load, long.load),
        long.all_cpu_s - short.all_cpu_s,
    )


# Whole runs --------------------------------------------------------------------------------------

WHOLE_CYCLES = (1, 10, 50)
"""Cycles of the five ports' round-robin timed as whole runs: 20 (a demo's size), 200 and 1,000 matches."""
FRESH_CYCLES = 3
"""Cycles of the whole run with a fresh process per match: 60 matches."""
_runs = itertools.count()


def arena_tournament(
    folders: list[Path], *, cycles: int, jobs: int | None, reuse: bool, work: Path, pin: bool = True
) -> float:
    """Seconds the whole ``arena tournament`` command takes, from its start to its exit, as a user times it.

    A new results database each time (the bots admitted afresh, as in a
    first run); ``jobs=None`` leaves ``--jobs`` and ``--processes`` at their
    defaults (the CPU count, one supervisor process per CPU fitted to the run). ``pin=False``: ``--no-pin``.
    """
    db = work / f"whole-{next(_runs)}.sqlite"
    argv = [sys.executable, "-m", "arena", "tournament", GAME, *map(str, folders), "--cycles", str(cycles),
            "--seed", "1", "--db", str(db), "--no-log", "--quiet", "--progress", "none"]  # fmt: skip
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    if not reuse:
        argv.append("--no-reuse")
    if not pin:
        argv.append("--no-pin")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    cpu, started = cpu_all(), time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - started
    _whole_cpu.setdefault((cycles, jobs, reuse, pin), []).append(cpu_all() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"bench_speed: {' '.join(argv)} failed:\n{done.stderr.decode(errors='replace')}")
    db.unlink(missing_ok=True)
    return wall


_whole_cpu: dict[tuple[int, int | None, bool, bool], list[float]] = {}
"""CPU seconds of each whole run (the command and every process it started and reaped), by size, jobs, reuse, pin."""


def pipe_round_trip(cpus: tuple[int, int], count: int) -> tuple[float, float]:
    """Microseconds a round trip of one byte between two processes, each kept to its CPU of ``cpus``, and the
    CPU microseconds the first process spends a round trip (a wakeup that crosses CPUs costs both)."""
    to_child, from_parent = os.pipe()
    from_child, to_parent = os.pipe()
    before = os.sched_getaffinity(0)
    pid = os.fork()
    if pid == 0:  # the child: echo each byte
        try:
            os.sched_setaffinity(0, {cpus[1]})
            for _ in range(count):
                os.read(to_child, 1)
                os.write(to_parent, b"x")
        finally:
            os._exit(0)
    try:
        os.sched_setaffinity(0, {cpus[0]})
        cpu, started = time.process_time(), time.perf_counter()
        for _ in range(count):
            os.write(from_parent, b"x")
            os.read(from_child, 1)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        os.sched_setaffinity(0, before)
        os.waitpid(pid, 0)
        for fd in (to_child, from_parent, from_child, to_parent):
            os.close(fd)
    return wall / count * 1e6, cpu / count * 1e6


def wakeups(report: Report) -> None:
    """Why each supervisor process keeps to a CPU with its bots (arena.competition.cpus): a wakeup across CPUs."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return
    same: list[tuple[float, float]] = []
    split: list[tuple[float, float]] = []
    for _ in range(3):  # in turns
        same.append(pipe_round_trip((allowed[0], allowed[0]), 5000))
        split.append(pipe_round_trip((allowed[0], allowed[1]), 5000))
    (same_wall, same_cpu), (split_wall, split_cpu) = (
        (statistics.median(w for w, _ in taken), statistics.median(c for _, c in taken)) for taken in (same, split)
    )
    report.line(
        f"a pipe ping-pong between two processes (one byte each way): both on one CPU {same_wall:.1f} us a round "
        f"trip ({same_cpu:.1f} us of the writer's CPU), on two CPUs {split_wall:.1f} us ({split_cpu:.1f} us): "
        f"{split_wall / same_wall:.1f}x; so each supervisor process keeps to a CPU with its bots (--no-pin: not)",
        load(),
    )


def whole_runs(args: argparse.Namespace, report: Report, folders: list[Path], work: Path) -> None:
    """Whole commands at the default ``--jobs`` against ``--jobs 1``, in turns, at several sizes; reused, then fresh."""
    cpus = os.cpu_count() or 1
    work.mkdir(parents=True, exist_ok=True)
    wakeups(report)
    repeats = args.whole_repeats or (1 if args.quick else 3)
    sizes = [(cycles, True) for cycles in WHOLE_CYCLES] + [(FRESH_CYCLES, False)]
    for cycles, reuse in sizes:
        matches = len(round_robin(FIVE, cycles))
        run = functools.partial(arena_tournament, folders, cycles=cycles, reuse=reuse, work=work)
        goal_size = not reuse or matches >= 1000
        # At the goals' sizes, also the default --jobs with --no-pin: what keeping each supervisor process and its
        # bots to a CPU of their own is worth (arena.competition.cpus), in the same turns.
        unpinned = [functools.partial(run, jobs=None, pin=False)] if goal_size and cpus >= 2 else []
        one, default, *free = interleaved(
            repeats, functools.partial(run, jobs=1), functools.partial(run, jobs=None), *unpinned, warm=False
        )
        now = load()
        kind = "reused processes" if reuse else "a fresh process per match"
        gain = one / default
        cpu_one, cpu_default = (statistics.median(_whole_cpu[cycles, jobs, reuse, True]) for jobs in (1, None))
        report.line(
            f"arena tournament, {matches} matches, {kind}: --jobs 1 {one:6.2f} s ({matches / one:6.1f}/s), "
            f"default --jobs ({cpus}) {default:6.2f} s ({matches / default:6.1f}/s): {gain:.2f}x; CPU of the "
            f"command and all it started {cpu_one:.2f} s and {cpu_default:.2f} s ({cpu_default / cpu_one:.2f}x)",
            now,
        )
        if free:
            cpu_free = statistics.median(_whole_cpu[cycles, None, reuse, False])
            report.line(
                f"  the same default --jobs with --no-pin (processes free to run on any CPU) {free[0]:6.2f} s "
                f"({matches / free[0]:6.1f}/s, {one / free[0]:.2f}x --jobs 1), CPU {cpu_free:.2f} s "
                f"({cpu_free / cpu_one:.2f}x)",
                now,
            )
        shown = f"{matches / default:.1f} vs {matches / one:.1f} matches/s"
        if goal_size:
            report.goal(Goal("1" if reuse else "3", f"whole run, {matches} matches, {kind}: default --jobs vs --jobs 1",
                             shown, gain, ">= 1.5x", gain >= 1.5 if cpus >= 2 else None, now))  # fmt: skip
        else:
            report.goal(Goal("1", f"whole run, {matches} matches, {kind}: default --jobs vs --jobs 1", shown,
                             gain, ">= 1x (never slower)", gain >= 1.0, now))  # fmt: skip


# Starts ------------------------------------------------------------------------------------------


# Bare baselines start their process in a session of its own, as the arena does: with the kernel's
# autogroup scheduling (on by default) a new session is a scheduling group of its own, and on a busy
# machine that alone changes how soon a woken bot runs, so a baseline in the caller's session would
# compare the scheduler's treatment of two sessions, not the arena's work.


def bare_command(command: Sequence[str], cwd: Path) -> list[str]:
    """``command`` with its program as the jail runs it: found on the organiser's ``PATH``, a pyenv shim followed.

    A baseline that ran the shim (a shell script starting pyenv) would add
    tens of milliseconds that the jail never spends.
    """
    program = find_program(command[0], os.environ.get("PATH", ""), cwd)
    return [str(program) if program is not None else command[0], *command[1:]]


def _bare_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def bare_start(command: list[str], cwd: Path, request: bytes) -> float:
    """Seconds to start ``command``, have it answer ``request``, and see it exit (no sandbox)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_bare_env(), start_new_session=True
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(request)
    process.stdin.flush()
    process.stdout.readline()
    process.stdin.write(QUIT_LINE)
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return time.perf_counter() - started


async def sandboxed_start(folder: Path, request: bytes) -> float:
    """Seconds for the same through ``open_bot``: the jail made, the bot started, one answer, stopped and reaped."""
    spec = resolve(str(folder))
    started = trio.current_time()
    async with open_bot(spec, spawn_options(spec, Limits(), None)) as bot:
        await bot.send(request)
        await bot.read_line(output_budget=1 << 30)
        await bot.shutdown(polite=QUIT_LINE)
    return trio.current_time() - started


def run_once(argv: list[str]) -> float:
    """Seconds to run ``argv`` to its end, output discarded."""
    started = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def jail_bwrap_args(folder: Path) -> list[str] | None:
    """The bubblewrap command line (before ``--``) the jail would use for ``folder``'s bot, if it uses bubblewrap."""
    from arena.sandbox import Jail, capabilities, current_policy

    spec = resolve(str(folder))
    jail = Jail(spec, Limits(), current_policy(), capabilities())
    if "bwrap" not in jail.layers:
        return None
    try:
        jail.prepare({"PATH": "/usr/bin:/bin"})
        bwrap = jail.config.get("bwrap")  # what the launcher is told (arena.sandbox._plan)
        if bwrap:
            return [str(a) for a in bwrap]
    finally:
        jail.kill_all()
        jail.close()
    return None


def median_of(count: int, measure: Callable[[], float]) -> float:
    measure()  # warm caches (page cache, capability probe)
    return statistics.median(measure() for _ in range(count))


def interleaved(count: int, *measures: Callable[[], float], warm: bool = True) -> list[float]:
    """The median of each measure, taken in turns (a, b, a, b...) so that a change of load hits all alike."""
    for measure in measures if warm else ():
        measure()  # warm caches
    taken: list[list[float]] = [[] for _ in measures]
    for _ in range(count):
        for found, measure in zip(taken, measures, strict=True):
            found.append(measure())
    return [statistics.median(found) for found in taken]


# One request -------------------------------------------------------------------------------------


def request_lines(count: int) -> list[bytes]:
    return [protocol.encode(DraftPick(id=i + 1, round=1, cards=["R3", "P7"])) for i in range(count)]


def bare_ping_pong(count: int) -> float:
    """Seconds per request: subprocess pipes, blocking write + readline, json.loads of the answer."""
    spec = resolve(str(RPS / PING_BOT))
    process = subprocess.Popen(
        bare_command(spec.command, spec.cwd), cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=_bare_env(), start_new_session=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    lines = request_lines(count + 50)
    for line in lines[:50]:  # warm up
        process.stdin.write(line)
        process.stdin.flush()
        process.stdout.readline()
    started = time.perf_counter()
    for line in lines[50:]:
        process.stdin.write(line)
        process.stdin.flush()
        json.loads(process.stdout.readline())
    elapsed = time.perf_counter() - started
    process.stdin.write(QUIT_LINE)
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return elapsed / count


async def arena_ping_pong(count: int) -> float:
    """Seconds per request through the arena's own path, as a match awaits an answer: open_bot (sandboxed), send,
    the match's wait on its bots' output (:class:`OutputWatch`), a bounded read of the line, decode."""
    spec = resolve(str(RPS / PING_BOT))
    limits = Limits()
    wire = wire_for(spec.protocol, get_game(GAME))
    lines = request_lines(count + 50)
    budget = 1 << 40

    async def answer(bot: BotProcess, watch: OutputWatch) -> bytes:
        deadline = trio.current_time() + limits.move_wall_s
        ready = bot.has_read_ahead  # as the match: a pipe is read once the wait says it has something
        while not ready or (line := await bot.poll_line(output_budget=budget)) is None:
            if trio.current_time() >= deadline:
                raise TimeoutError("no answer")
            ready = bool(await watch.wait([bot], deadline))
        return line

    async with open_bot(spec, spawn_options(spec, limits, None)) as bot:
        with OutputWatch() as watch:
            for line in lines[:50]:
                await bot.send(line)
                await answer(bot, watch)
            started = trio.current_time()
            for number, line in enumerate(lines[50:], start=51):
                await bot.send(line)
                wire.decode(await answer(bot, watch), DraftPick(id=number, round=1, cards=[]))
            elapsed = trio.current_time() - started
        await bot.shutdown(polite=QUIT_LINE)
    return elapsed / count


# Memory ------------------------------------------------------------------------------------------

LIGHT_BOT_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Answers 0 to every request after DELAY_MS; with STAMP, writes to stderr the time it read its first request. */
int main(int argc, char **argv) {
    static char line[1 << 16];
    long delay_ms = argc > 1 ? atol(argv[1]) : 0;
    int stamped = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"quit\"")) break;
        const char *id = strstr(line, "\"id\":");
        if (!id) continue;
        if (!stamped && argc > 2) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            fprintf(stderr, "first-request %ld.%09ld\n", (long)now.tv_sec, now.tv_nsec);
            fflush(stderr);
            stamped = 1;
        }
        if (delay_ms) usleep(delay_ms * 1000);
        printf("{\"id\":%ld,\"action\":0}\n", strtol(id + 5, NULL, 10));
        fflush(stdout);
    }
    return 0;
}
"""


def light_bots(into: Path, *, delay_ms: int, stamp: bool = False, count: int = 2) -> list[Path]:
    """Folders of a C bot (compiled here, so no build step) that answers 0 after ``delay_ms``."""
    source = into / "light.c"
    source.write_text(LIGHT_BOT_C)
    binary = into / "light"
    if not binary.exists():
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(source)], check=True)
    folders = []
    for number in range(count):
        folder = into / f"light-{delay_ms}-{int(stamp)}-{number}"
        folder.mkdir(exist_ok=True)
        shutil.copy2(binary, folder / "bot")
        args = f' "{delay_ms}"' + (' "stamp"' if stamp else "")
        (folder / "bot.toml").write_text(
            f'name = "{folder.name}"\nrun = "./bot{args.replace(chr(34), "")}"\nreuse = true\n'
        )
        folders.append(folder)
    return folders


@dataclass
class MemoryRun:
    baseline: int
    peak: int
    most_bots: int = 0
    """The most bot processes alive at once (two per match in flight)."""
    samples: list[tuple[int, int]] = field(default_factory=list)
    """(sample number, RSS) during the run, every 20 ms."""
    matches: int = 0
    wall_s: float = 0.0
    load: float = 0.0


def rss() -> int:
    return int(psutil.Process().memory_info().rss)


def memory_run(folders: list[Path], *, jobs: int, cycles: int) -> MemoryRun:
    """The arena's RSS before and during a tournament of ``folders`` at ``jobs``, sampled every 20 ms."""
    import gc

    gc.collect()
    found = MemoryRun(baseline=rss(), peak=0)
    with tempfile.TemporaryDirectory() as tmp:
        config = TournamentConfig(
            game=GAME, bots=[BotEntry(text=str(f)) for f in folders], cycles=cycles, seed=1,
            db=Path(tmp) / "bench.sqlite", logs=False, duplicate_deals=False,
        )  # fmt: skip
        plan = _plan.prepare(config)

        async def main() -> Any:
            async with trio.open_nursery() as nursery:
                me = psutil.Process()

                async def sample() -> None:
                    while True:
                        now = rss()
                        found.peak = max(found.peak, now)
                        with contextlib.suppress(psutil.Error):
                            found.most_bots = max(found.most_bots, len(me.children()))
                        found.samples.append((len(found.samples), now))
                        await trio.sleep(0.02)

                nursery.start_soon(sample)
                with Store.open(config.db) as store:
                    competition = _plan.open_competition(plan, store)
                    summary = await run_tournament(plan, store, competition, jobs=jobs)
                nursery.cancel_scope.cancel()
            return summary

        started = time.perf_counter()
        summary = trio.run(main)
        found.wall_s = time.perf_counter() - started
        found.matches = summary.played
        found.load = load()
    return found


# arena play --------------------------------------------------------------------------------------


def play_first_request(folder: Path, arena: list[str]) -> float:
    """Seconds from running ``arena play`` on the C bot (both seats) to the moment the bot read its first request."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [*arena, "play", GAME, str(folder), str(folder), "--seed", "1", "--log-dir", tmp]
        started = time.time()
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        stamps = []
        for log in Path(tmp).rglob("*stderr*"):
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("first-request "):
                    stamps.append(float(line.split()[1]))
        if not stamps:
            raise RuntimeError("the C bot's stderr log holds no first-request stamp")
        return min(stamps) - started


def compile_arena() -> str:
    """Write the bytecode of ``arena`` and ``protocol`` (a run with ``PYTHONDONTWRITEBYTECODE`` set would compile
    every module at every start, and time that instead: an installation has its bytecode)."""
    import compileall

    done = all(compileall.compile_dir(REPO / name, quiet=1) for name in ("arena", "protocol"))
    return "arena/, protocol/" if done else "some modules failed to compile"


# Output ------------------------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


@dataclass
class Goal:
    number: str
    what: str
    figure: str
    ratio: float | None
    target: str
    met: bool | None
    load: float


@dataclass
class Report:
    """What the run prints, kept too for ``--docs``."""

    goals: list[Goal] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)

    def head(self, text: str) -> None:
        print(text, flush=True)
        self.header.append(text)

    def section(self, title: str) -> None:
        print(f"\n{title}", flush=True)
        self.details += ["", title]

    def line(self, text: str, figure_load: float | None = None) -> None:
        suffix = f"  [load {figure_load:.1f}]" if figure_load is not None else ""
        print(f"  {text}{suffix}", flush=True)
        self.details.append(f"  {text}{suffix}")

    def goal(self, goal: Goal) -> None:
        self.goals.append(goal)

    def table_lines(self) -> list[str]:
        lines = ["| goal | figure | ratio | target | met | load |", "|---|---|---:|---|:---:|---:|"]
        for g in self.goals:
            ratio = f"{g.ratio:.2f}x" if g.ratio is not None else ""
            met = {True: "yes", False: "**no**", None: "n/a"}[g.met]
            lines.append(f"| {g.number}. {g.what} | {g.figure} | {ratio} | {g.target} | {met} | {g.load:.1f} |")
        return lines

    def markdown(self) -> str:
        """The docs' performance figures: machine, the goals' table, every figure, and the profile."""
        command = " ".join(["python benchmarks/bench_speed.py", *sys.argv[1:]])
        out = [f"Measured by `{command}` (which wrote this part):", ""]
        out += [f"- {line}" for line in self.header if not line.startswith("  ")]
        out += ["", *self.table_lines(), "", "Every figure of that run:", "", "```", *self.details[1:], "```"]
        if self.profile:
            out += ["", "Where the arena's CPU goes in that run (reused processes, `--jobs 1`):", "", "```"]
            out += [*self.profile, "```"]
        return "\n".join(out) + "\n"


PAGE = REPO / "docs" / "performance.md"
MARK_BEGIN = "<!-- bench_speed: begin -->"
MARK_END = "<!-- bench_speed: end -->"


def write_docs(report: Report) -> None:
    """Replace the performance page's figures between the ``bench_speed`` markers with this run's."""
    text = PAGE.read_text()
    begin, end = text.find(MARK_BEGIN), text.find(MARK_END)
    if begin < 0 or end < begin:
        raise SystemExit(f"bench_speed: {PAGE} has no {MARK_BEGIN} ... {MARK_END} section to write")
    PAGE.write_text(text[: begin + len(MARK_BEGIN)] + "\n" + report.markdown() + text[end:])
    print(f"\nwrote the figures into {PAGE}")


def write_every_core(report: Report) -> None:
    """Replace the figures between the ``every-core`` markers of the performance page with this run's."""
    text = PAGE.read_text()
    first, last = "<!-- every-core: begin -->", "<!-- every-core: end -->"
    begin, end = text.find(first), text.find(last)
    if begin < 0 or end < begin:
        raise SystemExit(f"bench_speed: {PAGE} has no {first} ... {last} section to write")
    lines = ["Measured by `python benchmarks/bench_speed.py --every-core --docs` (which wrote this part):", ""]
    lines += [f"- {line}" for line in report.header if not line.startswith("  ")]
    lines += ["", *report.table_lines(), "", "```", *report.details[1:], "```"]
    PAGE.write_text(text[: begin + len(first)] + "\n" + "\n".join(lines) + "\n" + text[end:])
    print(f"\nwrote the figures into {PAGE}")


@contextlib.contextmanager
def section(report: Report, title: str) -> Iterator[None]:
    report.section(title)
    yield


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cycles", type=int, default=4, help="round-robin cycles (default %(default)s: 80 matches)")
    parser.add_argument("--requests", type=int, default=2000, help="requests per ping-pong (default %(default)s)")
    parser.add_argument(
        "--starts", type=int, default=15, help="starts timed per kind, the median kept (default %(default)s)"
    )
    parser.add_argument(
        "--long", type=int, default=2000, help="matches in the long run for memory (default %(default)s)"
    )
    parser.add_argument(
        "--whole-repeats", type=int, help="whole runs timed per size and --jobs (default 3, 1 with --quick)"
    )
    parser.add_argument(
        "--whole-runs", action="store_true", help="measure only the whole runs (0; with --docs, not written)"
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions everywhere, for a look")
    parser.add_argument(
        "--profile", action="store_true", help="also print where the arena's CPU goes (reused, --jobs 1)"
    )
    parser.add_argument("--docs", action="store_true", help="write the figures into docs/performance.md")
    parser.add_argument(
        "--every-core",
        action="store_true",
        help="measure only --jobs 2 in 2 processes against --jobs 1 (1b; with --docs, written to its own part)",
    )
    args = parser.parse_args()
    if args.quick:
        args.cycles, args.requests, args.starts, args.long = 2, 500, 5, 400
    report = Report()
    names = [n for n in FIVE if (RPS / n / "bot.toml").is_file()]
    box = sandbox_summary()
    report.head(f"machine: {machine()}")
    report.head(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report.head(f"sandbox: level {box['level']} (euid {box['euid']}); layers: {', '.join(box['layers']) or 'none'}")
    for name, how in box["layers"].items():
        report.head(f"  {name:8} {how}")
    work = Path(tempfile.mkdtemp(prefix="arena-bench-speed-"))
    try:
        if args.every_core:
            with section(report, "1b. Every core: light bots (a C bot answering at once), reused, round-robin of 4"):
                every_core(args, report, work / "cores")
        elif args.whole_runs:
            with section(report, WHOLE_TITLE):
                whole_runs(args, report, reusable_copies(names, work / "reused"), work / "whole")
        else:
            _measure(args, report, names, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("", *report.table_lines(), sep="\n")
    if args.docs and args.every_core:
        write_every_core(report)
    elif args.docs and not args.whole_runs:
        write_docs(report)


WHOLE_TITLE = (
    "0. Whole runs: arena tournament of the five ports, timed from the command's start to its exit, default --jobs "
    "against --jobs 1 in turns (issue 41)"
)


def _measure(args: argparse.Namespace, report: Report, names: list[str], work: Path) -> None:
    cpus = os.cpu_count() or 1
    matches = len(round_robin(names, args.cycles))
    with section(report, WHOLE_TITLE):
        whole_runs(args, report, reusable_copies(names, work / "whole-bots"), work / "whole")
    with section(
        report, f"1. Reused processes: round-robin of {', '.join(names)}, duplicate deals, {matches} matches, logs off"
    ):
        reference = inprocess_rate(names, args.cycles, repeat=3)
        report.line(f"in-process reference (engine + Bot objects + JSON both ways)  {reference:8.1f} matches/s", load())
        floor = relay_floor_rate(names, args.cycles, repeat=3)
        report.line(
            f"least Python relay to the same bots as bare processes (a write and a blocking read a request, "
            f"nothing else)  {floor:8.1f} matches/s ({floor / reference:.3f}x)",
            load(),
        )
        folders = reusable_copies(names, work / "reused")
        runs: dict[tuple[int, int], Run] = {}
        long_runs: dict[tuple[int, int], Run] = {}
        for _ in range(STEADY_REPEATS):  # in turns, so that a change of load hits every job count alike
            for jobs, processes in ((1, 1), (2, 1), (2, 2)):
                short = tournament(folders, jobs=jobs, reuse=True, cycles=args.cycles, processes=processes)
                longer = tournament(
                    folders, jobs=jobs, reuse=True, cycles=args.cycles * STEADY_FACTOR, processes=processes
                )
                run = steady(short, longer)
                report.line(
                    f"arena, reused processes, {how(jobs, processes)}, whole runs: {short.rate:6.1f} matches/s over "
                    f"{short.matches}, {longer.rate:6.1f} over {longer.matches} ({short.started} processes started)",
                    longer.load,
                )
                report.line(
                    f"  steady state (the {longer.matches - short.matches} matches more): {run.rate:6.1f} matches/s "
                    f"({run.rate / reference:.3f}x), arena CPU {run.cpu_per_match_ms:.2f} ms/match",
                    run.load,
                )
                key = (jobs, processes)
                if key not in runs or better(run.rate, runs[key].rate):  # the best of the turns, as for the reference
                    runs[key], long_runs[key] = run, longer
        one, two = runs[1, 1], runs[2, 2]
        ratio = one.rate / reference
        report.goal(Goal("1", "reused, --jobs 1, vs in-process (steady state)",
                         f"{one.rate:.1f} vs {reference:.0f} matches/s",
                         ratio, ">= 0.5x", ratio >= 0.5, one.load))  # fmt: skip
        report.goal(Goal("1", "the bound: least Python relay of the same bots' processes vs in-process",
                         f"{floor:.1f} vs {reference:.0f} matches/s", floor / reference,
                         "(0.5x needs more)", None, one.load))  # fmt: skip
        gain = two.rate / one.rate
        shown = f"{two.rate:.1f} vs {one.rate:.1f} matches/s (one process at --jobs 2: {runs[2, 1].rate:.1f})"
        if math.isnan(gain):  # every turn's longer run was no longer than its short one: the machine was too busy
            report.goal(Goal("1", "Python ports: --jobs 2 (2 processes) vs --jobs 1", f"too noisy to tell ({shown})",
                             None, f"> 1x on {cpus} CPUs", None, two.load))  # fmt: skip
        else:
            report.goal(Goal("1", "Python ports: --jobs 2 (2 processes) vs --jobs 1", shown,
                             gain, f"> 1x on {cpus} CPUs", gain > 1.0, two.load))  # fmt: skip
    with section(report, "1b. Every core: light bots (a C bot answering at once), reused, round-robin of 4"):
        every_core(args, report, work / "cores")

    with section(report, "2. The arena's CPU per match against the in-process reference's (issue 31, item 2)"):
        reference_cpu = inprocess_cpu_ms(names, args.cycles, repeat=3)
        report.line(
            f"in-process reference, CPU per match (engine, five Bot objects, JSON)  {reference_cpu:6.2f} ms", load()
        )
        floor_cpu = relay_floor_cpu_ms(names, args.cycles, repeat=3)
        report.line(
            f"least Python relay to bare processes, CPU per match (engine, JSON, one write and one blocking read a "
            f"request, nothing else)  {floor_cpu:6.2f} ms ({floor_cpu / reference_cpu:.2f}x the reference)",
            load(),
        )
        arena_cpu = runs[1, 1].cpu_per_match_ms
        report.line(
            f"arena, reused processes, --jobs 1, steady state, its own CPU per match {arena_cpu:6.2f} ms "
            f"({arena_cpu / reference_cpu:.2f}x; the bots' CPU not counted)",
            runs[1, 1].load,
        )
        report.goal(Goal("2", "arena CPU per match vs the in-process reference's (reused, --jobs 1)",
                         f"{arena_cpu:.2f} vs {reference_cpu:.2f} ms", arena_cpu / reference_cpu, "<= 1x",
                         arena_cpu <= reference_cpu, runs[1, 1].load))  # fmt: skip
        report.goal(Goal("2", "the bound: least Python relay's CPU per match vs the reference's",
                         f"{floor_cpu:.2f} vs {reference_cpu:.2f} ms", floor_cpu / reference_cpu,
                         "(no clocks, limits, log)", None, runs[1, 1].load))  # fmt: skip

    with section(report, "3. Fresh processes and starts (issue 31, item 3)"):
        fresh = tournament(folders, jobs=1, reuse=False, cycles=max(1, args.cycles // 2))
        report.line(
            f"arena, fresh process per match, --jobs 1: {fresh.rate:8.1f} matches/s, "
            f"arena CPU {fresh.cpu_per_match_ms:.2f} ms/match, {fresh.started} processes",
            fresh.load,
        )
        serial = tournament(folders, jobs=1, reuse=False, cycles=max(1, args.cycles // 2), ahead=False)
        report.line(
            f"the same, no process started ahead of its match: {serial.rate:8.1f} matches/s "
            f"(with starts ahead: {fresh.rate / serial.rate:.2f}x this)",
            serial.load,
        )
        with starts_ahead(1):
            one_ahead = tournament(folders, jobs=1, reuse=False, cycles=max(1, args.cycles // 2))
        report.line(
            f"the same, one match's processes started ahead (not {runner.STARTS_AHEAD}): {one_ahead.rate:8.1f} "
            f"matches/s (with {runner.STARTS_AHEAD}: {fresh.rate / one_ahead.rate:.2f}x this)",
            one_ahead.load,
        )
        busy = fresh.all_cpu_s / fresh.wall_s
        report.line(
            f"  CPU of the arena, launchers and bots: {fresh.all_cpu_s / fresh.matches * 1e3:.0f} ms a match, "
            f"{busy:.2f} of this machine's {cpus} CPUs kept busy at --jobs 1: at most "
            f"{cpus / (fresh.all_cpu_s / fresh.matches):.1f} matches/s at any --jobs here",
            fresh.load,
        )
        fresh2 = tournament(folders, jobs=2, reuse=False, cycles=max(1, args.cycles // 2), processes=2)
        report.line(f"arena, fresh process per match, --jobs 2 in 2 processes: {fresh2.rate:8.1f} matches/s",
                    fresh2.load)  # fmt: skip
        fresh2_one = tournament(folders, jobs=2, reuse=False, cycles=max(1, args.cycles // 2))
        report.line(f"arena, fresh process per match, --jobs 2 in 1 process: {fresh2_one.rate:8.1f} matches/s",
                    fresh2_one.load)  # fmt: skip
        fresh2 = max(fresh2, fresh2_one, key=lambda run: run.rate)
        bot = RPS / PING_BOT
        spec = resolve(str(bot))
        request = protocol.encode(DraftPick(id=1, round=1, cards=["R3", "P7"]))
        true = shutil.which("true") or "/bin/true"
        bare, boxed = interleaved(
            args.starts,
            lambda: bare_start(bare_command(spec.command, spec.cwd), spec.cwd, request),
            lambda: trio.run(sandboxed_start, bot, request),
        )
        now = load()
        shown = " ".join(bare_command(spec.command, spec.cwd))
        report.line(f"bare start of {shown!r} (start, one answer, exit)    {bare * 1e3:7.1f} ms", now)
        report.line(
            f"sandboxed start of the same through open_bot                {boxed * 1e3:7.1f} ms ({boxed / bare:.2f}x)",
            now,
        )
        (work / "starts").mkdir(exist_ok=True)
        light = light_bots(work / "starts", delay_ms=0, count=1)[0]
        light_spec = resolve(str(light))
        bare_c, boxed_c = interleaved(
            args.starts,
            lambda: bare_start(bare_command(light_spec.command, light_spec.cwd), light_spec.cwd, request),
            lambda: trio.run(sandboxed_start, light, request),
        )
        now = load()
        fixed = boxed_c - bare_c
        report.line(
            f"the same for a C bot: bare {bare_c * 1e3:.1f} ms, sandboxed {boxed_c * 1e3:.1f} ms: the jail's own "
            f"cost a start, whatever the bot, {fixed * 1e3:.1f} ms (1.5x of the Python bot's bare start leaves "
            f"{bare * 0.5e3:.1f} ms for it)",
            now,
        )
        bwrap = jail_bwrap_args(bot) or [true]
        bare_true, in_bwrap, python_pass = interleaved(
            args.starts, lambda: run_once([true]), lambda: run_once([*bwrap, "--", true]),
            lambda: run_once([sys.executable, "-I", "-c", "pass"]),
        )  # fmt: skip
        now = load()
        report.line(f"bare {true}                                         {bare_true * 1e3:7.1f} ms", now)
        if bwrap != [true]:
            report.line(f"bubblewrap alone (the jail's command line) on {true}   {in_bwrap * 1e3:7.1f} ms "
                        f"(+{(in_bwrap - bare_true) * 1e3:.1f} ms)", now)  # fmt: skip
        report.line(f"python -I -c pass (what a Python launcher costs)          {python_pass * 1e3:7.1f} ms", now)
        report.goal(Goal("3", "sandboxed start vs bare start", f"{boxed * 1e3:.1f} vs {bare * 1e3:.1f} ms",
                         boxed / bare, "<= 2x", boxed / bare <= 2.0, now))  # fmt: skip
        hidden = fresh.rate / serial.rate
        shown = f"{fresh.rate:.1f} vs {serial.rate:.1f} matches/s"
        report.goal(Goal("3", "fresh, --jobs 1, starts ahead vs none", shown,
                         hidden, "> 1x", hidden > 1.0, fresh.load))  # fmt: skip
        further = fresh.rate / one_ahead.rate
        report.goal(Goal("3", f"fresh, --jobs 1, {runner.STARTS_AHEAD} matches' starts ahead vs 1",
                         f"{fresh.rate:.1f} vs {one_ahead.rate:.1f} matches/s", further, "> 1x", further > 1.0,
                         max(fresh.load, one_ahead.load)))  # fmt: skip
        wider = fresh2.rate / fresh.rate
        report.goal(Goal("3", "fresh, --jobs 2 vs --jobs 1", f"{fresh2.rate:.1f} vs {fresh.rate:.1f} matches/s",
                         wider, f"> 1x on {cpus} CPUs", wider > 1.0, fresh2.load))  # fmt: skip

    with section(report, f"2b. One request ({PING_BOT}, {args.requests} draft_pick requests; issue 31, item 2)"):
        bare_rq, arena_rq = interleaved(
            3, lambda: bare_ping_pong(args.requests), lambda: trio.run(arena_ping_pong, args.requests)
        )
        now = load()
        report.line(f"bare pipe ping-pong (subprocess, blocking)  {bare_rq * 1e6:8.1f} us", now)
        report.line(
            f"arena's path (trio, bounded reads, decoder) {arena_rq * 1e6:8.1f} us ({arena_rq / bare_rq:.2f}x)", now
        )
        report.goal(Goal("2", "one request, arena vs bare pipe", f"{arena_rq * 1e6:.0f} vs {bare_rq * 1e6:.0f} us",
                         arena_rq / bare_rq, "<= 1.1x", arena_rq / bare_rq <= 1.1, now))  # fmt: skip

    light_dir = work / "light"
    light_dir.mkdir()
    with section(report, "5. Supervisor memory (issue 31, item 5)"):
        slow = light_bots(light_dir, delay_ms=20, count=8)
        wide = memory_run(slow, jobs=64, cycles=5)  # 8 bots: 28 pairs x 5 cycles = 140 matches, 64 at once
        per_match = (wide.peak - wide.baseline) / 64
        report.line(
            f"64 concurrent matches of a C bot (20 ms a move): arena RSS {wide.baseline / 2**20:.1f} MiB before, "
            f"{wide.peak / 2**20:.1f} MiB at the peak ({wide.most_bots} bot processes at once): "
            f"{per_match / 2**20:.2f} MiB per match",
            wide.load,
        )
        report.goal(Goal("5", "supervisor RSS per concurrent match", f"{per_match / 2**20:.2f} MiB",
                         None, "< 1 MiB", per_match < 2**20, wide.load))  # fmt: skip
        quick = light_bots(light_dir, delay_ms=0, count=2)
        cycles = max(1, args.long)  # two bots, no duplicate deals: one match a cycle
        long = memory_run(quick, jobs=2, cycles=cycles)
        samples = [s for s in long.samples if s[1]]
        tenth = samples[len(samples) // 10][1] if samples else 0
        end = samples[-1][1] if samples else 0
        report.line(
            f"long run, {long.matches} matches at --jobs 2 ({long.matches / long.wall_s:.0f} matches/s): RSS "
            f"{tenth / 2**20:.1f} MiB after a tenth, {end / 2**20:.1f} MiB at the end",
            long.load,
        )
        growth = end / tenth if tenth else 0.0
        shown = f"{tenth / 2**20:.1f} -> {end / 2**20:.1f} MiB"
        report.goal(Goal("5", f"RSS over {long.matches} matches, end vs a tenth in", shown,
                         growth, "flat (<= 1.1x)", growth <= 1.1, long.load))  # fmt: skip

    with section(report, "4. arena play: time to the first request of a C bot (issue 31, item 4)"):
        compiled = compile_arena()
        report.line(f"arena's bytecode compiled ahead ({compiled}), as an installation has it")
        stamping = light_bots(light_dir, delay_ms=0, stamp=True, count=1)[0]
        arena = [sys.executable, "-m", "arena"]
        first, imports, floor, version, helped = interleaved(
            max(3, args.starts // 3),
            lambda: play_first_request(stamping, arena),
            lambda: run_once([sys.executable, "-c", "import arena.supervisor.play, arena.supervisor.options"]),
            lambda: run_once([sys.executable, "-c", "import trio"]),
            lambda: run_once([*arena, "--version"]),
            lambda: run_once([*arena, "--help"]),
        )
        now = load()
        for what, seconds in (
            ("arena play, command to the bot's first request", first),
            ("of which Python starting and importing what play imports", imports),
            ("arena --version", version),
            ("arena --help", helped),
        ):
            report.line(f"{what:58} {seconds * 1e3:7.1f} ms ({seconds / floor:.2f}x the floor)", now)
        report.line(f"{'Python starting and importing trio alone (the floor)':58} {floor * 1e3:7.1f} ms", now)
        report.goal(Goal("4", "arena play to first request (C bot) vs Python + import trio",
                         f"{first * 1e3:.0f} vs {floor * 1e3:.0f} ms", first / floor, "<= 1.25x",
                         first / floor <= 1.25, now))  # fmt: skip
        slowest = max(version, helped)
        report.goal(Goal("4", "arena --version, --help (the slower) vs Python + import trio",
                         f"{slowest * 1e3:.0f} vs {floor * 1e3:.0f} ms", slowest / floor, "<= 0.5x",
                         slowest / floor <= 0.5, now))  # fmt: skip

    if args.profile:
        print("\nWhere the arena's CPU goes: reused processes, --jobs 1 (cProfile, CPU time)", flush=True)
        profile = cProfile.Profile(time.process_time)
        run = tournament(folders, jobs=1, reuse=True, cycles=args.cycles * STEADY_FACTOR, profile=profile)
        report.profile = profile_lines(profile, run, unprofiled=long_runs[1, 1])
        print(*report.profile, sep="\n")


def how(jobs: int, processes: int) -> str:
    """``--jobs N`` and, over one process, the supervisor processes that share them."""
    return f"--jobs {jobs}" + (f" in {processes} processes" if processes > 1 else (" in 1 process" if jobs > 1 else ""))


def steady_run(folders: list[Path], *, jobs: int, processes: int, cycles: int) -> Run:
    """The steady-state figures (see :func:`steady`) of reused ``folders`` at ``jobs`` over ``processes``."""
    short = tournament(folders, jobs=jobs, reuse=True, cycles=cycles, processes=processes)
    longer = tournament(folders, jobs=jobs, reuse=True, cycles=cycles * STEADY_FACTOR, processes=processes)
    return steady(short, longer)


def every_core(args: argparse.Namespace, report: Report, into: Path) -> None:
    """``--jobs 2`` over two supervisor processes against ``--jobs 1``, and the scaling on 1..N of this machine's CPUs.

    Light bots, so that the arena's own work is what bounds the rate. The
    scaling pins this process (and so every process it starts: workers,
    launchers, bots) to the first k CPUs, as ``taskset -c 0-(k-1)`` would,
    and plays ``--jobs k`` in k processes: on a machine with more CPUs than
    this one, the same run shows how far it goes.
    """
    into.mkdir(parents=True, exist_ok=True)
    folders = light_bots(into, delay_ms=0, count=4)
    cycles = max(2, args.cycles * 2)  # 12 matches a cycle
    allowed = sorted(os.sched_getaffinity(0))
    runs: dict[int, Run] = {}
    for _ in range(STEADY_REPEATS):  # in turns
        for jobs in (1, 2):
            run = steady_run(folders, jobs=jobs, processes=jobs, cycles=cycles)
            report.line(
                f"{how(jobs, jobs)}: steady state {run.rate:7.1f} matches/s over {run.matches}, arena CPU "
                f"{run.cpu_per_match_ms:.2f} ms/match (all processes), {run.all_cpu_per_match_ms:.2f} with the bots",
                run.load,
            )
            if jobs not in runs or better(run.rate, runs[jobs].rate):
                runs[jobs] = run
    one, two = runs[1], runs[2]
    more = two.all_cpu_per_match_ms / one.all_cpu_per_match_ms
    report.line(
        f"what the load moves least: CPU a match, arena and bots, is {more:.2f}x in two processes; on two idle CPUs"
        f" --jobs 2 can play at most {2000 / two.all_cpu_per_match_ms:.0f} matches/s"
    )
    gain = runs[2].rate / runs[1].rate
    report.goal(Goal("1", "light bots: --jobs 2 (2 processes) vs --jobs 1", f"{runs[2].rate:.1f} vs "
                     f"{runs[1].rate:.1f} matches/s", gain, ">= 1.6x", gain >= 1.6 if len(allowed) >= 2 else None,
                     runs[2].load))  # fmt: skip
    report.line(
        f"scaling, pinned to the first k of this machine's {len(allowed)} CPUs (taskset), --jobs k in k processes:"
    )
    base = 0.0
    try:
        for count in range(1, len(allowed) + 1):
            os.sched_setaffinity(0, allowed[:count])
            run = steady_run(folders, jobs=count, processes=count, cycles=cycles)
            base = base or run.rate
            cpus = f"{allowed[0]}-{allowed[count - 1]}"
            report.line(f"  taskset -c {cpus}: {run.rate:7.1f} matches/s ({run.rate / base:.2f}x one CPU)", run.load)
    finally:
        os.sched_setaffinity(0, allowed)


AREAS = (
    ("trio (scheduler, cancel scopes, pipes)", ("trio/",)),
    ("match (supervisor/match.py)", ("supervisor/match.py",)),
    ("bot process (supervisor/_process.py)", ("supervisor/_process.py",)),
    ("sandbox accounting (cgroup, /proc)", ("sandbox/",)),
    ("game rules", ("arena/games/",)),
    ("store (SQLite)", ("competition/store.py", "sqlite3")),
    ("tournament bookkeeping", ("competition/",)),
    ("msgspec / protocol", ("protocol/", "msgspec")),
    ("files (open/read)", ("io.open", "_io.", "pathlib")),
    ("syscalls (write, epoll)", ("posix.write", "epoll", "select.")),
)


def profile_lines(profile: cProfile.Profile, run: Run, *, unprofiled: Run) -> list[str]:
    """CPU per match by area (own time of the functions in it), and the top functions.

    cProfile's own cost inflates every figure about equally: the shares are
    what to read, and the inflation (against ``unprofiled``, the same run
    without the profiler) is printed to scale them back.
    """
    stats = pstats.Stats(profile)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    for (filename, _, function), (_, _, tottime, _, _) in raw.items():
        where = f"{filename}:{function}"
        area = next((name for name, keys in AREAS if any(k in where for k in keys)), "other")
        totals[area] = totals.get(area, 0.0) + tottime
    whole = sum(totals.values())
    inflation = run.cpu_per_match_ms / unprofiled.cpu_per_match_ms if unprofiled.cpu_per_match_ms else math.nan
    lines = [
        f"  {run.matches} matches; arena CPU {run.cpu_per_match_ms:.2f} ms/match under the profiler, "
        f"{unprofiled.cpu_per_match_ms:.2f} without ({inflation:.1f}x inflation)",
    ]
    for area, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        lines.append(f"  {area:42} {seconds / run.matches * 1e3:7.2f} ms/match  {seconds / whole:5.1%}")
    lines.append("  top functions by own CPU time (ms per match, profiled):")
    top = sorted(raw.items(), key=lambda item: -item[1][2])[:15]
    for (filename, line, function), (_, calls, tottime, _, _) in top:
        short = filename.replace(str(REPO) + "/", "").split("site-packages/")[-1]
        lines.append(
            f"    {tottime / run.matches * 1e3:6.3f}  {calls / run.matches:7.1f} calls  {function} ({short}:{line})"
        )
    return lines


if __name__ == "__main__":
    main()
