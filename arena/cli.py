"""The ``arena`` command line. Each subcommand lives in its own small function."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import trio

from protocol import Limits

from . import __version__
from ._errors import ArenaError, ConfigError
from .bots import BotSpec, resolve
from .games import GAMES, ParamError, get_game
from .play import new_seed, play_match

Handler = Callable[[argparse.Namespace], int]


def number(kind: Callable[[str], float], *, zero_allowed: bool = False) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` above 0 (or at least 0 with ``zero_allowed``)."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if zero_allowed and not value >= 0:
            raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
        if not zero_allowed and not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def _limits_args(parser: argparse.ArgumentParser) -> None:
    defaults = Limits()
    group = parser.add_argument_group("limits")
    group.add_argument(
        "--move-time",
        type=number(float),
        default=defaults.move_s,
        metavar="S",
        help="seconds of CPU per move (default %(default)s)",
    )
    group.add_argument(
        "--startup-time",
        type=number(float),
        default=defaults.startup_s,
        metavar="S",
        help="seconds to start up (default %(default)s)",
    )
    group.add_argument(
        "--time-bank",
        type=number(float, zero_allowed=True),
        default=defaults.time_bank_s,
        metavar="S",
        help="extra seconds per match (default %(default)s)",
    )

    from .sandbox.cli import sandbox_args

    sandbox_args(group)


def limits_from(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` the command line asks for (and the sandbox checked against its minimum)."""
    from .sandbox.cli import limits_with_sandbox

    limits = msgspec.structs.replace(
        Limits(), move_s=args.move_time, startup_s=args.startup_time, time_bank_s=args.time_bank
    )
    return limits_with_sandbox(args, limits)


def _params(pairs: Sequence[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f"--param {pair!r}: write NAME=VALUE")
        try:
            params[key] = msgspec.json.decode(value)
        except msgspec.DecodeError:
            params[key] = value
    return params


def cmd_play(args: argparse.Namespace) -> int:
    """Play one match and narrate it."""
    game = get_game(args.game, _params(args.param))
    specs = (_speaking(resolve(args.bot_a), args.protocol_a), _speaking(resolve(args.bot_b), args.protocol_b))
    seed = args.seed if args.seed is not None else new_seed()
    log_dir = None if args.no_log else Path(args.log_dir)
    print(f"{game.title} ({game.game_id}), seed {seed}")
    print(f"  A: {specs[0].name}  ({' '.join(specs[0].command)})")
    print(f"  B: {specs[1].name}  ({' '.join(specs[1].command)})")
    record = trio.run(
        lambda: play_match(
            game, specs, seed=seed, limits=limits_from(args), log_dir=log_dir, narrate=None if args.quiet else print
        )
    )
    result = record.result
    a, b = (_num(p) for p in result.points)
    if result.winner is None:
        verdict = "draw" if not result.forfeit else "no winner (both faulted)"
    else:
        verdict = f"{result.winner} ({record.names['AB'.index(result.winner)]}) wins"
    print(f"Result: {record.names[0]} {a} - {b} {record.names[1]}: {verdict}")
    for fault in record.faults:
        print(f"  fault: {fault.seat} {fault.kind}: {fault.reason}")
    if record.log_path:
        print(f"Log: {record.log_path}")
    return 0


def _speaking(spec: BotSpec, protocol: str | None) -> BotSpec:
    return spec.speaking(protocol) if protocol else spec


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def cmd_games(args: argparse.Namespace) -> int:
    """List the games and their parameters."""
    for cls in GAMES.values():
        print(f"{cls.id}/{cls.version}  {cls.title}: {cls.summary}")
        for param in cls.params_table:
            print(f"    {param.name} = {param.default!r}  {param.doc}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="arena", description="A sandboxed referee for two-player card-game bots.")
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser("play", help="play one match between two bots and narrate it")
    play.add_argument("game", help="game id, such as rps-poker (see `arena games`)")
    play.add_argument("bot_a", metavar="BOT_A", help="a bot folder, an executable, or a command line in quotes")
    play.add_argument("bot_b", metavar="BOT_B")
    play.add_argument("--seed", type=int, help="the deal's seed (default: random, and printed)")
    play.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter")
    play.add_argument("--log-dir", default="arena-runs/logs", help="where match logs go (default %(default)s)")
    play.add_argument("--no-log", action="store_true", help="write no log")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    for seat in ("a", "b"):
        play.add_argument(
            f"--protocol-{seat}", metavar="NAME", help=f"bot {seat.upper()} speaks NAME (json, gops-text)"
        )
    _limits_args(play)
    play.set_defaults(handler=cmd_play)

    games = sub.add_parser("games", help="list the games and their parameters")
    games.set_defaults(handler=cmd_games)

    for register in _extra_commands():
        register(sub)
    return parser


def _extra_commands() -> list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]]:
    """Subcommands that live in their own modules; each module has ``register(sub)``."""
    import importlib

    found = []
    for name in EXTRA_COMMAND_MODULES:
        module = importlib.import_module(f"arena.{name}")
        found.append(module.register)
    return found


EXTRA_COMMAND_MODULES: list[str] = ["replay.cli", "tournament", "results", "check", "sandbox.cli"]
"""Modules under ``arena`` that add subcommands (tournament, results, check, replay...)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` command."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except BaseException as exc:
        leaf = _user_facing(exc)
        if isinstance(leaf, KeyboardInterrupt):
            print("arena: interrupted; every bot process was stopped", file=sys.stderr)
            return 130
        if isinstance(leaf, ArenaError | ParamError):
            print(f"arena: error: {leaf}", file=sys.stderr)
            return 2
        raise


def _user_facing(exc: BaseException) -> BaseException:
    """The Ctrl-C or user error inside ``exc``, seeing through trio's exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        for kind in (KeyboardInterrupt, ArenaError, ParamError):
            found = exc.subgroup(kind)
            if found is not None:
                return _user_facing(found.exceptions[0])
    return exc


if __name__ == "__main__":
    sys.exit(main())
