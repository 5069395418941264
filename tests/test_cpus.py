"""Each supervisor process of a run, with its bots, keeps to a CPU of its own (arena/competition/cpus.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import threading
from pathlib import Path

import psutil
import pytest
import trio

from arena.competition import worker
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.cpus import allowed_cpus, pinned, pinning
from arena.competition.plan import open_competition, prepare
from arena.competition.runner import run_tournament, supervisor_processes
from arena.competition.store import PlayedMatch, Store
from arena.competition.worker import WORKER_MAIN
from protocol import Limits

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=2.0, move_wall_s=5.0)
BOTS = ["random-python", "simple-py", "minimal-valid-py"]


def test_one_cpu_each_only_with_one_process_per_allowed_cpu() -> None:
    assert pinning(2, [0, 1]) == [frozenset({0}), frozenset({1})]
    assert pinning(3, [2, 5, 7]) == [frozenset({2}), frozenset({5}), frozenset({7})]  # the mask's CPUs, in order
    assert pinning(2, [0, 1], enabled=False) is None  # --no-pin
    assert pinning(1, [0, 1]) is None  # one process keeps the whole mask
    assert pinning(2, [0, 1, 2, 3]) is None  # fewer processes than CPUs: left to the scheduler
    assert pinning(3, [0, 1]) is None  # more processes than CPUs: no CPU shared by a pin
    # A mask (or cpuset) of one CPU: one process by default, and nothing to pin even when more are asked for.
    assert pinning(1, [3]) is None and pinning(2, [3]) is None


def test_a_mask_of_one_cpu_gives_one_process_and_no_pin() -> None:
    before = os.sched_getaffinity(0)
    cpu = max(before)
    os.sched_setaffinity(0, {cpu})
    try:
        assert allowed_cpus() == [cpu]
        assert supervisor_processes(None, 2) == 1
        assert pinning(supervisor_processes(None, 2), allowed_cpus()) is None
    finally:
        os.sched_setaffinity(0, before)


def test_pinned_sets_every_thread_and_restores_the_mask() -> None:
    before = os.sched_getaffinity(0)
    cpu = max(before)
    seen: dict[str, set[int]] = {}
    go, done = threading.Event(), threading.Event()

    def older() -> None:  # a thread started before the pin
        go.wait(30)
        seen["older"] = os.sched_getaffinity(0)
        done.set()

    thread = threading.Thread(target=older)
    thread.start()
    with pinned(frozenset({cpu})):
        go.set()
        assert done.wait(30)
        seen["main"] = os.sched_getaffinity(0)
        newer = threading.Thread(target=lambda: seen.setdefault("newer", os.sched_getaffinity(0)))
        newer.start()
        newer.join()
    thread.join()
    assert seen == {"older": {cpu}, "main": {cpu}, "newer": {cpu}}
    assert os.sched_getaffinity(0) == before
    with pinned(None):  # nothing to pin: nothing changes
        assert os.sched_getaffinity(0) == before


def _affinities(parent: int, ignored: set[int]) -> dict[str, dict[int, frozenset[int]]]:
    """The CPU masks of the match worker, its descendants, and this process's other descendants (its bots), leaving
    out the children in ``ignored`` and theirs (started before the run: under pytest-xdist a worker may still hold
    another test module's chromium)."""
    found: dict[str, dict[int, frozenset[int]]] = {"worker": {}, "worker's bots": {}, "bots here": {}}
    for child in psutil.Process(parent).children():
        if child.pid in ignored:
            continue
        with contextlib.suppress(psutil.Error):
            if WORKER_MAIN in " ".join(child.cmdline()):
                found["worker"][child.pid] = frozenset(child.cpu_affinity())
                for bot in child.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        found["worker's bots"][bot.pid] = frozenset(bot.cpu_affinity())
            else:
                for process in [child, *child.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        found["bots here"][process.pid] = frozenset(process.cpu_affinity())
    return found


def _run_two_processes(
    tmp_path: Path, *, pin: bool, reuse: bool = True
) -> tuple[dict[str, dict[int, frozenset[int]]], set[int]]:
    """A 2-process run; the masks seen at each recorded match, and this process's own mask then."""
    config = TournamentConfig(
        game="rps-poker", bots=[BotEntry(text=str(RPS / b)) for b in BOTS], seed=7, limits=FAST, cycles=3,
        db=tmp_path / "results.sqlite", log_dir=tmp_path / "logs",
    )  # fmt: skip
    plan = prepare(config)
    seen: dict[str, dict[int, frozenset[int]]] = {"worker": {}, "worker's bots": {}, "bots here": {}}
    here: set[int] = set()

    ignored = {child.pid for child in psutil.Process().children()}

    def watch(_match: PlayedMatch) -> bool:
        for kind, masks in _affinities(os.getpid(), ignored).items():
            seen[kind].update(masks)
        here.update(os.sched_getaffinity(0))
        return False

    async def main() -> None:
        with Store.open(config.db) as store:
            competition = open_competition(plan, store)
            summary = await run_tournament(
                plan, store, competition, jobs=2, processes=2, reuse=reuse, watch=watch, pin=pin
            )
            assert summary.played == 18

    trio.run(main)
    return seen, here


def assert_unpinned(seen: dict[str, dict[int, frozenset[int]]], here: set[int], before: set[int]) -> None:
    """Every process of a run (:func:`_run_two_processes`'s ``seen`` and ``here``) kept the mask ``before``."""
    assert here == before
    assert seen["worker"] and seen["worker's bots"] and seen["bots here"]
    for kind in seen:
        assert set(seen[kind].values()) == {frozenset(before)}, kind


@pytest.mark.slow
def test_each_supervisor_process_and_its_bots_keep_to_a_cpu_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("needs two CPUs")
    first, second = sorted(before)[:2]
    monkeypatch.setattr(worker, "allowed_cpus", lambda: [first, second])  # as on a 2-CPU machine, on any
    seen, here = _run_two_processes(tmp_path, pin=True)
    assert here == {first}  # this process (the tournament's own) plays on the first CPU ...
    assert set(seen["bots here"].values()) == {frozenset({first})}  # ... with its bots
    assert set(seen["worker"].values()) == {frozenset({second})}  # the match worker on the second
    assert set(seen["worker's bots"].values()) == {frozenset({second})}  # with its bots
    assert os.sched_getaffinity(0) == before  # after the run, this process's mask as before


@pytest.mark.slow
def test_no_pin_leaves_every_process_its_mask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("needs two CPUs")
    monkeypatch.setattr(worker, "allowed_cpus", lambda: sorted(before)[:2])
    seen, here = _run_two_processes(tmp_path, pin=False)
    assert_unpinned(seen, here, before)


def test_no_pin_is_an_option_of_tournament_and_compare() -> None:
    from arena.competition import cli, compare_cli

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli.register_tournament(sub)
    compare_cli.register(sub)
    assert parser.parse_args(["tournament", "rps-poker", "a", "b"]).no_pin is False
    assert parser.parse_args(["tournament", "rps-poker", "a", "b", "--no-pin"]).no_pin is True
    compare = ["compare", "rps-poker", "a", "b"]
    assert parser.parse_args(compare).no_pin is False
    assert parser.parse_args([*compare, "--no-pin"]).no_pin is True


@pytest.mark.slow
def test_a_run_whose_bots_start_a_fresh_process_for_every_match_pins_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fresh match's cost is its bots' starts, tens of milliseconds of CPU each: kept to their supervisor's CPU they
    # wait for it while the other idles (the default --jobs took 6.7 s against --jobs 1's 4.7, unpinned 4.5).
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("needs two CPUs")
    monkeypatch.setattr(worker, "allowed_cpus", lambda: sorted(before)[:2])
    seen, here = _run_two_processes(tmp_path, pin=True, reuse=False)
    assert_unpinned(seen, here, before)
