"""GOPS bot that bids a random card of its hand (the quiz's "random" bot), over JSON.

Seeded by the match id, so the same match replays the same bids.
"""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        rng.seed(message["match_id"])
    elif kind == "gops_bid":
        bid = rng.choice(message["hand"])
        print(json.dumps({"id": message["id"], "action": bid}), flush=True)
    elif kind == "quit":
        break
