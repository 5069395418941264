"""Wires: how messages become a bot's lines and its lines become answers.

:class:`Wire` is Arena's JSON protocol, and the base of the text protocols:
wires for bots written for a game's original referee. :func:`wire_for` picks
the wire a bot speaks by the name its manifest gives (``protocol = ...``).

A bot whose manifest says ``protocol = "gops-text"`` (or that ``arena play``
is told about with ``--protocol-a gops-text``) speaks the 2007 GOPS quiz's
plain lines instead of JSON, and runs unchanged:

* the arena sends ``Competition card:  N`` (two spaces after the colon) when a
  bid is wanted, and ``Opponent's bid:  N`` once both bids are in;
* the bot's answer is the first integer on its line (``"7"``, ``"bid 7"``);
  a line with no integer is a protocol error, a card not in hand an illegal
  move, exactly as for JSON bots; so are timeouts, crashes and closed pipes;
* the framing (``match_start``, ``match_end``, ``quit``) is not sent: the
  bot's input is closed when the match ends, which is how the quiz's bots knew.

Without framing a process cannot tell one match from the next, so a text bot
is never reused: it gets a new process for every match. Nor do text lines
carry request ids, so Arena's protection against late answers is weaker in a
text protocol: a line written before its bid was asked (a second line written
with a bid) is a protocol error, but one written after the next bid was asked
is taken as that bid. (A late answer cannot outlive its match, though: a
timeout ends the match, and the process with it.)
"""

from __future__ import annotations

import re

import protocol
from protocol import Request
from protocol.gops import GopsBid, GopsResult

from .._errors import ConfigError, InvalidJson, ProtocolViolation
from ..games import Game, TextProtocol


class Wire:
    """How messages become lines for a bot and lines become answers (JSON by default)."""

    name = "json"
    games: frozenset[str] = frozenset()
    """Ids of the games this wire can carry; empty for every game."""

    def __init__(self) -> None:
        self._decoder = protocol.AnswerDecoder()

    def encode(self, message: protocol.Message) -> bytes | None:
        """The line to send for ``message``, or ``None`` to send nothing."""
        return protocol.encode(message)

    def decode(self, line: bytes, request: Request) -> protocol.Answer:
        """The answer on ``line`` (raises :class:`BotFault` when it is none)."""
        try:
            return self._decoder.decode(line)
        except protocol.AnswerError as exc:
            raise (InvalidJson if exc.malformed else ProtocolViolation)(str(exc)) from None


def unexpected_answer(answer_id: int, pending: int | None, last_sent: int, *, unasked: bool) -> ProtocolViolation:
    """The fault for an answer that does not answer the pending request (nor an abandoned one, late).

    ``pending`` is the id awaiting its answer, ``last_sent`` the highest id
    the process was sent, ``unasked`` whether the line was written before
    the pending request was sent. The match and ``replay --verify`` both
    judge with it, so a log re-runs to the same fault.
    """
    waiting = f"; the pending request has id {pending}" if pending is not None else ""
    if answer_id == pending:
        assert unasked
        return ProtocolViolation(f"answered request {answer_id} before it was sent: answer only what is asked")
    if 1 <= answer_id <= last_sent:
        return ProtocolViolation(f"a second answer to request {answer_id}{waiting}")
    return ProtocolViolation(f"answered id {answer_id}, which was never sent{waiting}")


def wire_for(protocol_name: str, game: Game) -> Wire:
    """The wire for a bot that speaks ``protocol_name`` in ``game`` (Arena's own, or one the game declares)."""
    cls = WIRES.get(protocol_name)
    if cls is None:
        own = {text.name: text for text in game.text_protocols}
        if protocol_name in own:
            return GameTextWire(own[protocol_name]())
        known = ", ".join(sorted([*WIRES, *own]))
        raise ConfigError(f"unknown bot protocol {protocol_name!r}; known: {known}")
    if cls.games and game.id not in cls.games:
        raise ConfigError(f"bot protocol {protocol_name!r} is for {', '.join(sorted(cls.games))}, not {game.id}")
    return cls()


_FIRST_INTEGER = re.compile(rb"[-+]?\d+")
_MAX_DIGITS = 18


class GopsTextWire(Wire):
    """The 2007 GOPS referee's lines: ``Competition card:  N`` out, a number back."""

    name = "gops-text"
    games = frozenset({"gops"})

    def encode(self, message: protocol.Message) -> bytes | None:
        match message:
            case GopsBid(prize=prize):
                return f"Competition card:  {prize}\n".encode()
            case GopsResult(opponent_bid=bid):
                return f"Opponent's bid:  {bid}\n".encode()
            case _:
                return None

    def decode(self, line: bytes, request: Request) -> protocol.Answer:
        found = _FIRST_INTEGER.search(line)
        if found is None:
            text = line[:80].decode("utf-8", "replace")
            raise ProtocolViolation(f"no number on the line {text!r}; a gops-text bot answers with its bid, such as 7")
        digits = found.group()
        if len(digits.lstrip(b"+-")) > _MAX_DIGITS:
            raise ProtocolViolation(f"the number {digits[:20].decode()}... is too long to be a bid")
        return protocol.Answer(id=request.id, action=int(digits))


class GameTextWire(Wire):
    """A text protocol a game declares (:class:`~arena.games.TextProtocol`), as a wire."""

    def __init__(self, text: TextProtocol) -> None:
        super().__init__()
        self.text = text
        self.name = text.name

    def encode(self, message: protocol.Message) -> bytes | None:
        line = self.text.line(message)
        return None if line is None else line.replace("\n", " ").encode() + b"\n"

    def decode(self, line: bytes, request: Request) -> protocol.Answer:
        try:
            action = self.text.action(line, request)
        except ValueError as exc:
            raise ProtocolViolation(f"{self.name}: {exc}") from None
        return protocol.Answer(id=request.id, action=action)


WIRES: dict[str, type[Wire]] = {"json": Wire, GopsTextWire.name: GopsTextWire}
"""Wire formats by the name a bot's manifest gives as ``protocol``: JSON, and the text protocols."""
