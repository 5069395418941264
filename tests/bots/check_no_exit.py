"""Broken on purpose (arena check's tests): plays index 0, but ignores quit and the end of its input."""

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
time.sleep(60)
