"""Command-line options shared by every command that plays matches: limits, sandbox, game parameters.

``arena play``, ``arena tournament`` and ``arena check`` add the same limits
group (:func:`limits_args`) and read it back with :func:`limits_from`, which
also checks the sandbox against the minimum level the organiser asked for.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import msgspec

from protocol import Limits

from .._errors import ConfigError
from ..games import load_game_module


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


def limits_args(parser: argparse.ArgumentParser) -> None:
    """Add the limits group (move time, start-up time, time bank, memory, processes, sandbox level)."""
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
    sandbox_args(group)


def limits_from(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` the command line asks for (and the sandbox checked against its minimum)."""
    limits = msgspec.structs.replace(
        Limits(), move_s=args.move_time, startup_s=args.startup_time, time_bank_s=args.time_bank
    )
    return limits_with_sandbox(args, limits)


def params_from(pairs: Sequence[str]) -> dict[str, object]:
    """Game parameters from ``--param NAME=VALUE`` options (values read as JSON when they parse)."""
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


def sandbox_args(group: argparse._ArgumentGroup) -> None:
    """Add ``--memory``, ``--max-processes``, ``--disk``, ``--sandbox-min`` and ``--allow-weak-sandbox``."""
    from ..sandbox import DEFAULT_MINIMUM, LEVELS  # imported here: `arena check-game` plays no bot

    defaults = Limits()
    group.add_argument("--memory", type=int, default=defaults.memory_bytes >> 20, metavar="MIB",
                       help="memory per bot, over its whole process tree (default %(default)s)")  # fmt: skip
    group.add_argument("--max-processes", type=int, default=defaults.processes, metavar="N",
                       help="processes and threads per bot (default %(default)s)")  # fmt: skip
    group.add_argument("--disk", type=number(int), default=defaults.disk_bytes >> 20, metavar="MIB",
                       help="MiB a bot may write in its scratch folder, in all (default %(default)s)")  # fmt: skip
    group.add_argument(
        "--sandbox-min",
        default=DEFAULT_MINIMUM,
        choices=list(LEVELS),
        help="refuse bots below this sandbox level (default %(default)s, see `arena sandbox`)",
    )
    group.add_argument("--allow-weak-sandbox", action="store_true",
                       help="run bots even when the sandbox here is below --sandbox-min")  # fmt: skip


def limits_with_sandbox(args: argparse.Namespace, limits: Limits) -> Limits:
    """``limits`` with the sandbox options applied, after checking the sandbox's level (raises ConfigError)."""
    if hasattr(args, "sandbox_min"):
        from ..sandbox import check_minimum

        check_minimum(args.sandbox_min, allow_weak=args.allow_weak_sandbox)
    if hasattr(args, "memory"):
        limits = msgspec.structs.replace(
            limits, memory_bytes=args.memory << 20, processes=args.max_processes, disk_bytes=args.disk << 20
        )
    return limits


def game_module_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--game-module FILE``, for every command that takes a game: the file's games join the installed ones."""
    parser.add_argument(
        "--game-module",
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file defining a game (a Game subclass) to use beside the installed games; may be repeated",
    )


def load_game_modules(args: argparse.Namespace) -> None:
    """Register the games of the files ``--game-module`` named (a one-line error for a file that cannot be)."""
    for path in getattr(args, "game_module", None) or ():
        load_game_module(path)
