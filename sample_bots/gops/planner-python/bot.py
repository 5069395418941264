"""GOPS bot that reads its opponent and plans sure wins, over JSON.

* If most of the opponent's bids so far (two thirds or more) were the prize
  plus a fixed offset (a mimic bids offset 0), it predicts the next bid the
  same way and takes the prize with the cheapest card that beats it, throwing
  its lowest card away when no card can.
* Otherwise it keeps its sure wins (cards above every card the opponent still
  holds) for the biggest prizes left, throws its lowest card at the smallest
  prizes, and otherwise bids one card above the one whose rank in its hand
  matches the prize's rank among the prizes left.
"""

import json
import sys
from collections import Counter


def predict(prize: int, offsets: Counter[int], theirs: list[int]) -> int | None:
    if not offsets:
        return None
    offset, count = offsets.most_common(1)[0]
    if 3 * count < 2 * sum(offsets.values()) or prize + offset not in theirs:
        return None
    return prize + offset


def choose(bid: dict, offsets: Counter[int]) -> int:
    hand = sorted(bid["hand"])
    theirs = bid["opponent_hand"]
    prize = bid["prize"]
    predicted = predict(prize, offsets, theirs)
    if predicted is not None:
        beating = [card for card in hand if card > predicted]
        return beating[0] if beating else hand[0]
    left = sorted([prize, *bid["prizes_left"]])
    sure = [card for card in hand if card > max(theirs)]
    if sure and prize in left[len(left) - len(sure) :]:
        return sure[0]
    rank = left.index(prize)
    if 3 * rank < len(left):
        return hand[0]
    return hand[min(rank * len(hand) // len(left) + 1, len(hand) - 1)]


offsets: Counter[int] = Counter()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        offsets = Counter()
    elif kind == "gops_bid":
        action = choose(message, offsets)
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
    elif kind == "gops_result":
        offsets[message["opponent_bid"] - message["prize"]] += 1
    elif kind == "quit":
        break
