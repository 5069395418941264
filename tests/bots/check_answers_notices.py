"""Broken on purpose (arena check's tests): answers every message, notices included, with its id (null for a notice)."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    print(json.dumps({"id": message.get("id"), "action": 0}), flush=True)
