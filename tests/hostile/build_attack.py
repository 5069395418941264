"""A hostile build command: tries what a build must not do, and writes what it managed to ``.arena-build/report.json``.

Arguments: the secret file, a world-writable folder outside, the bot's own
folder (each hex-encoded), the pid of another bot's process, a TCP port of
the arena's, and a token that the daemon it leaves carries on its command
line. Each attack is recorded as ``"done"`` or the error that stopped it.
"""

import json
import os
import signal
import socket
import sys
import time

secret, outside, source = (bytes.fromhex(a).decode() for a in sys.argv[1:4])
victim, port, token = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
report = {}


def attempt(name, action):
    try:
        action()
        report[name] = "done"
    except OSError as exc:
        report[name] = f"refused: {exc}"


def read_secret():
    with open(secret) as file:
        report["secret_text"] = file.read()


def write_to(folder):
    def write():
        with open(os.path.join(folder, "written-by-build.txt"), "w") as file:
            file.write("build")

    return write


attempt("read_secret", read_secret)
attempt("write_outside", write_to(outside))
attempt("write_source", write_to(source))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close())
attempt("stop_victim", lambda: os.kill(victim, signal.SIGSTOP))

# A daemon that outlives the build unless the arena kills it, stopping the victim again and again.
STOP_AGAIN = f"import os, time\nwhile True:\n  try: os.kill({victim}, 19)\n  except OSError: pass\n  time.sleep(0.05)"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp(sys.executable, [sys.executable, "-c", STOP_AGAIN, token])
    os._exit(0)
time.sleep(0.2)

os.makedirs(".arena-build", exist_ok=True)
with open(".arena-build/report.json", "w") as file:
    json.dump(report, file)
print(json.dumps(report))
