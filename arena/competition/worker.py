"""A match worker: a child process that plays a ladder's matches, so its parent's event loop stays free.

A competition server (:mod:`arena.server`) serves pages, takes uploads and
records results in one trio loop; supervising the bots' exchanges costs that
loop about 8 ms per match, so pages would wait behind match work. With a
worker, the server hands each match to its child (:data:`WORKER_MAIN`, run by the
same interpreter) and only records the
results: the worker keeps the bot pool, plays every match it is given at once
(the ladder decides how many are in play) and answers each with its
:class:`~arena.competition.store.PlayedMatch`, faults inside as when played
locally.

**The wire** is the child's stdin and stdout, each message a pickle behind a
4-byte length. Pickle is safe here because both ends are the arena itself;
nothing a bot writes is ever unpickled (bots talk to the supervisor inside
the worker, and their words reach the server only inside a ``PlayedMatch``
the worker built). The worker's stray prints go to its stderr (the server's).

**Lifetimes.** The worker dies with the server: at end of file on its stdin
(the server stopped, or died) it cancels its matches and stops its bots (it
ignores SIGINT and SIGTERM, which a terminal or a service manager sends to
the server's whole process group: the server stops it in order), and
``PR_SET_PDEATHSIG`` kills it outright when the server is killed (the
sandbox's lifelines then kill its bots). The server spawns it from its main
thread, since the death signal follows the thread that spawned. If the
worker dies, every match in flight is lost (:class:`~arena.competition.playing.MatchLost`:
the ladder does not record it, and plays the pair again), a new worker starts,
and the server says so in one line. A persistent bot's process dies with the
worker: its state is lost, as after a fault.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import dataclasses
import math
import os
import pickle
import signal
import struct
import subprocess
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from protocol import Limits

from .._errors import ArenaError
from ..bots.spec import BotSpec
from ..games import Origin, get_game, origin_of, provide
from ..sandbox import SandboxPolicy, configure, current_policy
from ..supervisor import STARTS_AHEAD, PoolStats, _process, open_pool
from .cpus import allowed_cpus, pin_process, pinned, pinning
from .playing import MatchLost, play_scheduled
from .schedule import Scheduled
from .store import PlayedMatch

HEADER = struct.Struct(">I")
WORKER_MAIN = "from arena.competition.worker import main; main()"
"""The worker's command (not ``-m``: its classes must be this module's, not ``__main__``'s, to unpickle)."""
PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 10.0
"""How long a stopping worker may take to stop its bots before it is killed."""
RESTART_DELAYS_S = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Waits before restarting a worker that keeps dying without finishing a match."""


SERVER_OTHERWISE = "or play in the server's process (workers = 0)"
"""What a server's organiser can do when no match worker starts."""


class Withdrawn(MatchLost):
    """A match handed to the worker was not played: a bot of it was dropped before its turn came."""


class WorkerError(ArenaError):
    """The worker failed in a way that is not a lost match (a bug): it carries the worker's traceback."""


@dataclass(frozen=True)
class Setup:
    """What a worker needs to play the ladder's matches: the first message it reads."""

    game: str
    params: Mapping[str, object]
    limits: Limits
    tournament_id: int
    jobs: int
    """Matches played at once; more may be handed over (they wait their turn here, so the worker never idles
    waiting for the server to hand over the next)."""
    policy: SandboxPolicy
    stderr_dir: Path | None
    stamp: str
    """Each bot process's stderr goes to ``stderr_dir/NAME.STAMP-N.log`` (N counts the bot's processes)."""
    origin: Origin | None = None
    """Where the game comes from (a plugin's package, a ``--game-module`` file): the worker loads it from there.

    Left out, it is the game's origin in the process that builds the Setup (which knows the game), so a Setup
    made anywhere carries it to its worker."""
    reuse: bool = True
    """``False``: every match gets fresh processes (``arena tournament --no-reuse``)."""
    sync_waits: bool = True
    """Whether a match alone in the worker may wait for quick answers in its thread (``OutputWatch``). ``False`` on
    a competition server: its checks play in the web process, which always waits through trio's loop, and its
    ladder matches then wait the same way, so that no bot tells a check from a ladder match by how soon the next
    request follows its answer."""
    cpus: frozenset[int] | None = None
    """The CPUs the worker and its bots keep to (:mod:`~arena.competition.cpus`); ``None``: its parent's mask."""

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", origin_of(self.game))


@dataclass(frozen=True)
class PoolState:
    """What the worker's pool holds: idle processes by bot, and its counts."""

    idle: dict[str, int]
    stats: dict[str, int]


# The wire ------------------------------------------------------------------------------------------
class Frames:
    """Length-prefixed pickles read from a stream."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def _exactly(self, size: int) -> bytes | None:
        while len(self.buffer) < size:
            chunk = await self.stream.receive_some(1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        out = bytes(self.buffer[:size])
        del self.buffer[:size]
        return out

    async def receive(self) -> Any:
        """The next message, or ``None`` at end of file (a cut frame counts as the end)."""
        header = await self._exactly(HEADER.size)
        if header is None:
            return None
        body = await self._exactly(HEADER.unpack(header)[0])
        return None if body is None else pickle.loads(body)


def frame(message: object) -> bytes:
    """``message`` as the wire carries it."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


async def _write_all(stream: trio.abc.SendStream, receive: trio.MemoryReceiveChannel[bytes]) -> None:
    """Send what ``receive`` gives, in order, by one task (a stream takes one writer at a time).

    Ends quietly when the other end has gone: its reader sees the end of file and says what happened.
    What is waiting goes in one write (a deal to forget and the next match to play, say): one wake-up of the reader
    rather than one a message.
    """
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        async for data in receive:
            more = []
            with contextlib.suppress(trio.WouldBlock, trio.EndOfChannel):
                while True:
                    more.append(receive.receive_nowait())
            await stream.send_all(b"".join((data, *more)) if more else data)


# The worker's side ---------------------------------------------------------------------------------
def main() -> None:
    """The worker (``python -c WORKER_MAIN PARENT_PID``): play matches for the process ``PARENT_PID``."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
    if len(sys.argv) > 1 and os.getppid() != int(sys.argv[1]):
        os._exit(0)  # the parent died before the death signal was set
    for number in (signal.SIGINT, signal.SIGTERM):  # a Ctrl-C or a stop reaches the whole group: the server stops us
        signal.signal(number, _ignore)  # a handler, not SIG_IGN, which the bots would inherit through exec
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # a stray print must not corrupt the wire
    os.close(null)
    with contextlib.suppress(KeyboardInterrupt):
        trio.run(_serve, wire_in, wire_out)
    _exit_now()


def _exit_now() -> None:
    """Exit at once, the interpreter not torn down: the worker's bots are stopped and reaped (its pool's end).

    The tournament waits for its workers to exit before it ends, and tearing
    down an interpreter that imported the arena (every module's objects freed
    one by one) took a few tenths of a second of that wait under load. The
    exit handlers still run (a coverage tool's, say), and what is buffered is
    written.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _ignore(_number: int, _frame: object) -> None:
    pass


async def _serve(wire_in: int, wire_out: int) -> None:
    frames = Frames(trio.lowlevel.FdStream(wire_in))
    setup: Setup | None = await frames.receive()
    if setup is None:
        return
    configure(setup.policy)
    if setup.cpus:
        with contextlib.suppress(OSError):  # a CPU it may not use (its cpuset changed): it plays unpinned
            pin_process(setup.cpus)
    if not setup.sync_waits:  # for this task and the matches it starts (the whole worker)
        _process.SYNC_WAIT.set(0.0)
    provide(setup.game, setup.origin)
    game = get_game(setup.game, dict(setup.params))
    send, receive = trio.open_memory_channel[bytes](math.inf)
    turns = trio.CapacityLimiter(max(1, setup.jobs))

    def stderr_path(spec: BotSpec, number: int) -> Path | None:
        return setup.stderr_dir / f"{spec.name}.{setup.stamp}-{number}.log" if setup.stderr_dir else None

    dropped: dict[str, int] = {}  # bot name -> number of the last message that dropped it
    waiting: dict[int, Mapping[str, BotSpec]] = {}  # the bots of the matches waiting their turn, in arrival order
    received = 0  # messages read so far
    playing: dict[int, trio.CancelScope] = {}  # what ends each match handed over, waiting or in play (abort)

    async def play(
        ident: int, scheduled: Scheduled, specs: Mapping[str, BotSpec], log_path: Path | None, number: int
    ) -> None:
        try:
            with trio.CancelScope() as playing[ident]:
                waiting[ident] = specs
                async with turns:
                    del waiting[ident]
                    if any(dropped.get(spec.name, -1) > number for spec in specs.values()):  # it left meanwhile
                        send.send_nowait(frame(("withdrawn", ident)))
                        return
                    match = await play_scheduled(
                        game, specs, setup.limits, scheduled, pool, log_path=log_path,
                        tournament_id=setup.tournament_id, seated=start_next,
                    )  # fmt: skip
            if ident not in playing or playing[ident].cancelled_caught:  # aborted: the server asks no more
                return
        except Exception:  # a bug, not a bot's fault (those are in the match): the server says so
            send.send_nowait(frame(("error", ident, traceback.format_exc())))
        else:
            send.send_nowait(frame(("played", ident, match)))
        finally:
            playing.pop(ident, None)
            waiting.pop(ident, None)

    def start_next() -> None:
        """Start the processes of the matches next in turn here while this one plays (:meth:`BotPool.prepare_for`)."""
        coming = list(waiting.values())[:STARTS_AHEAD]
        pool.prepare_for((spec for specs in coming for spec in specs.values()), setup.limits)

    async def warm(ident: int, spec: BotSpec, limits: Limits, count: int) -> None:
        await pool.warm(spec, limits, count)
        send.send_nowait(frame(("warmed", ident, None)))

    async with open_pool(reuse=setup.reuse, stderr_path=stderr_path) as pool, trio.open_nursery() as nursery:
        nursery.start_soon(_write_all, trio.lowlevel.FdStream(wire_out), receive)
        send.send_nowait(frame(("ready", os.getpid())))
        while (message := await frames.receive()) is not None:
            received += 1
            kind = message[0]
            if kind == "play":
                _kind, ident, scheduled, specs, log_path = message
                nursery.start_soon(play, ident, scheduled, specs, log_path, received)
            elif kind == "warm":
                nursery.start_soon(warm, *message[1:])
            elif kind == "abort":  # the server gave up on it (the organiser took a bot out): end it now
                if message[1] in playing:
                    playing[message[1]].cancel()
            elif kind == "forget":
                pool.forget(message[1])
            elif kind == "drop":  # its idle processes stop, and its matches waiting their turn are withdrawn
                dropped[message[1]] = received
                pool.drop(message[1])
            elif kind == "pool":
                state = PoolState(pool.idle_counts(), dataclasses.asdict(pool.stats))
                send.send_nowait(frame(("pool", message[1], state)))
        nursery.cancel_scope.cancel()  # the server is gone: matches in play are abandoned, bots stopped


# The server's side ---------------------------------------------------------------------------------
def spawn_worker(*, session: bool) -> subprocess.Popen[bytes]:
    """Start a worker process (``python -c WORKER_MAIN PARENT_PID``): it imports the arena, then reads its Setup.

    Call it from the main thread: the worker's death signal fires when the thread that spawned it ends.
    """
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    return subprocess.Popen(
        [sys.executable, "-c", WORKER_MAIN, str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        # A tournament's workers each in a session of its own, as each bot is: with the kernel's autogroup
        # scheduling (Debian's default) a session is a scheduling group with one fair share of a busy machine,
        # and workers in their parent's session would split one share between them, however many CPUs they
        # were started to use. A server's one worker stays in the server's session, where its checks' bots,
        # weighted down as background bots, were measured to get what the ladder leaves.
        start_new_session=session,
    )


def stop_spawned(spawned: list[subprocess.Popen[bytes]]) -> None:
    """Kill and reap the workers :func:`spawn_worker` started ahead that no :class:`MatchWorker` took (no bots yet)."""
    while spawned:
        process = spawned.pop()
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


@dataclass(eq=False)
class _Answer:
    done: trio.Event = field(default_factory=trio.Event)
    value: Any = None
    error: str = ""
    lost: bool = False
    withdrawn: bool = False
    play: bool = False


@dataclass(eq=False)
class _Life:
    """One worker process, from its start to its death."""

    process: subprocess.Popen[bytes]
    send: trio.MemorySendChannel[bytes]
    waiting: dict[int, _Answer] = field(default_factory=dict)
    ready: bool = False
    dead: bool = False
    played: int = 0


class MatchWorker:
    """The server's handle on its match worker (use :func:`open_match_worker`).

    :meth:`play` is a :data:`~arena.competition.ladder.RemotePlay`;
    :meth:`forget` and :meth:`drop` are the pool's, forwarded.
    """

    def __init__(
        self, setup: Setup, say: Callable[[str], None], *, otherwise: str = SERVER_OTHERWISE, session: bool = False
    ) -> None:
        self.setup = setup
        self.say = say
        self.otherwise = otherwise
        """What the organiser can do instead when no worker starts (said with the error)."""
        self.session = session
        """Start each worker in a session of its own (see :func:`spawn_worker`)."""
        self.spawned: list[subprocess.Popen[bytes]] = []
        """A process :func:`spawn_worker` started ahead, for the first worker (it is then this one's to stop)."""
        self._life: _Life | None = None
        self._changed = trio.Event()
        self._next_id = 0
        self.restarts = 0
        """Workers started after the first died."""

    @property
    def pid(self) -> int | None:
        """The running worker's process id."""
        return self._life.process.pid if self._life and not self._life.dead else None

    @property
    def ready(self) -> bool:
        """Whether a worker is up and has said it is ready (a match handed over now starts without waiting for one)."""
        return self._life is not None and self._life.ready and not self._life.dead

    async def _usable(self) -> _Life:
        while self._life is None or not self._life.ready or self._life.dead:
            changed = self._changed
            await changed.wait()
        return self._life

    async def wait_ready(self) -> None:
        """Until a worker is up and has said it is ready (at once if one is)."""
        await self._usable()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _ask(self, message: tuple[Any, ...]) -> Any:
        life = await self._usable()
        self._next_id += 1
        ident = self._next_id
        answer = _Answer(play=message[0] == "play")
        life.waiting[ident] = answer
        try:
            life.send.send_nowait(frame((message[0], ident, *message[1:])))
            await answer.done.wait()
        except trio.Cancelled:
            if answer.play and not answer.done.is_set() and not life.dead:  # the match stops there too
                life.send.send_nowait(frame(("abort", ident)))
            raise
        finally:
            life.waiting.pop(ident, None)
        if answer.lost:
            raise MatchLost("the match worker died")
        if answer.withdrawn:
            raise Withdrawn("a bot of the match left the field before its turn came")
        if answer.error:
            raise WorkerError(f"the match worker failed:\n{answer.error}")
        return answer.value

    async def play(self, scheduled: Scheduled, specs: Mapping[str, BotSpec], log_path: Path | None) -> PlayedMatch:
        """Play ``scheduled`` in the worker (raises :class:`MatchLost` if the worker dies meanwhile)."""
        named = {name: specs[name] for name in (scheduled.bot_a, scheduled.bot_b)}
        match: PlayedMatch = await self._ask(("play", scheduled, named, log_path))
        return match

    async def pool_state(self) -> PoolState:
        """The worker's pool as it is now."""
        state: PoolState = await self._ask(("pool",))
        return state

    def _tell(self, message: tuple[Any, ...]) -> None:
        life = self._life
        if life is not None and life.ready and not life.dead:  # a new worker has no processes to tell about
            life.send.send_nowait(frame(message))

    async def warm(self, spec: BotSpec, limits: Limits, count: int) -> None:
        """Start ``count`` processes of ``spec`` in the worker, idle for its first matches (:meth:`BotPool.warm`)."""
        await self._ask(("warm", spec, limits, count))

    def forget(self, deal: int) -> None:
        """No match on ``deal`` is left to play (see :meth:`BotPool.forget`)."""
        self._tell(("forget", deal))

    def drop(self, name: str) -> None:
        """Stop the idle processes of bot ``name`` (see :meth:`BotPool.drop`); its matches handed over but not
        yet begun are withdrawn (:class:`MatchLost`)."""
        self._tell(("drop", name))

    def _spawn(self) -> subprocess.Popen[bytes]:
        if self.spawned:  # started ahead (spawn_worker): Python has been importing the arena meanwhile
            return self.spawned.pop()
        return spawn_worker(session=self.session)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Keep a worker running until cancelled; started once the first one is ready."""
        failures = 0
        while True:
            process = self._spawn()
            assert process.stdin is not None and process.stdout is not None
            if self.setup.cpus:  # now, not when it has read its Setup: it is still importing (its one thread)
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(process.pid, self.setup.cpus)
            to_worker = trio.lowlevel.FdStream(os.dup(process.stdin.fileno()))
            from_worker = trio.lowlevel.FdStream(os.dup(process.stdout.fileno()))
            process.stdin.close()
            process.stdout.close()
            send, receive = trio.open_memory_channel[bytes](math.inf)
            life = _Life(process, send)
            self._life = life
            reason = ""
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_write_all, to_worker, receive)
                    setup = self.setup  # a new worker's processes are numbered from 1 again: other stderr files
                    if self.restarts:
                        setup = dataclasses.replace(setup, stamp=f"{setup.stamp}r{self.restarts}")
                    send.send_nowait(frame(setup))
                    reason = await self._read(life, Frames(from_worker), task_status)
                    task_status = trio.TASK_STATUS_IGNORED
                    nursery.cancel_scope.cancel()
            finally:
                life.dead = True
                lost = sum(answer.play for answer in life.waiting.values())  # counted before they go
                for answer in life.waiting.values():
                    answer.lost = True
                    answer.done.set()
                self._notify()
                send.close()
                with trio.CancelScope(shield=True):
                    if not life.ready and process.poll() is None:
                        process.kill()  # still starting (no bot yet): a run over before it was up waits for nothing
                    await to_worker.aclose()  # end of file: the worker stops its bots and exits
                    code = await _reap(process, STOP_GRACE_S)
                    await from_worker.aclose()
            if not life.ready and not self.restarts:
                raise WorkerError(
                    f"the match worker ({sys.executable} -c '{WORKER_MAIN}') did not start (exit code"
                    f" {code}): see the lines above; {self.otherwise}"
                )
            failures = 0 if life.played else failures + 1
            self.restarts += 1
            delay = RESTART_DELAYS_S[min(failures, len(RESTART_DELAYS_S)) - 1] if failures else 0.0
            self.say(
                f"the match worker (pid {process.pid}) {reason or 'stopped'} (exit code {code}):"
                f" {lost} matches in play will be played again; starting a new one"
                + (f" in {delay:g} s" if delay else "")
            )
            await trio.sleep(delay)

    async def _read(self, life: _Life, frames: Frames, task_status: trio.TaskStatus[None]) -> str:
        """Dispatch the worker's answers until it ends; why it ended."""
        while True:
            try:
                message = await frames.receive()
            except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
                return f"sent something unreadable ({exc})"
            except trio.BrokenResourceError:
                message = None
            if message is None:
                return "died"
            kind = message[0]
            if kind == "ready":
                life.ready = True
                self._notify()
                task_status.started()
                task_status = trio.TASK_STATUS_IGNORED
                continue
            answer = life.waiting.get(message[1])
            if answer is None:
                continue  # its asker was cancelled
            if kind == "error":
                answer.error = message[2]
            elif kind == "withdrawn":
                answer.withdrawn = True
            else:
                answer.value = message[2]
                life.played += kind == "played"
            answer.done.set()


async def _reap(process: subprocess.Popen[bytes], grace: float) -> int:
    """Wait up to ``grace`` seconds for ``process`` to exit, then kill it; its exit code."""
    with trio.move_on_after(grace):
        while process.poll() is None:
            await trio.sleep(0.02)
    if process.poll() is None:
        process.kill()
        await trio.to_thread.run_sync(process.wait)
    return process.returncode


@contextlib.asynccontextmanager
async def open_match_worker(
    game: str,
    params: Mapping[str, object],
    limits: Limits,
    *,
    tournament_id: int,
    jobs: int,
    stderr_dir: Path | None,
    stamp: str,
    say: Callable[[str], None] = lambda _text: None,
    reuse: bool = True,
    otherwise: str = SERVER_OTHERWISE,
    wait: bool = True,
) -> AsyncIterator[MatchWorker]:
    """A running match worker (ready to play); on leaving, it stops its bots and exits (or is killed).

    With ``wait`` false, the worker is still starting when the block begins (Python imports the arena for half a
    second or more): what is asked of it meanwhile waits until it is ready (:meth:`MatchWorker.wait_ready`), and a
    first worker that cannot start ends the block with its :class:`WorkerError`.
    """
    setup = match_setup(
        game, params, limits, tournament_id=tournament_id, jobs=jobs, stderr_dir=stderr_dir, stamp=stamp, reuse=reuse,
        sync_waits=False,  # (a server's: see Setup.sync_waits)
    )  # fmt: skip
    worker = MatchWorker(setup, say, otherwise=otherwise)
    async with trio.open_nursery() as nursery:
        if wait:
            await nursery.start(worker.run)
        else:
            nursery.start_soon(worker.run)
        try:
            yield worker
        finally:
            nursery.cancel_scope.cancel()


def match_setup(
    game: str,
    params: Mapping[str, object],
    limits: Limits,
    *,
    tournament_id: int,
    jobs: int,
    stderr_dir: Path | None,
    stamp: str,
    reuse: bool = True,
    sync_waits: bool = True,
    cpus: frozenset[int] | None = None,
) -> Setup:
    """The :class:`Setup` of a worker that plays ``game``'s matches, in this process's sandbox policy."""
    return Setup(
        game, dict(params), limits, tournament_id, jobs, current_policy(), stderr_dir, stamp, reuse=reuse,
        sync_waits=sync_waits, cpus=cpus,
    )  # fmt: skip


# A tournament over several processes ---------------------------------------------------------------
LocalPlay = Callable[[Scheduled, "Path | None"], Awaitable["PlayedMatch | None"]]
"""Plays a scheduled match in the tournament's own process (``None``: not played, a bot of it was disqualified)."""
LOCAL = -1
""":meth:`Supervisors._pick`'s answer for the tournament's own process."""
LOST_TRIES = 3
"""Times a match is handed over again after the process playing it died, before the run stops with an error (a bug,
or something that takes its supervisor down every time: better said than looped on)."""


class Supervisors:
    """A tournament's matches played by several match workers: a :class:`~arena.competition.runner.MatchExecutor`.

    The tournament (:func:`~arena.competition.runner.run_tournament`) keeps
    the schedule, the store, the progress and the fault counts in its own
    process, and hands each match it may start to the worker with the most
    room. Each worker plays its share of ``jobs`` at once and holds ``waiting``
    more matches waiting their turn (one; with bots that start a fresh process
    for every match, :data:`~arena.supervisor._pool.STARTS_AHEAD`, whose
    processes it starts ahead, as the runner does in one process), so it
    never idles while the tournament records a result and hands the next one
    over. Every match of a persistent bot goes to the first worker, where
    its one process lives; the runner hands them over one at a time, in
    schedule order. A worker that dies loses the matches it held
    (:class:`MatchLost`): they are handed over again, to the new worker that
    takes its place or another, and recorded once, when one is played to its
    end.
    """

    def __init__(
        self,
        workers: list[MatchWorker],
        shares: list[int],
        specs: Mapping[str, BotSpec],
        *,
        local: LocalPlay | None = None,
        local_share: int = 0,
        waiting: int = 1,
    ) -> None:
        self.workers = workers
        self.shares = shares
        """How many matches each worker plays at once."""
        self.specs = specs
        self.held = [0] * len(workers)
        """Matches handed to each worker and not yet answered."""
        self.replayed = 0
        """Matches handed over again because the worker playing them died."""
        self.unforgotten: list[list[int]] = [[] for _ in workers]
        """Deals each worker is yet to be told it may forget: told with its next match (in the same write)."""
        self.local = local
        """Plays a match in this process (the tournament's own), beside the workers: see :func:`open_supervisors`."""
        self.local_share = local_share if local is not None else 0
        self.local_held = 0
        self.waiting = max(1, waiting)
        """Matches each process holds beyond its share, waiting their turn."""

    @property
    def slots(self) -> int:
        """How many matches may be handed over at once: each worker's share, and ``waiting`` more in each (here
        too)."""
        here = self.local_share + self.waiting if self.local is not None else 0
        return sum(self.shares) + self.waiting * len(self.workers) + here

    def _pick(self, scheduled: Scheduled) -> int:
        """The worker to play ``scheduled`` (``-1``: this process), the one with the most room."""
        if self.local is not None:
            if scheduled.persistent:  # their one process lives here
                return LOCAL
            # Here, or a worker that is up (one still starting would hold the match until it is): the most room,
            # this process first (its matches cross no pipe).
            full = self.local_held >= self.local_share + self.waiting
            room = [] if full else [(self.local_held - self.local_share, LOCAL)]
            room += [(self.held[i] - self.shares[i], i) for i, worker in enumerate(self.workers) if worker.ready]
            if room:
                return min(room)[1]
            return min(range(-1, len(self.workers)), key=lambda i: (self._room(i), i))
        if scheduled.persistent:  # their one process lives in the first worker
            return 0
        return min(range(len(self.workers)), key=lambda i: (self._room(i), i))

    def _room(self, index: int) -> int:
        if index == LOCAL:
            return self.local_held - self.local_share
        return self.held[index] - self.shares[index]

    async def __call__(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch | None:
        """Play ``scheduled`` in a worker, again in another if the first died meanwhile (``None``: see :meth:`drop`)."""
        for attempt in range(LOST_TRIES + 1):
            index = self._pick(scheduled)
            if index == LOCAL:
                assert self.local is not None
                self.local_held += 1
                try:
                    return await self.local(scheduled, log_path)
                finally:
                    self.local_held -= 1
            self.held[index] += 1
            worker = self.workers[index]
            for deal in self.unforgotten[index]:
                worker.forget(deal)
            self.unforgotten[index].clear()
            try:
                return await worker.play(scheduled, self.specs, log_path)
            except Withdrawn:  # a bot of it was disqualified (drop) while it waited its turn
                return None
            except MatchLost:
                if attempt == LOST_TRIES:
                    raise WorkerError(
                        f"match {scheduled.key}: the processes playing it died {LOST_TRIES + 1} times over"
                        " (see the lines above); run it in one process (--processes 1) to see why"
                    ) from None
                self.replayed += 1
            finally:
                self.held[index] -= 1
        raise AssertionError("unreachable")

    def forget(self, deal: int) -> None:
        """No match on ``deal`` is left to play (:meth:`BotPool.forget`): each worker is told before its next match.

        A process that played the deal is only ever passed over for a match on
        it, so the news matters to a worker only when it is handed one.
        """
        for deals in self.unforgotten:
            deals.append(deal)

    def drop(self, name: str) -> None:
        """Bot ``name`` is disqualified: none of its matches starts from now, those waiting their turn are not played.

        As in one process, where a match waiting for a place never starts
        once a bot of it is disqualified; those under way finish.
        """
        for worker in self.workers:
            worker.drop(name)

    async def pool_stats(self) -> PoolStats:
        """The processes the live workers started and reused, summed (a dead worker's are lost with it)."""
        total = PoolStats()
        for worker in self.workers:
            if worker.pid is None:
                continue
            with trio.move_on_after(STOP_GRACE_S):
                state = await worker.pool_state()
                for name, count in state.stats.items():
                    setattr(total, name, getattr(total, name) + count)
        return total


@contextlib.asynccontextmanager
async def open_supervisors(
    game: str,
    params: Mapping[str, object],
    limits: Limits,
    specs: Mapping[str, BotSpec],
    *,
    tournament_id: int,
    jobs: int,
    processes: int,
    reuse: bool,
    stderr_dir: Path | None,
    say: Callable[[str], None] = lambda _text: None,
    local: LocalPlay | None = None,
    spawned: list[subprocess.Popen[bytes]] | None = None,
    pin: bool = True,
) -> AsyncIterator[Supervisors]:
    """``processes`` supervisor processes (no more than ``jobs``) sharing ``jobs`` matches at once.

    With ``local`` this process is one of them: it plays its share of the
    matches (through ``local``) from the start, and ``processes - 1`` match
    workers start beside it and take matches as each is ready (a worker's
    start, Python importing the arena, takes a few tenths of a second: the
    first matches do not wait for it). Without, ``processes`` match workers,
    all started and ready before this returns. The workers take their
    processes from ``spawned`` while it has some (:func:`spawn_worker`,
    started ahead by the caller, who stops what is left: :func:`stop_spawned`).

    With ``pin``, one process per CPU this process may use and every bot
    reusing its processes, each process (this one too, with ``local``, until
    it leaves) and its bots keep to a CPU of their own
    (:mod:`~arena.competition.cpus`: a match's wakeups then stay on one CPU).

    On leaving, each worker stops its bots and exits (or is killed), as
    :func:`open_match_worker`'s; a killed caller takes them with it
    (``PR_SET_PDEATHSIG``), and the sandbox's lifelines their bots.
    """
    count = max(1, min(processes, jobs))
    shares = [jobs // count + (index < jobs % count) for index in range(count)]
    local_share = shares.pop(0) if local is not None else 0
    # Bots that start a fresh process for every match: each process holds the matches whose processes it starts
    # ahead (a start takes longer than a quick match); reused processes need none started. Their starts are not
    # pinned either: a start (bubblewrap, the launcher, the bot's interpreter) is tens of milliseconds of CPU, and
    # kept to its supervisor's CPU it waits for that CPU while the other idles (cpus' docstring has the figures).
    fresh = not reuse or not all(spec.reuse for spec in specs.values())
    pins = pinning(count, allowed_cpus(), enabled=pin and not fresh)
    cpus: list[frozenset[int] | None] = list(pins) if pins is not None else [None] * count
    local_cpus = cpus.pop(0) if local is not None else None
    workers = [
        MatchWorker(
            match_setup(
                game, params, limits, tournament_id=tournament_id, jobs=share, stderr_dir=stderr_dir,
                stamp=f"p{index + 1}", reuse=reuse, cpus=cpus[index],
            ),
            say,
            otherwise="or play in one process (--processes 1)",
            session=True,
        )
        for index, share in enumerate(shares)
    ]  # fmt: skip
    for worker in workers:
        if spawned:
            worker.spawned.append(spawned.pop())
    with pinned(local_cpus):
        async with trio.open_nursery() as nursery:
            if local is not None:
                for worker in workers:
                    nursery.start_soon(worker.run)
            else:
                async with trio.open_nursery() as starting:  # side by side: each start is mostly Python's imports
                    for worker in workers:
                        starting.start_soon(nursery.start, worker.run)
            try:
                waiting = STARTS_AHEAD if fresh else 1
                yield Supervisors(workers, shares, specs, local=local, local_share=local_share, waiting=waiting)
            finally:
                nursery.cancel_scope.cancel()
