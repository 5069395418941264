"""A bot's process tree read straight from ``/proc``: CPU time, memory, pids.

Used where no cgroup accounts for the bot. One pass over ``/proc/*/stat``
builds the parent map (the kernel here lacks ``/proc/PID/task/TID/children``);
that costs about a millisecond per hundred processes, so the arena polls
memory by it only a few times a second. CPU time is read at every request
and answer, so :class:`TreeCpu` reads it incrementally: the stat of the
tree's own processes and of processes new since its last read, with a full
pass at most every :data:`FULL_PASS_S` (a pid the kernel reused is found by it).

Memory counts what a bot can make the machine hold (as a memory cgroup
would): each process's anonymous and shared-memory pages (``RssAnon`` +
``RssShmem`` of ``/proc/PID/status``: ``MAP_SHARED`` anonymous memory,
mapped tmpfs files and memfds), memfds held open but not mapped (their
pages are in no process's RSS), and, given the bot's scratch folder, what
its private tmpfs holds. A region shared by several of the bot's processes
is counted once per process that maps it: stricter than a cgroup, never
less. (PSS would share it out exactly, but ``smaps_rollup`` walks every page:
80 ms for a process mapping 600 MiB, against tens of microseconds here.)
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class TreeUsage:
    """CPU seconds (live processes, plus children they reaped) and memory bytes of a tree (see the module)."""

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


FULL_PASS_S = 0.5
"""Longest a :class:`TreeCpu` goes without reading every process's stat."""


@dataclass
class TreeCpu:
    """CPU seconds of the tree under ``root``, as :func:`usage` counts them, read incrementally.

    A process outside the tree never enters it (orphans are reparented to an
    ancestor of theirs or to init), so between full passes only the tree's
    processes and pids new since the last read are read: a few stat files
    instead of every process's. One case needs the full pass: pids are
    reused (``pid_max`` is 32768 on many machines), so a process the tree
    starts may get the pid of one seen outside it and be skipped until the
    next full pass, at most :data:`FULL_PASS_S` later; its CPU is then
    counted whole (a process's own times are cumulative), only later.
    """

    root: int
    full_pass_s: float = FULL_PASS_S
    _members: set[int] = field(default_factory=set)
    _outside: set[int] = field(default_factory=set)
    _next_full: float = 0.0

    def cpu_s(self) -> float:
        """CPU seconds of the tree's live processes, plus the children they reaped; 0 once ``root`` is gone."""
        live = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        now = time.monotonic()
        full = now >= self._next_full
        if full:
            self._next_full = now + self.full_pass_s
            wanted = live
        else:
            wanted = (self._members & live) | (live - self._members - self._outside)
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for pid in wanted:
            info = _stat(pid)
            if info is not None:
                parents[pid], cpu[pid] = info
        found = _descendants(self.root, parents)
        self._members = set(found)
        self._outside = (self._outside & live if not full else set()) | (parents.keys() - self._members)
        return sum(cpu[p] for p in found)


def _descendants(root: int, parents: dict[int, int]) -> list[int]:
    """``root`` and every pid below it in ``parents`` (pid -> parent pid); empty if ``root`` is not there."""
    if root not in parents:
        return []
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found = [root]
    for pid in found:
        found.extend(children.get(pid, ()))
    return found


def tree_pids(root: int) -> list[int]:
    """``root`` and every live descendant of it."""
    return list(usage(root, with_memory=False).pids)


def usage(root: int, *, with_memory: bool = True, scratch: str = "") -> TreeUsage:
    """The tree under ``root``, read in one pass over ``/proc`` (``scratch``: the bot's folder, maybe a tmpfs)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        info = _stat(pid)
        if info is not None:
            parents[pid], cpu[pid] = info
    found = _descendants(root, parents)
    if not found:
        return TreeUsage((), 0.0, 0)
    memory = 0
    if with_memory:
        memfds: dict[tuple[int, int], int] = {}
        for pid in found:
            memory += _resident(pid)
            memfds.update(_memfds(pid))
        memory += sum(memfds.values()) + (_private_tmpfs(found, scratch) if scratch else 0)
    return TreeUsage(tuple(found), sum(cpu[p] for p in found), memory)


def _resident(pid: int) -> int:
    """Anonymous and shared-memory bytes ``pid`` has resident (file pages, shared libraries, are left out)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            text = file.read()
    except OSError:
        return 0
    total = 0
    for key in (b"RssAnon:", b"RssShmem:"):
        start = text.find(key)
        if start >= 0:
            with contextlib.suppress(ValueError, IndexError):
                total += int(text[start + len(key) :].split(None, 1)[0]) << 10
    return total


def _memfds(pid: int) -> dict[tuple[int, int], int]:
    """The memfds ``pid`` holds open but has not mapped, by (device, inode): their bytes (in no RSS).

    Mapped ones are already in its ``RssShmem``; the maps are read only
    when it holds a memfd at all.
    """
    held: dict[tuple[int, int], int] = {}
    folder = f"/proc/{pid}/fd"
    with contextlib.suppress(OSError):
        for fd in os.listdir(folder):
            with contextlib.suppress(OSError):
                if os.readlink(f"{folder}/{fd}").startswith("/memfd:"):
                    info = os.stat(f"{folder}/{fd}")
                    held[info.st_dev, info.st_ino] = info.st_blocks * 512
    if held:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/maps", "rb") as file:
            mapped = {int(line.split()[4]) for line in file if b"/memfd:" in line}
        held = {key: size for key, size in held.items() if key[1] not in mapped}
    return held


def _private_tmpfs(pids: list[int], scratch: str) -> int:
    """Bytes in the bot's scratch where its jail mounted a tmpfs there (seen through its ``/proc/PID/root``)."""
    try:
        outside = os.stat(scratch).st_dev
    except OSError:
        outside = -1
    for pid in reversed(pids):  # the deepest first: the bot itself, inside every namespace its jail made
        inside = f"/proc/{pid}/root{scratch}"
        with contextlib.suppress(OSError):
            if os.stat(inside).st_dev != outside:
                fs = os.statvfs(inside)
                return (fs.f_blocks - fs.f_bfree) * fs.f_frsize
    return 0
