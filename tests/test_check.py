from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from arena.bots.spec import BotSpec, resolve
from arena.checks.bot import CHECKS, Report, check_bot, default_references
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
        ("check_silent.py", {"starts and answers its first request"}, "timeout: no answer"),
        ("check_no_exit.py", {"exits when told to", "exits when its input closes"}, "still running"),
    ],
)
async def test_broken_bots_fail_the_right_checks(bot: str, failing: set[str], says: str, tmp_path: Path) -> None:
    report = await run_check(command(bot), tmp_path)
    failed = {check.name for check in report.checks if check.passed is False}
    assert failed == failing
    assert not report.ok
    assert any(says in check.detail for check in report.checks if check.passed is False)


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


async def test_a_bot_that_leaves_after_one_match_fails_the_reuse_checks(tmp_path: Path) -> None:
    report = await run_check(resolve(str(BOTS / "check_one_match")), tmp_path, matches=3)
    failed = {check.name for check in report.checks if check.passed is False}
    assert failed == {"answers every request", "handles match start and end", "plays several matches in one process"}
    assert "in match check-2" in report.get("handles match start and end").detail


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


async def test_a_bot_that_cannot_start_fails_that_check_and_the_rest_are_not_run(tmp_path: Path) -> None:
    from arena.checks.bot import CHECKS

    ghost = BotSpec(name="ghost", command=("/nonexistent/ghost-bot",), cwd=tmp_path)
    report = await run_check(ghost, tmp_path)
    assert [c.name for c in report.checks] == list(CHECKS)
    assert [c.name for c in report.checks if c.passed is False] == ["starts and answers its first request"]
    assert "could not start" in report.get("starts and answers its first request").detail
    assert all(c.passed is None for c in report.checks[2:]) and not report.ok
