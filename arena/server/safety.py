"""Whether a server may serve strangers here: its sandbox level, where its data lies, and its self-check.

``arena serve`` prints :func:`sandbox_line` at start and refuses to serve
below the config's ``sandbox_min`` (default ``all``: every property ``arena
sandbox`` checks is held), or with its data in a folder every jail may read
(:func:`refuse_exposed_data`). ``arena serve CONFIG --self-check``
(:func:`self_check`) goes further on the actual config: no seed in it or on
the pages, the server's data unreadable from a real jail, and every canary of
``arena sandbox`` held.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .._errors import ConfigError
from ..competition.config import read_toml
from ..sandbox import (
    CONTAINER_ADVICE,
    PROPERTIES,
    below,
    build_root,
    current_policy,
    exposed,
    layers_in_force,
    serving_level,
    unheld,
)
from .config import ServerConfig

PAGES = ("/", "/api/standings", "/api/matches", "/api/bots")
"""The pages the self-check reads for the competition's seed (and the first matches' pages)."""
MATCH_PAGES = 5
"""How many matches' pages (API, page, replay) the self-check reads."""


@dataclass(frozen=True)
class Finding:
    """One check of the self-check: its name, whether it passed, and what it saw."""

    name: str
    passed: bool
    detail: str

    def line(self) -> str:
        """The PASS/FAIL line it prints."""
        return f"{'PASS' if self.passed else 'FAIL'}  {self.name}: {self.detail}"


def sandbox_line(config: ServerConfig) -> str:
    """The sandbox level ``arena serve`` prints at start; a :class:`ConfigError` below the config's minimum."""
    here, missing = serving_level(), unheld()
    if below(here, config.sandbox_min):
        lacking = f"not held: {', '.join(missing)}" if missing else "no UID of each bot's own, or no cgroups"
        raise ConfigError(
            f"{config.source}: the sandbox here is {here!r} ({lacking}), below sandbox_min = "
            f"{config.sandbox_min!r} for strangers' bots: {CONTAINER_ADVICE}; or set sandbox_min lower in "
            f"{config.source} (`arena sandbox` says what holds, and why)"
        )
    held = "every property held" if not missing else f"not held: {', '.join(missing)}"
    return f"sandbox: {here} ({held}; layers: {', '.join(layers_in_force())}; sandbox_min = {config.sandbox_min!r})"


def data_paths(config: ServerConfig) -> dict[str, Path]:
    """The server's own data, by what it is: its data folder, and where its participants' bots are built."""
    return {"data_dir": config.data_dir, "the build folder": build_root(current_policy().build_root)}


def refuse_exposed_data(config: ServerConfig) -> None:
    """A :class:`ConfigError` when the server's data lies in a folder every bot's jail may read."""
    for what, path in data_paths(config).items():
        found = exposed(path)
        if found is None:
            continue
        folder, how = found
        change = (
            f"set data_dir in [server] of {config.source} (or pass --data-dir) to a folder outside it"
            if what == "data_dir"
            else "set TMPDIR to a folder outside it"
        )
        raise ConfigError(
            f"{what} {path} lies in {folder}, which {how}: any bot could read other participants' code, logs and "
            f"the database; {change} (in Docker, a volume such as /var/lib/arena, as docker/compose.yaml does)"
        )


def no_seed_in_config(path: Path) -> Finding:
    """The config names no seed (a participant who reads it would compute every deal)."""
    data, _text = read_toml(path, "server config")
    if "seed" in data:
        why = "whoever reads the config can compute the ladder's deals; the server keeps a secret seed of its own"
        return Finding("no seed in the config", False, f"remove seed = {data['seed']!r} from {path}: {why}")
    return Finding("no seed in the config", True, f"{path} names none")


def sandbox_minimum(config: ServerConfig) -> Finding:
    """The layers in force claim at least ``sandbox_min``."""
    try:
        return Finding("sandbox level", True, sandbox_line(config))
    except ConfigError as exc:
        return Finding("sandbox level", False, str(exc))


def data_outside_jails(config: ServerConfig) -> Finding:
    """No data path lies in a folder every jail reads."""
    try:
        refuse_exposed_data(config)
    except ConfigError as exc:
        return Finding("data outside every jail's folders", False, str(exc))
    shown = ", ".join(f"{what} {path}" for what, path in data_paths(config).items())
    return Finding("data outside every jail's folders", True, shown)


async def no_seed_on_pages(config: ServerConfig) -> Finding:
    """Open the competition and read its pages and API in-process: the competition's seed is on none of them."""
    import httpx

    from .service import Competition
    from .web import create_app

    competition = Competition(config)
    try:
        secret = str(competition.seed)
        transport = httpx.ASGITransport(app=create_app(competition))
        async with httpx.AsyncClient(transport=transport, base_url="http://self-check") as client:
            paths = list(PAGES)
            for match in competition.catalogue.latest_matches(MATCH_PAGES):
                paths += [f"/api/matches/{match.key}", f"/matches/{match.key}", f"/matches/{match.key}/replay"]
            shown = []
            for path in paths:
                response = await client.get(path)
                if secret in response.text:
                    shown.append(path)
    finally:
        competition.close()
    if shown:
        return Finding("no seed on the pages", False, f"the competition's seed is shown by {', '.join(shown)}")
    return Finding("no seed on the pages", True, f"the competition's seed is on none of {len(paths)} pages read")


async def data_unreadable_from_jail(config: ServerConfig) -> Finding:
    """A real jailed process tries to list the data folder and read the database and every file at its top."""
    from ..checks.sandbox import read_from_jail

    folder = config.data_dir
    paths = [folder, *sorted(p for p in folder.iterdir() if p.is_file() or p.is_dir())]
    seen, what = await read_from_jail(paths)
    if not seen:
        return Finding("data unreadable from a jail", False, f"the jailed reader said nothing ({what})")
    got = [f"{path}: {result}" for path, result in seen.items() if not result.startswith("refused")]
    if got:
        return Finding("data unreadable from a jail", False, "a jailed process " + "; ".join(got))
    return Finding("data unreadable from a jail", True, f"{len(seen)} paths tried, each refused "
                   f"({seen[str(folder)]} for {folder})")  # fmt: skip


async def self_check(config: ServerConfig, path: Path) -> list[Finding]:
    """Every check, in order; the competition is opened (its data folder made) as ``arena serve`` would."""
    from ..checks.sandbox import verify

    findings = [no_seed_in_config(path), sandbox_minimum(config), data_outside_jails(config)]
    findings.append(await no_seed_on_pages(config))
    findings.append(await data_unreadable_from_jail(config))
    verdicts = await verify()
    for prop, verdict in verdicts.items():
        findings.append(Finding(f"sandbox canary {prop}", verdict.held, f"{PROPERTIES[prop]}: {verdict.detail}"))
    shown = serving_level(verified={prop: verdict.held for prop, verdict in verdicts.items()})
    findings.append(Finding("sandbox level shown by the canary", not below(shown, config.sandbox_min),
                            f"{shown} (sandbox_min = {config.sandbox_min!r})"))  # fmt: skip
    return findings
