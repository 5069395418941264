"""What the benchmarks that start ``arena serve`` share: starting it, reading the address it serves on, stopping it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

SERVING = re.compile(r"serving .* on (http://\S+?):? ")
"""The line ``arena serve`` prints once it listens (``arena/server/serve.py``), and its address."""


def start_serving(
    argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> tuple[subprocess.Popen[str], str]:
    """Start ``argv`` (an ``arena serve`` command) in a session of its own; it and its address once it listens.

    Its output is a pipe the caller closes (a server that says much more may fill it: these benchmarks' do not).
    Exits with a message if it stops or says nothing of the kind within ``timeout`` seconds.
    """
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    said: list[str] = []
    for line in process.stdout:
        said.append(line)
        found = SERVING.search(line)
        if found:
            return process, found.group(1)
        if time.monotonic() > deadline:
            break
    if process.poll() is None:
        os.killpg(process.pid, 9)
    process.wait()
    raise SystemExit("the server did not start:\n" + "".join(said[-20:]))


def stop_serving(process: subprocess.Popen[str], timeout: float = 30) -> None:
    """Stop a server :func:`start_serving` started as an organiser does (SIGTERM: a clean stop), killing its
    session if it takes more than ``timeout`` seconds."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
