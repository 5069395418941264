"""A bot disqualified in a run: the fresh processes started ahead for its matches stop then, not at the run's end."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

import psutil
import pytest
import trio

from arena.bots.spec import BotSpec
from arena.competition.config import BotEntry, TournamentConfig
from arena.competition.plan import open_competition, prepare
from arena.competition.runner import Summary, run_tournament
from arena.competition.store import Store
from arena.supervisor._pool import BotPool
from protocol import Limits

from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"
FAULTY = Path(__file__).with_name("faulty") / "bot.py"
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=2.0, move_wall_s=5.0)


def faulty_processes() -> set[int]:
    """The live processes (below this one) of the bot that faults in every match."""
    found = set()
    for child in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if str(FAULTY) in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                found.add(child.pid)
        except psutil.Error:
            continue
    return found


def held(pool: BotPool) -> list[object]:
    """The disqualified bot's processes ``pool`` holds, or has started ahead (perhaps still starting)."""
    return [h for h in pool._held.values() if h.bot.spec.name == "faulty"] + list(pool._spares.get("faulty", []))


@pytest.mark.slow
def test_a_disqualified_bot_s_processes_started_ahead_stop_while_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At --jobs 1 with fresh processes, the processes of the next two matches start while one plays; a bot
    # disqualified meanwhile plays none of them, and its processes must not wait, idle, for the run's end.
    config = TournamentConfig(
        game="rps-poker",
        bots=[BotEntry(text=str(RPS / b)) for b in ("minimal-python", "random-python")],
        seed=12345,
        limits=FAST,
        db=tmp_path / "results.sqlite",
        log_dir=tmp_path / "logs",
        max_faults=1,
        cycles=3,
    )
    plan = prepare(config)
    faulty = BotSpec(name="faulty", command=(sys.executable, str(FAULTY), "bad_index"), cwd=FAULTY.parent)
    plan.specs = {"faulty": faulty, **plan.specs}
    pools: list[BotPool] = []
    real = BotPool.prepare_for

    def prepare_for(self: BotPool, seats: Iterable[BotSpec], limits: Limits) -> None:
        pools.append(self)
        real(self, seats, limits)

    monkeypatch.setattr(BotPool, "prepare_for", prepare_for)
    banned = trio.Event()
    ended = trio.Event()
    summary: list[Summary] = []

    def say(line: str) -> None:
        if line.startswith("faulty is disqualified"):
            banned.set()

    async def main() -> bool:
        with Store.open(plan.config.db) as store:
            competition = open_competition(plan, store)

            async def run() -> None:
                summary.append(await run_tournament(plan, store, competition, jobs=1, reuse=False, say=say))
                ended.set()

            with trio.fail_after(120):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(run)
                    await banned.wait()
                    while (held(pools[0]) or faulty_processes()) and not ended.is_set():
                        await trio.sleep(0.02)
                    return ended.is_set()
        raise AssertionError("unreachable")

    run_over = trio.run(main)
    assert summary[0].disqualified.keys() == {"faulty"}
    assert summary[0].played > 6  # the other pair's 6 matches, most of them played after the disqualification
    with Store.open(plan.config.db, readonly=True) as store:
        played = sum("faulty" in (m.bot_a, m.bot_b) for m in store.matches(summary[0].tournament_id))
    started = len(list((tmp_path / "logs").rglob("stderr/faulty.*.log")))  # one a process
    assert started > played, "no process of the disqualified bot was started ahead: this test could not fail"
    assert not run_over, "the disqualified bot's processes started ahead lived until the run's end"
