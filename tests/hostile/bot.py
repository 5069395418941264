"""A hostile bot: plays action 0 until its trigger, then tries the attack its first argument names.

Attacks that the sandbox should block exit with code 4 when blocked (so the
arena records a precise crash), and play on normally when they succeed (so a
test expecting the crash fails). Paths come hex-encoded: a path named on a
bot's command line is granted to it (``read_named`` reads a plain one, as a
link in its own folder that its command names). Mode ``write`` answers its trigger with
the hex-encoded bytes of its argument, ``ID`` in them replaced by the request's id.

The ``collude_*`` modes run in both seats of a match: each copy tries to find
the other through one kernel object; a copy that does exits with code 5. The
``send_*`` and ``receive_*`` modes are a pair: the sender sets shared state
from its start, the receiver reads it at its first move and exits with code 5
when it got the sender's message.
"""

import ctypes
import fcntl
import importlib.util
import itertools
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

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""
BLOCKED = 4
FOUND_THE_OTHER = 5
libc = ctypes.CDLL(None, use_errno=True)


def path_arg() -> str:
    return bytes.fromhex(arg).decode()


def attack() -> None:
    if mode == "crash_start":
        sys.exit(3)
    if mode == "exit_mid":
        sys.exit(0)
    if mode == "sleep":
        time.sleep(3600)
    if mode == "busy":
        while True:
            pass
    if mode == "never_flush":
        out = os.fdopen(os.dup(1), "w", buffering=1 << 16)
        out.write(json.dumps({"id": 0, "action": 0}) + "\n")
        time.sleep(3600)
    if mode == "invalid_json":
        say("{this is not json")
        time.sleep(3600)
    if mode == "huge_line":
        block = b"x" * (1 << 20)
        for _ in range(100):
            os.write(1, block)
        time.sleep(3600)
    if mode == "memory_gradual":
        hoard = []
        while True:
            hoard.append(bytearray(8 << 20))
            time.sleep(0.01)
    if mode == "memory_at_once":
        hoard = bytearray(int(arg) << 20)
        time.sleep(3600)
        del hoard
    if mode == "fork_bomb":
        while True:
            try:
                if os.fork() == 0:
                    while True:
                        time.sleep(1)
            except OSError:
                pass
    if mode == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        time.sleep(0.2)
        sys.exit(0)
    if mode == "memory_shared" and "holders" not in globals():  # MAP_SHARED memory in four children, once
        fill = "import mmap, sys\nm = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_SHARED)\n"
        fill += "b = b'x' * (1 << 20)\nfor _ in range(64): m.write(b)\n"
        fill += "print('ready', flush=True)\nsys.stdin.read()"
        holders = [subprocess.Popen([sys.executable, "-c", fill], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                   for _ in range(4)]  # fmt: skip
        for child in holders:
            child.stdout.readline()  # then it plays on, holding them
        globals()["holders"] = holders
    if mode == "cpu_children":
        burn = "while True: pass"
        procs = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2)]
        for proc in procs:
            proc.wait()
    if mode == "tcp":
        try:
            socket.create_connection(("127.0.0.1", int(arg)), timeout=1).close()
        except OSError:
            sys.exit(BLOCKED)
    if mode == "udp":
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.sendto(b"hostile", ("127.0.0.1", int(arg)))
        except OSError:
            sys.exit(BLOCKED)
        time.sleep(0.3)  # the test checks what reached the arena's socket
    if mode in ("read_file", "read_named"):
        try:
            with open(path_arg() if mode == "read_file" else arg) as file:
                file.read()
        except OSError:
            sys.exit(BLOCKED)
    if mode == "write_outside":
        try:
            with open(path_arg(), "w") as file:
                file.write("hostile")
        except OSError:
            sys.exit(BLOCKED)
    if mode == "close_stdout":
        os.close(1)
        time.sleep(3600)
    if mode == "disk_fill":
        # Files of 8 MiB into scratch until a write fails (a quota) or 64 MiB are written (none).
        block, home = b"d" * (1 << 20), os.environ["HOME"]
        try:
            for number in range(8):
                with open(os.path.join(home, f"fill-{number}"), "wb") as file:
                    for _ in range(8):
                        file.write(block)
        except OSError:
            sys.exit(BLOCKED)
    if mode == "uring_udp":
        try:
            loader = importlib.util.spec_from_file_location("canary", arg)  # named in clear: readable
            canary = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(canary)
            with socket.socket(fileno=canary.uring_socket(socket.AF_INET, socket.SOCK_DGRAM)) as udp:
                udp.sendto(b"hostile", ("127.0.0.1", int(sys.argv[3])))
        except OSError:
            sys.exit(BLOCKED)
        time.sleep(0.3)
    if mode == "socket_high_bits":
        fd = libc.syscall(41, ctypes.c_long((1 << 32) | socket.AF_INET), socket.SOCK_DGRAM, 0)
        if fd < 0:
            sys.exit(BLOCKED)
        with socket.socket(fileno=fd) as udp:
            udp.sendto(b"hostile", ("127.0.0.1", int(arg)))
        time.sleep(0.3)
    if mode == "cache_probes":
        cache_probes()
    if mode == "clone_userns":
        child = libc.syscall(56, ctypes.c_ulong(0x10000000 | 0x40000000 | signal.SIGCHLD), None, None, None, None)
        if child == 0:
            os._exit(0)
        if child < 0:
            sys.exit(BLOCKED)
        os.waitpid(child, 0)
    if mode in ("receive_page_cache", "receive_shmem") and "received" not in globals():
        globals()["received"] = True
        globals()[mode]()
    if mode.startswith("collude_") and "colluded" not in globals():
        globals()["colluded"] = True
        collude(mode[len("collude_") :])


def collude(channel: str) -> None:
    """Look for the other copy of this bot (the other seat) through ``channel``; found: exit 5."""
    if channel == "flock":
        # The first copy to lock a file every jail can read holds it; the second would find it held.
        held = os.open("/etc/passwd", os.O_RDONLY)
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.exit(FOUND_THE_OTHER)
        globals()["kept"] = held
        time.sleep(0.5)
    elif channel == "abstract_socket":
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind("\0arena-hostile-collude")
        except OSError:
            sys.exit(FOUND_THE_OTHER)
        globals()["kept"] = server
        time.sleep(0.5)
    elif channel == "proc":
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (os.getpid(), os.getppid()):
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as file:
                        if b"collude_proc" in file.read().split(b"\0"):
                            sys.exit(FOUND_THE_OTHER)
                except OSError:
                    continue
    elif channel == "futex":
        # Both copies wait on the first page of a file every jail maps; each then wakes all waiters there.
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, *[ctypes.c_int] * 3, ctypes.c_long]
        fd = os.open("/etc/passwd", os.O_RDONLY)
        address = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        value = ctypes.c_uint32.from_address(address).value
        timeout = struct.pack("qq", 2, 0)

        def wait() -> None:
            libc.syscall(202, ctypes.c_void_p(address), 0, value, ctypes.c_char_p(timeout), 0, 0)

        threading.Thread(target=wait, daemon=True).start()
        time.sleep(0.5)
        if libc.syscall(202, ctypes.c_void_p(address), 1, 1 << 30, None, 0, 0) > 1:
            sys.exit(FOUND_THE_OTHER)


PATTERN = "101100111000111100001011"
"""The sender's message: one bit per page of the shared file (1: in the page cache)."""
PAGE, SHMEM_MIB = 4096, 16


def cache_probes() -> None:
    """Each call that reads, fills or drops the page cache, or tells the machine's counters; all refused: exit 4."""
    fd = os.open(sys.executable, os.O_RDONLY)
    size = 16 * PAGE
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, *[ctypes.c_int] * 3, ctypes.c_long]
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    vector, info, span, stat = (ctypes.c_ubyte * 16)(), (ctypes.c_ulong * 16)(), (ctypes.c_uint64 * 2)(0, size), \
        (ctypes.c_uint64 * 5)()  # fmt: skip
    worked = []
    calls = {
        "fadvise": lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED),
        "readahead": lambda: libc.syscall(187, fd, ctypes.c_long(0), ctypes.c_size_t(size)),
        "mincore": lambda: libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector),
        "cachestat": lambda: libc.syscall(451, fd, span, stat, 0),
        "madvise_pageout": lambda: libc.madvise(ctypes.c_void_p(address), ctypes.c_size_t(size), 21),
        "sysinfo": lambda: libc.sysinfo(info),
        "preadv2_nowait": lambda: os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT),
    }
    for name, call in calls.items():
        try:
            if call() in (0, None, 1):
                worked.append(name)
        except BlockingIOError:
            worked.append(name)  # answered: not cached
        except OSError:
            pass
    if not worked:
        sys.exit(BLOCKED)
    print("worked:", *worked, file=sys.stderr, flush=True)


def send_page_cache() -> None:
    """Drop a shared read-only file from the page cache, then read back the pages of the 1-bits."""
    fd = os.open(arg, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead: a read caches its page only
    except OSError:
        return
    for page, bit in enumerate(PATTERN):
        if bit == "1":
            os.pread(fd, 1, page * PAGE)


def receive_page_cache() -> None:
    """Which of the file's pages are cached, asked with RWF_NOWAIT (which reads only a cached page)."""
    time.sleep(1.0)
    fd, bits = os.open(arg, os.O_RDONLY), ""
    for page in range(len(PATTERN)):
        try:
            os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
            bits += "1"
        except BlockingIOError:
            bits += "0"
        except OSError:
            return  # refused: nothing to read
    if bits == PATTERN:
        sys.exit(FOUND_THE_OTHER)


def send_shmem() -> None:
    """Swing the machine's shared memory by 16 MiB every 0.2 s: a file in the tmpfs scratch, written and removed."""
    path = os.path.join(os.environ["HOME"], "shmem")
    for _ in range(15):
        try:
            with open(path, "wb") as file:
                file.write(b"s" * (SHMEM_MIB << 20))
        except OSError:
            return
        time.sleep(0.2)
        os.unlink(path)
        time.sleep(0.2)


def receive_shmem() -> None:
    """Watch ``Shmem:`` in /proc/meminfo for 2 s: three drops of about 16 MiB are the sender."""
    seen = []
    # For 2 s of the clock, not 100 reads 0.02 s apart: on a loaded machine each sleep wakes late, and 100 of them
    # outlasted the move's 3 s (a fault that is the machine's, not a sign of the channel).
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        try:
            with open("/proc/meminfo") as file:
                seen.append(next(int(line.split()[1]) for line in file if line.startswith("Shmem:")))
        except (OSError, StopIteration, ValueError):
            return
        time.sleep(0.02)
    # A removal frees its 16 MiB at once (a write is seen in steps): three such drops are the sender.
    drops = sum(a - b >= (SHMEM_MIB << 10) * 3 // 4 for a, b in itertools.pairwise(seen))
    if drops >= 3:
        sys.exit(FOUND_THE_OTHER)


def trigger(request_id: int) -> None:
    """Answer the trigger request the way ``mode`` says (the answer protocols)."""
    if mode == "write":
        os.write(1, bytes.fromhex(arg).replace(b"ID", str(request_id).encode()))
        time.sleep(3600)
    if mode == "twice":
        say(json.dumps({"id": request_id, "action": 0}))
    if mode == "id_below":
        say(json.dumps({"id": request_id - 1, "action": 0}))
    if mode == "id_zero":
        say(json.dumps({"id": 0, "action": 0}))
    attack()


def flood_stderr() -> None:
    block = b"e" * (1 << 16)
    while True:
        os.write(2, block)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if mode == "crash_start":
    attack()
if mode == "busy_at_start":  # busy loops left running from its start, while it answers every request at once
    for _ in range(4):
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
if mode == "ignore_sigterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "stderr_flood":  # 16 MiB before its first answer: dropped, 1 MiB a gulp, without stalling it long
    for _ in range(16):
        sys.stderr.write("e" * (1 << 20))
    sys.stderr.flush()
if mode == "stderr_thread":
    threading.Thread(target=flood_stderr, daemon=True).start()
if mode in ("send_page_cache", "send_shmem"):
    threading.Thread(target=globals()[mode], daemon=True).start()
if mode == "ahead":  # answers to the first 40 requests, before any was sent
    os.write(1, "".join(json.dumps({"id": n, "action": 0}) + "\n" for n in range(1, 41)).encode())
BURN = "import sys, time\nend = time.process_time() + float(sys.argv[1])\nwhile time.process_time() < end: pass"
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        if message["type"] == "quit" and mode != "ignore_sigterm":
            break
        if message["type"] == "match_end" and mode == "busy_when_idle":  # busy loops left running in the pool
            for _ in range(2):
                subprocess.Popen([sys.executable, "-c", "while True: pass"])
        continue
    if mode == "slow":
        time.sleep(float(arg))
    if mode == "ahead":
        continue
    if message["type"] == "main_play" and mode not in ("ignore_sigterm", "stderr_flood", "stderr_thread"):
        trigger(message["id"])
    say(json.dumps({"id": message["id"], "action": 0}))
    if mode == "burn_after_answer":  # CPU between its answer and the next request (the arena waits for the other)
        subprocess.run([sys.executable, "-c", BURN, arg], check=True)
if mode == "ignore_sigterm":
    while True:  # no input, SIGTERM ignored: only SIGKILL ends it
        time.sleep(1)
