"""GOPS bot that reads its opponent and plans sure wins, over JSON.

* If the opponent has bid a card that is a fixed offset from the prize every
  round so far (a mimic bids offset 0), it predicts the next bid the same way
  and takes the prize with the cheapest card that beats it, throwing its
  lowest card away when no card can.
* Otherwise it keeps its sure wins (cards above every card the opponent still
  holds) for the biggest prizes left, and otherwise bids the card whose rank
  in its hand matches the prize's rank among the prizes left.
"""

import json
import sys


def choose(bid: dict, offsets: set[int] | None) -> int:
    hand = sorted(bid["hand"])
    theirs = bid["opponent_hand"]
    prize = bid["prize"]
    if offsets is not None and len(offsets) == 1:
        predicted = prize + next(iter(offsets))
        if predicted in theirs:
            beating = [card for card in hand if card > predicted]
            return beating[0] if beating else hand[0]
    left = sorted([prize, *bid["prizes_left"]])
    sure = [card for card in hand if card > max(theirs)]
    if sure and prize in left[len(left) - len(sure) :]:
        return sure[0]
    return hand[left.index(prize) * len(hand) // len(left)]


offsets: set[int] | None = None
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        offsets = None
    elif kind == "gops_bid":
        action = choose(message, offsets)
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
    elif kind == "gops_result":
        offset = message["opponent_bid"] - message["prize"]
        offsets = {offset} if offsets is None else offsets | {offset}
    elif kind == "quit":
        break
