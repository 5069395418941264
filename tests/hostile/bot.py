"""A hostile bot: plays action 0 until its trigger, then tries the attack its first argument names.

Attacks that the sandbox should block exit with code 4 when blocked (so the
arena records a precise crash), and play on normally when they succeed (so a
test expecting the crash fails). Paths come hex-encoded: a path named on a
bot's command line is granted to it. Mode ``write`` answers its trigger with
the hex-encoded bytes of its argument, ``ID`` in them replaced by the request's id.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""
BLOCKED = 4


def path_arg() -> str:
    return bytes.fromhex(arg).decode()


def attack() -> None:
    if mode == "crash_start":
        sys.exit(3)
    if mode == "exit_mid":
        sys.exit(0)
    if mode == "sleep":
        time.sleep(3600)
    if mode == "busy":
        while True:
            pass
    if mode == "never_flush":
        out = os.fdopen(os.dup(1), "w", buffering=1 << 16)
        out.write(json.dumps({"id": 0, "action": 0}) + "\n")
        time.sleep(3600)
    if mode == "invalid_json":
        say("{this is not json")
        time.sleep(3600)
    if mode == "huge_line":
        block = b"x" * (1 << 20)
        for _ in range(100):
            os.write(1, block)
        time.sleep(3600)
    if mode == "memory_gradual":
        hoard = []
        while True:
            hoard.append(bytearray(8 << 20))
            time.sleep(0.01)
    if mode == "memory_at_once":
        hoard = bytearray(int(arg) << 20)
        time.sleep(3600)
        del hoard
    if mode == "fork_bomb":
        while True:
            try:
                if os.fork() == 0:
                    while True:
                        time.sleep(1)
            except OSError:
                pass
    if mode == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        time.sleep(0.2)
        sys.exit(0)
    if mode == "cpu_children":
        burn = "while True: pass"
        procs = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2)]
        for proc in procs:
            proc.wait()
    if mode == "tcp":
        try:
            socket.create_connection(("127.0.0.1", int(arg)), timeout=1).close()
        except OSError:
            sys.exit(BLOCKED)
    if mode == "udp":
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.sendto(b"hostile", ("127.0.0.1", int(arg)))
        except OSError:
            sys.exit(BLOCKED)
        time.sleep(0.3)  # the test checks what reached the arena's socket
    if mode == "read_file":
        try:
            with open(path_arg()) as file:
                file.read()
        except OSError:
            sys.exit(BLOCKED)
    if mode == "write_outside":
        try:
            with open(path_arg(), "w") as file:
                file.write("hostile")
        except OSError:
            sys.exit(BLOCKED)
    if mode == "close_stdout":
        os.close(1)
        time.sleep(3600)


def trigger(request_id: int) -> None:
    """Answer the trigger request the way ``mode`` says (the answer protocols)."""
    if mode == "write":
        os.write(1, bytes.fromhex(arg).replace(b"ID", str(request_id).encode()))
        time.sleep(3600)
    if mode == "twice":
        say(json.dumps({"id": request_id, "action": 0}))
    if mode == "id_below":
        say(json.dumps({"id": request_id - 1, "action": 0}))
    if mode == "id_zero":
        say(json.dumps({"id": 0, "action": 0}))
    attack()


def flood_stderr() -> None:
    block = b"e" * (1 << 16)
    while True:
        os.write(2, block)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if mode == "crash_start":
    attack()
if mode == "ignore_sigterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "stderr_flood":  # 16 MiB before its first answer: dropped, 1 MiB a gulp, without stalling it long
    for _ in range(16):
        sys.stderr.write("e" * (1 << 20))
    sys.stderr.flush()
if mode == "stderr_thread":
    threading.Thread(target=flood_stderr, daemon=True).start()
if mode == "ahead":  # answers to the first 40 requests, before any was sent
    os.write(1, "".join(json.dumps({"id": n, "action": 0}) + "\n" for n in range(1, 41)).encode())
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        if message["type"] == "quit" and mode != "ignore_sigterm":
            break
        continue
    if mode == "ahead":
        continue
    if message["type"] == "main_play" and mode not in ("ignore_sigterm", "stderr_flood", "stderr_thread"):
        trigger(message["id"])
    say(json.dumps({"id": message["id"], "action": 0}))
if mode == "ignore_sigterm":
    while True:  # no input, SIGTERM ignored: only SIGKILL ends it
        time.sleep(1)
