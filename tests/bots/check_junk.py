"""Broken on purpose (arena check's tests): answers the second main_play request with a line that is not JSON."""

import json
import sys

plays = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "main_play":
        plays += 1
        if plays == 2:
            print("I play my best card!", flush=True)
            continue
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
