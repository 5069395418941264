"""Bots frozen whenever no request is pending (issue 27, item 12), with real processes in real cgroups.

Where the arena has a cgroup freezer (root: v1's ``freezer`` hierarchy, or
v2's ``cgroup.freeze``), whatever a bot leaves running between its answer and
its next request gets no CPU at all. Without one, that CPU is charged to it
(tests/test_hostile.py, the ``polled`` cases).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
import trio

from arena import resolve
from arena.bots.spec import BotSpec
from arena.games import get_game
from arena.sandbox import capabilities, current_policy
from arena.supervisor._pool import BotPool, open_pool
from arena.supervisor._process import BotProcess, SpawnOptions, bot_environment, open_bot
from arena.supervisor.match import MatchRecord, MatchRunner, Seat
from arena.supervisor.wires import wire_for

from .test_hostile import GOOD, LIMITS, hostile, without_cgroup


def _need_freezer() -> None:
    caps = capabilities()
    if caps.cgroup is None or "cgroup" not in current_policy().layers:
        pytest.skip(f"no cgroup here: {caps.missing.get('cgroup')}")
    if not caps.cgroup.freezer:
        pytest.skip("the cgroups here have no freezer")


class _IdleMeter:
    """Samples bots' CPU (their cgroup's cpuacct) and adds up what they used while no request was pending.

    An interval counts only when the bot had answered once, had no request
    pending at both of its ends and was sent none in between (its next id
    unchanged): the bot's CPU between moves and idle in the pool.
    """

    def __init__(self) -> None:
        self.bots: list[BotProcess] = []
        self.idle_cpu_s = 0.0
        self.idle_wall_s = 0.0
        self._last: dict[int, tuple[float, float, int]] = {}

    def add(self, bot: BotProcess) -> None:
        if bot not in self.bots:
            self.bots.append(bot)

    def _idle(self, bot: BotProcess) -> bool:
        return bot.pending is None and bot.stats.requests > 0 and not bot.closed and bot.breach is None

    async def run(self) -> None:
        while True:
            for bot in self.bots:
                cpu, now = bot.cpu_seconds(), trio.current_time()
                if cpu is None or not self._idle(bot):
                    self._last.pop(id(bot), None)
                    continue
                last = self._last.get(id(bot))
                if last is not None and last[2] == bot.next_id:
                    self.idle_cpu_s += cpu - last[0]
                    self.idle_wall_s += now - last[1]
                self._last[id(bot)] = (cpu, now, bot.next_id)
            await trio.sleep(0.01)


@pytest.mark.slow
async def test_a_reused_bot_with_four_busy_loops_uses_no_cpu_between_moves_in_two_concurrent_jobs() -> None:
    # The scenario: a reused bot that forks four busy loops at start, every answer at once, played by two
    # jobs at once against a quick bot. Its loops took the machine's CPU between moves (the tournament fell from
    # 120 to 48 matches/s) with no fault. Frozen whenever no request is pending, they get none then.
    _need_freezer()
    game = get_game("rps-poker")
    busy = dataclasses.replace(hostile("busy_at_start"), reuse=True)
    quick = resolve(str(GOOD))
    meter = _IdleMeter()
    records: list[MatchRecord] = []

    async def job(pool: object, seeds: range) -> None:
        for seed in seeds:
            bots = [await pool.acquire(busy, LIMITS), await pool.acquire(quick, LIMITS)]  # type: ignore[attr-defined]
            meter.add(bots[0])
            seats = [Seat(bot=b, limits=LIMITS, name=b.spec.name, wire=wire_for("json", game)) for b in bots]
            record = await MatchRunner(game, seed, seats, match_id=f"m{seed}").run()
            records.append(record)
            faulted = {f.seat for f in record.faults}
            for bot, seat in zip(bots, "AB", strict=True):
                pool.release(bot, faulted=seat in faulted)  # type: ignore[attr-defined]
            await trio.sleep(0.05)  # idle in the pool a moment, as between a tournament's matches

    with trio.fail_after(120):
        async with open_pool() as pool, trio.open_nursery() as nursery:
            nursery.start_soon(meter.run)
            async with trio.open_nursery() as jobs:
                jobs.start_soon(job, pool, range(1, 9))
                jobs.start_soon(job, pool, range(11, 19))
            live = [b for b in meter.bots if not b.closed and b.jail is not None and b.jail.cgroup is not None]
            loops = max((len(b.jail.cgroup.pids()) for b in live), default=0)  # type: ignore[union-attr]
            nursery.cancel_scope.cancel()
    assert [f for r in records for f in r.faults] == []
    assert len(meter.bots) < len(records), "the busy bot's processes were reused"
    assert loops >= 5, "its four busy loops were alive (frozen) to the end"
    assert meter.idle_wall_s > 0.5, meter.idle_wall_s
    # Four loops running would use up to two CPU seconds a second here; frozen, they use none.
    assert meter.idle_cpu_s < 0.05 + 0.02 * meter.idle_wall_s, (meter.idle_cpu_s, meter.idle_wall_s)


@pytest.mark.slow
async def test_a_bot_idle_in_the_pool_is_frozen_and_plays_its_next_match(tmp_path: Path) -> None:
    # Busy loops started as a match ends (on reading match_end) would burn while the process waits in the pool.
    # Frozen, it never reads match_end until its next request: the loops start then, and freeze with it again.
    _need_freezer()
    game = get_game("rps-poker")
    spec = dataclasses.replace(hostile("busy_when_idle"), reuse=True)
    quick = resolve(str(GOOD))

    async def play(pool: object, seed: int) -> MatchRecord:
        bots = [await pool.acquire(spec, LIMITS, deal=seed), await pool.acquire(quick, LIMITS, deal=seed)]  # type: ignore[attr-defined]
        seats = [Seat(bot=b, limits=LIMITS, name=b.spec.name, wire=wire_for("json", game)) for b in bots]
        record = await MatchRunner(game, seed, seats, match_id=f"m{seed}").run()
        for bot in bots:
            pool.release(bot, faulted=bool(record.faults))  # type: ignore[attr-defined]
        return record

    async with open_pool() as pool:
        assert (await play(pool, 1)).faults == []
        assert (await play(pool, 2)).faults == []  # it read the first match_end with this request: loops now
        (idle,) = [held.bot for held in pool._idle[spec.name]]
        assert idle.frozen and idle.jail is not None and idle.jail.cgroup is not None
        assert len(idle.jail.cgroup.pids()) >= 3, "its busy loops live"
        await trio.sleep(0.2)
        before = idle.cpu_seconds() or 0.0
        await trio.sleep(1.0)
        used = (idle.cpu_seconds() or 0.0) - before
        assert used < 0.02, used
        assert idle.breach is None
        assert (await play(pool, 3)).faults == []


@pytest.mark.slow
async def test_time_frozen_in_the_pool_counts_against_no_limit() -> None:
    # Frozen in the pool for longer than a move's wall-clock cap and than its background allowance refills: its
    # next match starts its clocks at the request, after the thaw.
    _need_freezer()
    game = get_game("rps-poker")
    limits = msgspec.structs.replace(LIMITS, move_wall_s=1.0, startup_s=5.0)
    spec = dataclasses.replace(resolve(str(GOOD)), reuse=True)
    quick = dataclasses.replace(resolve(str(GOOD)), name="other", reuse=True)

    async def play(pool: BotPool, seed: int) -> MatchRecord:
        bots = [await pool.acquire(spec, limits, deal=seed), await pool.acquire(quick, limits, deal=seed)]
        seats = [Seat(bot=b, limits=limits, name=b.spec.name, wire=wire_for("json", game)) for b in bots]
        record = await MatchRunner(game, seed, seats, match_id=f"m{seed}").run()
        for bot in bots:
            pool.release(bot, faulted=bool(record.faults))
        return record

    async with open_pool() as pool:
        assert (await play(pool, 1)).faults == []
        (idle,) = [held.bot for held in pool._idle[spec.name]]
        assert idle.frozen
        await trio.sleep(2.5)
        assert (await play(pool, 2)).faults == []
        assert pool.stats.reused >= 1


async def test_notices_that_fill_a_frozen_bots_pipe_do_not_block_the_arena() -> None:
    # Notices go to a frozen bot's pipe; one full would block the write for good. The arena thaws the bot for as
    # long as the write takes, and freezes it again.
    _need_freezer()
    reader = "import sys\nfor line in sys.stdin:\n    pass\n"
    spec = BotSpec(name="reader", command=(sys.executable, "-c", reader), cwd=Path.cwd(), profile="python")
    options = SpawnOptions(env=bot_environment(spec), limits=LIMITS)
    async with open_bot(spec, options) as bot:
        bot.freeze()
        assert bot.frozen
        with trio.fail_after(20):
            await bot.send(b"x" * 100 + b"\n" * 1 + (b"y" * 1000 + b"\n") * 2000, timeout=10)  # 2 MB: 30 pipes
        assert bot.frozen, "frozen again once written"
        assert bot.process.poll() is None


def test_a_frozen_bot_dies_with_its_arena(tmp_path: Path) -> None:
    # On cgroup v1 a frozen task does not die of SIGKILL until thawed: the launcher's waiting half stays out of
    # the freezer, and thaws the bot as it kills it when the arena dies.
    _need_freezer()
    script = tmp_path / "frozen_arena.py"
    script.write_text(
        "import sys, trio\n"
        "from pathlib import Path\n"
        "from arena.bots.spec import BotSpec\n"
        "from arena.supervisor._process import SpawnOptions, bot_environment, open_bot\n"
        "loops = 'import subprocess, sys, time\\n' \\\n"
        '    \'ps = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]\\n\' \\\n'
        "    'print(\"ready\", flush=True)\\n' 'time.sleep(600)\\n'\n"
        "async def main():\n"
        "    spec = BotSpec(name='frozen', command=(sys.executable, '-c', loops), cwd=Path.cwd(), profile='python')\n"
        "    async with open_bot(spec, SpawnOptions(env=bot_environment(spec))) as bot:\n"
        "        await bot.read_line(output_budget=1 << 16)\n"
        "        bot.freeze()\n"
        "        print(bot.frozen, bot.jail.cgroup.dirs['freezer'], flush=True)\n"
        "        await trio.sleep(600)\n"
        "trio.run(main)\n"
    )
    arena = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1]
    )
    try:
        assert arena.stdout is not None
        frozen, folder = arena.stdout.readline().split()
        assert frozen == "True"
        procs = Path(folder) / "cgroup.procs"
        assert len(procs.read_text().split()) >= 3
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait()
        deadline = time.monotonic() + 10
        while procs.exists() and procs.read_text().split() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = procs.read_text().split() if procs.exists() else []
        assert left == [], f"processes left frozen after the arena died: {left}"
    finally:
        arena.kill()
        arena.wait()
        if arena.stdout is not None:
            arena.stdout.close()


async def test_without_a_cgroup_nothing_is_frozen_and_idle_cpu_is_charged(tmp_path: Path) -> None:
    # The fallback (an unprivileged arena, or a policy without cgroups): the bot runs on between moves, and what
    # it uses there is charged to it (tests/test_hostile.py has the faults).
    reader = "import sys\nfor line in sys.stdin:\n    pass\n"
    spec = BotSpec(name="reader", command=(sys.executable, "-c", reader), cwd=Path.cwd(), profile="python")
    with without_cgroup():
        async with open_bot(spec, SpawnOptions(env=bot_environment(spec), limits=LIMITS)) as bot:
            bot.freeze()
            assert not bot.frozen


def test_a_v2_group_freezes_and_thaws_its_busy_loop() -> None:
    # cgroup v2 freezes with cgroup.freeze (no controller needed): tried on this machine's v2 mount where it has
    # one, whichever version the arena uses here.
    from arena.sandbox import _cgroup

    mounts = _cgroup._mounts(Path("/proc/self/mountinfo").read_text())
    if "" not in mounts or mounts[""][1] != "/":
        pytest.skip("no cgroup v2 mount with its root here")
    folder = mounts[""][0] / f"arena-test-freeze-{os.getpid()}"
    try:
        folder.mkdir()
    except OSError as exc:
        pytest.skip(f"cannot make a v2 group here: {exc}")
    group = _cgroup.BotCgroup(version=2, dirs={"unified": folder}, freezable=True)
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        (folder / "cgroup.procs").write_text(str(loop.pid))
        assert group.set_frozen(True)
        deadline = time.monotonic() + 5
        while not group.frozen() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert group.frozen()
        before = group.cpu_seconds() or 0.0
        time.sleep(0.5)
        assert (group.cpu_seconds() or 0.0) - before < 0.01
        assert group.set_frozen(False)
        before = group.cpu_seconds() or 0.0
        time.sleep(0.5)
        assert (group.cpu_seconds() or 0.0) - before > 0.01, "it runs again once thawed"
        assert group.set_frozen(True)
        group.kill_all()  # frozen: thawed first, then killed
        assert loop.wait(timeout=5) == -signal.SIGKILL
    finally:
        loop.kill()
        loop.wait()
        group.remove()
