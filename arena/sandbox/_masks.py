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

Under bubblewrap (:func:`bwrap_args`) the contents go to the launcher, which
hands each to bubblewrap in a memfd (``--ro-bind-data``): the file bound is
then bubblewrap's own, on its tmpfs, and ``/proc/self/mountinfo`` names no
folder of the host (a file of the jail's home showed the arena's temporary
folder and the bot's name there); nothing is written per jail. Without
bubblewrap :func:`write_masks` writes them into each jail's home and the
launcher (``_launch.make_mounts``) binds them.
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
HIDDEN_IN_PROC = ("pressure", "fs")
"""Folders of /proc covered by an empty read-only one: pressure stall figures of the whole machine, and the
file systems' own statistics (``/proc/fs/ext4/*/es_shrinker_info`` counts every extent looked up on the disk,
so reading files nobody read lately moved a number another jail read: 23 bits of 24 in an attack round)."""
HIDDEN_IN_DEV = ("/dev/pts",)
"""Folders of /dev covered by an empty read-only one: the pseudo-terminals (and ``/dev/ptmx`` with them, a link
into ``/dev/pts`` under bubblewrap). A bot needs none, and their count is the kernel's: each one opened
anywhere counts against one limit of the whole machine, and where a jail sees the host's ``/dev/pts`` (the
launcher's namespaces) its names and numbers are every terminal of the machine."""
COVERED_IN_DEV = ("/dev/ptmx",)
"""Devices of /dev covered by an empty file where they are the host's own (the launcher's namespaces)."""


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


def hidden_in_dev(dev: str = "/dev") -> list[str]:
    """The folders of /dev covered by an empty one (those this machine has)."""
    return [name for name in HIDDEN_IN_DEV if Path(dev, Path(name).name).is_dir()]


def covered_in_dev(dev: str = "/dev") -> list[str]:
    """The devices of /dev covered by an empty file (those this machine has)."""
    return [name for name in COVERED_IN_DEV if Path(dev, Path(name).name).exists()]


DATA = "@data:"
"""How :func:`bwrap_args` names the n-th content in bubblewrap's arguments (``@data:3``): the launcher puts a
memfd holding it there (``_launch.bwrap_command``)."""


def bwrap_args(memory_bytes: int) -> tuple[list[str], list[bytes]]:
    """bubblewrap's arguments that cover /proc's counters, /proc's folders and /dev's terminals; and the contents.

    Each ``--ro-bind-data`` names its content as ``@data:N`` (N indexes the
    list returned): bubblewrap reads and closes each descriptor, so every
    file has its own.
    """
    args: list[str] = []
    data: list[bytes] = []
    for name, content in contents(memory_bytes).items():
        args += ["--perms", "0444", "--ro-bind-data", f"{DATA}{len(data)}", f"/proc/{name}"]
        data.append(content)
    for folder in [*hidden_in_proc(), *HIDDEN_IN_DEV]:  # bubblewrap's --dev always makes /dev/pts
        args += ["--perms", "0555", "--tmpfs", folder, "--remount-ro", folder]
    return args, data


def write_masks(folder: Path, memory_bytes: int) -> list[tuple[str, str]]:
    """The constant files, written into ``folder`` (made here, in one jail's home); ``(file, /proc path it covers)``.

    Each jail gets files of its own. Files shared by the jails of one arena
    process told a bot which process started it (their folder's name in
    ``/proc/self/mountinfo``, their inode numbers and times), and so a
    server's check, run in the server's process, from its ladder matches,
    run in a worker's. The empty ones are one file, bound over each, and
    over the devices of :func:`covered_in_dev`.
    """
    folder.mkdir(mode=0o755)
    empty = folder / "empty"
    pairs: list[tuple[str, str]] = []
    made = {empty}
    os.close(os.open(empty, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444))
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
    pairs += [(str(empty), device) for device in covered_in_dev()]
    return pairs
