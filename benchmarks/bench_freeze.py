"""What freezing a bot whenever no request is pending costs the arena (issue 27, item 12).

Prints, in one run:

1. the bare cost of one freeze and one thaw of a live bot's cgroup (two
   ``pwrite`` calls on descriptors kept open), per pair, over ``--pairs``;
2. reused RPS Poker matches between two small Python bots (``--matches``,
   played one after another through the pool, as a ``--jobs 1`` tournament
   does), with the freezer and without it, in alternating blocks: wall time
   and the arena's own CPU time (user + system of this process) per request,
   and matches per second;
3. the same while a second job (as ``--jobs 2``) plays a reused bot that
   leaves four busy loops running from its start (``tests/hostile/bot.py
   busy_at_start``) against the same quick bot, the issue's tournament:
   frozen, its loops take no CPU between its moves; without the freezer they
   take it from the first job's matches (and the fallback's background
   allowance ends the bot only where its loops run while it is really idle).

Needs root and a cgroup freezer (v1 ``freezer`` or v2 ``cgroup.freeze``).
Usage: ``python benchmarks/bench_freeze.py [--matches N] [--pairs N] [--blocks N]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.bots.spec import BotSpec, resolve  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.sandbox import _cgroup, capabilities  # noqa: E402
from arena.supervisor._pool import BotPool, open_pool  # noqa: E402
from arena.supervisor._process import SpawnOptions, bot_environment, open_bot  # noqa: E402
from arena.supervisor.match import MatchRunner, Seat  # noqa: E402
from arena.supervisor.wires import wire_for  # noqa: E402
from protocol import Limits  # noqa: E402

BOT = ROOT / "sample_bots" / "rps-poker" / "minimal-python"
HOSTILE = ROOT / "tests" / "hostile" / "bot.py"
LIMITS = Limits(startup_s=10.0, move_s=0.5, time_bank_s=1.0, move_wall_s=5.0)


@contextmanager
def freezer(on: bool) -> Iterator[None]:
    """Bots' groups freezable (the arena's default here) or not (as where no freezer is)."""
    real = _cgroup.BotCgroup.set_frozen

    def never(self: _cgroup.BotCgroup, frozen: bool) -> bool:
        return False

    if not on:
        _cgroup.BotCgroup.set_frozen = never  # type: ignore[method-assign]
    try:
        yield
    finally:
        _cgroup.BotCgroup.set_frozen = real  # type: ignore[method-assign]


async def bare_pairs(pairs: int) -> float:
    """Seconds per freeze + thaw of a live bot's group."""
    spec = resolve(str(BOT))
    async with open_bot(spec, SpawnOptions(env=bot_environment(spec), limits=LIMITS)) as bot:
        assert bot.jail is not None and bot.jail.cgroup is not None
        group = bot.jail.cgroup
        started = time.perf_counter()
        for _ in range(pairs):
            group.set_frozen(True)
            group.set_frozen(False)
        return (time.perf_counter() - started) / pairs


async def _play(pool: BotPool, first: BotSpec, other: BotSpec, seeds: range, into: list[int]) -> None:
    """Play ``seeds`` matches of ``first`` against ``other`` (until ``into[2]`` is set); ``into`` adds up requests and
    faults."""
    game = get_game("rps-poker")
    for seed in seeds:
        if into[2]:
            return
        bots = [await pool.acquire(first, LIMITS), await pool.acquire(other, LIMITS)]
        seats = [Seat(bot=b, limits=LIMITS, name=b.spec.name, wire=wire_for("json", game)) for b in bots]
        record = await MatchRunner(game, seed, seats, match_id=f"b{seed}").run()
        into[0] += sum(s.requests for s in record.stats)
        into[1] += len(record.faults)
        for bot in bots:
            pool.release(bot, faulted=bool(record.faults))


async def matches(count: int, first: BotSpec, beside: BotSpec | None) -> tuple[float, float, int, int]:
    """(wall s, arena CPU s, requests, faults) of ``count`` reused matches of ``first`` against the minimal bot.

    With ``beside``, a second job plays it against the minimal bot all along
    (as ``--jobs 2`` would), and only the first job's matches are counted.
    """
    other = dataclasses.replace(resolve(str(BOT)), name="other", reuse=True)
    counted, ignored = [0, 0, 0], [0, 0, 0]
    async with open_pool() as pool:
        for spec in (first, other, *([beside] if beside else [])):
            pool.release(await pool.acquire(spec, LIMITS), faulted=False)
        async with trio.open_nursery() as nursery:
            if beside is not None:
                nursery.start_soon(_play, pool, beside, other, range(10**6), ignored)
            wall, cpu = time.perf_counter(), time.process_time()
            await _play(pool, first, other, range(count), counted)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            ignored[2] = 1  # the second job stops after its match (a cancelled match would keep its bots)
    return wall, cpu, counted[0], counted[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="matches per block (default %(default)s)")
    parser.add_argument("--blocks", type=int, default=3, help="blocks per case, alternating (default %(default)s)")
    parser.add_argument("--pairs", type=int, default=5000, help="freeze + thaw pairs timed (default %(default)s)")
    args = parser.parse_args()
    base = capabilities().cgroup
    if os.geteuid() != 0 or base is None or not base.freezer:
        sys.exit("needs root and a cgroup freezer here (arena sandbox says which)")
    print(f"load average {os.getloadavg()[0]:.1f}; cgroup v{base.version}")
    pair = trio.run(bare_pairs, args.pairs)
    print(f"1. one freeze + one thaw of a live bot's group: {pair * 1e6:.1f} us")
    plain = dataclasses.replace(resolve(str(BOT)), reuse=True)
    busy = BotSpec(
        name="busy", command=(sys.executable, str(HOSTILE), "busy_at_start"), cwd=HOSTILE.parent, profile="python"
    )
    cases = [
        ("2. two quick bots", plain, None),
        ("3. two quick bots, a second job playing four busy loops", plain, dataclasses.replace(busy, reuse=True)),
    ]
    for label, first, beside in cases:
        totals: dict[bool, list[float]] = {True: [0.0] * 5, False: [0.0] * 5}
        for _ in range(args.blocks):
            for on in (True, False):
                with freezer(on):
                    wall, cpu, requests, faults = trio.run(matches, args.matches, first, beside)
                total = totals[on]
                total[0] += wall
                total[1] += cpu
                total[2] += requests
                total[3] += faults
                total[4] += args.matches
        print(f"{label} (load {os.getloadavg()[0]:.1f}):")
        for on in (True, False):
            took, spent, asked, faulted, played = totals[on]
            per = max(asked, 1.0)
            print(
                f"   {'frozen ' if on else 'running'}: {played / took:6.1f} matches/s, {took / per * 1e6:7.0f} us wall "
                f"and {spent / per * 1e6:5.0f} us of arena CPU per request ({asked:.0f} requests, {faulted:.0f} faults)"
            )


if __name__ == "__main__":
    main()
