"""Control groups for one bot: memory and process limits, CPU accounting, kill-all.

cgroup v1 (separate ``memory``, ``pids``, ``cpuacct`` hierarchies) and v2 (one
unified tree with ``memory.max``, ``pids.max``, ``cpu.stat``) are both handled;
which one is usable is detected at run time by creating a probe group. A bot's
group is created *inside the arena's own group* of each hierarchy, so limits
set on the arena (a CI job's, say) still hold for its bots.

A bot's group can also be *frozen* (the ``freezer`` hierarchy's
``freezer.state`` on v1, ``cgroup.freeze`` on v2): the supervisor freezes it
whenever no request is pending, so nothing it left running between moves or
between matches gets any CPU. A freeze and a thaw are one ``write`` each on a
descriptor kept open; neither waits for the kernel to finish.

A *background* bot (a server's check of an upload) also gets a small CPU
weight, so that under load it takes what the ladder's bots leave rather than
an equal share: ``cpu.weight`` (v2) or ``cpu.shares`` (v1) of about an eighth
of an ordinary bot's. Niceness cannot do this: with autogroup scheduling
(Debian's default) each bot's session is a scheduling group of its own, and
nice only orders the tasks inside one. A cgroup of the ``cpu`` controller
takes its tasks out of their autogroup.

Every bot's group is in the ``cpu`` hierarchy, inside the arena's parent
group, so all the bots together weigh what one session does: the arena's own
process (a server's pages, a tournament's supervisor) gets its share however
many bots play, where with a session of its own per bot a server answering
pages beside four bots got a fifth of the CPU. On v2, and on v1 where ``cpu``
is mounted with ``cpuacct``, that is the bot's one group; where v1 mounts
``cpu`` on its own, each bot has a group there too, and background bots go
one level down (``background``), whose small weight they share: together they
weigh an eighth of one ordinary bot.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

_ROOT = Path("/sys/fs/cgroup")
_PREFIX = "arena-sandbox"
BACKGROUND_WEIGHT = 12
"""A background bot's ``cpu.weight`` (v2), beside an ordinary bot's 100."""
BACKGROUND_SHARES = 128
"""A background bot's ``cpu.shares`` (v1), beside an ordinary bot's 1024."""
BACKGROUND = "background"
"""The v1 ``cpu`` group (inside the bots' parent) that background bots' groups go in, where ``cpu`` is apart."""


def _own_paths(text: str) -> dict[str, str]:
    """The arena's cgroup path per v1 controller (key ``""`` for v2), from ``/proc/self/cgroup``."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _mounts(text: str) -> dict[str, tuple[Path, str]]:
    """Mounted cgroup hierarchies from ``/proc/self/mountinfo``: controller (``""``: v2) -> (mount point, root).

    The root is the group of the hierarchy that the mount shows at its mount
    point: ``/`` on a host, the container's own group in a container that
    mounts only its part of the tree (cgroup v1 without a cgroup namespace).
    """
    found: dict[str, tuple[Path, str]] = {}
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split(" ")
        fstype, _, options = [*right.split(" "), "", "", ""][:3]
        if len(fields) < 5:
            continue
        mount = (Path(_unescape(fields[4])), _unescape(fields[3]))
        if fstype == "cgroup2":
            found.setdefault("", mount)
        elif fstype == "cgroup":
            for option in options.split(","):
                if option in ("memory", "pids", "cpuacct", "cpu", "freezer"):
                    found.setdefault(option, mount)
    return found


def _unescape(field: str) -> str:
    """A mountinfo field with its octal escapes (``\\040`` for a space) decoded."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def own_groups(mountinfo: str, cgroup: str) -> tuple[dict[str, Path], dict[str, str]]:
    """The folder of the arena's own group in each mounted hierarchy, and why a hierarchy has none.

    ``/proc/self/cgroup`` names the group from the hierarchy's root; the mount
    shows the hierarchy from its own root: the folder is the mount point
    joined with the group's path *below* the mount's root. A group outside
    the mounted part (or a root like ``/..`` seen through a cgroup namespace)
    cannot be reached from here.
    """
    own = _own_paths(cgroup)
    found: dict[str, Path] = {}
    why: dict[str, str] = {}
    for controller, (mount, root) in _mounts(mountinfo).items():
        group = own.get(controller, "/")
        if root == "/" or group == root:
            below = group if root == "/" else "/"
        elif group.startswith(root.rstrip("/") + "/"):
            below = group[len(root.rstrip("/")) :]
        else:
            why[controller or "v2"] = f"the arena's group {group} is outside the mounted {root}"
            continue
        found[controller] = mount / below.lstrip("/")
    return found, why


@dataclass
class CgroupBase:
    """Where bots' groups are made: one parent directory per controller (v1) or one (v2)."""

    version: int
    parents: dict[str, Path]
    """``memory``, ``pids``, ``cpuacct`` (v1) or ``unified`` (v2) -> the directory bots' groups go in.

    On v1 also ``cpu`` when the ``cpu`` controller is mounted apart from
    ``cpuacct`` and writable here: ordinary bots' groups go in it, background
    bots' in its ``background`` group.
    """
    background: str = ""
    """How a background bot is weighted here (``""``: it cannot be)."""
    freezer: bool = False
    """Whether bots' groups can be frozen (v1: ``parents`` has ``freezer``; v2: ``cgroup.freeze``)."""

    def create(self, name: str, *, memory_bytes: int, tasks: int, background: bool = False) -> BotCgroup:
        """A fresh group for one bot with its limits set (and, for a ``background`` bot, a small CPU weight)."""
        dirs = {c: parent / name for c, parent in self.parents.items()}
        if background and "cpu" in dirs:
            dirs["cpu"] = self.parents["cpu"] / BACKGROUND / name
        group = BotCgroup(version=self.version, dirs=dirs, freezable=self.freezer)
        try:
            for path in dirs.values():
                path.mkdir()
            if self.version == 1:
                _write(dirs["memory"] / "memory.limit_in_bytes", memory_bytes)
                with contextlib.suppress(OSError):  # absent without swap accounting
                    _write(dirs["memory"] / "memory.memsw.limit_in_bytes", memory_bytes)
                _write(dirs["pids"] / "pids.max", tasks)
                if background and "cpu" not in dirs and self.background:  # cpu is mounted with cpuacct
                    _write(dirs["cpuacct"] / "cpu.shares", BACKGROUND_SHARES)
            else:
                _write(dirs["unified"] / "memory.max", memory_bytes)
                with contextlib.suppress(OSError):
                    _write(dirs["unified"] / "memory.swap.max", 0)
                _write(dirs["unified"] / "pids.max", tasks)
                if background and self.background:
                    _write(dirs["unified"] / "cpu.weight", BACKGROUND_WEIGHT)
        except OSError:
            group.remove()
            raise
        return group


@dataclass
class BotCgroup:
    """One bot's groups."""

    version: int
    dirs: dict[str, Path]
    removed: bool = field(default=False)
    freezable: bool = False
    """Whether :meth:`set_frozen` can freeze the group's processes."""
    _fds: dict[str, int] = field(default_factory=dict, repr=False)
    """The accounting files read during play, kept open: each read is one ``pread`` (no path lookup, no open)."""
    _freezer: tuple[int, bytes, bytes] = field(default=(-1, b"", b""), repr=False)
    """The freeze file's descriptor once open (in ``_fds`` too), and what freezes and thaws the group."""

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid to, to join."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    @property
    def join_files(self) -> list[str]:
        """The files a launcher writes ``0`` (v1 ``tasks``) or its pid (v2 ``cgroup.procs``) to, to join the group.

        On v1 a single-threaded process that writes ``0`` to ``tasks`` moves
        itself without the kernel's global lock on every thread group
        (``cgroup_threadgroup_rwsem``), whose writer waits out an RCU grace
        period: measured here, 6-15 ms a hierarchy against 0.1 ms, four
        hierarchies a start. The launcher is single-threaded until it execs.
        """
        name = "tasks" if self.version == 1 else "cgroup.procs"
        return [str(d / name) for d in self.dirs.values()]

    def _read(self, key: str, name: str) -> bytes:
        """The file ``name`` of the group's ``key`` hierarchy, read from the start (``OSError``/``KeyError``)."""
        fd = self._fds.get(name, -1)
        if fd < 0:
            fd = self._fds[name] = os.open(self.dirs[key] / name, os.O_RDONLY | os.O_CLOEXEC)
        return os.pread(fd, 4096, 0)

    @property
    def freezer_leave(self) -> str:
        """Where a process goes to be out of the group's freezer (``""``: nowhere here; see :attr:`join_files`).

        The launcher's waiting half goes there, so that it still sees the
        arena die while the bot is frozen, and thaws and kills it then (on v1
        a frozen task does not even die of SIGKILL until thawed). On v1 that
        is the freezer's parent group; on v2 (one group for every controller)
        a leaf beside the bots' groups, ``LAUNCHERS``, made here.
        """
        if not self.freezable:
            return ""
        if self.version == 1:
            folder = self.dirs.get("freezer")
            return str(folder.parent / "tasks") if folder is not None else ""  # see join_files
        leaf = self.dirs["unified"].parent / LAUNCHERS
        try:
            leaf.mkdir(exist_ok=True)
        except OSError:
            return ""
        return str(leaf / "cgroup.procs")

    def freezer_state(self) -> tuple[str, str] | None:
        """The file that freezes the group and what thaws it, for the launcher (``None``: no freezer)."""
        found = self._freeze_file() if self.freezable else None
        return None if found is None else (str(found[0]), found[2].decode())

    def _freeze_file(self) -> tuple[Path, bytes, bytes] | None:
        """The file that freezes the group, and what freezes and thaws it (``None``: no freezer here)."""
        if "freezer" in self.dirs:
            return self.dirs["freezer"] / "freezer.state", b"FROZEN", b"THAWED"
        if self.version == 2 and "unified" in self.dirs:
            return self.dirs["unified"] / "cgroup.freeze", b"1", b"0"
        return None

    def set_frozen(self, frozen: bool) -> bool:
        """Freeze (or thaw) every process in the group; whether the kernel took it.

        One ``write`` on a descriptor kept open: it starts the freeze and
        returns, without waiting for every task to stop (that takes the
        kernel microseconds to milliseconds; a frozen bot is not read until
        it is thawed again anyway).
        """
        if self.removed:
            return False
        fd, on, off = self._freezer
        if fd < 0:
            found = self._freeze_file() if self.freezable else None
            if found is None:
                return False
            path, on, off = found
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return False
            self._fds["freeze"] = fd
            self._freezer = (fd, on, off)
        try:
            os.pwrite(fd, on if frozen else off, 0)
        except OSError:
            return False
        return True

    def frozen(self) -> bool:
        """Whether the kernel reports the group entirely frozen now (v1 ``FROZEN``; v2 ``frozen 1``)."""
        try:
            if "freezer" in self.dirs:
                return (self.dirs["freezer"] / "freezer.state").read_text().strip() == "FROZEN"
            if self.version == 2:
                return "frozen 1" in (self.dirs["unified"] / "cgroup.events").read_text().splitlines()
        except (OSError, KeyError):
            return False
        return False

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that ever ran in the group."""
        try:
            if self.version == 1:
                fd = self._fds.get("cpuacct.usage", -1)  # (read at every request and answer: _read inlined)
                return int(os.pread(fd, 64, 0) if fd >= 0 else self._read("cpuacct", "cpuacct.usage")) / 1e9
            stat = self._read("unified", "cpu.stat")
            if stat.startswith(b"usage_usec "):  # the kernel's first line
                return int(stat[11 : stat.index(b"\n")]) / 1e6
            for line in stat.splitlines():
                key, _, value = line.partition(b" ")
                if key == b"usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError, KeyError):
            return None
        return None

    def memory_bytes(self) -> int:
        """Memory charged to the group now (resident pages and page cache)."""
        try:
            if self.version == 1:
                return int(self._read("memory", "memory.usage_in_bytes"))
            return int(self._read("unified", "memory.current"))
        except (OSError, ValueError, KeyError):
            return 0

    def peak_memory_bytes(self) -> int | None:
        """The most memory the group was ever charged, as the kernel recorded it (``None`` where it keeps none)."""
        try:
            if self.version == 1:
                return int(self._read("memory", "memory.max_usage_in_bytes"))
            return int(self._read("unified", "memory.peak"))  # Linux 5.19+
        except (OSError, ValueError, KeyError):
            return None

    def oom_kills(self) -> int:
        """How many processes the kernel killed for going over the memory limit."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        key = "memory" if self.version == 1 else "unified"
        try:
            for line in self._read(key, name).splitlines():
                field_name, _, value = line.partition(b" ")
                if field_name == b"oom_kill":
                    return int(value)
        except (OSError, ValueError, KeyError):
            return 0
        return 0

    def pids(self) -> list[int]:
        """Every process in the group now (in any of its hierarchies)."""
        found: set[int] = set()
        for folder in self.dirs.values():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill_all(self) -> None:
        """SIGKILL every process in the group, until it is empty (a fork bomb cannot outrun it).

        The group is thawed first: on v1 a frozen task dies only once thawed.
        """
        self._thaw_any()
        kill_file = self.dirs.get("unified", Path("/nonexistent")) / "cgroup.kill"
        if self.version == 2 and kill_file.exists():
            with contextlib.suppress(OSError):
                _write(kill_file, 1)
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)

    def _thaw_any(self) -> None:
        """Thaw the group whether or not it was made freezable here (a stale group an arena left frozen)."""
        found = self._freeze_file()
        if found is not None:
            with contextlib.suppress(OSError):
                _write(found[0], found[2].decode())

    def remove(self) -> None:
        """Remove the (empty) groups; a group still busy is retried briefly, then left."""
        if self.removed:
            return
        self.removed = True
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        self._freezer = (-1, b"", b"")
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _write(path: Path, value: int | str) -> None:
    path.write_text(str(value))


def detect() -> tuple[CgroupBase | None, str]:
    """A usable cgroup base and a one-line account of why (or why not): beside the arena's own groups (those a
    server had before :func:`weigh_server` moved it, for the processes it starts: :data:`HOME_ENV`)."""
    texts = []
    for name in ("/proc/self/mountinfo", "/proc/self/cgroup"):
        try:
            texts.append(Path(name).read_text())
        except OSError:
            texts.append("")
    texts[1] = _home(texts[1])
    groups, unreachable = own_groups(*texts)
    v1: dict[str, Path] = {c: groups[c] / _PREFIX for c in ("memory", "pids", "cpuacct") if c in groups}
    if len(v1) == 3:
        reason = _probe(CgroupBase(1, v1))
        if reason is None:
            found = _with_freezer(_with_background(CgroupBase(1, v1), groups.get("cpu")), groups.get("freezer"))
            freezer = "freezer" if found.freezer else "no freezer"
            background = found.background or "no cpu controller"
            return found, f"cgroup v1 memory+pids+cpuacct, {freezer}; background bots: {background}"
        v1_reason = f"cgroup v1 not writable ({reason})"
    else:
        outside = "; ".join(f"{c}: {unreachable[c]}" for c in ("memory", "pids", "cpuacct") if c in unreachable)
        v1_reason = f"no cgroup v1 memory/pids/cpuacct hierarchies{f' ({outside})' if outside else ''}"
    if "" in groups:
        own_dir = groups[""]
        base = own_dir / _PREFIX
        reason = _probe_v2(own_dir, base)
        if reason is None:
            weighted = CgroupBase(2, {"unified": base}, background=f"cpu.weight {BACKGROUND_WEIGHT} (a bot's: 100)")
            weighted.freezer = _probe(weighted, freeze=True) is None
            freezer = "cgroup.freeze" if weighted.freezer else "no cgroup.freeze"
            return weighted, f"cgroup v2 memory+pids+cpu, {freezer}; background bots: {weighted.background}"
        return None, f"{v1_reason}; cgroup v2: {reason}"
    if "v2" in unreachable:
        return None, f"{v1_reason}; cgroup v2: {unreachable['v2']}"
    return None, v1_reason


def _with_background(base: CgroupBase, cpu: Path | None) -> CgroupBase:
    """``base`` (v1) able to weight background bots, where the ``cpu`` controller lets it (else as it was)."""
    if cpu is None:
        return base
    shares = f"cpu.shares {BACKGROUND_SHARES} (a bot's: 1024)"
    if cpu / _PREFIX == base.parents["cpuacct"]:  # mounted together: every bot's group is in the cpu hierarchy
        weighted = CgroupBase(1, base.parents, background=shares)
    else:
        parent = cpu / _PREFIX
        try:
            (parent / BACKGROUND).mkdir(parents=True, exist_ok=True)
            _write(parent / "cpu.shares", 1024)  # (an older arena gave it the background's weight)
            _write(parent / BACKGROUND / "cpu.shares", BACKGROUND_SHARES)
        except OSError:
            return base
        weighted = CgroupBase(1, {**base.parents, "cpu": parent}, background=f"{shares}, all of them together")
    if _probe(weighted, background=True) is not None:
        return base
    return weighted


HOME_ENV = "ARENA_CGROUP_HOME"
"""Where the arena's own groups are (the text of ``/proc/self/cgroup``), as the server had them before
:func:`weigh_server` moved it: the processes it starts (the match worker) make their bots' groups beside them, as
the server would have. Detected from their own groups, the worker's bots were made inside the server's group
(``arena-server/arena-sandbox/...``), weighed against the server's own process there (a page waited up to 89 ms
for a CPU), and on cgroup v2, where a group with processes gives its children no controllers, would have had no
group at all. Bots do not see it (their environment is made afresh)."""


def _home(own: str) -> str:
    """The groups (``/proc/self/cgroup``'s text) the arena's bots' groups are made beside: :data:`HOME_ENV`'s
    where this process is in them or in their server's group (a server's worker), else its own (an inherited
    value that does not describe where this process is, an organiser's typo among them, is not followed)."""
    home = os.environ.get(HOME_ENV, "")
    mine, theirs = _own_paths(own), _own_paths(home)
    if not home or mine.keys() != theirs.keys():
        return own
    for controller, path in mine.items():
        if path not in (theirs[controller], theirs[controller].rstrip("/") + "/" + SERVER_GROUP):
            return own
    return home


SERVER_GROUP = "arena-server"
"""The ``cpu`` group (beside the bots' parent) a competition server's own processes go in: see :func:`weigh_server`."""
SERVER_TIMES = 4
"""How many times all its bots together a server's processes weigh by default (the config's ``server_weight``):
its ``cpu.shares`` (v1) are that many times the bots' parent's 1024, its ``cpu.weight`` (v2) that many times 100."""
_WORDS = {1: "as much as", 2: "twice", 3: "three times", 4: "four times"}


def weigh_server(base: CgroupBase | None, times: int = SERVER_TIMES) -> str:
    """Move this process (and the processes it starts from now on: a server's match worker and standings'
    drawing) into a ``cpu`` group of ``times`` the bots' weight, beside the bots' parent; a line saying so.

    All the ladder's bots together weigh one session (their parent's weight), the server's process ``times`` that
    (the config's ``server_weight``, 4 by default). Under a busy ladder on two CPUs at a million matches, at one
    time, its main thread was runnable and waiting for a CPU 11 s of 30 and a bot page's p95 was 102 ms; at four,
    every page's p95 is within 50 ms, and where the bots keep the machine busy the ladder plays about a sixth
    slower (30 matches a second against 36: docs/server/scale.md). Nothing else changes: a bot still gets its
    CPU time by its own groups, and a bot's process never stays here (it joins its own groups before it runs).
    Where the ``cpu`` controller is not the arena's to use, the server stays where it is. (One group for every
    server of the machine: the last one started sets its weight.)
    """
    if base is None or not base.background:
        return "no cpu controller of the arena's: the server weighs one session, as each bot does"
    if base.version == 2:
        group, name, weight = base.parents["unified"].parent / SERVER_GROUP, "cpu.weight", 100 * times
    else:
        bots = base.parents.get("cpu") or base.parents["cpuacct"]
        group, name, weight = bots.parent / SERVER_GROUP, "cpu.shares", 1024 * times
    home = _home(Path("/proc/self/cgroup").read_text())
    try:
        group.mkdir(exist_ok=True)
        _write(group / name, weight)
        _write(group / "cgroup.procs", os.getpid())
    except OSError as error:
        return f"the server weighs one session, as each bot does ({group}: {error.strerror or error})"
    os.environ[HOME_ENV] = home  # (its bots' groups stay where they were: see HOME_ENV)
    # Bots' groups an arena before this one made inside the server's group (empty: their bots died with it).
    with contextlib.suppress(OSError):
        for old in sorted((group / _PREFIX).rglob("*"), key=lambda p: -len(p.parts)):
            if old.is_dir():
                with contextlib.suppress(OSError):
                    old.rmdir()
        (group / _PREFIX).rmdir()
    much = _WORDS.get(times, f"{times} times")
    return f"the server's processes weigh {much} all its bots together ({name} {weight} in {group})"


LAUNCHERS = "launchers"
"""The v2 group (a leaf beside bots' groups) where launchers wait, out of their bots' freezer."""
ANCHOR = "frozen-anchor"
"""An empty v1 freezer group kept frozen for good, beside the bots' groups: see :func:`_with_freezer`."""


def _with_freezer(base: CgroupBase, freezer: Path | None) -> CgroupBase:
    """``base`` (v1) with bots' groups in the ``freezer`` hierarchy too, where it is mounted and writable here.

    An empty group (``ANCHOR``) is left frozen for good. The kernel (6.1 and
    later) turns a static key on as the first v1 group freezes and off as the
    last thaws, patching its code each time: measured here, 67 us for every
    freeze and every thaw while no other group was frozen, 1 us with one
    (a frozen group with no process in it costs nothing else).
    """
    if freezer is None:
        return base
    with contextlib.suppress(OSError):
        anchor = freezer / _PREFIX / ANCHOR
        anchor.mkdir(parents=True, exist_ok=True)
        _write(anchor / "freezer.state", "FROZEN")
    frozen = CgroupBase(1, {**base.parents, "freezer": freezer / _PREFIX}, background=base.background, freezer=True)
    return frozen if _probe(frozen, freeze=True) is None else base


def _probe(base: CgroupBase, *, background: bool = False, freeze: bool = False) -> str | None:
    try:
        for parent in base.parents.values():
            parent.mkdir(exist_ok=True)
        group = base.create(f"probe-{os.getpid()}", memory_bytes=1 << 30, tasks=64, background=background)
        try:
            if freeze:
                group.freezable = True
                if not (group.set_frozen(True) and group.set_frozen(False)):
                    return "the group cannot be frozen"
        finally:
            group.remove()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _probe_v2(own_dir: Path, base: Path) -> str | None:
    try:
        controllers = (own_dir / "cgroup.controllers").read_text().split()
    except OSError as exc:
        return exc.strerror or str(exc)
    missing = [c for c in ("memory", "pids", "cpu") if c not in controllers]
    if missing:
        return f"controllers {', '.join(missing)} not delegated here"
    try:
        base.mkdir(exist_ok=True)
        _write(base / "cgroup.subtree_control", "+memory +pids +cpu")
        return _probe(CgroupBase(2, {"unified": base}))
    except OSError as exc:
        return exc.strerror or str(exc)
