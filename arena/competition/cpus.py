"""Which CPU each supervisor process of a run keeps to, with its bots (``arena tournament --no-pin`` turns it off).

A match is a ping-pong: the supervisor writes a request, the bot wakes,
answers, the supervisor wakes. When the woken process runs on the CPU of
the one that woke it, a round trip costs a few microseconds; when the
scheduler sends it to another CPU (an idle one: it looks free), the
wakeup crosses CPUs, and in a virtual machine that is an inter-processor
interrupt and a virtual CPU brought out of its halt, each an exit to the
hypervisor. Measured on the 2-CPU KVM guest this was written on: a pipe
ping-pong between two processes took 8-12 us a round trip on one CPU and
85-186 us split over two, and the writer's CPU per round trip rose from 3
to 22-25 us. With two supervisor processes, each with its bots, free to
run anywhere, every chain of wakeups kept crossing CPUs: two runs at once
used 1.65x the CPU a match of one alone, and the second CPU bought
nothing. Each supervisor process and its bots kept to a CPU of their own
(bots inherit their supervisor's mask through fork and exec, and the
sandbox changes no mask), the wakeups stay on the CPU: two runs of 500
matches at once, each kept to a CPU, took 7.8-11.0 s against 11.6-16.5 s
free (load 6-9; ``benchmarks/bench_speed.py`` and docs/performance.md have
the whole runs). Match-playing tools pin for the same reason
(cutechess-cli and fastchess have an affinity option).

Not when a bot starts a fresh process for every match: then a match's
cost is mostly its bots' starts (bubblewrap, the launcher, the bot's
interpreter: tens of milliseconds of CPU each, against a few microseconds
a wakeup), and starts kept to their supervisor's CPU wait for it while the
other CPU idles. Measured on the same machine (60 matches of the five
ports, ``--no-reuse``, idle to load 4, two runs each): ``--jobs 1``
4.72-4.74 s, the default ``--jobs`` (two processes) pinned 6.66-6.82 s,
unpinned 4.37-4.58 s.

Only when a run has one supervisor process per CPU it may use
(:func:`pinning`): the CPUs are those of this process's affinity mask,
which the kernel already narrows to its cgroup's cpuset, so a run never
keeps to a CPU it could not use. With fewer processes than CPUs nothing
is pinned (a single supervisor's bots spread over the CPUs when many
matches think at once).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask, within its cgroup's cpuset), in order; ``[]`` off Linux."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def pinning(processes: int, allowed: Sequence[int], *, enabled: bool = True) -> list[frozenset[int]] | None:
    """The CPU each of ``processes`` supervisor processes keeps to, or ``None`` (no pinning).

    One CPU each, in order, when there are as many processes as ``allowed``
    CPUs and more than one; otherwise ``None``: one process keeps the whole
    mask, and processes fewer or more than the CPUs are left to the
    scheduler (no CPU would be left idle by a guess, nor shared by a pin).
    """
    if not enabled or processes < 2 or processes != len(allowed):
        return None
    return [frozenset({cpu}) for cpu in allowed]


def _threads() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


def pin_process(cpus: frozenset[int]) -> None:
    """Keep every thread of this process, and every process it starts from now, to ``cpus``.

    (``sched_setaffinity`` sets one thread's mask: each of this process's
    threads is set, and those started later inherit the mask of the thread
    that starts them.) A CPU this process may not use is refused by the kernel
    (``OSError``), so nothing is set: the caller's mask stays.
    """
    for thread in _threads():
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(thread, cpus)


@contextlib.contextmanager
def pinned(cpus: frozenset[int] | None) -> Iterator[None]:
    """This process (all its threads) kept to ``cpus`` inside, its mask as before after; ``None``: no change."""
    if cpus is None:
        yield
        return
    before = frozenset(os.sched_getaffinity(0))
    try:
        pin_process(cpus)
    except OSError:  # not allowed (the mask or cpuset changed under us): play unpinned
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            pin_process(before)
