"""A bot that misbehaves on purpose, in the way its first argument names.

It plays valid moves (action 0) until the trigger (the first ``main_play``
request, or at once for ``crash_start``), then misbehaves.
"""

import json
import os
import signal
import sys
import time

mode = sys.argv[1]
if mode == "crash_start":
    sys.exit(3)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


slept = False
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        if message["type"] == "quit" and mode != "ignore_quit":
            break
        continue
    rid = message["id"]
    if mode == "slow":  # legal, but every answer after a sleep of argv[2] seconds (under the move's wall cap)
        time.sleep(float(sys.argv[2]))
        say(json.dumps({"id": rid, "action": 0}))
        continue
    if message["type"] != "main_play":
        say(json.dumps({"id": rid, "action": 0}))
        continue
    if mode == "exit_mid":
        sys.exit(0)
    elif mode == "sleep":
        time.sleep(3600)
    elif mode == "invalid_json":
        say("{this is not json")
    elif mode == "bad_index":
        say(json.dumps({"id": rid, "action": 7}))
    elif mode == "wrong_type":
        say(json.dumps({"id": rid, "action": "0"}))
    elif mode == "not_answer":
        say(json.dumps([rid, 0]))
    elif mode == "wrong_id":
        say(json.dumps({"id": rid + 5, "action": 0}))
    elif mode == "huge_line":
        sys.stdout.write("x" * (1 << 20))
        sys.stdout.flush()
        time.sleep(3600)
    elif mode == "flood":  # valid answers, each padded to almost a line's worth
        say(json.dumps({"id": rid, "action": 0, "pad": "x" * 4000}))
    elif mode == "stderr_flood":
        chunk = "e" * 65536
        for _ in range(64):  # 4 MiB of stderr, then a valid answer
            sys.stderr.write(chunk)
        say(json.dumps({"id": rid, "action": 0}))
    elif mode == "chatty":
        # A line of stderr per move, one not UTF-8, then a line left without its newline.
        sys.stderr.write(f"turn {message['turn']}: playing index 0\n")
        if message["turn"] == 10:
            sys.stderr.buffer.write(b"bad byte \xff here\nno newline")
        sys.stderr.flush()
        say(json.dumps({"id": rid, "action": 0}))
    elif mode == "late":
        # Answers the first main_play of its life too late; every other request on time.
        if not slept:
            slept = True
            time.sleep(1.0)
        say(json.dumps({"id": rid, "action": 0}))
    elif mode == "close_stdout":
        os.close(1)
        time.sleep(3600)
    elif mode == "segv":  # as a C bot that dereferences a null pointer
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "ignore_quit":
        say(json.dumps({"id": rid, "action": 0}))
    else:
        raise SystemExit(f"unknown mode {mode}")
