"""One bot process under the supervisor's control (trio).

``open_bot`` starts a bot inside its sandbox (:mod:`arena.sandbox`: a jail of
the strongest layers this machine offers) and guarantees that, whatever
happens (a fault, a cancel, Ctrl-C), the process and every descendant it left
are killed and reaped, and its jail removed, before the ``async with`` block
is left.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import errno
import fcntl
import math
import os
import select
import shutil
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import psutil
import trio

from protocol import Limits

from .._errors import BotFault, Crash, DiskLimit, MemoryLimit, OutputLimit, Timeout
from ..bots.js import with_host
from ..bots.spec import BotSpec
from ..sandbox import Jail, SandboxPolicy, built_folder, capabilities, current_policy, supervisor_tag
from .wires import unexpected_answer

GRACE_S = 0.5
"""How long a bot may take to exit once told to, before it is killed."""
EXIT_GRACE_S = 2.0
"""How long after a bot's output closes the arena waits to learn how it ended (its exit code or signal)."""
_CHUNK = 1 << 16
STDERR_DROP_PAUSE_S = 0.1
"""Past a bot's kept stderr, how long the arena lets the rest pile up between two gulps.

A flood then costs the arena one wake-up per pause, whatever its rate (the
wake-up, not the bytes, is what costs); the bot's writes wait while its pipe
is full, as they would on a slow terminal.
"""
STDERR_DROP_BYTES = 1 << 20
"""Most bytes of stderr thrown away per gulp (the pipe is enlarged to hold it): a flood gets 10 MB/s through.

Enough that a bot writing a burst of tens of MiB is not stalled for long.
"""
_ABANDONED_KEPT = 256
BACKGROUND_CPU_SHARE = 0.05
"""The share of one CPU a bot's processes may use, on average, while no request is pending.

Whatever they use then is charged to the next move as well; this bounds it
apart, since a fast match leaves a move's own budget nearly untouched: busy
loops left running between moves, each gap a millisecond, never came near it.
"""
BACKGROUND_CPU_BURST_S = 0.5
"""The most CPU seconds a bot's processes may use at once while no request is pending (a garbage collector, a JIT)."""
REST_S = 0.002
"""How long a bot never seen using CPU between moves may rest unfrozen after its answer, while the arena goes on.

Its next request usually follows sooner (the other seat's answer, the
rules' step): it is then neither frozen nor thawed, a freeze and a thaw
(a write to the cgroup each, and two wake-ups of every process of the bot)
saved per move. Once the arena would wait longer, it is frozen. What it used
in the meantime is charged to its next move, as ever; a bot seen using more
than ``BUSY_BETWEEN_MOVES_S`` so is frozen at every answer from then on.
"""
BUSY_BETWEEN_MOVES_S = 0.001
"""CPU seconds used between an answer and the next request past which a bot is frozen at once after every answer."""


@dataclass
class Stats:
    """What the supervisor counted of one bot process."""

    bytes_out: int = 0
    stderr_bytes: int = 0
    stderr_dropped: int = 0
    stderr_drops: int = 0
    """Gulps of stderr thrown away past the kept limit (at most one per ``STDERR_DROP_PAUSE_S``, and one more)."""
    peak_rss: int = 0
    started_at: float = 0.0
    requests: int = 0


@dataclass
class SpawnOptions:
    """How to start a bot: environment, limits on lines and stderr."""

    env: dict[str, str] = field(default_factory=dict)
    line_bytes: int = 1 << 16
    stderr_bytes: int = 1 << 20
    stderr_path: Path | None = None
    cwd: Path | None = None
    limits: Limits = field(default_factory=Limits)
    """Memory, processes, file size and open files for the sandbox (the rest is the match's business)."""
    sandbox: SandboxPolicy | None = field(default_factory=current_policy)
    """The sandbox policy; ``None`` starts the bot bare (trusted bots, and tests of the arena itself)."""
    writable: tuple[Path, ...] = ()
    """Folders of the arena's the process may write besides its scratch (a build's folder), sealed after it."""
    merge_output: bool = False
    """Send stdout where stderr goes (the log) and give an empty stdin: for a build, not a bot."""


def bot_environment(spec: BotSpec, scratch: Path | None = None) -> dict[str, str]:
    """A small, clean environment: nothing of the organiser's leaks to a bot."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": str(scratch or spec.cwd),
        "TMPDIR": str(scratch or "/tmp"),
        # Python bots that forget to flush still work; other languages must flush.
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARENA_BOT_NAME": spec.name,
    }
    return env


class BotProcess:
    """A running bot: write lines to it, read bounded lines from it."""

    def __init__(self, spec: BotSpec, process: trio.Process, options: SpawnOptions, jail: Jail | None = None) -> None:
        self.spec = spec
        self.process = process
        self.options = options
        self.jail = jail
        """The bot's sandbox, or ``None`` when it runs bare."""
        self._abandoned_polls = 0
        self._now = trio.lowlevel.current_clock().current_time  # trio's time in one call (current_time makes three)
        self.stats = Stats(started_at=self._now())
        self._buffer = bytearray()
        self._eof = False
        self._unasked = 0
        self._stdout_poll: select.poll | None = None
        self.line_unasked = False
        """Whether the line :meth:`read_line` last returned was written before the pending request was sent."""
        self.next_id = 1
        self.pending: int | None = None
        """The id of the request awaiting its answer, if one is."""
        self._abandoned: deque[int] = deque(maxlen=_ABANDONED_KEPT)
        self.matches_played = 0
        self.closed = False
        self.breach: BotFault | None = None
        """A limit the arena ended the bot for while no move was awaited (its disk, its CPU), reported as its fault."""
        self.cpu_charged = 0.0
        """CPU seconds of the bot's tree already charged to it (to its moves, or to the end of a match).

        What the tree uses beyond, between moves or while idle in a pool, is
        charged to its next move (:meth:`idle_cpu_s`), so CPU is never free,
        and must stay within its background allowance (:meth:`begin_request`).
        """
        self._idle_since: float = self.stats.started_at
        """When the bot last had no request pending from (its last answer, or its start)."""
        self._background = BACKGROUND_CPU_BURST_S
        """The background allowance left at ``_idle_since`` (CPU seconds)."""
        self._started_up = False
        """Whether it has answered once: until then its CPU is its start-up's (``startup_s``), not background."""
        self.idle_at_request: float | None = None
        """CPU seconds used between the last charge and the request just sent (``None``: unmeasurable)."""
        self.frozen = False
        """Whether its processes are frozen now (:meth:`freeze`: no request pending, and its jail has a freezer)."""
        self.resting_since: float | None = None
        """When it answered, if it rests unfrozen since (:data:`REST_S`): its match freezes it once it would wait."""
        self.busy_between_moves = False
        """Whether it was seen using CPU while no request was pending: then frozen at once after every answer."""
        self._watching = trio.CancelScope()
        self._stderr_sink: BinaryIO | None = None
        self._stderr_open = False
        """Whether the draining task keeps stderr now (:meth:`pull_stderr` may take from it)."""
        self.stderr_listener: Callable[[bytes | bytearray], None] | None = None
        """Called with each kept chunk of stderr (the match in progress copies lines into its log)."""
        try:
            self._ps: psutil.Process | None = psutil.Process(process.pid)
        except psutil.Error:
            self._ps = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def take_id(self) -> int:
        """A fresh request id, now the pending one: ids never repeat over the life of the process.

        A request still pending when the next id is taken was abandoned (its
        wait ended without an answer: a timeout, or its match ended first); a
        late answer to it is ignored, never taken for a later request.
        """
        if self.pending is not None:
            self._abandoned.append(self.pending)
        self.pending = self.next_id
        self.next_id += 1
        return self.pending

    def judge_answer(self, answer_id: int, *, unasked: bool) -> bool:
        """Whether an answer with ``answer_id`` answers the pending request (and is no longer pending).

        ``False`` for a late answer to an abandoned request, to be ignored.
        Anything else raises :class:`ProtocolViolation`: an answer written
        before its request was sent (``unasked``), a second answer, an id
        never sent.
        """
        if answer_id == self.pending and not unasked:
            self.pending = None
            self.rest()
            return True
        if answer_id in self._abandoned:
            self._abandoned.remove(answer_id)
            return False
        raise unexpected_answer(answer_id, self.pending, self.next_id - 1, unasked=unasked)

    def rest(self) -> None:
        """Call as it answers: frozen now if it was ever seen busy between moves, else resting (:data:`REST_S`)."""
        if self.busy_between_moves or self.jail is None or not self.jail.freezable():
            self.freeze()
        else:
            self.resting_since = self._now()

    def freeze(self) -> None:
        """Freeze every process of the bot, where its jail can (a cgroup freezer): call when no request is pending.

        Whatever it left running (busy loops, children) then gets no CPU at
        all until :meth:`thaw`, which :meth:`send` calls as a request goes
        out. Lines written to a frozen bot wait in its pipe.
        """
        self.resting_since = None
        if not self.frozen and not self.closed and self.jail is not None and self.jail.freezable():
            self.frozen = self.jail.set_frozen(True)

    def thaw(self) -> None:
        """Let the bot's processes run again (before a request is written, or before it is stopped)."""
        if self.frozen and self.jail is not None:
            self.jail.set_frozen(False)
            self.frozen = False

    async def send(
        self, data: bytes, *, timeout: float | None = None, before_wait: Callable[[], None] | None = None
    ) -> None:
        """Write ``data``: a bot that closed its input crashed; one that takes none of it in ``timeout`` s timed out.

        The pipe nearly always has room: the bytes go in one ``write`` at once,
        with no trip through trio's scheduler; only what does not fit is
        waited for. A frozen bot is thawed first when a request is pending
        (``data`` ends with it), and also, only for as long as the write takes,
        when notices fill its pipe: a frozen bot never blocks the arena.
        ``before_wait`` is called before the arena waits for room (its match
        freezes its resting bots then).
        """
        stdin = self.process.stdin
        assert stdin is not None
        if self.pending is not None:
            self.resting_since = None
            self.thaw()
        try:
            written = os.write(stdin.fileno(), data)  # type: ignore[attr-defined]  # trio keeps it non-blocking
        except BlockingIOError:
            written = 0
        except OSError:  # a closed pipe (EPIPE), or our end already closed (EBADF)
            raise await self._exit_fault("closed its input") from None
        if written == len(data):
            return
        if before_wait is not None:
            before_wait()
        refreeze = self.frozen
        self.thaw()
        try:
            await self._send_rest(data[written:], timeout)
        finally:
            if refreeze and self.pending is None:
                self.freeze()

    async def _send_rest(self, data: bytes, timeout: float | None) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with trio.move_on_after(math.inf if timeout is None else timeout) as waited:
            try:
                await stdin.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                raise await self._exit_fault("closed its input") from None
        if waited.cancelled_caught:
            raise Timeout(f"did not read its input for {timeout:g}s")

    async def read_line(self, *, output_budget: int, move_budget: int | None = None) -> bytes:
        """The next line the bot writes (without ``\\n``); :attr:`line_unasked` tells whether it came unasked.

        Raises :class:`OutputLimit` for a line over ``line_bytes``, output
        over ``output_budget`` (a match's) or ``move_budget`` (a move's, both
        counted in ``stats.bytes_out``); :class:`Crash` when the output closes
        (:class:`MemoryLimit` when the kernel killed it for memory). Cancel it
        (a move's deadline) to stop waiting.
        """
        while True:
            line = await self.poll_line(output_budget=output_budget, move_budget=move_budget)
            if line is not None:
                return line
            await trio.lowlevel.wait_readable(self.stdout_fd)

    async def poll_line(self, *, output_budget: int, move_budget: int | None = None) -> bytes | None:
        """What :meth:`read_line` returns if the bot has written the whole line yet, else ``None``, without waiting.

        Reads the pipe at most once (up to 64 KiB), so a bot that floods its
        output costs a bounded amount of work per call; it waits only to learn
        how a bot whose output closed ended.
        """
        limit = self.options.line_bytes
        read = False
        while True:
            if move_budget is not None and self.stats.bytes_out > move_budget:
                raise OutputLimit(f"more than {self.options.limits.move_output_bytes} bytes of output in one move")
            line = self.ready_line()
            if line is not None:
                return line
            if self._eof:
                raise await self._exit_fault("closed its output")
            if read:
                return None
            read = True
            try:
                chunk = os.read(self.stdout_fd, _CHUNK)
            except BlockingIOError:
                return None
            except OSError as exc:  # as trio's own stream reports it
                closed = exc.errno == errno.EBADF
                raise (trio.ClosedResourceError() if closed else trio.BrokenResourceError()) from None
            if not chunk:
                self._eof = True
                continue
            self.stats.bytes_out += len(chunk)
            self._buffer += chunk
            if self.stats.bytes_out > output_budget and self._buffer.find(b"\n", 0, limit + 1) >= 0:
                # output_budget counts from the process's start; the limit is per match.
                raise OutputLimit(f"more than {self.options.limits.output_bytes} bytes of output in one match")

    @property
    def stdout_fd(self) -> int:
        """The arena's end of the bot's output pipe (non-blocking; trio's stream owns it)."""
        assert self.process.stdout is not None
        return self.process.stdout.fileno()  # type: ignore[attr-defined, no-any-return]

    @property
    def stderr_fd(self) -> int:
        """The arena's end of the bot's stderr pipe while its draining task reads it, else -1."""
        if not self._stderr_open or self.process.stderr is None:
            return -1
        return self.process.stderr.fileno()  # type: ignore[attr-defined, no-any-return]

    @property
    def has_read_ahead(self) -> bool:
        """Whether output already read waits in the buffer (a line, or part of one)."""
        return bool(self._buffer)

    def ready_line(self) -> bytes | None:
        """The next line already read (without ``\\n``), or ``None``; sets :attr:`line_unasked`."""
        limit = self.options.line_bytes
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > limit:
                raise OutputLimit(f"line of more than {limit} bytes without a newline")
            return None
        if end > limit:
            raise OutputLimit(f"line of more than {limit} bytes")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self.line_unasked = self._unasked > 0
        if self.line_unasked:
            self._unasked = max(0, self._unasked - end - 1)
        return line.rstrip(b"\r")

    def mark_unasked(self) -> None:
        """Call just before sending a request: what the bot wrote until now was written unasked.

        Reads, without waiting, what is already in the pipe (up to about a
        line's worth), so that answers written ahead of their requests are
        told apart from answers; costs one ``poll`` when nothing is there.
        """
        fd = self.stdout_fd
        if fd < 0:  # closed under the match (its processes stopped at Ctrl-C): reading it says so, as trio would
            return
        if self._stdout_poll is None:
            self._stdout_poll = select.poll()
            self._stdout_poll.register(fd, select.POLLIN)
        room = self.options.line_bytes + _CHUNK
        while not self._eof and len(self._buffer) < room and self._stdout_poll.poll(0):
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError:  # nothing after all, or closed: read_line reports how it ended
                break
            if not chunk:
                self._eof = True
                break
            self.stats.bytes_out += len(chunk)
            self._buffer += chunk
        self._unasked = len(self._buffer)

    def cpu_seconds(self) -> float | None:
        """CPU time of the bot's whole process tree so far, or ``None`` when it cannot be measured."""
        if self.jail is not None:
            return self.jail.cpu_seconds()
        if self._ps is None:
            return None
        total = 0.0
        with contextlib.suppress(psutil.Error):
            for proc in [self._ps, *self._ps.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    times = proc.cpu_times()
                    total += times.user + times.system + times.children_user + times.children_system
        return total

    def idle_cpu_s(self) -> float | None:
        """CPU seconds the tree used since it was last charged (since its last answer): ``None`` if unmeasurable."""
        now = self.cpu_seconds()
        return None if now is None else max(0.0, now - self.cpu_charged)

    def _allowance(self) -> float:
        """The background CPU the bot may have used since ``_idle_since`` (refilled at its share, up to the burst)."""
        refill = BACKGROUND_CPU_SHARE * max(0.0, self._now() - self._idle_since)
        return min(BACKGROUND_CPU_BURST_S, self._background + refill)

    def _over_allowance(self, used: float | None, allowance: float) -> Timeout | None:
        """A :class:`Timeout` when ``used`` CPU seconds since the last charge are over the background allowance."""
        if used is None or used <= allowance or not self._started_up:
            return None
        return Timeout(
            f"used {used:.3g}s of CPU while no request was pending (between moves or matches), over its allowance "
            f"of {allowance:.3g}s ({BACKGROUND_CPU_SHARE:.0%} of a CPU on average, {BACKGROUND_CPU_BURST_S:g}s at most)"
        )

    def begin_request(self) -> Timeout | None:
        """Call as a request is sent: the background allowance is drawn on for the CPU used since the last charge.

        A :class:`Timeout` when that is over the allowance (the request is
        then not sent). The CPU read is kept in :attr:`idle_at_request`.
        """
        used, allowance = self.idle_cpu_s(), self._allowance()
        self.idle_at_request = used
        if used is not None and used > BUSY_BETWEEN_MOVES_S and self._started_up:
            self.busy_between_moves = True
        fault = self._over_allowance(used, allowance)
        if fault is None:
            self._background = allowance - (used or 0.0)
            self._idle_since = math.inf  # no refill while a request is pending
        return fault

    def charged(self, cpu_now: float) -> None:
        """Everything the tree used up to the reading ``cpu_now`` is charged (a move's end): idle from now."""
        self.cpu_charged = max(self.cpu_charged, cpu_now)
        self._idle_since = self._now()
        self._started_up = True

    def idle_cpu_fault(self) -> Timeout | None:
        """A :class:`Timeout` when the CPU used since the last charge is over the background allowance, or more
        than the bot's next move could use.

        Checked on a process idle in a pool (its next match would fault it
        anyway): a bot that leaves busy loops running between matches is
        ended as soon as they have used its allowance, not minutes later,
        when that match comes.
        """
        used = self.idle_cpu_s()
        background = self._over_allowance(used, self._allowance())
        if background is not None:
            return background
        limits = self.options.limits
        budget = limits.move_s + limits.time_bank_s + (limits.startup_s if self.stats.requests == 0 else 0.0)
        if used is None or used <= budget:
            return None
        return Timeout(
            f"used {used:.3g}s of CPU while no request was pending (between moves or matches), "
            f"more than the {budget:.3g}s its next move may use"
        )

    def end_for(self, fault: BotFault) -> None:
        """End the bot now, while no move is awaited, for ``fault``: what its next match records."""
        self.breach = fault
        self.thaw()
        _kill_tree(self.process.pid, self._descendants())
        if self.jail is not None:
            self.jail.kill_all()

    def wants_cpu(self) -> bool:
        """Whether a thread of the bot's tree is runnable now (on a CPU or waiting for one) or waiting on the disk.

        Read once, when a wall-clock cap strikes: a bot that was runnable may
        have been held back by a busy machine or a small CPU weight, and one in
        the disk's queue (state D: loading its interpreter, say) by a busy
        disk; one that slept, or waited on a pipe, took its time by itself.
        """
        cgroup = self.jail.cgroup if self.jail is not None else None
        if cgroup is not None:
            pids = cgroup.pids()
        else:
            pids = [self.process.pid]
            with contextlib.suppress(psutil.Error):
                pids += [p.pid for p in self._ps.children(recursive=True)] if self._ps is not None else []
        return any(_runnable(pid) for pid in pids)

    def memory_fault(self) -> MemoryLimit | None:
        """A :class:`MemoryLimit` when the bot's tree is over its memory limit now (or was killed for it)."""
        limit = self.options.limits.memory_bytes
        if self.jail is not None and self.jail.oom_killed():
            return MemoryLimit(f"killed by the kernel for using more than {limit >> 20} MiB")
        used = self.sample_memory()
        if (self.jail is None or not self.jail.enforces_memory()) and used > limit:
            return MemoryLimit(f"used {used >> 20} MiB, over its limit of {limit >> 20} MiB")
        return None

    def output_fault(self) -> Crash | None:
        """A :class:`Crash` when the bot closed its stdout or stdin but a sandbox helper keeps the pipe open."""
        if self.jail is None or self.process.stdout is None or self.process.stdin is None or self._eof:
            return None
        found = None
        for stream, what in ((self.process.stdout, "output"), (self.process.stdin, "input")):
            fd: int = stream.fileno()  # type: ignore[union-attr]
            if self.jail.output_abandoned(os.fstat(fd).st_ino):
                found = what
                break
        if found is None:
            self._abandoned_polls = 0
            return None
        # Seen twice in a row: a bot that exited gives end-of-file (a precise crash) in between.
        self._abandoned_polls += 1
        return Crash(f"closed its {found} while still running") if self._abandoned_polls >= 2 else None

    def note_peak_memory(self) -> None:
        """Bring ``stats.peak_rss`` up to date: the peak the kernel recorded in a cgroup, else a sample now."""
        peak = self.jail.peak_memory_bytes() if self.jail is not None else None
        if peak is None:
            self.sample_memory()
        else:
            self.stats.peak_rss = max(self.stats.peak_rss, peak)

    def sample_memory(self) -> int:
        """Memory of the bot's process tree now (bytes), and track the peak."""
        if self.jail is not None:
            used = self.jail.memory_bytes()
            self.stats.peak_rss = max(self.stats.peak_rss, used)
            return used
        if self._ps is None:
            return 0
        total = 0
        try:
            procs = [self._ps, *self._ps.children(recursive=True)]
        except psutil.Error:
            return 0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
        self.stats.peak_rss = max(self.stats.peak_rss, total)
        return total

    async def watch_disk(self) -> None:
        """Measure the folders the jail cannot cap (no tmpfs here) until the bot ends; over ``disk_bytes``, end it.

        Polled every ``poll_s``, or ten times as long as a measure took (a
        bot with many files cannot make the arena spend more than a tenth of
        its time counting them). The bot is killed at once and its fault,
        ``disk_limit``, is what the match records when it reads the end.
        """
        assert self.jail is not None
        jail, limit = self.jail, self.options.limits.disk_bytes
        most = max(limit // 4096, 1024)
        with self._watching:
            await self._watch_disk(jail, limit, most)

    async def _watch_disk(self, jail: Jail, limit: int, most: int) -> None:
        while self.process.poll() is None:
            started = trio.current_time()
            used, entries = await trio.to_thread.run_sync(jail.disk_usage, most)
            took = trio.current_time() - started
            if used > limit or entries > most:
                over = f"{limit >> 20} MiB" if used > limit else f"{most} files and folders"
                held = f"{used >> 20} MiB in {entries} files"
                self.end_for(DiskLimit(f"its scratch held {held}, over its limit of {over}"))
                return
            await trio.sleep(max(jail.policy.poll_s, 10 * took))

    async def _exit_fault(self, what: str) -> BotFault:
        if self.breach is not None:
            return self.breach
        reason = await self._exit_reason(what)
        memory = self.memory_fault() if self.jail is not None else None
        if memory is not None:
            return MemoryLimit(f"{memory.reason} ({reason})")
        return Crash(reason)

    async def _exit_reason(self, what: str) -> str:
        # Shielded: the caller's short polling deadline must not turn a crash into a timeout.
        # A bot that exits closes its output a moment before the kernel reports the exit (longer
        # in a jail, and under load); waiting up to EXIT_GRACE_S makes the reason the same
        # whichever the arena sees first. Only a bot that closed its output and kept running
        # waits the whole grace, and it has ended its match by then anyway.
        with trio.CancelScope(shield=True), trio.move_on_after(EXIT_GRACE_S):
            await self.process.wait()
        code = self.process.poll()
        if code is None:
            return f"{what} while still running"
        note = self.jail.note if self.jail is not None else ""
        return f"{what}: {exit_status(code, note)}"

    async def drain_stderr(self) -> None:
        """Copy stderr to the bot's log file, keeping at most ``stderr_bytes``; drop the rest cheaply."""
        stream = self.process.stderr if self.process.stderr is not None else self.process.stdout
        assert stream is not None
        if self.options.stderr_path is not None:
            self.options.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            # 0600: what a bot writes to stderr is its owner's (and the organiser's) only.
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
            self._stderr_sink = os.fdopen(os.open(self.options.stderr_path, flags, 0o600), "ab")
        self._stderr_open = self.process.stderr is not None
        try:
            while self.stats.stderr_bytes < self.options.stderr_bytes:
                try:
                    chunk = await stream.receive_some(_CHUNK)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return
                if not chunk:
                    return
                self._keep_stderr(chunk)
            await self._drop_stderr(stream.fileno())  # type: ignore[attr-defined]
        finally:
            self._stderr_open = False
            sink, self._stderr_sink = self._stderr_sink, None
            if sink is not None:
                if self.stats.stderr_dropped:
                    sink.write(f"\n[arena: {self.stats.stderr_dropped} more bytes of stderr dropped]\n".encode())
                sink.close()

    def pull_stderr(self) -> None:
        """Take now, without waiting, what the bot has written to stderr so far (within its kept share).

        A match calls it as it takes an answer from a logged match: lines a
        bot wrote to stderr before its answer are then logged before it,
        whenever the draining task would have run.
        """
        if not self._stderr_open or self.process.stderr is None:
            return
        fd: int = self.process.stderr.fileno()  # type: ignore[attr-defined]
        while self.stats.stderr_bytes < self.options.stderr_bytes:
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError:  # nothing more now (or closed): the draining task goes on from here
                return
            if not chunk:
                return
            self._keep_stderr(chunk)

    def _keep_stderr(self, chunk: bytes | bytearray) -> None:
        """Keep what fits of ``chunk`` of stderr (the file, the match's listener), count the rest as dropped."""
        kept = chunk[: self.options.stderr_bytes - self.stats.stderr_bytes]
        self.stats.stderr_bytes += len(kept)
        self.stats.stderr_dropped += len(chunk) - len(kept)
        if self._stderr_sink is not None:
            self._stderr_sink.write(kept)
            self._stderr_sink.flush()
        if self.stderr_listener is not None:
            self.stderr_listener(kept)

    async def _drop_stderr(self, fd: int) -> None:
        """Past the kept limit: throw stderr away in the kernel, a pause's allowance at a time.

        ``fd`` is only touched right after checking that :meth:`shutdown` has
        not begun (it closes the stream, and the number could be reused).
        """
        with contextlib.suppress(OSError):  # the kernel may refuse (per-user pipe limits): smaller gulps then
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDERR_DROP_BYTES)
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            while True:
                dropped, ended = _drop(fd, null, STDERR_DROP_BYTES)
                if ended:
                    return
                try:
                    if dropped:  # a flood, perhaps: let it pile up (its writes wait) before the next gulp
                        self.stats.stderr_drops += 1
                        self.stats.stderr_dropped += dropped
                        await trio.sleep(STDERR_DROP_PAUSE_S)
                    else:
                        await trio.lowlevel.wait_readable(fd)
                except trio.ClosedResourceError:
                    return
                if self.closed:
                    return
        finally:
            os.close(null)

    async def shutdown(self, *, polite: bytes | None = None) -> None:
        """Stop the bot and everything it started, and reap it. Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        self._watching.cancel()
        with trio.CancelScope(shield=True):
            self.thaw()  # a frozen bot reads no goodbye, and (cgroup v1) does not even die of SIGKILL
            descendants = self._descendants()
            if polite is not None and self.process.poll() is None:
                with trio.move_on_after(GRACE_S):
                    with contextlib.suppress(BotFault):
                        await self.send(polite)
            if self.process.stdin is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self.process.stdin.aclose()
            with trio.move_on_after(GRACE_S if polite is not None else 0.05):
                await self.process.wait()
            descendants += [p for p in self._descendants() if p not in descendants]
            _kill_tree(self.process.pid, descendants)
            # The jail's own kill and removal in a thread (its cgroup's and UID's processes, its groups and
            # folders: milliseconds of system calls), so that the loop plays on meanwhile.
            if self.jail is not None:
                await trio.to_thread.run_sync(self.jail.kill_all)
            await self.process.wait()
            if self.jail is not None:
                self.sample_memory()
                await trio.to_thread.run_sync(self.jail.close)
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    with contextlib.suppress(trio.ClosedResourceError, OSError):
                        await stream.aclose()

    def _descendants(self) -> list[psutil.Process]:
        """What the bot started, by pid, to kill with it; none to find where its jail holds them all itself.

        Finding them walks every process on the machine (milliseconds each
        time); a jail's cgroup that the bot cannot leave kills them without it.
        """
        if self._ps is None or (self.jail is not None and self.jail.holds_every_process()):
            return []
        try:
            return list(self._ps.children(recursive=True))
        except psutil.Error:
            return []


class OutputWatch:
    """Waits, in one task, until any of several bots writes to its output, or a deadline passes.

    The bots' output pipes are in an epoll set of its own, and trio's loop
    watches that set's one file descriptor: a match awaits both seats'
    answers with one wait per wake-up, no task per seat. The only match of
    a process first waits in the thread, briefly (:data:`SYNC_WAIT`): see
    :meth:`wait`. Close it (or use ``with``) when done.
    """

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._known: set[int] = set()
        self._ready_tasks = ready_tasks()
        self._poll = select.poll()
        """The awaited pipes when waited for in the thread (level-triggered: nothing to re-arm between waits)."""
        self._polled: list[int] = []
        self._checkpoint_at = 0.0
        self._counted = _count_watch(+1)

    def __enter__(self) -> OutputWatch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if not self._epoll.closed:
            self._epoll.close()
            if self._counted:
                _count_watch(-1)

    async def wait(self, bots: Iterable[BotProcess], deadline: float) -> set[int]:
        """The output descriptors of ``bots`` that have something to read (or closed), once one has or at ``deadline``.

        Through trio's loop, each is armed for one report (a bot that writes
        on while it is no longer awaited wakes nobody); in the thread, only
        the awaited pipes are polled. The set may be empty at the deadline.
        """
        fds = [bot.stdout_fd for bot in bots]
        sync_wait_s = SYNC_WAIT.get()
        if sync_wait_s > 0 and _OPEN_WATCHES.get() == 1 and not self._ready_tasks():
            # The loop's only match, and no other task queued to run (one would run while the bots think, as it
            # does in trio's loop): a quick answer is waited for in this thread, with one poll() of the awaited
            # pipes, without a trip through trio's loop (a cancel scope, a registration and a wake-up: a quarter
            # of the arena's CPU a request). Nothing else in the process waits longer than SYNC_WAIT_S for it, and
            # the loop is visited at least every SYNC_WAIT_S even when every answer is quick (stderr drains, the
            # worker's pipe, cancellation).
            # Their stderr pipes too: what a bot writes there is drained by a task of its own, which runs in trio's
            # loop; a bot whose stderr waits to be read sends this wait through that loop, as before.
            errs = [fd for fd in (bot.stderr_fd for bot in bots) if fd >= 0]
            polled = fds + errs
            if polled != self._polled:
                for fd in self._polled:
                    self._poll.unregister(fd)
                for fd in polled:
                    self._poll.register(fd, select.POLLIN)
                self._polled = polled
            now = trio.current_time()
            timeout_ms = max(0.0, min(deadline - now, sync_wait_s)) * 1e3
            ready = {fd for fd, flags in self._poll.poll(timeout_ms) if not flags & select.POLLNVAL}
            stderr_waits = not ready.isdisjoint(errs)
            woken = ready.difference(errs)
            if woken:
                if stderr_waits or now >= self._checkpoint_at:
                    self._checkpoint_at = now + sync_wait_s
                    await trio.lowlevel.checkpoint()
                return woken
            if not stderr_waits and trio.current_time() >= deadline:
                await trio.lowlevel.checkpoint()
                return set()
        for fd in fds:
            if fd in self._known:
                self._epoll.modify(fd, _ARMED)
            else:
                self._epoll.register(fd, _ARMED)
                self._known.add(fd)
        with trio.move_on_at(deadline):
            await trio.lowlevel.wait_readable(self._epoll.fileno())
        return {fd for fd, _ in self._epoll.poll(0)}


_OPEN_WATCHES: trio.lowlevel.RunVar[int] = trio.lowlevel.RunVar("arena_open_watches", default=0)
"""Matches waiting on their bots in this trio loop now (one :class:`OutputWatch` a match): a loop is one thread."""


def _count_watch(change: int) -> bool:
    """Add ``change`` to the open watches of the current trio loop; ``False`` outside one (nothing counted)."""
    try:
        _OPEN_WATCHES.set(_OPEN_WATCHES.get() + change)
    except RuntimeError:
        return False
    return True


def open_watches() -> int:
    """Matches waiting on their bots in the current trio loop."""
    return _OPEN_WATCHES.get()


def ready_tasks() -> Callable[[], int]:
    """A call that tells how many tasks are queued to run in the current trio loop (call it in that loop).

    Trio's public figure (``current_statistics().tasks_runnable``) comes with
    statistics that walk every descriptor the loop watches: 2 µs here with a
    few, more with hundreds of bots, paid at every wait for an answer. The
    length of its run queue is the same number in one C call; should trio's
    internals change, the public figure (``tests/test_output_watch.py`` checks
    that the two agree). Neither sees the rest of the batch trio is running
    now, nor I/O it has not collected yet: the wait in the thread is short
    (:data:`SYNC_WAIT_S`) because of that.
    """
    from trio._core import _run

    runner = getattr(getattr(_run, "GLOBAL_RUN_CONTEXT", None), "runner", None)
    queue = getattr(runner, "runq", None)
    if isinstance(queue, deque):
        return queue.__len__
    return lambda: trio.lowlevel.current_statistics().tasks_runnable


_ARMED = select.EPOLLIN | select.EPOLLONESHOT
SYNC_WAIT_S = 0.002
"""By default, how long the only match of a trio loop waits for an answer in its thread before it waits in the loop."""

SYNC_WAIT: contextvars.ContextVar[float] = contextvars.ContextVar("arena_sync_wait_s", default=SYNC_WAIT_S)
"""The wait in the thread (:data:`SYNC_WAIT_S`) for the matches played in this context: set where they are
started, it holds for them alone (trio's tasks, and a ``trio.run`` started from there, inherit it), not for the
rest of the process. 0: always in the loop, as every process of a competition server sets it (its web process in
``run_server``, its match worker by ``Setup.sync_waits``, its cluster's workers by ``MatchOrder.sync_waits``): a
check and a ladder match must not differ in how soon the next request follows an answer."""


def _runnable(pid: int) -> bool:
    """Whether a thread of process ``pid`` is in state R or D (``/proc/PID/task/TID/stat``); gone counts as not."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"R", b"D"):
            return True
    return False


def _drop(fd: int, null: int, allowance: int) -> tuple[int, bool]:
    """Move up to ``allowance`` bytes the pipe ``fd`` holds now to ``null``: (bytes dropped, whether it ended).

    In pipe-sized pieces with ``splice`` (the bytes never reach Python; small
    pieces stay in the cache), falling back to reads where splice is refused.
    """
    dropped = 0
    while dropped < allowance:
        try:
            moved = os.splice(fd, null, _CHUNK)
        except BlockingIOError:
            break
        except OSError:  # no splice here: read and forget
            try:
                moved = len(os.read(fd, _CHUNK))
            except BlockingIOError:
                break
            except OSError:
                return dropped, True
        if moved == 0:
            return dropped, True
        dropped += moved
    return dropped, False


def _kill_tree(pid: int, descendants: list[psutil.Process]) -> None:
    """SIGKILL the bot's process group and every descendant seen (even after setsid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for proc in descendants:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def runnable(spec: BotSpec) -> BotSpec:
    """``spec`` as it runs: from its sealed build folder when it has a build command, the JS host named."""
    command = with_host(spec.command)
    if not spec.build:
        return spec if command == spec.command else dataclasses.replace(spec, command=command)
    folder = built_folder(spec)
    if folder is None:
        raise Crash(f"bot {spec.name!r} is not built for its current content (its build must run first)")
    return dataclasses.replace(spec, command=command, cwd=folder, build=())


@contextlib.asynccontextmanager
async def open_bot(spec: BotSpec, options: SpawnOptions) -> AsyncIterator[BotProcess]:
    """Start ``spec``'s process; on leaving, kill and reap it and its descendants."""
    env = options.env or bot_environment(spec)
    jail = None
    run = runnable(spec)
    argv, cwd = list(run.command), options.cwd or run.cwd
    if options.sandbox is not None:
        head = run.command[0] if run.command else ""
        found = (cwd / head).exists() if "/" in head else shutil.which(head, path=env.get("PATH")) is not None
        if not found:  # the launcher would report it only later, as an exit code
            raise Crash(f"could not start {' '.join(spec.command)!r}: {head!r} not found")
        jail = Jail(run, options.limits, options.sandbox, capabilities(), writable=options.writable)
        try:
            # In a thread (a UID, a cgroup, folders and files: milliseconds of system calls): the loop plays on.
            await trio.to_thread.run_sync(jail.prepare, env)
        except OSError as exc:
            raise Crash(f"could not build the sandbox for {spec.name!r}: {exc}") from None
        argv, env, cwd = jail.argv, {"PATH": env.get("PATH", "/usr/bin:/bin")}, jail.cwd
    # The launcher's environment, not the jailed bot's: the arena's pid would tell a server's check from its
    # ladder matches, played by another process. A bare bot sees the arena anyway.
    env = {**env, **supervisor_tag()}
    try:
        process = await trio.lowlevel.open_process(
            argv,
            stdin=subprocess.DEVNULL if options.merge_output else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if options.merge_output else subprocess.PIPE,
            cwd=str(cwd),
            env=env,
            start_new_session=True,
            pass_fds=(jail.lifeline_r,) if jail is not None else (),
        )
    except OSError as exc:
        if jail is not None:
            jail.close()
        raise Crash(f"could not start {' '.join(spec.command)!r}: {exc.strerror or exc}") from None
    except BaseException:  # cancelled as it started: whatever may have started in the jail goes with it
        if jail is not None:
            jail.kill_all()
            jail.close()
        raise
    if jail is not None:
        jail.spawned(process.pid)
    bot = BotProcess(spec, process, options, jail)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(bot.drain_stderr)
            if jail is not None and jail.measured():
                nursery.start_soon(bot.watch_disk)
            try:
                yield bot
            finally:
                await bot.shutdown()
    finally:
        await bot.shutdown()


__all__ = ["BotProcess", "OutputWatch", "SpawnOptions", "Stats", "Timeout", "bot_environment", "open_bot"]


def exit_status(code: int, note: str = "") -> str:
    """How a bot's process ended, for a fault's reason: ``exited with code 3``, ``killed by SIGSEGV (signal 11)``.

    ``note`` (the sandbox's word on why the command may not have started)
    follows an exit other than 0 that is not a signal.
    """
    return killed_by(code) or f"exited with code {code}" + (f" ({note})" if note and code else "")


def killed_by(code: int) -> str:
    """``killed by SIGSEGV (signal 11)`` when the exit status ``code`` is a signal's, else ``""``.

    A negative ``code`` is a signal (as :mod:`subprocess` reports one). So,
    by the shells' convention, is 128+N: the sandbox's wrappers (bubblewrap, a
    PID namespace's first process) report a bot killed by signal N so, and a
    bot author looks for the signal, not for 139; the status is kept beside
    it, since a bot may also have exited with that code itself.
    """
    signum = -code if code < 0 else code - 128 if code > 128 else 0
    try:
        name = signal.Signals(signum).name if signum else ""
    except ValueError:
        return ""
    if not name:
        return ""
    return f"killed by {name} (signal {signum}" + (f", exit status {code})" if code > 0 else ")")
