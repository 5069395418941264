from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from arena.bots.spec import BotSpec, resolve
from arena.checks.bot import CHECKS, Report, check_bot, default_references, exit_detail
from arena.cli import main
from arena.games import get_game
from protocol import Limits

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "tests" / "bots"
SAMPLES = REPO / "sample_bots" / "rps-poker"
QUICK = Limits(startup_s=1.0, move_s=0.5, time_bank_s=0.0, move_wall_s=1.0)
"""Short limits, so that a silent bot fails fast; the good bots answer in milliseconds."""
TOOLS = {"gcc": "gcc", "javac": "java", "ruby": "ruby", "node": "node"}


def command(script: str) -> BotSpec:
    return resolve(f"{sys.executable} {BOTS / script}")


def needs_tools(folder: Path) -> list[str]:
    text = (folder / "bot.toml").read_text()
    if (folder / "bot.js").exists():
        text += " node"
    return [tool for word, tool in TOOLS.items() if word in text and shutil.which(tool) is None]


async def run_check(spec: BotSpec, tmp_path: Path, limits: Limits = QUICK, matches: int = 2) -> Report:
    game = get_game("rps-poker")
    return await check_bot(
        spec,
        game,
        references=default_references(game, spec),
        limits=limits,
        log_dir=tmp_path,
        matches=matches,
    )


SAMPLE_FOLDERS = sorted(p for p in SAMPLES.iterdir() if (p / "bot.toml").is_file())


@pytest.mark.parametrize("folder", SAMPLE_FOLDERS, ids=[p.name for p in SAMPLE_FOLDERS])
@pytest.mark.slow
async def test_every_sample_bot_passes(folder: Path, tmp_path: Path) -> None:
    missing = needs_tools(folder)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    report = await run_check(resolve(str(folder)), tmp_path, limits=Limits())
    failures = [line for check in report.checks if check.passed is False for line in check.lines()]
    assert report.ok, "\n".join(failures)
    assert [check.name for check in report.checks] == list(CHECKS)


@pytest.mark.parametrize(
    ("bot", "failing", "says"),
    [
        ("check_illegal.py", {"legal moves"}, "illegal_move: index 3 is out of range"),
        ("check_junk.py", {"answers every request"}, "invalid_json"),
        pytest.param(
            "check_silent.py", {"starts and answers its first request"}, "timeout: no answer", marks=pytest.mark.slow
        ),
        pytest.param(
            "check_no_exit.py",
            {"exits when told to", "exits when its input closes"},
            "still running",
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_broken_bots_fail_the_right_checks(
    bot: str, failing: set[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bot that never exits is waited for EXIT_WAIT_S twice (2 s each): half a second shows it as well.
    monkeypatch.setattr("arena.checks.bot.EXIT_WAIT_S", 0.5)
    report = await run_check(command(bot), tmp_path)
    failed = {check.name for check in report.checks if check.passed is False}
    assert failed == failing
    assert not report.ok
    assert any(says in check.detail for check in report.checks if check.passed is False)


@pytest.mark.slow
async def test_a_bot_still_computing_after_quit_may_be_explained_by_the_machine_and_a_sleeping_one_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A correct bot whose exit a busy machine held back (a server's check runs at a small CPU weight beside the
    # ladder) was runnable when the wait ended: the server checks it again at an ordinary weight. One asleep or
    # reading on after quit took its time by itself.
    monkeypatch.setattr("arena.checks.bot.EXIT_WAIT_S", 0.5)
    spins = (await run_check(command("check_spins_on_quit.py"), tmp_path / "spins")).get("exits when told to")
    assert spins.passed is False and spins.machine_may_explain, spins
    assert spins.detail == "still running 0.5 s after quit; it was still computing: it was killed"
    sleeps = (await run_check(command("check_no_exit.py"), tmp_path / "sleeps")).get("exits when told to")
    assert sleeps.passed is False and not sleeps.machine_may_explain, sleeps
    assert sleeps.detail == "still running 0.5 s after quit: it was killed"


async def test_a_failure_says_where_in_the_exchange(tmp_path: Path) -> None:
    report = await run_check(command("check_illegal.py"), tmp_path)
    check = report.get("legal moves")
    assert "in match check-1 (seed 1, seat A, against random-python), at request" in check.detail
    assert "(main_play)" in check.detail
    assert "exchange (last lines):" in check.where
    last_sent = [line for line in check.where if line.startswith("> ")][-1]
    assert '"type":"main_play"' in last_sent
    assert check.where[-2].startswith("< ") and '"action":3' in check.where[-2]
    assert check.where[-1].startswith("log: ")


async def test_a_bot_that_leaves_after_one_match_fails_the_reuse_check_only(tmp_path: Path) -> None:
    report = await run_check(resolve(str(BOTS / "check_one_match")), tmp_path, matches=3)
    failed = [check.name for check in report.checks if check.passed is False]
    assert failed == ["plays several matches in one process"], "one fault, one FAIL"
    assert "crash" in report.get(failed[0]).detail and "in match check-2" in report.get(failed[0]).detail
    unproven = report.get("answers every request")
    assert unproven.passed is None and unproven.detail == 'not shown: see "plays several matches in one process" below'


async def test_a_slow_bot_fails_one_check_and_the_check_stops_at_its_first_timeout(tmp_path: Path) -> None:
    report = await run_check(command("check_slow.py"), tmp_path, matches=4)
    assert [c.name for c in report.checks if c.passed is False] == ["answers within limits"]
    assert report.get("answers within limits").detail.startswith("timeout: no answer within")
    assert report.get("answers every request").passed is None, "a bot that timed out did not answer every request"
    assert report.get("answers every request").detail == 'not shown: see "answers within limits" below'
    where = report.get("answers within limits").where
    assert any(line.startswith("hint: it was still computing when its time ran out") for line in where), where
    closed = report.get("exits when its input closes")
    assert closed.passed is None and closed.detail == "not run: the bot timed out in check-1 (see above)"
    assert sorted(p.name for p in tmp_path.glob("check-*.jsonl")) == ["check-1.jsonl"], "no match after the timeout"


@pytest.mark.slow
async def test_the_slowest_answer_leaves_start_up_out(tmp_path: Path) -> None:
    report = await run_check(command("check_slow_start.py"), tmp_path, limits=Limits(), matches=2)
    assert report.ok, [c.lines() for c in report.checks if c.passed is False]
    startup = report.get("starts and answers its first request").detail
    # It sleeps 1 s as it starts, before it reads: its start-up counts from the first request's sending, a moment
    # after its sleep began (999 ms beside two busy loops, ci94), and its answers take milliseconds.
    assert int(startup.split("after ")[1].split(" ms")[0]) >= 900
    slowest = report.get("answers within limits").detail
    assert int(slowest.split("slowest answer ")[1].split(" ms")[0]) < 1000, slowest


@pytest.mark.parametrize(
    ("bot", "check", "hint"),
    [
        ("check_junk.py", "answers every request", "hint: stdout carries only answers: write debug output to stderr"),
        ("check_answers_notices.py", "starts and answers its first request", "hint: answer only requests"),
        pytest.param(
            "check_silent.py",
            "starts and answers its first request",
            "hint: it wrote nothing on its standard output",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "check_loop.py",
            "starts and answers its first request",
            "hint: it was still computing when its time ran",
            marks=pytest.mark.slow,
        ),
    ],
)
async def test_common_mistakes_get_a_hint(bot: str, check: str, hint: str, tmp_path: Path) -> None:
    report = await run_check(command(bot), tmp_path)
    failed = report.get(check)
    assert failed.passed is False
    assert any(line.startswith(hint) for line in failed.where), failed.where


@pytest.mark.slow
async def test_an_endless_loop_at_the_first_request_is_told_in_the_limits_the_check_named(tmp_path: Path) -> None:
    first = (await run_check(command("check_loop.py"), tmp_path)).get("starts and answers its first request")
    assert first.detail.startswith("timeout: no answer within 1.5 s (start-up 1 s + move 0.5 s, wall clock; ")
    assert first.detail.endswith("s of CPU used; it was still computing)"), first.detail
    assert not any("flush" in line for line in first.where), first.where  # it wrote nothing, but it was computing


@pytest.mark.slow
async def test_a_plain_text_gops_bot_is_told_about_its_protocol(tmp_path: Path) -> None:
    quiz = tmp_path / "quiz_bot.py"  # written for the 2007 referee: it waits for "Competition card:" lines
    quiz.write_text(
        "import sys\nfor line in sys.stdin:\n    if line.startswith('Competition card:'):\n"
        "        print(line.split()[-1], flush=True)\n"
    )
    game = get_game("gops")
    spec = resolve(f"{sys.executable} {quiz}")
    references = default_references(game, spec)
    report = await check_bot(spec, game, references=references, limits=QUICK, log_dir=tmp_path / "json", matches=1)
    startup = report.get("starts and answers its first request")
    assert startup.passed is False and startup.detail.startswith("timeout")
    assert any("run it with --protocol gops-text" in line for line in startup.where)
    text = spec.speaking("gops-text")
    report = await check_bot(text, game, references=references, limits=QUICK, log_dir=tmp_path / "text", matches=2)
    assert report.ok, [c.lines() for c in report.checks if c.passed is False]
    assert report.get("handles match start and end").passed is None  # a text protocol has no framing


async def test_a_failing_build_stops_the_check_and_shows_the_compiler(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    report = await run_check(resolve(str(BOTS / "check_build_fails")), tmp_path)
    assert [check.name for check in report.checks] == ["builds"]
    build = report.checks[0]
    assert build.passed is False
    assert "check-build-fails" in build.detail
    assert any("undeclared_variable" in line for line in build.where)


async def test_a_bot_without_reuse_is_not_asked_to_play_twice_in_one_process(tmp_path: Path) -> None:
    report = await run_check(command("check_illegal.py"), tmp_path)
    assert report.get("plays several matches in one process").passed is None


@pytest.mark.slow
def test_cli_exit_status_and_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = main(["check", str(SAMPLES / "minimal-python"), "--matches", "2", "--log-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert good == 0
    assert "PASS  legal moves" in out and "all checks passed" in out
    bad = main(["check", f"{sys.executable} {BOTS / 'check_illegal.py'}", "--log-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert bad == 1
    assert "FAIL  legal moves: illegal_move" in out
    assert "FAILED: legal moves" in out


def test_a_bot_in_a_folder_whose_name_is_not_utf8_is_checked_and_logged(tmp_path: Path) -> None:
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/bot-\xff"))
    shutil.copytree(SAMPLES / "minimal-python", folder)
    assert main(["check", str(folder), "--matches", "2", "--log-dir", str(tmp_path / "logs")]) == 0
    headers = [log.read_bytes().split(b"\n", 1)[0] for log in (tmp_path / "logs").rglob("*.jsonl")]
    assert headers and all(b"bot-\\\\xff" in header for header in headers), headers[:1]


async def test_a_bot_that_cannot_start_fails_that_check_and_the_rest_are_not_run(tmp_path: Path) -> None:
    from arena.checks.bot import CHECKS

    ghost = BotSpec(name="ghost", command=("/nonexistent/ghost-bot",), cwd=tmp_path)
    report = await run_check(ghost, tmp_path)
    assert [c.name for c in report.checks] == list(CHECKS)
    assert [c.name for c in report.checks if c.passed is False] == ["starts and answers its first request"]
    assert "could not start" in report.get("starts and answers its first request").detail
    assert all(c.passed is None for c in report.checks[2:]) and not report.ok


def test_an_exit_slower_than_a_match_waits_is_said_in_numbers_that_agree() -> None:
    assert exit_detail(0.123, "after quit", 0) == "exited 123 ms after quit, status 0"
    slow = exit_detail(0.523, "after quit", 0)
    assert slow.startswith("exited 523 ms after quit, status 0: later than the 500 ms a match waits")
    assert (
        exit_detail(0.01, "after quit", 139)
        == "exited 10 ms after quit, killed by SIGSEGV (signal 11, exit status 139)"
    )


async def test_the_check_tells_a_bot_the_same_limits_as_a_ladder_match(tmp_path: Path) -> None:
    # The bot writes the limits of each match_start to stderr: the start-up probe's must be a match's own.
    bot = tmp_path / "limits_bot.py"
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'match_start':\n"
        "        print(json.dumps(message['limits'], sort_keys=True), file=sys.stderr, flush=True)\n"
        "    elif 'id' in message:\n"
        "        print(json.dumps({'id': message['id'], 'action': 0}), flush=True)\n"
        "    elif message['type'] == 'quit':\n"
        "        break\n"
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    report = await run_check(resolve(f"{sys.executable} {bot}"), logs, limits=Limits())
    assert report.ok
    told = {
        line
        for path in logs.glob("*.stderr.log")
        if not path.name.startswith("check-")  # the reference bots' own
        for line in path.read_text().splitlines()
        if line.startswith("{")
    }
    assert len(told) == 1, told
    assert '"wall_bank_s": 70.0' in told.pop()
