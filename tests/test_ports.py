"""Differential tests: each Python port makes the same choice as the original JavaScript bot.

A port plays seeded RPS Poker matches in-process (``arena.games.rps_poker``)
against a seeded random opponent, one bot object for a run of matches, as a
reused process would. Every call it received is recorded as the protocol
messages Arena would send; the original bot, unchanged, hears the same
messages through ``arena/bots/js/host.js`` in node, and every answer must be equal.
"""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import protocol
from arena.bots.js import HOST_JS
from arena.games.rps_poker import RpsPoker
from protocol.rps_poker import DraftPick, DraftReceive, MainPlay, MainResult

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
ORIGINALS = SHARED / "games" / "rps-poker-koth-bots.js"
PORTS = {
    "MinimalValid": "minimal-valid-py",
    "Simple": "simple-py",
    "BasicOdds": "basic-odds-py",
    "ObviousStrats": "obvious-strats-py",
    "tsh": "tsh-py",
}
PROCESSES = 6
"""Runs per bot, each a fresh bot object (a fresh node process for the original)."""
MATCHES_PER_PROCESS = 20
"""Matches one bot object plays in a row: state carried between matches is compared too."""

pytestmark = [
    pytest.mark.skipif(not ORIGINALS.is_file(), reason=f"the original bots are not at {ORIGINALS}"),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


def load_port(folder: str) -> ModuleType:
    path = ROOT / "sample_bots" / "rps-poker" / folder / "bot.py"
    spec = importlib.util.spec_from_file_location(f"port_{folder.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Transcript:
    """What one bot object heard over a run of matches, and what it answered."""

    lines: list[bytes] = field(default_factory=list)
    answers: dict[int, Any] = field(default_factory=dict)
    where: dict[int, str] = field(default_factory=dict)
    next_id: int = 1

    def notice(self, message: protocol.Message) -> None:
        self.lines.append(protocol.encode(message))

    def request(self, message: protocol.Request, answer: Any, where: str) -> None:
        message.id = self.next_id
        self.next_id += 1
        self.lines.append(protocol.encode(message))
        self.answers[message.id] = answer
        self.where[message.id] = where


def play_port(bot: Any, seed: int, matches: int) -> Transcript:
    """``bot`` (a port's ``Bot``) plays ``matches`` seeded matches against a random opponent."""
    transcript = Transcript()
    for number in range(matches):
        match_seed = seed * 1000 + number
        seat = number % 2
        chooser = random.Random(match_seed)
        state = RpsPoker().new_match(match_seed)
        match_id = f"diff-{match_seed}"
        transcript.notice(
            protocol.MatchStart(
                match_id=match_id,
                game="rps-poker/1",
                seat=protocol.SEATS[seat],
                params={},
                limits=protocol.Limits(),
                opponent="random",
            )
        )
        while not state.is_over:
            requests = state.requests()
            ours = requests[seat]
            if isinstance(ours, DraftPick):
                action = bot.draft_pick(list(ours.cards))
                where = f"seed {match_seed}, draft round {ours.round}, cards {ours.cards}"
            else:
                assert isinstance(ours, MainPlay)
                action = bot.main_play(list(ours.hand), ours.base)
                where = f"seed {match_seed}, turn {ours.turn}, hand {ours.hand}, base {ours.base}"
            transcript.request(ours, action, where)
            size = 2 if isinstance(ours, DraftPick) else len(ours.hand)
            if not (type(action) is int and 0 <= action < size):
                break  # an illegal move ends the match, as in the arena
            other = requests[1 - seat]
            theirs = chooser.randrange(2 if isinstance(other, DraftPick) else len(other.hand))
            step = state.apply({seat: action, 1 - seat: theirs})
            for to, message in step.notices:
                if to != seat:
                    continue
                transcript.notice(message)
                if isinstance(message, DraftReceive):
                    bot.draft_receive(message.card)
                elif isinstance(message, MainResult):
                    bot.main_postprocess(message.opponent_card)
        transcript.notice(protocol.MatchEnd(match_id=match_id, seat=protocol.SEATS[seat], result=state.result()))
    return transcript


def original_answers(name: str, transcript: Transcript) -> dict[int, Any]:
    """The original bot's answer to every request of ``transcript``, through the host in node."""
    run = subprocess.run(
        ["node", str(HOST_JS), str(ORIGINALS), name],
        input=b"".join(transcript.lines),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr.decode()
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    return {answer["id"]: answer["action"] for answer in answers}


def first_difference(transcript: Transcript, original: dict[int, Any]) -> str | None:
    for request_id, answer in transcript.answers.items():
        if original.get(request_id, "no answer") != answer:
            return (
                f"request {request_id} ({transcript.where[request_id]}): "
                f"port answered {answer!r}, original {original.get(request_id, 'nothing')!r}"
            )
    if set(original) != set(transcript.answers):
        return f"the original answered ids {sorted(set(original) - set(transcript.answers))} never asked"
    return None


@pytest.mark.parametrize("name", list(PORTS))
@pytest.mark.slow
def test_port_makes_the_originals_choices(name: str) -> None:
    port = load_port(PORTS[name])
    compared = 0
    for seed in range(PROCESSES):
        transcript = play_port(port.Bot(), seed, MATCHES_PER_PROCESS)
        difference = first_difference(transcript, original_answers(name, transcript))
        assert difference is None, f"{name}: {difference}"
        compared += len(transcript.answers)
    assert compared >= PROCESSES * MATCHES_PER_PROCESS * 15 // 2


def test_a_different_bot_is_caught() -> None:
    transcript = play_port(load_port(PORTS["MinimalValid"]).Bot(), 0, 3)
    assert first_difference(transcript, original_answers("Simple", transcript)) is not None


def test_state_carried_between_matches_is_the_originals() -> None:
    # tsh never removes the cards it receives from its unseen set, so the next
    # match starts from leftovers; BasicOdds has seen every card and starts afresh.
    tsh, basic_odds = load_port(PORTS["tsh"]).Bot(), load_port(PORTS["BasicOdds"]).Bot()
    heard = play_port(tsh, 1, 1)
    play_port(basic_odds, 1, 1)
    received = {json.loads(line)["card"] for line in heard.lines if b'"draft_receive"' in line}
    assert set(tsh.other_cards) == received
    assert basic_odds.other_cards == {}
