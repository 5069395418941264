"""A person's seat in ``arena play GAME human BOT``: a real ``arena`` process, its input piped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.games._choices import choices
from arena.replay import load_log, verify

from .conftest import SAMPLE_BOTS

RANDOM_RPS = SAMPLE_BOTS / "rps-poker" / "random-python"


def _play(tmp_path: Path, typed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "play", "rps-poker", "human", str(RANDOM_RPS), "--seed", "7",
         "--log-dir", str(tmp_path / "logs")],
        input=typed, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.slow
def test_a_person_plays_a_match_to_the_end_through_bad_input_and_it_replays(tmp_path: Path) -> None:
    # Junk and out of range are asked again; a card's name is a move; the last turn's only move is Enter.
    typed = "x\n99\ns5\n" + "1\n" * 3 + "2\n" + "1\n" * 9 + "\n"
    done = _play(tmp_path, typed)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you play seat A against random-python" in out
    assert "'x' is not one of the moves: type a number from 1 to 2, or a move as listed" in out
    assert "A keeps S5 and passes R1" in out  # the card named (any case): the game's words for what it did
    assert out.count("Which card do you keep? (the other one goes to your opponent)") >= 5  # the draft says so
    assert out.count("Which card do you play against the base card?") == 10
    assert "Your only move is" in out and "(1-1)" not in out and "asked: " not in out
    assert "Turn 10 of 10" in out and " wins turn " in out  # each turn's result as a sentence
    assert out.index("Seed 7") > out.index("The match is over")  # the seed deals both hands: told at the end
    narration = out[out.index("What happened, both seats' cards shown:") :]
    assert "B keeps " in narration  # the other seat's draft, told only after the match
    assert out.index("B keeps ") > out.index("The match is over")
    assert "Result: human" in out and "fault" not in out
    log = load_log(next((tmp_path / "logs").glob("*.jsonl")))
    assert log.result is not None and not log.faults
    assert verify(log).difference is None  # the match replays from its seed and moves, as any match
    assert "-human-" in log.match_id and not log.match_id.endswith("-7")  # both seats get the id: never the seed


@pytest.mark.slow
def test_a_person_whose_input_ends_forfeits_without_a_traceback(tmp_path: Path) -> None:
    done = _play(tmp_path, "1\n1\n")
    assert done.returncode == 0, done.stderr
    assert "You left the match" in done.stdout
    assert "fault: A (human) left the match" in done.stdout
    assert "SIGABRT" not in done.stdout and "crash" not in done.stdout  # the relay exits cleanly
    assert "Traceback" not in done.stdout + done.stderr


def test_the_choices_of_each_known_request_are_the_answers_it_allows() -> None:
    assert choices({"type": "gops_bid", "hand": [2, 5]}) == [("2", 2), ("5", 5)]
    assert choices({"type": "draft_pick", "cards": ["R3", "S7"]}) == [("R3", 0), ("S7", 1)]
    assert choices({"type": "badugi_act", "legal": ["fold", "call"]}) == [("fold", "fold"), ("call", "call")]
    assert len(choices({"type": "badugi_draw", "cards": ["Kc", "Td", "2s", "3h"]}) or []) == 16
    assert len(choices({"type": "poker_set", "hand": [1, 2, 3, 4, 5, 6]}) or []) == 60
    assert choices({"type": "someone_elses_game"}) is None
