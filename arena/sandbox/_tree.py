"""A bot's process tree read straight from ``/proc``: CPU time, private memory, pids.

Used where no cgroup accounts for the bot. One pass over ``/proc/*/stat``
builds the parent map (the kernel here lacks ``/proc/PID/task/TID/children``);
that costs about a millisecond per hundred processes, so the arena polls it
only a few times a second.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class TreeUsage:
    """CPU seconds (live processes, plus children they reaped) and private bytes of a tree."""

    pids: tuple[int, ...]
    cpu_s: float
    private_bytes: int


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds incl. reaped children) of ``pid``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    # fields[0] is state (field 3 of stat); utime..cstime are fields 14..17.
    ppid = int(fields[1])
    ticks = int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return ppid, ticks / _TICK


def tree_pids(root: int) -> list[int]:
    """``root`` and every live descendant of it."""
    return list(usage(root, with_memory=False).pids)


def usage(root: int, *, with_memory: bool = True) -> TreeUsage:
    """The tree under ``root``, read in one pass over ``/proc``."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        info = _stat(pid)
        if info is not None:
            parents[pid], cpu[pid] = info
    if root not in parents:
        return TreeUsage((), 0.0, 0)
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found = [root]
    for pid in found:
        found.extend(children.get(pid, ()))
    private = 0
    if with_memory:
        for pid in found:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{pid}/statm", "rb") as file:
                    parts = file.read().split()
                private += (int(parts[1]) - int(parts[2])) * _PAGE
    return TreeUsage(tuple(found), sum(cpu[p] for p in found), private)
