"""The server's match worker on its own: matches handed over and answered, and the ones withdrawn."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import psutil
import pytest
import trio
import trio.testing

from arena.bots.spec import BotSpec, load_folder
from arena.competition.playing import MatchLost
from arena.competition.schedule import Scheduled
from arena.competition.worker import open_match_worker
from protocol import Limits

from .conftest import SAMPLE_BOTS

BOT = SAMPLE_BOTS / "rps-poker" / "minimal-python"


def commands_under(pid: int | None) -> list[str]:
    """The command lines of ``pid``'s descendants now (a process that ends meanwhile is left out)."""
    found = []
    for process in psutil.Process(pid).children(recursive=True) if pid is not None else []:
        try:
            found.append(" ".join(process.cmdline()))
        except psutil.Error:
            continue
    return found


def scheduled(key: str, a: str, b: str) -> Scheduled:
    return Scheduled(key=key, cycle=0, deal=key, leg=0, bot_a=a, bot_b=b, seed=7)


@pytest.mark.slow
async def test_a_match_waiting_its_turn_is_withdrawn_when_its_bot_is_dropped(tmp_path: Path) -> None:
    base = load_folder(BOT)

    def slow(marker: str) -> BotSpec:
        """A fresh process for each match, three seconds to start: its match holds the worker's one turn as long."""
        command = ("sh", "-c", 'sleep 3; exec "$@"', marker, *base.command)  # marker: its $0, in its command line
        return dataclasses.replace(base.with_name("slow"), command=command, reuse=False)

    # Seats are named by entrant, processes by version (its label): ``b``'s second version plays as ``b.v2``.
    specs = {"a": base.with_name("a"), "b": base.with_name("b.v2")}
    results: dict[str, object] = {}

    async with open_match_worker(
        "rps-poker", {}, Limits(), tournament_id=1, jobs=1, stderr_dir=None, stamp="t"
    ) as worker:

        async def play(match: Scheduled) -> None:
            try:
                results[match.key] = await worker.play(match, specs, None)
            except MatchLost as exc:
                results[match.key] = exc

        async def slow_started(marker: str) -> None:
            """Until this slow bot's process is up in the worker: its match holds the worker's one turn."""
            with trio.fail_after(60):
                while not any(f'sleep 3; exec "$@" {marker} ' in command for command in commands_under(worker.pid)):
                    await trio.sleep(0.02)

        async def behind_a_slow_match(key: str, drop: str) -> None:
            """``key`` (a against b) handed over while a slow match holds the worker's one turn, then ``drop``."""
            specs["slow"] = slow(f"slow-{key}")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, scheduled(f"slow-{key}", "a", "slow"))
                await slow_started(f"slow-{key}")
                nursery.start_soon(play, scheduled(key, "a", "b"))
                await trio.testing.wait_all_tasks_blocked()  # its request is sent: the drop comes after it
                worker.drop(drop)

        await behind_a_slow_match("kept", drop="b")  # b's first version: not the one in the waiting match
        await behind_a_slow_match("withdrawn", drop="b.v2")
        after = await worker.play(scheduled("after", "a", "b"), specs, None)  # handed over after: b.v2 plays again

    assert not isinstance(results["slow-kept"], MatchLost), "a match already begun plays to its end"
    assert not isinstance(results["kept"], MatchLost), "dropping another version of b withdraws nothing of b.v2"
    assert isinstance(results["withdrawn"], MatchLost) and "left the field" in str(results["withdrawn"])
    assert after.key == "after" and not after.faults and not after.forfeit


@pytest.mark.parametrize("message", ["drop", "forget"])
async def test_telling_a_worker_about_a_bot_it_never_saw_is_harmless(message: str) -> None:
    async with open_match_worker(
        "rps-poker", {}, Limits(), tournament_id=1, jobs=1, stderr_dir=None, stamp="t"
    ) as worker:
        if message == "drop":
            worker.drop("nobody")
        else:
            worker.forget(12345)
        state = await worker.pool_state()
    assert state.idle == {}


async def test_a_worker_playing_matches_never_loads_numpy() -> None:
    """The worker plays matches and sends their records: numpy (what the standings need) would be 11 MiB of it,
    counted in a server's memory for nothing. Read from the worker's own memory map after a match."""
    specs = {"a": load_folder(BOT).with_name("a"), "b": load_folder(BOT).with_name("b")}
    async with open_match_worker(
        "rps-poker", {}, Limits(), tournament_id=1, jobs=1, stderr_dir=None, stamp="t"
    ) as worker:
        played = await worker.play(scheduled("m", "a", "b"), specs, None)
        assert played.key == "m" and worker.pid is not None
        maps = Path(f"/proc/{worker.pid}/maps").read_text()
    assert "python" in maps  # (the map is the interpreter's)
    assert "numpy" not in maps
