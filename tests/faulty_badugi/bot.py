"""A Badugi bot that answers illegally on purpose, in the way its first argument names.

``fold``: always folds, even when it could check for free; ``bad_discard``:
checks or calls, then asks to discard index 4; ``shout``: answers "CALL";
``number``: answers 1 instead of a string. Used by tests/test_badugi.py.
"""

import json
import sys

mode = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "badugi_act":
        legal = message["legal"]
        action = {"fold": "fold", "shout": "CALL", "number": 1}.get(mode, "check" if "check" in legal else "call")
    elif message["type"] == "badugi_draw":
        action = [4] if mode == "bad_discard" else []
    else:
        continue
    print(json.dumps({"id": message["id"], "action": action}), flush=True)
