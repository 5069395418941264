"""Kuhn poker bot that plays a Nash equilibrium: player 1 with alpha = 1/3, player 2's unique strategy.

The equilibrium family is H. W. Kuhn's, "A simplified two-person poker",
Contributions to the Theory of Games I (1950), as summarised by Wikipedia's
"Kuhn poker" article. Player 1 (who acts first) picks any alpha in [0, 1/3]:

* with J: bet with probability alpha, else pass; after pass-bet, fold (pass);
* with Q: pass; after pass-bet, call (bet) with probability alpha + 1/3;
* with K: bet with probability 3 * alpha, else pass; after pass-bet, call.

Player 2's strategy is the same for every alpha:

* facing a bet: with J fold, with Q call with probability 1/3, with K call;
* after a pass: with J bet with probability 1/3 (a bluff), with Q pass, with K bet.

Player 1's value is then -1/18 of a chip a hand whatever alpha is. Written
here from those probabilities; the moves are drawn from a generator seeded by
the match id, so a replay replays them.
"""

import json
import random
import sys

ALPHA = 1 / 3

BET_PROBABILITY = {
    # (player, history, card): probability of answering "bet"
    (1, "", "J"): ALPHA,
    (1, "", "Q"): 0.0,
    (1, "", "K"): 3 * ALPHA,
    (1, "pb", "J"): 0.0,
    (1, "pb", "Q"): ALPHA + 1 / 3,
    (1, "pb", "K"): 1.0,
    (2, "b", "J"): 0.0,
    (2, "b", "Q"): 1 / 3,
    (2, "b", "K"): 1.0,
    (2, "p", "J"): 1 / 3,
    (2, "p", "Q"): 0.0,
    (2, "p", "K"): 1.0,
}


def decide(rng: random.Random, player: int, history: str, card: str) -> str:
    """This bot's move at one decision."""
    return "bet" if rng.random() < BET_PROBABILITY[player, history, card] else "pass"


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "match_start":
            rng.seed(message["match_id"])
        elif kind == "kuhn_act":
            move = decide(rng, message["player"], message["history"], message["card"])
            print(json.dumps({"id": message["id"], "action": move}), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
