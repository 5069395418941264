"""Where games come from: Arena's five and everyone else's, found one way.

**A game is a plugin.** A Python distribution declares each of its games as one
entry point of the group ``arena.games``: the entry point's name is the game's
id, and its value names the :class:`~arena.games.Game` subclass (not a module,
not a factory)::

    # pyproject.toml of a game package
    [project.entry-points."arena.games"]
    kuhn-poker = "kuhn_poker.game:KuhnPoker"

Arena declares its own five games the same way in its ``pyproject.toml``, so
a built-in game is found, loaded and checked by the same code as any other;
it is *built-in* only in that it comes from the ``arena`` distribution. (A
checkout run without installing it, or an install made before a built-in
game was added, has no such metadata: then :data:`BUILTIN_ENTRY_POINTS`, the
same declarations, which a test keeps equal to ``pyproject.toml``, stand in.)

**A single file** works too, for a quick start: ``--game-module
path/to/game.py`` on any command that takes a game (``game_module =`` in a
tournament, compare or server config) loads the file as a module and
registers every concrete :class:`~arena.games.Game` subclass defined in it.
The file's folder is appended to ``sys.path`` so that it may import its
siblings (its messages, its view).

**Lazily.** Nothing here runs when ``arena.games`` is imported: the entry
points are read when a game is first asked for or listed, and a game's module
is imported only when that game is asked for (``arena play gops`` imports no
plugin), or when every game is listed.

**Trusted, but not blindly.** A plugin is the organiser's own Python and runs
in the supervisor (never a bot's code: bots stay in their jail). A plugin that
cannot be used (its import fails, its entry point raises, it names something
that is not a ``Game`` subclass, its id differs from its entry point's name,
or it takes the id of a built-in game or of another plugin's game) is left
out with a one-line problem naming the plugin: ``arena games`` prints it,
asking for that game raises :class:`~arena._errors.GamePluginError` with it,
and every other game, the built-in ones above all, stays available.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._errors import GamePluginError
from ._base import Game, ParamError

GROUP = "arena.games"
"""The entry-point group a distribution declares its games in."""

ARENA_DISTRIBUTION = "arena"

BUILTIN_ENTRY_POINTS: tuple[tuple[str, str], ...] = (
    ("rps-poker", "arena.games.rps_poker:RpsPoker"),
    ("gops", "arena.games.gops:Gops"),
    ("card-jitsu", "arena.games.card_jitsu:CardJitsu"),
    ("six-card-poker", "arena.games.six_card_poker:SixCardPoker"),
    ("badugi", "arena.games.badugi:Badugi"),
)
"""Arena's own entry points, as ``pyproject.toml`` declares them (used when Arena's metadata lacks them)."""

BUILTIN_GAMES: tuple[str, ...] = tuple(name for name, _ in BUILTIN_ENTRY_POINTS)
"""The ids of Arena's own games, known without loading anything."""


@dataclass(frozen=True)
class Origin:
    """Where a game comes from: Arena itself, an installed distribution, or a file.

    It is also what another process needs to have the same game: a worker
    process (``--jobs``, a Dask worker) is handed the game's id with its
    origin and calls :func:`provide`, which loads a file game's module, or
    says by name which package the worker lacks.
    """

    kind: Literal["built-in", "package", "file"]
    name: str = ARENA_DISTRIBUTION
    """The distribution's name, or the file's absolute path."""
    version: str = ""
    """The distribution's version ("" for a file)."""

    def __str__(self) -> str:
        if self.kind == "built-in":
            return "built-in"
        if self.kind == "file":
            return f"file {self.name}"
        return f"package {self.name} {self.version}".rstrip()


BUILTIN = Origin("built-in")


@dataclass
class _Entry:
    """A game declared but perhaps not loaded yet."""

    name: str
    target: str
    """``module:Class``, as declared."""
    origin: Origin
    loaded: type[Game] | None = None
    problem: str = ""


class Registry(Mapping[str, type[Game]]):
    """Every game of this arena by id (``GAMES``): a mapping that finds its games on first use."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] | None = None
        self._problems: list[str] = []
        """One line per plugin left out, in the order found."""
        self._files: dict[Path, list[str]] = {}
        self._lock = threading.RLock()  # a server's threads may ask for games at once

    # Finding ----------------------------------------------------------------
    def _scan(self) -> dict[str, _Entry]:
        with self._lock:
            if self._entries is None:
                self._entries = {}
                for name, target, origin in _declared():
                    self._declare(_Entry(name, target, origin))
            return self._entries

    def _declare(self, entry: _Entry) -> None:
        """Add ``entry`` unless its id is taken (a built-in game always keeps its id)."""
        assert self._entries is not None
        held = self._entries.get(entry.name)
        if held is None:
            self._entries[entry.name] = entry
            return
        whose = "a built-in game's id" if held.origin.kind == "built-in" else f"also declared by {held.origin}"
        self._problems.append(f"{_who(entry)}: the game id {entry.name!r} is {whose}; left out (rename the game)")

    def _load(self, entry: _Entry) -> type[Game] | None:
        with self._lock:
            if entry.loaded is None and not entry.problem:
                try:
                    entry.loaded = _game_class(entry)
                    clash = _tag_clash(entry.loaded, self._loaded())
                    if clash:
                        entry.loaded = None
                        raise _Unusable(clash)
                except _Unusable as exc:
                    entry.problem = f"{_who(entry)}: {exc}"
                    self._problems.append(entry.problem)
            return entry.loaded

    def _loaded(self) -> list[type[Game]]:
        return [entry.loaded for entry in (self._entries or {}).values() if entry.loaded is not None]

    # The mapping ------------------------------------------------------------
    def __getitem__(self, game_id: str) -> type[Game]:
        entry = self._scan().get(game_id)
        cls = self._load(entry) if entry is not None else None
        if cls is None:
            raise KeyError(game_id)
        return cls

    def __iter__(self) -> Iterator[str]:
        for name, entry in list(self._scan().items()):
            if self._load(entry) is not None:
                yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, game_id: object) -> bool:
        return isinstance(game_id, str) and self.get(game_id) is not None

    # What the rest of Arena asks --------------------------------------------
    def lookup(self, game_id: str) -> type[Game]:
        """The class of ``game_id`` (an id without version): :class:`ParamError` when unknown, and
        :class:`GamePluginError` saying why when its plugin cannot be loaded."""
        entry = self._scan().get(game_id)
        if entry is None:
            raise ParamError(f"unknown game {game_id!r}; known: {', '.join(sorted(self))}{self._hint()}")
        cls = self._load(entry)
        if cls is None:
            raise GamePluginError(entry.problem)
        return cls

    def origin(self, game_id: str) -> Origin:
        """Where ``game_id`` (with or without its version) comes from."""
        entry = self._scan().get(game_id.partition("/")[0])
        if entry is None:
            self.lookup(game_id.partition("/")[0])  # raises, saying why
        assert entry is not None
        return entry.origin

    def problems(self) -> list[str]:
        """One line per plugin left out so far (listing every game first finds them all)."""
        return list(self._problems)

    def load_file(self, path: str | Path) -> list[str]:
        """Register the games defined in the Python file ``path``; their ids (:class:`GamePluginError` when none)."""
        where = Path(path).expanduser().resolve()
        with self._lock:
            if where in self._files:
                return list(self._files[where])
            if not where.is_file():
                raise GamePluginError(f"game module {str(path)!r} is not a file (give the path of a .py file)")
            entries = self._scan()
            origin = Origin("file", str(where))
            found = []
            for cls in _classes_in(_import_file(where)):
                held = entries.get(cls.id)
                if held is not None and held.loaded is not cls and not _same_file(held, where):
                    whose = "a built-in game's id" if held.origin.kind == "built-in" else f"taken by {held.origin}"
                    raise GamePluginError(f"game module {where}: the game id {cls.id!r} is {whose}; rename the game")
                clash = _tag_clash(cls, self._loaded())
                if clash and held is None:
                    raise GamePluginError(f"game module {where}: {cls.id}: {clash}")
                if held is None:
                    entries[cls.id] = _Entry(cls.id, f"{cls.__module__}:{cls.__qualname__}", origin, loaded=cls)
                found.append(cls.id)
            if not found:
                raise GamePluginError(f"game module {where} defines no Game subclass (class MyGame(arena.games.Game))")
            self._files[where] = found
            return list(found)

    def _hint(self) -> str:
        return f" ({len(self._problems)} plugin(s) left out: see `arena games`)" if self._problems else ""


class _Unusable(Exception):
    """Why a declared game cannot be used, in one line."""


def _who(entry: _Entry) -> str:
    return f"game plugin {entry.name!r} ({entry.target}, from {entry.origin})"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _declared() -> list[tuple[str, str, Origin]]:
    """Every game declared in installed metadata: Arena's first, then other distributions' by name."""
    from importlib import metadata  # here, not at the top: reading metadata is for a command that needs a game

    ours: list[tuple[str, str, Origin]] = []
    theirs: list[tuple[str, str, Origin]] = []
    for point in metadata.entry_points(group=GROUP):
        dist = point.dist
        dist_name = dist.metadata["Name"] if dist is not None else "?"
        if dist is not None and _normal(dist_name) == ARENA_DISTRIBUTION:
            ours.append((point.name, point.value, BUILTIN))
        else:
            version = dist.version if dist is not None else ""
            theirs.append((point.name, point.value, Origin("package", dist_name, version)))
    if not ours:  # a checkout run from source, or installed before the games were entry points
        ours = [(name, target, BUILTIN) for name, target in BUILTIN_ENTRY_POINTS]
    order = [name for name, _ in BUILTIN_ENTRY_POINTS]  # the order Arena has always listed its games in
    ours.sort(key=lambda t: order.index(t[0]) if t[0] in order else len(order))
    theirs.sort(key=lambda t: (_normal(t[2].name), t[0]))
    return ours + theirs


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _game_class(entry: _Entry) -> type[Game]:
    """The class ``entry`` names, checked; :class:`_Unusable` saying why not."""
    module_name, _, attr = entry.target.partition(":")
    try:
        found: object = importlib.import_module(module_name.strip())
        for part in attr.strip().split(".") if attr.strip() else []:
            found = getattr(found, part)
    except Exception as exc:  # a plugin's import may raise anything: it is reported, not raised
        raise _Unusable(f"cannot be loaded ({_one_line(exc)})") from None
    if not (inspect.isclass(found) and issubclass(found, Game)):
        raise _Unusable(f"names {found!r}, which is not a subclass of arena.games.Game")
    if inspect.isabstract(found):
        raise _Unusable(f"names {found.__name__}, which leaves abstract methods unwritten")
    if getattr(found, "id", None) != entry.name:
        raise _Unusable(f"names a game whose id is {getattr(found, 'id', None)!r}, not {entry.name!r}")
    return found


def _tag_clash(cls: type[Game], others: list[type[Game]]) -> str:
    """Why ``cls``'s messages cannot share the wire with the other games' (a ``type`` tag taken), or "".

    The others are Arena's own messages (``protocol/``) and those of the ``others`` games.
    """
    from protocol.codec import message_types  # imports every built-in game's messages (protocol/ alone)

    mine = set(cls.messages)
    theirs = [m for m in message_types() if m.__module__.split(".")[0] == "protocol"]
    theirs += [m for other in others if other is not cls for m in other.messages]
    taken = {str(other.__struct_config__.tag): other for other in theirs if other not in mine}
    for message in cls.messages:
        other = taken.get(str(message.__struct_config__.tag))
        if other is not None:
            return (
                f"its message type {message.__struct_config__.tag!r} is also {other.__module__}.{other.__name__}'s"
                " (give the game's tags a prefix of its own)"
            )
    return ""


def _import_file(where: Path) -> object:
    """The module in the file ``where``, imported under a name of its own."""
    digest = hashlib.sha256(str(where).encode()).hexdigest()[:10]
    name = f"arena_game_file_{''.join(c if c.isalnum() else '_' for c in where.stem)}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, where)
    if spec is None or spec.loader is None:
        raise GamePluginError(f"game module {where} cannot be imported (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    if str(where.parent) not in sys.path:
        sys.path.append(str(where.parent))  # after everything else: a sibling never shadows an installed module
    sys.modules[name] = module  # before running it: dataclasses and msgspec look their module up while it runs
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise GamePluginError(f"game module {where} failed to import ({_one_line(exc)})") from None
    return module


def _classes_in(module: object) -> list[type[Game]]:
    name = getattr(module, "__name__", "")
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Game) and cls.__module__ == name and not inspect.isabstract(cls)
    ]


def _same_file(entry: _Entry, where: Path) -> bool:
    """Whether ``entry``'s game was defined by the same text as the file ``where`` (that file named again, an
    installed package's own module, or a copy of the file): the same game, not a clash."""
    if entry.loaded is None:
        return False
    source = getattr(sys.modules.get(entry.loaded.__module__), "__file__", None)
    try:
        return source is not None and Path(source).read_bytes() == where.read_bytes()
    except OSError:
        return False


GAMES = Registry()
"""Every game by id, built-in and plugins alike; reading it loads the games (listing it loads them all)."""


def provide(game_id: str, origin: Origin | None) -> None:
    """Make ``game_id`` available in this process as it is where ``origin`` says, or say by name what is missing.

    A worker calls this with what its orders carry before it builds the game.
    """
    if origin is not None and origin.kind == "file":
        GAMES.load_file(origin.name)
    name = game_id.partition("/")[0]
    try:
        GAMES.lookup(name)
    except ParamError:
        if origin is None or origin.kind != "package":
            raise
        raise GamePluginError(
            f"the game {name!r} comes from the package {origin.name} {origin.version}, which is not installed "
            f"where this process runs: install it there (pip install {origin.name})"
        ) from None
