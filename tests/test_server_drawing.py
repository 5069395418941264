"""The standings are drawn in a process of the server's own (:mod:`arena.server.drawing`): what it draws, and its
lifetime (it ends with the server, however the server ends, and a new one takes over when it dies)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
import trio

from arena.server.service import Competition

from .test_server_standings import competition, play  # noqa: F401 (the fixture)


def rows(snapshot: object) -> list[tuple[str, int, int, float]]:
    board = snapshot.board  # type: ignore[attr-defined]
    return [(r.bot, r.matches, r.wins, round(r.rating, 9)) for r in board.standings]


def test_the_drawing_process_draws_what_the_servers_own_process_draws(competition: Competition) -> None:  # noqa: F811
    for number, winner in enumerate(["A", "B", "A", None, "A"]):
        play(competition, number, winner)
    standings = competition.standings
    trio.run(standings.draw_first)
    apart = standings.snapshot
    child = standings._apart.process
    assert apart is not None and child is not None and child.pid != os.getpid()
    here = standings._tabulate([v for v in competition.versions() if v.playing], competition.played, 0.0, None)
    assert rows(apart) == rows(here)
    assert sum(r.matches for r in apart.board.standings) == 10


def test_a_drawing_process_that_dies_is_replaced_by_the_next_drawing(competition: Competition) -> None:  # noqa: F811
    for number, winner in enumerate(["A", "B", "A"]):
        play(competition, number, winner)
    standings = competition.standings
    trio.run(standings.draw_first)
    first = standings._apart.process
    assert first is not None
    os.kill(first.pid, signal.SIGKILL)  # (the kernel's OOM killer, say)
    first.wait()
    play(competition, 3, "B")
    trio.run(standings.draw_first)  # the next drawing starts a new process
    second = standings._apart.process
    assert second is not None and second.pid != first.pid
    assert standings.snapshot is not None and sum(r.matches for r in standings.snapshot.board.standings) == 8


def test_a_stop_ends_the_drawing_process(competition: Competition) -> None:  # noqa: F811
    play(competition, 0, "A")
    trio.run(competition.standings.draw_first)
    child = competition.standings._apart.process
    assert child is not None
    competition.close()
    assert child.poll() is not None


SERVER = textwrap.dedent(
    """
    import sys, time, trio
    from pathlib import Path
    from arena.server.config import load
    from arena.server.service import Competition
    c = Competition(load(Path(sys.argv[1])))
    c.add_house_bots()
    c.field_changed()
    trio.run(c.standings.draw_first)
    print(c.standings._apart.process.pid, flush=True)
    time.sleep(600)
    """
)


def test_the_drawing_process_dies_with_a_killed_server(tmp_path: Path) -> None:
    """A server killed outright (no stop in order) leaves no drawing process behind."""
    from .servertools import write_config

    config = write_config(tmp_path, house=("minimal-python", "random-python"))
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(config)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1]
    )
    try:
        assert server.stdout is not None
        child = int(server.stdout.readline())
        assert psutil.pid_exists(child)
    finally:
        server.kill()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    deadline = time.monotonic() + 30
    while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the drawing process outlived its server"
        time.sleep(0.02)


async def test_a_serving_server_keeps_what_its_start_made_out_of_the_collectors_way(tmp_path: Path) -> None:
    """The cyclic collector's oldest generation walked every object the start made (a million matches' server:
    up to 114 ms of the loop, five times in 40 s): they are frozen once the server serves, and given back to
    the collector when it stops (a process that goes on, a test's, collects them as before)."""
    import gc

    from arena.server.config import load
    from arena.server.serve import run_server

    from .servertools import write_config

    config = load(write_config(tmp_path))
    assert gc.get_freeze_count() == 0
    async with trio.open_nursery() as nursery:
        await nursery.start(lambda task_status: run_server(config, jobs=0, say=lambda _: None, task_status=task_status))
        assert gc.get_freeze_count() > 1000
        nursery.cancel_scope.cancel()
    assert gc.get_freeze_count() == 0


def test_a_first_drawing_whose_process_died_is_drawn_again_by_a_new_one(
    competition: Competition,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first table is drawn before the server serves: a process that died drawing it (killed by the kernel
    for memory, say) is replaced once, rather than the server's start failing."""
    from arena.server.drawing import DrawingProcess

    play(competition, 0, "A")
    asked = DrawingProcess.ask
    calls: list[int] = []

    def dies_once(self: DrawingProcess, kind: str, tid: int, *args: object) -> object:
        calls.append(tid)
        if len(calls) == 1:
            assert self.process is not None
            self.process.kill()  # (as the kernel would, mid-drawing)
        return asked(self, kind, tid, *args)

    monkeypatch.setattr(DrawingProcess, "ask", dies_once)
    trio.run(competition.standings.draw_first)
    assert len(calls) == 2
    assert competition.standings.snapshot is not None
    assert sum(r.matches for r in competition.standings.snapshot.board.standings) == 2
