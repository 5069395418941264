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

import json
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol import Limits

from ..bots.spec import BotSpec
from ..checks.hints import printable
from ..games import Game
from ..games._choices import Choice, choices
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
Asked = Callable[[list[Choice] | None], None]
"""Hears the moves a request allows (``None``: not listed, JSON expected) before the person's answer is read."""


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
    asked: Asked = lambda _choices: None,
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
                record = await play_match(
                    game, specs, seed=seed, limits=limits, log_dir=log_dir, stderr_dir=Path(folder),
                    own_seats={seat: human_limits},
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
    asked: Asked = lambda _choices: None,
) -> None:
    """Play the seat whose relay connects to ``listener``: show each message, ask for each answer."""
    connection, _ = await listener.accept()
    stream = trio.SocketStream(connection)
    renderer = renderer_for(game_id)
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
            kind = message.get("type")
            if kind == "quit":
                return
            if kind == "match_start":
                say(f"You play seat {message.get('seat')} against {printable(str(message.get('opponent', '')))}.")
                continue
            if kind == "match_end":
                result = message.get("result") or {}
                say(f"The match is over: {words(renderer.result(result, ('you', 'the bot')))}")
                continue
            say(("asked: " if "id" in message else "told: ") + words(renderer.message(message)))
            if "id" in message:
                action = await _pick(message, read_line, say, asked)
                if action is _LEFT:
                    say("You left the match: it ends as your seat's fault.")
                    return
                await stream.send_all(json.dumps({"id": message["id"], "action": action}).encode() + b"\n")


_LEFT = object()
"""The person's input ended (end of file): no answer."""


async def _pick(request: dict[str, Any], read_line: ReadLine, say: Callable[[str], None], asked: Asked) -> Any:
    """The answer the person picks for ``request`` (a number from the list, or JSON when there is no list)."""
    listed = choices(request)
    asked(listed)
    if listed:
        for number, (label, _) in enumerate(listed, start=1):
            say(f"  {number:>3}) {label}")
    while True:
        say(f"your move (1-{len(listed)}):" if listed else "your answer, as JSON:")
        text = await read_line()
        if not text:
            return _LEFT
        picked = _parse(text.strip(), listed)
        if picked is not _NOTHING:
            return picked
        say(f"not one of the moves: type a number from 1 to {len(listed)}" if listed else "that is not JSON")


_NOTHING = object()


def _parse(text: str, listed: list[Choice] | None) -> Any:
    """The action ``text`` names: a number of the list, or a move's words; JSON when there is no list."""
    if listed:
        if text.isdigit() and 1 <= int(text) <= len(listed):
            return listed[int(text) - 1][1]
        named = [action for label, action in listed if label.casefold() == text.casefold()]
        return named[0] if named else _NOTHING
    try:
        return json.loads(text)
    except ValueError:
        return _NOTHING


__all__ = ["HUMAN", "HUMAN_LIMITS", "human_spec", "play_human", "prompt", "read_stdin"]
