"""How fast Badugi runs: the hand evaluator, the rules alone, and real matches.

Prints:

1. the evaluator's speed over all 270,725 four-card hands (``hand_key``);
2. hands per second of the rules alone, with random legal actions;
3. hands per second of a real match between the Python and Node rule-based
   sample bots (processes, pipes and the supervisor included; no log).

Usage: ``python benchmarks/bench_badugi.py [--hands N]``
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from pathlib import Path

import trio

from arena.bots.spec import resolve
from arena.games import get_game
from arena.games.badugi import DECK, hand_key
from arena.supervisor.play import play_match
from protocol import Limits
from protocol.badugi import BadugiAct

BOTS = Path(__file__).resolve().parents[1] / "sample_bots" / "badugi"


def bench_evaluator() -> None:
    started = time.perf_counter()
    count = sum(1 for hand in itertools.combinations(DECK, 4) if hand_key(hand))
    elapsed = time.perf_counter() - started
    print(f"evaluator: {count} hands in {elapsed:.2f}s ({count / elapsed:,.0f} hands/s)")


def bench_rules(hands: int) -> None:
    state = get_game("badugi", {"hands": hands}).new_match(1)
    state.start()
    rng = random.Random(1)
    requests = 0
    started = time.perf_counter()
    while not state.is_over:
        ((seat, request),) = state.requests().items()
        if isinstance(request, BadugiAct):
            action: object = rng.choice(request.legal)
        else:
            action = rng.sample(range(4), rng.randint(0, 4))
        state.apply({seat: state.check(seat, action)})
        requests += 1
    elapsed = time.perf_counter() - started
    rate = hands / elapsed
    print(f"rules, random actions: {hands} hands, {requests} requests in {elapsed:.2f}s ({rate:,.0f} hands/s)")


def bench_match(hands: int) -> None:
    game = get_game("badugi", {"hands": hands})
    specs = (resolve(str(BOTS / "rule-based-python")), resolve(str(BOTS / "rule-based-node")))
    started = time.perf_counter()
    record = trio.run(lambda: play_match(game, specs, seed=1, limits=Limits(), log_dir=None))
    elapsed = time.perf_counter() - started
    requests = record.stats[0].requests + record.stats[1].requests
    print(
        f"real match (rule-based-python vs rule-based-node): {hands} hands, {requests} requests in {elapsed:.2f}s "
        f"({hands / elapsed:,.0f} hands/s, {1000 * elapsed / requests:.2f} ms/request); result {record.result.points}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    args = parser.parse_args()
    bench_evaluator()
    bench_rules(args.hands)
    bench_match(args.hands)


if __name__ == "__main__":
    main()
