"""A game's own error ends its match as a game error, never a crash and never a bot's fault.

The game is the Leduc test game (``tests/leduc``), planted with a raise or a
broken length in a copy, loaded in a child ``arena`` with ``--game-module``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena._errors import GAME_ERROR_STATUS
from arena.competition.schedule import make_schedule

from .conftest import REPO

LEDUC = REPO / "tests" / "leduc"
BOTS = LEDUC / "bots"
APPLY = "    def apply(self, actions: Mapping[int, Any]) -> Step:\n"


def planted(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the Leduc game with ``old`` replaced by ``new`` (and its rules page beside it)."""
    source = (LEDUC / "leduc.py").read_text()
    assert old in source
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "leduc.py").write_text(source.replace(old, new, 1))
    (folder / "leduc.md").write_text((LEDUC / "leduc.md").read_text())
    return folder / "leduc.py"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=BOTS,
        env={**os.environ, "PYTHONPATH": ""},
    )


@pytest.mark.slow
def test_a_game_that_raises_ends_arena_play_as_a_game_error_and_verify_reproduces_it(tmp_path: Path) -> None:
    module = planted(tmp_path, APPLY, APPLY + '        if self.hand == 2:\n            raise KeyError("planted")\n')
    logs = tmp_path / "logs"
    played = arena(
        "play", "--game-module", str(module), "--param", "hands=3", "--log-dir", str(logs), "--seed", "3",
        "raiser", "caller",
    )  # fmt: skip
    assert played.returncode == GAME_ERROR_STATUS, played.stdout + played.stderr
    assert "Traceback" not in played.stdout + played.stderr
    assert "Result: no result: game error (the game's own code failed, not a bot): KeyError: 'planted'" in played.stdout
    (log,) = logs.glob("*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    (error,) = [r for r in records if r["type"] == "game_error"]
    assert error["error"] == "KeyError: 'planted'" and 'raise KeyError("planted")' in error["traceback"]
    assert not [r for r in records if r["type"] == "fault"]
    assert records[-1]["reason"] == "game error: KeyError: 'planted'" and records[-1]["winner"] is None
    verified = arena("replay", "--game-module", str(module), "--verify", str(log))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The same log against the rules without the error: the rules no longer produce it.
    fixed = arena("replay", "--game-module", str(LEDUC / "leduc.py"), "--verify", str(log))
    assert fixed.returncode == 1 and fixed.stdout.startswith("NOT verified: "), fixed.stdout + fixed.stderr


def test_a_game_that_asks_more_than_max_requests_is_the_game_s_error_not_a_bot_s(tmp_path: Path) -> None:
    too_short = "        return hands * self.hand_requests()\n"
    module = planted(tmp_path, too_short, "        return 3\n")
    played = arena("play", "--game-module", str(module), "--no-log", "--seed", "1", "raiser", "raiser")
    assert played.returncode == GAME_ERROR_STATUS, played.stdout + played.stderr
    assert "seat A was asked more than max_requests() = 3 requests" in played.stdout
    assert "fault" not in played.stdout


@pytest.mark.slow
def test_a_game_that_raises_in_one_match_of_fifty_leaves_49_recorded_and_says_so(tmp_path: Path) -> None:
    schedule = make_schedule(["raiser", "caller"], seed=3, cycles=25, duplicate=True)
    assert len(schedule) == 50
    broken = next(m for m in schedule if m.key == "c13-raiser-vs-caller-a")
    # Both legs of a deal share its seed; only the leg where the raiser sits in A raises first in hand 2.
    module = planted(
        tmp_path,
        APPLY,
        APPLY + f'        if self.seed == {broken.seed} and self.hand == 2 and self.rounds == ["r"]:\n'
        '            raise ZeroDivisionError("planted")\n',
    )
    db, logs = tmp_path / "r.sqlite", tmp_path / "logs"
    done = arena(
        "tournament", "leduc", "raiser", "caller", "--game-module", str(module), "--param", "hands=3",
        "--cycles", "25", "--db", str(db), "--log-dir", str(logs), "--seed", "3", "--progress", "none",
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == GAME_ERROR_STATUS, out
    assert "Traceback" not in out
    assert "Leaderboard (49 matches of 50)" in out, out
    assert "arena: 1 game error(s): the game's own code failed" in done.stderr
    assert f"c13-raiser-vs-caller-a (seed {broken.seed}): ZeroDivisionError: planted" in done.stderr
    log = logs / "tournament-1" / "c13-raiser-vs-caller-a.jsonl.gz"
    with gzip.open(log, "rt") as lines:
        assert any(json.loads(line)["type"] == "game_error" for line in lines)
    verified = arena("replay", "--game-module", str(module), "--verify", str(log))
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_play_and_verify_warn_when_a_match_s_points_break_the_game_s_declared_total(tmp_path: Path) -> None:
    rake = "[chips - 1 if s == winner else -chips for s in (0, 1)]"
    module = planted(tmp_path, "[chips if s == winner else -chips for s in (0, 1)]", rake)
    logs = tmp_path / "logs"
    played = arena(
        "play", "--game-module", str(module), "--param", "hands=3", "--log-dir", str(logs), "--seed", "3",
        "raiser", "caller",
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    warning = "arena: warning: the points 5 and -8 add up to -3, not to the game's points_total() = 0"
    assert warning in played.stderr, played.stdout + played.stderr
    (log,) = logs.glob("*.jsonl")
    verified = arena("replay", "--game-module", str(module), "--verify", str(log))
    assert verified.returncode == 0 and warning in verified.stderr, verified.stdout + verified.stderr


def test_the_generic_table_heads_steps_by_hand_and_ends_each_hand_with_a_step_of_its_own(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    played = arena(
        "play", "--game-module", str(LEDUC / "leduc.py"), "--param", "hands=2", "--log-dir", str(logs),
        "--seed", "5", "--quiet", "raiser", "caller",
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    (log,) = logs.glob("*.jsonl")
    shown = arena("replay", "--game-module", str(LEDUC / "leduc.py"), str(log)).stdout
    headings = [line for line in shown.splitlines() if re.match(r"\[\d+/\d+\] ", line)]
    assert headings[:7] == [
        "[1/12] match start",
        "[2/12] hand 1, move 1: leduc_act hand 1 round 1",
        "[3/12] hand 1, move 2: leduc_act hand 1 round 1",
        "[4/12] hand 1, move 3: leduc_act hand 1 round 2",
        "[5/12] hand 1, move 4: leduc_act hand 1 round 2",
        "[6/12] hand 1 ends",
        "[7/12] hand 2, move 1: leduc_act hand 2 round 1",
    ], shown
    end = shown.split("[6/12] hand 1 ends")[1].split("[7/12]")[0]
    assert "A told    leduc_hand_end hand 1" in end and "B told    leduc_hand_end hand 1" in end
    assert "table: hand 1 · pot 10 · board Jh" in end  # the hand's table as it ended, not the next deal's
    assert "raiser: chips -7 · card Qh" in end and "» Hand 1: rc/rc: A -7, B +7" in end  # the chips it moved


@pytest.mark.slow
def test_a_comparison_whose_game_fails_stops_after_three_game_errors_without_a_verdict(tmp_path: Path) -> None:
    module = planted(tmp_path, APPLY, APPLY + '        raise ZeroDivisionError("planted")\n')
    done = arena(
        "compare", "leduc", "raiser", "caller", "--game-module", str(module), "--param", "hands=2",
        "--db", str(tmp_path / "r.sqlite"), "--log-dir", str(tmp_path / "logs"), "--seed", "1", "--jobs", "1",
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == GAME_ERROR_STATUS, out
    assert "Traceback" not in out
    assert "3 game errors: no further match starts (fix the game, then resume)" in done.stdout, out
    assert "No verdict" in done.stdout and "3 game errors (the game's own code failed)" in done.stdout, out
    assert "arena: 3 game error(s): the game's own code failed" in done.stderr, out
