"""Living competitions killed with SIGKILL, then run again: nothing lost, nothing played twice."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from arena.competition.store import Store

from .conftest import REPO, SAMPLE_BOTS
from .test_tournament_kill import orphans_of, recorded, wait_for_matches

RPS = SAMPLE_BOTS / "rps-poker"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def command(db: Path, *bots: Path, extra: tuple[str, ...] = ()) -> list[str]:
    return [
        sys.executable, "-m", "arena", "tournament", "rps-poker", *map(str, bots), "--cycles", "3", "--seed", "31",
        "--db", str(db), "--log-dir", str(db.parent / "logs"), "--jobs", "2", "--quiet", *extra,
    ]  # fmt: skip


def kill_after(args: list[str], db: Path, matches: int) -> None:
    """Start ``args``, SIGKILL it once ``matches`` matches are recorded, and reap what it left."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    try:
        wait_for_matches(db, process, matches)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    for proc in orphans_of(process.pid):
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()


def finish(args: list[str]) -> str:
    done = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def keys_and_versions(db: Path) -> tuple[list[str], list[tuple[str, int]]]:
    with Store.open(db, readonly=True) as store:
        (competition,) = store.tournaments()
        keys = [m.key for m in store.matches(competition.id)]
        versions = [(v.name, v.version) for v in store.versions(competition.id)]
    return keys, versions


@pytest.mark.slow
def test_sigkill_while_a_changed_bot_replays_then_rerun_completes_each_match_once(tmp_path: Path) -> None:
    changing = tmp_path / "changing"
    shutil.copytree(RPS / "random-python", changing)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.toml").write_text('run = "python3 bot.py"\nbuild = "sh -c \'echo no compiler; exit 1\'"\n')
    db = tmp_path / "r.sqlite"
    bots = (RPS / "minimal-python", changing, RPS / "tsh-py", bad)  # tsh-py is persistent
    first = finish(command(db, *bots))
    assert "not admitted: bad" in first
    assert recorded(db) == 3 * 3 * 2  # three admitted bots: 3 pairings x 3 cycles x 2 legs

    with (changing / "bot.py").open("a") as handle:
        handle.write("# changed\n")
    kill_after(command(db, *bots), db, 3 * 3 * 2 + 2)  # killed while its new version replays its 12 matches
    keys, versions = keys_and_versions(db)
    assert 3 * 3 * 2 + 2 <= len(keys) < 3 * 3 * 2 + 12

    rerun = finish(command(db, *bots))
    assert "bad is not admitted (unchanged since: " in rerun
    assert re.search(r"resuming: \d+ of 18 recorded", rerun), rerun
    keys, versions = keys_and_versions(db)
    assert len(keys) == len(set(keys)) == 3 * 3 * 2 + 12
    assert sum(1 for k in keys if "random-python.v2" in k) == 12  # the copy keeps its manifest's name
    assert sorted(versions) == [
        ("bad", 1), ("minimal-python", 1), ("random-python", 1), ("random-python", 2), ("tsh-py", 1),
    ]  # fmt: skip


@pytest.mark.slow
def test_sigkill_of_one_of_two_arenas_on_one_database_then_rerun_completes_each_match_once(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    bots = (RPS / "minimal-python", RPS / "random-python", RPS / "simple-py", RPS / "tsh-py")
    total = 6 * 3 * 2
    finish(command(db, *bots[:2], extra=("--cycles", "1")))  # the competition exists before both start
    args = command(db, *bots)
    survivor = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV, text=True)
    try:
        kill_after(args, db, 8)
        out, _ = survivor.communicate(timeout=600)
    finally:
        if survivor.poll() is None:
            survivor.kill()
            survivor.wait()
    assert survivor.returncode == 0, out
    keys, _ = keys_and_versions(db)
    assert len(keys) == len(set(keys))  # the two arenas never played a match twice
    rerun = finish(args)  # the killed arena's claims are taken over
    keys, _ = keys_and_versions(db)
    assert len(keys) == len(set(keys)) == total, rerun
