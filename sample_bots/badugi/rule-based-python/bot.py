"""Badugi rule-based bot: draws toward a badugi, bets made hands, folds weak ones.

The same rules as ``rule-based-node`` (a test checks that the two make the
same decisions), deterministic, and without randomness:

* **Draw**: keep the played hand and throw the rest; with a three-card hand
  topped by a ten or higher, also throw the top card while two draws remain.
  Stand pat on any badugi.
* **Bet**: a badugi 9-high or better raises (or bets) whenever it may; any
  other badugi bets when checked to and calls; a three-card hand 8-high or
  better, before the last draw, checks and calls one bet; everything else
  checks, calls only the blind in round 1, and otherwise folds.
"""

import itertools
import json
import sys

RANKS = "A23456789TJQK"


def rank(card):
    return RANKS.index(card[0]) + 1


def played(cards):
    """Indices of the played hand: most cards of distinct ranks and suits, then lowest ranks from the top."""
    for size in (4, 3, 2, 1):
        best = None
        for subset in itertools.combinations(range(4), size):
            if len({cards[i][0] for i in subset}) == size and len({cards[i][1] for i in subset}) == size:
                key = sorted((rank(cards[i]) for i in subset), reverse=True)
                if best is None or key < best[0]:
                    best = (key, subset)
        if best is not None:
            return best[1]
    return ()


def discard(cards, draw):
    keep = list(played(cards))
    if len(keep) == 3 and draw < 3:
        top = max(keep, key=lambda i: rank(cards[i]))
        if rank(cards[top]) >= 10:
            keep.remove(top)
    return [i for i in range(4) if i not in keep]


def first_legal(legal, *wanted):
    for action in wanted:
        if action in legal:
            return action
    return legal[0]


def act(request):
    cards, legal = request["cards"], request["legal"]
    keep = played(cards)
    high = max(rank(cards[i]) for i in keep)
    if len(keep) == 4 and high <= 9:
        return first_legal(legal, "raise", "bet", "call", "check")
    if len(keep) == 4:
        return first_legal(legal, "bet", "call", "check")
    if len(keep) == 3 and high <= 8 and request["round"] < 4:
        if request["to_call"] <= request["bet_size"]:
            return first_legal(legal, "check", "call")
        return first_legal(legal, "check", "fold")
    if request["round"] == 1 and request["bets"] == 1:
        return first_legal(legal, "check", "call")
    return first_legal(legal, "check", "fold")


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "badugi_act":
        action = act(message)
    elif kind == "badugi_draw":
        action = discard(message["cards"], message["draw"])
    elif kind == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
