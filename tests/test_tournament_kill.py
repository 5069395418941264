"""``arena tournament`` as a process: killed with SIGKILL or stopped with Ctrl-C, then resumed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from arena.competition.schedule import make_schedule
from arena.competition.store import Store
from arena.sandbox import started_by

from .conftest import REPO, SAMPLE_BOTS, recorded

RPS = SAMPLE_BOTS / "rps-poker"
BOTS = ["random-python", "simple-py", "minimal-python"]
CYCLES = 3
"""18 matches: a kill after the third leaves 15 to resume (6 cycles, 36 matches, proved no more at twice the CPU)."""


def command(db: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "arena", "tournament", "rps-poker", *(str(RPS / b) for b in BOTS),
        "--cycles", str(CYCLES), "--seed", "77", "--db", str(db), "--log-dir", str(tmp_path / "logs"), "--jobs", "2",
        "--no-reuse", *extra,
    ]  # fmt: skip


def wait_for_matches(db: Path, process: subprocess.Popen[bytes], count: int) -> None:
    deadline = time.monotonic() + 120
    while recorded(db) < count:
        assert process.poll() is None, "the tournament ended before it could be stopped"
        assert time.monotonic() < deadline, "no matches were recorded in time"
        time.sleep(0.02)


def orphans_of(pid: int) -> list[psutil.Process]:
    """Bot processes the killed arena started, and what they started (see :func:`arena.sandbox.started_by`)."""
    return started_by(pid)


def expected_keys() -> set[str]:
    return {m.key for m in make_schedule(BOTS, seed=77, cycles=CYCLES, duplicate=True)}


@pytest.mark.slow
def test_sigkill_mid_run_then_rerun_records_every_match_exactly_once(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command(db, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        wait_for_matches(db, process, 3)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # The killed arena could not stop its bots; they exit when their input closes. Reap any straggler.
    for proc in orphans_of(process.pid):
        with contextlib.suppress(psutil.NoSuchProcess):  # it may exit on its own meanwhile
            proc.kill()
    before = recorded(db)
    assert 3 <= before < len(expected_keys())
    rerun = subprocess.run(command(db, tmp_path), capture_output=True, text=True, env=env, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"resuming: {before} of {len(expected_keys())} recorded" in rerun.stdout
    assert f"Played {len(expected_keys()) - before} matches" in rerun.stdout
    with Store.open(db) as store:
        (tournament,) = store.tournaments()
        keys = [m.key for m in store.matches(tournament.id)]
    assert len(keys) == len(set(keys)) == len(expected_keys())
    assert set(keys) == expected_keys()


@pytest.mark.slow
def test_ctrl_c_keeps_finished_matches_prints_the_summary_and_leaves_no_process(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        command(db, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    try:
        wait_for_matches(db, process, 2)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Leaderboard (" in out
    assert "Interrupted:" in err and "run the same command again to resume" in err
    assert orphans_of(process.pid) == []
    done = recorded(db)
    assert 2 <= done < len(expected_keys())
