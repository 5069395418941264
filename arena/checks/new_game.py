"""``arena new-game NAME``: a new game's package, ready to install, check and play.

It writes a small complete game (a card each a round, both seats play or fold
at once, the higher card takes the pot) for the author to change into theirs:

* ``pyproject.toml`` declaring the game under the entry-point group
  ``arena.games``, so ``pip install -e NAME`` makes it one of Arena's games;
* ``<package>/game.py`` (the rules: ``Game``, ``MatchState`` with its
  ``secrets`` and ``shown``, the generic table a replay draws),
  ``<package>/messages.py`` (the Structs bots are sent);
* ``<package>/NAME.md``, the rules page ``arena games NAME`` prints, its JSON
  examples encoded from those Structs as it is written;
* ``<package>/bots/random`` and ``<package>/bots/minimal``, two Python bots
  (``arena check``'s opponents for the game);
* ``tests/``, the rules' own tests and the conformance kit (``arena
  check-game``) at small sizes.

Every generated file passes ``arena check-game NAME`` and ``arena check`` as
written; a test installs one with pip and runs both.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from string import Template

import protocol

from .._errors import ConfigError
from ..games import GAMES

NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A game id: lowercase words of letters and digits joined by hyphens (``high-card``)."""
MAX_NAME = 40


def package_name(name: str) -> str:
    """The Python package of the game ``name``: ``high-card`` -> ``high_card_game`` (never a module's name already)."""
    return name.replace("-", "_") + "_game"


def class_name(name: str) -> str:
    """The game's class: ``high-card`` -> ``HighCard``."""
    return "".join(word.capitalize() for word in name.split("-"))


def new_game(name: str, where: Path) -> Path:
    """Write the package of the game ``name`` in the new folder ``where / name``; the folder."""
    if not NAME.fullmatch(name) or len(name) > MAX_NAME:
        raise ConfigError(
            f"{name!r} cannot be a game's id: use lowercase letters, digits and single hyphens, starting with a "
            f"letter, at most {MAX_NAME} characters (such as high-card)"
        )
    if name in GAMES:
        raise ConfigError(f"there is a game called {name} already ({GAMES.origin(name)}); choose another name")
    folder = where / name
    if folder.exists() or folder.is_symlink():
        raise ConfigError(f"{folder} exists already; choose another name, or another folder with --dir")
    fields = {
        "name": name,
        "package": package_name(name),
        "cls": class_name(name),
        "tag": name.replace("-", "_"),
        "title": name.replace("-", " ").capitalize(),
    }
    files = {path: Template(text).substitute(fields) for path, text in TEMPLATES.items()}
    package = folder / fields["package"]
    for path, text in files.items():
        target = folder / Template(path).substitute(fields)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    rules = package / f"{name}.md"
    rules.write_text(rules.read_text(encoding="utf-8") + examples(package / "messages.py", fields), encoding="utf-8")
    return folder


def examples(messages: Path, fields: dict[str, str]) -> str:
    """The rules page's JSON examples, encoded from the Structs of the ``messages`` module just written."""
    spec = importlib.util.spec_from_file_location(f"_arena_new_game_{fields['tag']}_messages", messages)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    turn = module.Turn(id=1, round=1, rounds=10, card="7", score=[0, 0])
    ends = [
        module.RoundEnd(round=1, your_move="play", opponent_move="play", your_card="7", opponent_card="4", won=2),
        module.RoundEnd(round=2, your_move="play", opponent_move="fold", your_card="3", opponent_card=None, won=1),
    ]
    lines = [protocol.encode(message).decode().rstrip("\n") for message in (turn, *ends)]
    return EXAMPLES.format(turn=lines[0], ends="\n".join(f"> {line}" for line in lines[1:]))


EXAMPLES = """
## Messages

Each round both seats are asked at once (answer `"play"` or `"fold"`):

```
> {turn}
< {{"id":1,"action":"play"}}
```

Then both are told how the round went (the opponent's card only when both played, else `null`):

```
{ends}
```
"""


def cmd_new_game(args: argparse.Namespace) -> int:
    """Write a new game's package and say what to do next."""
    folder = new_game(args.name, Path(args.dir))
    package = package_name(args.name)
    print(f"Wrote the game {args.name} in {folder}/ (package {package}). Next:")
    print(f"  pip install -e {folder}              # make it one of this arena's games")
    print(f"  arena check-game {args.name}                # the conformance kit")
    print(f"  arena check {folder}/{package}/bots/random   # a bot against the game's other bots")
    print(f"  arena play {args.name} {folder}/{package}/bots/random {folder}/{package}/bots/minimal")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena new-game`` to the command line."""
    parser = sub.add_parser("new-game", help="write a new game's package (rules, messages, rules page, bots, tests)")
    parser.add_argument("name", metavar="NAME", help="the game's id, such as high-card (also the folder's name)")
    parser.add_argument("--dir", default=".", help="where to make the folder NAME (default: here)")
    parser.set_defaults(handler=cmd_new_game)


TEMPLATES: dict[str, str] = {
    "pyproject.toml": """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "arena-$name"
version = "0.1.0"
description = "$title: a game for Arena"
requires-python = ">=3.11"
# Arena is not listed: the game plugs into the Arena it is installed beside.

[project.entry-points."arena.games"]
# The name is the game's id; the value its Game subclass.
$name = "$package.game:$cls"

[tool.hatch.build.targets.wheel]
packages = ["$package"]
""",
    "$package/__init__.py": '''\
"""$title, a game for Arena."""

from .game import $cls

__all__ = ["$cls"]
''',
    "$package/messages.py": '''\
"""$title's messages: what a bot is asked and told (the rules page shows them)."""

from __future__ import annotations

from typing import Literal

from protocol import Notice, Request

Move = Literal["play", "fold"]


class Turn(Request, tag="${tag}_turn", kw_only=True):
    """Both seats at once: answer "play" or "fold"."""

    round: int
    """The round, 1..rounds."""
    rounds: int
    card: str
    """Your card this round, "1" to "9"."""
    score: list[int]
    """Your points and the opponent's so far."""


class RoundEnd(Notice, tag="${tag}_round_end", kw_only=True):
    """The round's end: both moves, the cards (the opponent's only when both played) and the points won."""

    round: int
    your_move: Move
    opponent_move: Move
    your_card: str
    opponent_card: str | None
    won: int
    """Points you won this round (negative: lost)."""


MESSAGES = (Turn, RoundEnd)
''',
    "$package/game.py": '''\
"""$title: the rules (change them into your game's).

Each round both seats are dealt a card ("1" to "9", two different cards) and
answer at once, "play" or "fold". Both play: the higher card wins 2 points
from the other. One folds: the one who played wins 1 from it. Both fold:
nothing. After ``rounds`` rounds, more points wins.

What the conformance kit (``arena check-game $name``) holds a game to:

* deal from the seed alone (``Rng``, ``derive_seed``), never from the clock,
  ``random`` or ``hash()``: the same seed and answers give the same match;
* ``check`` refuses a bad answer with ``IllegalAction`` and changes nothing;
* no seat is asked more than ``max_requests()`` in a match;
* ``secrets(seat)`` says what of a seat the other must not see, and no
  message to the other, nor the replay table's public part (``shown()``),
  shows it before the rules do;
* each hand (here a round: ``hand``) is dealt from the seed and its number
  alone, as ``dealt()`` says, so swapped seats get the same cards; no seat is
  asked more than ``hand_requests()`` in one;
* the points add up to ``points_total()`` (0: what one wins the other loses).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games import Game, IllegalAction, MatchState, Param, Rng, Shown, Step, derive_seed
from arena.game_kit import forfeit_result, points_result
from protocol import Result

from .messages import MESSAGES, RoundEnd, Turn

CARDS = tuple("123456789")
MOVES = ("play", "fold")

PARAMS: tuple[Param, ...] = (Param("rounds", 10, "rounds in a match", minimum=1, maximum=100_000),)


class ${cls}Match(MatchState):
    """One match: ``rounds`` rounds, both seats asked at once in each."""

    def __init__(self, seed: int, rounds: int) -> None:
        self.seed = seed
        self.rounds = rounds
        self.round = 0
        self.points = [0, 0]
        self.cards: list[str] = []
        self._shown: set[str] = set()
        """The cards shown at the last round's end (the next round may deal them again)."""
        self._deal()

    def _deal(self) -> None:
        self.round += 1
        self.hand = self.round  # each round is dealt afresh: a hand, in the kit's words
        deck = list(CARDS)
        Rng(derive_seed(self.seed, "$name-round", self.round)).shuffle(deck)
        self.cards = deck[:2]

    @property
    def is_over(self) -> bool:
        return self.round > self.rounds

    def requests(self) -> dict[int, Any]:
        if self.is_over:
            return {}
        return {
            seat: Turn(round=self.round, rounds=self.rounds, card=self.cards[seat], score=self._score(seat))
            for seat in (0, 1)
        }

    def _score(self, seat: int) -> list[int]:
        return [self.points[seat], self.points[1 - seat]]

    def check(self, seat: int, action: Any) -> str:
        if type(action) is not str or action not in MOVES:
            raise IllegalAction(f'answer "play" or "fold", not {action!r}')
        return action

    def legal_actions(self, seat: int) -> list[Any]:
        return [] if self.is_over else list(MOVES)

    def apply(self, actions: Mapping[int, Any]) -> Step:
        moves = [actions[0], actions[1]]
        won = [0, 0]
        if moves == ["play", "play"]:
            winner = 0 if int(self.cards[0]) > int(self.cards[1]) else 1
            won = [2, -2] if winner == 0 else [-2, 2]
        elif moves != ["fold", "fold"]:
            won = [1, -1] if moves[0] == "play" else [-1, 1]
        shown = moves == ["play", "play"]
        step = Step()
        for seat in (0, 1):
            self.points[seat] += won[seat]
            end = RoundEnd(
                round=self.round,
                your_move=moves[seat],
                opponent_move=moves[1 - seat],
                your_card=self.cards[seat],
                opponent_card=self.cards[1 - seat] if shown else None,
                won=won[seat],
            )
            step.notices.append((seat, end))
        step.narration.append(
            f"Round {self.round}: A {self.cards[0]} {moves[0]}s, B {self.cards[1]} {moves[1]}s; "
            f"points A {self.points[0]} B {self.points[1]}"
        )
        self._shown = set(self.cards) if shown else set()
        self._deal()
        return step

    def secrets(self, seat: int) -> set[str]:
        """The seat's card, until both play; a card shown at a round's end may be dealt again in the next."""
        return set() if self.is_over else {self.cards[seat]} - self._shown

    def dealt(self) -> dict[str, Any]:
        """What chance dealt this round: each seat's card (the kit compares it between two plays of a seed)."""
        return {"A": self.cards[0], "B": self.cards[1]}

    def shown(self) -> Shown:
        """What a replay's generic table draws: the round, both scores, each seat's card (private)."""
        points = ({"points": self.points[0]}, {"points": self.points[1]})
        if self.is_over:
            return Shown(public={"rounds": self.rounds}, seats=points)
        private = ({"card": [self.cards[0]]}, {"card": [self.cards[1]]})
        return Shown(public={"round": self.round}, seats=points, private=private)

    def result(self) -> Result:
        return points_result([float(p) for p in self.points])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        """A fault loses the match: the opponent wins 2 points for every round not yet played."""
        points = [float(p) for p in self.points]
        if len(offenders) == 1 and not self.is_over:
            (offender,) = offenders
            points[1 - offender] += 2 * (self.rounds - self.round + 1)
        return forfeit_result(points, offenders, reason)


class $cls(Game):
    """$title."""

    id: ClassVar[str] = "$name"
    version: ClassVar[int] = 1
    """Change it when the rules change, so that stored results stay comparable."""
    title: ClassVar[str] = "$title"
    summary: ClassVar[str] = "A card each a round; both play or fold at once; the higher card takes the pot."
    params_table = PARAMS
    messages = MESSAGES

    def new_match(self, seed: int) -> ${cls}Match:
        rounds = self.params["rounds"]
        assert isinstance(rounds, int)
        return ${cls}Match(seed, rounds)

    def points_total(self) -> float:
        """Zero-sum: what one seat wins, the other loses (say None if your game's points have no fixed total)."""
        return 0.0

    def hand_requests(self) -> int:
        """Each seat is asked once a round."""
        return 1

    def max_requests(self) -> int:
        rounds = self.params["rounds"]
        assert isinstance(rounds, int)
        return rounds
''',
    "$package/$name.md": """\
# $title (`$name`)

A match is `rounds` rounds (default 10). Each round both players are dealt a
card, "1" to "9" (two different cards), and answer at once: **play** or
**fold**.

* Both play: the higher card wins 2 points from the other.
* One folds: the one who played wins 1 point from it.
* Both fold: nobody wins anything.

After the last round, more points wins. A bot that faults loses the match,
and its opponent wins 2 points for every round not yet played.
""",
    "$package/bots/random/bot.toml": """\
name = "$name-random"
run = "python3 bot.py"
reuse = true
game = "$name"
""",
    "$package/bots/random/bot.py": '''\
"""Plays or folds at random, seeded by the match id (so a replay replays it)."""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "match_start":
        rng.seed(message["match_id"])
    elif kind == "${tag}_turn":
        print(json.dumps({"id": message["id"], "action": rng.choice(["play", "fold"])}), flush=True)
    elif kind == "quit":
        break
''',
    "$package/bots/minimal/bot.toml": """\
name = "$name-minimal"
run = "python3 bot.py"
reuse = true
game = "$name"
""",
    "$package/bots/minimal/bot.py": '''\
"""The least a bot does: answer every request (a message with an "id") with "play", and stop when told."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": "play"}), flush=True)
    elif message["type"] == "quit":
        break
''',
    "tests/test_$package.py": '''\
"""$title's tests: its rules by example, and Arena's conformance kit (``arena check-game``) at small sizes."""

import pytest
from arena.game_kit import Sizes, check_game
from arena.games import IllegalAction

from $package.game import $cls, ${cls}Match


@pytest.mark.parametrize(
    ("moves", "cards", "points"),
    [
        (("play", "play"), ["7", "4"], [2, -2]),
        (("play", "play"), ["2", "9"], [-2, 2]),
        (("play", "fold"), ["1", "9"], [1, -1]),
        (("fold", "play"), ["9", "1"], [-1, 1]),
        (("fold", "fold"), ["9", "1"], [0, 0]),
    ],
)
def test_a_round_pays(moves: tuple[str, str], cards: list[str], points: list[int]) -> None:
    state = ${cls}Match(1, rounds=1)
    state.cards = cards
    state.apply({0: moves[0], 1: moves[1]})
    assert state.points == points and state.is_over


def test_a_bad_answer_is_refused() -> None:
    state = ${cls}Match(1, rounds=1)
    for junk in ("Play", 1, None, ["play"]):
        with pytest.raises(IllegalAction):
            state.check(0, junk)


def test_the_conformance_kit_passes() -> None:
    checks = check_game($cls(), Sizes(matches=100, requests=2000))
    assert [c.name for c in checks if c.passed is not True] == []
''',
}


__all__ = ["class_name", "new_game", "package_name", "register"]
