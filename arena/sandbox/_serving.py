"""What a server for strangers asks of the sandbox: a level (``sandbox_min``), and no data where jails read.

:func:`serving_level` rates the sandbox in force on the scale a server's
config uses: the levels of :data:`._claims.LEVELS` with ``all`` (every
property ``arena sandbox`` checks is held by some layer) between
``isolated`` and ``strong`` (which also needs a UID of the bot's own and
cgroups). :func:`jails_read` lists the folders every jail may read, so a
server can refuse a data folder inside one of them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._builds import quota_mounts
from ._claims import LEVELS, PROPERTIES, counts, mechanisms, rate
from ._plan import _READ_ONLY_SYSTEM, BWRAP_SYSTEM, BWRAP_TOPS, SandboxPolicy, capabilities, current_policy, layers_for

EVERY_PROPERTY = "all"
"""``sandbox_min`` for: every property held, whatever the layers (the default of a server)."""
SERVING_LEVELS = ("none", "basic", "isolated", EVERY_PROPERTY, "strong")
"""The scale of ``sandbox_min``, weakest first."""
assert set(SERVING_LEVELS) == {*LEVELS, EVERY_PROPERTY}

CONTAINER_ADVICE = (
    "in a container, add the SYS_ADMIN capability with seccomp and AppArmor unconfined (as docker/compose.yaml's "
    "server service does) or run it --privileged; elsewhere run as root with bubblewrap installed"
)
"""How to raise the level, in a container or not (the measured figures are in the docs)."""


def held_by(layers: list[str]) -> dict[str, list[str]]:
    """Property -> the mechanisms holding it here with ``layers`` in force (empty: nothing does)."""
    caps = capabilities()
    freezer = caps.cgroup is not None and caps.cgroup.freezer
    return mechanisms(
        set(layers), root=caps.root, landlock_abi=caps.landlock_abi, build_tmpfs=quota_mounts(), freezer=freezer
    )


def unheld(policy: SandboxPolicy | None = None) -> list[str]:
    """The properties no layer in force holds (the arena's polling alone counts only where it suffices)."""
    held = held_by(layers_for(capabilities(), policy or current_policy()))
    return [prop for prop in PROPERTIES if not counts(prop, held[prop])]


def serving_level(policy: SandboxPolicy | None = None, *, verified: dict[str, bool] | None = None) -> str:
    """The sandbox in force on the scale of :data:`SERVING_LEVELS` (with ``verified``: as the canary showed it)."""
    layers = layers_for(capabilities(), policy or current_policy())
    held = held_by(layers)

    def holds(prop: str) -> bool:
        return counts(prop, held[prop]) and (verified is None or verified.get(prop, False))

    rated = rate(holds, set(layers))
    if rated != "strong" and all(holds(prop) for prop in PROPERTIES):
        return EVERY_PROPERTY
    return rated


def below(here: str, minimum: str) -> bool:
    """Whether the level ``here`` is weaker than ``minimum`` (both of :data:`SERVING_LEVELS`)."""
    return SERVING_LEVELS.index(here) < SERVING_LEVELS.index(minimum)


def jails_read(policy: SandboxPolicy | None = None) -> dict[Path, str] | None:
    """The folders every jail may read (resolved), each with the layer that lets it; ``None``: every folder.

    Under bubblewrap, what it binds (system folders and the arena's Python);
    under Landlock, what its rules let a jail read. Without either, a jail
    reads whatever its UID may: only file modes keep data from it.
    """
    layers = layers_for(capabilities(), policy or current_policy())
    prefixes = sorted({sys.prefix, sys.base_prefix})
    if "bwrap" in layers:
        folders = [*BWRAP_TOPS, *BWRAP_SYSTEM, *prefixes]
        how = "bubblewrap binds read-only into every jail"
    elif "landlock" in layers:
        folders = [*_READ_ONLY_SYSTEM, *prefixes]
        how = "Landlock lets every jail read"
    else:
        return None
    return {Path(folder).resolve(): how for folder in folders if Path(folder).exists()}


def exposed(path: Path, policy: SandboxPolicy | None = None) -> tuple[Path, str] | None:
    """The folder every jail reads that ``path`` lies in, and how, if any.

    Where no layer confines what a jail reads, nothing is named here: the
    sandbox's level then lacks the ``secret`` property, and a server refuses
    it for that (``sandbox_min``).
    """
    read = jails_read(policy)
    if read is None:
        return None  # the sandbox's level says so: the "secret" property is not held
    resolved = path.resolve()
    for folder, how in read.items():
        if resolved.is_relative_to(folder):
            return folder, how
    return None
