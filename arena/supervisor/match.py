"""Running one match between two bot processes, and judging faults.

This is the one place where a bot's misbehaviour is turned into a fault:
every :class:`~arena._errors.BotFault` raised while talking to a bot, and every
:class:`~arena.games.IllegalAction` a game refuses, ends here as a
:class:`Fault` with a reason, and the match is forfeited by the rules of the
game (``MatchState.forfeit``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import trio

import protocol
from protocol import SEATS, Limits, MatchEnd, MatchStart, Request, Result

from .._errors import GAME_ERROR, BotFault, IllegalMove, Timeout
from ..games import Game, IllegalAction, MatchState
from ._process import REST_S, BotProcess, OutputWatch
from .matchlog import LOG_FORMAT, MatchLog, logged_line
from .wires import Wire


@dataclass
class Fault:
    """A bot's fault: which seat, what kind, why, and where in the match."""

    seat: str
    kind: str
    reason: str
    request_id: int | None = None
    request_type: str = ""
    machine_may_explain: bool = False
    """A wall-clock timeout that struck while a process of the bot was runnable or waiting on the disk (not asleep,
    not waiting on a pipe): a busy machine, or a small CPU weight, could explain it. Not logged."""


@dataclass
class SeatStats:
    """What one seat used in a match."""

    requests: int = 0
    think_s: float = 0.0
    max_move_s: float = 0.0
    peak_rss: int = 0
    bytes_out: int = 0
    stale_answers: int = 0


@dataclass
class MatchRecord:
    """A finished match as the arena records it."""

    match_id: str
    game: str
    seed: int
    names: tuple[str, str]
    result: Result
    faults: list[Fault] = field(default_factory=list)
    duration_s: float = 0.0
    log_path: Path | None = None
    stats: tuple[SeatStats, SeatStats] = field(default_factory=lambda: (SeatStats(), SeatStats()))
    stderr_logs: tuple[Path | None, Path | None] = (None, None)
    """Where each seat's stderr was kept (``None`` when it was not)."""
    game_error: str = ""
    """What the game's own code did wrong, in one line, when it ended the match (:func:`game_error_result`)."""


LOAD_FACTOR = 2.0
"""Wall seconds a match clock gives per CPU second a bot may use: two bots per core (as ``move_wall_s``'s default)."""
IDLE_NAMED_LEAST_S = 0.005
IDLE_NAMED_SHARE = 0.1
"""A move's timeout names the CPU its bot used before the request when that is at least ``IDLE_NAMED_LEAST_S`` and
either the move alone was within budget or it is this share of the budget or more (:meth:`_Move.over_budget`)."""


def match_limits(limits: Limits, game: Game) -> Limits:
    """``limits`` with the match clock (``wall_bank_s``) and the match's cap (``match_wall_s``) derived for ``game``
    where they are 0: from the game's length (its most requests per seat) and the per-move limits.

    A bot that answers legally but slowly at every move (just under
    ``move_wall_s``) would otherwise hold a match, and the ladder's slot, for
    ``max_requests`` x ``move_wall_s``; with the clock, it runs out of time.
    """
    bank = limits.wall_bank_s or LOAD_FACTOR * (game.max_requests() * limits.move_s + limits.time_bank_s)
    cap = limits.match_wall_s or 2 * (bank + limits.startup_s + limits.move_wall_s)
    return msgspec.structs.replace(limits, wall_bank_s=round(bank, 3), match_wall_s=round(cap, 3))


class _Clock:
    """A seat's time in one match: CPU per move, the bank drawn on when a move runs over, wall caps.

    A move is judged on the CPU time of the bot's whole process tree (children
    included), so a loaded machine (``--jobs`` above the core count) does not
    time out an honest bot; the wall-clock caps still catch a bot that
    sleeps or blocks: ``move_wall_s`` per move, its match clock (``wall_bank_s``
    over the match's moves) and the match's own cap (``match_wall_s``). While a
    move is awaited the wait wakes to poll the tree's CPU time and memory, so a
    busy loop ends at ``move_s`` + bank, not at the wall cap, and a memory hog
    ends as a ``memory_limit`` fault.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.bank = limits.time_bank_s
        self.wall_left = limits.wall_bank_s or math.inf
        """What is left of the match clock (wall seconds)."""
        self.deadline = math.inf
        """When the match's wall-clock cap strikes (trio time; set when the match starts)."""
        self.now: Callable[[], float] = trio.current_time
        """Trio's time (its clock's own method while the match runs: one call, where ``trio.current_time`` is three)."""

    def _startup(self, first_of_process: bool) -> float:
        return self.limits.startup_s if first_of_process else 0.0

    def cpu_budget(self, first_of_process: bool) -> float:
        """CPU seconds the next move may use: the move's share, the bank, and start-up for a first move."""
        return self.limits.move_s + self.bank + self._startup(first_of_process)

    def budget(self, first_of_process: bool, started: float | None = None) -> float:
        """Wall-clock cap of the next move begun at ``started`` (now): the backstop for bots that sleep or block."""
        startup = self.limits.startup_s if first_of_process else 0.0
        left = self.deadline - (self.now() if started is None else started)
        return min(self.limits.move_wall_s + startup, self.wall_left + startup, left if left > 0.0 else 0.0)

    def charge_idle(self, bot: BotProcess) -> Timeout | None:
        """Charge, as a move, the CPU ``bot`` used since its last answer (at a match's end: none goes free)."""
        first = bot.stats.requests == 0
        now, used = bot.cpu_seconds(), bot.idle_cpu_s()
        if now is None or used is None:
            return None
        budget = self.cpu_budget(first)
        if used > budget:
            return Timeout(
                f"used {used:.3g}s of CPU after its last answer, while no request was pending, "
                f"more than the {budget:.3g}s a move may use"
            )
        background = bot.begin_request()
        if background is not None:
            return background
        bot.charged(now)
        self.charge(used, 0.0, first)
        return None

    def _wall_cap(self, first_of_process: bool, started: float) -> tuple[float, str]:
        """The wall-clock cap of a move begun at ``started`` (:meth:`budget`), and what sets it (a fault's reason)."""
        startup = self._startup(first_of_process)
        caps = [
            (self.limits.move_wall_s + startup, ""),
            (self.wall_left + startup, f"its match clock ran out (wall_bank_s {self.limits.wall_bank_s:g}s)"),
            (max(0.0, self.deadline - started), f"the match's wall-clock cap ({self.limits.match_wall_s:g}s)"),
        ]
        return min(caps, key=lambda cap: cap[0])

    def charge(self, cpu_s: float, wall_s: float, first_of_process: bool) -> None:
        """Draw on the bank for the CPU time a move used over its share, and on the match clock for its wall time."""
        startup = self._startup(first_of_process)
        over = cpu_s - self.limits.move_s - startup
        if over > 0:
            self.bank = max(0.0, self.bank - over)
        self.wall_left = max(0.0, self.wall_left - max(0.0, wall_s - startup))

    def start(self, bot: BotProcess, first_of_process: bool, started: float) -> _Move:
        """Begin timing one awaited answer (call :meth:`_Move.check` each ``poll_s`` while waiting).

        The move's CPU counts from the bot's last charge (its last answer),
        not from the request: what its processes used in between (busy loops
        left running, a pooled process's CPU between matches) is charged to
        this move.
        """
        idle = bot.idle_at_request  # read as the request was sent (MatchRunner: bot.begin_request)
        return _Move(
            clock=self,
            started=started,
            first=first_of_process,
            cpu_at_start=None if idle is None else bot.cpu_charged,
            idle_s=idle or 0.0,
            output_budget=bot.stats.bytes_out + self.limits.move_output_bytes,
            poll_s=bot.jail.policy.poll_s if bot.jail is not None else 0.1,
        )

    def _check(self, bot: BotProcess, move: _Move, cpu_budget: float) -> BotFault | None:
        wall = self.now() - move.started
        cpu = move.used_cpu(bot)
        if move.cpu_at_start is not None and cpu > cpu_budget:
            return move.over_budget(cpu, cpu_budget)
        wall_cap, why = self._wall_cap(move.first, move.started)
        if wall >= wall_cap:
            runnable = bot.wants_cpu()  # computing (on a CPU or queued for one), not asleep: a busy machine slows it
            fault = Timeout(
                f"no answer within {wall_cap:.3g}s (wall clock{'; ' + why if why else ''}; {cpu:.3g}s of CPU used"
                f" of the {cpu_budget:.3g}s a move may use{'; it was still computing' if runnable else ''})"
            )
            fault.machine_may_explain = runnable
            return fault
        return bot.memory_fault() or bot.output_fault()


@dataclass
class _Move:
    """One awaited answer, as :meth:`_Clock.start` times it."""

    clock: _Clock
    started: float
    first: bool
    cpu_at_start: float | None
    """The bot's CPU reading its move counts from: its last charge (``None``: CPU cannot be measured)."""
    output_budget: int
    poll_s: float
    idle_s: float = 0.0
    """CPU its tree used between its last charge and the request: part of this move's."""
    wall_s: float = 0.0
    cpu_s: float = 0.0

    def check(self, bot: BotProcess) -> BotFault | None:
        """The fault that ends this move now (CPU over budget, wall cap, memory), or ``None``."""
        clock = self.clock
        return clock._check(bot, self, clock.cpu_budget(self.first))

    def finish(self, bot: BotProcess) -> Timeout | None:
        """Record the move's wall and CPU time and draw on the bank; a :class:`Timeout` if its CPU was over budget.

        An answer comes between two polls, so a move is judged here too: its
        CPU includes what the bot used before the request, which a bot
        answering at once would otherwise never be judged on.
        """
        self.wall_s = self.clock.now() - self.started
        now = bot.cpu_seconds()
        self.cpu_s = self._used(now)
        if now is not None:
            bot.charged(now)
        budget = self.clock.cpu_budget(self.first)
        self.clock.charge(self.cpu_s, self.wall_s, self.first)
        if self.cpu_at_start is not None and self.cpu_s > budget:
            return self.over_budget(self.cpu_s, budget)
        return None

    def over_budget(self, cpu: float, budget: float) -> Timeout:
        """The fault of a move whose CPU (``cpu``, idle time before the request included) passed ``budget``.

        The CPU used before the request is named when it mattered: the move alone was within its budget, or it
        is a tenth of the budget or more. A frozen bot runs a few milliseconds between its answer and the freeze
        (:data:`~arena.supervisor._process.REST_S`, longer on a busy machine): that is not burning between moves.
        """
        idle_s = self.idle_s
        mattered = idle_s >= IDLE_NAMED_LEAST_S and (cpu - idle_s <= budget or idle_s >= budget * IDLE_NAMED_SHARE)
        idle = f", {idle_s:.3g}s of it before the request, between moves" if mattered else ""
        return Timeout(f"no answer within {budget:.3g}s of CPU (used {cpu:.3g}s over its process tree{idle})")

    def used_cpu(self, bot: BotProcess) -> float:
        """CPU seconds the bot's tree used since its last charge (wall seconds when CPU cannot be measured)."""
        return self._used(bot.cpu_seconds())

    def _used(self, now: float | None) -> float:
        if now is None or self.cpu_at_start is None:
            return self.clock.now() - self.started
        return max(0.0, now - self.cpu_at_start)


@dataclass
class _Awaited:
    """A seat's request in the current step, until its answer or fault."""

    request: Request
    move: _Move
    records: list[dict[str, Any]]
    """The lines received for it, logged after the step."""
    output_budget: int
    next_check: float
    """When to judge the move's CPU, wall time and memory next, if it has not answered by then."""


STDERR_LOGGED_BYTES = 64 << 10
"""Bytes of a seat's stderr per match that the match log keeps, line by line with times (replays show them)."""
STDERR_LINE_CHARS = 1000
"""A longer stderr line is cut to this many characters in the log."""


class _StderrTap:
    """Copies the lines a seat writes to stderr during one match, with the time each was read."""

    def __init__(self, log: MatchLog) -> None:
        self.log = log
        self.lines: list[tuple[float, str]] = []
        self.omitted = 0
        self._room = STDERR_LOGGED_BYTES
        self._partial = b""

    def feed(self, chunk: bytes | bytearray) -> None:
        if self._room <= 0:
            self.omitted += len(chunk)  # past the log's share: count only, no per-line work
            return
        kept, self.omitted = chunk[: self._room], self.omitted + max(0, len(chunk) - self._room)
        self._room -= len(kept)
        *complete, self._partial = (self._partial + kept).split(b"\n")
        now = self.log.now()
        self.lines += [(now, self._text(line)) for line in complete]

    def close(self) -> None:
        if self._partial:
            self.lines.append((self.log.now(), self._text(self._partial)))
            self._partial = b""

    @staticmethod
    def _text(line: bytes) -> str:
        return line.rstrip(b"\r").decode("utf-8", errors="replace")[:STDERR_LINE_CHARS]


class _Faulted(Exception):
    def __init__(self, faults: list[Fault]) -> None:
        super().__init__(faults)
        self.faults = faults


class GameBroke(Exception):
    """The game's own code failed in a match: it raised, or asked a seat more than its ``max_requests()``.

    ``line`` says what, in one line and the same on any machine (a replay's
    ``--verify`` compares it); ``trace`` is the game's traceback, for the log.
    """

    def __init__(self, line: str, trace: str = "") -> None:
        super().__init__(line)
        self.line = line
        self.trace = trace

    @classmethod
    def raised(cls, exc: Exception) -> GameBroke:
        """The failure of a game whose code raised ``exc``."""
        text = " ".join(str(exc).split())
        line = f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__
        return cls(line, "".join(traceback.format_exception(exc)))

    @classmethod
    def too_long(cls, seat: int, limit: int) -> GameBroke:
        """The failure of a game that asks ``seat`` one request more than its ``max_requests()`` (``limit``)."""
        return cls(
            f"seat {SEATS[seat]} was asked more than max_requests() = {limit} requests: "
            "the match did not end within the game's declared length"
        )


def game_error_result(line: str) -> Result:
    """The result of a match the game's own code ended: nobody wins, nobody forfeits, no points."""
    return Result(points=[0.0, 0.0], winner=None, reason=f"{GAME_ERROR}: {line}")


@dataclass
class Seat:
    """A bot process in a seat of a match, with its limits and wire format."""

    bot: BotProcess
    limits: Limits
    wire: Wire = field(default_factory=Wire)
    name: str = ""


class MatchRunner:
    """Plays one match: sends the game's messages, judges answers and faults."""

    def __init__(
        self,
        game: Game,
        seed: int,
        seats: Sequence[Seat],
        *,
        match_id: str,
        log: MatchLog | None = None,
        narrate: Callable[[str], None] | None = None,
        header_extra: dict[str, Any] | None = None,
    ) -> None:
        assert len(seats) == 2
        self.game = game
        self.seed = seed
        self.seats = [dataclasses.replace(seat, limits=match_limits(seat.limits, game)) for seat in seats]
        self.match_id = match_id
        self.log = log or MatchLog(None)
        self._log_on = self.log.enabled
        self.narrate = narrate or (lambda line: None)
        self.header_extra = header_extra or {}
        self.clocks = [_Clock(s.limits) for s in self.seats]
        self.stats = (SeatStats(), SeatStats())
        self.faults: list[Fault] = []
        self.game_error = ""
        self._asked = [0, 0]
        """Requests sent to each seat: more than the game's ``max_requests()`` is the game's error."""
        self._max_requests = game.max_requests()
        self._out_at_start = [s.bot.stats.bytes_out for s in seats]
        self._watch: OutputWatch
        """What the seats' answers are awaited with, while the match runs."""
        self._outbox: tuple[list[bytes], list[bytes]] = ([], [])
        """Lines held for each seat until its next write: notices go out with the request after them."""
        self._now: Callable[[], float] = trio.current_time
        """Trio's time (its clock's own method while the match runs)."""

    def _name(self, seat: int) -> str:
        return self.seats[seat].name or self.seats[seat].bot.spec.name

    def _write_header(self) -> None:
        bots = []
        for index, seat in enumerate(self.seats):
            spec = seat.bot.spec
            bots.append(
                {
                    "seat": SEATS[index],
                    "name": self._name(index),
                    "command": [_shown_path(part) for part in spec.command],
                    "cwd": _shown_path(str(spec.cwd)),
                    "digest": spec.digest,
                    "protocol": seat.wire.name,
                    "stderr_log": _shown_path(str(seat.bot.options.stderr_path or "")),
                    "limits": msgspec.to_builtins(seat.limits),
                }
            )
        self.log.write(
            {
                "type": "header",
                "format": LOG_FORMAT,
                "match_id": self.match_id,
                "game": self.game.game_id,
                "params": self.game.params,
                "seed": self.seed,
                "bots": bots,
                **self.header_extra,
            }
        )

    async def run(self) -> MatchRecord:
        """Play the match to its end (or a forfeit) and return its record."""
        self._now = now = trio.lowlevel.current_clock().current_time
        started = now()
        deadline = started + max(seat.limits.match_wall_s for seat in self.seats)
        for clock in self.clocks:
            clock.deadline = deadline
            clock.now = now
        self._write_header()
        taps = [_StderrTap(self.log) for _ in self.seats] if self.log.enabled else []
        for seat, tap in zip(self.seats, taps, strict=False):  # no taps when the match is not logged
            seat.bot.stderr_listener = tap.feed
        try:
            with OutputWatch() as self._watch:
                result = await self._play()
            for seat in self.seats if taps else ():
                seat.bot.pull_stderr()  # what the last move wrote
        finally:
            for seat in self.seats:
                seat.bot.stderr_listener = None
                if seat.bot.pending is None:
                    seat.bot.freeze()  # a resting bot: the match is over, whatever comes next may take long
        for index, seat in enumerate(self.seats):
            seat.bot.note_peak_memory()  # once a match, not every move: the kernel keeps the peak in a cgroup
            self.stats[index].peak_rss = max(self.stats[index].peak_rss, seat.bot.stats.peak_rss)
            self.stats[index].bytes_out = seat.bot.stats.bytes_out - self._out_at_start[index]
            seat.bot.matches_played += 1
        self._write_stderr(taps)
        duration = self._now() - started
        self.log.write(
            {
                "type": "result",
                **msgspec.to_builtins(result),
                "stats": [s.__dict__ for s in self.stats],
                "duration_s": round(duration, 6),
            }
        )
        return MatchRecord(
            match_id=self.match_id,
            game=self.game.game_id,
            seed=self.seed,
            names=(self._name(0), self._name(1)),
            result=result,
            faults=self.faults,
            duration_s=duration,
            log_path=self.log.path,
            stats=self.stats,
            stderr_logs=(self.seats[0].bot.options.stderr_path, self.seats[1].bot.options.stderr_path),
            game_error=self.game_error,
        )

    def _write_stderr(self, taps: Sequence[_StderrTap]) -> None:
        """The seats' stderr lines, A's then B's, after the last message (the rest of the log keeps its order)."""
        if self.log.path is None:
            return
        for index, tap in enumerate(taps):
            tap.close()
            for t, text in tap.lines:
                self.log.write({"type": "stderr", "seat": SEATS[index], "text": text, "t": t})
            if tap.omitted:
                self.log.write({"type": "stderr", "seat": SEATS[index], "omitted": tap.omitted})

    async def _play(self) -> Result:
        """Play the match to its end (or a forfeit, or the game's error); the result.

        Every call into the game is guarded: an exception there (or a seat
        asked more than ``max_requests()``) is :class:`GameBroke`, the game's
        fault, never a bot's nor the arena's.
        """
        try:
            try:
                state = self.game.new_match(self.seed)
            except Exception as exc:
                raise GameBroke.raised(exc) from exc
            result = await self._play_state(state)
        except GameBroke as broke:
            return self._game_broke(broke)
        await self._end(result)
        return result

    async def _play_state(self, state: MatchState) -> Result:
        try:
            for index in (0, 1):
                start = MatchStart(
                    match_id=self.match_id,
                    game=self.game.game_id,
                    seat=SEATS[index],
                    params=self.game.params,
                    limits=self.seats[index].limits,
                    opponent=self._name(1 - index),
                )
                self._queue(index, start)
            try:
                opening = state.start()
                self._queue_all(opening.notices)  # encoding the game's messages is the game's code too
            except Exception as exc:
                raise GameBroke.raised(exc) from exc
            for line in opening.narration:
                self.narrate(line)
            while True:
                try:
                    if state.is_over:
                        break
                except Exception as exc:
                    raise GameBroke.raised(exc) from exc
                actions = await self._ask_all(state)
                try:
                    step = state.apply(actions)
                    self._queue_all(step.notices)
                except Exception as exc:
                    raise GameBroke.raised(exc) from exc
                for line in step.narration:
                    self.narrate(line)
            await self._flush_notices((0, 1))
            self._judge_at_end()
            try:
                return state.result()
            except Exception as exc:
                raise GameBroke.raised(exc) from exc
        except _Faulted as faulted:
            self.faults = faulted.faults
            offenders = frozenset(SEATS.index(f.seat) for f in faulted.faults)
            reason = "; ".join(f"{f.seat} {f.kind}: {f.reason}" for f in faulted.faults)
            try:
                result = state.forfeit(offenders, reason)
            except Exception as exc:
                raise GameBroke.raised(exc) from exc
            for fault in faulted.faults:
                self.log.write({"type": "fault", **_logged(fault)})
                self.narrate(
                    f"Fault by {fault.seat} ({self._name(SEATS.index(fault.seat))}): {fault.kind}: {fault.reason}"
                )
            return result

    def _game_broke(self, broke: GameBroke) -> Result:
        """End the match on the game's error: logged with the game's traceback, nobody's fault, no points."""
        self.faults = []  # a fault judged in the step the game broke is not judged: the match was not played out
        self.game_error = broke.line
        record: dict[str, Any] = {"type": "game_error", "error": broke.line}
        if broke.trace:
            record["traceback"] = broke.trace
        self.log.write(record)
        self.narrate(f"Game error (the game's own code, not a bot): {broke.line}")
        return game_error_result(broke.line)

    async def _end(self, result: Result) -> None:
        faulted = {f.seat for f in self.faults}
        for index in (0, 1):
            if SEATS[index] in faulted:
                continue
            self._queue(index, MatchEnd(match_id=self.match_id, seat=SEATS[index], result=result))
            # The match is over: a bot that left early loses nothing more.
            with contextlib.suppress(BotFault):
                await self._flush(index, timeout=self.seats[index].limits.move_wall_s)

    def _judge_at_end(self) -> None:
        """Judge each seat once more as the match ends: the CPU it used after its last answer, and its memory.

        CPU is charged as a move would be (none goes free). Memory is judged
        while a move is awaited, so a bot that answers at once was never
        judged: one whose child the kernel killed for memory played on.
        """
        faults = []
        for index, seat in enumerate(self.seats):
            over = self.clocks[index].charge_idle(seat.bot) or seat.bot.memory_fault()
            if over is not None:
                faults.append(self._fault(index, over, None))
        if faults:
            raise _Faulted(faults)

    def _queue(self, seat: int, message: protocol.Message) -> None:
        """Log ``message`` as sent to ``seat`` and hold its line for the seat's next write."""
        if self._log_on:
            self.log.write({"type": "send", "seat": SEATS[seat], "msg": msgspec.to_builtins(message)})
        line = self.seats[seat].wire.encode(message)
        if line is not None:
            self._outbox[seat].append(line)

    def _queue_all(self, notices: Sequence[tuple[int, protocol.Message]]) -> None:
        for seat, message in notices:
            self._queue(seat, message)

    async def _flush(self, seat: int, *, timeout: float) -> None:
        """Write every line held for ``seat`` at once: one write, one wake-up of the bot, whatever the count."""
        held = self._outbox[seat]
        if not held:
            return
        data = held[0] if len(held) == 1 else b"".join(held)
        held.clear()
        await self.seats[seat].bot.send(data, timeout=timeout, before_wait=self._freeze_resting)

    def _freeze_resting(self) -> None:
        """Freeze the seats' bots resting since their answers (:data:`REST_S`): the arena is about to wait."""
        for seat in self.seats:
            if seat.bot.resting_since is not None:
                seat.bot.freeze()

    def _rest_over(self, now: float) -> float:
        """Freeze the bots resting for ``REST_S`` or more by ``now``; when the next of the others' rest ends."""
        soonest = math.inf
        for seat in self.seats:
            since = seat.bot.resting_since
            if since is not None:
                if now - since >= REST_S:
                    seat.bot.freeze()
                else:
                    soonest = min(soonest, since + REST_S)
        return soonest

    async def _flush_notices(self, seats: Sequence[int]) -> None:
        """Write the notices held for ``seats``: a seat that cannot take them faults, as if no request followed."""
        for seat in seats:
            try:
                await self._flush(seat, timeout=min(self.seats[seat].limits.move_wall_s, self._left()))
            except BotFault as fault:
                raise _Faulted([self._fault(seat, fault, None)]) from None

    def _left(self) -> float:
        """Wall seconds left before the match's cap (a little, at least, for a write that would not block)."""
        return max(0.05, self.clocks[0].deadline - self._now())

    def _fault(self, seat: int, fault: BotFault, request: Request | None) -> Fault:
        return Fault(
            seat=SEATS[seat],
            kind=fault.kind,
            reason=fault.reason,
            request_id=request.id if request is not None else None,
            request_type=str(request.__struct_config__.tag) if request is not None else "",
            machine_may_explain=isinstance(fault, Timeout) and fault.machine_may_explain,
        )

    async def _ask_all(self, state: MatchState) -> dict[int, Any]:
        """Ask every seat the game asks now; answers are awaited concurrently.

        Requests go out in seat order and each seat's received lines are logged
        in seat order after the step, so a log does not depend on which bot was
        quicker: the same seed and answers give the same log.

        One task awaits every seat (:class:`OutputWatch`): it wakes when a bot
        writes, takes what is there, and every ``poll_s`` of a move judges the
        bot's CPU, wall time and memory. A seat whose answer is due is read
        before it is judged, so the time this task spends on the other seat
        never counts against it.
        """
        try:
            asked = state.requests()
        except Exception as exc:
            raise GameBroke.raised(exc) from exc
        for seat in asked:
            self._asked[seat] += 1
            if self._asked[seat] > self._max_requests:  # a bot is not blamed for a game that never ends
                raise GameBroke.too_long(seat, self._max_requests)
        requests = {
            seat: msgspec.structs.replace(request, id=self.seats[seat].bot.take_id())
            for seat, request in sorted(asked.items())
        }
        actions: dict[int, Any] = {}
        faults: dict[int, Fault] = {}
        received: dict[int, list[dict[str, Any]]] = {seat: [] for seat in requests}
        started: dict[int, float] = {}
        # A seat not asked now gets its notices now; an asked seat gets them in one write with its request.
        await self._flush_notices([seat for seat in (0, 1) if seat not in requests])
        for seat, request in requests.items():
            started[seat] = self._now()
            try:
                bot = self.seats[seat].bot
                if bot.breach is not None:  # ended while idle (in a pool): its fault is this match's
                    raise bot.breach
                background = bot.begin_request()  # what it used since its last answer, beyond its allowance
                if background is not None:
                    raise background
                budget = self.clocks[seat].budget(bot.stats.requests == 0, started[seat])
                self._queue(seat, request)
                bot.mark_unasked()
                await self._flush(seat, timeout=max(0.05, budget))
            except BotFault as fault:
                faults[seat] = self._fault(seat, fault, request)
        self.log.step()  # a live log shows the step's requests while they are awaited

        waiting = {
            seat: self._await(seat, request, started[seat], received[seat])
            for seat, request in requests.items()
            if seat not in faults
        }
        ready = {seat for seat in waiting if self.seats[seat].bot.has_read_ahead}  # lines read before the request
        while waiting:
            now = self._now()
            due = {seat for seat, awaited in waiting.items() if now >= awaited.next_check}
            for seat in sorted((ready | due) & waiting.keys()):
                try:
                    answered, action = await self._take_answer(seat, waiting[seat])
                    if not answered:
                        continue
                    try:
                        actions[seat] = state.check(seat, action)
                    except IllegalAction as exc:
                        raise IllegalMove(str(exc)) from None
                    except Exception as exc:  # the game's own code: a bot's answer must never crash it
                        raise GameBroke.raised(exc) from exc
                except BotFault as fault:
                    faults[seat] = self._fault(seat, fault, requests[seat])
                del waiting[seat]
            for seat in sorted(due & waiting.keys()):
                awaited = waiting[seat]
                ended = awaited.move.check(self.seats[seat].bot)
                if ended is not None:
                    faults[seat] = self._fault(seat, ended, requests[seat])
                    del waiting[seat]
                else:
                    awaited.next_check = self._now() + awaited.move.poll_s
            if waiting:
                bots = {self.seats[seat].bot.stdout_fd: seat for seat in waiting}
                deadline = min(awaited.next_check for awaited in waiting.values())
                deadline = min(deadline, self._rest_over(self._now()))
                woken = await self._watch.wait([self.seats[s].bot for s in waiting], deadline)
                # A seat judged (and so no longer awaited) while its descriptor was armed may be among them.
                ready = {bots[fd] for fd in woken if fd in bots}
        for seat in requests:
            for record in received[seat]:
                self.log.write(record)
        if faults:
            raise _Faulted([faults[seat] for seat in sorted(faults)])
        return actions

    def _await(self, seat: int, request: Request, started: float, records: list[dict[str, Any]]) -> _Awaited:
        """Start timing ``seat``'s answer to ``request`` (sent at ``started``)."""
        player = self.seats[seat]
        first = player.bot.stats.requests == 0
        move = self.clocks[seat].start(player.bot, first, started)
        return _Awaited(
            request=request,
            move=move,
            records=records,
            output_budget=self._out_at_start[seat] + player.limits.output_bytes,
            next_check=self._now() + move.poll_s,
        )

    async def _take_answer(self, seat: int, awaited: _Awaited) -> tuple[bool, Any]:
        """``(True, action)`` when ``seat`` has written its answer, ``(False, None)`` when not yet (never waits)."""
        bot = self.seats[seat].bot
        move = awaited.move
        while True:
            line = await bot.poll_line(output_budget=awaited.output_budget, move_budget=move.output_budget)
            if line is None:
                return False, None
            if self._log_on:
                bot.pull_stderr()  # what it wrote to stderr before this line is logged before it
            answer = self._decode(seat, line, awaited.request, awaited.records, unasked=bot.line_unasked)
            if answer is not None:
                break
        over = move.finish(bot)
        if over is not None:
            raise over
        elapsed = move.wall_s
        bot.stats.requests += 1
        stats = self.stats[seat]
        stats.requests += 1
        stats.think_s += elapsed
        stats.max_move_s = max(stats.max_move_s, elapsed)
        return True, answer.action

    def _decode(
        self, seat: int, line: bytes, request: Request, records: list[dict[str, Any]], *, unasked: bool
    ) -> protocol.Answer | None:
        """The answer to ``request`` on ``line``; ``None`` for a late answer to an abandoned request (ignored)."""
        logged = self._log_on
        record: dict[str, Any] = {"type": "recv", "seat": SEATS[seat]} if logged else {}
        if logged:
            record.update(logged_line(line))
            if unasked:
                record["unasked"] = True
        try:
            answer = self.seats[seat].wire.decode(line, request)
            taken = self.seats[seat].bot.judge_answer(answer.id, unasked=unasked)
        except BotFault:
            self._keep(records, record)  # the line that faulted is logged too
            raise
        if not taken:
            record["stale"] = True
            self.stats[seat].stale_answers += 1
        self._keep(records, record)
        return answer if taken else None

    def _keep(self, records: list[dict[str, Any]], record: dict[str, Any]) -> None:
        """Hold a received line's record for the log, stamped now (nothing to hold when the match is not logged)."""
        if self._log_on:
            records.append(self.log.stamp(record))


def _logged(fault: Fault) -> dict[str, Any]:
    """A fault as its log line holds it (what a busy machine may explain is for the arena's checks only)."""
    return {key: value for key, value in fault.__dict__.items() if key != "machine_may_explain"}


def _shown_path(text: str) -> str:
    """A path as a log can hold it: bytes that are not UTF-8 (a folder named so) as ``\\xff`` escapes."""
    return os.fsencode(text).decode("utf-8", "backslashreplace")
