import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg:
        action = "raise" if msg["raises_left"] > 0 else "call"
        print(json.dumps({"id": msg["id"], "action": action}), flush=True)
    elif msg.get("type") == "quit":
        break
