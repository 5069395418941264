"""Re-running a logged match's rules from its seed and recorded answers.

This mirrors :class:`arena.supervisor.match.MatchRunner` step for step, with the log
standing in for the bots: each request is answered by the line that answered
it in the log (stale answers excluded), decoded by the same wire and checked
by the same rules, so an illegal move or a bad line faults again exactly as
it did. Faults the rules cannot reproduce (timeouts, crashes, output limits)
are taken from the log's fault records, at the request they name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

import protocol
from protocol import SEATS, Limits, MatchEnd, MatchStart, Request, Result

from .._errors import ArenaError, BotFault, ConfigError, IllegalMove
from ..games import GAMES, Game, IllegalAction, MatchState, get_game
from ..supervisor.match import GameBroke, game_error_result
from ..supervisor.wires import Wire, unexpected_answer, wire_for
from ._log import LoggedMatch
from ._timeline import Event, Frame, Timeline, frame_title, score_from

REPRODUCIBLE = ("illegal_move", "invalid_json", "protocol_error")
"""Fault kinds that the rules and the wire judge again from the logged line."""


class RulesUnavailable(ConfigError):
    """The log's game, or its rules version, is not in this arena."""


class _Stop(Exception):
    """The log and the rules part ways so that the rules cannot go on."""

    def __init__(self, seat: int, line: int, text: str) -> None:
        super().__init__(text)
        self.seat = seat
        self.line = line
        self.text = text


class _Faulted(Exception):
    def __init__(self, faults: list[dict[str, Any]]) -> None:
        super().__init__(faults)
        self.faults = faults


@dataclass
class Rerun:
    """What the rules produce for a log's seed and answers."""

    timeline: Timeline
    sent: tuple[list[dict[str, Any]], list[dict[str, Any]]] = field(default_factory=lambda: ([], []))
    """Messages the rules send to seat A and seat B, in order, as the log records them."""
    faults: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    stopped: str = ""
    """Why the rules could not be run to the end ("" when they were)."""
    stopped_seat: int | None = None
    stopped_line: int = 0


def rules_for(log: LoggedMatch) -> Game:
    """The game of ``log`` with its parameters; :class:`RulesUnavailable` when this arena lacks those rules."""
    name, _, version = log.game.partition("/")
    cls = GAMES.get(name)
    if cls is None:
        known = ", ".join(sorted(GAMES))
        raise RulesUnavailable(
            f"{log.path}: the game {log.game!r} is not in this arena (it has {known}); a plugin game: install its"
            " package, or name its file with --game-module"
        )
    if version != str(cls.version):
        raise RulesUnavailable(
            f"{log.path} was played under {name} rules version {version or '?'}, and this arena has "
            f"version {cls.version}: the rules changed since, so the match cannot be re-run "
            f"(`arena replay` without --verify still shows the logged messages)"
        )
    try:
        return get_game(log.game, log.header.get("params") or {})
    except ValueError as exc:
        raise RulesUnavailable(f"{log.path}: {exc}") from None


def score_of(state: MatchState) -> list[float] | None:
    """The running points of A and B, when the state keeps them as ``points``."""
    points = getattr(state, "points", None)
    if (
        isinstance(points, list | tuple)
        and len(points) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in points)
    ):
        return [float(points[0]), float(points[1])]
    return None


class _RulesRerun:
    """Feeds a logged match's moves to this arena's rules again, keeping what they send each seat (for :func:`rerun`;
    not a runner of matches: :mod:`arena.competition.runner` is)."""

    def __init__(self, log: LoggedMatch, game: Game) -> None:
        self.log = log
        self.game = game
        self.wires: list[Wire] = [wire_for(str(log.bot(s).get("protocol", "json")), game) for s in (0, 1)]
        self.sent: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
        self.asked = [0, 0]
        self.max_requests = game.max_requests()
        first = [log.requests(s)[0].msg.get("id") if log.requests(s) else None for s in (0, 1)]
        self.first_id = [f if isinstance(f, int) else 1 for f in first]
        self.notice_faults = {
            SEATS.index(f["seat"]): f for f in log.faults if f.get("request_id") is None and f.get("seat") in SEATS
        }
        self.frames: list[Frame] = [Frame("match start")]
        self.shown_failed = ""
        """Why the game's ``shown`` could not be drawn ("" when it could, or the game has none)."""
        self.told_score: list[float] | None = None
        """The latest score a message told a seat, for games whose state keeps no ``points``."""

    def send(self, seat: int, message: protocol.Message, limits: dict[str, Any] | None = None) -> None:
        as_logged = msgspec.to_builtins(message)
        if limits is not None:
            # Limits are not the rules' output: they are sent as the header recorded them, and a log
            # written before Limits gained a field still says what that bot was told.
            as_logged["limits"] = limits
        self.sent[seat].append(as_logged)
        self.wires[seat].encode(message)  # a text wire may keep state from what it sends
        kind = "request" if isinstance(message, Request) else "notice"
        self.told_score = score_from(as_logged, seat) or self.told_score
        self.frames[-1].events.append(Event(kind, seat, as_logged))
        # A fault while sending a notice happened at the last message the log has for that seat.
        fault = self.notice_faults.get(seat)
        if fault is not None and kind == "notice" and len(self.sent[seat]) == len(self.log.sent[seat]):
            raise _Faulted([fault])

    def shown(self, state: MatchState) -> dict[str, Any] | None:
        """What ``state`` shows now as plain data (copied: the state goes on), or ``None``.

        A game's ``shown`` is its author's code run on every step: one that
        fails, or shows what is not plain data, leaves the replay without a
        generic table (saying why), never without its steps.
        """
        if self.shown_failed:
            return None
        try:
            shown = state.shown()
            return None if shown is None else dict(msgspec.to_builtins(shown))
        except Exception as exc:  # a plugin's code: reported on the page, not raised
            self.shown_failed = f"{type(self.game).__name__}'s shown() failed: {type(exc).__name__}: {exc}"
            return None

    def send_all(self, notices: list[tuple[int, protocol.Notice]]) -> None:
        for seat, message in notices:
            self.send(seat, message)

    def logged_fault(self, seat: int, request_id: int) -> dict[str, Any] | None:
        for fault in self.log.faults:
            if fault.get("seat") == SEATS[seat] and fault.get("request_id") == request_id:
                return fault
        return None

    def ask(self, state: MatchState, seat: int, request: Request) -> tuple[Any, dict[str, Any] | None]:
        k = self.asked[seat]
        self.asked[seat] += 1
        request = msgspec.structs.replace(request, id=self.first_id[seat] + k)
        self.send(seat, request)
        if k < len(self.log.requests(seat)):
            t = self.log.records[self.log.requests(seat)[k].line - 1].get("t")
            frame = self.frames[-1]
            if isinstance(t, int | float) and (frame.t is None or t < frame.t):
                frame.t = float(t)
        answers = self.log.answers[seat]
        answer = answers[k] if k < len(answers) else None
        logged_fault = self.logged_fault(seat, request.id)
        kind = str(request.__struct_config__.tag)
        if answer is None or (logged_fault is not None and logged_fault.get("kind") not in REPRODUCIBLE):
            if logged_fault is not None:
                return None, logged_fault
            line = self.log.requests(seat)[k].line if k < len(self.log.requests(seat)) else 0
            where = f"request {request.id} ({kind})"
            raise _Stop(seat, line, f"the log has no answer from {SEATS[seat]} to {where} and no fault for it")
        try:
            if not answer.complete and logged_fault is not None:
                return None, logged_fault  # the log kept only the start of that line
            decoded = self.wires[seat].decode(answer.as_bytes(), request)
            if decoded.id != request.id or answer.unasked:
                raise unexpected_answer(decoded.id, request.id, request.id, unasked=answer.unasked)
            try:
                action = state.check(seat, decoded.action)
            except IllegalAction as exc:
                raise IllegalMove(str(exc)) from None
            took = self._took(seat, k, answer.line)
            self.frames[-1].events.append(
                Event("answer", seat, msgspec.to_builtins(request), decoded.action, took=took)
            )
            return action, None
        except BotFault as fault:
            return None, {
                "seat": SEATS[seat],
                "kind": fault.kind,
                "reason": fault.reason,
                "request_id": request.id,
                "request_type": kind,
            }

    def _took(self, seat: int, k: int, answer_line: int) -> float | None:
        """Seconds between the ``k``-th request to ``seat`` and its answer, as the log timed them."""
        requests = self.log.requests(seat)
        if k >= len(requests):
            return None
        sent = self.log.records[requests[k].line - 1].get("t")
        read = self.log.records[answer_line - 1].get("t")
        if isinstance(sent, int | float) and isinstance(read, int | float):
            return max(0.0, float(read) - float(sent))
        return None

    def run(self) -> Rerun:
        state = self.game.new_match(self.log.seed)
        faults: list[dict[str, Any]] = []
        out = Rerun(timeline=self._timeline())
        try:
            try:
                for seat in (0, 1):
                    logged_limits = self.log.bot(seat).get("limits") or {}
                    known = {k: v for k, v in logged_limits.items() if k in Limits.__struct_fields__}
                    limits = msgspec.convert(known, Limits)
                    start = MatchStart(
                        match_id=self.log.match_id,
                        game=self.game.game_id,
                        seat=SEATS[seat],
                        params=self.game.params,
                        limits=limits,
                        opponent=self.log.name(1 - seat),
                    )
                    self.send(seat, start, logged_limits or None)
                opening = state.start()
                self.send_all(opening.notices)
                self.frames[0].shown = self.shown(state)
                # What the game says as it opens (Badugi's first hand) heads the first frame.
                pending = [Event("narration", text=line) for line in opening.narration]
                # The generic table heads steps by hand (a game that says MatchState.hand), and ends each hand with
                # a step of its own: the table as the hand ended, and what each seat was told (the showdown).
                by_hand, hand, move = not type(self.game).view, state.hand, 0
                while not state.is_over:
                    requests = state.requests()
                    for seat in requests:  # as the supervisor judges it: the game's error, not a bot's
                        if self.asked[seat] >= self.max_requests:
                            raise GameBroke.too_long(seat, self.max_requests)
                    title = frame_title({s: msgspec.to_builtins(r) for s, r in requests.items()})
                    if by_hand and state.hand:
                        hand, move = state.hand, move + 1 if state.hand == hand else 1
                        title = f"hand {hand}, move {move}: {title}"
                    before = self.frames[-1].shown  # the table as this step finds it
                    frame = Frame(title)
                    frame.events += pending
                    pending = []
                    self.frames.append(frame)
                    actions: dict[int, Any] = {}
                    step_faults: list[dict[str, Any]] = []
                    for seat, request in sorted(requests.items()):
                        action, fault = self.ask(state, seat, request)
                        if fault is not None:
                            step_faults.append(fault)
                            frame.events.append(Event("fault", seat, text=f"{fault['kind']}: {fault['reason']}"))
                        else:
                            actions[seat] = action
                    if step_faults:
                        raise _Faulted(step_faults)
                    step = state.apply(actions)
                    ended = by_hand and hand and state.hand != hand
                    if ended:  # the next hand is dealt already: its table is drawn from its first move on
                        frame.shown = before
                        frame.score = self.told_score
                        after = self.shown(state)  # the seats' parts (chips) as the hand left them, its cards
                        shown = {**before, "seats": after["seats"]} if before and after else before
                        self.frames.append(Frame(f"hand {hand} ends", shown=shown))
                    self.frames[-1].events += [Event("narration", text=line) for line in step.narration]
                    self.send_all(step.notices)
                    self.frames[-1].score = score_of(state) or self.told_score
                    if not ended:
                        frame.shown = self.shown(state)
                result = state.result()
            except _Faulted as faulted:
                faults = faulted.faults
                offenders = frozenset(SEATS.index(f["seat"]) for f in faults)
                reason = "; ".join(f"{f['seat']} {f['kind']}: {f['reason']}" for f in faults)
                result = state.forfeit(offenders, reason)
                if self.frames[-1].shown is None:
                    self.frames[-1].shown = self.shown(state)
                if not any(e.kind == "fault" for e in self.frames[-1].events):
                    for f in faults:
                        self.frames[-1].events.append(
                            Event("fault", SEATS.index(f["seat"]), text=f"{f['kind']}: {f['reason']}")
                        )
            self._end(result, faults)
        except _Stop as stop:
            out.stopped, out.stopped_seat, out.stopped_line = stop.text, stop.seat, stop.line
        except GameBroke as broke:
            self._game_broke(broke)
        except Exception as exc:
            if self.log.game_error is not None and not isinstance(exc, ArenaError):
                self._game_broke(GameBroke.raised(exc))  # it failed when played: it fails again, the same way
            else:  # the rules refused the logged history outright (a log edited into nonsense)
                out.stopped = f"the rules failed on this log: {type(exc).__name__}: {exc}"
        out.sent, out.faults = self.sent, faults
        out.timeline = self._timeline(out.result)
        return out

    def _game_broke(self, broke: GameBroke) -> None:
        """The game's own code ended the match here, as the supervisor ends it: no fault, no match_end."""
        result = game_error_result(broke.line)
        self.result = msgspec.to_builtins(result)
        self.frames[-1].events.append(Event("narration", text=f"game error (the game's own code): {broke.line}"))
        shown = self.frames[-1].shown if self.frames else None
        self.frames.append(Frame("result", [Event("result", msg=self.result)], score=[0.0, 0.0], shown=shown))

    def _end(self, result: Result, faults: list[dict[str, Any]]) -> None:
        self.result = msgspec.to_builtins(result)
        points = [float(p) for p in result.points]
        shown = self.frames[-1].shown if self.frames else None
        self.frames.append(Frame("result", [Event("result", msg=self.result)], score=points, shown=shown))
        faulted = {f["seat"] for f in faults}
        for seat in (0, 1):
            if SEATS[seat] not in faulted:
                end = MatchEnd(match_id=self.log.match_id, seat=SEATS[seat], result=result)
                self.sent[seat].append(msgspec.to_builtins(end))
                self.frames[-1].events.append(Event("notice", seat, msgspec.to_builtins(end)))

    def _timeline(self, result: dict[str, Any] | None = None) -> Timeline:
        return Timeline(
            game=self.game.game_id,
            title=self.game.title,
            names=(self.log.name(0), self.log.name(1)),
            seed=self.log.seed,
            frames=self.frames,
            source="rules",
            result=result,
            note=self.shown_failed,
        )


def rerun(log: LoggedMatch) -> Rerun:
    """Re-run ``log``'s rules; raises :class:`RulesUnavailable` when this arena lacks them."""
    game = rules_for(log)
    runner = _RulesRerun(log, game)
    out = runner.run()
    out.result = getattr(runner, "result", None)
    out.timeline.result = out.result
    return out
