"""The sandbox around untrusted bots: limits, isolation layers, and an honest report of what holds.

Every bot the arena starts (``arena play``, tournaments: anything that goes
through :func:`arena.supervisor._process.open_bot`) runs inside a :class:`Jail` built
from the strongest layers this machine offers, detected at run time by
:func:`capabilities`. :func:`summary` says, property by property, which
mechanism holds it here; ``arena sandbox`` runs a canary bot to verify it.

The limits themselves (memory, processes, file size, open files, output per
move...) are fields of :class:`protocol.Limits`, so a bot is told them in
``match_start``; :class:`SandboxPolicy` holds what only the organiser sets
(a build's limits among them). A bot with a build command is built, and
runs, in a folder the arena owns (:func:`built_folder`, :mod:`._builds`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..bots.spec import BotSpec, hash_path
from ._builds import BUILD_DIR, build_root, built
from ._plan import (
    ALL_LAYERS,
    PROFILES,
    Capabilities,
    Jail,
    Profile,
    SandboxPolicy,
    capabilities,
    configure,
    current_policy,
)

PROPERTIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "network": ("no network (TCP and UDP connects)", ("bwrap", "netns", "seccomp", "landlock")),
    "secret": ("cannot read other bots, results, logs, home", ("bwrap", "landlock", "uid")),
    "write_outside": ("cannot write outside its scratch folder", ("bwrap", "landlock", "uid")),
    "fork_bomb": ("fork bomb contained", ("cgroup", "uid", "rlimits")),
    "memory_hog": ("memory limit over the process tree", ("cgroup", "rlimits", "arena")),
    "cpu_children": ("CPU of children counted against the move", ("cgroup", "arena")),
    "escape": ("no process outlives its match (setsid + double fork)", ("pidns", "bwrap", "cgroup", "uid")),
    "stdout_flood": ("stdout flood cut off, arena memory bounded", ("arena",)),
}
"""Each property the canary checks: what it means, and the layers that can hold it, strongest first."""

LEVELS: dict[str, tuple[str, ...]] = {
    "none": (),
    "basic": ("stdout_flood", "cpu_children"),
    "isolated": ("stdout_flood", "cpu_children", "network", "secret", "write_outside", "escape"),
    "strong": tuple(PROPERTIES),
}
"""Sandbox levels, each the properties that must be held by a layer other than the arena's own polling."""

DEFAULT_MINIMUM = "isolated"

_HOW = {
    "network": {
        "bwrap": "bubblewrap network namespace",
        "netns": "network namespace (only a down loopback inside)",
        "seccomp": "seccomp denies AF_INET/AF_INET6 sockets",
        "landlock": "Landlock denies TCP connect/bind (not UDP)",
    },
    "secret": {
        "bwrap": "bubblewrap mount namespace (only system dirs, its folder, its scratch)",
        "landlock": "Landlock: read only system dirs and its own folder",
        "uid": "dedicated UID (only files not readable by others)",
    },
    "write_outside": {
        "bwrap": "bubblewrap read-only binds",
        "landlock": "Landlock: write only in scratch",
        "uid": "dedicated UID (only where others may not write)",
    },
    "fork_bomb": {
        "cgroup": "cgroup pids.max",
        "uid": "RLIMIT_NPROC on the bot's own UID",
        "rlimits": "RLIMIT_NPROC on the shared UID (a bound, shared with the arena)",
    },
    "memory_hog": {
        "cgroup": "cgroup memory limit (kernel OOM kill, recorded as memory_limit)",
        "rlimits": "RLIMIT_DATA per process",
        "arena": "arena polls the tree's private memory between reads",
    },
    "cpu_children": {"cgroup": "cgroup cpuacct over the tree", "arena": "arena sums /proc CPU over the tree"},
    "escape": {
        "pidns": "PID namespace: all die with the bot",
        "bwrap": "bubblewrap PID namespace, --die-with-parent",
        "cgroup": "kill every process in the cgroup",
        "uid": "kill every process of the bot's UID",
    },
    "stdout_flood": {"arena": "bounded line, per-move and per-match output caps"},
}


def _mechanisms(layers: list[str]) -> dict[str, list[str]]:
    in_force = set(layers) | {"arena"}
    root = capabilities().root
    held: dict[str, list[str]] = {}
    for prop, (_, candidates) in PROPERTIES.items():
        names = [c for c in candidates if c in in_force]
        if prop == "fork_bomb" and root and "uid" not in in_force:
            names = [n for n in names if n != "rlimits"]  # RLIMIT_NPROC is ignored for root
        if prop == "fork_bomb" and "uid" in in_force:
            names = [n for n in names if n != "rlimits"]
        held[prop] = names
    return held


def layers_in_force(policy: SandboxPolicy | None = None) -> list[str]:
    """The layers a bot started now gets, given the machine and ``policy``."""
    policy = policy or current_policy()
    caps = capabilities()
    layers = [name for name in ALL_LAYERS if name in caps.available and name in policy.layers]
    if "bwrap" in layers:
        layers = [n for n in layers if n not in ("landlock", "pidns", "netns")]
    return layers


def level(policy: SandboxPolicy | None = None) -> str:
    """The strongest level whose every property some layer (not only the arena's polling) holds."""
    layers = layers_in_force(policy)
    held = _mechanisms(layers)
    best = "none"
    for name, props in LEVELS.items():
        if name == "strong" and not {"uid", "cgroup"} <= set(layers):
            continue  # strong: the kernel enforces memory and processes per bot
        if all(held[p] and (held[p] != ["arena"] or p in ("stdout_flood", "cpu_children")) for p in props):
            best = name
    return best


def summary(policy: SandboxPolicy | None = None) -> dict[str, Any]:
    """The sandbox in force, for match logs and tournament results (JSON-ready, cheap after the first call).

    ``{"level": ..., "uid": ..., "layers": {name: how}, "missing": {name: why},
    "properties": {property: [mechanism, ...]}}``; an empty mechanism list
    means nothing holds that property here. ``arena sandbox`` verifies the
    same properties with a canary bot.
    """
    caps = capabilities()
    layers = layers_in_force(policy)
    held = _mechanisms(layers)
    return {
        "level": level(policy),
        "euid": os.geteuid(),
        "layers": {name: caps.available[name] for name in layers},
        "missing": dict(caps.missing),
        "properties": {prop: [_HOW[prop][m] for m in mechs] for prop, mechs in held.items()},
    }


def build_key(spec: BotSpec) -> str:
    """The key of ``spec``'s build folder: its content hash (taken now if the spec carries none)."""
    return spec.digest or hash_path(spec.cwd)


def built_folder(spec: BotSpec, policy: SandboxPolicy | None = None) -> Path | None:
    """The sealed folder ``spec`` was built in for its current content, or ``None`` if it was not built."""
    return built(build_root((policy or current_policy()).build_root), build_key(spec))


def check_minimum(minimum: str, *, allow_weak: bool) -> None:
    """Refuse to go on when the sandbox here is below ``minimum``, unless the organiser allowed it."""
    if minimum not in LEVELS:
        raise ConfigError(f"unknown sandbox level {minimum!r}; levels: {', '.join(LEVELS)}")
    here = level()
    order = list(LEVELS)
    if order.index(here) < order.index(minimum) and not allow_weak:
        missing = ", ".join(f"{k} ({v})" for k, v in capabilities().missing.items())
        raise ConfigError(
            f"the sandbox here is {here!r}, below the minimum {minimum!r} for untrusted bots "
            f"(missing: {missing}); run as root or install bubblewrap, or pass --allow-weak-sandbox"
        )


__all__ = [
    "ALL_LAYERS",
    "BUILD_DIR",
    "DEFAULT_MINIMUM",
    "LEVELS",
    "PROFILES",
    "PROPERTIES",
    "Capabilities",
    "Jail",
    "Profile",
    "SandboxPolicy",
    "build_key",
    "build_root",
    "built_folder",
    "capabilities",
    "check_minimum",
    "configure",
    "current_policy",
    "layers_in_force",
    "level",
    "summary",
]
