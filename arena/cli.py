"""The ``arena`` command line. Each subcommand lives in its own small function.

Every command imports only what it uses: the parser of ``arena COMMAND`` is
built from the modules that command needs (:data:`COMMANDS`), and the top of
the command line (``arena --help``, ``arena --version``) from the table alone,
without importing trio, msgspec or any command's module.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from ._errors import GAME_ERROR, GAME_ERROR_STATUS, ArenaError, ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .bots.spec import BotSpec
    from .games import Game
    from .supervisor.match import MatchRecord

Handler = Callable[[argparse.Namespace], int]


def cmd_play(args: argparse.Namespace) -> int:
    """Play one match and narrate it; a fault is shown with the end of the bot's stderr and a hint."""
    human = 0 if args.bot_a == "human" else 1 if args.bot_b == "human" else None  # arena.replay.human.HUMAN (imported
    if human is not None:  # only when a person plays: it imports the replay's renderers)
        return _play_human(args, human)

    import contextlib
    import tempfile

    import trio

    from .bots.spec import game_of, resolve
    from .checks.hints import printable
    from .games import GAMES, get_game
    from .supervisor.options import limits_from, params_from
    from .supervisor.play import new_seed, play_match

    specs = (_speaking(resolve(args.bot_a), args.protocol_a), _speaking(resolve(args.bot_b), args.protocol_b))
    named = game_of(args.game, specs)
    if named is None:
        raise ConfigError(
            'name the game (arena play GAME BOT_A BOT_B), or say it in a bot\'s bot.toml (game = "gops");'
            f" the games: {', '.join(GAMES)}"
        )
    game = get_game(named, params_from(args.param))
    seed = args.seed if args.seed is not None else new_seed()
    limits = limits_from(args)
    if not args.quiet:
        print(f"{game.title} ({game.game_id}), seed {seed}")
        for seat, spec in zip("AB", specs, strict=True):
            print(f"  {seat}: {printable(spec.name)}  ({printable(' '.join(spec.command))})")
    if specs[0].name == specs[1].name:
        name = printable(specs[0].name)
        print(f"arena: note: both bots are named {name}; they play as {name}#1 and {name}#2", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        log_dir = None if args.no_log else Path(args.log_dir)
        stderr_dir = None
        if log_dir is None:  # the bots' stderr is kept for the match all the same, to show its end with a fault
            stderr_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-play-")))
        record = trio.run(
            lambda: play_match(
                game,
                specs,
                seed=seed,
                limits=limits,
                log_dir=log_dir,
                stderr_dir=stderr_dir,
                narrate=None if args.quiet else print,
            )
        )
        _print_result(record, game, specs)
    return GAME_ERROR_STATUS if record.game_error else 0


def _play_human(args: argparse.Namespace, seat: int) -> int:
    """``arena play GAME human BOT``: a person plays ``seat`` against the bot, at the terminal."""
    import trio

    from .bots.spec import BotSpec, game_of, resolve
    from .checks.hints import printable
    from .games import GAMES, get_game
    from .replay.human import HUMAN, narration, play_human, read_stdin
    from .supervisor.options import limits_from, params_from
    from .supervisor.play import new_seed

    text, protocol = (args.bot_b, args.protocol_b) if seat == 0 else (args.bot_a, args.protocol_a)
    other = _speaking(resolve(text), protocol)
    named = game_of(args.game, [other])
    if named is None:
        raise ConfigError(f"name the game (arena play GAME human BOT); the games: {', '.join(GAMES)}")
    game = get_game(named, params_from(args.param))
    seed = args.seed if args.seed is not None else new_seed()
    limits = limits_from(args)
    print(f"{game.title} ({game.game_id}): you play seat {'AB'[seat]} against {printable(other.name)}")
    log_dir = None if args.no_log else Path(args.log_dir)
    record = trio.run(
        lambda: play_human(game, other, seat, seed=seed, limits=limits, log_dir=log_dir, read_line=read_stdin)
    )
    if record.log_path is not None:  # the whole table, now that it may be told (no log: nothing to tell it from)
        told = narration(record.log_path)
        if told:
            print("What happened, both seats' cards shown:")
            for line in told:
                print(f"  {printable(line)}")
    print(f"Seed {seed} (it dealt both seats' cards)")
    person = BotSpec(name=HUMAN, command=(HUMAN,), cwd=Path.cwd())  # (its fault's hints: the JSON protocol's)
    _print_result(record, game, (person, other) if seat == 0 else (other, person), person=seat)
    return GAME_ERROR_STATUS if record.game_error else 0


def _print_result(
    record: MatchRecord, game: Game, specs: tuple[BotSpec, BotSpec], *, person: int | None = None
) -> None:
    """The result, each fault with the bot's last stderr and hints; ``person``: the seat a person played (its relay
    ends only when the person's input ends: that "crash" is the person leaving)."""
    from .checks.hints import fault_hints, printable, stderr_tail
    from .games import score_text

    result = record.result
    names = [printable(name) for name in record.names]
    if record.game_error:
        print(
            f"Result: no result: {GAME_ERROR} (the game's own code failed, not a bot): {printable(record.game_error)}"
        )
        if record.log_path:
            print(f"Log: {record.log_path} (it holds the game's traceback; arena replay --verify reproduces it)")
        return
    from .games import broken_total

    broken = broken_total(game, result)
    if broken:
        print(f"arena: warning: {broken}", file=sys.stderr)
    if result.winner is None:
        verdict = "draw" if not result.forfeit else "no winner (both faulted)"
    else:
        verdict = f"{result.winner} ({names['AB'.index(result.winner)]}) wins"
    print(f"Result: {names[0]} {score_text(*result.points)} {names[1]}: {verdict}")
    for fault in record.faults:
        seat = "AB".index(fault.seat)
        if seat == person and fault.kind == "crash":
            print(f"  fault: {fault.seat} ({names[seat]}) left the match (the input ended): the seat forfeits")
            continue
        print(f"  fault: {fault.seat} ({names[seat]}) {fault.kind}: {printable(fault.reason)}")
        kept = record.log_path is not None  # else the stderr file is in a folder removed after the match
        for line in stderr_tail(record.stderr_logs[seat], label=None if kept else "not kept: --no-log"):
            print(f"    {line}")
        option = f"--protocol-{fault.seat.lower()}"
        for hint in fault_hints(fault, game, specs[seat].protocol, record.stats[seat].bytes_out, option):
            print(f"    hint: {hint}")
    if record.log_path:
        print(f"Log: {record.log_path}")


def _speaking(spec: BotSpec, protocol: str | None) -> BotSpec:
    return spec.speaking(protocol) if protocol else spec


def cmd_games(args: argparse.Namespace) -> int:
    """List the games (built-in and plugins), their parameters and where their rules are; with a game, its rules."""
    from .checks.hints import printable
    from .games import GAMES, get_game, origin_of

    if args.game:
        cls = get_game(args.game).__class__
        rules = _rules_of(cls)
        if rules is None:
            raise ConfigError(f"{cls.id} has no rules page ({cls.__module__} is not a file)")
        try:
            print(rules.read_text(encoding="utf-8"), end="")
        except OSError as exc:
            raise ConfigError(f"the rules of {cls.id} are missing from this installation ({exc})") from None
        return 0
    for cls in GAMES.values():
        origin = origin_of(cls.id)
        print(f"{cls.id}/{cls.version}  {cls.title}: {cls.summary}  [{origin}]")
        rules = _rules_of(cls)
        if rules is not None:
            print(f"    rules: {_shown_path(rules)}  (or: arena games {cls.id})")
        for param in cls.params_table:
            print(f"    {param.name} = {param.default!r}  {param.doc}")
    for problem in GAMES.problems():
        print(f"arena: warning: {printable(problem, limit=ERROR_LINE_CHARS)}", file=sys.stderr)
    return 0


def _rules_of(cls: type[Game]) -> Path | None:
    """A built-in game's rules are in docs/games/ (shipped as arena/rules); a plugin's beside its module."""
    from .bots.samples import rules_file
    from .games import BUILTIN, origin_of

    return rules_file(cls.id) if origin_of(cls.id) == BUILTIN else cls.rules_path()


def _shown_path(path: Path) -> str:
    """``path`` relative to the working folder when it is inside it (as in a clone), else absolute."""
    import contextlib

    with contextlib.suppress(ValueError):
        return str(path.relative_to(Path.cwd()))
    return str(path)


@dataclass(frozen=True)
class Command:
    """A subcommand as the top of the command line knows it, without importing it."""

    help: str
    """Its line in ``arena --help`` (the same as its parser's: a test compares them)."""
    modules: tuple[str, ...] = ()
    """Modules under ``arena`` whose ``register(sub)`` its parser needs, lowest layer first: the one that adds it,
    and any that add options to it (replay adds ``arena results --html``). None: it is defined here."""


COMMANDS: dict[str, Command] = {
    "play": Command("play one match between two bots and narrate it"),
    "games": Command("list the games and their parameters; `arena games GAME` prints its rules"),
    "new": Command("start a bot: copy a starter for GAME in LANGUAGE into a new folder", ("bots.starters",)),
    "tournament": Command(
        "run or resume a tournament (round-robin or gauntlet) and print its leaderboard",
        ("competition.cli", "replay.cli"),  # replay.cli gives it --watch
    ),
    "results": Command("show a tournament's leaderboard from its results database", ("competition.cli", "replay.cli")),
    "compare": Command(
        "is NEW better than BASE? play both on the same deals until a sequential test (SPRT) decides",
        ("competition.compare_cli",),
    ),
    "replay": Command("watch, verify or re-run a logged match", ("replay.cli",)),
    "check": Command("check that a bot follows the protocol, before submitting it", ("checks.bot",)),
    "sandbox": Command("run a canary bot and report which isolation holds here", ("checks.sandbox",)),
    "check-game": Command("check that a game is deterministic, ends, hides what it should, and more", ("checks.game",)),
    "new-game": Command("write a new game's package (rules, messages, rules page, bots, tests)", ("checks.new_game",)),
    "serve": Command(
        "run a competition server: uploads, a rolling ladder, live standings and replays", ("server.cli",)
    ),
    "submit": Command("upload a bot to a competition server and print its check", ("server.cli",)),
}
"""Every subcommand, in the order ``arena --help`` lists them. A command added in a module of its own gets a row
here (and its module a place in :data:`EXTRA_COMMAND_MODULES`); ``tests/test_cli_imports.py`` fails until it has."""


def build_parser(*, command: str | None = None, core_only: bool = False) -> argparse.ArgumentParser:
    """The argument parser: with every subcommand by default (the docs and tests read them all).

    ``command``: only what ``arena COMMAND`` needs (the table's modules for it); an unknown or no command gives
    the top of the command line, each subcommand named with its help and nothing imported.
    ``core_only``: only the subcommands defined in this module (``play`` and ``games``).
    """
    parser = argparse.ArgumentParser(prog="arena", description="A sandboxed referee for two-player card-game bots.")
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command is not None and command not in COMMANDS:
        for name, known in COMMANDS.items():
            sub.add_parser(name, help=known.help)
        return parser
    if command in (None, "play"):
        _add_play(sub)
    if command in (None, "games"):
        _add_games(sub)
    if core_only:
        return parser
    wanted = EXTRA_COMMAND_MODULES if command is None else COMMANDS[command].modules
    for register in _extra_commands([name for name in EXTRA_COMMAND_MODULES if name in wanted]):
        register(sub)
    return parser


def _add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .supervisor.options import game_module_args, limits_args

    play = sub.add_parser("play", help=COMMANDS["play"].help)
    play.add_argument(
        "game", nargs="?", metavar="GAME", help="game id, such as rps-poker (default: what the bots' bot.toml says)"
    )
    play.add_argument(
        "bot_a",
        metavar="BOT_A",
        help="a bot folder, an executable, a command line in quotes, or human (you play this seat)",
    )
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
    limits_args(play)
    game_module_args(play)
    play.set_defaults(handler=cmd_play)


def _add_games(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .supervisor.options import game_module_args

    games = sub.add_parser("games", help=COMMANDS["games"].help)
    games.add_argument("game", nargs="?", metavar="GAME", help="print the rules of this game (such as rps-poker)")
    game_module_args(games)
    games.set_defaults(handler=cmd_games)


CORE_COMMANDS = tuple(name for name, known in COMMANDS.items() if not known.modules)
"""Commands that need none of the other modules: ``arena play`` then starts without importing the tournament
machinery, Dask or the server's web stack (a second or more of start-up on a slow machine)."""


def _extra_commands(
    modules: Sequence[str],
) -> list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]]:
    """The ``register(sub)`` of each of ``modules`` (under ``arena``)."""
    import importlib

    return [importlib.import_module(f"arena.{name}").register for name in modules]


EXTRA_COMMAND_MODULES: list[str] = [
    "bots.starters",
    "competition.cli",
    "competition.compare_cli",
    "replay.cli",
    "checks.bot",
    "checks.sandbox",
    "checks.game",
    "checks.new_game",
    "server.cli",
]
"""Modules under ``arena`` that add subcommands (tournament, results, check, replay...), lowest layer first:
a module may add options to the commands of the layers below it (replay adds ``arena results --html``)."""


ERROR_LINE_CHARS = 2000
"""Characters shown of each line of an error message."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` command."""
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(command=words[0] if words else "").parse_args(words)
    handler: Handler = args.handler
    try:
        if getattr(args, "game_module", None):  # (only then: the games' registry is not free to import)
            from .supervisor.options import load_game_modules

            load_game_modules(args)
        return handler(args)
    except BaseException as exc:
        leaf = _user_facing(exc)
        if isinstance(leaf, BrokenPipeError):  # `arena games | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        if isinstance(leaf, KeyboardInterrupt):
            print("arena: interrupted; every bot process was stopped", file=sys.stderr)
            return 130
        from .games import ParamError  # only now: importing the games is not free

        if isinstance(leaf, ArenaError | ParamError):
            # A message may name a bot's folder or quote its output: its control characters are shown, not obeyed.
            from .checks.hints import printable

            message = "\n".join(printable(line, limit=ERROR_LINE_CHARS) for line in str(leaf).splitlines())
            print(f"arena: error: {message}", file=sys.stderr)
            return 2
        raise


def _user_facing(exc: BaseException) -> BaseException:
    """The Ctrl-C or user error inside ``exc``, seeing through trio's exception groups."""
    from .games import ParamError

    if isinstance(exc, BaseExceptionGroup):
        for kind in (KeyboardInterrupt, ArenaError, ParamError, BrokenPipeError):
            found = exc.subgroup(kind)
            if found is not None:
                return _user_facing(found.exceptions[0])
    return exc


if __name__ == "__main__":
    sys.exit(main())
