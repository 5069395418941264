"""The standings' drawing, in a process of its own beside the server's.

A drawing of the standings (:mod:`.standings`) brings the arrays of every
pair's totals up to date and fits the field's ratings: 0.16 s of CPU at a
million matches, most of it holding Python's GIL. In a thread of the server's
process it held every page up, however quick the page: each row SQLite hands
back to a page's query takes the GIL again, and with a thread computing, each
waits its turn (measured in one process: a bot page 16 ms alone, 420 ms beside
a thread in a loop; at a million matches with the ladder playing, the bot
page's p95 103 ms with the standings drawn in a thread, 71 ms with no drawing
at all). So the drawing shares no lock with the pages: it runs here, in a
child process that holds the arrays between drawings, reads the database on
a read-only connection of its own, and sends back the table.

**The wire** is the child's stdin and stdout, a request and its answer each a
pickle behind a 4-byte length (:func:`arena.competition.worker.frame`), as
the match worker's: both ends are the arena, and nothing a bot wrote is in
them but its name inside a table the child built from the database.

**Lifetimes.** The child dies with the server: at end of file on its stdin,
and by ``PR_SET_PDEATHSIG`` when the server is killed (it is spawned from the
server's main thread, whose end fires that signal). It ignores SIGINT and
SIGTERM, which reach the server's whole process group: the server stops it
in order, after asking for its arrays to save. If it dies, the drawing under
way fails with a :class:`ConnectionError` (the standings' task says so and
starts again) and the next drawing starts a new one, which reads the arrays
saved last and what changed since.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..competition.board import Leaderboard
from ..competition.database.connection import Database
from ..competition.database.saved import Saved
from ..competition.standings import PairArrays
from ..competition.store import Store
from ._memory import give_back_freed

HEADER_SIZE = 4
DRAWING_MAIN = "from arena.server.drawing import main; main()"
"""The child's command (not ``-m``: its classes must be this module's, not ``__main__``'s, to unpickle)."""
PR_SET_PDEATHSIG = 1
NICENESS = 5
"""The child's nice value: in the server's session (one scheduling group of the kernel's autogroups) it yields
to the server's own process, whose pages are waited for, as a background task should (a drawing a little later
is a board a little older)."""
STOP_GRACE_S = 5.0
"""How long a stopping child may take to exit before it is killed."""


@dataclass(frozen=True)
class Drawn:
    """A drawing's table, as the child sends it back."""

    board: Leaderboard
    strengths: dict[str, float]
    """The rating fit's strengths, by bot (the next fit starts from them)."""
    cpu_s: float
    """The CPU time the drawing took."""
    read_every_pair: bool
    """Whether it read every pair's row of the field (its first drawing, with no arrays saved)."""


class Drawer:
    """The arrays of every pair's totals of competition ``tid``, and the drawing of a field's table from them."""

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.pairs = PairArrays(tid)
        self.lock = threading.Lock()
        """One drawing at a time: the arrays are brought up to date in place."""

    def draw(
        self,
        store: Store,
        names: dict[int, str],
        strengths: dict[str, float] | None,
        *,
        max_faults: int,
        points_name: str,
        restore: bool = False,
    ) -> Drawn:
        """The table of the versions ``names`` (id -> bot) from the store's pair totals, the fit starting from
        ``strengths``; with ``restore``, a first drawing starts from the arrays saved last, if any."""
        began = time.thread_time()
        with self.lock:
            if restore and self.pairs.touched < 0:
                self._restore(store)
            read_every_pair = self.pairs.touched < 0
            self.pairs.refresh(store, names)
            totals = self.pairs.totals(names)
        totals.start = strengths
        board = totals.board(max_faults=max_faults, points_name=points_name, head_to_head=False)
        fit = totals.ratings
        fitted = dict(zip(fit.names, fit.strengths, strict=True)) if fit is not None else {}
        return Drawn(board, fitted, time.thread_time() - began, read_every_pair)

    def _restore(self, store: Store) -> None:
        """Hold the arrays saved last (at a stop, or while the standings were drawn), to be brought up to date by
        what changed since; none, or unreadable ones: the drawing reads the tables, as it would."""
        saved = store.repos.saved.get(self.tid)
        if saved is None:
            return
        with contextlib.suppress(ValueError):
            self.pairs = PairArrays.of_saved(self.tid, saved)

    def saved(self) -> Saved | None:
        """The arrays as the database keeps them (``None`` before a first drawing)."""
        with self.lock:
            return self.pairs.saved()


# The child's side -----------------------------------------------------------------------------------
def main() -> None:
    """The child (``python -c DRAWING_MAIN PARENT_PID DATABASE``): draw tables for the process ``PARENT_PID``."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
    parent, database = int(sys.argv[1]), Path(sys.argv[2])
    if os.getppid() != parent:
        os._exit(0)  # the server died before the death signal was set
    for number in (signal.SIGINT, signal.SIGTERM):  # a Ctrl-C or a stop reaches the whole group: the server stops us
        signal.signal(number, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    wire_in, wire_out = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # a stray print must not corrupt the wire
    os.close(null)
    drawers: dict[int, Drawer] = {}
    """By competition id (a server has one)."""
    store: Store | None = None
    try:
        while (request := _receive(wire_in)) is not None:
            kind, tid, args = request
            if store is None:  # (at the first request: the server, started with this, has made the file by then)
                store = Store(Database.reader_of(database))
            drawer = drawers.setdefault(tid, Drawer(tid))
            if kind == "draw":
                names, strengths, max_faults, points_name = args
                answer: Any = drawer.draw(
                    store, names, strengths, max_faults=max_faults, points_name=points_name, restore=True
                )
                give_back_freed()  # the drawing's arrays, freed: see _memory
            elif kind == "saved":
                answer = drawer.saved()
            else:
                raise ValueError(f"unknown request {kind!r}")
            _send(wire_out, (answer,))  # (one answer in a tuple: None is an answer, the end of file is not)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        if store is not None:
            store.close()
    os._exit(0)  # (not the interpreter's teardown: nothing is left to write)


def _send(wire: IO[bytes], message: object) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    wire.write(len(body).to_bytes(HEADER_SIZE, "big") + body)
    wire.flush()


def _receive(wire: IO[bytes]) -> Any:
    """The next message, or ``None`` at end of file (a cut frame counts as the end)."""
    header = wire.read(HEADER_SIZE)
    if len(header) < HEADER_SIZE:
        return None
    size = int.from_bytes(header, "big")
    body = wire.read(size)
    return pickle.loads(body) if len(body) == size else None


# The server's side ----------------------------------------------------------------------------------
class DrawingProcess:
    """The child that draws the standings from the database at ``database``.

    Started ahead (:meth:`start`, from the main thread: ``arena serve`` does so first, and the child imports
    the arena while the server opens its database), or at the first request; a request and its answer are one
    exchange at a time (:meth:`ask`, blocking: the standings call it from a worker thread).
    """

    def __init__(self, database: Path) -> None:
        self.database = database
        self.process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the child unless it runs (call it from the main thread: see the module's lifetimes)."""
        if self.running:
            return
        self._reap()
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        self.process = subprocess.Popen(
            [sys.executable, "-c", DRAWING_MAIN, str(os.getpid()), str(self.database)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )

    def ask(self, kind: str, tid: int, *args: Any) -> Any:
        """The child's answer to request ``kind`` about competition ``tid`` (blocking). ``ConnectionError`` if it is
        not running or dies."""
        with self._lock:
            process = self.process
            if process is None or process.stdin is None or process.stdout is None:
                raise ConnectionError("the standings' drawing process is not running")
            try:
                _send(process.stdin, (kind, tid, args))
                reply = _receive(process.stdout)
            except (OSError, ValueError):  # (a pipe closed under it)
                reply = None
            if reply is None:
                process.kill()
                self._reap()
                raise ConnectionError(f"the standings' drawing process ended (exit status {process.returncode})")
            return reply[0]

    def stop(self) -> None:
        """End the child (it exits at the end of its stdin; killed after ``STOP_GRACE_S``) and reap it."""
        with self._lock:
            self._reap()

    def _reap(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
