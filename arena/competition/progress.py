"""Progress displays of a running tournament: none, a status line now and then, result lines, or a live bar.

* :class:`RichProgress`: a live bar in a terminal (done/total, rate, ETA, leader);
* :class:`PlainProgress`: a status line every few seconds, for pipes;
* :class:`LinesProgress` (``--progress lines``): a line per finished match, or
  per finished deal pair with duplicate deals, and the running standings every
  N matches, as the chess tools print them, for logs and CI;
* :class:`QuietProgress`: nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..checks.hints import printable
from .ratings import ratings_from_scores
from .records import outcome_for
from .store import PlayedMatch


# Progress ----------------------------------------------------------------------
class Progress(Protocol):
    """What a tournament tells the person watching."""

    def start(self, total: int, done: int) -> None: ...
    def advance(self, done: int, total: int, leader: str) -> None: ...
    def finished(self, match: PlayedMatch, done: int, total: int) -> None:
        """``match`` was just recorded (``done`` of ``total``)."""
        ...

    def stop(self) -> None: ...


class QuietProgress:
    """Says nothing."""

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, done: int, total: int, leader: str) -> None:
        pass

    def finished(self, match: PlayedMatch, done: int, total: int) -> None:
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

    def finished(self, match: PlayedMatch, done: int, total: int) -> None:
        pass

    def stop(self) -> None:
        pass


_SCORE = {"W": 1.0, "D": 0.5, "L": 0.0}


class LinesProgress:
    """A line per finished match (per deal pair when both legs of a deal are in) and standings every ``every`` matches.

    ``pairs``: the tournament plays duplicate deals, so a deal's first leg
    waits for its second and the two print as one line.

    ``[ 24/312] c1-a-vs-b: a 1.5 : 0.5 b (W 7:3, D 5:5)``: the deal, the
    first bot's score over the pair against the second's, and each leg from
    the first bot's side. The standings are ranked by the rating's point
    estimate from running totals (the intervals come with the leaderboard at
    the end); memory stays the same however long the run.
    """

    def __init__(
        self, write: Callable[[str], None] = print, *, every: int = 50, pairs: bool = True, points_name: str = "points"
    ) -> None:
        self._write = write
        self._pairs = pairs
        self._every = every
        self._points_name = points_name
        self._width = 1
        self._legs: dict[str, PlayedMatch] = {}
        """First legs waiting for the second leg of their deal."""
        self._scores: dict[tuple[str, str], float] = {}
        self._tally: dict[str, list[float]] = {}
        """Per bot: wins, draws, losses, points, matches."""
        self._seen = 0

    def start(self, total: int, done: int) -> None:
        self._width = len(str(total))

    def advance(self, done: int, total: int, leader: str) -> None:
        pass

    def finished(self, match: PlayedMatch, done: int, total: int) -> None:
        self._count(match)
        where = f"[{done:>{self._width}}/{total}]"
        first = self._legs.pop(match.deal, None)
        # A leg with a deal of its own (a persistent bot's: its deal id is its key) has no other leg to wait for.
        if first is None and self._pairs and match.deal != match.key:
            self._legs[match.deal] = match
        elif first is None:
            self._write(f"{where} {self._single(match)}")
        else:
            self._write(f"{where} {self._pair(first, match)}")
        self._seen += 1
        if self._every and self._seen % self._every == 0:
            for line in self.standings(f"Standings after {done} of {total} matches"):
                self._write(line)

    def stop(self) -> None:
        for match in self._legs.values():  # a deal whose other leg was not played (interrupted, disqualified)
            self._write(f"[{'-':>{self._width}}] {self._single(match)} (its other leg was not played)")
        self._legs.clear()

    def _count(self, match: PlayedMatch) -> None:
        for index, seat in enumerate(("A", "B")):
            bot, other = match.bot(seat), match.bot("B" if seat == "A" else "A")
            result = outcome_for(match, seat)
            tally = self._tally.setdefault(bot, [0.0, 0.0, 0.0, 0.0, 0.0])
            tally["WDL".index(result)] += 1
            tally[3] += match.points[index]
            tally[4] += 1
            if len(match.forfeit) < 2:
                self._scores[bot, other] = self._scores.get((bot, other), 0.0) + _SCORE[result]

    @staticmethod
    def _single(match: PlayedMatch) -> str:
        a, b = printable(match.bot_a), printable(match.bot_b)
        winner = "draw" if match.winner is None else f"{printable(match.bot(match.winner))} wins"
        faults = "".join(f"; {f.seat} {f.kind}" for f in match.faults)
        return f"{printable(match.key)}: {a} {_num(match.points[0])} : {_num(match.points[1])} {b} ({winner}{faults})"

    @staticmethod
    def _pair(first: PlayedMatch, second: PlayedMatch) -> str:
        if first.leg > second.leg:
            first, second = second, first
        bot, other = first.bot_a, first.bot_b
        legs = []
        score = 0.0
        for leg in (first, second):
            seat = "A" if leg.bot_a == bot else "B"
            mine, theirs = (leg.points[0], leg.points[1]) if seat == "A" else (leg.points[1], leg.points[0])
            result = outcome_for(leg, seat)
            score += _SCORE[result]
            faults = "".join(f" {f.kind}" for f in leg.faults if f.bot == bot)
            legs.append(f"{result} {_num(mine)}:{_num(theirs)}{faults}")
        return (
            f"{printable(first.deal)}: {printable(bot)} {score:g} : {2 - score:g} {printable(other)}"
            f" ({', '.join(legs)})"
        )

    def standings(self, title: str) -> list[str]:
        """The running standings, ranked by rating (point estimate), with W-D-L and points per match."""
        names = sorted(self._tally)
        ratings = ratings_from_scores(names, self._scores)
        order = sorted(names, key=lambda n: (-ratings[n], n))
        width = max((len(printable(n)) for n in order), default=3)
        lines = [f"{title}: rating, W-D-L, {self._points_name} per match (intervals come with the leaderboard)"]
        for rank, name in enumerate(order, start=1):
            wins, draws, losses, points, matches = self._tally[name]
            lines.append(
                f"  {rank:>2} {printable(name):<{width}}  {round(ratings[name]):+5d}"
                f"  {int(wins)}-{int(draws)}-{int(losses)}  {points / matches:.2f}"
            )
        return lines


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


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

    def finished(self, match: PlayedMatch, done: int, total: int) -> None:
        pass

    def stop(self) -> None:
        self._progress.stop()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02}"
