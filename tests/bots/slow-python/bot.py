# An RPS Poker bot that takes a while over each move (sleeping uses no CPU), so that a match lasts long enough
# to be watched while it is played (tests of the server's live pages).
import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        time.sleep(0.4)
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
