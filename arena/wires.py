"""Text protocols: wires for bots written for a game's original referee.

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
carry request ids, so Arena's protection against late answers cannot exist in
a text protocol: a bot that writes two lines for one bid has its second line
taken as its next bid. (A late answer cannot outlive its match, though: a
timeout ends the match, and the process with it.)
"""

from __future__ import annotations

import re

import protocol
from protocol import Request
from protocol.gops import GopsBid, GopsResult

from ._errors import ProtocolViolation
from .match import Wire

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


TEXT_WIRES: tuple[type[Wire], ...] = (GopsTextWire,)


def register_text_wires(wires: dict[str, type[Wire]]) -> None:
    """Add every text protocol to ``wires`` (``arena.match.WIRES``), by name."""
    for cls in TEXT_WIRES:
        wires[cls.name] = cls
