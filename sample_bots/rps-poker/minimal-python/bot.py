# The smallest valid Arena bot: answer every request with action 0.
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:  # a request: answer it, with the same id
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
