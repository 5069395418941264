"""The constant files a jail sees over /proc's global counters: the format runtimes read, nothing that moves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.spec import BotSpec
from arena.sandbox import capabilities, current_policy, layers_in_force
from arena.sandbox._masks import contents
from arena.sandbox._plan import Jail
from protocol import Limits

MEMORY = 256 << 20


def test_meminfo_says_the_memory_limit_is_all_there_is_in_the_real_files_shape() -> None:
    fake = contents(MEMORY)["meminfo"].decode().splitlines()
    real = Path("/proc/meminfo").read_text().splitlines()
    assert [line.split(":")[0] for line in fake] == [line.split(":")[0] for line in real]
    values = {line.split(":")[0]: line.split()[1] for line in fake}
    assert values["MemTotal"] == values["MemFree"] == values["MemAvailable"] == str(MEMORY >> 10)
    assert values["Shmem"] == values["Cached"] == "0"


def test_stat_lists_the_machines_cpus_with_no_time_spent() -> None:
    fake = contents(MEMORY)["stat"].decode().splitlines()
    real = Path("/proc/stat").read_text().splitlines()
    cpus = [line.split()[0] for line in real if line.startswith("cpu")]
    assert [line.split()[0] for line in fake if line.startswith("cpu")] == cpus
    assert all(set(line.split()[1:]) == {"0"} for line in fake if line.startswith("cpu"))
    assert "processes 0" in fake


def jailed(command: str) -> str:
    """What ``command`` prints inside a jail of the sandbox in force."""
    spec = BotSpec(name="counters", command=("/bin/sh", "-c", command), cwd=Path("/"))
    jail = Jail(spec, Limits(memory_bytes=MEMORY), current_policy(), capabilities())
    jail.prepare({"PATH": "/usr/bin:/bin"})
    try:
        done = subprocess.run(jail.argv, cwd=jail.cwd, pass_fds=(jail.lifeline_r,), capture_output=True,
                              text=True, timeout=30, check=False)  # fmt: skip
    finally:
        jail.kill_all()
        jail.close()
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_jail_reads_the_constants_and_the_same_each_time() -> None:
    layers = set(layers_in_force())
    if not {"bwrap", "mntns"} & layers:
        pytest.skip("no mount namespace of the jail's own here: the counters stay the machine's")
    command = "cat /proc/meminfo /proc/loadavg /proc/sys/fs/file-nr /proc/vmstat; ls /proc/pressure"
    first = jailed(command)
    held = [os.open(sys.executable, os.O_RDONLY) for _ in range(50)]  # the machine's open files move
    try:
        assert jailed(command) == first
    finally:
        for fd in held:
            os.close(fd)
    assert f"MemTotal:       {MEMORY >> 10:>8} kB" in first and "0.00 0.00 0.00 1/1 1" in first
