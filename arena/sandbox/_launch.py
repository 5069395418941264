"""The stage between the arena and a bot: apply the sandbox's layers, then exec the bot.

Run as ``python -I -S -c LAUNCH_CODE CONFIG`` (:data:`LAUNCH_CODE`: this module imported from
its cached bytecode, then :func:`run`); the arena builds the config in
:mod:`arena.sandbox._plan`. This file imports only the standard library,
because it runs in the forked child before the bot, where every import costs
start-up time. The seccomp filter comes compiled (the arena builds it once with
``pyseccomp``, :func:`seccomp_filter`): the launcher only loads its BPF program.

Order matters: join the cgroups and set rlimits while still privileged, enter
the namespaces (network, PID, mount and IPC namespaces need ``CAP_SYS_ADMIN``:
as root directly, unprivileged inside a fresh user namespace), fork so that
the bot is PID 1 of its namespace (when it dies the kernel kills every process
left in it, ``setsid`` and double forks included), make its mounts (every
mount read-only, scratch a size-capped tmpfs, a /proc of its own), drop to the
bot's UID, then apply Landlock and seccomp (both need ``no_new_privs``) and
exec. The parent half waits for the bot and dies with it; the bot dies with
the parent (``PR_SET_PDEATHSIG``), so killing the launcher's process group
kills all. The parent half is a child subreaper: whatever the bot's processes
leave orphaned (a daemon; under bubblewrap, bubblewrap's own half when the
other half dies during its set-up) comes back to it, and it kills all of them
before it exits.

Any failure to apply a layer that was asked for is fatal (exit code 121 and a
message on stderr): a layer that the report says holds must hold.
"""

from __future__ import annotations

import _signal as signal  # type: ignore[import-not-found]  # signal.py's enums cost 2-3 ms of CPU per start
import ctypes
import errno
import marshal
import os
import resource
import select
import sys
import warnings  # noqa: F401 (os.execvpe imports it, by then maybe out of Landlock's reach: import it first)

# Each bot's start runs this module: it imports only what it must (json, contextlib and typing took 5 ms of
# CPU per start, of about 50; signal's enum wrappers a third as much: the builtin _signal has the same calls
# on plain numbers), and its config comes in marshal's format, which is built in. It runs from its cached
# bytecode (LAUNCH_CODE): compiling this file took more CPU than any import.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LAYER_FAILED = 121
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NAMESPACES = (CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET)

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18

# Landlock (the syscall numbers are the same on every architecture).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_TRUNCATE = 1 << 14
FS_IOCTL_DEV = 1 << 15
FILE_ONLY = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

SOCKET_FAMILIES_ALLOWED = (1, 16)
"""AF_UNIX and AF_NETLINK: every other socket family (IPv4, IPv6, packet, vsock...) is refused."""
SECCOMP_DENIED_CALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "mount", "umount2", "pivot_root", "swapon", "swapoff", "reboot",
    "kexec_load", "init_module", "finit_module", "delete_module", "unshare", "setns", "userfaultfd",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "pidfd_getfd", "process_madvise", "kcmp", "open_by_handle_at", "name_to_handle_at",
)  # fmt: skip
"""Refused with EPERM: tracing other processes, kernel keyrings, mounts, namespaces, modules."""
SECCOMP_ABSENT_CALLS = (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "clone3",
    "futex_waitv", "futex_wake", "futex_wait", "futex_requeue",
    "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
    "msgget", "msgsnd", "msgrcv", "msgctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
)  # fmt: skip
"""Answered ENOSYS, as by a kernel without them, so runtimes fall back: io_uring (its operations are not
seen by seccomp: a socket made through it escapes the socket rule), clone3 (its flags cannot be inspected:
libc falls back to clone), and every kernel object two jails could share to signal each other (file
notifications, System V IPC, POSIX message queues, the new futex calls)."""
SECCOMP_SHARED_COUNTERS = ("fadvise64", "readahead", "mincore", "cachestat", "sysinfo")
"""Refused with EPERM: the page cache of files every jail reads, dropped (``posix_fadvise``), filled
(``readahead``) or looked at without changing it (``mincore``, ``cachestat``), carried bits between jails;
``sysinfo`` tells the machine's shared memory and thread count (glibc's ``sysconf(_SC_PHYS_PAGES)`` then
gives nonsense; runtimes read /proc/meminfo, which a jail sees constant)."""
SECCOMP_ABSENT_AIO = ("io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents")
"""Linux AIO, answered ENOSYS: its requests carry ``RWF_NOWAIT`` in memory a seccomp filter cannot read."""
SYS_CACHESTAT = 451
RWF_NOWAIT = 0x8
"""``preadv2``/``pwritev2`` flag: fail rather than wait for the disk, which tells whether a page is cached."""
MADV_COLD, MADV_PAGEOUT = 20, 21
"""``madvise`` advice that pushes a file's pages out of the page cache."""
FCNTL_SHARED_STATE = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
"""fcntl commands on state other processes see: record and open-file locks, leases, directory notices."""
FUTEX_SHARED_WAITS = (0, 9, 11)
"""futex WAIT, WAIT_BITSET, WAIT_REQUEUE_PI without FUTEX_PRIVATE_FLAG: answered EAGAIN at once (as if
the word had changed). A waiter on a page of a file every jail maps (libc) could be woken from another
jail; returning at once, it never is. Callers loop on EAGAIN (every futex wait may wake spuriously), so
a shared wait within one bot spins instead of sleeping. Making the *wakes* no-ops instead deadlocked
programs that wake their own shared futexes: libstdc++'s guard of static locals (``__cxa_guard_release``
wakes without the private flag) hung node about one start in twenty."""

_libc = ctypes.CDLL(None, use_errno=True)


def fail(what: str, err: int | None = None) -> None:
    detail = f": {os.strerror(err)}" if err else ""
    os.write(2, f"arena sandbox: {what}{detail}\n".encode())
    os._exit(LAYER_FAILED)


def prctl(option: int, arg: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        fail(f"prctl({option})", ctypes.get_errno())


def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers (0: none)."""
    abi = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(abi), 0)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def apply_landlock(rules: dict[str, Any]) -> None:
    """Allow reading ``ro``, reading and writing ``rw``; deny every other file, TCP, and signals out."""
    abi = landlock_abi()
    if abi < 1:
        fail("Landlock is not available")
    handled = (1 << 13) - 1
    if abi >= 2:
        handled |= 1 << 13  # REFER
    if abi >= 3:
        handled |= FS_TRUNCATE
    if abi >= 5:
        handled |= FS_IOCTL_DEV
    attr = _RulesetAttr(fs=handled, net=0, scoped=0)
    size = 8
    if abi >= 4:
        attr.net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        fail("landlock_create_ruleset", ctypes.get_errno())
    read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
    grants = [(p, read) for p in rules.get("ro", [])] + [(p, handled) for p in rules.get("rw", [])]
    grants += [(p, FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV) for p in rules.get("dev", [])]
    for path, access in grants:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # a path that does not exist grants nothing
        try:
            allowed = access & handled
            if not os.path.isdir(path):
                allowed &= FILE_ONLY
            beneath = _PathBeneath(allowed=allowed, parent_fd=fd)
            if _libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(beneath), 0) != 0:
                fail(f"landlock_add_rule({path})", ctypes.get_errno())
        finally:
            os.close(fd)
    if _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
        fail("landlock_restrict_self", ctypes.get_errno())
    os.close(ruleset)


def seccomp_filter() -> Any:
    """The deny-list filter: network sockets, tracing, keyrings, mounts, namespaces, io_uring, shared kernel objects.

    Locks, leases and directory notices (``flock``, ``fcntl``) and futex
    wake-ups shared with other processes succeed without effect: they then
    carry nothing between jails, and a bot that locks its own files still
    runs. Arguments the kernel reads as 32-bit ``int`` are compared on their
    low 32 bits (or as a whole, refusing any high bit), so setting high bits
    does not slip past a rule.
    """
    import pyseccomp as sc  # type: ignore[import-untyped]  # in the arena only: the launcher gets the program

    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    low_word = 0xFFFFFFFF
    refused = [family for family in range(SOCKET_FAMILIES_ALLOWED[-1]) if family not in SOCKET_FAMILIES_ALLOWED]
    for family in refused:
        filt.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.EQ, family))
    filt.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.GT, SOCKET_FAMILIES_ALLOWED[-1]))
    for name in SECCOMP_DENIED_CALLS:
        filt.add_rule(sc.ERRNO(errno.EPERM), name)
    for name in SECCOMP_ABSENT_CALLS:
        filt.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for flag in CLONE_NAMESPACES:
        filt.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    filt.add_rule(sc.ERRNO(0), "flock")
    for command in FCNTL_SHARED_STATE:
        filt.add_rule(sc.ERRNO(0), "fcntl", sc.Arg(1, sc.MASKED_EQ, low_word, command))
    for operation in FUTEX_SHARED_WAITS:
        filt.add_rule(sc.ERRNO(errno.EAGAIN), "futex", sc.Arg(1, sc.MASKED_EQ, 0xFF, operation))
    deny_shared_counters(filt, sc)
    return filt


def deny_shared_counters(filt: Any, sc: Any) -> None:
    """Refuse what reads or clears the page cache of shared files, and the machine's counters (see above).

    ``preadv2``/``pwritev2`` are refused only with ``RWF_NOWAIT`` in their
    flags (the sixth argument, an ``int``: its low 32 bits are compared).
    """
    for name in SECCOMP_SHARED_COUNTERS:
        try:
            filt.add_rule(sc.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):
            if name != "cachestat":
                raise
            # A libseccomp older than the kernel (cachestat came in Linux 6.5): by its number, the same on
            # every architecture for calls added since Linux 5.1.
            filt.add_rule(sc.ERRNO(errno.EPERM), SYS_CACHESTAT)
    for name in SECCOMP_ABSENT_AIO:
        filt.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for name in ("preadv2", "pwritev2"):
        filt.add_rule(sc.ERRNO(errno.EPERM), name, sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for advice in (MADV_COLD, MADV_PAGEOUT):
        filt.add_rule(sc.ERRNO(errno.EPERM), "madvise", sc.Arg(2, sc.MASKED_EQ, 0xFFFFFFFF, advice))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def load_seccomp(program: bytes) -> None:
    """Install a compiled seccomp filter (BPF, 8 bytes an instruction) on this thread; needs ``no_new_privs``."""
    code = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len=len(program) // 8, filter=ctypes.cast(code, ctypes.c_void_p))
    if _libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog), 0, 0) != 0:
        fail("seccomp filter", ctypes.get_errno())


class _MountAttr(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clear", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]  # fmt: skip


SYS_MOUNT_SETATTR = 442
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    raw = (source.encode(), target.encode(), fstype.encode() if fstype else None, ctypes.c_ulong(flags))
    if _libc.mount(*raw, data.encode() if data else None) != 0:
        fail(f"mount {target}", ctypes.get_errno())


def set_mount(path: bytes, flags: int, attr: _MountAttr) -> None:
    if _libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path, flags, ctypes.byref(attr), ctypes.sizeof(attr)) != 0:
        fail(f"mount_setattr({path.decode()})", ctypes.get_errno())


def make_mounts(spec: dict[str, Any], uid: int, gid: int) -> None:
    """In the jail's own mount namespace: every mount read-only, scratch a tmpfs of ``size``, a /proc of its own.

    The tmpfs is the bot's quota: writes past it fail with ENOSPC (its pages
    count in the memory cgroup too). /tmp, /dev/shm and the rest are
    read-only like everything else, so nothing a bot writes outlives it;
    only ``writable`` folders (a build's) stay writable.
    """
    writable = spec.get("writable", [])
    for folder in writable:
        mount(folder, folder, None, MS_BIND | MS_REC)  # a mount of its own, to be made writable again below
    set_mount(b"/", AT_RECURSIVE, _MountAttr(set=MOUNT_ATTR_RDONLY, propagation=MS_PRIVATE))
    for folder in writable:
        set_mount(folder.encode(), 0, _MountAttr(clear=MOUNT_ATTR_RDONLY))
    options = f"size={spec['size']},mode=0700,uid={uid},gid={gid}"
    mount("tmpfs", spec["scratch"], "tmpfs", MS_NOSUID | MS_NODEV, options)
    if spec.get("proc"):
        # hidepid: without a PID namespace of its own (root only), other UIDs' processes stay out of sight.
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    mask_counters(spec)


def mask_counters(spec: dict[str, Any]) -> None:
    """Cover the kernel's global counters (``_masks.py``): constant files over /proc's, empty folders over the rest.

    A bind keeps the flags of the mount its source is on, which is read-only by now.
    """
    for fake, target in spec.get("masks", []):
        mount(fake, target, None, MS_BIND)
    for folder in spec.get("hidden", []):
        mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4096,mode=0555")


def drop_privileges(uid: int, gid: int) -> None:
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        fail(f"cannot become uid {uid}", exc.errno)


def enter_namespaces(flags: int, as_user: bool) -> None:
    uid, gid = os.getuid(), os.getgid()
    if as_user:
        flags |= CLONE_NEWUSER
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        fail("unshare", ctypes.get_errno())
    if as_user:
        # Map the user to itself: inside, the bot is not root and has no capabilities after exec.
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)


def join(path: str) -> None:
    """Move this process into the cgroup of ``path``: ``0`` to a v1 ``tasks`` file (this single thread), else its pid.

    Moving itself through ``tasks`` spares the kernel's global lock on every
    thread group, whose writer waits out an RCU grace period (6-15 ms a
    hierarchy measured, against 0.1 ms): see ``BotCgroup.join_files``.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, b"0" if path.endswith("/tasks") else str(os.getpid()).encode())
    finally:
        os.close(fd)


def open_freezer_leave(freezer: dict[str, str] | None) -> int | None:
    """The file by which the launcher's waiting half leaves the bot's freezer, opened before any namespace.

    Opened later, in the jail's mount namespace, it would be a writer on one
    of the jail's mounts while the bot's half makes every mount read-only,
    and that remount fails (EBUSY) whenever the two meet.
    """
    if freezer is None:
        return None
    try:
        return os.open(freezer["leave"], os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return None


def fork_watched(config: dict[str, Any], leave: int | None) -> None:
    """Fork; return in the child, which dies with the parent; the parent waits for it and dies like it.

    The arena's ``PR_SET_PDEATHSIG`` would fire when the arena *thread* that
    spawned the launcher exits (trio spawns from worker threads), so the
    death signal is tied to this single-threaded parent instead, and the
    parent watches the arena through the ``lifeline`` pipe's end-of-file.
    """
    # The child may not see its parent (a new PID namespace): a pipe tells it the parent lives.
    alive_r, alive_w = os.pipe()
    prctl(PR_SET_CHILD_SUBREAPER, 1)  # before the fork: orphans of the whole tree come back to the parent
    # This /proc, opened now, stays the parent's view when the child mounts a /proc of its own namespace.
    proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    child = os.fork()
    if child:
        os.close(alive_r)
        become_init_parent(child, config.get("lifeline"), proc, config.get("freezer"), leave)
    os.close(proc)
    if leave is not None:
        os.close(leave)
    os.close(alive_w)
    if config.get("lifeline") is not None:
        os.close(config["lifeline"])
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    readable, _, _ = select.select([alive_r], [], [], 0)
    if readable:
        os._exit(LAYER_FAILED)  # EOF: the parent already died
    os.close(alive_r)


def become_init_parent(
    child: int, lifeline: int | None, proc: int, freezer: dict[str, str] | None, leave: int | None
) -> None:
    """The launcher's half after the fork: hold no pipe open, wait, kill what the bot left, die like the bot did.

    Where the bot's group has a freezer, this half leaves it (the arena
    freezes the bot between requests; ``freezer["leave"]`` is the v1
    freezer's parent group, or a v2 leaf of launchers, opened as ``leave``):
    it must still see the arena die, and thaw the bot then (on v1 a frozen
    task does not die of SIGKILL until thawed).
    """
    try:
        if leave is None:
            raise OSError
        by_tasks = freezer is not None and freezer["leave"].endswith("/tasks")
        os.write(leave, b"0" if by_tasks else str(os.getpid()).encode())
    except OSError:
        freezer = None
    if leave is not None:
        os.close(leave)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    # SIGCHLD wakes the select below at once, so the bot's exit is reported without delay.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    watched = [wake_r] + ([lifeline] if lifeline is not None else [])
    status = None
    while status is None:
        status = reap(child)
        if status is not None:
            break
        readable, _, _ = select.select(watched, [], [], 5.0)
        if wake_r in readable:
            os.read(wake_r, 512)
        if lifeline in readable:  # end-of-file: the arena is gone, so is the bot
            if freezer is not None:
                try:
                    with open(freezer["state"], "w") as file:
                        file.write(freezer["thawed"])
                except OSError:
                    pass
            os.kill(child, signal.SIGKILL)
            watched = [wake_r]
    kill_orphans(proc)
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def reap(child: int) -> int | None:
    """Reap every child that has ended (orphans come here too); ``child``'s wait status once it ended."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found if found is not None else LAYER_FAILED << 8
        if pid == 0:
            return found
        if pid == child:
            found = status


def kill_orphans(proc: int) -> None:
    """SIGKILL and reap every process left to this subreaper, until none is left (``proc``: /proc as we see it)."""
    me = str(os.getpid())
    while True:
        left = []
        for name in os.listdir(proc):
            if name.isdigit():
                try:
                    fd = os.open(f"{name}/stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc)
                    with os.fdopen(fd, "rb") as file:
                        data = file.read()
                except OSError:
                    continue
                if data[data.rfind(b")") + 2 :].split()[1] == me.encode():
                    left.append(int(name))
        if not left:
            return
        for pid in left:
            try:  # noqa: SIM105 (contextlib: an import less)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in left:
            try:  # noqa: SIM105
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def main(config: dict[str, Any]) -> None:
    compiled = config.get("seccomp")  # the filter's BPF program, in hex, or None
    seccomp = bytes.fromhex(compiled) if isinstance(compiled, str) else None
    if seccomp is not None and (not seccomp or len(seccomp) % 8):
        fail("the seccomp program is not whole BPF instructions")
    for path in config.get("cgroup_procs", []):
        try:
            join(path)
        except OSError as exc:
            fail(f"cannot join cgroup {path}", exc.errno)
    leave = open_freezer_leave(config.get("freezer"))
    for name, (soft, hard) in config.get("rlimits", {}).items():
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (OSError, ValueError) as exc:
            fail(f"setrlimit {name}={soft}: {exc}")
    uid: int | None = config.get("uid")
    gid: int = config.get("gid") or 0
    bwrap: list[str] | None = config.get("bwrap")
    argv: list[str] = config["argv"]
    if bwrap is not None:
        if config.get("overlay") is not None:
            source = overlay_folder(config["overlay"])
            bwrap = [source if arg == OVERLAID else arg for arg in bwrap]
        bwrap = bwrap_command(bwrap, config.get("bwrap_data", []), seccomp)
        if uid is not None:
            # As root bubblewrap mounts the bot's view first; setpriv then drops to the bot's UID inside.
            argv = [config["setpriv"], f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--", *argv]  # fmt: skip
        fork_watched(config, leave)
        exec_bot([*bwrap, "--", *argv], config)
    mounts: dict[str, Any] | None = config.get("mounts")
    flags = (CLONE_NEWNET if config.get("netns") else 0) | (CLONE_NEWPID if config.get("pidns") else 0)
    # A cgroup namespace of its own (entered after joining the group): /proc/self/cgroup says "/", not the
    # group's name, which holds the arena's pid.
    flags |= (CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWCGROUP) if mounts is not None else 0
    if flags:
        enter_namespaces(flags, as_user=uid is None and os.getuid() != 0)
    fork_watched(config, leave)
    if mounts is not None:
        make_mounts(mounts, os.getuid() if uid is None else uid, os.getgid() if uid is None else gid)
    if uid is not None:
        drop_privileges(uid, gid)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of UID cleared it
    if config.get("landlock") is not None or seccomp is not None:
        prctl(PR_SET_NO_NEW_PRIVS, 1)
    if config.get("landlock") is not None:
        apply_landlock(config["landlock"])
    if seccomp is not None:
        load_seccomp(seccomp)
    exec_bot(argv, config)


OVERLAID = "@overlaid"
"""In bubblewrap's options: the bot's folder as :func:`overlay_folder` shows it."""
MS_NOSUID_NODEV_RDONLY = MS_NOSUID | MS_NODEV | MS_RDONLY


def overlay_folder(overlay: dict[str, str]) -> str:
    """The bot's folder through an overlay whose options name no path of the host; the folder itself if it fails.

    ``/proc/self/mountinfo`` names the source of a bind by its path in its
    file system (a server's data folder, the participant's name and the
    submission's number, for an upload), and no mount can cover that file
    (one per process). An overlay is a file system of its own, shown from
    its root; its lower layers are given as this process's descriptors, so
    its options read ``lowerdir=/proc/self/fd/N:/proc/self/fd/M``. Mounted
    in a mount namespace of the launcher's own, it goes with the jail.
    """
    if _libc.unshare(ctypes.c_int(CLONE_NEWNS)) != 0:
        return overlay["lower"]
    if _libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None) != 0:
        return overlay["lower"]
    layers = []
    try:
        for name in (overlay["lower"], overlay["empty"]):
            layers.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
        options = "lowerdir=" + ":".join(f"/proc/self/fd/{fd}" for fd in layers)
        flags = ctypes.c_ulong(MS_NOSUID_NODEV_RDONLY)
        if _libc.mount(b"overlay", os.fsencode(overlay["at"]), b"overlay", flags, options.encode()) != 0:
            return overlay["lower"]
    except OSError:
        return overlay["lower"]
    finally:
        for fd in layers:
            os.close(fd)
    return overlay["at"]


def handed(data: bytes, what: str) -> str:
    """A descriptor bubblewrap inherits, holding ``data`` from its start (it reads it, then closes it)."""
    memfd = os.memfd_create("arena-jail", 0)
    if data and os.write(memfd, data) != len(data):
        fail(f"{what} could not be handed to bubblewrap")
    os.lseek(memfd, 0, os.SEEK_SET)
    os.set_inheritable(memfd, True)
    return str(memfd)


def bwrap_command(bwrap: list[str], data: list[bytes], seccomp: bytes | None) -> list[str]:
    """bubblewrap with its options in a descriptor (``--args``): its command line is then only ``bwrap --args N``.

    Under ``--unshare-pid`` bubblewrap is the jail's PID 1, and its command
    line, which any process of the jail reads in ``/proc/1/cmdline``, named
    the jail's home, the bot's folders (a server's data folder and the
    submission's number) and the arena's Python. ``@data:N`` in the options
    becomes a descriptor holding ``data[N]`` (a /proc mask, ``_masks.bwrap_args``).
    """
    options = [handed(data[int(arg[6:])], "a mask") if arg.startswith("@data:") else arg for arg in bwrap[1:]]
    if seccomp is not None:
        options += ["--seccomp", handed(seccomp, "the seccomp program")]
    return [bwrap[0], "--args", handed(b"".join(os.fsencode(arg) + b"\0" for arg in options), "the options")]


def exec_bot(argv: list[str], config: dict[str, Any]) -> None:
    os.chdir(config["cwd"])
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, config["env"])
    except OSError as exc:
        os.write(2, f"arena sandbox: cannot run {argv[0]!r}: {exc.strerror}\n".encode())
        os._exit(127)


def run() -> None:
    """The launcher's entry point: the config is ``sys.argv[1]``, marshal's bytes in hex."""
    main(marshal.loads(bytes.fromhex(sys.argv[1])))


LAUNCH_CODE = "import sys; sys.path.append({folder!r}); import _launch; _launch.run()"
"""What ``python -I -S -c`` runs, ``folder`` this file's: an import finds the bytecode cached in __pycache__
(a script is compiled at every start). Appended to the path, not first: nothing here shadows the standard library."""


if __name__ == "__main__":
    run()
