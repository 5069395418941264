"""``arena play`` end to end: real bots in two languages, logs, reproducibility."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arena import ConfigError, play_match, resolve
from arena.games import get_game
from arena.supervisor.matchlog import read_log, strip_times
from protocol import Limits

from .conftest import REPO, SAMPLE_BOTS, readme_exchange, seen_by
from .inprocess import arena_here

RPS = SAMPLE_BOTS / "rps-poker"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``cwd`` (in this process: see tests/inprocess.py; the docs' commands run as processes)."""
    return arena_here(*args, cwd=cwd)


@pytest.mark.slow
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
    assert f"Result: random-python {wins['A']} : {wins['B']} minimal-bash" in out.stdout
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


@pytest.mark.slow
def test_bot_given_as_command_line_and_as_executable(tmp_path: Path) -> None:
    out = arena(
        "play", "rps-poker", f"python3 {RPS / 'minimal-python' / 'bot.py'}", str(RPS / "minimal-bash" / "bot.sh"),
        "--seed", "1", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Turn" not in out.stdout and "Result: bot#1" in out.stdout
    assert "arena: note: both bots are named bot; they play as bot#1 and bot#2" in out.stderr
    assert out.stdout.startswith("Result:"), "--quiet prints no header"


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("no/such/thing", "is not a folder, a file or a command on PATH"),
        ("'unclosed", "cannot split the command line"),
    ],
)
@pytest.mark.slow
def test_bad_bot_arguments_are_one_line_errors(tmp_path: Path, bot: str, message: str) -> None:
    out = arena("play", "rps-poker", bot, str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("arena: error:") and message in out.stderr


@pytest.mark.slow
def test_an_error_naming_a_bot_never_passes_its_control_characters_to_the_terminal(tmp_path: Path) -> None:
    hostile = tmp_path / "bot\x1b]0;owned\x07\x1b[2J"
    hostile.mkdir()
    (hostile / "bot.toml").write_text("this is not toml")  # an error that names the folder
    out = arena("play", "rps-poker", str(hostile), str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("arena: error:")
    assert "\x1b" not in out.stderr and "\x07" not in out.stderr
    assert "\\x1b]0;owned" in out.stderr  # shown, escaped
    assert "Traceback" not in out.stderr


@pytest.mark.slow
def test_bad_manifest_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text('run = "python3 bot.py"\nlanguage = "py"\n')
    out = arena("play", "rps-poker", "bot", str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "unknown key 'language'" in out.stderr
    (tmp_path / "bot" / "bot.toml").write_text("run = \n")
    out = arena("play", "rps-poker", "bot", str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "bot.toml" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_unknown_game_is_a_clear_error(tmp_path: Path) -> None:
    out = arena("play", "chess", str(RPS / "minimal-bash"), str(RPS / "minimal-bash"), cwd=tmp_path)
    assert out.returncode == 2 and "unknown game 'chess'" in out.stderr


@pytest.mark.slow
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
@pytest.mark.slow
def test_bad_limits_on_the_command_line_are_refused_before_play(
    tmp_path: Path, option: str, value: str, message: str
) -> None:
    out = arena("play", "rps-poker", str(RPS / "minimal-bash"), str(RPS / "minimal-bash"), option, value, cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_a_crash_shows_the_end_of_the_bots_stderr_and_its_file(tmp_path: Path) -> None:
    bot = tmp_path / "crashy.py"
    bot.write_text(
        "import sys\nsys.stdin.readline()\n"
        "print('loading the model', file=sys.stderr)\n"
        "print('KeyError: \\x1b]0;pwned\\x07', file=sys.stderr)\nsys.exit(1)\n"
    )
    out = arena("play", "rps-poker", f"python3 {bot}", str(RPS / "minimal-bash"), "--seed", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "  fault: A (crashy) crash: closed its output: exited with code 1\n" in out.stdout
    (stderr_log,) = (tmp_path / "arena-runs" / "logs").glob("*.A.stderr.log")
    shown = out.stdout.split("fault: A", 1)[1]
    assert f"    stderr, last lines ({stderr_log.relative_to(tmp_path)}):\n" in shown
    assert "      loading the model\n      KeyError: \\x1b]0;pwned\\x07\n" in shown, "escapes are shown, not obeyed"
    assert "\x1b" not in out.stdout

    quiet = arena("play", "rps-poker", f"python3 {bot}", str(RPS / "minimal-bash"), "--no-log", cwd=tmp_path)
    assert "    stderr, last lines (not kept: --no-log):\n      loading the model\n" in quiet.stdout


@pytest.mark.slow
def test_a_bot_that_says_nothing_in_gops_gets_the_text_protocol_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import _print_result

    quiz = tmp_path / "quiz_bot.py"  # a bot for the 2007 referee: it waits for "Competition card:" lines
    quiz.write_text(
        "import sys\nfor line in sys.stdin:\n    if line.startswith('Competition card:'):\n"
        "        print(line.split()[-1], flush=True)\n"
    )
    game = get_game("gops")
    specs = (resolve(f"{sys.executable} {quiz}"), resolve(str(SAMPLE_BOTS / "gops" / "random-python")))
    quick = Limits(startup_s=0.5, move_s=0.5, time_bank_s=0.0, move_wall_s=1.0)
    record = trio.run(lambda: play_match(game, specs, seed=1, limits=quick, log_dir=tmp_path))
    _print_result(record, game, specs)
    out = capsys.readouterr().out
    assert "fault: A (quiz_bot) timeout" in out
    assert "hint: it wrote nothing on its standard output: does it flush after each line?" in out
    assert "hint: was it written for GOPS's original plain-text referee? run it with --protocol-a gops-text" in out


@pytest.mark.slow
def test_two_bots_with_one_name_get_a_note(tmp_path: Path) -> None:
    same = str(RPS / "minimal-python")
    out = arena("play", "rps-poker", same, same, "--no-log", "--quiet", cwd=tmp_path)
    assert "arena: note: both bots are named minimal-python; they play as minimal-python#1 and minimal-python#2" in (
        out.stderr
    )
    out = arena("tournament", "rps-poker", same, same, "--cycles", "1", "--no-log", "--quiet", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "arena: note: two bots are named 'minimal-python':" in out.stderr
    assert "plays as 'minimal-python#2'" in out.stderr


def test_a_hosted_javascript_bot_is_named_after_the_bot_it_hosts(tmp_path: Path) -> None:
    from arena.bots.js import HOST_JS

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    examples = REPO / "examples" / "challenge-bots.js"
    assert resolve(f"node {HOST_JS} {examples} Saver").name == "Saver"
    assert resolve(f"node {HOST_JS} {examples}").name == "challenge-bots"
    assert resolve(f"node $ARENA_JS_HOST {examples} Saver").name == "Saver"
    copied = tmp_path / ".arena-build" / "host.js"  # a bot folder's own copy of the host
    copied.parent.mkdir()
    copied.write_bytes(HOST_JS.read_bytes())
    assert resolve(f"node {copied} {examples} Odds").name == "Odds"
    assert resolve(f"python3 {copied}").name == "host", "only node runs the host"


@pytest.mark.parametrize("name", ["\x1b]0;pwned\x07", "red\x1b[31m", "", "x" * 65, "rtl\u202e"])
def test_a_manifest_name_must_be_printable(tmp_path: Path, name: str) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.toml").write_text(f'name = {json.dumps(name)}\nrun = "true"\n')
    with pytest.raises(ConfigError, match="'name' must be printable text of 1 to 64 characters"):
        resolve(str(tmp_path / "bot"))


def test_arena_play_and_games_start_without_the_other_commands_modules() -> None:
    # The tournament machinery, Dask and the server's web stack cost a second or more to import on a slow machine.
    heavy = "('arena.competition', 'arena.server', 'arena.replay', 'distributed', 'hypercorn', 'starlette')"
    code = (
        "import sys; from arena.cli import main; main(['games']);"
        f" print([m for m in sys.modules if m.startswith({heavy})])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout.strip().splitlines()[-1] == "[]"
