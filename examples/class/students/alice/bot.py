"""Alice's bot: keep the higher card; pair the base card when possible, else play the highest card."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "draft_pick":
        first, second = message["cards"]
        print(json.dumps({"id": message["id"], "action": 0 if first[1] >= second[1] else 1}), flush=True)
    elif message["type"] == "main_play":
        hand, base = message["hand"], message["base"]
        pairs = [i for i, card in enumerate(hand) if card[1] == base[1]]
        best = pairs[0] if pairs else max(range(len(hand)), key=lambda i: hand[i][1])
        print(json.dumps({"id": message["id"], "action": best}), flush=True)
