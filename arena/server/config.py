"""A competition server's config: the game, limits, the ladder's policy, who may submit, what is public.

::

    name = "RPS Poker ladder"
    game = "rps-poker"
    game_module = "my_game.py"      # optional: a Python file defining the game, when no installed package has it
    max_faults = 10                 # more faults than this and a version is disqualified
    jobs = 2                        # matches at once (default: the CPU count)
    workers = 1                     # 1: matches in a worker process (the default when jobs >= 2); 0: in the server's
    house_bots = ["../sample_bots/rps-poker/random-python"]   # the organiser's own entries
    sandbox_min = "all"             # refuse to serve below this sandbox level: all (every property held),
                                    # or strong, isolated, basic, none (see `arena sandbox`)
    server_weight = 4               # the server's processes weigh this many times all its bots together for
                                    # the CPU (1 to 8): 4, pages first; 1, the ladder's matches first

    [params]                        # the game's parameters
    [limits]                        # per-bot limits, as for tournaments

    [ladder]
    duplicate = "tables"            # each deal at two tables by four participants' bots, seats kept; or "swapped":
                                    # both seatings by two bots (a bot holds both seats of a deal: unsafe among
                                    # strangers, see docs/server/strangers.md)
    placement_pairs = 4             # pairs (or tables) a new version plays first, against a spread of the field
    pair_budget = 12                # at most this many pairs (or tables) between two versions
    version_slots = 0               # most ladder slots one version holds at once (0: ceil(slots / versions))
    rest_s = 0                      # seconds a slot rests after each deal (0: none): caps the ladder's pace and CPU

    [access]
    registration = "invite"         # invite: one-time codes the organiser makes (`arena serve CONFIG --invite N`,
                                    # or the admin page); open: anyone may register a name; approve: anyone may
                                    # register, and uploads once the organiser has approved the account
    registrations_per_hour = 5      # accounts one address may create an hour (open and approve)
    replays = "public"              # or "owners" (the two bots' owners), or "after-end" (everyone once frozen)

    [uploads]
    max_bytes = 5_000_000           # the upload as sent
    max_files = 500                 # entries in an archive
    max_unpacked_bytes = 50_000_000
    per_hour = 12                   # uploads per participant per hour
    check_matches = 4               # matches the check of an upload plays against reference bots
    check_wall_s = 300              # the longest a check may take in all (its re-check included), in seconds
    check_jobs = 4                  # checks at once (one per participant at a time, taken round-robin)

    [server]
    host = "127.0.0.1"
    port = 8000
    data_dir = "arena-server"       # the database, bots, logs (relative to this file)
    log_bytes_per_version = 268_435_456       # a version's stderr files and half its match logs (256 MiB)
    log_bytes_per_participant = 1_073_741_824 # all of a participant's versions (1 GiB)
    keep_deals = 20                 # match logs: the last deals of each pair of versions kept (0: only the pinned)
    log_budget_bytes = 10_737_418_240         # all match logs kept; past it the oldest unpinned go (0: no budget)
    pins_per_participant = 50       # deals a participant may pin (keep their logs); the organiser: any number
    prune_every_s = 600             # how often the logs are pruned (in a thread)
    trusted_proxies = []            # reverse proxies (addresses or networks, "10.0.0.0/8") whose X-Forwarded-For
                                    # names the client; with none, every limit counts the peer's own address
    human_games = 8                 # games against people at once on the server (each holds a bot process)
    human_games_per_address = 2     # of them from one address (a person plays one game at a time)
    human_idle_s = 60               # a person who does not answer within this loses the game (it ends)

Unknown keys and bad values are errors naming the key and its line, as in
tournament configs (the checks are shared).

There is no ``seed``: the ladder's deals follow from a secret the server makes
when it creates the competition and keeps in its database (in ``data_dir``),
never printed nor shown. A config is often shared (a repository, an image),
and a bot that knows the seed knows every deal (the names of the two bots
and the pair's number are public): a ``seed`` is refused, not ignored, so an
organiser who set one does not believe the deals follow from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol import Limits

from .._errors import ConfigError
from ..competition.config import (
    DEFAULT_MAX_FAULTS,
    ConfigChecker,
    check_game_params,
    expand_bot,
    load_game_file,
    read_limits,
    read_toml,
)
from ..games import get_game
from ..sandbox import EVERY_PROPERTY, SERVER_TIMES, SERVING_LEVELS
from ._clients import Network, parse_networks
from .archive import UploadLimits
from .retention import Retention

_TOP = {"name", "game", "game_module", "max_faults", "jobs", "workers", "cluster", "house_bots", "params", "limits"}
_TOP |= {"sandbox_min", "server_weight"}  # the weakest sandbox for strangers; the server's CPU weight
_TABLES = {
    "ladder": {"duplicate", "placement_pairs", "pair_budget", "version_slots", "rest_s"},
    "access": {"registration", "replays", "registrations_per_hour"},
    "uploads": {
        "max_bytes",
        "max_files",
        "max_unpacked_bytes",
        "per_hour",
        "check_matches",
        "check_wall_s",
        "check_jobs",
    },
    "server": {"host", "port", "data_dir", "log_bytes_per_version", "log_bytes_per_participant"}
    | {"keep_deals", "log_budget_bytes", "pins_per_participant", "prune_every_s"}
    | {"trusted_proxies", "human_games", "human_games_per_address", "human_idle_s"},
}
REGISTRATION = ("invite", "open", "approve")
DUPLICATE = ("tables", "swapped")
"""The ladder's duplicate schemes (:data:`arena.competition.ladder.SCHEMES`), the default first."""
REPLAYS = ("public", "owners", "after-end")
MAX_REST_S = 60
"""The longest ``[ladder] rest_s``: a minute between a slot's deals (a resting slot finishes its rest even when the
field changes; a ladder to stop is paused: ``/admin``)."""


@dataclass
class LadderPolicy:
    """How the rolling ladder spends its matches."""

    duplicate: str = "tables"
    """``"tables"``: each deal is played at two tables by four participants' versions, seats kept (no bot ever
    holds both seats of a deal); ``"swapped"``: by two versions, once in each seating (for bots whose owners trust
    each other: a bot's processes could carry the first leg's cards to the second)."""
    placement_pairs: int = 4
    """Duplicate pairs a new version plays first, against opponents spread over the field."""
    pair_budget: int = 12
    """At most this many duplicate pairs between any two versions; settled pairs stop."""
    version_slots: int = 0
    """Most of the ladder's slots one version may hold at once; 0: its fair share, ceil(slots / versions)."""
    rest_s: float = 0.0
    """Seconds a slot rests after each deal before it takes the next (0: none): caps the ladder's pace, and so its
    CPU, on a machine that does other work."""


@dataclass
class ServerConfig:
    """Everything a competition server needs to know, checked."""

    game: str
    game_module: Path | None = None
    """A Python file defining the game (``game_module =``), loaded when the config was read."""
    name: str = ""
    max_faults: int = DEFAULT_MAX_FAULTS
    jobs: int = 0
    workers: int | None = None
    """1: the ladder's matches are played in a worker process of the server's own, 0: in the server's process;
    ``None``: in a worker when ``jobs`` is 2 or more. Ignored on a cluster."""
    cluster: str = ""
    params: dict[str, object] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    house_bots: list[tuple[str, Path]] = field(default_factory=list)
    """``(what the config says, base folder)`` for each of the organiser's own bots."""
    ladder: LadderPolicy = field(default_factory=LadderPolicy)
    registration: str = "invite"
    """``invite`` (one-time codes the organiser makes), ``open`` or ``approve`` (the organiser approves each account
    before it may upload or play)."""
    registrations_per_hour: int = 5
    """Accounts one address may create in an hour (its address as :func:`arena.server._listen.client_address` says)."""
    replays: str = "public"
    uploads: UploadLimits = field(default_factory=UploadLimits)
    uploads_per_hour: int = 12
    check_matches: int = 4
    check_wall_s: float = 300.0
    """The longest an upload's check may take in all, its re-check included: a slower one fails (seconds)."""
    check_jobs: int = 4
    """Checks run at once; a participant has one at a time, and the queue serves participants in turn."""
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("arena-server")
    source: str = ""
    log_bytes_per_version: int = 256 << 20
    """Disk a version's logs may take (its stderr files, half of each of its match logs); past it, it plays no more."""
    log_bytes_per_participant: int = 1 << 30
    """Disk all of a participant's versions' logs may take; past it, its versions play no more, nor may it upload."""
    retention: Retention = field(default_factory=Retention)
    """Which match logs are kept (see :mod:`arena.server.retention`)."""

    trusted_proxies: tuple[Network, ...] = ()
    """Reverse proxies whose ``X-Forwarded-For`` names the client (else it is never read)."""
    human_games: int = 8
    """Games against people at once on the server."""
    human_games_per_address: int = 2
    """Games against people at once from one address."""
    human_idle_s: float = 60.0
    """A person who does not answer within this many seconds loses the game, which ends."""

    sandbox_min: str = EVERY_PROPERTY
    """The weakest sandbox the server serves strangers with (one of :data:`arena.sandbox.SERVING_LEVELS`)."""
    server_weight: int = SERVER_TIMES
    """How many times all its bots together the server's processes weigh for the CPU, where the arena has the
    ``cpu`` controller (:func:`arena.sandbox.weigh_server`): 4 keeps pages within 50 ms under a busy ladder at a
    million matches on two CPUs, at about a sixth of the ladder's pace; 1 gives the bots their share first."""

    @property
    def title(self) -> str:
        """The competition's name, as pages show it."""
        return self.name or f"{self.game} ladder"


def load(path: Path) -> ServerConfig:
    """The server config in the TOML file at ``path``."""
    data, text = read_toml(path, "server config")
    return parse(data, path=path, text=text)


def parse(data: dict[str, Any], *, path: Path, text: str) -> ServerConfig:
    """Check the parsed TOML ``data`` (read from ``text`` at ``path``) and build the config."""
    check = ConfigChecker(path, text)
    base = path.parent.resolve()
    if "seed" in data:
        raise check.error(
            ("seed",),
            "a server keeps its deals' seed secret (a bot that knew it would know every deal): remove this line;"
            " the server makes a secret seed of its own and keeps it in its data_dir",
        )
    check.unknown(data, _TOP | set(_TABLES))
    game = check.get(data, ("game",), str, None)
    if game is None:
        raise ConfigError(f"{path}: the key 'game' is missing (for example game = \"rps-poker\")")
    params = check.get(data, ("params",), dict, {})
    game_module = load_game_file(check, data, base)
    check_game_params(check, game, params)
    if not type(get_game(game)).duplicate_deals:
        raise check.error(
            ("game",),
            f"{game} is not duplicable (its duplicate_deals is False), and a ladder plays every deal twice (at two "
            "tables, or with the seats swapped): serve a game whose deals can be so played",
        )
    tables = {name: check.get(data, (name,), dict, {}) for name in _TABLES}
    for name, keys in _TABLES.items():
        check.unknown(tables[name], keys, (name,))

    def number(table: str, key: str, default: int, least: int) -> int:
        where = (table, key) if table else (key,)
        value: int = check.get(tables[table] if table else data, where, int, default)
        if value < least:
            raise check.error(where, f"must be at least {least}, not {value}")
        return value

    def seconds(table: str, key: str, default: float) -> float:
        value: float = check.get(tables[table], (table, key), (int, float), default)
        if value <= 0:
            raise check.error((table, key), f"must be more than 0 seconds, not {value}")
        return float(value)

    def choice(table: str, key: str, options: tuple[str, ...]) -> str:
        value: str = check.get(tables[table], (table, key), str, options[0])
        if value not in options:
            raise check.error((table, key), f"must be one of {', '.join(options)}, not {value!r}")
        return value

    house = check.get(data, ("house_bots",), list, [])
    house_bots: list[tuple[str, Path]] = []
    for item in house:
        if not isinstance(item, str):
            raise check.error(("house_bots",), f"each entry must be a bot folder or command line, not {item!r}")
        house_bots += [(entry.text, entry.base) for entry in expand_bot(item, base)]
    port = number("server", "port", 8000, 0)
    if port > 65535:
        raise check.error(("server", "port"), f"must be a TCP port (0 to 65535), not {port}")
    data_dir = check.get(tables["server"], ("server", "data_dir"), str, "arena-server")
    sandbox_min = check.get(data, ("sandbox_min",), str, EVERY_PROPERTY)
    if sandbox_min not in SERVING_LEVELS:
        raise check.error(("sandbox_min",), f"must be one of {', '.join(SERVING_LEVELS)}, not {sandbox_min!r}")
    server_weight = check.get(data, ("server_weight",), int, SERVER_TIMES)
    if not 1 <= server_weight <= 8:
        raise check.error(("server_weight",), f"must be a whole number from 1 to 8, not {server_weight}")
    workers = check.get(data, ("workers",), int, None)
    if workers is not None and workers not in (0, 1):
        raise check.error(
            ("workers",), f"must be 0 (matches in the server's process) or 1 (in a worker process), not {workers}"
        )
    rest: float = check.get(tables["ladder"], ("ladder", "rest_s"), (int, float), 0.0)
    if not 0 <= rest <= MAX_REST_S:
        raise check.error(("ladder", "rest_s"), f"must be from 0 to {MAX_REST_S} seconds, not {rest}")
    proxies = check.get(tables["server"], ("server", "trusted_proxies"), list, [])
    if not all(isinstance(entry, str) for entry in proxies):
        raise check.error(("server", "trusted_proxies"), "must be a list of addresses or networks, as strings")
    try:
        trusted_proxies = parse_networks(proxies)
    except ValueError as exc:
        raise check.error(("server", "trusted_proxies"), str(exc)) from None
    return ServerConfig(
        game=game,
        game_module=game_module,
        name=check.get(data, ("name",), str, ""),
        max_faults=number("", "max_faults", DEFAULT_MAX_FAULTS, 0),
        jobs=number("", "jobs", 0, 0),
        workers=workers,
        cluster=check.get(data, ("cluster",), str, ""),
        params=dict(params),
        limits=read_limits(check, check.get(data, ("limits",), dict, {})),
        house_bots=house_bots,
        ladder=LadderPolicy(
            duplicate=choice("ladder", "duplicate", DUPLICATE),
            placement_pairs=number("ladder", "placement_pairs", 4, 0),
            pair_budget=number("ladder", "pair_budget", 12, 1),
            version_slots=number("ladder", "version_slots", 0, 0),
            rest_s=rest,
        ),
        registration=choice("access", "registration", REGISTRATION),
        replays=choice("access", "replays", REPLAYS),
        registrations_per_hour=number("access", "registrations_per_hour", 5, 0),
        uploads=UploadLimits(
            max_bytes=number("uploads", "max_bytes", UploadLimits.max_bytes, 1024),
            max_files=number("uploads", "max_files", UploadLimits.max_files, 1),
            max_unpacked_bytes=number("uploads", "max_unpacked_bytes", UploadLimits.max_unpacked_bytes, 1024),
        ),
        uploads_per_hour=number("uploads", "per_hour", 12, 1),
        check_matches=number("uploads", "check_matches", 4, 1),
        check_wall_s=seconds("uploads", "check_wall_s", 300.0),
        check_jobs=number("uploads", "check_jobs", 4, 1),
        host=check.get(tables["server"], ("server", "host"), str, "127.0.0.1"),
        port=port,
        data_dir=(base / data_dir).resolve(),
        source=str(path),
        log_bytes_per_version=number("server", "log_bytes_per_version", 256 << 20, 1 << 16),
        log_bytes_per_participant=number("server", "log_bytes_per_participant", 1 << 30, 1 << 16),
        retention=Retention(
            keep_deals=number("server", "keep_deals", Retention.keep_deals, 0),
            log_budget_bytes=number("server", "log_budget_bytes", Retention.log_budget_bytes, 0),
            pins_per_participant=number("server", "pins_per_participant", Retention.pins_per_participant, 0),
            prune_every_s=seconds("server", "prune_every_s", Retention.prune_every_s),
        ),
        trusted_proxies=trusted_proxies,
        human_games=number("server", "human_games", 8, 0),
        human_games_per_address=number("server", "human_games_per_address", 2, 1),
        human_idle_s=seconds("server", "human_idle_s", 60.0),
        sandbox_min=sandbox_min,
        server_weight=server_weight,
    )
