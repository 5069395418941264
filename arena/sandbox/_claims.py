"""What each layer holds: the properties ``arena sandbox`` checks, and which mechanisms in force hold each one.

A mechanism is listed for a property only when it holds that property *on
its own*, against the canary's whole attack (:mod:`arena.sandbox.canary`); a
layer that closes part of it (Landlock stops TCP but not UDP) is not listed.
``tests/test_sandbox.py`` runs the canary on combinations of layers and fails
when a claim and the canary disagree.
"""

from __future__ import annotations

from collections.abc import Callable

PROPERTIES: dict[str, str] = {
    "network": "no network (TCP, UDP, through io_uring, odd socket calls)",
    "secret": "cannot read other bots, results, logs, home",
    "write_outside": "cannot write outside its scratch folder",
    "disk_quota": "writes bounded: scratch capped at disk_bytes (or the bot ended), nothing else writable",
    "fork_bomb": "fork bomb contained",
    "memory_hog": "memory limit over the process tree",
    "memory_shared": "the memory limit counts shared memory (MAP_SHARED, memfds, its tmpfs)",
    "cpu_children": "CPU of children counted against the move",
    "cpu_idle": "CPU used while no request is pending (between moves, idle in a pool): frozen, or charged and ended",
    "escape": "no process outlives its match (setsid + double fork)",
    "stdout_flood": "stdout flood cut off, arena memory bounded",
    "kernel_surface": "no io_uring, no new (user) namespaces",
    "collusion": "bots of a match cannot signal each other through the kernel",
    "build": "a build runs jailed: no secret, network, writes outside, or survivors",
    "build_quota": "a build's folder capped at its quota by the kernel at every instant",
}
"""Each property the canary checks, and what it means."""

LEVELS: dict[str, tuple[str, ...]] = {
    "none": (),
    "basic": ("stdout_flood", "cpu_children"),
    "isolated": ("stdout_flood", "cpu_children", "network", "secret", "write_outside", "escape", "build"),
    "strong": tuple(PROPERTIES),
}
"""Sandbox levels, each the properties that must be held by a layer other than the arena's own polling.

``strong`` also needs a dedicated UID and cgroups: the kernel enforces memory and processes per bot."""

ARENA_ONLY_COUNTS = ("stdout_flood", "cpu_children", "cpu_idle")
"""Properties the arena's own work holds as well as a layer would."""


def mechanisms(
    layers: set[str], *, root: bool, landlock_abi: int, build_tmpfs: bool, freezer: bool
) -> dict[str, list[str]]:
    """Property -> the mechanisms holding it with ``layers`` in force (empty: nothing does).

    ``build_tmpfs``: the arena may mount a tmpfs of a build's quota for it (root with ``CAP_SYS_ADMIN``).
    """
    has: Callable[[str], bool] = layers.__contains__
    scoped = has("landlock") and landlock_abi >= 6  # signals and abstract sockets kept inside the jail
    tmpfs = has("bwrap") or has("mntns")
    found: dict[str, list[str]] = {prop: [] for prop in PROPERTIES}

    def add(prop: str, condition: bool, how: str) -> None:
        if condition:
            found[prop].append(how)

    add("network", has("bwrap"), "bubblewrap network namespace")
    add("network", has("netns"), "network namespace (only a down loopback inside)")
    add("network", has("seccomp"), "seccomp: only Unix and netlink sockets; io_uring refused")
    add("secret", has("bwrap"), "bubblewrap mount namespace (only system dirs, its folder, its scratch)")
    add("secret", has("landlock"), "Landlock: read only system dirs and its own folder")
    add("write_outside", has("bwrap"), "bubblewrap: all read-only but scratch")
    add("write_outside", has("mntns"), "mount namespace: all read-only but scratch")
    add("write_outside", has("landlock"), "Landlock: write only in scratch")
    add("disk_quota", has("bwrap"), "bubblewrap: scratch a tmpfs of disk_bytes")
    add("disk_quota", has("mntns"), "mount namespace: scratch a tmpfs of disk_bytes")
    add("disk_quota", has("landlock") and not tmpfs,
        "Landlock lets it write only in scratch, which the arena measures (disk_limit fault)")  # fmt: skip
    add("fork_bomb", has("cgroup"), "cgroup pids.max")
    add("fork_bomb", has("uid"), "RLIMIT_NPROC on the bot's own UID")
    add("fork_bomb", has("rlimits") and not root and not has("uid"),
        "RLIMIT_NPROC on the shared UID (a bound, shared with the arena)")  # fmt: skip
    add("memory_hog", has("cgroup"), "cgroup memory limit (kernel OOM kill, recorded as memory_limit)")
    add("memory_hog", has("rlimits"), "RLIMIT_DATA per process")
    add("memory_hog", True, "arena polls the tree's private memory between reads")
    add("cpu_children", has("cgroup"), "cgroup cpuacct over the tree")
    add("cpu_children", True, "arena sums /proc CPU over the tree")
    add("memory_shared", has("cgroup"), "cgroup memory limit (shared memory and tmpfs pages are charged to the group)")
    add("memory_shared", True, "arena polls the tree's anonymous and shared pages (RssAnon + RssShmem), memfds held "
        "open and its private tmpfs (System V segments: refused by seccomp where it is in force)")  # fmt: skip
    counted = "cgroup cpuacct" if has("cgroup") else "/proc"
    add("cpu_idle", has("cgroup") and freezer, "cgroup freezer: its processes frozen whenever no request is pending "
        "(from 2 ms after its answer, or at once for a bot seen busy between moves, until its next request; "
        "idle in a pool)")  # fmt: skip
    add("cpu_idle", True, f"arena charges the tree's CPU since its last answer ({counted}) to its next move, "
        "and ends a pooled process once over it")  # fmt: skip
    add("escape", has("pidns"), "PID namespace: all die with the bot")
    add("escape", has("bwrap"), "bubblewrap PID namespace, --die-with-parent")
    add("escape", has("cgroup"), "kill every process in the cgroup")
    add("escape", has("uid"), "kill every process of the bot's UID")
    add("escape", scoped, "the launcher reaps orphans; Landlock keeps its signals from the launcher")
    add("stdout_flood", True, "bounded line, per-move and per-match output caps")
    add("kernel_surface", has("seccomp"), "seccomp: io_uring and clone3 absent, namespace flags refused")
    sockets = has("netns") or has("bwrap")  # (Landlock's scope still tells a name that exists: EPERM, not refused)
    signals = has("uid") or has("pidns") or has("bwrap") or scoped
    processes = has("pidns") or has("bwrap") or (has("mntns") and root and has("uid"))
    places = has("bwrap") or has("mntns") or has("landlock")
    counters = has("bwrap") or has("mntns")  # constant files bound over /proc's global counters (_masks.py)
    add("collusion", has("seccomp") and sockets and signals and processes and places and counters,
        "seccomp: locks, file notices, System V IPC, message queues, shared futex waits return at once, "
        "page-cache probes and sysinfo refused; namespaces or Landlock keep sockets, signals, processes and "
        "writable places apart; /proc's global counters are constants, /proc/fs and the ptys hidden, in the "
        "jail's mount namespace")  # fmt: skip
    jailed = all(found[prop] for prop in ("network", "secret", "write_outside", "escape"))
    add("build", jailed, "built in the bot's own jail, its process tree killed at the end")
    add("build_quota", build_tmpfs, "the build's folder a tmpfs of build_disk_bytes (mounted by the arena, as root); "
        "its output copied to disk once the build is over")  # fmt: skip
    return found


def counts(prop: str, holders: list[str]) -> bool:
    """Whether ``holders`` hold ``prop`` for the levels (the arena's polling alone counts only for some)."""
    arena = [h for h in holders if h.startswith("arena ")]
    return bool(holders) and (len(arena) < len(holders) or prop in ARENA_ONLY_COUNTS)


def rate(held: Callable[[str], bool], layers: set[str]) -> str:
    """The strongest level whose every property ``held``."""
    best = "none"
    for name, props in LEVELS.items():
        if name == "strong" and not {"uid", "cgroup"} <= layers:
            continue
        if all(held(prop) for prop in props):
            best = name
    return best
