"""Where a sandboxed bot start's wall and CPU time go, phase by phase, against a bare start of the same program.

A start through the arena (``open_bot``: the jail made, the bot started, one
request answered, the bot stopped and reaped, the jail removed) is split in two:

* **The arena's own steps**, timed inside the process (wall clock, and the CPU
  of the thread that ran them: the jail's set-up and removal run in worker
  threads): the jail object (``Jail.__init__``), the UID lease (a lock, and a
  kill of whatever still runs as that UID: a walk of ``/proc``), the staging
  of the bot's files and program, the overlay's folders, bubblewrap's
  arguments (the masks over ``/proc``'s counters written), the cgroup's
  creation, the launcher's command line; at the end the jail's kill (its
  cgroup's and its UID's processes) and its removal (the groups, the home).
* **The chain of programs**, each started alone: ``true``; the launcher as
  the jail runs it (cgroup joins, rlimits, the seccomp program handed to
  bubblewrap, the overlay over the bot's folder, bubblewrap's namespaces and
  mounts, the masks over ``/proc``'s counters, the launcher's drop to the
  bot's UID) running ``true``, then the same with one step left out at a time (the
  difference is that step's cost: a bench's view only, the arena never leaves
  one out); the bot's interpreter doing nothing (``-c pass``), bare and through
  the launcher; then the bot itself (start, one answer, exit), bare and
  through ``open_bot``. One jail is made for the chain's runs (its cgroup
  joined by each). The children's CPU is read from ``RUSAGE_CHILDREN``
  (every process of the chain is waited for by its parent, so the whole
  tree's CPU ends up there).

Each figure is a median of ``--starts`` runs, the kinds interleaved (a, b, c,
a, b, c...) so that a change of load hits all alike; the load average is
printed beside them. Only ratios taken in one run compare.

Usage: ``python benchmarks/bench_jail_start.py [--starts 30] [--bot rps-poker/simple-py]``
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_speed import bare_command, bare_start  # noqa: E402

from arena.bots.spec import resolve  # noqa: E402
from arena.sandbox import _cgroup, _native, _plan  # noqa: E402
from arena.supervisor._process import open_bot  # noqa: E402
from arena.supervisor.play import QUIT_LINE, spawn_options  # noqa: E402
from protocol import Limits, encode  # noqa: E402
from protocol.rps_poker import DraftPick  # noqa: E402

Figures = dict[str, list[tuple[float, float]]]
"""Each phase's (wall, CPU) seconds, one pair a start."""

PHASES: list[tuple[str, Any, str]] = [
    ("jail object (Jail.__init__)", _plan.Jail, "__init__"),
    ("UID lease (lock, kill of the UID's leftovers)", _plan._UidLease, "__init__"),
    ("stage the bot's files, find its program", _plan.Jail, "_stage"),
    ("", _plan.Jail, "_program"),
    ("overlay's folders", _plan.Jail, "_overlay_for"),
    ("bubblewrap's arguments, /proc masks written", _plan.Jail, "_bwrap_args"),
    ("", _plan.Jail, "_counter_masks"),
    ("cgroup created (memory, pids, cpuacct, freezer)", _cgroup.CgroupBase, "create"),
    ("launcher's command line", _plan.Jail, "_native_argv"),
    ("jail prepared in all (Jail.prepare)", _plan.Jail, "prepare"),
    ("jail's kill (cgroup's and UID's processes)", _plan.Jail, "kill_all"),
    ("jail removed (cgroups, home, UID given back)", _plan.Jail, "close"),
]


def _without_masks(config: dict[str, Any]) -> dict[str, object]:
    args, kept = list(config["bwrap"]), []
    while args:
        if args[0] == "--perms" and len(args) > 3 and args[2] == "--ro-bind-data":
            del args[:5]
        elif args[0] == "--perms" and len(args) > 5 and args[2] == "--tmpfs" and args[3] == args[5] != "/":
            del args[:6]
        else:
            kept.append(args.pop(0))
    return {"bwrap": kept, "bwrap_data": []}


def _without_overlay(config: dict[str, Any]) -> dict[str, object]:
    lower = (config.get("overlay") or {}).get("lower", "")
    return {"overlay": None, "bwrap": [lower if a == "@overlaid" else a for a in config["bwrap"]]}


NAMESPACES = ("--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup", "--unshare-cgroup-try")
"""bubblewrap's namespaces beside the mount and PID ones (which its mounts and ``--proc`` need)."""


ABLATIONS: dict[str, Callable[[dict[str, Any]], dict[str, object]]] = {
    "the IPC, network, UTS and cgroup namespaces": lambda config: {
        "bwrap": [a for a in config["bwrap"] if a not in NAMESPACES]
    },
    "the cgroup joins": lambda config: {"cgroup_procs": [], "freezer": None},
    "the drop to the bot's UID": lambda config: {"uid": None},
    "the seccomp program": lambda config: {"seccomp": None},
    "the overlay over the bot's folder": _without_overlay,
    "the masks over /proc's counters": _without_masks,
    "the rlimits": lambda config: {"rlimits": {}},
}
"""Steps of the launcher's chain left out one at a time, to time each (never done by the arena: a bench's view)."""


@contextmanager
def timed_phases(figures: Figures) -> Iterator[None]:
    """Record each phase's wall and thread CPU time in ``figures`` while inside."""
    saved = []
    for label, owner, name in PHASES:
        original = getattr(owner, name)
        key = label or f"{owner.__name__}.{name}"

        def wrapper(*args: Any, __original: Callable[..., Any] = original, __key: str = key, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return __original(*args, **kwargs)
            finally:
                figures[__key].append((time.perf_counter() - wall, time.thread_time() - cpu))

        saved.append((owner, name, original))
        setattr(owner, name, functools.wraps(original)(wrapper))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def with_cpu(run: Callable[[], object]) -> Callable[[], tuple[float, float]]:
    """``run``'s wall seconds and the CPU of this process and every child it waited for meanwhile."""

    def measured() -> tuple[float, float]:
        before, started = children_cpu() + time.process_time(), time.perf_counter()
        run()
        return time.perf_counter() - started, children_cpu() + time.process_time() - before

    return measured


def run_argv(argv: list[str], env: dict[str, str] | None = None, pass_fds: tuple[int, ...] = ()) -> float:
    started = time.perf_counter()
    # check: a chain that failed would time nothing
    subprocess.run(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True,
        env=env, pass_fds=pass_fds, start_new_session=True,
    )  # fmt: skip
    return time.perf_counter() - started


@contextmanager
def jail_chain(folder: Path) -> Iterator[Callable[..., list[str]]]:
    """While inside: the launcher's command line as the jail runs it, for a program given in place of the bot.

    One jail is made for all the runs (its cgroup joined by each, its lifeline
    kept open): what is timed is the chain of programs, not the jail's making.
    """
    spec = resolve(str(folder))
    jail = _plan.Jail(spec, Limits(), _plan.current_policy(), _plan.capabilities())
    jail.prepare({"PATH": "/usr/bin:/bin"})
    binary = _native.launcher()
    assert binary is not None and "bwrap" in jail.config, "no compiled launcher or no bubblewrap here"
    try:

        def argv(program: list[str], without: Callable[[dict[str, Any]], dict[str, object]] | None = None) -> list[str]:
            changed = without(jail.config) if without is not None else {}
            return jail._native_argv(binary, {**jail.config, "argv": program, **changed})

        yield argv
    finally:
        jail.kill_all()
        jail.close()


async def nothing() -> None:
    await trio.lowlevel.checkpoint()


async def through_open_bot(folder: Path, request: bytes) -> None:
    spec = resolve(str(folder))
    async with open_bot(spec, spawn_options(spec, Limits(), None)) as bot:
        await bot.send(request)
        await bot.read_line(output_budget=1 << 30)
        await bot.shutdown(polite=QUIT_LINE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=30, help="starts per kind, the median kept (default %(default)s)")
    parser.add_argument("--bot", default="rps-poker/simple-py", help="an RPS Poker sample bot (default %(default)s)")
    args = parser.parse_args()
    folder = REPO / "sample_bots" / args.bot
    spec = resolve(str(folder))
    request = encode(DraftPick(id=1, round=1, cards=["R3", "P7"]))  # an RPS Poker bot's first request
    bare = bare_command(spec.command, spec.cwd)
    with jail_chain(folder) as chain:
        measure_all(args, folder, spec, request, bare, chain)


def measure_all(
    args: argparse.Namespace,
    folder: Path,
    spec: Any,
    request: bytes,
    bare: list[str],
    chain: Callable[..., list[str]],
) -> None:
    true, idle = ["/bin/true"], [bare[0], "-c", "pass"]
    env = {"PATH": "/usr/bin:/bin"}
    lifeline = int(chain(true)[chain(true).index("-l") + 1])
    phases: Figures = defaultdict(list)
    kinds: dict[str, Callable[[], tuple[float, float]]] = {
        "true": with_cpu(lambda: run_argv(true)),
        "launcher + bubblewrap + the drop running true": with_cpu(
            lambda: run_argv(chain(true), env, pass_fds=(lifeline,))
        ),
        **{
            f"  the same without {what} (the difference: its cost)": with_cpu(
                functools.partial(run_argv, chain(true, without), env, pass_fds=(lifeline,))
            )
            for what, without in ABLATIONS.items()
        },
        f"{Path(bare[0]).name} -c pass, bare": with_cpu(lambda: run_argv(idle, env)),
        f"{Path(bare[0]).name} -c pass, through the launcher": with_cpu(
            lambda: run_argv(chain(idle), env, pass_fds=(lifeline,))
        ),
        "trio.run of nothing (the bench's own cost below)": with_cpu(lambda: trio.run(nothing)),
        "bot, bare (start, one answer, exit)": with_cpu(lambda: bare_start(bare, spec.cwd, request)),
    }

    def boxed() -> None:
        with timed_phases(phases):
            trio.run(through_open_bot, folder, request)

    kinds["bot through open_bot (sandboxed)"] = with_cpu(boxed)
    for measure in kinds.values():
        measure()  # warm caches (page cache, capability probe, the compiled launcher)
    phases.clear()
    taken: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(args.starts):
        for name, measure in kinds.items():
            taken[name].append(measure())
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.starts} starts per kind, medians; {args.bot}")
    print(f"{'':58} {'wall ms':>8} {'CPU ms':>8}")

    def row(name: str, pairs: list[tuple[float, float]], note: str = "") -> tuple[float, float]:
        wall = statistics.median(p[0] for p in pairs)
        cpu = statistics.median(p[1] for p in pairs)
        print(f"{name[:58]:58} {wall * 1e3:8.2f} {cpu * 1e3:8.2f}{note}")
        return wall, cpu

    print("The chain of programs:")
    figures = {name: row(f"  {name}", pairs) for name, pairs in taken.items()}
    bare_wall, bare_cpu = figures["bot, bare (start, one answer, exit)"]
    boxed_wall, boxed_cpu = figures["bot through open_bot (sandboxed)"]
    print(
        f"  sandboxed / bare: {boxed_wall / bare_wall:.2f}x wall, {boxed_cpu / bare_cpu:.2f}x CPU"
        f" (+{(boxed_wall - bare_wall) * 1e3:.1f} ms wall, +{(boxed_cpu - bare_cpu) * 1e3:.1f} ms CPU)"
    )
    print("The arena's own steps in the sandboxed start (each start's, in its thread):")
    for name, pairs in phases.items():
        per_start = len(pairs) / args.starts
        row(f"  {name}", pairs, f"  (x{per_start:g} a start)" if per_start != 1 else "")


if __name__ == "__main__":
    main()
