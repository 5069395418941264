"""The canary bot: tries one breach, named by its first argument, and reports one JSON line.

Run by ``arena sandbox`` (:mod:`arena.sandbox.cli`) inside the sandbox under
test; the arena judges most properties from outside (what reached its
socket, which file appeared, which process survived), the canary only says
what it saw. Standard library only.
"""

import json
import os
import socket
import subprocess
import sys
import time


def report(**fields: object) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def network(port: str) -> None:
    seen = {}
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=1.0):
            seen["tcp"] = "connected"
    except OSError as exc:
        seen["tcp"] = f"refused: {exc}"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"canary", ("127.0.0.1", int(port)))
            seen["udp"] = "sent"
    except OSError as exc:
        seen["udp"] = f"refused: {exc}"
    report(**seen)


def secret(hex_path: str) -> None:
    # Paths come hex-encoded: a path named on a bot's command line is granted to it.
    try:
        with open(bytes.fromhex(hex_path).decode()) as file:
            report(read=file.read())
    except OSError as exc:
        report(error=str(exc))


def write_outside(hex_path: str) -> None:
    try:
        with open(bytes.fromhex(hex_path).decode(), "w") as file:
            file.write("canary")
        report(wrote=True)
    except OSError as exc:
        report(error=str(exc))


def fork_bomb(count: str) -> None:
    children = []
    for _ in range(int(count)):
        try:
            children.append(subprocess.Popen(["sleep", "30"]))
        except OSError:
            break
    report(started=len(children))


def memory_hog(mib: str) -> None:
    chunks = []
    try:
        for _ in range(int(mib) // 16):
            chunks.append(bytearray(16 << 20))
        report(allocated_mib=len(chunks) * 16)
    except MemoryError:
        report(allocated_mib=len(chunks) * 16, error="MemoryError")


def cpu_children(seconds: str) -> None:
    burn = f"import time\nend = time.process_time() + {float(seconds)}\nwhile time.process_time() < end: pass"
    procs = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(2)]
    for proc in procs:
        proc.wait()
    report(done=True)


def escape(token: str) -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "300", token])
        os._exit(0)
    time.sleep(0.2)
    report(daemon=True)


def stdout_flood(mib: str) -> None:
    block = b"x" * (1 << 20)
    for _ in range(int(mib)):
        sys.stdout.buffer.write(block)
    sys.stdout.flush()


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
    sys.stdin.read()  # stay alive until the arena is done with us
