"""Card-Jitsu: rock-paper-scissors with elements, and a race to a set of three.

Rules: ``docs/games/card-jitsu.md`` (a 2025 programming challenge, after a
children's online card game). Both seats are bots, each with its own hand.
Choices where the rules are silent (``docs/games/card-jitsu.md`` says the same):

* **Drawing.** Every card is drawn uniformly from the 198 kinds with the
  arena's RNG, by rejection: a draw that is already in the hand is drawn
  again. Each seat draws from **its own stream**
  (``derive_seed(seed, "card-jitsu", seat)``), so the cards a seat is dealt
  depend only on the seed and on which cards that seat played: with seats
  swapped (duplicate deals), the other bot starts from the very same hand.
* **Replacement.** After a round the played card leaves the hand first, then
  its replacement is drawn; it must differ from the four cards left, so it
  may be another copy of the card just played. The replacement takes the
  played card's place in the hand, so the other four keep their indices.
* **Actions** are 0-based indices into the hand the bot was sent (the
  challenge asked a person for 1..5).
* **The set** is checked after each round on the round winner's pile only,
  so at most one seat can complete a set in a round. Three cards make a set
  when their colours all differ and their elements are all the same or all
  different; values never matter, and several copies of one card count once.
* **Round limit.** After ``max_rounds`` rounds without a set the game is a
  draw (half a point each).
* **Points** are games won: 1 for the winner, 0 for the loser, 0.5 each for
  a draw.
* **Forfeit.** A bot that faults loses the game: 0 points, and its opponent
  gets 1. If both fault at the same step, both get 0 and nobody wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar

from protocol import SEATS, Message, Result
from protocol.card_jitsu import JitsuPlay, JitsuResult

from ._base import Game, IllegalAction, MatchState, Param, Step, forfeit_result
from ._rng import Rng, derive_seed

ELEMENTS = "FWS"
"""Fire, Water, Snow."""
ELEMENT_NAMES = {"F": "fire", "W": "water", "S": "snow"}
COLOURS = "YORBGP"
"""Yellow, Orange, Red, Blue, Green, Purple."""
VALUES = range(2, 13)
ALL_CARDS: tuple[str, ...] = tuple(f"{e}{c}{v}" for e in ELEMENTS for c in COLOURS for v in VALUES)
"""The 198 kinds of card, element-major: ``FY2``, ``FY3``, ... ``SP12``."""
HAND_SIZE = 5
BEATS = {"F": "S", "S": "W", "W": "F"}
"""Fire beats snow, snow beats water, water beats fire."""

PARAMS: tuple[Param, ...] = (
    Param(
        "max_rounds",
        100,
        "rounds after which a game with no completed set is a draw",
        minimum=1,
        maximum=100_000,
    ),
)


def element(card: str) -> str:
    """The card's element letter: ``F``, ``W`` or ``S``."""
    return card[0]


def colour(card: str) -> str:
    """The card's colour letter."""
    return card[1]


def value(card: str) -> int:
    """The card's value, 2..12."""
    return int(card[2:])


def round_winner(card_a: str, card_b: str) -> int | None:
    """The seat (0 or 1) whose card wins the round, or ``None`` for a tie.

    Different elements: fire beats snow, snow beats water, water beats fire.
    Same element: the higher value wins; the same value is a tie.
    """
    ea, eb = element(card_a), element(card_b)
    if ea != eb:
        return 0 if BEATS[ea] == eb else 1
    va, vb = value(card_a), value(card_b)
    if va == vb:
        return None
    return 0 if va > vb else 1


def is_set(cards: Sequence[str]) -> bool:
    """Whether three cards make a game-winning set.

    Their three colours all differ, and their elements are either all the
    same or all different.
    """
    if len(cards) != 3:
        return False
    colours = {colour(c) for c in cards}
    elements = {element(c) for c in cards}
    return len(colours) == 3 and len(elements) in (1, 3)


def find_set(pile: Iterable[str]) -> list[str] | None:
    """Three cards of ``pile`` that make a set (the first found, in pile order), or ``None``.

    Values do not matter, so only the first card of each element and colour
    is considered: at most 18 cards, 816 triples.
    """
    kinds: dict[tuple[str, str], str] = {}
    for card in pile:
        kinds.setdefault((element(card), colour(card)), card)
    for triple in combinations(kinds.values(), 3):
        if is_set(triple):
            return list(triple)
    return None


def round_reason(card_a: str, card_b: str) -> str:
    """Why the round went as it did, in words: ``fire beats snow``, ``higher value``."""
    ea, eb = element(card_a), element(card_b)
    if ea != eb:
        win, lose = (ea, eb) if BEATS[ea] == eb else (eb, ea)
        return f"{ELEMENT_NAMES[win]} beats {ELEMENT_NAMES[lose]}"
    if value(card_a) == value(card_b):
        return "same element and value"
    return "higher value"


class CardJitsuMatch(MatchState):
    """One game: rounds until a seat completes a set, or the round limit."""

    def __init__(self, seed: int, max_rounds: int) -> None:
        self.max_rounds = max_rounds
        self._rngs = [Rng(derive_seed(seed, "card-jitsu", seat)) for seat in SEATS]
        self.hands: list[list[str]] = [[], []]
        for seat in (0, 1):
            for _ in range(HAND_SIZE):
                self.hands[seat].append(self._draw(seat))
        self.piles: list[list[str]] = [[], []]
        self.round = 1
        self.winner: int | None = None
        self.winning_set: list[str] = []
        self._played: set[str] = set()
        """The kinds of card either seat has played: shown to both."""

    def _draw(self, seat: int) -> str:
        """A random card not already in the seat's hand."""
        while True:
            card = ALL_CARDS[self._rngs[seat].below(len(ALL_CARDS))]
            if card not in self.hands[seat]:
                return card

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.round > self.max_rounds

    def requests(self) -> dict[int, Any]:
        return {
            seat: JitsuPlay(
                round=self.round,
                hand=list(self.hands[seat]),
                your_pile=list(self.piles[seat]),
                opponent_pile=list(self.piles[1 - seat]),
            )
            for seat in (0, 1)
        }

    def check(self, seat: int, action: Any) -> int:
        if type(action) is not int:
            raise IllegalAction(f"action must be an integer index 0..{HAND_SIZE - 1} into hand, not {action!r}")
        if not 0 <= action < HAND_SIZE:
            raise IllegalAction(f"index {action} is out of range for a hand of {HAND_SIZE} (0..{HAND_SIZE - 1})")
        return action

    def legal_actions(self, seat: int) -> list[Any]:
        return list(range(HAND_SIZE))

    def secrets(self, seat: int) -> set[str]:
        """The seat's hand; a card is shown when it is played.

        A card of a kind already played is left out: the messages write a
        card by its kind, so a second copy in a hand cannot be told from the
        one shown.
        """
        return set() if self.is_over else set(self.hands[seat]) - self._played

    def apply(self, actions: Mapping[int, Any]) -> Step:
        cards = [self.hands[s][actions[s]] for s in (0, 1)]
        self._played.update(cards)
        winner = round_winner(cards[0], cards[1])
        if winner is not None:
            self.piles[winner].append(cards[winner])
            found = find_set(self.piles[winner])
            if found is not None:
                self.winner, self.winning_set = winner, found
        step = Step()
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    JitsuResult(
                        round=self.round,
                        your_card=cards[seat],
                        opponent_card=cards[1 - seat],
                        winner=None if winner is None else SEATS[winner],
                        winning_set=list(self.winning_set),
                    ),
                )
            )
        outcome = "tie" if winner is None else f"{SEATS[winner]} wins"
        step.narration.append(
            f"Round {self.round:3}: A {' '.join(self.hands[0])} plays {cards[0]} "
            f"| B {' '.join(self.hands[1])} plays {cards[1]} -> {outcome} ({round_reason(cards[0], cards[1])}) "
            f"| piles A [{' '.join(self.piles[0])}] B [{' '.join(self.piles[1])}]"
        )
        if self.winner is not None:
            kind = "all " + ELEMENT_NAMES[element(self.winning_set[0])]
            if len({element(c) for c in self.winning_set}) == 3:
                kind = "three elements"
            step.narration.append(f"{SEATS[self.winner]} completes a set: {' '.join(self.winning_set)} ({kind})")
        for seat in (0, 1):
            index = actions[seat]
            del self.hands[seat][index]
            self.hands[seat].insert(index, self._draw(seat))
        self.round += 1
        if self.winner is None and self.round > self.max_rounds:
            step.narration.append(f"Round limit {self.max_rounds} reached with no set: a draw")
        return step

    def result(self) -> Result:
        if self.winner is None:
            return Result(points=[0.5, 0.5], winner=None)
        points = [0.0, 0.0]
        points[self.winner] = 1.0
        return Result(points=points, winner=SEATS[self.winner])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = [0.0, 0.0]
        if len(offenders) == 1:
            (offender,) = offenders
            points[1 - offender] = 1.0
        return forfeit_result(points, offenders, reason)


class CardJitsu(Game):
    """Card-Jitsu for two bots (2025 programming challenge)."""

    id: ClassVar[str] = "card-jitsu"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Card-Jitsu"
    summary: ClassVar[str] = (
        "Hands of five from 198 cards (element x colour x 2-12); each round both play a card: "
        "fire > snow > water > fire, else higher value. First to win three cards of different "
        "colours, all one element or all three elements, wins."
    )
    params_table = PARAMS
    points_name: ClassVar[str] = "games won"
    messages: ClassVar[tuple[type[Message], ...]] = (JitsuPlay, JitsuResult)
    view: ClassVar[str] = ".card_jitsu_view:CardJitsuView"

    def points_total(self) -> float:
        return 1.0

    def max_requests(self) -> int:
        return int(self.params["max_rounds"])  # a card per round

    def new_match(self, seed: int) -> CardJitsuMatch:
        max_rounds = self.params["max_rounds"]
        assert isinstance(max_rounds, int)
        return CardJitsuMatch(seed, max_rounds)
