"""Broken on purpose (arena check's tests): says it plays many matches, but exits after the first one."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] in ("quit", "match_end"):
        break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
