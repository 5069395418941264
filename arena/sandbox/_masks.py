"""The kernel's global counters, shown to a jail as constants: no bot can read what another one sets.

Files of ``/proc`` such as ``meminfo`` (its ``Shmem:`` line grows by what any
process writes to a tmpfs), ``loadavg`` and ``stat`` (every thread and fork
on the machine) or ``sys/fs/file-nr`` (every open file) count what every
process does: a bot that writes 24 MiB to its scratch folder, or holds 100
files open, sets a bit that a bot in another jail reads, at the same time or
later. In the jail's own mount namespace (bubblewrap's, or the launcher's
``mntns`` layer) each such file is covered by a bind of a file with constant
content, and ``/proc/pressure`` (and, outside bubblewrap, ``/sys``, where the
same counters are found per NUMA node and per cgroup) by an empty read-only
folder. The constants are what a runtime looks for: ``meminfo`` says the
bot's memory limit is all the memory there is and is free, ``stat`` lists the
machine's CPUs (glibc counts them there when ``/sys`` is absent) with no time
spent.

:func:`write_masks` writes them into each jail's home; the launcher
(``_launch.make_mounts``) or bubblewrap (``--ro-bind``) puts them in place.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

FAKED = ("meminfo", "stat", "loadavg", "vmstat", "uptime")
"""Files of /proc given constant content of their own format."""
EMPTIED = (
    "diskstats", "interrupts", "softirqs", "schedstat", "zoneinfo", "buddyinfo", "pagetypeinfo", "slabinfo",
    "swaps", "locks", "cgroups", "key-users", "sched_debug", "timer_list", "vmallocinfo",
    "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state", "sys/fs/aio-nr",
    "sys/fs/dquot-nr", "sys/kernel/pty/nr",
)  # fmt: skip
"""Files of /proc shown empty: counters of the whole machine nobody's runtime needs."""
HIDDEN_IN_PROC = ("pressure",)
"""Folders of /proc covered by an empty read-only one (pressure stall figures of the whole machine)."""


def _numbers_zeroed(line: str) -> str:
    return re.sub(r"(?<=\s)\d+(?=\s|$)", "0", line)


def _meminfo(text: str, memory_bytes: int) -> str:
    total = f"{memory_bytes >> 10}"
    out = []
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        unit = " kB" if rest.strip().endswith("kB") else ""
        value = total if key in ("MemTotal", "MemFree", "MemAvailable") else "0"
        if key == "Hugepagesize":
            value = rest.split()[0]  # the machine's constant
        out.append(f"{key + ':':<16}{value:>8}{unit}")
    return "\n".join(out) + "\n"


def _stat(text: str) -> str:
    out = []
    for line in text.splitlines():
        if line.startswith("cpu") or line.startswith("btime "):  # the CPUs and the boot time are constants
            out.append(line if line.startswith("btime ") else _numbers_zeroed(line))
    out += ["intr 0", "ctxt 0", "processes 0", "procs_running 1", "procs_blocked 0", "softirq 0"]
    return "\n".join(out) + "\n"


@cache
def contents(memory_bytes: int, proc: str = "/proc") -> dict[str, bytes]:
    """Path under /proc -> the constant content a jail sees there (a file this machine has: others are skipped)."""
    found: dict[str, bytes] = {}
    for name in (*FAKED, *EMPTIED):
        try:
            text = Path(proc, name).read_text()
        except OSError:
            continue  # absent on this kernel, or unreadable (then so it is in the jail, for the bot's UID)
        if name == "meminfo":
            text = _meminfo(text, memory_bytes)
        elif name == "stat":
            text = _stat(text)
        elif name == "loadavg":
            text = "0.00 0.00 0.00 1/1 1\n"
        elif name == "uptime":
            text = "0.00 0.00\n"
        elif name == "vmstat":
            text = "\n".join(_numbers_zeroed(line) for line in text.splitlines()) + "\n"
        else:
            text = ""
        found[name] = text.encode()
    return found


def hidden_in_proc(proc: str = "/proc") -> list[str]:
    """The folders of /proc covered by an empty one (those this machine has)."""
    return [f"/proc/{name}" for name in HIDDEN_IN_PROC if Path(proc, name).is_dir()]


def write_masks(folder: Path, memory_bytes: int) -> list[tuple[str, str]]:
    """The constant files, written into ``folder`` (made here, in one jail's home); ``(file, /proc path it covers)``.

    Each jail gets files of its own. Files shared by the jails of one arena
    process told a bot which process started it (their folder's name in
    ``/proc/self/mountinfo``, their inode numbers and times), and so a
    server's check, run in the server's process, from its ladder matches,
    run in a worker's. The empty ones are one file, bound over each.
    """
    folder.mkdir(mode=0o755)
    empty = folder / "empty"
    pairs, made = [], set()
    for number, (name, data) in enumerate(contents(memory_bytes).items()):
        path = folder / str(number) if data else empty
        if path not in made:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
            try:
                os.write(fd, data)  # small: one write
            finally:
                os.close(fd)
            made.add(path)
        pairs.append((str(path), f"/proc/{name}"))
    return pairs
