"""``arena ARGS`` run in the test's own process (``arena.cli.main``), its exit status and output as a process gives.

A command that reads or plays without needing a process of its own (``results``, ``replay``, ``play``) saves the
0.25 to 0.45 s of CPU an interpreter takes to start and import Arena: many tests run a few dozen. What needs a
process stays one (a command killed or interrupted, a game module or package its run must not leak into the
tests' process, a command a reader types in a shell).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

from arena.cli import main


def arena_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``cwd``, in this process: its status (argparse's refusals included) and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit:  # argparse's refusals, and --help
            status = exit.code if isinstance(exit.code, int) else 1
    return subprocess.CompletedProcess(["arena", *args], status, out.getvalue(), err.getvalue())
