"""Tournament configuration: a TOML file, or the short command line form.

A config file looks like this (every key but ``game`` and ``bots`` is optional)::

    name = "RPS Poker round-robin"  # the competition's name: rerunning it resumes or changes it
    game = "rps-poker"            # a game id, as `arena games` lists them
    game_module = "my_game.py"    # optional: a Python file defining the game (a plugin not installed as a package)
    format = "round-robin"        # or "gauntlet"
    challenger = "my-bot"         # gauntlet only: the bot that meets the field (default: the first bot),
                                  # or mark entries { bot = "students/*", challenger = true }: each meets the rest
    cycles = 4                    # how many times the whole schedule is played
    seed = 2024                   # the tournament seed; every match seed derives from it
    deals = "deals.txt"           # optional: fixed deal seeds, one a line; cycle c deals number c to every pairing
    duplicate_deals = true        # each deal twice, seats swapped (default: the game's own default)
    max_faults = 10               # a bot with more faults is disqualified
    jobs = 2                      # matches at once (default: the CPU count; on a cluster, its threads)
    cluster = "tcp://host:8786"   # optional: play the matches on this Dask cluster's workers
    bots = [                      # as `arena play` takes them; globs allowed
        "../sample_bots/rps-poker/*",
        { bot = "python3 my_bot.py", name = "mine" },
    ]

    [params]                      # the game's parameters
    [limits]                      # protocol.Limits: move_s, startup_s, time_bank_s, ...
    [output]
    db = "arena-runs/results.sqlite"
    log_dir = "arena-runs/logs"
    logs = true

Paths in the file are relative to the file's folder. A key that is not known,
or a value of the wrong type or range, is an error that names the key and the
line it is on.
"""

from __future__ import annotations

import glob
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from protocol import Limits

from .._errors import ConfigError, GamePluginError
from ..games import ParamError, get_game, load_game_module

FORMATS = ("round-robin", "gauntlet")
DEFAULT_MAX_FAULTS = 10
"""A bot with more faults than this is disqualified from the rest of a tournament."""
DEFAULT_DB = Path("arena-runs") / "results.sqlite"
DEFAULT_LOG_DIR = Path("arena-runs") / "logs"

_TOP_KEYS = {
    "name",
    "game",
    "game_module",
    "format",
    "challenger",
    "cycles",
    "seed",
    "duplicate_deals",
    "max_faults",
    "jobs",
    "cluster",
    "deals",
    "bots",
    "params",
    "limits",
    "output",
}
_OUTPUT_KEYS = {"db", "log_dir", "logs"}
_BOT_KEYS = {"bot", "name", "protocol", "challenger"}


@dataclass
class BotEntry:
    """A bot as the config names it: what ``arena play`` accepts, and an optional new name."""

    text: str
    name: str = ""
    base: Path = field(default_factory=Path.cwd)
    protocol: str = ""
    """The protocol the bot speaks, when the config says (``gops-text``); else its manifest's."""
    challenger: bool = False
    """In a gauntlet, a challenger: it meets every bot that is not one (a class's students)."""


@dataclass
class TournamentConfig:
    """Everything a tournament needs to know, checked."""

    game: str
    bots: list[BotEntry]
    name: str = ""
    format: str = "round-robin"
    challenger: str = ""
    cycles: int | None = None
    """``None``: 1, or one cycle per deal of the deals file."""
    seed: int | None = None
    duplicate_deals: bool | None = None
    """``None``: the game's own default (on for card games)."""
    max_faults: int = DEFAULT_MAX_FAULTS
    jobs: int = 0
    """``0``: the CPU count."""
    params: dict[str, object] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    db: Path = DEFAULT_DB
    log_dir: Path = DEFAULT_LOG_DIR
    logs: bool = True
    source: str = ""
    """Where the config came from (a file's path, or ``command line``)."""
    cluster: str = ""
    """A Dask scheduler's address (``tcp://host:8786``): play the matches on its workers (the cluster executor)."""
    deals: Path | None = None
    """A file of deal seeds (one integer a line): cycle ``c`` deals number ``c`` to every pairing."""
    game_module: Path | None = None
    """A Python file defining the game (``game_module =``), loaded when the config was read."""


def effective_jobs(jobs: int) -> int:
    """``jobs``, or the CPU count when it is 0."""
    return jobs if jobs > 0 else max(1, os.cpu_count() or 1)


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """The 1-based line of ``text`` where the key ``path`` (such as ``("limits", "move_s")``) is set.

    ``tomllib`` keeps no positions, so this reads the text: it follows
    ``[table]`` headers and also finds dotted keys (``limits.move_s = 1``) and
    inline tables (``limits = { move_s = 1 }``). Good enough to point a person
    at the line; ``None`` when the key cannot be found.
    """
    table: tuple[str, ...] = ()
    lines = text.splitlines()
    header = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    for number, line in enumerate(lines, start=1):
        match = header.match(line)
        if match:
            table = tuple(_key_parts(match.group(1)))
            if table == path:
                return number
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip() or key.lstrip().startswith("#"):
            continue
        full = table + tuple(_key_parts(key))
        if full == path:
            return number
        # an inline table (limits = { move_s = 1 }): look for the rest of the path on this line
        inline = len(full) < len(path) and full == path[: len(full)] and "{" in value
        if inline and re.search(rf"[{{,]\s*[\"']?{re.escape(path[len(full)])}[\"']?\s*=", value):
            return number
    return None


def _key_parts(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in key.strip().split(".")]


class ConfigChecker:
    """Reads values out of the parsed TOML, raising errors that name the key and its line."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def error(self, key: tuple[str, ...], message: str) -> ConfigError:
        line = line_of(self.text, key)
        where = f"{self.path}:{line}" if line else str(self.path)
        return ConfigError(f"{where}: {'.'.join(key)}: {message}")

    def unknown(self, data: dict[str, Any], known: set[str], prefix: tuple[str, ...] = ()) -> None:
        for key in data:
            if key not in known:
                valid = ", ".join(sorted(known))
                raise self.error((*prefix, key), f"unknown key; valid keys here: {valid}")

    def get(self, data: dict[str, Any], key: tuple[str, ...], kind: type | tuple[type, ...], default: Any) -> Any:
        value = data.get(key[-1], default)
        if value is default:
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise self.error(key, f"must be {_names(kinds)}, not {value!r}")
        if not isinstance(value, kinds):
            raise self.error(key, f"must be {_names(kinds)}, not {value!r}")
        return value


def _names(kinds: tuple[type, ...]) -> str:
    words = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        list: "a list",
        dict: "a table",
    }
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def load(path: Path) -> TournamentConfig:
    """The tournament config in the TOML file at ``path``."""
    data, text = read_toml(path, "tournament config")
    return parse(data, path=path, text=text)


def read_toml(path: Path, what: str) -> tuple[dict[str, Any], str]:
    """The parsed TOML file at ``path`` and its text; a :class:`ConfigError` naming ``what`` it is when it is not."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start}): is it a {what}?") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def parse(data: dict[str, Any], *, path: Path, text: str) -> TournamentConfig:
    """Check the parsed TOML ``data`` (read from ``text`` at ``path``) and build the config."""
    check = ConfigChecker(path, text)
    base = path.parent.resolve()
    check.unknown(data, _TOP_KEYS)
    game = check.get(data, ("game",), str, None)
    if game is None:
        raise ConfigError(f"{path}: the key 'game' is missing (for example game = \"rps-poker\")")
    fmt = check.get(data, ("format",), str, "round-robin")
    if fmt not in FORMATS:
        raise check.error(("format",), f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    cycles = check.get(data, ("cycles",), int, None)
    if cycles is not None and cycles < 1:
        raise check.error(("cycles",), f"must be at least 1, not {cycles}")
    seed = check.get(data, ("seed",), int, None)
    if seed is not None and not 0 <= seed < 1 << 63:
        raise check.error(("seed",), "must be between 0 and 2**63 - 1")
    max_faults = check.get(data, ("max_faults",), int, DEFAULT_MAX_FAULTS)
    if max_faults < 0:
        raise check.error(("max_faults",), f"must be 0 or more, not {max_faults}")
    jobs = check.get(data, ("jobs",), int, 0)
    if jobs < 0:
        raise check.error(("jobs",), f"must be 1 or more (0 means the CPU count), not {jobs}")
    params = check.get(data, ("params",), dict, {})
    game_module = load_game_file(check, data, base)
    check_game_params(check, game, params)
    limits = read_limits(check, check.get(data, ("limits",), dict, {}))
    output = check.get(data, ("output",), dict, {})
    check.unknown(output, _OUTPUT_KEYS, ("output",))
    db = check.get(output, ("output", "db"), str, None)
    deals = check.get(data, ("deals",), str, None)
    log_dir = check.get(output, ("output", "log_dir"), str, None)
    config = TournamentConfig(
        game=game,
        bots=_bots(check, data.get("bots"), base),
        name=check.get(data, ("name",), str, ""),
        format=fmt,
        challenger=check.get(data, ("challenger",), str, ""),
        cycles=cycles,
        seed=seed,
        duplicate_deals=check.get(data, ("duplicate_deals",), bool, None),
        max_faults=max_faults,
        jobs=jobs,
        cluster=check.get(data, ("cluster",), str, ""),
        deals=beside(base, deals) if deals is not None else None,
        params=dict(params),
        limits=limits,
        db=beside(base, db) if db is not None else DEFAULT_DB,
        log_dir=beside(base, log_dir) if log_dir is not None else DEFAULT_LOG_DIR,
        logs=check.get(output, ("output", "logs"), bool, True),
        source=str(path),
        game_module=game_module,
    )
    if config.challenger and config.format != "gauntlet":
        raise check.error(("challenger",), 'only a gauntlet has a challenger (set format = "gauntlet")')
    if any(entry.challenger for entry in config.bots):
        if config.format != "gauntlet":
            raise check.error(("bots",), 'only a gauntlet has challengers (set format = "gauntlet")')
        if config.challenger:
            raise check.error(("challenger",), "name the challenger here or mark bots challenger = true, not both")
        if all(entry.challenger for entry in config.bots):
            raise check.error(("bots",), "every bot is a challenger: a gauntlet needs bots for them to meet")
    return config


def load_game_file(check: ConfigChecker, data: dict[str, Any], base: Path) -> Path | None:
    """Load the file ``game_module =`` names (relative to the config's folder), if any; the path loaded."""
    text = check.get(data, ("game_module",), str, None)
    if text is None:
        return None
    where = beside(base, text)
    try:
        load_game_module(str(where))
    except GamePluginError as exc:
        raise check.error(("game_module",), str(exc)) from None
    return where


def check_game_params(check: ConfigChecker, game: str, params: dict[str, Any]) -> None:
    """Refuse an unknown ``game``, or ``params`` it does not take, naming the config's line."""
    try:
        get_game(game)
    except ParamError as exc:
        raise check.error(("game",), str(exc)) from None
    for key, value in params.items():
        try:
            get_game(game, {key: value})
        except ParamError as exc:
            raise check.error(("params", key), str(exc)) from None


def read_limits(check: ConfigChecker, table: dict[str, Any]) -> Limits:
    """The config's ``[limits]`` table as :class:`~protocol.Limits`, an unknown key refused."""
    fields = set(Limits.__struct_fields__)
    check.unknown(table, fields, ("limits",))
    for key, value in table.items():
        default = getattr(Limits(), key)
        kinds: tuple[type, ...] = (int, float) if isinstance(default, float) else (int,)
        check.get(table, ("limits", key), kinds, None)
        if value <= 0:
            raise check.error(("limits", key), f"must be more than 0, not {value}")
    try:
        return msgspec.convert(table, Limits)
    except msgspec.ValidationError as exc:  # pragma: no cover - the checks above come first
        raise ConfigError(f"{check.path}: limits: {exc}") from None


def beside(base: Path, text: str) -> Path:
    """The path ``text`` of a config in the folder ``base`` (resolved), with its leading ``..`` taken away.

    So ``../arena-runs/r.sqlite`` in ``examples/`` is ``arena-runs/r.sqlite``
    beside it, as every message and the stored log paths show it, not
    ``examples/../arena-runs``. Only the leading ``..`` go, against ``base``,
    which has no links left in it; a later one may follow a link and is kept.
    """
    parts = Path(text).parts
    while parts and parts[0] == "..":
        base, parts = base.parent, parts[1:]
    return base.joinpath(*parts)


def _bots(check: ConfigChecker, value: Any, base: Path) -> list[BotEntry]:
    if value is None:
        raise ConfigError(f"{check.path}: the key 'bots' is missing (a list of bot folders or command lines)")
    if not isinstance(value, list):
        raise check.error(("bots",), 'must be a list of bots, such as ["sample_bots/rps-poker/*"]')
    entries: list[BotEntry] = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            entries += expand_bot(item, base)
        elif isinstance(item, dict):
            unknown = sorted(set(item) - _BOT_KEYS)
            if unknown:
                valid = ", ".join(sorted(_BOT_KEYS))
                raise check.error(("bots",), f"item {index + 1}: unknown key {unknown[0]!r}; valid keys: {valid}")
            text, name, protocol = item.get("bot"), item.get("name", ""), item.get("protocol", "")
            if not (isinstance(text, str) and isinstance(name, str) and isinstance(protocol, str)):
                raise check.error(("bots",), f"item {index + 1}: 'bot', 'name' and 'protocol' must be strings")
            challenger = item.get("challenger", False)
            if not isinstance(challenger, bool):
                raise check.error(("bots",), f"item {index + 1}: 'challenger' must be true or false")
            found = expand_bot(text, base)
            if name and len(found) > 1:
                raise check.error(("bots",), f"item {index + 1}: {text!r} names several bots, so it cannot rename them")
            entries += [
                BotEntry(text=e.text, name=name, base=base, protocol=protocol, challenger=challenger) for e in found
            ]
        else:
            raise check.error(
                ("bots",), f'item {index + 1} must be a string or {{ bot = "...", name = "...", protocol = "..." }}'
            )
    if len(entries) < 2:
        raise check.error(("bots",), f"a tournament needs at least two bots, found {len(entries)}")
    return entries


def expand_bot(text: str, base: Path) -> list[BotEntry]:
    """``text`` as one bot, or as every bot folder a glob pattern matches (sorted)."""
    if any(ch in text for ch in "*?[") and " " not in text.strip():
        found = sorted(glob.glob(str(base / text)))
        if not found:
            raise ConfigError(f"bot pattern {text!r} matches nothing (looked in {base})")
        return [BotEntry(text=p, base=base) for p in found]
    return [BotEntry(text=text, base=base)]


def from_command_line(
    game: str,
    bots: list[str],
    *,
    cycles: int | None,
    seed: int | None,
    jobs: int,
    duplicate_deals: bool | None,
    max_faults: int,
    fmt: str,
    challenger: str,
    limits: Limits,
    params: dict[str, object],
    db: Path,
    log_dir: Path,
    logs: bool,
    name: str = "",
    deals: Path | None = None,
) -> TournamentConfig:
    """The config for the short form ``arena tournament GAME BOT BOT ...``."""
    if len(bots) < 2:
        raise ConfigError(f"a tournament needs at least two bots, {len(bots)} given")
    if cycles is not None and cycles < 1:
        raise ConfigError(f"--cycles must be at least 1, not {cycles}")
    if max_faults < 0:
        raise ConfigError(f"--max-faults must be 0 or more, not {max_faults}")
    if jobs < 0:
        raise ConfigError(f"--jobs must be 1 or more, not {jobs}")
    base = Path.cwd()
    return TournamentConfig(
        game=game,
        name=name,
        deals=deals,
        bots=[entry for text in bots for entry in expand_bot(text, base)],
        format=fmt,
        challenger=challenger,
        cycles=cycles,
        seed=seed,
        duplicate_deals=duplicate_deals,
        max_faults=max_faults,
        jobs=jobs,
        params=params,
        limits=limits,
        db=db,
        log_dir=log_dir,
        logs=logs,
        source="command line",
    )
