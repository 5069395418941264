"""Plays index 0, but in about one match out of two prints a debug line on stdout at its second turn.

stdout carries only answers: a line that is not JSON is an invalid_json fault. Debug output
belongs on stderr, which Arena keeps in a log file per bot and match.
"""

import json
import sys
import zlib

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "match_start":
        chatty = zlib.crc32(message["match_id"].encode()) % 2 == 1
    if "id" in message:
        if chatty and message.get("turn") == 2:
            print(f"debug: my hand is {message['hand']}", flush=True)
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
