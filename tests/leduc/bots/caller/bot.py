import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg:
        print(json.dumps({"id": msg["id"], "action": "call"}), flush=True)
    elif msg.get("type") == "quit":
        break
