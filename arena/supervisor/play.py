"""``arena play``: one match between two bots, narrated, with its log."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import os
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import trio

import protocol
from protocol import Limits

from ..bots.spec import BotSpec
from ..games import Game
from ..sandbox import summary
from ._process import SpawnOptions, bot_environment, open_bot
from .build import ensure_built
from .match import MatchRecord, MatchRunner, Seat
from .matchlog import MatchLog
from .wires import WIRES, wire_for

QUIT_LINE = protocol.encode(protocol.Quit())


def new_seed() -> int:
    """A fresh random seed (63 bits), for matches where the user gave none."""
    return int.from_bytes(os.urandom(8), "big") >> 1


def opaque_match_id(seed: int, key: str) -> str:
    """The id a bot is told for match ``key`` dealt from ``seed``: ``m`` and 15 hex digits of a hash of both.

    It is stable (a bot that seeds its own random numbers from it plays the
    same match again) and tells nothing a bot could use where the seed is
    secret (a competition server's): not the deal, the leg, the opponent, or
    whether the match is a check.
    """
    return "m" + hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:15]


def spawn_options(spec: BotSpec, limits: Limits, stderr_path: Path | None) -> SpawnOptions:
    """How to start ``spec`` under ``limits``, with its stderr kept at ``stderr_path``."""
    return SpawnOptions(
        env=bot_environment(spec),
        line_bytes=limits.line_bytes,
        stderr_bytes=limits.stderr_bytes,
        stderr_path=stderr_path,
        limits=limits,
    )


async def play_match(
    game: Game,
    specs: tuple[BotSpec, BotSpec],
    *,
    seed: int,
    limits: Limits,
    log_dir: Path | None,
    match_id: str | None = None,
    narrate: Callable[[str], None] | None = None,
    stderr_dir: Path | None = None,
    own_seats: Mapping[int, Limits] | None = None,
) -> MatchRecord:
    """Start both bots, play one match, stop the bots; the match log goes in ``log_dir``.

    Each bot's stderr is kept in ``stderr_dir`` (by default ``log_dir``; with neither it is dropped).
    The log and stderr files are named by the time, the game, the bots and
    the seed, with a counter when that name is taken (several matches in one
    second), so they never overwrite each other.

    ``own_seats`` (seat index to its limits): seats whose program is the
    arena's own (the human seat's relay), started without a sandbox, under
    those limits instead of ``limits``.
    """
    own_seats = own_seats or {}
    match_id = match_id or f"{game.id}-{seed}"
    stderr_dir = stderr_dir or log_dir
    names = _seat_names(specs)
    base = ""
    if log_dir is not None:
        base = log_name(log_dir, game.id, names, seed, ".jsonl")
    elif stderr_dir is not None:
        base = log_name(stderr_dir, game.id, names, seed, ".A.stderr.log")
    log_path = log_dir / f"{base}.jsonl" if log_dir else None
    for spec in specs:
        await ensure_built(spec, log=narrate)
    wires = [wire_for(spec.protocol, game) for spec in specs]
    async with contextlib.AsyncExitStack() as stack:
        seats = []
        for index, spec in enumerate(specs):
            stderr_path = stderr_dir / f"{base}.{'AB'[index]}.stderr.log" if stderr_dir else None
            seat_limits = own_seats.get(index, limits)
            options = spawn_options(spec, seat_limits, stderr_path)
            if index in own_seats:
                options = dataclasses.replace(options, sandbox=None)
            bot = await stack.enter_async_context(open_bot(spec, options))
            seats.append(Seat(bot=bot, limits=seat_limits, name=names[index], wire=wires[index]))
        log = MatchLog(log_path)
        try:
            runner = MatchRunner(
                game, seed, seats, match_id=match_id, log=log, narrate=narrate, header_extra={"sandbox": summary()}
            )
            record = await runner.run()
        finally:
            log.close()
        async with trio.open_nursery() as nursery:
            for seat in seats:
                nursery.start_soon(_say_goodbye, seat)
    return record


async def _say_goodbye(seat: Seat) -> None:
    await seat.bot.shutdown(polite=goodbye_line(seat.bot.spec.protocol))


def goodbye_line(protocol_name: str) -> bytes:
    """What a bot is sent before its input closes: ``quit``, or nothing for a text protocol (it has no framing)."""
    if protocol_name not in WIRES:  # a game's own text protocol (or an unknown name, refused before any match)
        return b""
    line = WIRES[protocol_name]().encode(protocol.Quit())
    return line if line is not None else b""


def log_name(folder: Path, game_id: str, names: tuple[str, str], seed: int, suffix: str) -> str:
    """A name for a match's files in ``folder`` that no other match has: time, game, bots, seed, and a counter.

    The name is claimed by creating its file (the name and ``suffix``)
    exclusively, so two arenas starting a match in the same second cannot
    both take it.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    bots = "-vs-".join(_safe(name) for name in names)
    folder.mkdir(parents=True, exist_ok=True)
    for number in itertools.count(1):
        base = f"{stamp}-{_safe(game_id)}-{bots}-{seed}" + (f"-{number}" if number > 1 else "")
        try:
            os.close(os.open(folder / f"{base}{suffix}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            continue
        return base
    raise AssertionError("unreachable")


def _safe(name: str) -> str:
    """A bot's name as part of a file name: letters, digits, ``.``, ``_`` and ``-`` only, 40 at most."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")[:40] or "bot"


def _seat_names(specs: tuple[BotSpec, BotSpec]) -> tuple[str, str]:
    a, b = specs[0].name, specs[1].name
    if a == b:
        return f"{a}#1", f"{b}#2"
    return a, b
