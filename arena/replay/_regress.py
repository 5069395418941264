"""Regression replay: feed a new build of a bot the messages its seat was sent, compare its answers.

The new build sees exactly the logged messages, in order, whatever it
answers, so every request is the same spot of the same match; each answer is
compared with the logged one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

import protocol
from protocol import SEATS, Limits

from .._errors import BotFault, ConfigError, Crash, OutputLimit, ProtocolViolation, Timeout
from ..bots.spec import BotSpec
from ..games import Game
from ..supervisor import BotProcess, open_bot
from ..supervisor.play import QUIT_LINE, spawn_options
from ..supervisor.wires import Wire, wire_for
from ._log import LoggedMatch, Received
from ._rerun import RulesUnavailable, rules_for
from ._timeline import describe


@dataclass
class Mismatch:
    """A request where the new build answered otherwise than the logged bot."""

    request: dict[str, Any]
    line: int
    """Line of the request in the log."""
    logged: str
    found: str

    def __str__(self) -> str:
        return (
            f"request {self.request.get('id')} ({describe(self.request)}), log line {self.line}: "
            f"logged {self.logged}, new build {self.found}"
        )


@dataclass
class Regression:
    """What the new build did with one seat's messages."""

    seat: int
    bot: str
    requests: int = 0
    answered: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    stopped: str = ""
    """Why feeding stopped early (the new build crashed or timed out)."""

    @property
    def same(self) -> bool:
        return not self.mismatches and not self.stopped


def _show(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _logged_answer(log: LoggedMatch, seat: int, k: int, request_id: Any) -> tuple[str, Any]:
    """What the logged bot answered to its k-th request (text, action), or its fault."""
    answer: Received | None = log.answers[seat][k] if k < len(log.answers[seat]) else None
    for fault in log.faults:
        if fault.get("seat") == SEATS[seat] and fault.get("request_id") == request_id:
            return f"{fault.get('kind')} ({fault.get('reason')})", _NOTHING
    if answer is None:
        return "no answer", _NOTHING
    if isinstance(answer.msg, dict):
        return _show(answer.action), answer.action
    return repr(answer.raw), answer.raw


_NOTHING = object()


async def _answer(bot: BotProcess, wire: Wire, request: protocol.Request, limits: Limits, first: bool) -> Any:
    """The new build's action for ``request`` (stale answers skipped); raises ``BotFault``."""
    budget = limits.move_wall_s + (limits.startup_s if first else 0.0)
    with trio.move_on_after(budget):
        while True:
            line = await bot.read_line(output_budget=limits.output_bytes)
            answer = wire.decode(line, request)
            if answer.id < request.id:
                continue
            if answer.id != request.id:
                raise ProtocolViolation(f"answered id {answer.id}, but the pending request has id {request.id}")
            return answer.action
    raise Timeout(f"no answer within {budget:g}s")


def _wire(log: LoggedMatch, spec: BotSpec) -> tuple[Wire, Game | None]:
    try:
        game: Game | None = rules_for(log)
    except RulesUnavailable:
        game = None
    if game is not None:
        return wire_for(spec.protocol, game), game
    if spec.protocol != "json":
        raise ConfigError(
            f"the log's rules ({log.game}) are not in this arena, so the {spec.protocol!r} wire cannot be used"
        )
    return Wire(), None


async def regress(log: LoggedMatch, seat: int, spec: BotSpec, *, limits: Limits | None = None) -> Regression:
    """Feed ``spec`` the messages ``seat`` was sent in ``log``; list where its answers differ."""
    limits = limits or msgspec.convert(log.bot(seat).get("limits") or {}, Limits)
    wire, _game = _wire(log, spec)
    decoder = protocol.MessageDecoder()
    report = Regression(seat=seat, bot=spec.name)
    async with open_bot(spec, spawn_options(spec, limits, None)) as bot:
        k = 0
        for sent in log.sent[seat]:
            raw = msgspec.json.encode(sent.msg)
            try:
                message = decoder.decode(raw)
            except msgspec.DecodeError:
                message = None  # a message of rules this arena lacks: sent as logged (JSON wire only)
            line = wire.encode(message) if message is not None else raw + b"\n"
            if line is not None:
                try:
                    with trio.fail_after(limits.move_wall_s):
                        await bot.send(line)
                except (Crash, trio.TooSlowError) as exc:
                    report.stopped = f"the new build stopped reading its input: {exc}"
                    break
            if not sent.is_request:
                continue
            report.requests += 1
            logged_text, logged_action = _logged_answer(log, seat, k, sent.msg.get("id"))
            k += 1
            request = message if isinstance(message, protocol.Request) else protocol.Request(id=sent.msg["id"])
            try:
                action = await _answer(bot, wire, request, limits, first=report.requests == 1)
            except BotFault as fault:
                found = f"{fault.kind} ({fault.reason})"
                if found != logged_text:  # the same fault for the same reason is no difference
                    report.mismatches.append(Mismatch(sent.msg, sent.line, logged_text, found))
                if isinstance(fault, Crash | Timeout | OutputLimit):
                    report.stopped = f"the new build faulted: {found}"
                    break
                continue
            report.answered += 1
            if logged_action is _NOTHING or action != logged_action or type(action) is not type(logged_action):
                report.mismatches.append(Mismatch(sent.msg, sent.line, logged_text, _show(action)))
        await bot.shutdown(polite=QUIT_LINE)
    return report
