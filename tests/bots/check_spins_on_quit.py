"""Broken on purpose (arena check's tests): plays index 0, then computes on after quit instead of exiting."""

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message.get("type") == "quit":
        end = time.monotonic() + 60
        while time.monotonic() < end:  # on a CPU (or queued for one) all along, as an exit a busy machine slows
            pass
