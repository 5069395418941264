"""A human seat: a person plays a match against a bot in the terminal (``arena play GAME human BOT``).

The seat is played by a small program of the arena's own
(:mod:`arena.supervisor._human_relay`), run by the supervisor as it runs any
bot, with the same match code, clock and faults, and a generous clock
(:data:`HUMAN_LIMITS`): the match is recorded and replayable like any other.
The program hands the seat's messages to :func:`prompt` over a Unix socket;
it shows what the seat is told, lists the answers a request allows
(:func:`arena.games._choices.choices`), and reads the person's pick. The
person sees only what the seat is sent: the referee's narration and the seed
(which deals both hands) are shown after the match.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol import SEATS, Limits

from ..bots.spec import BotSpec
from ..checks.hints import printable
from ..games import Choice, Game, TableView, choices, question, view_for
from ..supervisor.match import MatchRecord
from ..supervisor.play import play_match
from ._render import renderer_for
from .watch import words

HUMAN = "human"
"""What ``arena play`` takes, in a bot's place, for a person's seat."""
HUMAN_MOVE_S = 600.0
"""The longest a person may take over one move (wall clock)."""
HUMAN_LIMITS = msgspec.structs.replace(
    Limits(), move_wall_s=HUMAN_MOVE_S, startup_s=30.0, wall_bank_s=4 * 3600.0, match_wall_s=4 * 3600.0
)
"""The human seat's limits: its relay's CPU is as small as any bot's, its wall clock is a person's."""
LINE_BYTES = 1 << 20
"""The longest message line the prompt takes from the relay."""

ReadLine = Callable[[], Awaitable[str]]
"""Reads one line the person typed: ``""`` at the end of input."""
Asked = Callable[[list[Choice] | None, str], None]
"""Hears the moves a request allows (``None``: not listed, JSON expected) and what it asks, in the game's words,
before the person's answer is read."""


def human_spec(socket_path: Path) -> BotSpec:
    """The human seat as the supervisor starts it: the relay, talking to the prompt at ``socket_path``."""
    command = (sys.executable, "-m", "arena.supervisor._human_relay", str(socket_path))
    return BotSpec(name=HUMAN, command=command, cwd=socket_path.parent, profile="python")


async def read_stdin() -> str:
    """A line from the terminal (or a pipe), read in a thread; ``""`` at the end of input."""
    return await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


async def play_human(
    game: Game,
    bot: BotSpec,
    seat: int,
    *,
    seed: int,
    limits: Limits,
    human_limits: Limits = HUMAN_LIMITS,
    log_dir: Path | None,
    read_line: ReadLine,
    say: Callable[[str], None] = print,
    asked: Asked = lambda _choices, _question: None,
) -> MatchRecord:
    """Play one match of ``bot`` against a person in ``seat`` (0 or 1), who is shown lines by ``say`` and answers
    through ``read_line`` (``asked`` hears the moves listed before each read); the match's log goes in ``log_dir``.
    """
    with tempfile.TemporaryDirectory(prefix="arena-human-") as folder:
        path = Path(folder) / "seat.sock"
        specs = (human_spec(path), bot) if seat == 0 else (bot, human_spec(path))
        listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            await listener.bind(str(path))
            listener.listen(1)
            done = trio.Event()

            async def person() -> None:
                try:
                    await prompt(listener, game.game_id, read_line, say, asked)
                finally:
                    done.set()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(person)
                # The match's id is not the default (game and seed): the seed deals both seats, and the id is sent
                # to both (a bot would know the person's cards, a person the bot's, from it).
                record = await play_match(
                    game, specs, seed=seed, limits=limits, log_dir=log_dir, stderr_dir=Path(folder),
                    own_seats={seat: human_limits}, match_id=f"{game.id}-human-{secrets.token_hex(6)}",
                )  # fmt: skip
                with trio.move_on_after(2):  # the prompt shows the end it was told
                    await done.wait()
                nursery.cancel_scope.cancel()
        finally:
            listener.close()
    return record


async def prompt(
    listener: trio.socket.SocketType,
    game_id: str,
    read_line: ReadLine,
    say: Callable[[str], None] = print,
    asked: Asked = lambda _choices, _question: None,
) -> None:
    """Play the seat whose relay connects to ``listener``: tell what happens in the game's words, ask each answer.

    A game with a table view (:mod:`arena.games._view`) is told as its replay
    tells it, fed only this seat's messages (what the seat was never told is
    not there); another game's messages are shown field by field.
    """
    connection, _ = await listener.accept()
    stream = trio.SocketStream(connection)
    seat = _SeatWords(game_id, say)
    buffer = b""
    async with stream:
        while True:
            while b"\n" not in buffer:
                data = await stream.receive_some(1 << 16)
                if not data:
                    return
                buffer += data
                if len(buffer) > LINE_BYTES:
                    return
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("type") == "quit":
                return
            seat.heard(message)
            if "id" in message:
                action = await _pick(message, read_line, say, asked)
                if action is _LEFT:
                    say("You left the match: it ends as your seat's fault.")
                    return
                seat.answered(message, action)
                await stream.send_all(json.dumps({"id": message["id"], "action": action}).encode() + b"\n")


class _SeatWords:
    """What the person's seat is told, as lines: the game's own narration where it has a table view."""

    def __init__(self, game_id: str, say: Callable[[str], None]) -> None:
        self.game_id = game_id
        self.say = say
        self.renderer = renderer_for(game_id)
        self.view: TableView | None = None
        self.seat = 0

    def heard(self, message: dict[str, Any]) -> None:
        """A message the seat was sent."""
        kind = message.get("type")
        if kind == "match_start":
            self.seat = 1 if message.get("seat") == "B" else 0
            opponent = printable(str(message.get("opponent", "")))
            self.say(f"You play seat {SEATS[self.seat]} against {opponent}.")
            cls = view_for(self.game_id)
            if cls is not None:
                names = ("you", opponent) if self.seat == 0 else (opponent, "you")
                with contextlib.suppress(*_VIEW_ERRORS):
                    self.view = cls(message.get("params") or {}, names, frozenset({self.seat}))
        if kind == "match_end":
            result = message.get("result") or {}
            names = ("you", "the bot") if self.seat == 0 else ("the bot", "you")
            self.say(f"The match is over: {words(self.renderer.result(result, names))}.")
            return
        if self.view is None:
            if kind != "match_start":
                self.say(("asked: " if "id" in message else "told: ") + words(self.renderer.message(message)))
            return
        try:
            if "id" in message:
                self.view.asked(self.seat, message)
            else:
                self.view.told(self.seat, message)
        except _VIEW_ERRORS:  # a view that cannot follow (a game changed under it): the message as it is
            self.view = None
            self.say(("asked: " if "id" in message else "told: ") + words(self.renderer.message(message)))
            return
        self._narrate()
        if "id" in message:
            self._table()

    def answered(self, request: dict[str, Any], action: Any) -> None:
        """The person answered ``request`` with ``action``."""
        if self.view is None:
            return
        try:
            self.view.answered(self.seat, request, action)
        except _VIEW_ERRORS:
            self.view = None
            return
        self._narrate()

    def _narrate(self) -> None:
        assert self.view is not None
        for line in self.view.said_since():
            self.say(_line_words(line))

    def _table(self) -> None:
        """The seat's cards and what lies between the seats, before a question."""
        assert self.view is not None
        with contextlib.suppress(*_VIEW_ERRORS):
            table = self.view.table()
            for z in [*table["center"], *table["seats"][self.seat]["zones"]]:
                if z.get("cards"):
                    self.say(f"  {z['label']}: {' '.join(str(c) for c in z['cards'])}")


_VIEW_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def _line_words(line: list[Any]) -> str:
    """A line of a view's narration as text, each card by its face."""
    return "".join(str(p["card"]) if isinstance(p, dict) else str(p) for p in line)


_LEFT = object()
"""The person's input ended (end of file): no answer."""


async def _pick(request: dict[str, Any], read_line: ReadLine, say: Callable[[str], None], asked: Asked) -> Any:
    """The answer the person picks for ``request``: a move's number or its words (the only move: Enter too); JSON
    when the moves are not listed."""
    listed = choices(request)
    asked(listed, question(request))
    if listed:
        for number, (label, _) in enumerate(listed, start=1):
            say(f"  {number:>3}) {label}")
    while True:
        if listed and len(listed) == 1:
            say(f"{question(request)} Your only move is {listed[0][0]}: press Enter.")
        elif listed:
            say(f"{question(request)} Type its number or its name, such as {listed[0][0]}:")
        else:
            say(f"{question(request)} Type your answer as JSON:")
        text = await read_line()
        if not text:
            return _LEFT
        if listed and len(listed) == 1 and not text.strip():
            return listed[0][1]
        picked = _parse(text.strip(), listed)
        if picked is not _NOTHING:
            return picked
        say(
            f"{text.strip()[:40]!r} is not one of the moves: type a number from 1 to {len(listed)}, "
            f"or a move as listed (such as {listed[-1][0]})"
            if listed
            else "that is not JSON"
        )


_NOTHING = object()


def _parse(text: str, listed: list[Choice] | None) -> Any:
    """The action ``text`` names: a number of the list, or a move's words; JSON when there is no list."""
    if listed:
        if text.isdigit() and 1 <= int(text) <= len(listed):
            return listed[int(text) - 1][1]
        named = [action for label, action in listed if label.casefold() == " ".join(text.split()).casefold()]
        return named[0] if named else _NOTHING
    try:
        return json.loads(text)
    except ValueError:
        return _NOTHING


def narration(log_path: Path) -> list[str]:
    """The whole match in the game's words (both seats' cards), from its log: what a person is told once it ended.

    The game's table view tells it where the game has one; else the rules' own narration (a plugin's).
    """
    from ._log import load_log
    from ._page import timeline_of
    from ._tables import NoTable, tables

    log = load_log(log_path)
    timeline = timeline_of(log)
    out: list[str] = []
    try:
        if view_for(timeline.game) is None:
            raise NoTable("no view")
        _, drawn = tables(timeline, log.header.get("params") or {}, ["all"])
        for table in drawn["all"]:
            out += [_line_words(line) for line in table["say"]]
    except NoTable:
        out = [e.text for frame in timeline.frames for e in frame.events if e.kind == "narration"]
    return out


__all__ = ["HUMAN", "HUMAN_LIMITS", "human_spec", "narration", "play_human", "prompt", "read_stdin"]
