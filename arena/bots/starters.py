"""Starter bots, and ``arena new GAME LANGUAGE [FOLDER]`` that copies one, ready to edit.

``starters/LANGUAGE/`` (``arena/starters`` in a wheel) holds one starter per
language: a bot that is valid for every game, and its ``bot.toml``. Each
game's part of it sits between a ``game: GAME`` comment line and an
``end game`` one. ``arena new`` keeps only the chosen game's part (the marker
lines dropped), so the copy is a small bot for one game, and adds
``game = "GAME"`` to its ``bot.toml``, so ``arena check FOLDER`` needs no
``--game``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

from .._errors import ConfigError
from ..games import BUILTIN_GAMES, GAMES
from .plugin_starters import PLUGIN_LANGUAGES, RequestKind, for_plugin, request_kinds
from .samples import starters
from .spec import MANIFEST


@dataclass(frozen=True)
class Language:
    """A language there is a starter for."""

    name: str
    """Its folder under ``starters/`` and the name ``arena new`` takes."""
    title: str
    source: str
    """The file an author edits."""
    tools: tuple[str, ...]
    """The commands it needs on the machine (to build or to run)."""
    aliases: tuple[str, ...] = ()


LANGUAGES = {
    lang.name: lang
    for lang in (
        Language("python", "Python", "bot.py", ("python3",), ("py", "python3")),
        Language("javascript", "JavaScript (Node.js)", "bot.js", ("node",), ("js", "node", "nodejs")),
        Language("c", "C", "bot.c", ("gcc",)),
        Language("cpp", "C++", "bot.cpp", ("g++",), ("c++", "cxx")),
        Language("java", "Java", "Bot.java", ("javac", "java")),
        Language("ruby", "Ruby", "bot.rb", ("ruby",), ("rb",)),
        Language("bash", "bash", "bot.sh", ("bash",), ("sh", "shell")),
        Language("go", "Go", "bot.go", ("go",), ("golang",)),
        Language("rust", "Rust", "bot.rs", ("rustc",), ("rs",)),
    )
}
"""Every starter's language, by name, in the order the docs list them."""

_BEGIN = re.compile(r"^\s*(?:#|//)\s*game: ([a-z0-9-]+)\s*$")
_END = re.compile(r"^\s*(?:#|//)\s*end game\s*$")


def language_named(text: str) -> Language:
    """The language called ``text`` (``python``, ``js``, ``c++``...)."""
    wanted = text.strip().lower()
    for lang in LANGUAGES.values():
        if wanted == lang.name or wanted in lang.aliases:
            return lang
    raise ConfigError(f"no starter in {text!r}; there are starters in: {', '.join(LANGUAGES)}")


def for_game(text: str, game_id: str) -> str:
    """A starter's source with only ``game_id``'s part: other games' parts and the marker lines left out."""
    kept = []
    inside: str | None = None
    for line in text.splitlines(keepends=True):
        if begin := _BEGIN.match(line):
            inside = begin.group(1)
        elif _END.match(line):
            inside = None
        elif inside is None or inside == game_id:
            kept.append(line)
    return "".join(kept)


def games_in(text: str) -> set[str]:
    """The games a starter's source has a part for."""
    return {begin.group(1) for line in text.splitlines() if (begin := _BEGIN.match(line))}


def new_bot(game_id: str, language: str, folder: Path) -> list[Path]:
    """Copy ``language``'s starter for ``game_id`` into ``folder`` (new, or empty); the files written."""
    lang = language_named(language)
    plugin = game_id not in BUILTIN_GAMES
    if plugin and game_id not in GAMES:
        raise ConfigError(
            f"arena new has starters for {', '.join(GAMES)}, not {game_id!r} (a game of a file: --game-module FILE)"
        )
    if plugin and lang.name not in PLUGIN_LANGUAGES:
        raise ConfigError(
            f"a starter for the plugin game {game_id} is made in {', '.join(PLUGIN_LANGUAGES)}, not {lang.title}"
        )
    source = starters() / lang.name
    if not source.is_dir():
        raise ConfigError(f"the {lang.title} starter is missing from this installation ({source})")
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ConfigError(f"{folder} exists and is not a folder: name a new folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise ConfigError(f"{folder} exists and is not empty: name a new folder (arena new overwrites nothing)")
    kinds: list[RequestKind] = []
    if plugin:
        from ..games import get_game, smallest

        game = get_game(game_id)  # (played to find each request's answer)
        kinds = request_kinds(game, [game, *smallest(game)])
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file in sorted(source.iterdir()):
        if not file.is_file():
            continue
        text = file.read_text(encoding="utf-8")
        if file.name == MANIFEST:
            text = f'game = "{game_id}"  # arena check, play and submit use it when no game is given\n{text}'
        elif plugin:
            text = for_plugin(text, lang.name, kinds, is_begin=_BEGIN.match, is_end=_END.match)
        else:
            text = for_game(text, game_id)
        target = folder / file.name
        target.write_text(text, encoding="utf-8")
        target.chmod(stat.S_IMODE(file.stat().st_mode) | stat.S_IRUSR | stat.S_IWUSR)
        written.append(target)
    return written


def cmd_new(args: argparse.Namespace) -> int:
    """Copy a starter bot into a new folder and say what to do next."""
    lang = language_named(args.language)
    folder = Path(args.folder or f"{args.game}-{lang.name}")
    written = new_bot(args.game, lang.name, folder)
    title = GAMES.lookup(args.game).title
    print(f"Made {folder}/ from the {lang.title} starter for {title}: {', '.join(p.name for p in written)}")
    print(f"Edit {folder / lang.source}: it answers each request with a legal action; make it play better.")
    print("Then check it (it builds, starts, answers, plays and exits as it must):")
    print(f"  arena check {shlex.quote(str(folder))}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena new`` to the command line."""
    parser = sub.add_parser(
        "new",
        help="start a bot: copy a starter for GAME in LANGUAGE into a new folder",
        description="Copy the LANGUAGE starter bot for GAME, with its bot.toml, into FOLDER, ready to edit.",
    )
    parser.add_argument(
        "game",
        metavar="GAME",
        help=f"the game: {', '.join(BUILTIN_GAMES)}, or an installed plugin's (in {', '.join(PLUGIN_LANGUAGES)})",
    )
    parser.add_argument("language", metavar="LANGUAGE", help=f"the language: {', '.join(LANGUAGES)}")
    parser.add_argument("folder", metavar="FOLDER", nargs="?", help="a new or empty folder (default: GAME-LANGUAGE)")
    # (arena.supervisor.options.game_module_args adds the same option to the other commands; this layer is below
    # the supervisor's and may not import it)
    parser.add_argument(
        "--game-module",
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file defining a game (a Game subclass) to use beside the installed games; may be repeated",
    )
    parser.set_defaults(handler=cmd_new)


__all__ = ["LANGUAGES", "Language", "for_game", "games_in", "language_named", "new_bot", "register"]
