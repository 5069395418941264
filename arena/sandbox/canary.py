"""The canary bot: tries one breach, named by its first argument, and reports one JSON line.

Run by ``arena sandbox`` (:mod:`arena.checks.sandbox`) inside the sandbox under
test; the arena judges most properties from outside (what reached its socket,
which file appeared, which process survived), the canary only says what it
saw. ``collusion`` is a dialogue: two canaries in two jails, one changing some
shared kernel state on command, the other observing. Standard library only.
"""

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import mmap
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable

_libc = ctypes.CDLL(None, use_errno=True)
SYS_SOCKET, SYS_CLONE, SYS_FUTEX, SYS_IO_URING_SETUP, SYS_IO_URING_ENTER, SYS_CLONE3 = 41, 56, 202, 425, 426, 435


def report(**fields: object) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def _errno_text(what: str) -> str:
    return f"refused: {what}: {os.strerror(ctypes.get_errno())}"


def uring_socket(family: int, kind: int) -> int:
    """A socket made by io_uring (``IORING_OP_SOCKET``), which a seccomp filter on ``socket()`` does not see."""
    params = bytearray(120)
    fd = _libc.syscall(SYS_IO_URING_SETUP, 4, (ctypes.c_char * 120).from_buffer(params))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "io_uring_setup")
    try:
        sq_entries, cq_entries, _, _, _, features = struct.unpack_from("6I", params, 0)
        _sq_head, sq_tail, sq_mask, _, _, _, sq_array = struct.unpack_from("7I", params, 40)
        cq_head, _, cq_mask, _, _, cq_cqes = struct.unpack_from("6I", params, 80)
        shared, rw = mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE
        sq_size, cq_size = sq_array + sq_entries * 4, cq_cqes + cq_entries * 16
        ring = mmap.mmap(fd, max(sq_size, cq_size), flags=shared, prot=rw, offset=0)
        completions = ring if features & 1 else mmap.mmap(fd, cq_size, flags=shared, prot=rw, offset=0x8000000)
        entries = mmap.mmap(fd, sq_entries * 64, flags=shared, prot=rw, offset=0x10000000)
        entries[0:64] = struct.pack("<BBHiQQIIQHHiQQ", 45, 0, 0, family, kind, 0, 0, 0, 7, 0, 0, 0, 0, 0)
        tail = struct.unpack_from("I", ring, sq_tail)[0]
        struct.pack_into("I", ring, sq_array + (tail & struct.unpack_from("I", ring, sq_mask)[0]) * 4, 0)
        struct.pack_into("I", ring, sq_tail, tail + 1)
        if _libc.syscall(SYS_IO_URING_ENTER, fd, 1, 1, 1, None, 0) < 0:
            raise OSError(ctypes.get_errno(), "io_uring_enter")
        head = struct.unpack_from("I", completions, cq_head)[0] & struct.unpack_from("I", completions, cq_mask)[0]
        result = struct.unpack_from("<QiI", completions, cq_cqes + head * 16)[1]
        if result < 0:
            raise OSError(-result, f"IORING_OP_SOCKET: {os.strerror(-result)}")
        return int(result)
    finally:
        os.close(fd)


def network(port: str) -> None:
    """TCP, UDP, a UDP socket made through io_uring, and one asked for with high bits in its family."""
    seen = {}
    target = ("127.0.0.1", int(port))
    try:
        with socket.create_connection(target, timeout=1.0):
            seen["tcp"] = "connected"
    except OSError as exc:
        seen["tcp"] = f"refused: {exc}"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"canary udp", target)
            seen["udp"] = "sent"
    except OSError as exc:
        seen["udp"] = f"refused: {exc}"
    try:
        with socket.socket(fileno=uring_socket(socket.AF_INET, socket.SOCK_DGRAM)) as udp:
            udp.sendto(b"canary io_uring", target)
            seen["io_uring"] = "sent"
    except OSError as exc:
        seen["io_uring"] = f"refused: {exc}"
    fd = _libc.syscall(SYS_SOCKET, ctypes.c_long((1 << 32) | socket.AF_INET), socket.SOCK_DGRAM, 0)
    if fd < 0:
        seen["high_bits"] = _errno_text("socket")
    else:
        try:
            with socket.socket(fileno=fd) as udp:
                udp.sendto(b"canary high bits", target)
                seen["high_bits"] = "sent"
        except OSError as exc:
            seen["high_bits"] = f"refused: {exc}"
    report(**seen)


def kernel_surface() -> None:
    """io_uring at all, and new namespaces through clone (a user namespace gives a full capability set)."""
    seen = {}
    params = bytearray(120)
    fd = _libc.syscall(SYS_IO_URING_SETUP, 4, (ctypes.c_char * 120).from_buffer(params))
    seen["io_uring"] = _errno_text("io_uring_setup") if fd < 0 else "ring made"
    if fd >= 0:
        os.close(fd)
    flags = 0x10000000 | 0x40000000 | signal.SIGCHLD  # CLONE_NEWUSER | CLONE_NEWNET
    child = _libc.syscall(SYS_CLONE, ctypes.c_ulong(flags), None, None, None, None)
    if child == 0:
        os._exit(0)
    seen["clone_namespaces"] = _errno_text("clone") if child < 0 else "user and network namespaces made"
    if child > 0:
        os.waitpid(child, 0)
    args = struct.pack("<11Q", 0x10000000, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, 0)
    child = _libc.syscall(SYS_CLONE3, ctypes.c_char_p(args), ctypes.c_size_t(len(args)))
    if child == 0:
        os._exit(0)
    seen["clone3"] = _errno_text("clone3") if child < 0 else "a user namespace made"
    if child > 0:
        os.waitpid(child, 0)
    report(**seen)


def secret(hex_path: str) -> None:
    # Paths come hex-encoded: a path named on a bot's command line is granted to it.
    try:
        with open(bytes.fromhex(hex_path).decode()) as file:
            report(read=file.read())
    except OSError as exc:
        report(error=str(exc))


def read_data(*hex_paths: str) -> None:
    """Try to list each folder and read each file named (hex-encoded); report what worked, path by path."""
    seen: dict[str, str] = {}
    for hex_path in hex_paths:
        path = bytes.fromhex(hex_path).decode()
        try:
            if os.path.isdir(path):
                seen[path] = f"listed: {len(os.listdir(path))} entries"
            else:
                with open(path, "rb") as file:
                    seen[path] = f"read: {len(file.read(1 << 16))} bytes"
        except OSError as exc:
            seen[path] = f"refused: {exc.strerror}"
    report(**seen)


def write_outside(hex_path: str) -> None:
    try:
        with open(bytes.fromhex(hex_path).decode(), "w") as file:
            file.write("canary")
        report(wrote=True)
    except OSError as exc:
        report(error=str(exc))


def disk_quota(mib: str) -> None:
    """Write ``mib`` MiB into each writable place but scratch, deleting it after; report; then into scratch.

    Two lines: the other places first (a bot measured only in scratch would
    be stopped before it could say), then scratch, in files of 8 MiB.
    """
    places = {"tmp": "/tmp", "dev_shm": "/dev/shm", "var_tmp": "/var/tmp", "run_lock": "/run/lock"}
    report(**{place: _fill(folder, int(mib), keep=False) for place, folder in places.items()})
    report(scratch=_fill(os.environ.get("HOME", "."), int(mib), keep=True))


def _fill(folder: str, mib: int, *, keep: bool) -> dict[str, object]:
    block, written, error, made = b"d" * (1 << 20), 0, "", list[str]()
    try:
        while written < mib << 20:
            path = os.path.join(folder, f"canary-disk-{os.getpid()}-{len(made)}")
            made.append(path)
            with open(path, "wb") as file:
                for _ in range(min(8, mib - (written >> 20))):
                    file.write(block)
                    written += len(block)
    except OSError as exc:
        error = exc.strerror or str(exc)
    for path in made if not keep else []:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return {"mib": written >> 20, "error": error}


def fork_bomb(count: str) -> None:
    children = []
    for _ in range(int(count)):
        try:
            children.append(subprocess.Popen(["sleep", "30"]))
        except OSError:
            break
    report(started=len(children))


def memory_hog(mib: str) -> None:
    chunks = []
    try:
        for _ in range(int(mib) // 16):
            chunks.append(bytearray(16 << 20))
        report(allocated_mib=len(chunks) * 16)
    except MemoryError:
        report(allocated_mib=len(chunks) * 16, error="MemoryError")


def cpu_children(seconds: str) -> None:
    burn = f"import time\nend = time.process_time() + {float(seconds)}\nwhile time.process_time() < end: pass"
    procs = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2)]
    for proc in procs:
        proc.wait()
    report(done=True)


def cpu_idle(count: str) -> None:
    """Report ready, then leave ``count`` busy loops running while no request is pending (as between matches)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(int(count))]
    report(ready=True, loops=len(loops))


_SHARED_CHILD = """
import mmap, sys
mapping = mmap.mmap(-1, {mib} << 20, flags=mmap.MAP_SHARED)
block = b"s" * (1 << 20)
for offset in range(0, len(mapping), len(block)):
    mapping[offset : offset + len(block)] = block
print("ready", flush=True)
sys.stdin.read()
"""


def memory_shared(mib: str) -> None:
    """``mib`` MiB in no process's private pages: ``MAP_SHARED`` anonymous memory in four children; then a memfd.

    Reports what it got, then again two seconds later (still holding it): a
    second report means nothing ended it for the memory it held.
    """
    share = int(mib) // 4
    children = [subprocess.Popen([sys.executable, "-c", _SHARED_CHILD.format(mib=share)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE) for _ in range(4)]  # fmt: skip
    got: dict[str, object] = {"mib": sum(share for c in children if c.stdout is not None and c.stdout.readline())}
    try:
        memfd = os.memfd_create("canary-shared")  # written, never mapped: in no RSS at all
        for _ in range(32):
            os.write(memfd, b"m" * (1 << 20))
        got["memfd_mib"] = 32
    except OSError as exc:
        got["memfd"] = str(exc)
    report(**got)
    time.sleep(2)
    report(**got, still=True)


def escape(token: str) -> None:
    """A setsid double-forked daemon; then the launcher above is killed, if the canary may, to orphan it further."""
    # The pipe's write end closes on exec: its end of file says the daemon has left the group and shows the token
    # (waiting a fixed time instead let a slow machine kill it with the group first, or look before its exec).
    ready, done = os.pipe()
    if os.fork() == 0:
        os.close(ready)
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # as a daemon does: the canary's output then ends with the canary
                os.dup2(null, fd)
            with contextlib.suppress(OSError):
                os.execvp("sleep", ["sleep", "300", token])
            os._exit(127)
        os._exit(0)
    os.close(done)
    while os.read(ready, 1):
        pass
    os.close(ready)
    parent = os.getppid()
    report(daemon=True, parent=parent)
    if parent > 1:
        with contextlib.suppress(OSError):
            os.kill(parent, signal.SIGKILL)
    os._exit(0)  # the arena reads to the end of the output: its end says the launcher is dead (or out of reach)


def stdout_flood(mib: str) -> None:
    block = b"x" * (1 << 20)
    for _ in range(int(mib)):
        sys.stdout.buffer.write(block)
    sys.stdout.flush()


def build(secret_hex: str, outside_hex: str, port: str, token: str) -> None:
    """As a build command: read a secret, write outside, connect, leave a daemon; say what worked (on stdout)."""
    seen: dict[str, str] = {}
    try:
        with open(bytes.fromhex(secret_hex).decode()) as file:
            seen["secret"] = "read: " + file.read()
    except OSError as exc:
        seen["secret"] = f"refused: {exc}"
    try:
        with open(os.path.join(bytes.fromhex(outside_hex).decode(), "built.txt"), "w") as file:
            file.write("canary build")
        seen["write_outside"] = "wrote"
    except OSError as exc:
        seen["write_outside"] = f"refused: {exc}"
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=1.0):
            seen["network"] = "connected"
    except OSError as exc:
        seen["network"] = f"refused: {exc}"
    # The pipe's write end closes on exec: its end of file says the daemon has left the group and shows the token
    # (waiting a fixed time instead let a slow machine kill it with the group first, or look before its exec).
    ready, done = os.pipe()
    if os.fork() == 0:
        os.close(ready)
        os.setsid()
        if os.fork() == 0:
            with contextlib.suppress(OSError):
                os.execvp("sleep", ["sleep", "300", token])
            os._exit(127)
        os._exit(0)
    os.close(done)
    while os.read(ready, 1):
        pass
    os.close(ready)
    print(json.dumps(seen), flush=True)


def build_quota(mib: str) -> None:
    """As a build command: ``fallocate`` files of 4 MiB into ``.arena-build`` up to ``mib`` MiB; say how far it got."""
    got, error = 0, ""
    try:
        while got < int(mib):
            fd = os.open(os.path.join(".arena-build", f"fill-{got}"), os.O_CREAT | os.O_WRONLY, 0o644)
            try:
                os.posix_fallocate(fd, 0, 4 << 20)
            finally:
                os.close(fd)
            got += 4
    except OSError as exc:
        error = exc.strerror or str(exc)
    print(json.dumps({"fallocated_mib": got, "error": error}), flush=True)


# --- collusion: two canaries, one sender (it changes shared state on "set 1" / "set 0"), one observer ---------------

FUTEX_WAIT, FUTEX_WAKE = 0, 1
SYS_CACHESTAT, PAGE = 451, 4096
CACHE_PAGES = 24
"""Pages of the shared file the sender reads into the page cache, or drops, at once (one bit each)."""
SHMEM_MIB, COUNTED_FILES, COUNTED_FORKS = 8, 64, 16
"""What the sender adds to the machine's counters for a 1: MiB in its tmpfs, files held open, processes forked."""


def _field(name: str, at: int = 0) -> Callable[[str], str]:
    """How to read ``name``'s value from a file of ``name value`` lines (``name`` the ``at``-th word)."""

    def pick(text: str) -> str:
        return next(words[at + 1] for words in map(str.split, text.splitlines()) if words[at : at + 1] == [name])

    return pick


COUNTERS = (
    ("meminfo:Shmem", "/proc/meminfo", _field("Shmem:")),
    ("meminfo:MemFree", "/proc/meminfo", _field("MemFree:")),
    ("node_meminfo:Shmem", "/sys/devices/system/node/node0/meminfo", _field("Shmem:", 2)),
    ("loadavg", "/proc/loadavg", lambda text: text.split()[3]),
    ("stat:processes", "/proc/stat", _field("processes")),
    ("file-nr", "/proc/sys/fs/file-nr", lambda text: text.split()[0]),
    ("inode-nr", "/proc/sys/fs/inode-nr", lambda text: text.split()[0]),
    ("vmstat:nr_shmem", "/proc/vmstat", _field("nr_shmem")),
)
"""Counters of the whole machine the sender moves: (name, file, how to pick the value out of it)."""
IN_OPEN, IN_ACCESS = 0x20, 0x1
HELD_PTYS, HELD_EVENTFDS, MADE_PIPES, EXTENT_SEEKS = 8, 16, 64, 200
"""What the sender does for a 1 to what the jail's masks cover (and to two numbers no mask can)."""
TIOCGPTN = 0x80045430
OPEN_ON_A_SHARED_KERNEL = "open:"
"""Begins the name of what the observer reads that no mask closes on a shared kernel (``docs/sandbox/index.md``):
reported, not judged."""


def _proc_fs() -> str:
    """A digest of every file under /proc/fs (the file systems' statistics), or that the jail sees none."""
    digest, files = hashlib.sha256(), 0
    for root, _, names in os.walk("/proc/fs"):
        for name in sorted(names):
            with contextlib.suppress(OSError), open(os.path.join(root, name), "rb") as file:
                digest.update(file.read(1 << 16))
                files += 1
    return f"{files} files, digest {digest.hexdigest()[:16]}" if files else "no file"


def _pty() -> str:
    """The machine's pty count as the jail reads it, and the number of a pty opened now."""
    try:
        with open("/proc/sys/kernel/pty/nr") as file:
            count = file.read().strip() or "empty"
    except OSError as exc:
        count = exc.strerror or "unreadable"
    try:
        fd = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    except OSError as exc:
        return f"count {count}; /dev/ptmx refused: {exc.strerror}"
    try:
        number = struct.unpack("I", fcntl.ioctl(fd, TIOCGPTN, b"\0" * 4))[0]
    finally:
        os.close(fd)
    return f"count {count}; pty number {number}"


def _eventfd_id() -> str:
    """The kernel-wide number of an eventfd made now (``eventfd-id`` in fdinfo, Linux 5.3 on)."""
    fd = os.eventfd(0)
    try:
        with open(f"/proc/self/fdinfo/{fd}") as file:
            return next((line.split()[1] for line in file if line.startswith("eventfd-id:")), "not shown")
    except OSError as exc:
        return f"fdinfo refused: {exc.strerror}"
    finally:
        os.close(fd)


def _pipe_inode() -> int:
    """The inode number of a pipe made now (one counter of the whole machine numbers pipes and sockets)."""
    read, write = os.pipe()
    try:
        return os.fstat(read).st_ino
    finally:
        os.close(read)
        os.close(write)


def _pid1_paths() -> list[str]:
    """Paths of the host in PID 1's command line but the jail's own programs' and this process's command line.

    PID 1 of a jail is bubblewrap (or the bot itself): what its command line
    says besides the bot's own command, any process of the jail reads.
    """
    try:
        with open("/proc/1/cmdline", "rb") as file:
            first = file.read().decode(errors="replace").split("\0")
        with open("/proc/self/cmdline", "rb") as file:
            mine = file.read().decode(errors="replace").split("\0")
    except OSError:
        return []
    if first[-len(mine) :] != mine:
        return []  # not this jail's (no PID namespace of its own): another property says what it sees
    system = ("/usr/", "/bin/", "/sbin/")
    return [word for word in first[: -len(mine)] if "/" in word and not word.startswith(system) and not _own_fd(word)]


def _own_fd(word: str) -> bool:
    """Whether ``word`` names a descriptor of the process that reads it (the launcher run by one): no host path."""
    prefix = "/proc/self/fd/"
    return word.startswith(prefix) and word[len(prefix) :].isdigit()


def _read_masked() -> dict[str, object]:
    return {
        "proc_fs": _proc_fs(),
        "pty": _pty(),
        "pid1_paths": _pid1_paths(),
        f"{OPEN_ON_A_SHARED_KERNEL}eventfd_id": _eventfd_id(),
        f"{OPEN_ON_A_SHARED_KERNEL}pipe_inode": _pipe_inode(),
    }


class _Shared:
    """Kernel state one jail can change and another could observe, each keyed by ``token``."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.files = [f for f in (os.path.abspath(__file__), "/etc/passwd", sys.executable) if os.path.exists(f)]
        self.key = int(token[:7], 16) + 1
        self.held: list[object] = []
        self.counted: list[int] = []
        self.kernel_objects: list[int] = []
        self.mapping = self._map(self.files[0])

    def _map(self, path: str) -> int:
        """The address of a read-only shared mapping of ``path``'s first page (for futexes)."""
        _libc.mmap.restype = ctypes.c_void_p
        _libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, *[ctypes.c_int] * 3, ctypes.c_long]
        fd = os.open(path, os.O_RDONLY)
        address = _libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        os.close(fd)
        return int(address or 0)

    # The sender's side -----------------------------------------------------------------------------------------------

    def set(self, on: bool) -> dict[str, str]:
        for item in self.held:
            if isinstance(item, socket.socket):
                item.close()
            elif isinstance(item, int):
                os.close(item)
        self.held = []
        done: dict[str, str] = {}
        for path in self.files if on else []:
            with open(path, "rb") as file:  # an open and a read: what a watcher of the file would see
                file.read(1)  # (before the locks: closing any file of a process drops its fcntl locks on it)
            for name, lock in (("flock", self._flock), ("fcntl_lock", self._lockf), ("ofd_lock", self._ofd)):
                try:
                    lock(path)
                    done[f"{name}:{path}"] = "held"
                except OSError as exc:
                    done[f"{name}:{path}"] = str(exc)
        self._abstract(on, done)
        self._sysv(on, done)
        self._mqueue(on, done)
        self._files_in_shared_places(on, done)
        self._counters(on, done)
        self._page_cache(on, done)
        self._masked(on, done)
        if on and self.mapping:
            threading.Thread(target=self._futex_wait, daemon=True).start()
        return done

    def _flock(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY)
        self.held.append(fd)
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)

    def _lockf(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY)
        self.held.append(fd)
        fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))

    def _ofd(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY)
        self.held.append(fd)
        fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))  # F_OFD_SETLK

    def _abstract(self, on: bool, done: dict[str, str]) -> None:
        if on:
            try:
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                server.bind(f"\0arena-canary-{self.token}")
                server.listen()
                self.held.append(server)
                done["abstract_socket"] = "bound"
            except OSError as exc:
                done["abstract_socket"] = str(exc)

    def _sysv(self, on: bool, done: dict[str, str]) -> None:
        if on:
            ident = _libc.shmget(self.key, 4096, 0o1666)  # IPC_CREAT | 0666
            done["sysv_shm"] = "made" if ident >= 0 else _errno_text("shmget")
        else:
            ident = _libc.shmget(self.key, 0, 0)
            if ident >= 0:
                _libc.shmctl(ident, 0, None)  # IPC_RMID

    def _mqueue(self, on: bool, done: dict[str, str]) -> None:
        name = f"/arena-canary-{self.token}".encode()
        if on:
            fd = _libc.mq_open(name, os.O_RDONLY | os.O_CREAT, 0o666, None)
            done["mqueue"] = "made" if fd >= 0 else _errno_text("mq_open")
            if fd >= 0:
                os.close(fd)
        else:
            _libc.mq_unlink(name)

    def _files_in_shared_places(self, on: bool, done: dict[str, str]) -> None:
        for folder in ("/tmp", "/dev/shm", "/var/tmp", "/run/lock"):
            path = os.path.join(folder, f"arena-canary-{self.token}")
            if on:
                try:
                    with open(path, "w"):
                        pass
                    done[f"file:{folder}"] = "written"
                except OSError as exc:
                    done[f"file:{folder}"] = str(exc)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)

    def _counters(self, on: bool, done: dict[str, str]) -> None:
        """Move the machine's counters: shared memory (a file in the tmpfs scratch), open files, threads, forks."""
        for fd in self.counted:
            os.close(fd)
        self.counted = []
        path = os.path.join(os.environ.get("HOME", "."), f"canary-shmem-{self.token}")
        if not on:
            with contextlib.suppress(OSError):
                os.unlink(path)
            return
        try:
            with open(path, "wb") as file:
                file.write(b"s" * (SHMEM_MIB << 20))
            done["shmem"] = f"{SHMEM_MIB} MiB written"
        except OSError as exc:
            done["shmem"] = str(exc)
        with contextlib.suppress(OSError):
            self.counted = [os.open(self.files[0], os.O_RDONLY) for _ in range(COUNTED_FILES)]
        for _ in range(COUNTED_FORKS):
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)

    def _page_cache(self, on: bool, done: dict[str, str]) -> None:
        """Read a shared file's pages into the page cache (1), or drop them from it (0)."""
        fd = os.open(self.files[0], os.O_RDONLY)
        try:
            if on:
                for page in self._pages(fd):
                    os.pread(fd, 1, page * PAGE)
                done["page_cache"] = "read"
            else:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError as exc:
            done["page_cache"] = str(exc)
        finally:
            os.close(fd)

    def _masked(self, on: bool, done: dict[str, str]) -> None:
        """What the jail's masks cover (and two kernel-wide numbers no mask can): hold ptys and eventfds for a 1;
        at every command, move ext4's extent statistics (a seek for data asks ext4 where a file's extents are:
        counted, they differ between any two looks) and make pipes."""
        for fd in self.kernel_objects:
            os.close(fd)
        self.kernel_objects = []
        fd = os.open(sys.executable, os.O_RDONLY)
        try:
            for _ in range(EXTENT_SEEKS):
                with contextlib.suppress(OSError):
                    os.lseek(fd, 0, os.SEEK_DATA)
                    os.lseek(fd, 0, os.SEEK_HOLE)
        finally:
            os.close(fd)
        for _ in range(MADE_PIPES):
            for end in os.pipe():
                os.close(end)
        if not on:
            return
        try:
            for _ in range(HELD_PTYS):
                self.kernel_objects.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
            done["pty"] = f"{HELD_PTYS} held"
        except OSError as exc:
            done["pty"] = f"refused: {exc.strerror}"
        for _ in range(HELD_EVENTFDS):
            self.kernel_objects.append(os.eventfd(0))
        done["kernel_objects"] = f"{HELD_EVENTFDS} eventfds held, {MADE_PIPES} pipes made, {EXTENT_SEEKS} seeks"

    @staticmethod
    def _pages(fd: int) -> range:
        """The file's pages but the first (mapped for the futexes: a mapped page stays in the cache)."""
        return range(1, min(os.fstat(fd).st_size // PAGE, 1 + CACHE_PAGES))

    def _futex_wait(self) -> None:
        expected = ctypes.c_uint32.from_address(self.mapping).value
        timeout = struct.pack("qq", 3, 0)
        _libc.syscall(SYS_FUTEX, ctypes.c_void_p(self.mapping), FUTEX_WAIT, expected, ctypes.c_char_p(timeout), 0, 0)

    # The observer's side ---------------------------------------------------------------------------------------------

    def observe(self, watch: int) -> dict[str, object]:
        seen: dict[str, object] = {}
        for path in self.files:
            seen[f"flock:{path}"] = self._conflicts(path, lambda fd: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
            seen[f"fcntl_lock:{path}"] = self._getlk(path, fcntl.F_GETLK)
            seen[f"ofd_lock:{path}"] = self._getlk(path, 36)  # F_OFD_GETLK
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(f"\0arena-canary-{self.token}")
                seen["abstract_socket"] = "connected"
        except OSError as exc:
            seen["abstract_socket"] = exc.errno
        seen["sysv_shm"] = "found" if _libc.shmget(self.key, 0, 0) >= 0 else ctypes.get_errno()
        fd = _libc.mq_open(f"/arena-canary-{self.token}".encode(), os.O_RDONLY, 0, None)
        seen["mqueue"] = "found" if fd >= 0 else ctypes.get_errno()
        if fd >= 0:
            os.close(fd)
        for folder in ("/tmp", "/dev/shm", "/var/tmp", "/run/lock"):
            seen[f"file:{folder}"] = os.path.exists(os.path.join(folder, f"arena-canary-{self.token}"))
        if self.mapping:
            time.sleep(0.1)  # the sender's waiter is in the kernel by now
            seen["futex"] = _libc.syscall(SYS_FUTEX, ctypes.c_void_p(self.mapping), FUTEX_WAKE, 1, None, 0, 0)
        seen.update(self._read_counters())
        seen.update(self._read_page_cache())
        seen.update(_read_masked())
        if watch >= 0:
            try:
                seen["inotify"] = len(os.read(watch, 4096))
            except BlockingIOError:
                seen["inotify"] = 0
        sender = self._find_sender()
        seen["sees_other_process"] = sender is not None
        if sender is not None:
            try:
                os.kill(sender, 0)
                seen["signal_other_process"] = "allowed"
            except OSError as exc:
                seen["signal_other_process"] = exc.errno
        return seen

    @staticmethod
    def _read_counters() -> dict[str, object]:
        """The machine's counters as this jail sees them (an error's text where it cannot)."""
        seen: dict[str, object] = {}
        for key, path, pick in COUNTERS:
            try:
                with open(path) as file:
                    text = file.read()
                seen[key] = pick(text)
            except (OSError, ValueError, IndexError) as exc:
                seen[key] = type(exc).__name__
        info = (ctypes.c_ulong * 16)()
        if _libc.sysinfo(info) == 0:
            seen["sysinfo"] = f"shared {info[6]}, procs {info[10] & 0xFFFF}"
        else:
            seen["sysinfo"] = _errno_text("sysinfo")
        return seen

    def _read_page_cache(self) -> dict[str, object]:
        """Which pages of the shared file are cached, asked without reading them: three ways."""
        seen: dict[str, object] = {}
        fd = os.open(self.files[0], os.O_RDONLY)
        try:
            pages = self._pages(fd)
            bits = ""
            for page in pages:
                try:
                    os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
                    bits += "1"
                except BlockingIOError:
                    bits += "0"
                except OSError as exc:
                    bits = f"refused: {exc.strerror}"
                    break
            seen["page_cache:preadv2_nowait"] = bits
            size = pages.stop * PAGE
            address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            vector = (ctypes.c_ubyte * pages.stop)()
            if _libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector) == 0:
                seen["page_cache:mincore"] = "".join(str(vector[page] & 1) for page in pages)
            else:
                seen["page_cache:mincore"] = _errno_text("mincore")
            _libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))
            span, found = struct.pack("QQ", PAGE, (pages.stop - 1) * PAGE), (ctypes.c_uint64 * 5)()
            if _libc.syscall(SYS_CACHESTAT, fd, ctypes.c_char_p(span), found, 0) == 0:
                seen["page_cache:cachestat"] = found[0]
            else:
                seen["page_cache:cachestat"] = _errno_text("cachestat")
        finally:
            os.close(fd)
        return seen

    @staticmethod
    def _conflicts(path: str, lock: object) -> object:
        fd = os.open(path, os.O_RDONLY)
        try:
            lock(fd)  # type: ignore[operator]
            return "free"
        except OSError as exc:
            return exc.errno
        finally:
            os.close(fd)

    @staticmethod
    def _getlk(path: str, command: int) -> object:
        fd = os.open(path, os.O_RDONLY)
        try:
            answer = fcntl.fcntl(fd, command, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
            return struct.unpack("hhqqi", answer)[0]
        except OSError as exc:
            return exc.errno
        finally:
            os.close(fd)

    def _find_sender(self) -> int | None:
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != os.getpid():
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as file:
                        words = file.read().split(b"\0")
                except OSError:
                    continue
                if b"sender" in words and self.token.encode() in words:
                    return int(name)
        return None

    def watch(self) -> int:
        """An inotify watch on the shared files (the sender opening one shows up as an event), or -1."""
        fd = _libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            return -1
        for path in self.files:
            _libc.inotify_add_watch(fd, path.encode(), IN_OPEN | IN_ACCESS)
        return int(fd)


def collusion(role: str, token: str) -> None:
    """Answer the arena's commands, one JSON line each: ``set 1`` / ``set 0`` (sender), ``observe`` (observer)."""
    shared = _Shared(token)
    watch = shared.watch() if role == "observer" else -1
    report(ready=True, role=role)
    for line in sys.stdin:
        command = line.split()
        if command[:1] == ["set"]:
            report(**shared.set(command[1] == "1"))
        elif command[:1] == ["observe"]:
            report(**shared.observe(watch))
    shared.set(False)


if __name__ == "__main__":
    try:
        globals()[sys.argv[1]](*sys.argv[2:])
    except Exception as exc:  # a refusal the canary did not foresee is still a report
        report(error=f"{type(exc).__name__}: {exc}", errno=getattr(exc, "errno", None) or errno.EIO)
    sys.stdin.read()  # stay alive until the arena is done with us
