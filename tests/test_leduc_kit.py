"""``arena check-game`` at its defaults names each mistake a game author makes, planted one at a time in a copy of
the Leduc test game (``tests/leduc``); the game unplanted passes.

Each copy is checked in a child ``arena`` (``--game-module``), so its message
Structs never join this process's protocol.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import REPO

LEDUC = REPO / "tests" / "leduc"


@dataclass(frozen=True)
class Plant:
    """A mistake: edits of the game's source (or its rules page), the check that fails and what it says."""

    name: str
    edits: tuple[tuple[str, str], ...]
    check: str
    says: str
    page: tuple[tuple[str, str], ...] = ()


PLANTS = [
    # What the kit did not catch before (issue 39).
    Plant(
        "a secret in the replay table's public part",
        (('"pot": sum(self.put)},', '"pot": sum(self.put), "cards": list(self.cards)},'),),
        "hidden information",
        "the replay table (shown()) shows seat",
    ),
    Plant(
        "raises never capped",
        (('        if self.raises_left() > 0:\n            moves.append("raise")', '        moves.append("raise")'),),
        "termination",
        "was asked more than hand_requests() = 4 requests in hand",
    ),
    Plant(
        "a public card that depends on the play in an earlier round",
        (
            (
                "        self.next_board = deck[2]\n",
                "        self.next_board = deck[2]\n        self.rest = deck[2:]\n",
            ),
            ("            self.board = self.next_board\n", "            self.board = self.rest[len(self.moves) % 2]\n"),
        ),
        "duplicate fairness",
        "deal differs when the match is played otherwise: board is",
    ),
    Plant(
        "one match-wide generator that draws the board only when the round is reached",
        (
            (
                "        self._deal()\n\n    def _deal",
                "        self.rng = Rng(seed)\n        self._deal()\n\n    def _deal",
            ),
            (
                '        Rng(derive_seed(self.seed, "leduc-hand", self.hand)).shuffle(deck)\n',
                "        self.rng.shuffle(deck)\n",
            ),
            (
                "            self.board = self.next_board\n",
                "            self.board = self.rng.choice([c for c in DECK if c not in self.cards])\n",
            ),
        ),
        "duplicate fairness",
        "deal differs when the match is played otherwise",
    ),
    Plant(
        "a field declared optional and never filled",
        (("opponent_card=self.cards[1 - s] if showdown else None,", "opponent_card=None,"),),
        "messages",
        "the field opponent_card of leduc_hand_end is null in all",
    ),
    Plant(
        "payoffs that do not sum to zero, with no points_total()",
        (
            ("    def points_total(self) -> float:\n        return 0.0\n\n", ""),
            (
                "[chips if s == winner else -chips for s in (0, 1)]",
                "[chips - 1 if s == winner else -chips for s in (0, 1)]",
            ),
        ),
        "termination",
        "and the game does not say whether they should: define Game.points_total()",
    ),
    Plant(
        "an exception on a legal but rare path (the last hand, a king, the most raises in both rounds)",
        (
            (
                "        showdown = winner is None\n",
                "        showdown = winner is None\n"
                "        if showdown and self.hand == self.hands and self.cards[0][0] == 'K' and all(\n"
                "            moves.count('r') == self.raises for moves in self.rounds\n"
                "        ):\n"
                "            raise KeyError(self.moves)\n",
            ),
        ),
        "termination",
        "the game raised KeyError",
    ),
    # What the kit caught already.
    Plant(
        "a message that shows the other seat's card",
        (
            (
                '            history="/".join(self.rounds),\n            to_call',
                '            history="/".join(self.rounds) + self.cards[1 - seat],\n            to_call',
            ),
        ),
        "hidden information",
        "a message to seat",
    ),
    Plant(
        "a deal in set order (hash seeds differ between processes)",
        (("        deck = list(DECK)\n", "        deck = sorted(set(DECK), key=lambda card: hash(card) % 7)\n"),),
        "determinism",
        "in another process (PYTHONHASHSEED=",
    ),
    Plant(
        "a bad answer that crashes check() instead of being refused",
        (("        if type(action) is not str or action not in", "        if action.lower() not in"),),
        "illegal answers",
        "raised AttributeError",
    ),
    Plant(
        "a first card dealt by the other seat's answer",
        (
            (
                '            self.rounds[-1] += "r"\n',
                "            if not self.moves and len(self.rounds) == 1:\n"
                "                self.cards[1], self.next_board = self.next_board, self.cards[1]\n"
                '            self.rounds[-1] += "r"\n',
            ),
        ),
        "duplicate fairness",
        "other cards when the other seat answers otherwise",
    ),
    Plant(
        "no private state declared",
        (("    def secrets(self", "    def _secrets(self"), ("    def shown(self", "    def _shown(self")),
        "hidden information",
        "the game does not declare its seats' private state",
    ),
    Plant(
        "a forfeit that is not the offender's loss",
        (("        return forfeit_result(points, offenders, reason)", "        return points_result(points)"),),
        "termination",
        "is not a loss for it",
    ),
    Plant(
        "a declared length shorter than the game",
        (("        return hands * self.hand_requests()\n", "        return hands\n"),),
        "termination",
        "was asked more than max_requests() = 100 requests",
    ),
    Plant(
        "a message it sends that it does not declare",
        (("    messages = (LeducAct, LeducHandEnd)", "    messages = (LeducAct,)"),),
        "messages",
        "does not declare in Game.messages: leduc_hand_end",
    ),
    Plant(
        "a rules page whose example is not what its Struct encodes",
        (),
        "messages",
        "a JSON example of the rules page is not what its Struct encodes",
        page=(('"id":3,"hand":4', '"hand":4,"id":3'),),
    ),
]


def check_game(module: Path, *only: str) -> tuple[int, dict[str, str], str]:
    """``arena check-game leduc`` at its defaults (``--check`` each of ``only``, if any): its exit status, each
    check's word, and its output."""
    asked = [arg for name in only for arg in ("--check", name)]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "check-game", "leduc", "--game-module", str(module), *asked],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": ""},
    )
    words = dict((name, word) for word, name in re.findall(r"^(PASS|FAIL|SKIP)  ([a-z ]+):", done.stdout, re.M))
    return done.returncode, words, done.stdout + done.stderr


def planted(folder: Path, plant: Plant) -> Path:
    folder.mkdir()
    for name, edits in (("leduc.py", plant.edits), ("leduc.md", plant.page)):
        text = (LEDUC / name).read_text()
        for old, new in edits:
            assert text.count(old) == 1, (plant.name, old)
            text = text.replace(old, new)
        (folder / name).write_text(text)
    return folder / "leduc.py"


@pytest.mark.slow
def test_the_leduc_game_unplanted_passes_every_check_at_its_defaults_and_its_smallest_parameters() -> None:
    status, words, out = check_game(LEDUC / "leduc.py")
    assert status == 0, out
    assert set(words.values()) == {"PASS"} and len(words) == 6, out
    assert "(and at hands=1, raises=1)" in out and "every hand's deal (dealt()) was the same" in out, out


@pytest.mark.slow
@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_check_game_names_each_planted_mistake_at_its_defaults(plant: Plant, tmp_path: Path) -> None:
    # Only the check that should find the mistake runs (--check): the others pass the unplanted game above, and
    # each plant is meant for its one check.
    status, words, out = check_game(planted(tmp_path / "game", plant), plant.check)
    assert status == 1, out
    assert words == {plant.check: "FAIL"}, out
    (line,) = [line for line in out.splitlines() if line.startswith(f"FAIL  {plant.check}: ")]
    assert plant.says in line, out
