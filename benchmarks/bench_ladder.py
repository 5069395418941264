"""The rolling ladder's choice of the next pair, on fields of growing size.

A server hands out each pair from its own loop (pages wait meanwhile), and
the choice weighs every two versions of the field. For each field size this
builds a ladder's book (every two versions met 5 to 40 times, random
ratings and intervals, a few pairs in play) and times
:func:`arena.competition.ladder.next_pair` against a baseline measured in
the same run: one pass over the field's pairs that looks each up in the
book and scores it (the least a choice that considers every pair must do).

Prints, per field size, the time per pair handed out, the baseline's, and
their ratio; and the pairs a second the server's loop could hand out at
most. Goal: within 3x of the baseline on fields of 25 versions or more (a
smaller field is cheap whatever the ratio); a 100-version field under 10 ms.

The choice keeps its ranking of the field's pairs between calls (made again
when the ratings change), so asking the same question over and over times
only the kept ranking. ``as played`` times it as a server asks: each pair
handed out is recorded before the next choice, and the ratings change (a new
board) every ``--board`` pairs.

Usage: ``python benchmarks/bench_ladder.py [--sizes 10 25 100 200 300] [--board 20]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.competition.ladder import Pair, PairBook, Policy, RatingView, next_pair


def field(size: int, seed: int) -> tuple[list[str], PairBook, dict[str, RatingView], list[Pair]]:
    """``size`` versions, a book of their pairs met, their ratings, and a few pairs in play."""
    rng = random.Random(seed)
    names = sorted(f"bot{i:03d}-v1" for i in range(size))
    book = PairBook()
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            book.met[(a, b)] = rng.randint(5, 40)
            book.last[(a, b)] = book.met[(a, b)] - 1
    ratings = {name: RatingView(elo=rng.gauss(0, 200), error95=rng.uniform(20, 80)) for name in names}
    busy = []
    for _ in range(3):
        first, second = sorted(rng.sample(names, 2))
        busy.append(Pair(first, second, 50))
    return names, book, ratings, busy


def baseline(names: list[str], book: PairBook, ratings: dict[str, RatingView]) -> tuple[str, str] | None:
    """Every pair looked up once and scored as the ladder scores it; the best kept."""
    met: Counter[tuple[str, str]] = book.met
    best, chosen = -1.0, None
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            count = met.get((a, b), 0)
            p = 1 / (1 + 10 ** (-abs(ratings[a].elo - ratings[b].elo) / 400))
            score = p * (1 - p) / (1 + count)
            if score > best:
                best, chosen = score, (a, b)
    return chosen


def per_call(run: Callable[[], object], seconds: float = 1.0) -> float:
    """Seconds per call of ``run``, the best of three rounds of about ``seconds`` each."""
    started = time.perf_counter()
    run()
    once = max(time.perf_counter() - started, 1e-6)
    calls = max(1, int(seconds / 3 / once))
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(calls):
            run()
        best = min(best, (time.perf_counter() - started) / calls)
    return best


def measure(size: int, policy: Policy) -> tuple[float, float]:
    """Seconds per pair handed out, and the baseline's, on a field of ``size`` versions."""
    names, book, ratings, busy = field(size, seed=size)
    return per_call(lambda: next_pair(names, book, ratings, policy, busy=busy)), per_call(
        lambda: baseline(names, book, ratings)
    )


def as_played(size: int, policy: Policy, board: int, pairs: int = 400) -> float:
    """Seconds per pair handed out when each is recorded before the next choice, the ratings changing every
    ``board`` pairs (the first choice, which ranks the pairs from nothing, left out)."""
    names, book, ratings, busy = field(size, seed=size)
    rng = random.Random(size)
    next_pair(names, book, ratings, policy, busy=busy)
    took = 0.0
    for n in range(pairs):
        if n % board == 0:  # a new board: every rating moves a little
            ratings = {name: RatingView(view.elo + rng.gauss(0, 2), view.error95) for name, view in ratings.items()}
        started = time.perf_counter()
        pair = next_pair(names, book, ratings, policy, busy=busy)
        took += time.perf_counter() - started
        assert pair is not None
        for match in pair.matches(seed=1):
            book.record(match.key)
    return took / pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 25, 100, 200, 300])
    parser.add_argument("--board", type=int, default=20, help="pairs handed out between two changes of the ratings")
    args = parser.parse_args()
    policy = Policy(placement_pairs=4, pair_budget=100_000)
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"{'versions':>8} {'pairs':>6} {'next_pair':>11} {'baseline':>10} {'ratio':>6} {'pairs/s at most':>16}"
        f" {'as played':>11} {'ratio':>6}"
    )
    for size in args.sizes:
        chosen, floor = measure(size, policy)
        played = as_played(size, policy, args.board)
        print(
            f"{size:>8} {size * (size - 1) // 2:>6} {chosen * 1e3:>8.3f} ms {floor * 1e3:>7.3f} ms"
            f" {chosen / floor:>5.1f}x {1 / chosen:>16,.0f} {played * 1e3:>8.3f} ms {played / floor:>5.1f}x"
        )
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
