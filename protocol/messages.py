"""Messages every game shares: match framing, answers, limits and results.

The rule a bot applies to every line it reads is the whole protocol:

* a message that has an ``"id"`` key is a **request**: answer it with exactly
  one line, ``{"id": <the same id>, "action": ...}``;
* every other message is a **notice**: read it (or ignore it), answer nothing.

No message except a request carries a key named ``id`` (a test checks this), so
the rule holds even for a bot that only looks for the text ``"id":`` on a line.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Seat = Literal["A", "B"]
"""The two seats of a match. Seat A is the first player of the rules."""

SEATS: tuple[Seat, Seat] = ("A", "B")


class Message(msgspec.Struct, tag_field="type", kw_only=True, forbid_unknown_fields=False):
    """Base of every message sent to a bot; the ``type`` key names it."""


class Notice(Message, kw_only=True):
    """A message the bot reads and does not answer."""


class Request(Message, kw_only=True):
    """A message the bot must answer with one line carrying the same ``id``.

    Ids increase over the life of a bot process, across matches, so an answer
    that arrives after its request timed out can never be taken as the answer
    to a later request.
    """

    id: int = 0


class Limits(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The limits in force for one bot in one match (times in seconds)."""

    startup_s: float = 10.0
    """Time to start up: from spawn until it answers its first request."""
    move_s: float = 2.0
    """Time to answer one request (judged on CPU time where the sandbox can)."""
    move_wall_s: float = 15.0
    """Wall-clock cap for one request, a backstop for bots that sleep or block.

    Twice the most CPU a move may use by default (``move_s`` + ``time_bank_s``),
    so a machine running two matches per core still judges busy bots on CPU.
    """
    time_bank_s: float = 5.0
    """Extra time a bot may draw on over a whole match when a move runs over."""
    line_bytes: int = 1 << 16
    """Longest line a bot may send."""
    output_bytes: int = 1 << 20
    """Most bytes of stdout a bot may send over a whole match."""
    stderr_bytes: int = 1 << 20
    """Bytes of stderr kept in the bot's log file per match; the rest is dropped."""
    memory_bytes: int = 512 << 20
    """Memory of the bot's whole process tree (Node and the JVM get their heap flags from it)."""
    processes: int = 64
    """Processes and threads the bot may run at once."""
    file_bytes: int = 64 << 20
    """Largest file the bot may write (it may write only in its scratch folder, ``$HOME``)."""
    open_files: int = 256
    """Files, pipes and sockets the bot may hold open at once."""
    move_output_bytes: int = 1 << 18
    """Most bytes of stdout a bot may send while answering one request."""
    disk_bytes: int = 128 << 20
    """Bytes the bot's scratch folder (``$HOME``, its only writable place) may hold in all."""
    wall_bank_s: float = 0.0
    """Wall-clock seconds the bot's answers may take in all over one match, start-up aside (its match clock).

    0 in a config: derived from the game's length, 2 x (the game's most requests x ``move_s`` + ``time_bank_s``)
    (wall time at two bots per core, as ``move_wall_s``); a ``match_start`` carries the figure in force.
    """
    match_wall_s: float = 0.0
    """Wall-clock cap of the whole match; an answer that would run past it is a timeout.

    0 in a config: derived, both seats' ``wall_bank_s`` + ``startup_s`` + ``move_wall_s`` (the match's length if
    both bots used all their clocks); a ``match_start`` carries the figure in force.
    """


class Result(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """How a match ended, as the supervisor records it and tells each bot."""

    points: list[float]
    """Points of seat A and seat B, in the game's own unit (turns, chips...)."""
    winner: Seat | None
    """The seat that won the match, or ``None`` for a draw or a double fault."""
    forfeit: list[Seat] = []
    """The seats that faulted and so forfeited the match."""
    reason: str = ""
    """Why the match ended early, when it did (a fault's reason)."""


class MatchStart(Notice, tag="match_start", kw_only=True):
    """Opens a match. Reset any per-match state when you read it."""

    match_id: str
    game: str
    """Game id with its rules version, such as ``rps-poker/1``."""
    seat: Seat
    params: dict[str, int | float | str | bool] = {}
    """The game's parameters in force (defaults included)."""
    limits: Limits
    opponent: str = ""
    """The opponent's name, for bots that keep notes on opponents."""


class MatchEnd(Notice, tag="match_end", kw_only=True):
    """Closes a match. A bot may be sent another ``match_start`` after it."""

    match_id: str
    seat: Seat
    result: Result


class Quit(Notice, tag="quit", kw_only=True):
    """No more matches: exit now. A bot must also exit when its input closes."""


class Answer(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A bot's answer to a request: ``{"id": 7, "action": 1}``."""

    id: int
    action: Any = None
    """The game decides what an action is (an index, a bid, a list...)."""
