"""Card-Jitsu bot that plays a card of its hand uniformly at random (the naive baseline).

It is seeded by the match id and its seat, so the same match gives the same
choices and its matches replay byte for byte.
"""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        rng.seed(f"{message['match_id']}:{message['seat']}")
    elif kind == "jitsu_play":
        index = rng.randrange(len(message["hand"]))
        print(json.dumps({"id": message["id"], "action": index}), flush=True)
    elif kind == "quit":
        break
