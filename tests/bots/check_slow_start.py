"""Arena check's tests: takes 1 s to start (as a big import would), then answers at once."""

import json
import sys
import time

time.sleep(1)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
