"""How fast tournaments run, and what the arena costs per request.

Prints, in one run:

1. matches per second for a round-robin of the five Python sample bots of RPS
   Poker (duplicate deals), at ``--jobs 1`` and at the CPU count, with and
   without process reuse (no match logs, so the figures are the arena's and
   the bots' own work, not the disk's);
2. the cost of one request: a bare pipe ping-pong with a bot process
   (``subprocess`` + blocking reads) against the arena's path for the same
   bot (trio, bounded line reads, the answer decoder), and the time per
   request inside full matches.

Usage: ``python benchmarks/bench_tournament.py [--cycles N] [--requests N]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.bots.spec import resolve  # noqa: E402
from arena.competition.config import BotEntry, TournamentConfig  # noqa: E402
from arena.competition.plan import open_competition, prepare  # noqa: E402
from arena.competition.runner import run_tournament  # noqa: E402
from arena.competition.store import Store  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.supervisor._process import open_bot  # noqa: E402
from arena.supervisor.play import QUIT_LINE, spawn_options  # noqa: E402
from arena.supervisor.wires import wire_for  # noqa: E402
from protocol import Limits, encode  # noqa: E402
from protocol.rps_poker import DraftPick  # noqa: E402

RPS = REPO / "sample_bots" / "rps-poker"
FIVE = ["basic-odds-py", "minimal-valid-py", "obvious-strats-py", "simple-py", "tsh-py"]
PING_BOT = "simple-py"


def five_bots() -> list[str]:
    found = [name for name in FIVE if (RPS / name / "bot.toml").is_file()]
    if len(found) < 2:  # before the ports existed: the other Python bots
        found = sorted(p.name for p in RPS.iterdir() if p.name.endswith(("-py", "-python")))[:5]
    return found


def tournament_rate(bots: list[str], *, jobs: int, reuse: bool, cycles: int) -> tuple[int, float, int]:
    """(matches, matches per second, processes started) for one fresh round-robin."""
    with tempfile.TemporaryDirectory() as tmp:
        config = TournamentConfig(
            game="rps-poker",
            bots=[BotEntry(text=str(RPS / b)) for b in bots],
            cycles=cycles,
            seed=1,
            db=Path(tmp) / "bench.sqlite",
            logs=False,
        )
        plan = prepare(config)
        with Store.open(config.db) as store:
            competition = open_competition(plan, store)
            started = time.perf_counter()
            summary = trio.run(lambda: run_tournament(plan, store, competition, jobs=jobs, reuse=reuse))
            elapsed = time.perf_counter() - started
    return summary.played, summary.played / elapsed, summary.pool.started


def request_lines(count: int) -> list[bytes]:
    return [encode(DraftPick(id=i + 1, round=1, cards=["R3", "P7"])) for i in range(count)]


def bare_ping_pong(count: int) -> float:
    """Seconds per request: subprocess pipes, blocking write + readline, json.loads of the answer."""
    spec = resolve(str(RPS / PING_BOT))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    process = subprocess.Popen(spec.command, cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert process.stdin is not None and process.stdout is not None
    lines = request_lines(count + 50)
    for line in lines[:50]:  # warm up
        process.stdin.write(line)
        process.stdin.flush()
        process.stdout.readline()
    started = time.perf_counter()
    for line in lines[50:]:
        process.stdin.write(line)
        process.stdin.flush()
        json.loads(process.stdout.readline())
    elapsed = time.perf_counter() - started
    process.stdin.write(QUIT_LINE)
    process.stdin.close()
    process.wait()
    return elapsed / count


async def arena_ping_pong(count: int) -> float:
    """Seconds per request through the arena's own path: open_bot, send, bounded read_line, decode."""
    spec = resolve(str(RPS / PING_BOT))
    limits = Limits()
    wire = wire_for(spec.protocol, get_game("rps-poker"))
    lines = request_lines(count + 50)
    async with open_bot(spec, spawn_options(spec, limits, None)) as bot:
        budget = 1 << 40
        request = DraftPick(id=1, round=1, cards=["R3", "P7"])
        for line in lines[:50]:
            await bot.send(line)
            await bot.read_line(output_budget=budget)
        started = time.perf_counter()
        for line in lines[50:]:
            await bot.send(line)
            with trio.move_on_after(limits.move_wall_s):
                wire.decode(await bot.read_line(output_budget=budget), request)
        elapsed = time.perf_counter() - started
        await bot.shutdown(polite=QUIT_LINE)
    return elapsed / count


def in_match_cost(bots: list[str], cycles: int) -> float:
    """Seconds per request round inside whole matches (jobs 1, reuse): both seats are asked at once."""
    with tempfile.TemporaryDirectory() as tmp:
        config = TournamentConfig(
            game="rps-poker",
            bots=[BotEntry(text=str(RPS / b)) for b in bots[:2]],
            cycles=cycles,
            seed=2,
            db=Path(tmp) / "bench.sqlite",
            logs=False,
        )
        plan = prepare(config)
        with Store.open(config.db) as store:
            competition = open_competition(plan, store)
            trio.run(lambda: run_tournament(plan, store, competition, jobs=1, reuse=True))
            matches = store.matches(competition.id)
    rounds_per_match = 5 + 10  # RPS Poker: five draft picks, ten plays
    return sum(m.duration_s for m in matches) / (len(matches) * rounds_per_match)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2, help="cycles of the round-robin (default %(default)s)")
    parser.add_argument("--requests", type=int, default=2000, help="requests in each ping-pong (default %(default)s)")
    args = parser.parse_args()
    bots = five_bots()
    cpus = os.cpu_count() or 1
    load = os.getloadavg()[0]
    print(f"machine: {machine()}; load average {load:.2f} at start")
    print(f"round-robin of {len(bots)} Python bots ({', '.join(bots)}), duplicate deals, {args.cycles} cycle(s)")
    print(f"{'jobs':>5} {'reuse':>6} {'matches':>8} {'matches/s':>10} {'processes':>10}")
    for jobs in sorted({1, cpus}):
        for reuse in (True, False):
            played, rate, started = tournament_rate(bots, jobs=jobs, reuse=reuse, cycles=args.cycles)
            print(f"{jobs:>5} {'yes' if reuse else 'no':>6} {played:>8} {rate:>10.2f} {started:>10}")
    bare = bare_ping_pong(args.requests)
    arena = trio.run(arena_ping_pong, args.requests)
    per_round = in_match_cost(bots, max(1, args.cycles * 5))
    print(f"per request with {PING_BOT} ({args.requests} requests):")
    print(f"  bare pipe ping-pong (subprocess, blocking)   {bare * 1e6:8.1f} us")
    print(f"  arena path (trio, bounded reads, decoder)    {arena * 1e6:8.1f} us  ({arena / bare:.2f}x)")
    print(f"  inside whole matches, per request round      {per_round * 1e6:8.1f} us  (both seats, logs off)")


if __name__ == "__main__":
    main()
