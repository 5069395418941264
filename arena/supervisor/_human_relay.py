"""The human seat's process: copies the arena's lines to the human's side (a Unix socket) and the answers back.

The supervisor runs it as it runs any bot (stdin and stdout, the same clock
and faults), so a human plays through the same match code as a bot; the
socket's other end is the arena's own prompt (:mod:`arena.supervisor.human`).
When that end closes (the human left), this process exits, and the match
ends with the human seat's fault.
"""

from __future__ import annotations

import os
import socket
import sys
import threading


def main(path: str) -> None:
    link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    link.connect(path)

    def upward() -> None:
        for line in sys.stdin.buffer:
            link.sendall(line)
        link.shutdown(socket.SHUT_WR)

    threading.Thread(target=upward, daemon=True).start()
    with link.makefile("rb") as answers:
        for line in answers:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    # The person left (the prompt closed its end): exit at once. A normal exit would wait for the thread that
    # reads stdin, and Python's shutdown aborts (SIGABRT) on the stdin lock that thread holds.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
