"""Which isolation layers this machine offers, and a jail for one bot built from them.

:func:`capabilities` probes the machine once per arena process (about 0.1 s):
root or not, cgroups, user/PID/network namespaces, Landlock, seccomp,
bubblewrap. :class:`Jail` turns a bot's spec and limits into the launcher's
command line (see ``_launch.py``), its scratch folder, cgroup and UID, and
answers the arena's questions about the running bot: CPU time and memory of
its whole tree, whether the kernel killed it for memory, and kill everything.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import marshal
import os
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import psutil

from protocol import Limits

from ..bots.js import HOST_JS
from ..bots.spec import BotSpec
from . import _builds, _cgroup, _masks, _native, _tree
from ._launch import LAUNCH_CODE, OVERLAID, landlock_abi, seccomp_filter
from ._programs import find_program, installation, is_system

LAUNCHER = Path(__file__).with_name("_launch.py")
_LAUNCH = (sys.executable, "-I", "-S", "-c", LAUNCH_CODE.format(folder=str(LAUNCHER.parent)))
"""The launcher's command: isolated, and without ``site`` (it needs nothing outside the standard library)."""
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_READ_ONLY_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys")
BWRAP_TOPS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top folders bubblewrap binds read-only (or links, where they are links) into every jail."""
BWRAP_SYSTEM = ("/usr", "/etc", "/opt")
"""System folders bubblewrap binds read-only into every jail, whole."""
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")

BOT_FOLDER = "/bot"
"""Where a folder bot's folder is, and its working folder, under bubblewrap as root (see :meth:`Jail._overlay_for`)."""


def _inside(arg: str, folder: Path) -> str:
    """``arg`` with the path ``folder`` (or a path in it) as the jail sees it, at :data:`BOT_FOLDER`."""
    for name in dict.fromkeys((str(folder), str(folder.resolve()))):
        if arg == name:
            return BOT_FOLDER
        if arg.startswith(name.rstrip("/") + "/"):
            return BOT_FOLDER + arg[len(name.rstrip("/")) :]
    return arg


@cache
def _overlay_known() -> bool:
    """Whether this kernel has overlayfs (``/proc/filesystems``)."""
    try:
        return any(line.split()[-1:] == ["overlay"] for line in Path("/proc/filesystems").read_text().splitlines())
    except OSError:
        return False


ALL_LAYERS = ("uid", "cgroup", "pidns", "netns", "mntns", "landlock", "seccomp", "bwrap", "rlimits")
"""Every layer by its short name, strongest-first is not implied (see docs/sandbox/index.md)."""


@dataclass(frozen=True)
class Profile:
    """How a language runtime is started under the memory limit."""

    name: str
    data_rlimit: bool = True
    """Whether RLIMIT_DATA may bound it (Node and the JVM reserve far more than they use)."""
    heap_share: float = 0.0
    """The heap's share of the memory limit, passed as ``-Xmx`` / ``--max-old-space-size``."""


PROFILES: dict[str, Profile] = {
    "python": Profile("python"),
    "native": Profile("native"),
    "ruby": Profile("ruby"),
    "node": Profile("node", data_rlimit=False, heap_share=0.6),
    "java": Profile("java", data_rlimit=False, heap_share=0.5),
}
"""Language profiles by the name ``BotSpec.profile`` gives; unknown names use ``native``."""


@dataclass(frozen=True)
class SandboxPolicy:
    """What the organiser asks of the sandbox (the limits themselves are in :class:`protocol.Limits`)."""

    layers: frozenset[str] = frozenset(ALL_LAYERS)
    """Layers to use when the machine offers them; drop one to switch it off."""
    uid_base: int = 2_000_000_000
    """Bots run as UIDs from here (root only); one UID per running bot, locked while in use."""
    uid_count: int = 10_000
    scratch_root: Path | None = None
    """Where each bot's private scratch folder is made (default ``$TMPDIR/arena-sandbox-UID``)."""
    cpu_backstop_s: float = 3600.0
    """RLIMIT_CPU per process, a backstop behind the per-move CPU clock."""
    poll_s: float = 0.1
    """How often a waiting move polls the bot's CPU time and memory."""
    build_root: Path | None = None
    """Where bots are built, one folder per content (default ``$TMPDIR/arena-builds-EUID``)."""
    build_time_s: float = 600.0
    """The most a build may take, wall clock and CPU of its process tree, whatever its manifest asks."""
    build_memory_bytes: int = 1 << 30
    """Memory of a build's whole process tree."""
    build_processes: int = 128
    """Processes and threads a build may run at once."""
    build_disk_bytes: int = 512 << 20
    """Bytes a build's folder may hold in all (the bot's files, copied, and what the build writes)."""
    build_log_bytes: int = 1 << 20
    """Bytes of a build's output kept in its log."""

    def build_limits(self) -> Limits:
        """The :class:`protocol.Limits` a build runs under (its times are :attr:`build_time_s`)."""
        return Limits(
            memory_bytes=self.build_memory_bytes, processes=self.build_processes, stderr_bytes=self.build_log_bytes,
            file_bytes=min(self.build_disk_bytes, 256 << 20), open_files=1024, disk_bytes=self.build_disk_bytes,
        )  # fmt: skip


def _layers_from_env() -> frozenset[str]:
    """``ARENA_SANDBOX_LAYERS=landlock,pidns,...`` narrows the layers (for comparison runs; default all)."""
    text = os.environ.get("ARENA_SANDBOX_LAYERS", "")
    if not text.strip():
        return frozenset(ALL_LAYERS)
    return frozenset(n.strip() for n in text.split(",") if n.strip() in ALL_LAYERS)


_policy = SandboxPolicy(layers=_layers_from_env())


def configure(policy: SandboxPolicy) -> None:
    """Set the policy every bot started from now on gets."""
    global _policy
    _policy = policy


def current_policy() -> SandboxPolicy:
    """The policy in force."""
    return _policy


_background: ContextVar[bool] = ContextVar("arena_sandbox_background", default=False)


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Bots started inside (by this task and the tasks it starts) run in the background.

    A background bot gets a small CPU weight (see :mod:`._cgroup`): on a
    busy machine it takes what the other bots leave. Its limits, and its
    clock (CPU time, not wall time, within the wall-clock cap), are as any
    bot's. A server checks uploads so, beside its ladder.
    """
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers, probed once: layer name -> how it is provided, or why not."""

    root: bool
    available: dict[str, str]
    missing: dict[str, str]
    cgroup: _cgroup.CgroupBase | None = field(default=None, compare=False)
    bwrap: str | None = None
    landlock_abi: int = 0


def launch_argv(config: dict[str, object]) -> list[str]:
    """The launcher's command line for ``config`` (in marshal's format, which the launcher reads without imports)."""
    return [*_LAUNCH, marshal.dumps(config).hex()]


def _run_launcher(config: dict[str, object]) -> str | None:
    """Run the launcher on ``true``; ``None`` when it worked, else its complaint."""
    base: dict[str, object] = {"argv": ["true"], "cwd": "/", "env": {"PATH": SYSTEM_PATH}}
    try:
        done = subprocess.run(
            launch_argv({**base, **config}),
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"


def _cache_file() -> Path:
    """This installation's file: one per key, so checkouts and interpreters side by side do not re-probe by turns."""
    key = hashlib.sha256(_cache_key().encode()).hexdigest()[:16]
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-sandbox-{os.geteuid()}" / f"capabilities-{key}.json"


def _cache_key() -> str:
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = ""
    launcher = f"{LAUNCHER}@{LAUNCHER.stat().st_mtime}"
    return f"{boot}|{os.uname().release}|{sys.executable}|{shutil.which('bwrap')}|{launcher}"


@cache
def capabilities() -> Capabilities:
    """What this machine offers: probed once per boot (kept in ``$TMPDIR/arena-sandbox-UID``), then cached."""
    file, key = _cache_file(), _cache_key()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(file.read_text())
        if data["key"] == key and data["euid"] == os.geteuid():
            # The cgroup is detected afresh: it depends on the group this process was started in.
            available, missing = dict(data["available"]), dict(data["missing"])
            available.pop("cgroup", None)
            missing.pop("cgroup", None)
            cgroup, why = _cgroup.detect()
            (available if cgroup is not None else missing)["cgroup"] = why
            return Capabilities(data["root"], available, missing, cgroup, data["bwrap"], data["abi"])
    caps = probe()
    with contextlib.suppress(OSError):
        file.parent.mkdir(mode=0o711, exist_ok=True)
        record = {"key": key, "euid": os.geteuid(), "root": caps.root, "available": caps.available,
                  "missing": caps.missing, "bwrap": caps.bwrap, "abi": caps.landlock_abi}  # fmt: skip
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record))
        tmp.replace(file)
    return caps


def probe() -> Capabilities:
    """Probe the machine now (about a second: each layer is tried on ``true``)."""
    root = os.geteuid() == 0
    available: dict[str, str] = {"rlimits": "setrlimit (core 0, file size, open files, CPU backstop, data)"}
    missing: dict[str, str] = {}
    if root:
        available["uid"] = "a dedicated UID per bot"
    else:
        missing["uid"] = "needs root"
    base, why = _cgroup.detect()
    (available if base is not None else missing)["cgroup"] = why
    problem = _run_launcher({"netns": True, "pidns": True})
    how = "unshare as root" if root else "unshare in a user namespace"
    for name in ("pidns", "netns"):
        if problem is None:
            available[name] = how
        else:
            missing[name] = f"unshare failed: {problem}"
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as scratch:
        problem = _run_launcher({"mounts": {"scratch": scratch, "size": 1 << 20, "proc": root}, "pidns": True})
    if problem is None:
        available["mntns"] = f"private mount and IPC namespaces ({how}): all read-only, scratch a size-capped tmpfs"
    else:
        missing["mntns"] = f"a private mount namespace failed: {problem}"
    abi = landlock_abi()
    if abi >= 1:
        problem = _run_launcher({"landlock": {"ro": ["/usr"]}})
        if problem is None:
            available["landlock"] = f"Landlock ABI {abi}" + (" (files, TCP, signals)" if abi >= 6 else "")
        else:
            missing["landlock"] = problem
    else:
        missing["landlock"] = "the kernel offers no Landlock"
    try:
        problem = _run_launcher({"seccomp": _seccomp_program()})
    except _NoSeccomp as exc:
        problem = str(exc)
    if problem is None:
        available["seccomp"] = "seccomp deny-list via pyseccomp (network sockets, io_uring, namespaces, ptrace...)"
    else:
        missing["seccomp"] = problem
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        missing["bwrap"] = "bubblewrap is not installed (apt-get install bubblewrap)"
    else:
        shape = ["--unshare-pid", "--unshare-net"] if root else ["--unshare-all"]
        args = [bwrap, *shape, "--die-with-parent", "--ro-bind", "/", "/"]
        dropped = {"uid": 65534, "gid": 65534, "setpriv": shutil.which("setpriv") or "setpriv"} if root else {}
        problem = _run_launcher({"bwrap": args, **dropped})
        if problem is None:
            available["bwrap"] = f"bubblewrap ({bwrap})"
        else:
            missing["bwrap"] = f"bubblewrap does not start here: {problem}"
            bwrap = None
    return Capabilities(root, available, missing, base, bwrap, abi)


class _UidLease:
    """A UID held for one bot: an exclusive lock on ``/run/arena-sandbox/uid-N.lock``."""

    def __init__(self, policy: SandboxPolicy) -> None:
        folder = Path("/run/arena-sandbox")
        folder.mkdir(mode=0o700, exist_ok=True)
        start = secrets.randbelow(policy.uid_count)
        for step in range(policy.uid_count):
            uid = policy.uid_base + (start + step) % policy.uid_count
            fd = os.open(folder / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            # Whatever still runs as this UID was left by a jail whose arena died: it must not meet the new bot.
            _kill_uid(uid)
            return
        raise OSError("no free sandbox UID")

    def release(self) -> None:
        os.close(self._fd)


@cache
def _seccomp_program() -> str:
    """The launcher's seccomp filter compiled to BPF (hex), built once; ``""`` with why when it cannot be.

    Compiling it costs tens of milliseconds (``pyseccomp`` loads libseccomp
    and adds each rule); each launcher then only loads the program.
    """
    try:
        compiled = seccomp_filter()
        with tempfile.TemporaryFile() as sink:
            compiled.export_bpf(sink)
            sink.seek(0)
            return str(sink.read().hex())
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        raise _NoSeccomp(f"seccomp asked for but pyseccomp is not usable: {exc}") from None


class _NoSeccomp(OSError):
    """The seccomp filter cannot be built here (no usable ``pyseccomp``)."""


def _reachable_by_others(path: Path) -> bool:
    """Whether a process of another, unprivileged UID could read ``path`` (all folders above it searchable)."""
    try:
        for part in [*reversed(path.parents), path]:
            mode = part.stat().st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                return False
        return bool(path.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


def bot_paths(spec: BotSpec) -> list[Path]:
    """What a bot may read of the organiser's files: its folder, or the files its command line names.

    The JavaScript host shipped with Arena is readable when the command names it.
    """
    host = [HOST_JS] if str(HOST_JS) in spec.command else []
    if spec.from_folder:  # (not whether a bot.toml is there now: a build may have deleted its own)
        return [spec.cwd, *host]
    found = []
    for arg in spec.command:
        candidate = spec.cwd / arg
        if _exists(candidate) and candidate.resolve() != Path("/"):
            found.append(candidate.resolve())
    return found


def layers_for(caps: Capabilities, policy: SandboxPolicy) -> list[str]:
    """The layers a jail gets: those the machine offers and the policy wants."""
    layers = [name for name in ALL_LAYERS if name in caps.available and name in policy.layers]
    if "bwrap" in layers:
        # bubblewrap brings its own namespaces, and Landlock would forbid its mounts.
        layers = [n for n in layers if n not in ("landlock", "pidns", "netns", "mntns")]
    return layers


class Jail:
    """The sandbox around one bot process; build with :meth:`prepare`, then spawn ``argv``."""

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        policy: SandboxPolicy,
        caps: Capabilities,
        *,
        writable: tuple[Path, ...] = (),
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.policy = policy
        self.caps = caps
        self.writable = writable
        """Folders lent to this jail besides scratch (a build's folder); sealed again on :meth:`close`."""
        self.layers = layers_for(caps, policy)
        self.token = secrets.token_hex(8)
        """Names the jail's home (the bot sees it): drawn for each jail, so it tells nothing of the arena process.

        A name that stayed the same for an arena process's life (its pid)
        would tell a server's check, run in the server's process, from its
        ladder matches, run in a worker's.
        """
        self.cgroup: _cgroup.BotCgroup | None = None
        self.background = _background.get()
        """Whether it was made inside :func:`background`."""
        self._lease: _UidLease | None = None
        self.uid: int | None = None
        root = policy.scratch_root or Path(os.environ.get("TMPDIR", "/tmp")) / f"arena-sandbox-{os.geteuid()}"
        root.mkdir(mode=0o711, exist_ok=True)
        sweep_stale(root, caps.cgroup)
        self.home = root / f"{spec.name[:40].replace('/', '_')}-{self.token}"
        self.scratch = self.home / "scratch"
        self.argv: list[str] = []
        self.config: dict[str, Any] = {}
        """What the launcher is told (see ``_launch.main``), whichever launcher runs (``argv[0]``)."""
        self.env: dict[str, str] = {}
        self.cwd = spec.cwd
        self._peak_memory = 0
        self._cpu_seen = 0.0
        self._tree_cpu: _tree.TreeCpu | None = None
        self.pid = 0
        self.lifeline_r = self._lifeline_w = -1
        self._bwrap_data: list[bytes] = []
        self._overlay: dict[str, str] | None = None
        """The contents bubblewrap binds over /proc's counters (see :func:`._masks.bwrap_args`)."""
        self.note = ""
        """Said with a crash: the program the bot ran, when it is not the one the organiser's PATH finds."""

    def prepare(self, env: dict[str, str]) -> None:
        """Make the scratch folder, UID and cgroup, and the launcher's command line."""
        try:
            self._prepare(env)
        except BaseException:
            self.close()
            raise

    def _prepare(self, env: dict[str, str]) -> None:
        self.home.mkdir(mode=0o711)
        owner = os.open(self.home / OWNER_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with open(owner, "w") as file:  # the arena's own: a bot's UID, which could name it, may not read it
            file.write(_owner_stamp(os.getpid()))
        self.scratch.mkdir(mode=0o700)
        if "uid" in self.layers and "bwrap" not in self.layers and not self._command_reachable():
            # Without bubblewrap's fd binds a dedicated UID could not even start this command.
            self.layers.remove("uid")
        if "uid" in self.layers:
            self._lease = _UidLease(self.policy)
            self.uid = self._lease.uid
            os.chown(self.scratch, self.uid, self.uid)
            for lent in self.writable:
                _builds.lend(lent, self.uid)
        cwd, argv, readable = self._stage()
        argv, readable, folder = self._program(argv, readable, env)
        if "bwrap" in self.layers and self.caps.bwrap:
            self._overlay = self._overlay_for(cwd)
        if self._overlay is not None:  # the folder is at /bot: so are the files the command names in it
            argv, folder = [_inside(a, cwd) for a in argv], _inside(folder, cwd)
        profile = PROFILES.get(self.spec.profile, PROFILES["native"])
        memory = self.limits.memory_bytes
        self.env = {
            **env,
            "HOME": str(self.scratch),
            "TMPDIR": str(self.scratch),
            "ARENA_SCRATCH": str(self.scratch),
            "ARENA_SANDBOX": self.token,
        }
        if self.uid is not None or "bwrap" in self.layers:
            self.env["PATH"] = SYSTEM_PATH  # the organiser's PATH may point into private folders
        if folder:
            self.env["PATH"] = f"{folder}:{self.env['PATH']}"  # the bot's children find the same program
        heap_mib = int(memory * profile.heap_share) >> 20
        if profile.name == "java" and heap_mib:
            self.env["JAVA_TOOL_OPTIONS"] = (
                f"-Xmx{heap_mib}m -XX:+UseSerialGC -XX:-UsePerfData -XX:ErrorFile={self.scratch}/hs_err_%p.log"
                f" -Djava.io.tmpdir={self.scratch}"
            )
        elif profile.name == "node" and heap_mib:
            self.env["NODE_OPTIONS"] = f"--max-old-space-size={heap_mib}"
        if "cgroup" in self.layers and self.caps.cgroup is not None:
            # The group's name holds the arena's pid, so that any arena's sweep can tell whether its owner lives;
            # the bot never sees it (its cgroup namespace begins at the group: /proc/self/cgroup says "/").
            self.cgroup = self.caps.cgroup.create(
                group_name(os.getpid(), self.token),
                memory_bytes=memory, tasks=self.limits.processes, background=self.background,
            )  # fmt: skip
        config: dict[str, object] = {
            "argv": argv,
            "cwd": str(cwd),
            "env": self.env,
            "rlimits": self._rlimits(profile),
            "cgroup_procs": self.cgroup.join_files if self.cgroup else [],
            "freezer": self._freezer_config(),
            "uid": self.uid,
            "gid": self.uid,
            "netns": "netns" in self.layers,
            "pidns": "pidns" in self.layers,
            "seccomp": _seccomp_program() if "seccomp" in self.layers else None,
        }
        if "mntns" in self.layers:
            # A /proc of its own needs a PID namespace, or root (then mounted with hidepid).
            proc = "pidns" in self.layers or os.geteuid() == 0
            config["mounts"] = {
                "scratch": str(self.scratch), "size": self.limits.disk_bytes, "proc": proc,
                "writable": [str(folder) for folder in self.writable], **self._counter_masks(),
            }  # fmt: skip
        if "landlock" in self.layers:
            config["landlock"] = {
                "ro": [*_READ_ONLY_SYSTEM, *self._prefixes(), *map(str, readable)],
                "rw": [str(self.scratch), *map(str, self.writable)],
                "dev": list(_DEVICES),
            }
        if "bwrap" in self.layers and self.caps.bwrap:
            if self._overlay is not None:
                config["overlay"] = self._overlay
            config["bwrap"] = self._bwrap_args(cwd, readable)
            config["bwrap_data"] = self._bwrap_data
            config["setpriv"] = shutil.which("setpriv") or "setpriv"
        # The launcher learns of the arena's death by this pipe's end-of-file.
        self.lifeline_r, self._lifeline_w = os.pipe()
        config["lifeline"] = self.lifeline_r
        self.cwd = cwd
        self.config = config
        compiled = _native.launcher() if "bwrap" in config else None
        self.argv = launch_argv(config) if compiled is None else self._native_argv(compiled, config)

    def _native_argv(self, binary: str, config: dict[str, Any]) -> list[str]:
        """The compiled launcher's command line for ``config`` (a jail bubblewrap builds: see ``launch.c``)."""
        argv: list[str] = config["argv"]
        if config["uid"] is not None:
            # As root bubblewrap mounts the bot's view first; the launcher itself, run again inside by a descriptor
            # ("@self": no path of the host in the jail), then drops to the bot's UID as setpriv would, without
            # loading another program (setpriv and its libcap-ng: 2-3 ms of CPU a start).
            argv = ["@self", "--drop", "@self-fd", str(config["uid"]), str(config["gid"]), "--", *argv]
        return _native.command(
            binary, argv=[*config["bwrap"], "--", *argv], env=config["env"], cwd=config["cwd"],
            joins=config["cgroup_procs"], freezer=config["freezer"], lifeline=config["lifeline"],
            rlimits={getattr(resource, name): limit for name, limit in config["rlimits"].items()},
            seccomp=config["seccomp"], data=config.get("bwrap_data", []), overlay=config.get("overlay"),
        )  # fmt: skip

    def _counter_masks(self) -> dict[str, list[Any]]:
        """The launcher's ``masks`` and ``hidden`` (see :mod:`._masks`): its /sys goes too (bubblewrap has none)."""
        masks = self._mask_files()
        hidden = [*_masks.hidden_in_proc(), *_masks.hidden_in_dev(), *(["/sys"] if Path("/sys").is_dir() else [])]
        return {"masks": masks, "hidden": hidden}

    def _freezer_config(self) -> dict[str, str] | None:
        """For the launcher's waiting half: where to leave the bot's freezer, how to thaw the bot as the arena dies."""
        if self.cgroup is None:
            return None
        leave, state = self.cgroup.freezer_leave, self.cgroup.freezer_state()
        if not leave or state is None:
            return None
        return {"leave": leave, "state": state[0], "thawed": state[1]}

    def _program(self, argv: list[str], readable: list[Path], env: dict[str, str]) -> tuple[list[str], list[Path], str]:
        """The command with its program as the organiser's shell finds it, readable in the jail with its installation.

        Returns the command, the readable paths, and the program's folder to
        put first on the jail's ``PATH`` ("" for none). Where the jail could
        not read that installation (a UID of its own without bubblewrap, a
        private home), the system's program runs and :attr:`note` says so.
        """
        confined = {"uid", "bwrap", "landlock"} & set(self.layers)
        head = argv[0] if argv else ""
        if not confined or not head:
            return argv, readable, ""  # the bot reads what the organiser reads, on the organiser's PATH
        if "/" in head:
            program = Path(head) if Path(head).is_absolute() else None  # relative: in the bot's own folder
        else:
            program = find_program(head, env.get("PATH", ""), self.spec.cwd)
        if program is None or (is_system(program) and is_system(program.resolve())):
            return argv, readable, ""
        needs = installation(program)
        rustup = program.parent / "rustup"  # rustup's proxies are links to it, or hard links (older rustups)
        hard_linked = program.name != "rustup" and rustup.is_file() and os.path.samefile(program, rustup)
        if hard_linked or not any(program.is_relative_to(p) for p in needs):  # a link, in a folder not in the jail
            target = rustup if hard_linked else program.resolve()
            if target.name == program.name:
                program = target  # the same program by another path: the jail has that one
            else:  # a program of another name (rustup, for rustup's rustc in ~/.cargo/bin), reading its own homes
                why = f"{head} on your PATH is {program}, a link to {target}, which needs more than the jail gives it"
                system = shutil.which(head, path=SYSTEM_PATH) if "/" not in head else None
                if system is not None:
                    self.note = f"the system's {system} ran: {why}"
                    return [system, *argv[1:]], readable, ""
                self.note = f"{why}: install the system's {head}, or put its own installation first on your PATH"
                return argv, readable, ""
        if self.uid is not None and "bwrap" not in self.layers and not all(map(_reachable_by_others, needs)):
            ran = shutil.which(head, path=SYSTEM_PATH) if "/" not in head else None
            self.note = (
                f"{head} is {ran or 'not found'} in the sandbox: the one your PATH finds, {program}, is in a folder "
                "the bot's own user cannot read (install bubblewrap, make that folder readable, or name another "
                "program in the bot's command)"
            )
            return argv, readable, ""
        folder = str(program.parent) if any(program.parent.is_relative_to(p) for p in needs if p.is_dir()) else ""
        return [str(program), *argv[1:]], [*readable, *(p for p in needs if p not in readable)], folder

    def _command_reachable(self) -> bool:
        head = self.spec.command[0] if self.spec.command else ""
        found = shutil.which(head, path=SYSTEM_PATH) if "/" not in head else str(self.spec.cwd / head)
        return found is not None and _reachable_by_others(Path(found).resolve())

    def _stage(self) -> tuple[Path, list[str], list[Path]]:
        """The bot's working folder, command and readable paths; copied into the jail if its UID could not read them."""
        readable = bot_paths(self.spec)
        argv = list(self.spec.command)
        folder_bot = self.spec.from_folder
        if not folder_bot:
            # A command-line bot is not given the folder it was named from (the organiser's results may be
            # there): its files are named by absolute path and it runs in its scratch folder.
            argv = [_named(self.spec.cwd / a, program=i == 0) if _exists(self.spec.cwd / a) else a
                    for i, a in enumerate(argv)]  # fmt: skip
        cwd = self.spec.cwd if folder_bot else self.scratch
        if self.uid is None or "bwrap" in self.layers:
            return cwd, argv, readable
        # A dedicated UID without bubblewrap reads only what others may: copy in what it could not reach.
        renamed: dict[Path, Path] = {}
        for number, path in enumerate(readable):
            if path in self.writable or _reachable_by_others(path):
                continue
            copy = self.home / "bot" / str(number) / path.name
            copy.parent.mkdir(mode=0o755, parents=True)
            if path.is_dir():
                _builds.copy_folder(path, copy)
            else:
                shutil.copyfile(path, copy)
                copy.chmod(0o755 if os.access(path, os.X_OK) else 0o644)
            renamed[path] = copy
        if not renamed:
            return cwd, argv, readable
        argv = [str(renamed.get(Path(a), a)) for a in argv]
        return renamed.get(cwd, cwd), argv, [renamed.get(p, p) for p in readable]

    def _rlimits(self, profile: Profile) -> dict[str, tuple[int, int]]:
        if "rlimits" not in self.layers:
            return {}
        limits = self.limits
        backstop = int(self.policy.cpu_backstop_s)
        found: dict[str, tuple[int, int]] = {
            "RLIMIT_CORE": (0, 0),
            "RLIMIT_FSIZE": (limits.file_bytes, limits.file_bytes),
            "RLIMIT_NOFILE": (limits.open_files, limits.open_files),
            "RLIMIT_CPU": (backstop, backstop + 5),
        }
        if profile.data_rlimit:
            # The precise limit is the cgroup's OOM killer or the arena's polling (a memory_limit fault);
            # RLIMIT_DATA is a loose per-process backstop against one huge allocation between two polls.
            data = limits.memory_bytes * 2
            found["RLIMIT_DATA"] = (data, data)
        if self.uid is not None:
            found["RLIMIT_NPROC"] = (limits.processes, limits.processes)
        elif os.geteuid() != 0:
            # Counted per UID, shared with the arena and other bots: a bound, not a fair share.
            tasks = _tasks_of_uid(os.getuid()) + limits.processes
            found["RLIMIT_NPROC"] = (tasks, tasks)
        return found

    def _prefixes(self) -> list[str]:
        """The arena's Python installation, for bots run with it (when the bot's UID may read it)."""
        found = sorted({sys.prefix, sys.base_prefix})
        return [p for p in found if self.uid is None or _reachable_by_others(Path(p))]

    def _bwrap_args(self, cwd: Path, readable: list[Path]) -> list[str]:
        """bubblewrap's view: system folders, the arena's Python, the bot's files read-only; scratch a tmpfs.

        Everything is read-only but scratch (a tmpfs of ``disk_bytes``, the
        quota) and the folders lent to the jail: the new root and ``/dev``
        are remounted read-only last, as bubblewrap makes them writable for
        an unprivileged user.
        """
        assert self.caps.bwrap is not None
        args = [self.caps.bwrap, "--die-with-parent", "--new-session"]
        if os.geteuid() == 0:
            # No user namespace: the launcher (setpriv under the Python one) drops to the bot's UID inside, which
            # removes every capability.
            args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        else:
            args += ["--unshare-all", "--cap-drop", "ALL"]
        for top in BWRAP_TOPS:
            if Path(top).is_symlink():
                args += ["--symlink", os.readlink(top), top]
            elif Path(top).is_dir():
                args += ["--ro-bind", top, top]
        binds = [name for name in BWRAP_SYSTEM if Path(name).exists()]
        args += [arg for name in binds for arg in ("--ro-bind", name, name)]
        masks, self._bwrap_data = _masks.bwrap_args(self.limits.memory_bytes)
        args += ["--proc", "/proc", "--dev", "/dev", *masks]
        made = {"/", "/proc", "/dev", *binds}
        mounts = [(name, "--ro-bind") for name in (*sorted({sys.prefix, sys.base_prefix}), *map(str, readable))]
        mounts = [item for item in mounts if Path(item[0]) not in self.writable]
        mounts += [(str(folder), "--bind") for folder in self.writable]
        mounts.append((str(self.scratch), "--tmpfs"))
        for name, how in mounts:
            if not Path(name).exists() or any(name == m or name.startswith(m.rstrip("/") + "/") for m in binds):
                continue
            if self._overlay is not None and name == self._overlay["lower"]:
                args += ["--ro-bind", OVERLAID, BOT_FOLDER]  # the launcher's overlay (or, failing that, the folder)
                binds.append(name)
                continue
            # bubblewrap (as root) makes missing parents 0700: make them searchable for the bot's UID.
            for parent in reversed(Path(name).parents):
                if str(parent) not in made:
                    args += ["--perms", "0755", "--dir", str(parent)]
                    made.add(str(parent))
            if how == "--tmpfs":
                # As root the tmpfs belongs to root: only this jail's processes (one UID) can see it.
                perms = "01777" if os.geteuid() == 0 else "0700"
                args += ["--size", str(self.limits.disk_bytes), "--perms", perms, "--tmpfs", name]
            else:
                args += [how, name, name]
            binds.append(name)
        inside = BOT_FOLDER if self._overlay is not None and str(cwd) == self._overlay["lower"] else str(cwd)
        args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", inside]
        return args

    def _overlay_for(self, cwd: Path) -> dict[str, str] | None:
        """Where the launcher shows a folder bot's folder, as :data:`BOT_FOLDER` (see ``_launch.overlay_folder``).

        Under bubblewrap as root, for a folder bot that writes nothing in its
        folder (not a build): its working folder is then ``/bot`` and
        ``/proc/self/mountinfo`` names no path of the host for it (on a
        server, the data folder, the participant's name and the submission's
        number). ``None`` where it does not apply.
        """
        if os.geteuid() != 0 or self.writable or not self.spec.from_folder or not _overlay_known():
            return None
        at, empty = self.home / "bot", self.home / "layer"
        at.mkdir(mode=0o755)
        empty.mkdir(mode=0o755)
        return {"lower": str(cwd), "empty": str(empty), "at": str(at)}

    def _mask_files(self) -> list[tuple[str, str]]:
        """The constant files over /proc's counters and /dev's terminals, this jail's own (in its home)."""
        return _masks.write_masks(self.home / "masks", self.limits.memory_bytes)

    # --- while the bot runs -------------------------------------------------------------------

    def freezable(self) -> bool:
        """Whether :meth:`set_frozen` can stop every process of the bot (its cgroup has a freezer)."""
        return self.cgroup is not None and self.cgroup.freezable

    def set_frozen(self, frozen: bool) -> bool:
        """Freeze or thaw every process of the bot (see :meth:`BotCgroup.set_frozen`); whether it was done."""
        return self.cgroup is not None and self.cgroup.set_frozen(frozen)

    def cpu_seconds(self) -> float:
        """CPU time of the bot's whole process tree so far (never decreases)."""
        value = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        if value is None and self._tree_cpu is not None:
            value = self._tree_cpu.cpu_s()
        self._cpu_seen = max(self._cpu_seen, value or 0.0)
        return self._cpu_seen

    def memory_bytes(self) -> int:
        """Memory of the bot's tree now: the cgroup's charge, or as :mod:`._tree` counts it (shared memory too)."""
        if self.cgroup is not None:
            value = self.cgroup.memory_bytes()
        else:
            value = _tree.usage(self.pid, scratch=str(self.scratch)).private_bytes if self.pid else 0
        self._peak_memory = max(self._peak_memory, value)
        return value

    def peak_memory_bytes(self) -> int | None:
        """The most memory the bot's tree ever held, where the kernel records it (its cgroup); else ``None``."""
        return self.cgroup.peak_memory_bytes() if self.cgroup is not None else None

    def output_abandoned(self, pipe_inode: int) -> bool:
        """Under bubblewrap, whether no bot process holds this pipe (its stdin or stdout) any more.

        bubblewrap's own processes keep the bot's stdio open, so a bot that
        closes its stdout gives the arena no end-of-file (nor a broken pipe
        for a closed stdin): look in ``/proc``.
        """
        if "bwrap" not in self.layers or not self.pid:
            return False
        target = f"pipe:[{pipe_inode}]"
        holders = bot_processes = 0
        for pid in self._processes_below_launcher():
            try:
                if os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "bwrap":
                    continue
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                return False  # cannot tell: say nothing
            if not fds:
                continue  # exiting: its end-of-file is on the way
            bot_processes += 1
            for fd in fds:
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                        holders += 1
        return bot_processes > 0 and holders == 0  # none yet: still starting

    def measured(self) -> list[Path]:
        """The folders the arena measures against ``disk_bytes``: those lent, and scratch where no tmpfs caps it."""
        capped = "mntns" in self.layers or ("bwrap" in self.layers and self.caps.bwrap is not None)
        return [*self.writable] if capped else [self.scratch, *self.writable]

    def _processes_below_launcher(self) -> list[int]:
        """The jail's processes but the launcher's waiting half: its cgroup's list, else a walk of ``/proc``."""
        if self.cgroup is not None:
            return [pid for pid in self.cgroup.pids() if pid != self.pid]
        return _tree.tree_pids(self.pid)[1:]

    def disk_usage(self, most_entries: int) -> tuple[int, int]:
        """Bytes and entries the :meth:`measured` folders hold now (counting stops past ``most_entries``)."""
        total = entries = 0
        for folder in self.measured():
            used, count = _builds.usage(folder, most_entries - entries)
            total, entries = total + used, entries + count
        return total, entries

    def enforces_memory(self) -> bool:
        """Whether the kernel enforces the memory limit (else the arena's polling does)."""
        return self.cgroup is not None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this bot for exceeding its memory."""
        return self.cgroup is not None and self.cgroup.oom_kills() > 0

    def holds_every_process(self) -> bool:
        """Whether :meth:`kill_all` reaches every process the bot started without knowing their pids.

        So it is with a cgroup and a UID of the bot's own: every process it
        starts is born in the group, and that UID cannot write the group's
        files to move one out (a delegated group the arena's own user owns
        could be left).
        """
        return self.cgroup is not None and self.uid is not None

    def kill_all(self) -> None:
        """SIGKILL every process the bot started, by every handle the jail has."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.uid is not None:
            _kill_uid(self.uid)

    def spawned(self, pid: int) -> None:
        """Tell the jail its launcher runs as ``pid`` (the arena keeps only its end of the lifeline)."""
        self.pid = pid
        self._tree_cpu = _tree.TreeCpu(pid)
        self._close_fd("lifeline_r")

    def _close_fd(self, name: str) -> None:
        fd = getattr(self, name)
        if fd >= 0:
            os.close(fd)
            setattr(self, name, -1)

    def close(self) -> None:
        """Remove the cgroup and scratch folder and give back the UID (after :meth:`kill_all`)."""
        self._close_fd("lifeline_r")
        self._close_fd("_lifeline_w")
        if self.cgroup is not None:
            self.cgroup.remove()
        try:
            for folder in self.writable:
                _builds.seal(folder, self.uid)  # before the UID may go to another bot
        finally:
            _builds.remove_tree(self.home)
            if self._lease is not None:
                self._lease.release()
                self._lease = None


SUPERVISOR_ENV = "ARENA_SUPERVISOR_PID"
"""In the environment of the process the arena starts for a bot (the launcher; the bot itself when it runs bare):
the arena's pid. A jailed bot never sees it (the launcher gives it an environment of its own), nor anything else
that stays the same for an arena process's life: see :func:`started_by`."""


def supervisor_tag() -> dict[str, str]:
    """What the arena adds to the environment of each process it starts for a bot (see :data:`SUPERVISOR_ENV`)."""
    return {SUPERVISOR_ENV: str(os.getpid())}


def started_by(pid: int) -> list[psutil.Process]:
    """The live processes the arena ``pid`` started for its bots, escapees included (for tests and sweeps).

    Those carrying its tag (launchers, bare bots), their descendants (a
    launcher is their subreaper: orphans come back to it), and whatever is
    in a cgroup it made for a jail (a process that left the launcher's tree).
    """
    tagged, group = str(pid), f"/{group_name(pid, '')}"
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if proc.pid == os.getpid():
                continue
            if proc.environ().get(SUPERVISOR_ENV) == tagged:
                found[proc.pid] = proc
                found.update((child.pid, child) for child in proc.children(recursive=True))
            elif group in Path(f"/proc/{proc.pid}/cgroup").read_text():
                found[proc.pid] = proc
    return [proc for proc in found.values() if _alive(proc)]


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


OWNER_FILE = "owner"
"""In a jail's home: the pid and start time of the arena that made it."""
ORPHAN_GROUP_AGE_S = 60.0
"""An empty bot cgroup that no jail home claims is removed once it is this old."""
_swept: set[Path] = set()


def group_name(pid: int, token: str) -> str:
    """The cgroup of a jail named ``token`` that the arena ``pid`` made (see :func:`sweep_stale`)."""
    return f"bot-{pid}x{token}"


def _owner_stamp(pid: int) -> str:
    return f"{pid} {psutil.Process(pid).create_time()}"


def _group_owner_alive(token: str, made: float) -> bool | None:
    """Whether the arena whose pid begins ``token`` (a cgroup made at ``made``) still runs; ``None``: no pid in it.

    A pid reused by a process started after the group was made is not its owner.
    """
    pid, sep, _ = token.partition("x")
    if not sep or not pid.isdigit():
        return None
    try:
        return psutil.Process(int(pid)).create_time() <= made + 1.0
    except (psutil.Error, ValueError):
        return False


def _owner_alive(home: Path) -> bool:
    """Whether the arena that made ``home`` still runs (a pid reused since does not count)."""
    try:
        stamp = (home / OWNER_FILE).read_text()
        return stamp == _owner_stamp(int(stamp.split()[0]))
    except (OSError, ValueError, IndexError):
        # No stamp (or an empty one): made by an older arena, or being made right now. Spare it for a while.
        with contextlib.suppress(OSError):
            return time.time() - home.stat().st_mtime < ORPHAN_GROUP_AGE_S
        return False
    except psutil.Error:
        return False


def sweep_stale(root: Path, cgroup: _cgroup.CgroupBase | None) -> None:
    """Remove what arenas killed with ``kill -9`` left: their bots' homes, scratch folders and cgroups.

    Runs once per arena process and scratch root. The bots themselves die with
    their arena (the launcher's lifeline); whatever still runs in a group that
    no live arena claims (a process that lost its launcher too) is killed
    before the group goes. A group's name holds its arena's pid, so the groups
    of live arenas are spared whatever scratch root they use (an arena with
    another ``TMPDIR`` sweeping once killed the bots of every other one).
    """
    if root in _swept:
        return
    _swept.add(root)
    live_tokens = set()
    for home in root.iterdir():
        if not home.is_dir():
            continue
        token = home.name.rsplit("-", 1)[-1]
        if _owner_alive(home):
            live_tokens.add(token)
            continue
        shutil.rmtree(home, ignore_errors=True)
    if cgroup is None:
        return
    stale: dict[str, dict[str, Path]] = {}
    for controller, parent in cgroup.parents.items():
        with contextlib.suppress(OSError):
            groups = [*parent.glob("bot-*"), *(parent / _cgroup.BACKGROUND).glob("bot-*")]
            for group in groups:
                with contextlib.suppress(OSError):
                    token, made = group.name[4:], group.stat().st_mtime
                    owner = _group_owner_alive(token, made)
                    if owner is None:  # named by an older arena: judged by the homes in this root and its age
                        owner = token in live_tokens or time.time() - made <= ORPHAN_GROUP_AGE_S
                    if not owner:
                        stale.setdefault(group.name, {})[controller] = group
    for dirs in stale.values():
        left = _cgroup.BotCgroup(version=cgroup.version, dirs=dirs)
        left.kill_all()
        left.remove()


def _named(path: Path, *, program: bool) -> str:
    """A file a command-line bot's command names, by absolute path: its links resolved (the jail reads their
    targets), but for the program, one inside an installation it belongs to keeps its path (see
    :meth:`Jail._program`): a venv's ``bin/python`` is a link to the Python it was made from, and run by its
    target it would be that Python without the venv's packages."""
    if program:
        plain = path.parent.resolve() / path.name  # (its folders' links resolved, as the kernel would: not "..")
        if any(plain.is_relative_to(p) for p in installation(plain)):
            return str(plain)
    return str(path.resolve())


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; ``False`` for what cannot be a path at all (a long ``-c`` program)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _pids_of_uid(uid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{name}").st_uid == uid:
                    found.append(int(name))
    return found


def _kill_uid(uid: int) -> None:
    """SIGKILL every process running as ``uid`` (a sandbox UID) until none is left."""
    for _ in range(20):
        victims = _pids_of_uid(uid)
        if not victims:
            return
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _tasks_of_uid(uid: int) -> int:
    total = 0
    for pid in _pids_of_uid(uid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{pid}/stat", "rb") as file:
                data = file.read()
            total += int(data[data.rfind(b")") + 2 :].split()[17])
    return total
