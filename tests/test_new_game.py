"""``arena new-game NAME``: its package installs with ``pip install -e`` and passes the kit and ``arena check``.

The package is written and used in child processes: its message Structs must
not join this process's protocol (a test compares the schema with the
committed copy of the built-in games').
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from arena._errors import ConfigError
from arena.checks.new_game import class_name, new_game, package_name


def run(*args: str, python: str = sys.executable, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [python, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env={**os.environ, "PYTHONPATH": ""}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("High-Card", "cannot be a game's id"),
        ("high_card", "cannot be a game's id"),
        ("high--card", "cannot be a game's id"),
        ("9lives", "cannot be a game's id"),
        ("x" * 41, "at most 40 characters"),
        ("gops", "there is a game called gops already (built-in)"),
    ],
)
def test_a_bad_or_taken_name_is_a_one_line_error_and_writes_nothing(tmp_path: Path, name: str, says: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(says)):
        new_game(name, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_written_into(tmp_path: Path) -> None:
    # (a name no example game takes: a test in the same process may have loaded examples/high-card)
    (tmp_path / "tall-card").mkdir()
    (tmp_path / "tall-card" / "mine.txt").write_text("keep")
    with pytest.raises(ConfigError, match="exists already"):
        new_game("tall-card", tmp_path)
    assert [p.name for p in (tmp_path / "tall-card").iterdir()] == ["mine.txt"]


def test_names_of_the_package_and_class() -> None:
    assert (package_name("high-card"), class_name("high-card")) == ("high_card_game", "HighCard")
    assert package_name("random") == "random_game", "never a module of the standard library's name"


@pytest.mark.slow
def test_the_new_package_installs_with_pip_e_and_passes_check_game_check_and_its_own_tests(tmp_path: Path) -> None:
    run("-m", "arena", "new-game", "coin-duel", "--dir", str(tmp_path))
    folder = tmp_path / "coin-duel"
    # A virtual environment of its own that sees this one's packages (Arena), where pip installs the game editable.
    venv = tmp_path / "venv"
    run("-m", "venv", "--without-pip", str(venv))
    python = str(venv / "bin" / "python")
    site = run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", python=python).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "_arena.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    run("-m", "pip", "--python", python, "install", "-q", "--no-deps", "-e", str(folder))
    listed = run("-m", "arena", "games", python=python).stdout
    assert "coin-duel/1  Coin duel: " in listed and "[package arena-coin-duel 0.1.0]" in listed
    checked = run("-m", "arena", "check-game", "coin-duel", "--requests", "2000", python=python).stdout
    assert "coin-duel: all checks passed" in checked, checked
    bots = folder / "coin_duel_game" / "bots"
    bot = run("-m", "arena", "check", str(bots / "random"), "--matches", "2", "--log-dir", str(tmp_path / "check"),
              python=python).stdout  # fmt: skip
    assert "against coin-duel-minimal" in bot and "coin-duel-random: all checks passed" in bot, bot
    own = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", python=python, cwd=folder).stdout
    assert "passed" in own and "failed" not in own, own
