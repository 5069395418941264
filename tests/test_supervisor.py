"""The supervisor against real bot processes that misbehave on purpose."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest
import trio

from arena import Crash, play_match, resolve
from arena.bots.spec import BotSpec
from arena.games import get_game
from arena.sandbox import summary
from arena.supervisor._process import exit_status, open_bot
from arena.supervisor.match import STDERR_LOGGED_BYTES, MatchRunner, Seat
from arena.supervisor.matchlog import MatchLog, read_log
from arena.supervisor.play import spawn_options
from arena.supervisor.wires import Wire
from protocol import Limits

from .conftest import SAMPLE_BOTS

FAULTY = Path(__file__).with_name("faulty") / "bot.py"
GOOD = SAMPLE_BOTS / "rps-poker" / "minimal-python"
FAST = Limits(startup_s=10.0, move_s=0.5, time_bank_s=0.0, move_wall_s=2.0, line_bytes=4096, output_bytes=1 << 16)
LATE = msgspec.structs.replace(FAST, move_wall_s=0.6)
ASLEEP = msgspec.structs.replace(FAST, move_wall_s=1.0)
"""For a bot that sleeps: its move's wall cap ends it at 1 s (FAST's 2 s shows nothing more)."""


def faulty(mode: str) -> BotSpec:
    return BotSpec(name=f"faulty-{mode}", command=(sys.executable, str(FAULTY), mode), cwd=FAULTY.parent)


async def _match(mode: str, tmp_path: Path, limits: Limits = FAST, seat: int = 0):  # type: ignore[no-untyped-def]
    bots = [faulty(mode), resolve(str(GOOD))]
    if seat == 1:
        bots.reverse()
    return await play_match(get_game("rps-poker"), (bots[0], bots[1]), seed=1, limits=limits, log_dir=tmp_path)


@pytest.mark.parametrize(
    ("mode", "kind", "reason"),
    [
        ("crash_start", "crash", "exited with code 3"),
        ("exit_mid", "crash", "exited with code 0"),
        ("sleep", "timeout", "no answer within"),
        ("invalid_json", "invalid_json", "invalid JSON"),
        ("bad_index", "illegal_move", "index 7 is out of range"),
        ("wrong_type", "illegal_move", "must be an integer"),
        ("not_answer", "protocol_error", "not an answer"),
        ("wrong_id", "protocol_error", "answered id"),
        ("huge_line", "output_limit", "line of more than 4096 bytes"),
        ("flood", "output_limit", "more than 16384 bytes of output in one match"),
        ("close_stdout", "crash", "closed its output"),
        ("segv", "crash", "closed its output: killed by SIGSEGV (signal 11"),
    ],
)
@pytest.mark.parametrize("seat", [0, 1])
async def test_each_fault_is_recorded_with_its_reason_and_the_opponent_wins(
    mode: str, kind: str, reason: str, seat: int, tmp_path: Path
) -> None:
    limits = {"flood": msgspec.structs.replace(FAST, output_bytes=16384), "sleep": ASLEEP}.get(mode, FAST)
    record = await _match(mode, tmp_path, limits, seat=seat)
    offender, other = "AB"[seat], "AB"[1 - seat]
    assert [(f.seat, f.kind) for f in record.faults] == [(offender, kind)]
    assert reason in record.faults[0].reason
    assert record.result.winner == other and record.result.forfeit == [offender]
    assert sum(record.result.points) == 10
    log = read_log(record.log_path)  # type: ignore[arg-type]
    faults = [r for r in log if r["type"] == "fault"]
    assert faults and faults[0]["kind"] == kind and faults[0]["seat"] == offender
    assert log[-1]["type"] == "result" and log[-1]["winner"] == other


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (-11, "killed by SIGSEGV (signal 11)"),  # as subprocess reports a signal
        (139, "killed by SIGSEGV (signal 11, exit status 139)"),  # as a wrapper (bwrap, a shell) reports one
        (137, "killed by SIGKILL (signal 9, exit status 137)"),
        (3, "exited with code 3 (a note)"),
        (0, "exited with code 0"),
        (128, "exited with code 128 (a note)"),
        (250, "exited with code 250 (a note)"),  # 128 + 122 is no signal
    ],
)
def test_an_exit_by_a_signal_names_the_signal(code: int, said: str) -> None:
    assert exit_status(code, "a note") == said


def slow(seconds: float) -> BotSpec:
    return BotSpec(name="slow", command=(sys.executable, str(FAULTY), "slow", str(seconds)), cwd=FAULTY.parent)


@pytest.mark.slow
async def test_a_bot_slow_at_every_move_runs_out_of_its_match_clock(tmp_path: Path) -> None:
    # Each answer (0.3 s) is well under the move's wall cap (2 s), but 15 of them are not under a clock of 1 s.
    limits = msgspec.structs.replace(FAST, wall_bank_s=1.0)
    record = await play_match(
        get_game("rps-poker"), (slow(0.3), resolve(str(GOOD))), seed=1, limits=limits, log_dir=tmp_path
    )
    assert [(f.seat, f.kind) for f in record.faults] == [("A", "timeout")]
    assert "match clock ran out (wall_bank_s 1s)" in record.faults[0].reason
    assert "still computing" not in record.faults[0].reason  # it slept: a busy machine does not explain that
    assert not record.faults[0].machine_may_explain
    assert record.stats[0].requests <= 4  # the first answer's start-up aside, three or four answers fit in 1 s
    start = next(r for r in read_log(record.log_path) if r["type"] == "send")  # type: ignore[arg-type]
    assert start["msg"]["limits"]["wall_bank_s"] == 1.0  # the bot is told its clock


@pytest.mark.slow
async def test_a_match_has_a_wall_clock_cap_and_a_clock_derived_from_the_games_length(tmp_path: Path) -> None:
    # Derived: 2 x (15 requests x 0.5 s + 0 s of bank) = 15 s of clock each; a cap of 1.5 s strikes first.
    limits = msgspec.structs.replace(FAST, match_wall_s=1.5)
    record = await play_match(
        get_game("rps-poker"), (resolve(str(GOOD)), slow(0.2)), seed=1, limits=limits, log_dir=tmp_path
    )
    assert [(f.seat, f.kind) for f in record.faults] == [("B", "timeout")]
    assert "the match's wall-clock cap (1.5s)" in record.faults[0].reason  # not the clock of 15 s
    start = next(r for r in read_log(record.log_path) if r["type"] == "send")  # type: ignore[arg-type]
    assert start["msg"]["limits"]["wall_bank_s"] == 15.0 and start["msg"]["limits"]["match_wall_s"] == 1.5


@pytest.mark.slow
async def test_a_timeout_is_judged_quickly_and_the_arena_goes_on(tmp_path: Path) -> None:
    with trio.fail_after(300):  # generous, and far below the hour the bot sleeps
        slept = await _match("sleep", tmp_path, ASLEEP)
        record = await _match("invalid_json", tmp_path)  # the next match runs normally
    assert slept.faults[0].reason.startswith("no answer within 1s (wall clock;")  # the move's wall cap ended it
    assert record.faults[0].kind == "invalid_json"


@pytest.mark.slow  # 64 MiB of stderr through a pipe: 4 s of CPU
async def test_stderr_is_drained_to_a_capped_file_and_the_bot_is_not_blocked(tmp_path: Path) -> None:
    limits = msgspec.structs.replace(FAST, stderr_bytes=100_000, move_s=5.0, move_wall_s=10.0)
    record = await _match("stderr_flood", tmp_path, limits=limits)
    assert not record.faults, "4 MiB of stderr per turn must not block the bot"
    header = read_log(record.log_path)[0]  # type: ignore[arg-type]
    stderr_log = Path(header["bots"][0]["stderr_log"])
    text = stderr_log.read_bytes()
    assert 100_000 <= len(text) < 101_000
    assert b"more bytes of stderr dropped" in text
    # The match log keeps its share of it, line by line, and counts the rest.
    records = [r for r in read_log(record.log_path) if r["type"] == "stderr"]  # type: ignore[arg-type]
    logged = sum(len(r.get("text", "")) + 1 for r in records)
    assert logged <= STDERR_LOGGED_BYTES + 1
    assert {k: v for k, v in records[-1].items() if k != "t"} == {
        "type": "stderr",
        "seat": "A",
        "omitted": 100_000 - STDERR_LOGGED_BYTES,
    }


async def test_stderr_lines_are_logged_with_the_time_they_were_read(tmp_path: Path) -> None:
    record = await _match("chatty", tmp_path)
    log = read_log(record.log_path)  # type: ignore[arg-type]
    lines = [r for r in log if r["type"] == "stderr"]
    assert [r["text"] for r in lines] == [
        *(f"turn {n}: playing index 0" for n in range(1, 11)),
        "bad byte \ufffd here",
        "no newline",
    ]
    assert {r["seat"] for r in lines} == {"A"}
    asked = {
        r["msg"]["turn"]: r["t"]
        for r in log
        if r["type"] == "send" and r["seat"] == "A" and r["msg"]["type"] == "main_play"
    }
    turn_of = {
        r["msg"]["id"]: r["msg"]["turn"]
        for r in log
        if r["type"] == "send" and r["seat"] == "A" and r["msg"]["type"] == "main_play"
    }
    answered = {
        turn_of[r["msg"]["id"]]: r["t"]
        for r in log
        if r["type"] == "recv" and r["seat"] == "A" and r["msg"]["id"] in turn_of
    }
    for turn, line in enumerate(lines[:10], start=1):
        assert line["t"] >= asked[turn], "a line is read after the request that it answers was sent"
        assert line["t"] <= answered[turn], "a line written before the answer is logged before it"
    # Written after the messages and before the result, so the rest of the log keeps its order.
    kinds = [r["type"] for r in log]
    assert kinds[-1] == "result" and kinds[-1 - len(lines) : -1] == ["stderr"] * len(lines)


SPIKE = """
import json, sys
spiked = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if "id" in message:
        if message["type"] == "main_play" and not spiked:
            spiked = True
            hoard = b"\\x01" * (96 << 20)  # touched, so charged; freed before the answer
            del hoard
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
"""


async def test_a_seats_peak_memory_counts_a_spike_freed_before_its_answer(tmp_path: Path) -> None:
    # Memory is read once a match, not after every move: the peak is the kernel's record of it.
    if "cgroup" not in summary()["layers"]:
        pytest.skip("no cgroup here: the peak is sampled, and a spike between samples is not seen")
    (tmp_path / "spike.py").write_text(SPIKE)
    spiky = BotSpec(name="spiky", command=(sys.executable, "spike.py"), cwd=tmp_path)
    limits = msgspec.structs.replace(FAST, memory_bytes=256 << 20)
    record = await play_match(
        get_game("rps-poker"), (spiky, resolve(str(GOOD))), seed=1, limits=limits, log_dir=tmp_path
    )
    assert not record.faults
    assert record.stats[0].peak_rss >= 96 << 20 > record.stats[1].peak_rss


async def test_a_request_to_a_process_whose_output_was_closed_under_it_is_no_crash() -> None:
    # (ci84: a Ctrl-C stopped a tournament's processes while a match went on to its next request; marking what the
    # bot had written unasked polled descriptor -1, and the arena ended in a ValueError's traceback)
    good = resolve(str(GOOD))
    async with open_bot(good, spawn_options(good, FAST, None)) as bot:
        assert bot.process.stdout is not None
        await bot.process.stdout.aclose()
        bot.mark_unasked()
        with pytest.raises(trio.ClosedResourceError):
            await bot.read_line(output_budget=1 << 16)


async def test_a_late_answer_is_never_taken_for_a_later_request(tmp_path: Path) -> None:
    # One process plays two matches; its late answer to match 1 arrives during match 2.
    game = get_game("rps-poker")
    spec, good = faulty("late"), resolve(str(GOOD))
    records = []
    async with (
        open_bot(spec, spawn_options(spec, FAST, None)) as late,
        open_bot(good, spawn_options(good, FAST, None)) as other,
    ):
        for number in (1, 2):
            runner = MatchRunner(
                game,
                seed=number,
                # Moves are judged on CPU time; a bot that sleeps is caught by the wall cap, so make it short.
                seats=[Seat(bot=late, limits=LATE, wire=Wire()), Seat(bot=other, limits=FAST, wire=Wire())],
                match_id=f"m{number}",
                log=MatchLog(tmp_path / f"m{number}.jsonl"),
            )
            records.append(await runner.run())
            runner.log.close()
    assert [f.kind for f in records[0].faults] == ["timeout"]
    assert records[1].faults == [], "the stale answer is ignored, not taken as an answer"
    stale = [r for r in read_log(tmp_path / "m2.jsonl") if r.get("stale")]
    assert len(stale) == 1 and stale[0]["msg"]["id"] == records_first_main_id(tmp_path / "m1.jsonl")


async def test_a_late_answer_to_a_match_that_ended_first_is_ignored_in_the_next(tmp_path: Path) -> None:
    # Match 1 ends (cancelled here, as when it is abandoned) while A thinks over its first main_play; the
    # processes play match 2, where the late answers to match 1 arrive: ignored as stale, neither faults
    # nor answers.
    game = get_game("rps-poker")
    spec, good = faulty("late"), resolve(str(GOOD))
    async with (
        open_bot(spec, spawn_options(spec, FAST, None)) as late,
        open_bot(good, spawn_options(good, FAST, None)) as other,
    ):
        seats = [Seat(bot=late, limits=FAST, wire=Wire()), Seat(bot=other, limits=FAST, wire=Wire())]
        async with trio.open_nursery() as first:
            first.start_soon(MatchRunner(game, seed=1, seats=seats, match_id="m1").run)
            with trio.fail_after(30):  # the five draft picks answered, the first main_play asked
                while late.stats.requests < 5 or late.pending is None:
                    await trio.sleep(0.01)
            first.cancel_scope.cancel()
        assert late.pending is not None
        abandoned = {("A", late.pending), ("B", other.pending)}  # B's is None unless it was still thinking too
        runner = MatchRunner(game, seed=2, seats=seats, match_id="m2", log=MatchLog(tmp_path / "m2.jsonl"))
        record = await runner.run()
        runner.log.close()
    assert record.faults == []
    stale = {(r["seat"], r["msg"]["id"]) for r in read_log(tmp_path / "m2.jsonl") if r.get("stale")}
    assert stale <= abandoned and any(seat == "A" for seat, _ in stale)


def records_first_main_id(path: Path) -> int:
    for record in read_log(path):
        if record["type"] == "send" and record["seat"] == "A" and record["msg"]["type"] == "main_play":
            return int(record["msg"]["id"])
    raise AssertionError("no main_play sent")


async def test_a_bot_that_ignores_quit_is_killed(tmp_path: Path) -> None:
    record = await _match("ignore_quit", tmp_path)
    assert not record.faults  # the match is fine; the fixture checks the process is gone


async def test_a_command_that_cannot_start_is_a_crash_not_an_arena_error(tmp_path: Path) -> None:
    ghost = BotSpec(name="ghost", command=("/nonexistent/bot",), cwd=tmp_path)
    with pytest.raises(Crash, match="could not start"):
        async with open_bot(ghost, spawn_options(ghost, FAST, None)):
            pass


async def test_cancelling_a_match_reaps_every_process(tmp_path: Path) -> None:
    # What Ctrl-C does: the match is cancelled from outside while bots think.
    with trio.move_on_after(1.0):
        await _match("sleep", tmp_path, limits=msgspec.structs.replace(FAST, move_s=30, move_wall_s=60))
    # no_process_left_behind checks that the sleeping bot was killed and reaped


@pytest.mark.slow
def test_ctrl_c_on_arena_play_leaves_no_process(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    import psutil

    cmd = [
        sys.executable, "-m", "arena", "play", "rps-poker", f"{sys.executable} {FAULTY} sleep", str(GOOD),
        "--move-time", "60", "--log-dir", str(tmp_path),
    ]  # fmt: skip

    def as_a_terminal_would() -> None:  # Ctrl-C reaches a foreground command: SIGINT neither ignored nor blocked,
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # whatever this test process inherited
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, preexec_fn=as_a_terminal_would
    )
    deadline = time.monotonic() + 20
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and len(children) < 2:
        time.sleep(0.1)
        children = psutil.Process(proc.pid).children(recursive=True)
    assert len(children) >= 2, "both bots started"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    _gone, alive = psutil.wait_procs(children, timeout=5)
    assert not alive, f"left behind: {alive}"


def test_bot_environment_is_clean(tmp_path: Path) -> None:
    import os

    from arena.supervisor._process import bot_environment

    os.environ["ARENA_TEST_SECRET"] = "x"
    try:
        env = bot_environment(faulty("sleep"))
    finally:
        del os.environ["ARENA_TEST_SECRET"]
    assert "ARENA_TEST_SECRET" not in env
    assert json.dumps(env)  # plain strings only
