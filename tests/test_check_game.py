"""``arena check-game``: the conformance kit passes sound games and fails each broken game on its own check.

The kit's games (``tests/kit_games``) are loaded in a child ``arena`` process
with ``--game-module``, so their message Structs never join this process's
protocol (the committed JSON schema is compared with it elsewhere).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from arena.checks._kit import Audit, KitFailure, Playout
from arena.checks.game import CHECKS
from arena.games import MatchState, get_game

from .conftest import REPO

KIT_GAMES = REPO / "tests" / "kit_games"
SMALL = ["--matches", "100", "--requests", "1000"]
"""Smaller than the defaults: each broken game breaks at its first match."""


def check_game(game: str, *args: str) -> tuple[int, dict[str, str], str]:
    """Run ``arena check-game``; its exit status, each check's word (PASS, FAIL, SKIP), and its output."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "check-game", game, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": ""},
    )
    words = dict((name, word) for word, name in re.findall(r"^(PASS|FAIL|SKIP)  ([a-z ]+):", done.stdout, re.M))
    return done.returncode, words, done.stdout + done.stderr


def kit_game(name: str) -> list[str]:
    return ["--game-module", str(KIT_GAMES / f"kit_{name.replace('-', '_')}.py")]


@pytest.mark.slow
def test_a_sound_game_passes_every_check_and_exits_0() -> None:
    status, words, out = check_game("kit-ok", *kit_game("ok"), *SMALL)
    assert status == 0, out
    assert words == dict.fromkeys(CHECKS, "PASS"), out
    assert out.rstrip().splitlines()[-1].startswith("kit-ok: all checks passed"), out


@pytest.mark.parametrize(
    ("name", "check", "says"),
    [
        ("hash", "determinism", "gave other messages in another process (PYTHONHASHSEED="),
        ("leak", "hidden information", "a message to seat A shows seat B's secret"),
        ("endless", "termination", "was asked more than max_requests() = 5 requests"),
        ("raise", "illegal answers", "raised TypeError: int() argument must be"),
        ("badpage", "messages", "a JSON example of the rules page is not what its Struct encodes"),
        ("deal", "duplicate fairness", "seat B is dealt other cards when the other seat answers otherwise"),
    ],
)
@pytest.mark.slow
def test_each_broken_game_fails_its_own_check_and_no_other(name: str, check: str, says: str) -> None:
    status, words, out = check_game(f"kit-{name}", *kit_game(name), *SMALL)
    assert status == 1, out
    assert words[check] == "FAIL", out
    assert says in out, out
    others = {other: word for other, word in words.items() if other != check}
    allowed = {"PASS", "SKIP"} if name == "endless" else {"PASS"}  # a match that never ends proves nothing else
    assert set(others.values()) <= allowed, out
    assert f"kit-{name}: FAILED: {check}" in out, out


def test_check_runs_only_the_checks_named_and_a_match_that_never_ends_still_fails_termination() -> None:
    # --check picks checks (in the usual order); the endless game's hidden information check meets a match that
    # never ends: that is no pass, so termination fails as it would have, once, and the exit status says so.
    status, words, out = check_game("kit-leak", *kit_game("leak"), *SMALL, "--check", "hidden information")
    assert status == 1 and words == {"hidden information": "FAIL"}, out
    asked = ("--check", "messages", "--check", "illegal answers")
    status, words, out = check_game("kit-endless", *kit_game("endless"), *SMALL, *asked)
    assert status == 1, out
    assert list(words.items()) == [("termination", "FAIL"), ("illegal answers", "SKIP"), ("messages", "SKIP")], out
    assert "was asked more than max_requests() = 5 requests" in out and "FAILED: termination (" in out, out
    status, words, out = check_game("kit-ok", *kit_game("ok"), *SMALL, "--check", "determinism")
    assert status == 0 and words == {"determinism": "PASS"}, out
    assert out.rstrip().splitlines()[-1].startswith("kit-ok: the checks asked passed"), out


@pytest.mark.slow
def test_a_game_that_does_not_declare_its_secrets_fails_hidden_information(tmp_path: Path) -> None:
    source = (KIT_GAMES / "kit_ok.py").read_text().replace('id = "kit-ok"', 'id = "kit-quiet"')
    source += "\n\ndel KitGame.match.secrets\n"  # back to MatchState's: the game says nothing of its private state
    (tmp_path / "kit_quiet.py").write_text(source)
    (tmp_path / "kit-quiet.md").write_text((KIT_GAMES / "kit-ok.md").read_text())
    (tmp_path / "kitbase.py").write_text((KIT_GAMES / "kitbase.py").read_text())
    status, words, out = check_game("kit-quiet", "--game-module", str(tmp_path / "kit_quiet.py"), *SMALL)
    assert status == 1 and words["hidden information"] == "FAIL", out
    assert "define MatchState.secrets(seat)" in out


@pytest.mark.slow
def test_a_game_that_loops_in_its_own_code_is_said_to_be_stuck_once_not_waited_for(tmp_path: Path) -> None:
    # The third round's apply never returns (and swallows what it can): the kit stops the match after
    # --match-seconds, fails termination with why, and leaves the other checks unproven without waiting again.
    source = (KIT_GAMES / "kit_ok.py").read_text().replace('id = "kit-ok"', 'id = "kit-loop"')
    source += (
        "\n\nclass LoopingMatch(KitGame.match):\n"
        "    def apply(self, actions):\n"
        "        while self.steps_played >= 2:\n"
        "            try:\n"
        "                pass\n"
        "            except Exception:\n"
        "                pass\n"
        "        self.steps_played += 1\n"
        "        return super().apply(actions)\n\n"
        "LoopingMatch.steps_played = 0\n"
        "KitOk.match = LoopingMatch\n"
    )
    (tmp_path / "kit_loop.py").write_text(source)
    (tmp_path / "kit-loop.md").write_text((KIT_GAMES / "kit-ok.md").read_text())
    (tmp_path / "kitbase.py").write_text((KIT_GAMES / "kitbase.py").read_text())
    module = ("--game-module", str(tmp_path / "kit_loop.py"))
    status, words, out = check_game("kit-loop", *module, *SMALL, "--match-seconds", "0.5")
    assert status == 1, out
    assert words["termination"] == "FAIL", out
    assert "the match took more than 0.5 s: does the game's code loop" in out, out
    assert {words[name] for name in CHECKS if name != "termination"} == {"SKIP"}, out
    assert re.search(r"FAILED: termination \(([0-9.]+) s\)", out), out  # stuck once: the other checks did not run


def test_the_kits_alarm_puts_back_the_callers_timer_and_handler() -> None:
    import signal

    rang: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: rang.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        Playout(get_game("rps-poker"), 1).play()
        left, _interval = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < left <= 30  # the caller's timer goes on, less the match's time
        assert rang == []
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        time.sleep(0.2)  # (the caller's handler rings, not the kit's: no _Overtime here)
        assert rang == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
def test_match_seconds_out_of_range_is_one_line() -> None:
    status, _words, out = check_game("rps-poker", "--match-seconds", "inf")
    assert status == 2 and "--match-seconds must be more than 0 and at most 86400, not inf" in out, out


@pytest.mark.slow
@pytest.mark.parametrize("game", ["rps-poker", "gops", "card-jitsu", "six-card-poker", "badugi"])
def test_the_built_in_games_pass_the_kit(game: str) -> None:
    # Smaller budgets than the defaults (a fifth), the same checks.
    status, words, out = check_game(game, "--requests", "4000")
    assert status == 0, out
    assert words == dict.fromkeys(CHECKS, "PASS"), out


@pytest.mark.parametrize("game_id", ["rps-poker", "card-jitsu", "badugi"])
def test_a_built_in_game_made_to_leak_a_secret_fails_the_audit(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The built-in games' own declarations have teeth: slip one of the other seat's secrets into a request's list of
    # cards (Badugi's audit, once a test of its own, is the kit's now, for every game).
    game = get_game(game_id)
    kind = type(game.new_match(0))
    honest = kind.requests

    def leaky(state: MatchState) -> dict[int, Any]:
        asked = honest(state)
        for seat, request in asked.items():
            theirs = sorted(s for s in state.secrets(1 - seat) if isinstance(s, str))
            name = next((f for f in request.__struct_fields__ if isinstance(getattr(request, f), list)), None)
            if theirs and name is not None:
                asked[seat] = msgspec.structs.replace(request, **{name: [*getattr(request, name), theirs[0]]})
        return asked

    for seed in range(3):
        Playout(game, seed, Audit(secrets=True)).play()  # honest play passes
    monkeypatch.setattr(kind, "requests", leaky)
    with pytest.raises(KitFailure, match=r"shows seat [AB]'s secret"):
        for seed in range(3):
            Playout(game, seed, Audit(secrets=True)).play()
