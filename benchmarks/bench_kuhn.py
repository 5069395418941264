"""Kuhn poker's known value, measured: a plugin game, its bots, the supervisor and the statistics together.

Plays real matches (bot processes, pipes, the supervisor; no log) of the
Kuhn poker package in ``examples/kuhn-poker`` between its bots, in fixed
seats, and prints for each pairing seat A's chips per hand, its 95%
interval, and the exact value of the two strategies (enumerated here from the
equilibrium bot's own table of probabilities):

1. the equilibrium bot against itself: player 1's value is -1/18 (-0.0556)
   a hand, and the interval must contain it;
2. an always-bet bot against the equilibrium, in seat A, then in seat B: it
   loses in both.

The interval treats each match as one sample of its chips per hand (the hands
of a match share the bots' processes), so it holds whatever the hands' own
correlation. Usage, with the game installed (``pip install examples/kuhn-poker``):
``python benchmarks/bench_kuhn.py [--matches N] [--hands N]``
(the defaults, 40 matches of 500 hands, play 20,000 hands a pairing).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import trio

from arena._errors import ArenaError
from arena.bots.spec import resolve
from arena.games import Game, ParamError, get_game
from arena.supervisor.play import play_match
from protocol import Limits

PACKAGE = Path(__file__).resolve().parents[1] / "examples" / "kuhn-poker"
BOTS = PACKAGE / "kuhn_poker" / "bots"
KUHN_VALUE = -1 / 18
"""Player 1's value per hand when both play an equilibrium (Kuhn, 1950)."""

Strategy = Callable[[int, str, str], float]
"""The probability of betting for (player, history, card)."""


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kuhn_game(hands: int) -> Game:
    """The package's game, as installed (``pip install examples/kuhn-poker``)."""
    try:
        return get_game("kuhn-poker", {"hands": hands})
    except (ArenaError, ParamError) as exc:
        sys.exit(f"bench_kuhn: {exc}\ninstall the game first: pip install examples/kuhn-poker")


def exact_value(first: Strategy, second: Strategy) -> float:
    """Player 1's expected chips per hand when it plays ``first`` and player 2 ``second``, over the six deals."""
    total = 0.0
    for cards in itertools.permutations("JQK", 2):
        total += _value(first, second, cards, "") / 6
    return total


def _value(first: Strategy, second: Strategy, cards: tuple[str, ...], history: str) -> float:
    ends = {"pp": 1, "pbp": -1, "pbb": 2, "bp": 1, "bb": 2}
    if history in ends:
        stake = ends[history]
        if history in ("pbp", "bp"):
            return float(stake)
        return float(stake if "JQK".index(cards[0]) > "JQK".index(cards[1]) else -stake)
    player = len(history) % 2
    strategy = first if player == 0 else second
    bet = strategy(player + 1, history, cards[player])
    return bet * _value(first, second, cards, history + "b") + (1 - bet) * _value(first, second, cards, history + "p")


def measure(bot_a: str, bot_b: str, matches: int, hands: int) -> tuple[float, float, float]:
    """Seat A's mean chips per hand over ``matches`` real matches, with its 95% interval's half-width, and the time."""
    game = kuhn_game(hands)
    specs = (resolve(str(BOTS / bot_a)), resolve(str(BOTS / bot_b)))
    per_hand = []
    started = time.perf_counter()
    for seed in range(1, matches + 1):
        record = trio.run(lambda seed=seed: play_match(game, specs, seed=seed, limits=Limits(), log_dir=None))  # type: ignore[misc]
        assert not record.faults, record.faults
        per_hand.append(record.result.points[0] / hands)
    mean = statistics.fmean(per_hand)
    half = 1.96 * statistics.stdev(per_hand) / math.sqrt(len(per_hand)) if len(per_hand) > 1 else math.inf
    return mean, half, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per pairing (default %(default)s)")
    parser.add_argument("--hands", type=int, default=500, help="hands per match (default %(default)s)")
    args = parser.parse_args()
    table = load("kuhn_equilibrium", BOTS / "equilibrium" / "bot.py").BET_PROBABILITY

    def equilibrium(player: int, history: str, card: str) -> float:
        return float(table[player, history, card])

    def always_bet(player: int, history: str, card: str) -> float:
        return 1.0

    pairings = [
        ("equilibrium", "equilibrium", exact_value(equilibrium, equilibrium)),
        ("always-bet", "equilibrium", exact_value(always_bet, equilibrium)),
        ("equilibrium", "always-bet", exact_value(equilibrium, always_bet)),
    ]
    hands = args.matches * args.hands
    print(f"Kuhn poker: {args.matches} matches of {args.hands} hands a pairing ({hands:,} hands), seats fixed")
    for bot_a, bot_b, exact in pairings:
        mean, half, took = measure(bot_a, bot_b, args.matches, args.hands)
        low, high = mean - half, mean + half
        print(
            f"  A {bot_a:<11} vs B {bot_b:<11}: A wins {mean:+.4f} a hand, 95% [{low:+.4f}, {high:+.4f}];"
            f" exact {exact:+.4f}; {hands / took:,.0f} hands/s"
        )
        if bot_a == bot_b == "equilibrium":
            inside = "contains" if low <= KUHN_VALUE <= high else "DOES NOT contain"
            print(f"    the interval {inside} Kuhn's value -1/18 = {KUHN_VALUE:+.4f}")
        else:
            bettor = "A" if bot_a == "always-bet" else "B"
            loses = (high < 0) if bettor == "A" else (low > 0)
            print(f"    always-bet in seat {bettor} {'loses' if loses else 'is NOT shown to lose'} to the equilibrium")


if __name__ == "__main__":
    main()
