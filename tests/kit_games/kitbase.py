"""A small sound game for the conformance kit's tests; the broken games beside it each spoil one thing.

Five rounds; in each, both seats are dealt a card of ten (``c0`` .. ``c9``)
from the round's own seed, seat A is asked to answer 0 or 1, then seat B;
then both are shown both cards, and the higher card takes a point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.game_kit import forfeit_result, points_result
from arena.games import Game, IllegalAction, MatchState, Rng, Step, derive_seed
from protocol import Notice, Request, Result

ROUNDS = 5
DECK = tuple(f"c{n}" for n in range(10))


class KitPlay(Request, tag="kit_play", kw_only=True):
    """Answer 0 or 1."""

    round: int
    card: str


class KitRoundEnd(Notice, tag="kit_round_end", kw_only=True):
    """Both cards, shown."""

    round: int
    your_card: str
    opponent_card: str


class KitMatch(MatchState):
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.round = 0
        self.points = [0, 0]
        self.cards: list[str] = []
        self.answered: list[int] = []
        self._shown: set[str] = set()
        self.deal()

    def deal(self) -> None:
        self.round += 1
        deck = list(DECK)
        Rng(derive_seed(self.seed, "kit", self.round)).shuffle(deck)
        self.cards = deck[:2]
        self.answered = []

    @property
    def is_over(self) -> bool:
        return self.round > ROUNDS

    @property
    def to_act(self) -> int:
        return len(self.answered)

    def requests(self) -> dict[int, Any]:
        return {} if self.is_over else {self.to_act: KitPlay(round=self.round, card=self.cards[self.to_act])}

    def check(self, seat: int, action: Any) -> int:
        if seat != self.to_act or type(action) is not int or action not in (0, 1):
            raise IllegalAction(f"answer 0 or 1, not {action!r}")
        return action

    def legal_actions(self, seat: int) -> list[Any]:
        return [0, 1] if not self.is_over and seat == self.to_act else []

    def apply(self, actions: Mapping[int, Any]) -> Step:
        self.answered.append(actions[self.to_act])
        if len(self.answered) < 2:
            return Step()
        winner = 0 if DECK.index(self.cards[0]) > DECK.index(self.cards[1]) else 1
        self.points[winner] += 1
        step = Step()
        for seat in (0, 1):
            end = KitRoundEnd(round=self.round, your_card=self.cards[seat], opponent_card=self.cards[1 - seat])
            step.notices.append((seat, end))
        self._shown = set(self.cards)
        self.deal()
        return step

    def secrets(self, seat: int) -> set[str]:
        # The cards shown at a round's end may be dealt again in the next round, told in the same step.
        return set() if self.is_over else {self.cards[seat]} - self._shown

    def result(self) -> Result:
        return points_result([float(p) for p in self.points])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = [float(p) for p in self.points]
        if len(offenders) == 1:
            (offender,) = offenders
            points[1 - offender] += ROUNDS - self.round + 1
        return forfeit_result(points, offenders, reason)


class KitGame(Game):
    id: ClassVar[str] = "kit-ok"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Kit (sound)"
    summary: ClassVar[str] = "Five rounds of high card, for the conformance kit's tests."
    messages = (KitPlay, KitRoundEnd)
    match: ClassVar[type[KitMatch]] = KitMatch

    def new_match(self, seed: int) -> KitMatch:
        return self.match(seed)

    def max_requests(self) -> int:
        return ROUNDS
