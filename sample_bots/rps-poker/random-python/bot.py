"""RPS Poker bot that picks uniformly at random, seeded by the match id.

Seeding from the match id makes it deterministic: the same match, the same
choices, so its matches replay byte for byte.
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
    elif kind == "draft_pick":
        choice = rng.randrange(2)
    elif kind == "main_play":
        choice = rng.randrange(len(message["hand"]))
    elif kind == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": choice}), flush=True)
