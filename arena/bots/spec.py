"""Bots as the user names them: a command line, an executable, or a folder.

A bot folder holds a manifest, ``bot.toml``::

    name = "simple"                  # optional; the folder's name by default
    run = "python3 simple.py"        # the command, run in the folder
    build = "gcc -O2 -o bot bot.c"   # optional, run once before play
    reuse = true                     # optional: plays many matches per process (or "persistent")
    game = "gops"                    # optional: the game it plays, when no command line names one

``run`` and ``build`` are split like a shell would (``shlex``) but no shell
runs them; write ``sh -c '...'`` for pipes or ``&&``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shlex
import shutil
import stat
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..games import GAMES
from .content import hash_folder
from .js import HOST_WORD

MANIFEST = "bot.toml"
INTERPRETERS = {".py": "python3", ".js": "node", ".rb": "ruby", ".sh": "bash"}
"""What runs a source file given alone and not executable, by its extension (as a server runs one uploaded alone)."""
MAX_NAME = 64
"""The longest bot name a manifest may give (names are shown in terminals, tables and pages)."""
HOST_JS_NAME = "host.js"
"""The file name of Arena's node host for challenge-format bots (``arena/bots/js/host.js``)."""
_MANIFEST_KEYS = {"name", "run", "build", "reuse", "protocol", "profile", "build_timeout_s", "game"}


@dataclass(frozen=True)
class BotSpec:
    """Everything needed to start one bot."""

    name: str
    command: tuple[str, ...]
    cwd: Path
    build: tuple[str, ...] = ()
    reuse: bool = False
    protocol: str = "json"
    """``json`` (Arena's protocol) or a game's text protocol, such as ``gops-text``."""
    profile: str = ""
    """Language profile for sandbox limits (``python``, ``node``, ``java``...); guessed when empty."""
    build_timeout_s: float = 120.0
    source: str = ""
    """What the user wrote to name this bot."""
    digest: str = field(default="", compare=False)
    """SHA-256 of the bot's folder or executable, recorded in logs."""
    persistent: bool = False
    """``reuse = "persistent"``: one process plays all the bot's matches of a competition, in schedule order,
    and keeps its state from one to the next (``reuse`` is then true as well)."""
    game: str = ""
    """The game its manifest says it plays (``gops``), or ``""`` when it does not say."""
    owner: str = ""
    """Whose bot it is where builds must not be shared between owners (a server's participant): part of its
    build key, so two owners' byte-identical folders are built apart. ``""``: the organiser's own bots."""
    from_folder: bool = False
    """Read from a bot folder's ``bot.toml`` (:func:`load_folder`): its jail reads that folder, and only it, and
    its command runs there, whatever the folder holds by then (a build may delete its ``bot.toml``). Else a
    command-line bot: the files its command names are made readable, through their links."""

    @property
    def process_mode(self) -> str:
        """``fresh`` (a new process per match), ``reused`` (resets at ``match_start``) or ``persistent``."""
        return "persistent" if self.persistent else "reused" if self.reuse else "fresh"

    def with_name(self, name: str) -> BotSpec:
        """The same bot under another name (to tell two copies apart)."""
        return BotSpec(**{**self.__dict__, "name": name})

    def speaking(self, protocol: str) -> BotSpec:
        """The same bot speaking ``protocol``; a text protocol has no match framing, so no reuse."""
        framed = protocol == "json"
        return BotSpec(
            **{
                **self.__dict__,
                "protocol": protocol,
                "reuse": self.reuse and framed,
                "persistent": self.persistent and framed,
            }
        )


def resolve(text: str, *, base: Path | None = None) -> BotSpec:
    """The bot named by ``text``: a folder with ``bot.toml``, an executable, or a command line."""
    base = base or Path.cwd()
    path = _existing(base / text) if text.strip() else None
    if path is not None and path.is_dir():
        return load_folder(path, source=text)
    if path is not None and path.is_file():
        command: tuple[str, ...] = (str(path),)
        if not os.access(path, os.X_OK):
            interpreter = INTERPRETERS.get(path.suffix.lower())
            if interpreter is None:
                raise ConfigError(
                    f"bot {text!r} is a file but not executable: chmod +x it, give a command line, or make it a"
                    f" folder with {MANIFEST} that builds it (`arena new GAME LANGUAGE` makes one)"
                )
            command = (interpreter, str(path))  # as a server runs it when it is uploaded alone
        return BotSpec(
            name=path.stem,
            command=command,
            cwd=path.parent,
            source=text,
            digest=hash_path(path),
            profile=guess_profile(command),
        )
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise ConfigError(f"bot {text!r}: cannot split the command line ({exc})") from None
    if not argv:
        raise ConfigError("an empty bot command was given")
    if shutil.which(argv[0], path=os.environ.get("PATH")) is None and _existing(base / argv[0]) is None:
        raise ConfigError(f"bot {text!r}: {argv[0]!r} is not a folder, a file or a command on PATH")
    files = [file for a in argv[1:] if (file := _existing(base / a)) is not None and file.is_file()]
    name = _hosted_name(argv) or (Path(files[0]).stem if files else Path(argv[0]).name)
    digest = _hash_files(files) if files else hashlib.sha256(" ".join(argv).encode()).hexdigest()
    return BotSpec(name=name, command=argv, cwd=base, source=text, digest=digest, profile=guess_profile(argv))


def _hosted_name(argv: tuple[str, ...]) -> str:
    """The name of a bot the JavaScript host runs (``node host.js BOT_FILE [BOT_NAME]``), else ``""``.

    It is named after the bot it hosts, not after the host: its ``BOT_NAME``
    when one is given, else its file's name. ``$ARENA_JS_HOST`` names the host too.
    """
    if guess_profile(argv) != "node":
        return ""
    for index, arg in enumerate(argv[1:-1], start=1):
        if Path(arg).name == HOST_JS_NAME or arg == HOST_WORD:
            hosted = argv[index + 1 :]
            return hosted[1] if len(hosted) > 1 and hosted[1] else Path(hosted[0]).stem
    return ""


def _existing(path: Path) -> Path | None:
    """``path`` resolved, or ``None`` when nothing is there (or it cannot be a path at all)."""
    try:
        return path.resolve() if path.exists() else None
    except (OSError, ValueError):  # a name too long, a NUL byte: an argument, not a file
        return None


def load_folder(folder: Path, *, source: str = "") -> BotSpec:
    """The bot described by ``folder/bot.toml``."""
    manifest = folder / MANIFEST
    if not os.path.lexists(manifest):
        raise ConfigError(f'bot folder {folder} has no {MANIFEST} (it needs at least: run = "...")')
    try:
        data: dict[str, Any] = tomllib.loads(_read_manifest(manifest).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{manifest}: {exc}") from None
    unknown = sorted(set(data) - _MANIFEST_KEYS)
    if unknown:
        raise ConfigError(f"{manifest}: unknown key {unknown[0]!r}; valid keys: {', '.join(sorted(_MANIFEST_KEYS))}")
    run = data.get("run")
    if not isinstance(run, str) or not run.strip():
        raise ConfigError(
            f"{manifest}: 'run' must be the command that starts the bot, such as run = \"python3 bot.py\""
        )
    build = data.get("build", "")
    if not isinstance(build, str):
        raise ConfigError(f"{manifest}: 'build' must be a string command")
    for key, kind in (("name", str), ("protocol", str), ("profile", str), ("game", str)):
        if key in data and not isinstance(data[key], kind):
            raise ConfigError(f"{manifest}: {key!r} must be a {kind.__name__}")
    name = data.get("name", folder.name)
    if not name.strip() or not name.isprintable() or len(name) > MAX_NAME:
        raise ConfigError(f"{manifest}: 'name' must be printable text of 1 to {MAX_NAME} characters, not {name!r}")
    reuse = data.get("reuse", False)
    if not (isinstance(reuse, bool) or reuse == "persistent"):
        raise ConfigError(
            f"{manifest}: 'reuse' must be false (a fresh process per match), true (a process plays many matches"
            ' and resets at match_start) or "persistent" (one process plays all its matches and keeps its state)'
        )
    game = data.get("game", "")
    if game and game not in GAMES:
        raise ConfigError(f"{manifest}: game {game!r} is not one of {', '.join(GAMES)}")
    timeout = data.get("build_timeout_s", 120.0)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(f"{manifest}: 'build_timeout_s' must be a positive number of seconds")
    if data.get("reuse") and data.get("protocol", "json") != "json":
        raise ConfigError(f"{manifest}: a text-protocol bot cannot be reused (it cannot tell matches apart)")
    command = tuple(shlex.split(run))
    return BotSpec(
        name=name,
        command=command,
        cwd=folder,
        build=tuple(shlex.split(build)),
        reuse=bool(reuse),
        persistent=reuse == "persistent",
        protocol=data.get("protocol", "json"),
        profile=data.get("profile", "") or guess_profile(command),
        build_timeout_s=float(timeout),
        game=game,
        source=source or str(folder),
        digest=hash_path(folder),
        from_folder=True,
    )


def game_of(given: str | None, specs: Sequence[BotSpec]) -> str | None:
    """The game to play: ``given`` (from the command line), else the one the bots' manifests name.

    ``None`` when neither names one. A manifest that names another game than
    ``given``, or two manifests that name different games, is an error saying so.
    """
    named = [spec for spec in specs if spec.game]
    if given is not None:
        wanted = given.partition("/")[0]
        for spec in named:
            if spec.game != wanted:
                raise ConfigError(
                    f'bot {spec.name!r} is a {spec.game} bot (its {MANIFEST} says game = "{spec.game}"),'
                    f" but the game here is {wanted}"
                )
        return given
    games = sorted({spec.game for spec in named})
    if len(games) > 1:
        said = " and ".join(f"{spec.name!r} plays {spec.game}" for spec in named)
        raise ConfigError(f"the bots' {MANIFEST} files name different games ({said}): they cannot play each other")
    return games[0] if games else None


MANIFEST_BYTES = 64 << 10
"""The largest ``bot.toml`` read."""


def _read_manifest(manifest: Path) -> bytes:
    """``bot.toml``'s bytes, read as a file of the bot's own: a link, a FIFO, a device or a huge file is refused."""
    try:
        fd = os.open(manifest, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        why = "a link: it must be a file of the folder's own" if exc.errno == errno.ELOOP else exc.strerror
        raise ConfigError(f"{manifest}: cannot be read ({why})") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{manifest}: is not a regular file")
        data = file.read(MANIFEST_BYTES + 1)
    if len(data) > MANIFEST_BYTES:
        raise ConfigError(f"{manifest}: is over {MANIFEST_BYTES >> 10} KiB")
    return data


def guess_profile(argv: tuple[str, ...]) -> str:
    """The language profile a command suggests: ``node``, ``java``, ``python``... or ``native``."""
    head = Path(argv[0]).name if argv else ""
    for prefix, profile in (("python", "python"), ("node", "node"), ("java", "java"), ("ruby", "ruby")):
        if head.startswith(prefix):
            return profile
    return "native"


def hash_path(path: Path) -> str:
    """SHA-256 over a file, or over a folder's content: every file (bytes and executable bit), link and empty folder.

    Exactly what a build copies (see :mod:`arena.bots.content`): links are
    hashed by their target, never followed, so a link shipped in a bot's
    folder cannot make the arena read outside it, and FIFOs or devices cannot
    make it block.
    """
    if path.is_file():
        return _hash_files([path])
    try:
        return hash_folder(path)
    except OSError as exc:
        raise ConfigError(f"bot folder {path} cannot be read: {exc}") from None


def _hash_files(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()
