"""Broken on purpose (arena check's tests): plays an index one past the end of its hand."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "draft_pick":
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "main_play":
        print(json.dumps({"id": message["id"], "action": len(message["hand"])}), flush=True)
