"""Six-card poker bot that always sets its three highest cards high, the next two middle, the lowest low.

The naive baseline: the hand comes sorted low to high, so the answer never changes.
"""

import json
import sys

SPLIT = {"high": [3, 4, 5], "middle": [1, 2], "low": [0]}

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:  # the only request of this game is poker_set
        print(json.dumps({"id": message["id"], "action": SPLIT}), flush=True)
    elif message["type"] == "quit":
        break
