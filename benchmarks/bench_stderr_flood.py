"""What a bot flooding its stderr costs the arena, and the other matches.

Prints, in one run, per RPS Poker match between two small Python bots that
think ``--think-ms`` per move:

1. the arena's own CPU time (user + system of this process; the bots are
   children and not counted) and the wall time, with two calm bots;
2. the same with one bot whose background thread writes stderr as fast as it
   can for the whole match (past the kept ``stderr_bytes`` the rest is
   dropped);
3. calm matches again, while ``--flooders`` such bots flood in the
   background (processes held open, as a pool holds idle ones): the cost a
   flood puts on the other matches;
4. the flood alone: the arena's CPU per second while those bots flood for
   ``--seconds``, and how many bytes a second it drained from them.

A flood is only as fast as the flooding bot gets CPU, so on a loaded machine
cases 2 and 3 differ little from case 1 whatever the arena does; case 4's
bytes per second say how hard the flood pushed. Ratios are against case 1 of
the same run; the load average is printed beside them.
Usage: ``python benchmarks/bench_stderr_flood.py [--matches N] [--think-ms MS] [--flooders N] [--seconds S]``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena import play_match  # noqa: E402
from arena.bots.spec import BotSpec  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.supervisor._process import open_bot  # noqa: E402
from arena.supervisor.play import spawn_options  # noqa: E402
from protocol import Limits  # noqa: E402

BOT = """
import json, os, sys, threading, time
think = float(sys.argv[1]) / 1000
if sys.argv[2] == "flood":
    block = b"e" * 65536
    def flood():
        while True:
            os.write(2, block)
    threading.Thread(target=flood, daemon=True).start()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "quit":
        break
    if "id" in message:
        time.sleep(think)
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
"""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def matches(specs: tuple[BotSpec, BotSpec], count: int, log_dir: Path) -> tuple[float, float]:
    """(arena CPU seconds, wall seconds) per match, over ``count`` matches."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    for seed in range(count):
        record = await play_match(get_game("rps-poker"), specs, seed=seed, limits=Limits(), log_dir=log_dir)
        assert not record.faults, record.faults
    return (cpu_seconds() - cpu) / count, (time.perf_counter() - wall) / count


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--think-ms", type=float, default=20.0)
    parser.add_argument("--flooders", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bot.py").write_text(BOT)

        def bot(name: str, mode: str) -> BotSpec:
            argv = (sys.executable, str(folder / "bot.py"), str(args.think_ms), mode)
            return BotSpec(name=name, command=argv, cwd=folder, profile="python")

        calm, flood = bot("calm", "calm"), bot("flood", "flood")
        logs = folder / "logs"
        await matches((calm, bot("calm-2", "calm")), 1, logs)  # warm up (imports, sandbox probe)
        base = await matches((calm, bot("calm-2", "calm")), args.matches, logs)
        flooded = await matches((flood, calm), args.matches, logs)
        async with contextlib.AsyncExitStack() as stack:
            flooders = []
            for n in range(args.flooders):
                spec = bot(f"background-{n}", "flood")
                options = spawn_options(spec, Limits(), logs / f"bg{n}.log")
                flooders.append(await stack.enter_async_context(open_bot(spec, options)))
            beside = await matches((calm, bot("calm-2", "calm")), args.matches, logs)
            drained, cpu, wall = sum(f.stats.stderr_dropped for f in flooders), cpu_seconds(), time.perf_counter()
            await trio.sleep(args.seconds)
            alone_cpu = (cpu_seconds() - cpu) / (time.perf_counter() - wall)
            rate = (sum(f.stats.stderr_dropped for f in flooders) - drained) / (time.perf_counter() - wall)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"RPS Poker, {args.matches} matches per case, bots think {args.think_ms:g} ms a move")
    print(f"cores {os.cpu_count()}, load average {load}")
    print(f"{'case':<44} {'arena CPU/match':>16} {'wall/match':>12} {'CPU ratio':>10}")
    for name, (cpu, wall) in (
        ("1. two calm bots", base),
        ("2. one bot floods its stderr", flooded),
        (f"3. calm bots, {args.flooders} floods in the background", beside),
    ):
        print(f"{name:<44} {cpu * 1000:>13.1f} ms {wall * 1000:>9.0f} ms {cpu / base[0]:>9.2f}x")
    print(
        f"4. {args.flooders} floods alone for {args.seconds:g} s: arena CPU {alone_cpu * 1000:.1f} ms per second, "
        f"{rate / 1e6:.0f} MB/s of stderr drained"
    )


if __name__ == "__main__":
    trio.run(main)
