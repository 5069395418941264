"""Carol's bot: counts the cards she has seen, and plays the card that beats most of the others.

It has a bug a class will meet: it looks up the opponent's card in a table of cards it expects
to have seen, and crashes (KeyError) when the opponent plays a card it never saw. Arena records
each crash as a fault of Carol's bot alone; after max_faults faults it is disqualified.
"""

import json
import sys

SYMBOLS, BEATS = "RPS", {"R": "S", "S": "P", "P": "R"}


def beats(mine: str, theirs: str, base: str) -> bool:
    if (mine[1] == base[1]) != (theirs[1] == base[1]):
        return mine[1] == base[1]
    if mine[1] != theirs[1]:
        return mine[1] > theirs[1]
    return BEATS[mine[0]] == theirs[0]


seen: dict[str, int] = {}
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "quit":
        break
    if kind == "match_start":
        seen = {}
    elif kind == "draft_pick":
        for card in message["cards"]:
            seen[card] = 1
        first, second = message["cards"]
        print(json.dumps({"id": message["id"], "action": 0 if first[1] >= second[1] else 1}), flush=True)
    elif kind == "draft_receive":
        seen[message["card"]] = 1
    elif kind == "main_play":
        hand, base = message["hand"], message["base"]
        unseen = [s + str(n) for s in SYMBOLS for n in range(10) if s + str(n) not in seen and s + str(n) != base]
        score = [sum(beats(card, other, base) for other in unseen) for card in hand]
        print(json.dumps({"id": message["id"], "action": score.index(max(score))}), flush=True)
    elif kind == "main_result":
        seen[message["opponent_card"]] += 1  # the bug: KeyError for a card never seen before
