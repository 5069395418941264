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

* :mod:`~arena.sandbox._plan`: which layers this machine offers, and a :class:`Jail` built from them;
* :mod:`~arena.sandbox._launch` and :mod:`~arena.sandbox._native`: the stage
  that applies the layers and execs the bot (in Python, and compiled from ``launch.c``);
* :mod:`~arena.sandbox._cgroup`: a bot's control group (memory, processes, CPU, kill-all);
* :mod:`~arena.sandbox._tree`: a bot's process tree read from ``/proc``;
* :mod:`~arena.sandbox._masks`: the kernel's global counters shown to a jail as constants;
* :mod:`~arena.sandbox._programs`: which program a bot's command runs, and what it needs to read;
* :mod:`~arena.sandbox._builds`: build folders the arena owns, one per bot content;
* :mod:`~arena.sandbox._claims`: the properties ``arena sandbox`` checks and what holds each;
* :mod:`~arena.sandbox._serving`: what a server for strangers asks of the sandbox;
* :mod:`~arena.sandbox.canary`: the canary bot, one breach tried per run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..bots.spec import BotSpec, hash_path
from . import _cgroup
from ._builds import (
    BUILD_DIR,
    DONE_SUFFIX,
    bind_quota,
    build_root,
    built,
    copy_folder,
    held_bytes,
    keep_output,
    quota_folder,
    remove_tree,
    usage,
)
from ._claims import LEVELS, PROPERTIES, counts, rate
from ._plan import (
    ALL_LAYERS,
    PROFILES,
    Capabilities,
    Jail,
    Profile,
    SandboxPolicy,
    _cache_file,
    background,
    capabilities,
    configure,
    current_policy,
    layers_for,
    started_by,
    supervisor_tag,
)
from ._serving import (
    CONTAINER_ADVICE,
    EVERY_PROPERTY,
    SERVING_LEVELS,
    below,
    exposed,
    held_by,
    serving_level,
    unheld,
)

DEFAULT_MINIMUM = "isolated"


def layers_in_force(policy: SandboxPolicy | None = None) -> list[str]:
    """The layers a bot started now gets, given the machine and ``policy``."""
    return layers_for(capabilities(), policy or current_policy())


def level(policy: SandboxPolicy | None = None, *, verified: dict[str, bool] | None = None) -> str:
    """The strongest level whose every property some layer (not only the arena's polling) holds.

    With ``verified`` (property -> whether the canary showed it held), a
    property counts only when the canary showed it too.
    """
    layers = layers_in_force(policy)
    held = held_by(layers)
    return rate(lambda p: counts(p, held[p]) and (verified is None or verified.get(p, False)), set(layers))


def summary(policy: SandboxPolicy | None = None) -> dict[str, Any]:
    """The sandbox in force, for match logs and tournament results (JSON-ready, cheap after the first call).

    ``{"level": ..., "uid": ..., "layers": {name: how}, "missing": {name: why},
    "properties": {property: [mechanism, ...]}}``; an empty mechanism list
    means nothing holds that property here. ``arena sandbox`` verifies the
    same properties with a canary bot.
    """
    caps = capabilities()
    layers = layers_in_force(policy)
    held = held_by(layers)
    return {
        "level": level(policy),
        "euid": os.geteuid(),
        "layers": {name: caps.available[name] for name in layers},
        "missing": dict(caps.missing),
        "properties": held,
    }


def build_key(spec: BotSpec) -> str:
    """The key of ``spec``'s build folder: its content hash (taken now if the spec carries none), and its owner's.

    A build is shared only by byte-identical content (every file, mode and
    link that the build copies is hashed) of one owner: a server's
    participants never run one another's build.
    """
    content = spec.digest or hash_path(spec.cwd)
    if not spec.owner:
        return content
    return hashlib.sha256(f"{spec.owner}\0{content}".encode()).hexdigest()


def built_folder(spec: BotSpec, policy: SandboxPolicy | None = None) -> Path | None:
    """The sealed folder ``spec`` was built in for its current content, or ``None`` if it was not built."""
    return built(build_root((policy or current_policy()).build_root), build_key(spec))


SERVER_TIMES = _cgroup.SERVER_TIMES


def weigh_server(times: int = SERVER_TIMES) -> str:
    """Give this process (a competition server) and what it starts ``times`` its bots' CPU weight, where the
    arena has the cpu controller (:func:`arena.sandbox._cgroup.weigh_server`); a line saying what was done."""
    return _cgroup.weigh_server(capabilities().cgroup, times)


def forget_capabilities() -> None:
    """Forget what :func:`capabilities` found on this machine: its next call probes again (``arena sandbox
    --refresh``)."""
    with contextlib.suppress(OSError):
        _cache_file().unlink()


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
    "CONTAINER_ADVICE",
    "DEFAULT_MINIMUM",
    "DONE_SUFFIX",
    "EVERY_PROPERTY",
    "LEVELS",
    "PROFILES",
    "PROPERTIES",
    "SERVER_TIMES",
    "SERVING_LEVELS",
    "Capabilities",
    "Jail",
    "Profile",
    "SandboxPolicy",
    "background",
    "below",
    "bind_quota",
    "build_key",
    "build_root",
    "built_folder",
    "capabilities",
    "check_minimum",
    "configure",
    "copy_folder",
    "current_policy",
    "exposed",
    "forget_capabilities",
    "held_bytes",
    "keep_output",
    "layers_in_force",
    "level",
    "quota_folder",
    "remove_tree",
    "serving_level",
    "started_by",
    "summary",
    "supervisor_tag",
    "unheld",
    "usage",
    "weigh_server",
]
