"""Broken on purpose (arena check's tests): answers its first request at once, then thinks 2 s of CPU per answer."""

import json
import sys
import time

first = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if "id" in message:
        if not first:
            deadline = time.process_time() + 2.0
            while time.process_time() < deadline:
                pass
        first = False
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
