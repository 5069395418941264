"""The stage between the arena and a bot: apply the sandbox's layers, then exec the bot.

Run as ``python -I _launch.py CONFIG_JSON``; the arena builds the config in
:mod:`arena.sandbox._plan`. This file imports only the standard library (and
``pyseccomp`` when the seccomp layer is asked for), because it runs in the
forked child before the bot, where importing the arena would cost start-up time.

Order matters: join the cgroups and set rlimits while still privileged, enter
the namespaces (the network and PID namespaces need ``CAP_SYS_ADMIN``: as root
directly, unprivileged inside a fresh user namespace), fork so that the bot is
PID 1 of its namespace (when it dies the kernel kills every process left in
it, ``setsid`` and double forks included), drop to the bot's UID, then apply
Landlock and seccomp (both need ``no_new_privs``) and exec. The parent half
waits for the bot and dies with it; the bot dies with the parent
(``PR_SET_PDEATHSIG``), so killing the launcher's process group kills all.

Any failure to apply a layer that was asked for is fatal (exit code 121 and a
message on stderr): a layer that the report says holds must hold.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import select
import signal
import sys
from typing import Any

LAYER_FAILED = 121
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

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

SECCOMP_DENIED_SOCKET_FAMILIES = (2, 10, 17)  # AF_INET, AF_INET6, AF_PACKET
SECCOMP_DENIED_CALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "mount", "umount2", "pivot_root", "swapon", "swapoff", "reboot",
    "kexec_load", "init_module", "finit_module", "delete_module", "unshare", "setns", "userfaultfd",
)  # fmt: skip

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
    """The deny-list filter: IPv4/IPv6/packet sockets, tracing, kernel keyrings, mounts, namespaces."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError) as exc:
        fail(f"seccomp asked for but pyseccomp is not usable: {exc}")
    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    for family in SECCOMP_DENIED_SOCKET_FAMILIES:
        filt.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.EQ, family))
    for name in SECCOMP_DENIED_CALLS:
        filt.add_rule(sc.ERRNO(errno.EPERM), name)
    return filt


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


def fork_watched(config: dict[str, Any]) -> None:
    """Fork; return in the child, which dies with the parent; the parent waits for it and dies like it.

    The arena's ``PR_SET_PDEATHSIG`` would fire when the arena *thread* that
    spawned the launcher exits (trio spawns from worker threads), so the
    death signal is tied to this single-threaded parent instead, and the
    parent watches the arena through the ``lifeline`` pipe's end-of-file.
    """
    # The child may not see its parent (a new PID namespace): a pipe tells it the parent lives.
    alive_r, alive_w = os.pipe()
    child = os.fork()
    if child:
        os.close(alive_r)
        become_init_parent(child, config.get("lifeline"))
    os.close(alive_w)
    if config.get("lifeline") is not None:
        os.close(config["lifeline"])
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    readable, _, _ = select.select([alive_r], [], [], 0)
    if readable:
        os._exit(LAYER_FAILED)  # EOF: the parent already died
    os.close(alive_r)


def become_init_parent(child: int, lifeline: int | None) -> None:
    """The launcher's half after the fork: hold no pipe open, wait, die like the bot did."""
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
    while True:
        try:
            done, status = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            os._exit(LAYER_FAILED)
        if done:
            break
        readable, _, _ = select.select(watched, [], [], 5.0)
        if wake_r in readable:
            os.read(wake_r, 512)
        if lifeline in readable:  # end-of-file: the arena is gone, so is the bot
            os.kill(child, signal.SIGKILL)
            watched = [wake_r]
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def main(config: dict[str, Any]) -> None:
    # Built first, while the launcher can still read everything it needs to import.
    seccomp = seccomp_filter() if config.get("seccomp") else None
    for path in config.get("cgroup_procs", []):
        try:
            with open(path, "w") as file:
                file.write(str(os.getpid()))
        except OSError as exc:
            fail(f"cannot join cgroup {path}", exc.errno)
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
        if seccomp is not None:
            memfd = os.memfd_create("arena-seccomp", 0)
            with os.fdopen(os.dup(memfd), "wb") as sink:
                seccomp.export_bpf(sink)
            os.lseek(memfd, 0, os.SEEK_SET)
            os.set_inheritable(memfd, True)
            bwrap = [*bwrap, "--seccomp", str(memfd)]
        if uid is not None:
            # As root bubblewrap mounts the bot's view first; setpriv then drops to the bot's UID inside.
            argv = [config["setpriv"], f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--", *argv]  # fmt: skip
        fork_watched(config)
        exec_bot([*bwrap, "--", *argv], config)
    flags = (CLONE_NEWNET if config.get("netns") else 0) | (CLONE_NEWPID if config.get("pidns") else 0)
    if flags:
        enter_namespaces(flags, as_user=uid is None and os.getuid() != 0)
    fork_watched(config)
    if uid is not None:
        drop_privileges(uid, gid)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of UID cleared it
    if config.get("landlock") is not None or config.get("seccomp"):
        prctl(PR_SET_NO_NEW_PRIVS, 1)
    if config.get("landlock") is not None:
        apply_landlock(config["landlock"])
    if seccomp is not None:
        seccomp.load()
    exec_bot(argv, config)


def exec_bot(argv: list[str], config: dict[str, Any]) -> None:
    os.chdir(config["cwd"])
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, config["env"])
    except OSError as exc:
        os.write(2, f"arena sandbox: cannot run {argv[0]!r}: {exc.strerror}\n".encode())
        os._exit(127)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
