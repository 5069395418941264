"""Fuzzing the wire: whatever bytes a bot writes end as that bot's fault, never as an arena exception.

One fuzzing process per game (``tests/hostile/fuzz_bot.py``) answers every
request of many matches, some answers with hostile bytes, against a reused
sample bot, in both seats; every log is read back and re-run by ``replay``.
The seed is random per run and printed; ``ARENA_FUZZ_SEED=N`` replays a run,
``ARENA_FUZZ_MATCHES=N`` plays more matches per game.
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena import resolve
from arena._errors import FAULT_KINDS, REASON_CHARS
from arena.bots.spec import BotSpec
from arena.games import get_game
from arena.replay import load_log, verify
from arena.supervisor._process import BotProcess, open_bot
from arena.supervisor.match import MatchRunner, Seat
from arena.supervisor.matchlog import MatchLog
from arena.supervisor.play import spawn_options
from arena.supervisor.wires import wire_for
from protocol import Limits

from .conftest import SAMPLE_BOTS

FUZZ_BOT = Path(__file__).with_name("hostile") / "fuzz_bot.py"
SEED = int(os.environ.get("ARENA_FUZZ_SEED") or random.SystemRandom().getrandbits(32))
MATCHES = int(os.environ.get("ARENA_FUZZ_MATCHES") or 50)
RATE = 0.15
"""Share of answers the fuzzer mutates: most matches get a few legal steps in before the hostile line."""
TEXT_SHARE = 2
"""A text fuzzer restarts after each fault (see below), which is slow: it plays 1/TEXT_SHARE of the matches."""
LIMITS = Limits(startup_s=10.0, move_s=2.0, time_bank_s=0.0, move_wall_s=5.0)

GAMES = [
    ("rps-poker", {}, "rps-poker/minimal-python", "json"),
    ("card-jitsu", {"max_rounds": 8}, "card-jitsu/random-python", "json"),
    ("gops", {"cards": 6}, "gops/random-python", "json"),
    ("six-card-poker", {"deals": 5}, "six-card-poker/sorted-python", "json"),
    ("badugi", {"hands": 2}, "badugi/calling-station-python", "json"),
    ("gops", {"cards": 6}, "gops/random-python", "gops-text"),
]


def start_fuzzer(wire: str, rng: random.Random) -> contextlib.AbstractAsyncContextManager[BotProcess]:
    seed = rng.getrandbits(32)
    fuzz = BotSpec(
        name="fuzz", command=(sys.executable, str(FUZZ_BOT), str(seed), str(RATE), wire),
        cwd=FUZZ_BOT.parent, profile="python", protocol=wire,
    )  # fmt: skip
    return open_bot(fuzz, spawn_options(fuzz, LIMITS, None))


def _judged_by_id(reason: str) -> bool:
    return reason.startswith(("answered request", "a second answer", "answered id"))


@pytest.mark.parametrize(("game_id", "params", "opponent", "wire"), GAMES, ids=[f"{g[0]}-{g[3]}" for g in GAMES])
@pytest.mark.slow
async def test_fuzzed_answers_end_as_the_fuzzers_faults(
    game_id: str, params: dict[str, int], opponent: str, wire: str, tmp_path: Path
) -> None:
    print(f"fuzz seed {SEED}: rerun with ARENA_FUZZ_SEED={SEED}")
    game = get_game(game_id, params)
    rng = random.Random(f"{SEED}-{game_id}-{wire}")
    other = resolve(str(SAMPLE_BOTS / opponent))
    kinds: Counter[str] = Counter()
    async with contextlib.AsyncExitStack() as stack:
        sample = await stack.enter_async_context(open_bot(other, spawn_options(other, LIMITS, None)))
        fuzzer = await stack.enter_async_context(start_fuzzer(wire, rng))
        for number in range(MATCHES if wire == "json" else MATCHES // TEXT_SHARE):
            where = f"seed {SEED}, {game_id} ({wire}) match {number}"
            seats = [Seat(fuzzer, LIMITS, wire_for(wire, game), "fuzz"), Seat(sample, LIMITS, wire_for("json", game))]
            fuzz_seat = "AB"[number % 2]
            if fuzz_seat == "B":
                seats.reverse()
            log = MatchLog(tmp_path / f"{number}.jsonl")
            try:
                record = await MatchRunner(game, rng.getrandbits(63), seats, match_id=f"fuzz-{number}", log=log).run()
            finally:
                log.close()
            for fault in record.faults:
                assert fault.seat == fuzz_seat, f"{where}: the sample bot faulted: {fault}"
                assert fault.kind in FAULT_KINDS, where
                assert len(fault.reason) <= REASON_CHARS and fault.reason.isprintable(), f"{where}: {fault.reason!r}"
                kinds[fault.kind] += 1
            kinds["no fault"] += not record.faults
            verdict = verify(load_log(tmp_path / f"{number}.jsonl"))  # reads back and re-runs: no exception
            if wire == "json" and all(f.kind == "illegal_move" or _judged_by_id(f.reason) for f in record.faults):
                # Lines that are JSON re-run exactly (a line that is not is logged approximately).
                assert verdict.ok, f"{where}: {verdict.difference}"
            assert fuzzer.process.poll() is None, f"{where}: the fuzzer died"
            if record.faults and wire != "json":
                # Text lines carry no id, so a text bot's late line cannot be told from an unasked one:
                # a text process is never reused (nor is a faulted one), so it starts afresh here too.
                await fuzzer.shutdown()
                fuzzer = await stack.enter_async_context(start_fuzzer(wire, rng))
    print(f"{game_id} ({wire}): {dict(kinds)}")
    assert kinds["no fault"] < sum(kinds.values()), "the fuzzer's lines end matches"
