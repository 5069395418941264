"""A bot's CPU read from /proc where no cgroup counts it (arena.sandbox._tree): incremental, and as the full pass."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from arena.sandbox import _tree

# A parent that starts a child burning CPU once it reads a line, then both wait (neither reaps anything).
FAMILY = """
import os, sys, time
sys.stdin.readline()
if os.fork() == 0:
    end = time.process_time() + 0.4
    while time.process_time() < end:
        pass
    print("burnt", flush=True)
    time.sleep(60)
    os._exit(0)
time.sleep(60)
"""


@pytest.fixture
def family() -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", FAMILY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    with process:
        try:
            yield process
        finally:
            os.killpg(process.pid, 9)


def test_a_child_started_between_full_passes_is_counted_and_only_new_pids_are_read(
    family: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    watch = _tree.TreeCpu(family.pid, full_pass_s=3600)  # one full pass (the first read), then only increments
    before = watch.cpu_s()
    reads: list[int] = []
    real_stat = _tree._stat

    def counted(pid: int) -> tuple[int, float] | None:
        reads.append(pid)
        return real_stat(pid)

    monkeypatch.setattr(_tree, "_stat", counted)
    assert family.stdin is not None and family.stdout is not None
    family.stdin.write("go\n")
    family.stdin.flush()
    assert family.stdout.readline() == "burnt\n"
    after = watch.cpu_s()
    assert after - before >= 0.35, (before, after)  # the child's CPU, found without a full pass
    assert after == pytest.approx(_tree.usage(family.pid, with_memory=False).cpu_s, abs=0.05)
    machine = sum(name.isdigit() for name in os.listdir("/proc"))
    reads.clear()
    watch.cpu_s()
    # The tree's two processes and whatever started since: not every process of the machine.
    assert family.pid in reads and len(reads) < machine, (len(reads), machine)


def test_a_full_pass_comes_back_within_its_period(
    family: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pid once seen outside the tree is not read again until the next full pass, which finds a reused one."""
    with subprocess.Popen(["sleep", "60"]) as stranger:
        try:
            watch = _tree.TreeCpu(family.pid, full_pass_s=0.05)
            watch.cpu_s()
            assert stranger.pid in watch._outside
            # Pretend the kernel reused that pid for a process of the tree: only a full pass reads its parent again.
            real_stat = _tree._stat

            def reused(pid: int) -> tuple[int, float] | None:
                return (family.pid, 1000.0) if pid == stranger.pid else real_stat(pid)

            monkeypatch.setattr(_tree, "_stat", reused)
            deadline = time.monotonic() + 10
            while watch.cpu_s() < 1000.0:
                assert time.monotonic() < deadline, "no full pass found the reused pid"
                time.sleep(0.01)
        finally:
            stranger.kill()


def test_a_gone_root_counts_nothing() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert _tree.TreeCpu(process.pid).cpu_s() == 0.0
