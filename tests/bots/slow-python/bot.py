# An RPS Poker bot that takes a while over each move (sleeping uses no CPU), so that a match lasts long enough
# to be watched while it is played (tests of the server's live pages). 0.4 s a move, or the seconds a file
# `seconds` beside it says (a copy made by tests.servertools.slow_bot).
import json
import sys
import time
from pathlib import Path

given = Path(__file__).with_name("seconds")
seconds = float(given.read_text()) if given.exists() else 0.4

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        time.sleep(seconds)
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
    elif message["type"] == "quit":
        break
