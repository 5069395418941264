"""The wait for the bots' answers (OutputWatch): in the thread when a process has one match, through trio otherwise."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from arena.supervisor import _process
from arena.supervisor._process import OutputWatch
from protocol import Limits


@dataclass
class _Pipe:
    """What OutputWatch needs of a bot: the descriptor its answers are read from."""

    stdout_fd: int
    write_fd: int
    stderr_fd: int = -1
    """Its stderr pipe while a task drains it (-1: none)."""


@pytest.fixture
def pipe() -> Iterator[_Pipe]:
    read, write = os.pipe()
    yield _Pipe(read, write)
    os.close(read)
    os.close(write)


@pytest.fixture
def trio_waits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The descriptors waited on through trio's loop (trio.lowlevel.wait_readable) while the test runs."""
    waited: list[int] = []
    real = trio.lowlevel.wait_readable

    async def counted(fd: int) -> None:
        waited.append(fd)
        await real(fd)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", counted)
    return waited


async def test_the_only_match_of_a_process_takes_a_quick_answer_without_trios_loop(
    pipe: _Pipe, trio_waits: list[int]
) -> None:
    with OutputWatch() as watch:
        os.write(pipe.write_fd, b"{}\n")
        woken = await watch.wait([pipe], trio.current_time() + 5)  # type: ignore[list-item]
    assert woken == {pipe.stdout_fd}
    assert trio_waits == []


async def test_a_slow_answer_is_waited_for_in_trios_loop_which_runs_the_other_tasks(
    pipe: _Pipe, trio_waits: list[int]
) -> None:
    ran: list[str] = []

    async def other_task() -> None:
        ran.append("other")
        await trio.sleep(0.05)
        os.write(pipe.write_fd, b"{}\n")

    with OutputWatch() as watch:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_task)
            woken = await watch.wait([pipe], trio.current_time() + 5)  # type: ignore[list-item]
    assert woken == {pipe.stdout_fd}
    assert ran == ["other"]
    assert len(trio_waits) == 1  # after at most SYNC_WAIT_S in the thread


async def test_a_bot_whose_stderr_waits_to_be_read_lets_trios_loop_run(
    pipe: _Pipe, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its stderr is drained by a task in trio's loop: a wait that finds it waiting visits the loop (a match that
    # took every answer in the thread would leave a chatty bot blocked on a full stderr pipe meanwhile).
    visits: list[int] = []
    real = trio.lowlevel.checkpoint

    async def counted() -> None:
        visits.append(1)
        await real()

    monkeypatch.setattr(trio.lowlevel, "checkpoint", counted)
    err_read, err_write = os.pipe()
    try:
        bot = _Pipe(pipe.stdout_fd, pipe.write_fd, stderr_fd=err_read)
        with OutputWatch() as watch:
            os.write(pipe.write_fd, b"{}\n")
            assert await watch.wait([bot], trio.current_time() + 5) == {pipe.stdout_fd}  # type: ignore[list-item]
            assert len(visits) == 1  # the first answer visits the loop; the next, within 2 ms, would not...
            os.read(pipe.stdout_fd, 100)
            os.write(pipe.write_fd, b"{}\n")
            os.write(err_write, b"debug line\n")  # ... but for the bot's stderr waiting to be read
            assert await watch.wait([bot], trio.current_time() + 5) == {pipe.stdout_fd}  # type: ignore[list-item]
            assert len(visits) == 2
    finally:
        os.close(err_read)
        os.close(err_write)


async def test_with_two_matches_in_the_process_every_wait_goes_through_trios_loop(
    pipe: _Pipe, trio_waits: list[int]
) -> None:
    with OutputWatch() as watch, OutputWatch():
        os.write(pipe.write_fd, b"{}\n")
        woken = await watch.wait([pipe], trio.current_time() + 5)  # type: ignore[list-item]
    assert woken == {pipe.stdout_fd}
    assert len(trio_waits) == 1  # the other match's bots are never kept waiting by this one's


async def test_nothing_by_the_deadline_returns_nothing_at_the_deadline(pipe: _Pipe) -> None:
    with OutputWatch() as watch:
        started = trio.current_time()
        woken = await watch.wait([pipe], started + 0.1)  # type: ignore[list-item]
        elapsed = trio.current_time() - started
    assert woken == set()
    assert elapsed >= 0.1


async def test_the_server_process_never_waits_in_the_thread(pipe: _Pipe, trio_waits: list[int]) -> None:
    _process.SYNC_WAIT.set(0.0)  # as `arena serve` sets it for its web process (this test's trio run alone)
    with OutputWatch() as watch:
        os.write(pipe.write_fd, b"{}\n")
        woken = await watch.wait([pipe], trio.current_time() + 5)  # type: ignore[list-item]
    assert woken == {pipe.stdout_fd}
    assert len(trio_waits) == 1


async def test_a_closed_watch_is_no_longer_counted_and_counts_are_per_trio_loop() -> None:
    before = _process.open_watches()
    watch = OutputWatch()
    assert _process.open_watches() == before + 1

    async def counted_there() -> int:
        return _process.open_watches()

    assert await trio.to_thread.run_sync(trio.run, counted_there) == 0  # (another thread's loop: its own count)
    watch.close()
    watch.close()  # (twice: counted once)
    assert _process.open_watches() == before


async def test_the_ready_tasks_count_is_trios_own() -> None:
    # ready_tasks reads trio's run queue (its public statistics walk every watched descriptor): the same number.
    count = _process.ready_tasks()
    public = trio.lowlevel.current_statistics
    assert count() == public().tasks_runnable == 0
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(trio.sleep, 0)
        assert count() == public().tasks_runnable == 3
        await trio.sleep(0)
        assert count() == public().tasks_runnable


def test_a_servers_matches_never_wait_in_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # A server's checks play in its web process (trio's loop always); its ladder's matches, in the match worker or
    # on a cluster, wait the same way, so that the time to the next request does not tell a check from the ladder.
    from arena.competition import cluster, worker
    from arena.server import ladder_host

    made: list[bool] = []

    class Made(Exception):
        pass

    def match_worker(setup: worker.Setup, *args: object, **kwargs: object) -> None:
        made.append(setup.sync_waits)
        raise Made

    async def open_one() -> None:
        async with worker.open_match_worker(
            "rps-poker", {}, Limits(), tournament_id=1, jobs=1, stderr_dir=None, stamp=""
        ):
            pass

    monkeypatch.setattr(worker, "MatchWorker", match_worker)
    with pytest.raises(Made):
        trio.run(open_one)
    assert made == [False]  # the server's match worker
    tournament = worker.match_setup("rps-poker", {}, Limits(), tournament_id=1, jobs=1, stderr_dir=None, stamp="")
    assert tournament.sync_waits  # a tournament's workers may
    assert cluster.MatchOrder.__dataclass_fields__["sync_waits"].default is True
    assert "open_executor(address, plan, c.tid, sync_waits=False)" in Path(ladder_host.__file__).read_text()


async def test_a_server_process_waits_in_trios_loop_while_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.server.serve as serve
    from arena.server.config import load
    from arena.server.serve import run_server

    from .servertools import write_config

    seen: list[float] = []
    from arena.server.web import create_app

    def recording(competition: object) -> object:
        seen.append(_process.SYNC_WAIT.get())  # in run_server's task, where its checks and ladder start
        return create_app(competition)  # type: ignore[arg-type]

    monkeypatch.setattr(serve, "create_app", recording)
    assert _process.SYNC_WAIT.get() > 0
    config = load(write_config(tmp_path))
    async with trio.open_nursery() as nursery:
        await nursery.start(lambda task_status: run_server(config, jobs=0, say=lambda _: None, task_status=task_status))
        assert seen == [0.0]  # its checks, a person's game, or the ladder played here
        assert _process.SYNC_WAIT.get() > 0  # not the rest of the process
        nursery.cancel_scope.cancel()
    assert _process.SYNC_WAIT.get() > 0
