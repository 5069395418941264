"""``arena play`` end to end: real bots in two languages, logs, reproducibility."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import play_match, resolve
from arena.games import get_game
from arena.supervisor.matchlog import read_log, strip_times
from protocol import Limits

from .conftest import SAMPLE_BOTS, readme_exchange, seen_by

RPS = SAMPLE_BOTS / "rps-poker"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_play_python_against_bash_and_the_result_matches_the_log(tmp_path: Path) -> None:
    out = arena("play", "rps-poker", str(RPS / "random-python"), str(RPS / "minimal-bash"), "--seed", "7", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Turn 10:" in out.stdout and "Draft 5:" in out.stdout
    logs = list((tmp_path / "arena-runs" / "logs").glob("*.jsonl"))
    assert len(logs) == 1 and f"Log: arena-runs/logs/{logs[0].name}" in out.stdout
    records = read_log(logs[0])
    header, result = records[0], records[-1]
    assert header["game"] == "rps-poker/1" and header["seed"] == 7
    assert [b["name"] for b in header["bots"]] == ["random-python", "minimal-bash"]
    assert all(len(b["digest"]) == 64 for b in header["bots"])
    # Recount the turns from the messages each seat was sent: they must give the recorded result.
    wins = {"A": 0, "B": 0}
    for record in records:
        if record["type"] == "send" and record["seat"] == "A" and record["msg"]["type"] == "main_result":
            wins[record["msg"]["winner"]] += 1
    assert [wins["A"], wins["B"]] == result["points"]
    assert f"Result: random-python {wins['A']} - {wins['B']} minimal-bash" in out.stdout
    # Every request got exactly one answer with its id, from the seat that was asked.
    asked = [(r["seat"], r["msg"]["id"]) for r in records if r["type"] == "send" and "id" in r["msg"]]
    answered = [(r["seat"], r["msg"]["id"]) for r in records if r["type"] == "recv"]
    assert sorted(asked) == sorted(answered) and len(asked) == 30


def _log_without_times(tmp_path: Path, seed: int) -> list[dict[str, Any]]:
    records = read_log(next(tmp_path.glob("*.jsonl")))
    header = records[0]
    for bot in header["bots"]:
        bot.pop("stderr_log")
    return strip_times(records)


async def test_same_seed_same_log_byte_for_byte_times_aside(tmp_path: Path) -> None:
    game = get_game("rps-poker")
    specs = (resolve(str(RPS / "random-python")), resolve(str(RPS / "minimal-python")))
    logs = []
    for run in ("one", "two"):
        await play_match(game, specs, seed=99, limits=Limits(), log_dir=tmp_path / run)
        logs.append(_log_without_times(tmp_path / run, 99))
    assert logs[0] == logs[1]
    await play_match(game, specs, seed=100, limits=Limits(), log_dir=tmp_path / "other")
    assert _log_without_times(tmp_path / "other", 100) != logs[0]


def test_bot_given_as_command_line_and_as_executable(tmp_path: Path) -> None:
    out = arena(
        "play", "rps-poker", f"python3 {RPS / 'minimal-python' / 'bot.py'}", str(RPS / "minimal-bash" / "bot.sh"),
        "--seed", "1", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Turn" not in out.stdout and "Result: bot#1" in out.stdout


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("no/such/thing", "is not a folder, a file or a command on PATH"),
        ("'unclosed", "cannot split the command line"),
    ],
)
def test_bad_bot_arguments_are_one_line_errors(tmp_path: Path, bot: str, message: str) -> None:
    out = arena("play", "rps-poker", bot, str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("arena: error:") and message in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_manifest_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text('run = "python3 bot.py"\nlanguage = "py"\n')
    out = arena("play", "rps-poker", "bot", str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "unknown key 'language'" in out.stderr
    (tmp_path / "bot" / "bot.toml").write_text("run = \n")
    out = arena("play", "rps-poker", "bot", str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "bot.toml" in out.stderr and "Traceback" not in out.stderr


def test_unknown_game_is_a_clear_error(tmp_path: Path) -> None:
    out = arena("play", "chess", str(RPS / "minimal-bash"), str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "unknown game 'chess'" in out.stderr


def test_protocol_readme_example_is_a_real_exchange(tmp_path: Path) -> None:
    """The RPS Poker exchange in protocol/README.md is what seat A really sees at seed 7."""
    shown = readme_exchange("RPS Poker")
    out = arena("play", "rps-poker", str(RPS / "random-python"), str(RPS / "minimal-bash"), "--seed", "7", cwd=tmp_path)
    assert out.returncode == 0
    seen = seen_by(read_log(next((tmp_path / "arena-runs" / "logs").glob("*.jsonl"))), "A")
    for line in shown:
        assert line in seen, line


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--move-time", "0", "must be more than 0"),
        ("--move-time", "-1", "must be more than 0"),
        ("--startup-time", "x", "is not a number"),
        ("--time-bank", "-2", "must be 0 or more"),
    ],
)
def test_bad_limits_on_the_command_line_are_refused_before_play(
    tmp_path: Path, option: str, value: str, message: str
) -> None:
    out = arena("play", "rps-poker", str(RPS / "minimal-bash"), str(RPS / "minimal-bash"), option, value, cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
