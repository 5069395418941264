"""The 2021 RPS Poker challenge's format, reproduced with the ports of its five published bots.

The challenge played a round-robin, cycle after cycle, with one bot object per
bot for the whole tournament (so a bot's state carried from match to match),
every match on a fresh deal and the seats alternating; a bot's score was the
total of turns it won. That is::

    python3 -m arena tournament rps-poker \\
        sample_bots/rps-poker/{basic-odds-py,obvious-strats-py,tsh-py,simple-py,minimal-valid-py} \\
        --no-duplicate --cycles 100

``tsh-py`` and ``basic-odds-py`` keep state, like their originals, and say
``reuse = "persistent"``: one process each plays all their matches in
schedule order. This script runs that command (into a temporary database, no
match logs) and prints each bot's total turns won, matches and time; with
``--check-jobs`` it runs it again at another ``--jobs`` and says whether the
totals are the same (they must be: persistent bots play in schedule order).

Bots are ranked as the challenge ranked them, by total turns won (not by
rating, which a tournament's own leaderboard shows first).

Usage: ``python benchmarks/bench_challenge.py [--no-duplicate | --duplicate] [--cycles 100] [--seed 2021] [--jobs 2]
[--check-jobs 1]`` (``--no-duplicate``, each deal once, is the challenge's format and the default; ``--duplicate``
plays each deal twice, seats swapped, to compare)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BOTS = ["basic-odds-py", "obvious-strats-py", "tsh-py", "simple-py", "minimal-valid-py"]


def run(cycles: int, seed: int, jobs: int, *, duplicate: bool = False) -> tuple[dict[str, float], int, float]:
    """(total turns won by bot, matches, seconds) of one run of the challenge's format."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "challenge.sqlite"
        command = [
            sys.executable, "-m", "arena", "tournament", "rps-poker",
            *(str(REPO / "sample_bots" / "rps-poker" / bot) for bot in BOTS),
            "--duplicate" if duplicate else "--no-duplicate",
            "--cycles", str(cycles), "--seed", str(seed), "--jobs", str(jobs),
            "--db", str(db), "--no-log", "--quiet",
        ]  # fmt: skip
        started = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)})
        elapsed = time.monotonic() - started
        shown = subprocess.run(
            [sys.executable, "-m", "arena", "results", str(db), "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    board = json.loads(shown.stdout)
    return {row["bot"]: row["points"] for row in board["standings"]}, board["matches"], elapsed


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; ``--no-duplicate`` (the default) and ``--duplicate`` are passed on to the tournament."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    deals = parser.add_mutually_exclusive_group()
    deals.add_argument("--no-duplicate", dest="duplicate", action="store_false", default=False,
                       help="each deal once, seats alternating: the challenge's format (the default)")  # fmt: skip
    deals.add_argument("--duplicate", dest="duplicate", action="store_true",
                       help="each deal twice, seats swapped, to compare with the challenge's format")  # fmt: skip
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check-jobs", type=int, metavar="N", help="run again at --jobs N and compare the totals")
    return parser.parse_args(argv)


def ranking(totals: dict[str, float]) -> list[str]:
    """The bots ranked by total turns won, the challenge's score, most first."""
    width = max(map(len, totals))
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    return [f"{rank}. {bot:<{width}}  {points:7.0f} turns won" for rank, (bot, points) in enumerate(ordered, start=1)]


def main() -> None:
    args = parse_args()
    deals = "each deal twice, seats swapped" if args.duplicate else "each deal once, seats alternating"
    print(
        f"RPS Poker, the challenge's format: round-robin of {len(BOTS)} ports, {args.cycles} cycles, {deals},"
        f" persistent bots in one process; seed {args.seed}, jobs {args.jobs};"
        f" load average {os.getloadavg()[0]:.2f}"
    )
    totals, matches, elapsed = run(args.cycles, args.seed, args.jobs, duplicate=args.duplicate)
    print("Ranked by total turns won, as the challenge ranked:")
    for line in ranking(totals):
        print(line)
    print(f"{matches} matches in {elapsed:.0f} s ({matches / elapsed:.1f}/s)")
    if args.check_jobs:
        again, _, elapsed = run(args.cycles, args.seed, args.check_jobs, duplicate=args.duplicate)
        same = "the same" if again == totals else f"DIFFERENT: {again}"
        print(f"At --jobs {args.check_jobs} ({elapsed:.0f} s): totals {same}")


if __name__ == "__main__":
    main()
