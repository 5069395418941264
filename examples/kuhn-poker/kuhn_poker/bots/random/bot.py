"""Kuhn poker bot that passes or bets at random, seeded by the match id (a replay replays its moves)."""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        rng.seed(message["match_id"])
    elif kind == "kuhn_act":
        print(json.dumps({"id": message["id"], "action": rng.choice(["pass", "bet"])}), flush=True)
    elif kind == "quit":
        break
