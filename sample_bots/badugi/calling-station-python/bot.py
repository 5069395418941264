"""Badugi calling station: never folds, never bets, never draws.

It checks when it can and calls otherwise, and stands pat in every draw: the
weakest sensible opponent, and a baseline every real bot should beat.
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "badugi_act":
        action = "check" if "check" in message["legal"] else "call"
    elif kind == "badugi_draw":
        action = []
    elif kind == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
