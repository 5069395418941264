"""Kuhn poker bot that always bets, and calls every bet: the strategy the equilibrium punishes in both seats."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "kuhn_act":
        print(json.dumps({"id": message["id"], "action": "bet"}), flush=True)
    elif message["type"] == "quit":
        break
