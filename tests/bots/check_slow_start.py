"""Arena check's tests: takes 2 s to start (as a big import would), then answers at once."""

import json
import sys
import time

time.sleep(2)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
