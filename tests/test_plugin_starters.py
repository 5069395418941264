"""``arena new GAME LANGUAGE`` for a plugin game: a starter made from its message Structs that plays legal moves.

The games are loaded in a child ``arena`` (``--game-module``), so their Structs never join this process's protocol.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

LEDUC = REPO / "tests" / "leduc" / "leduc.py"
HIGH_CARD = REPO / "examples" / "high-card" / "high_card.py"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ""},
    )


def test_a_plugin_game_s_starter_answers_from_what_its_requests_carry(tmp_path: Path) -> None:
    for language in ("python", "c", "go"):
        made = arena("new", "high-card", language, "--game-module", str(HIGH_CARD), cwd=tmp_path)
        assert made.returncode == 0, made.stdout + made.stderr
    python = (tmp_path / "high-card-python" / "bot.py").read_text()
    assert 'if kind == "high_card_play":  # Play one card of your hand; answer its value.' in python
    assert "# fields: turn, hand, score" in python and 'return request["hand"][0]' in python
    assert "draft_pick" not in python and "game:" not in python  # no built-in game's part is left
    assert 'strtol(after(line, "\\"hand\\":["), NULL, 10)' in (tmp_path / "high-card-c" / "bot.c").read_text()
    assert 'return request["hand"].([]any)[0], nil' in (tmp_path / "high-card-go" / "bot.go").read_text()
    assert 'game = "high-card"' in (tmp_path / "high-card-go" / "bot.toml").read_text()


def test_a_plugin_game_s_starter_in_another_language_is_refused_in_one_line(tmp_path: Path) -> None:
    refused = arena("new", "leduc", "java", "--game-module", str(LEDUC), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "arena: error: a starter for the plugin game leduc is made in python, c, go, not Java"
    ), refused.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "c", "go"])
def test_a_plugin_game_s_starter_passes_arena_check_as_written(language: str, tmp_path: Path) -> None:
    made = arena("new", "leduc", language, "--game-module", str(LEDUC), cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    checked = arena("check", f"leduc-{language}", "--game-module", str(LEDUC), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"leduc-{language}: all checks passed" in checked.stdout
