"""Progress displays of a running tournament: none, plain lines (logs, CI), or a live bar (a terminal)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Protocol


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
