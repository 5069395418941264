"""Plays index 0, but in one match out of three it dozes off for 3 s at its fourth turn.

The move limit is CPU time; sleeping uses none, so it is the wall-clock cap (move_wall_s) that
ends the wait: a timeout fault, and the match is lost.
"""

import json
import sys
import time
import zlib

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "match_start":
        dozy = zlib.crc32(message["match_id"].encode()) % 3 == 0
    if "id" in message:
        if dozy and message.get("turn") == 4:
            time.sleep(3)
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
