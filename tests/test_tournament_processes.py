"""A tournament's matches over several supervisor processes: the same results and logs as in one, kept safe."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
import trio

from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import Plan, open_competition, prepare
from arena.competition.runner import Summary, run_tournament
from arena.competition.schedule import make_schedule
from arena.competition.store import PlayedMatch, Store
from arena.competition.worker import WORKER_MAIN
from arena.sandbox import started_by
from arena.supervisor.matchlog import read_log, strip_times
from protocol import Limits

from .conftest import REPO, SAMPLE_BOTS, recorded

RPS = SAMPLE_BOTS / "rps-poker"
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=2.0, move_wall_s=5.0)
RESETTING = ["random-python", "simple-py", "minimal-valid-py"]
"""Bots that reset at match_start: which of their processes plays a match cannot change it."""


def config_for(tmp_path: Path, bots: list[str], **changes: Any) -> TournamentConfig:
    config = TournamentConfig(
        game="rps-poker", bots=[BotEntry(text=str(RPS / b)) for b in bots], seed=4242, limits=FAST,
        db=tmp_path / "results.sqlite", log_dir=tmp_path / "logs",
    )  # fmt: skip
    for key, value in changes.items():
        setattr(config, key, value)
    return config


def play(
    plan: Plan, *, jobs: int, processes: int, reuse: bool = True, say: list[str] | None = None, during: Any = None
) -> tuple[Summary, list[PlayedMatch]]:
    said = say if say is not None else []

    async def main() -> Summary:
        with Store.open(plan.config.db) as store:
            competition = open_competition(plan, store)
            async with trio.open_nursery() as nursery:
                if during is not None:
                    nursery.start_soon(during, plan.config.db)
                summary = await run_tournament(
                    plan, store, competition, jobs=jobs, processes=processes, reuse=reuse, say=said.append
                )
                nursery.cancel_scope.cancel()
            return summary

    summary = trio.run(main)
    with Store.open(plan.config.db) as store:
        (tournament,) = store.tournaments()
        return summary, store.matches(tournament.id)


def results(matches: list[PlayedMatch]) -> list[tuple[Any, ...]]:
    return sorted(
        (m.key, m.bot_a, m.bot_b, m.seed, m.points, m.winner, m.forfeit, m.reason, m.faults, name_of(m.log_path))
        for m in matches
    )


def name_of(path: str | None) -> str:
    return Path(path or "").name


def log_bytes(path: Path, *, renumbered: bool = False) -> bytes:
    """The log without what depends on the clock, or on which process of a bot played (its stderr file's name).

    ``renumbered``: each seat's request ids counted from 1 (a reused process numbers them on from match to match).
    """
    records = strip_times(read_log(path))
    for bot in records[0]["bots"]:
        bot.pop("stderr_log")
    if renumbered:
        ids: dict[tuple[str, int], int] = {}
        for record in records:
            message = record.get("msg")
            if isinstance(message, dict) and "id" in message:
                message["id"] = ids.setdefault((record["seat"], message["id"]), len(ids) + 1)
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def logs_of(matches: list[PlayedMatch], *, renumbered: bool = False) -> dict[str, bytes]:
    """Each match's log by key (see :func:`log_bytes`)."""
    return {match.key: log_bytes(Path(match.log_path or ""), renumbered=renumbered) for match in matches}


def stamps(matches: list[PlayedMatch]) -> set[str]:
    """The stamps of the supervisor processes that played ``matches`` (``""``: this one), from their stderr files."""
    names = {name for files in stderr_logs(matches).values() for name in files}
    return {re.sub(r"^.*?\.(p\d+-)?\d+\.log$", r"\1", name).rstrip("-") for name in names}


def stderr_logs(matches: list[PlayedMatch]) -> dict[str, set[str]]:
    """Each bot's stderr files over ``matches`` (one per process that played it)."""
    found: dict[str, set[str]] = {}
    for match in matches:
        for bot in read_log(Path(match.log_path or ""))[0]["bots"]:
            found.setdefault(bot["name"], set()).add(Path(bot["stderr_log"]).name)
    return found


def workers_of(pid: int) -> list[psutil.Process]:
    found = []
    for child in psutil.Process(pid).children():
        with contextlib.suppress(psutil.Error):
            if WORKER_MAIN in " ".join(child.cmdline()):
                found.append(child)
    return found


@pytest.mark.slow
def test_two_processes_give_the_results_and_logs_of_one(tmp_path: Path) -> None:
    # Fresh processes: every request id counts from 1 in each match, so the logs are the same byte for byte.
    # Two cycles: each process holds the matches whose processes it starts ahead (three here), so in one cycle's six
    # (three deals, whose second legs wait for their first) this process could take every match before its worker is up.
    one_summary, one = play(
        prepare(config_for(tmp_path / "one", RESETTING, cycles=2)), jobs=1, processes=1, reuse=False
    )
    two_summary, two = play(
        prepare(config_for(tmp_path / "two", RESETTING, cycles=2)), jobs=2, processes=2, reuse=False
    )
    assert one_summary.played == two_summary.played == len(one) == len(two) == 12
    assert [f for m in one + two for f in m.faults] == []
    assert results(one) == results(two)
    assert logs_of(one) == logs_of(two)
    # Both processes played: each names its bots' stderr files with its own stamp (this one none, its worker p1).
    assert stamps(two) == {"", "p1"} and stamps(one) == {""}
    # Their pools are counted: two fresh processes a match, most started while the match before played.
    assert two_summary.pool.started == 2 * 12 and two_summary.pool.reused == 0
    assert two_summary.pool.prepared >= 2


@pytest.mark.slow
def test_two_processes_reusing_bots_give_the_results_of_one(tmp_path: Path) -> None:
    one_summary, one = play(prepare(config_for(tmp_path / "one", RESETTING, cycles=2)), jobs=1, processes=1)
    two_summary, two = play(prepare(config_for(tmp_path / "two", RESETTING, cycles=2)), jobs=2, processes=2)
    assert one_summary.played == two_summary.played == len(two) == 12
    assert results(one) == results(two)
    # A reused process numbers its requests on from match to match: which process played a match shows only there.
    assert logs_of(one, renumbered=True) == logs_of(two, renumbered=True)
    assert logs_of(one) != logs_of(two)
    assert stamps(two) == {"", "p1"}  # this process and one match worker
    assert two_summary.pool.started <= 2 * 2 * len(RESETTING)  # the legs of a deal apart, in each process
    assert two_summary.pool.started + two_summary.pool.reused == 2 * 12


@pytest.mark.slow
def test_persistent_bots_keep_one_process_and_their_order_over_several_processes(tmp_path: Path) -> None:
    # tsh-py and basic-odds-py keep state across matches ("persistent"): their results depend on the order.
    bots = ["tsh-py", "basic-odds-py", "random-python"]
    _, one = play(prepare(config_for(tmp_path / "one", bots, cycles=2)), jobs=1, processes=1)
    plan = prepare(config_for(tmp_path / "two", bots, cycles=2))
    assert plan.specs["tsh-py"].persistent and plan.specs["basic-odds-py"].persistent
    _, two = play(plan, jobs=3, processes=2)
    assert len(two) == 12
    assert results(one) == results(two)
    files = stderr_logs(two)
    assert len(files["tsh-py"]) == len(files["basic-odds-py"]) == 1  # one process each, for all their matches
    assert logs_of(one, renumbered=True) == logs_of(two, renumbered=True)


@pytest.mark.slow
def test_a_killed_supervisor_process_s_matches_are_played_again_and_recorded_once(tmp_path: Path) -> None:
    killed: list[int] = []
    orphans: list[psutil.Process] = []

    async def kill_one_worker(db: Path) -> None:
        while not killed:
            await trio.sleep(0.05)
            workers = workers_of(os.getpid())  # this process is the other supervisor
            if recorded(db) < 2 or len(workers) != 1:
                continue
            victim = workers[0]
            # Its bots are started ahead, so having bots says nothing; a match in play holds its log open
            # (MatchLog, closed before the worker answers "played"). Stopped, the worker cannot finish one
            # between the look and the kill.
            with contextlib.suppress(psutil.NoSuchProcess):
                victim.suspend()
                try:
                    if any(".jsonl" in f.path for f in victim.open_files()):
                        orphans.extend(started_by(victim.pid))  # its bots, to see that they die with it
                        victim.send_signal(signal.SIGKILL)
                        killed.append(victim.pid)
                finally:
                    if not killed:
                        victim.resume()

    plan = prepare(config_for(tmp_path / "two", ["random-python", "minimal-python"], cycles=6))
    said: list[str] = []
    summary, matches = play(plan, jobs=2, processes=2, say=said, during=kill_one_worker)
    assert killed
    died = [line for line in said if f"(pid {killed[0]}) died" in line]
    assert len(died) == 1, said
    lost = int(re.search(r"(\d+) matches in play will be played again", died[0]).group(1))  # type: ignore[union-attr]
    assert lost >= 1  # it held matches (its share and one waiting), which were handed over again
    expected = sorted(m.key for m in make_schedule(plan.names, seed=4242, cycles=6, duplicate=True))
    assert sorted(m.key for m in matches) == expected
    assert summary.played == len(expected)
    assert [f for m in matches for f in m.faults] == []
    _, alive = psutil.wait_procs(orphans, timeout=10)
    assert not alive, f"bots outlived their killed supervisor: {[p.pid for p in alive]}"


def command(db: Path, tmp_path: Path) -> list[str]:
    return [
        sys.executable, "-m", "arena", "tournament", "rps-poker",
        *(str(RPS / b) for b in ("random-python", "simple-py", "minimal-python")),
        "--cycles", "6", "--seed", "77", "--db", str(db), "--log-dir", str(tmp_path / "logs"),
        "--jobs", "2", "--processes", "2",
    ]  # fmt: skip


@pytest.mark.slow
def test_sigkill_of_the_parent_leaves_no_process_and_a_rerun_records_each_match_once(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command(db, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    left: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, "the tournament ended before it could be killed"
            assert time.monotonic() < deadline, "no match was recorded in time"
            workers = workers_of(process.pid)
            if len(workers) == 1 and recorded(db) >= 3:  # the tournament's own process is the other
                break
            time.sleep(0.02)
        left = [*workers, *started_by(process.pid), *(bot for worker in workers for bot in started_by(worker.pid))]
        assert len(left) > 2  # the worker and the bots of both supervisor processes
        process.send_signal(signal.SIGKILL)
        process.wait()
        _, alive = psutil.wait_procs(left, timeout=15)
        assert not alive, f"outlived the killed tournament: {[(p.pid, p.name()) for p in alive]}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for proc in left:
            with contextlib.suppress(psutil.Error):
                proc.kill()
    before = recorded(db)
    expected = {
        m.key
        for m in make_schedule(["random-python", "simple-py", "minimal-python"], seed=77, cycles=6, duplicate=True)
    }
    assert 3 <= before < len(expected)
    rerun = subprocess.run(command(db, tmp_path), capture_output=True, text=True, env=env, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"resuming: {before} of {len(expected)} recorded" in rerun.stdout
    with Store.open(db) as store:
        (tournament,) = store.tournaments()
        keys = [m.key for m in store.matches(tournament.id)]
    assert len(keys) == len(set(keys)) == len(expected)
    assert set(keys) == expected


@pytest.mark.slow
def test_ctrl_c_over_two_processes_stops_them_and_their_bots(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        command(db, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    left: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 120
        while len(workers := workers_of(process.pid)) < 1 or recorded(db) < 2:
            assert process.poll() is None, "the tournament ended before it could be stopped"
            assert time.monotonic() < deadline, "no match was recorded in time"
            time.sleep(0.02)
        left = [*workers, *started_by(process.pid), *(bot for worker in workers for bot in started_by(worker.pid))]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Leaderboard (" in out and "run the same command again to resume" in err
    _, alive = psutil.wait_procs(left, timeout=5)  # stopped before the tournament exited: nothing to wait for
    assert not alive, f"outlived the stopped tournament: {[(p.pid, p.name()) for p in alive]}"


@pytest.mark.slow
def test_a_bot_disqualified_over_two_processes_starts_no_match_and_the_rest_are_played(tmp_path: Path) -> None:
    crashing = f"{sys.executable} {REPO / 'tests' / 'faulty' / 'bot.py'} exit_mid"
    config = config_for(tmp_path, ["random-python", "minimal-python"], cycles=3, max_faults=1)
    config.bots.append(BotEntry(text=crashing))
    plan = prepare(config)
    said: list[str] = []
    summary, matches = play(plan, jobs=2, processes=2, say=said)
    (crasher,) = set(plan.names) - {"random-python", "minimal-python"}
    assert crasher in summary.disqualified
    with_it = [m for m in matches if crasher in (m.bot_a, m.bot_b)]
    # Two faults disqualify it; besides those, only matches already under way then were played (those waiting
    # their turn in a worker were withdrawn and count as skipped, never played again nor lost).
    assert len(with_it) <= 2 + summary.in_flight_at_disqualification[crasher]
    assert summary.played == len(matches) and summary.played + summary.skipped == summary.scheduled
    assert len({m.key for m in matches}) == len(matches)
    others = [m for m in matches if crasher not in (m.bot_a, m.bot_b)]
    assert len(others) == 3 * 2  # the other pair's every match
    assert not [line for line in said if "died" in line]


def test_a_run_too_short_to_repay_another_process_starts_none() -> None:
    from types import SimpleNamespace

    from arena.competition.runner import MATCHES_TO_REPAY_A_PROCESS, MATCHES_TO_REPAY_A_PROCESS_FRESH, processes_for

    def runner(left: int, *, reused: bool) -> Any:
        specs = {name: SimpleNamespace(reuse=reused) for name in ("a", "b")}
        entrants = [SimpleNamespace(name=name) for name in specs]
        return SimpleNamespace(total=left + 7, done=7, plan=SimpleNamespace(specs=specs), entrants=entrants)

    short, enough = MATCHES_TO_REPAY_A_PROCESS - 1, MATCHES_TO_REPAY_A_PROCESS
    assert processes_for(2, runner(short, reused=True), reuse=True) == 1
    assert processes_for(2, runner(enough, reused=True), reuse=True) == 2
    assert processes_for(4, runner(10 * enough, reused=True), reuse=True) == 4
    assert processes_for(2, runner(short, reused=True), reuse=False) == 2  # --no-reuse: every match starts processes
    assert processes_for(2, runner(MATCHES_TO_REPAY_A_PROCESS_FRESH, reused=False), reuse=True) == 2
    assert processes_for(2, runner(MATCHES_TO_REPAY_A_PROCESS_FRESH - 1, reused=False), reuse=True) == 1


def test_each_process_holds_the_matches_whose_fresh_processes_it_starts_ahead() -> None:
    from types import SimpleNamespace

    from arena.competition.worker import LOCAL, Supervisors
    from arena.supervisor import STARTS_AHEAD

    async def local(scheduled: Any, log_path: Any) -> None:
        return None

    match = SimpleNamespace(persistent=())
    workers: Any = [SimpleNamespace(ready=True)]
    fresh = Supervisors(workers, [1], {}, local=local, local_share=1, waiting=STARTS_AHEAD)
    assert fresh.slots == 2 * (1 + STARTS_AHEAD)  # a share of one in each process, and the matches started ahead
    fresh.local_held, fresh.held = 1 + STARTS_AHEAD - 1, [1 + STARTS_AHEAD]
    assert fresh._pick(match) == LOCAL  # here still holds fewer than it starts ahead (was: one waiting at most)
    fresh.local_held = 1 + STARTS_AHEAD
    fresh.held = [1 + STARTS_AHEAD - 1]
    assert fresh._pick(match) == 0
    reused = Supervisors(workers, [1], {}, local=local, local_share=1)
    assert reused.slots == 2 * 2  # reused processes start nothing ahead: one waits in each


@pytest.mark.slow
def test_workers_started_ahead_of_a_run_with_nothing_left_to_play_are_stopped(tmp_path: Path) -> None:
    plan = prepare(config_for(tmp_path, RESETTING))
    play(plan, jobs=1, processes=1)
    said: list[str] = []
    summary, _ = play(plan, jobs=2, processes=3, say=said)  # workers start as the bots are admitted
    assert summary.played == 0 and any("nothing new to play" in line for line in said), said
    assert workers_of(os.getpid()) == [], "a worker started ahead outlived a run that did not need it"
