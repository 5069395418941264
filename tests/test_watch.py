"""``arena tournament --watch``: the match being played, message by message, while the tournament runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SAMPLE_BOTS

SLOW_BOT = Path(__file__).parent / "bots" / "slow-python"


@pytest.mark.slow
def test_a_watched_tournament_shows_each_match_as_it_is_played(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "rps-poker", str(SLOW_BOT),
         str(SAMPLE_BOTS / "rps-poker" / "random-python"), "--cycles", "1", "--no-duplicate", "--jobs", "1",
         "--watch", "--db", str(tmp_path / "w.sqlite"), "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("-- m"))
    assert "slow-python (A) against random-python (B)" in lines[start]
    assert lines[start + 1].startswith("  A asked draft_pick round 1 cards")
    assert sum(line.startswith("  B answers ") for line in lines) == 15  # 5 picks and 10 turns
    # The match's end is shown (the watcher follows the log from its own thread: on a busy machine its last lines
    # may come after the leaderboard, which the tournament prints as soon as the result is recorded).
    assert any(line.startswith("  Result: slow-python") for line in lines)
    assert any(line.startswith("Leaderboard") for line in lines)
