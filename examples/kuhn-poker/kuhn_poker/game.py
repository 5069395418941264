"""Kuhn poker: three cards, one bet, the smallest poker with bluffing (H. W. Kuhn, 1950).

The rules are OpenSpiel's ``kuhn_poker`` for two players (``kuhn-poker.md``
beside this module is the page bots' authors read). Choices where OpenSpiel
has no match, only a hand:

* **A match is many hands** (the ``hands`` parameter), and seat A is player 1,
  who acts first, in every hand: the game is not symmetric, and a bot's value
  in a seat is measured in that seat (player 1's value at equilibrium is
  -1/18 of a chip a hand).
* **Dealing.** Hand ``h`` shuffles J, Q, K with ``Rng(derive_seed(seed,
  "kuhn-hand", h))``: seat A gets the first card, seat B the second. The deal
  depends on the seed and the hand's number, never on the play.
* **Duplicate deals swap the cards with the seats.** A card belongs to a seat
  (and a seat to a position), so a deal replayed with the bots swapped gives
  each bot the other's card *and* the other's position: over the pair each
  bot plays both sides of every deal, and the luck of the cards cancels. (A
  bot is never shown a deal twice in one process: the arena's pool sees to
  that.)
* **Points** are chips won; they add up to zero.
* **Forfeit.** A bot that faults loses the match: it folds the hand in play
  (its opponent wins what it put in) and loses its ante in every hand not yet
  dealt. If both fault at the same step, the hand in play is void and nobody
  wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.game_kit import forfeit_result, points_result
from arena.games import Game, IllegalAction, MatchState, Param, Rng, Shown, Step, derive_seed
from protocol import Result

from .messages import MESSAGES, Card, KuhnAct, KuhnHandEnd

CARDS: tuple[Card, ...] = ("J", "Q", "K")
"""The deck, lowest first."""
ANTE = 1
BET = 1
MOVES = ("pass", "bet")
ENDS: dict[str, int | None] = {"pp": None, "pbp": 1, "pbb": None, "bp": 0, "bb": None}
"""Each finished history, with the seat that wins by a fold (``None``: a showdown)."""

PARAMS: tuple[Param, ...] = (Param("hands", 100, "hands in a match", minimum=1, maximum=1_000_000),)


def put_in(history: str, seat: int) -> int:
    """Chips ``seat`` has put in after ``history`` (its ante and its bets)."""
    return ANTE + BET * sum(1 for i, move in enumerate(history) if i % 2 == seat and move == "b")


class KuhnMatch(MatchState):
    """A match of ``hands`` hands; one seat is asked at a time."""

    def __init__(self, seed: int, hands: int) -> None:
        self.seed = seed
        self.hands = hands
        self.hand = 0
        self.score = [0, 0]
        self.cards: list[Card] = []
        self.history = ""
        self._folded_before: list[set[Card]] = [set(), set()]
        """The cards of the hand before that were never shown (the seat that held it folded or won by a fold)."""
        self._shown_before: set[Card] = set()
        """The cards shown at the hand before's showdown."""
        self._deal()

    def _deal(self) -> None:
        self.hand += 1
        deck = list(CARDS)
        Rng(derive_seed(self.seed, "kuhn-hand", self.hand)).shuffle(deck)
        self.cards = deck[:2]
        self.history = ""

    @property
    def is_over(self) -> bool:
        return self.hand > self.hands

    @property
    def to_act(self) -> int:
        """The seat to act: player 1 (seat A) on an even number of moves."""
        return len(self.history) % 2

    def requests(self) -> dict[int, Any]:
        if self.is_over:
            return {}
        seat = self.to_act
        return {
            seat: KuhnAct(
                hand=self.hand,
                hands=self.hands,
                player=1 if seat == 0 else 2,
                card=self.cards[seat],
                history=self.history,
                pot=put_in(self.history, 0) + put_in(self.history, 1),
                score=[self.score[seat], self.score[1 - seat]],
            )
        }

    def check(self, seat: int, action: Any) -> str:
        if self.is_over or seat != self.to_act:
            raise IllegalAction(f"seat {'AB'[seat]} was not asked to act")
        if action not in MOVES or type(action) is not str:
            raise IllegalAction(f'answer "pass" or "bet", not {action!r}')
        return str(action)

    def legal_actions(self, seat: int) -> list[Any]:
        return list(MOVES) if not self.is_over and seat == self.to_act else []

    def apply(self, actions: Mapping[int, Any]) -> Step:
        seat = self.to_act
        self.history += actions[seat][0]
        if self.history not in ENDS:
            return Step()
        return self._end_hand()

    def _end_hand(self) -> Step:
        folded_to = ENDS[self.history]
        if folded_to is None:
            winner = 0 if CARDS.index(self.cards[0]) > CARDS.index(self.cards[1]) else 1
        else:
            winner = folded_to
        chips = put_in(self.history, 1 - winner)
        won = [chips if seat == winner else -chips for seat in (0, 1)]
        step = Step()
        for seat in (0, 1):
            self.score[seat] += won[seat]
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    KuhnHandEnd(
                        hand=self.hand,
                        history=self.history,
                        your_card=self.cards[seat],
                        opponent_card=self.cards[1 - seat] if folded_to is None else None,
                        won=won[seat],
                        score=[self.score[seat], self.score[1 - seat]],
                    ),
                )
            )
        how = "showdown" if folded_to is None else f"{'AB'[1 - winner]} folds"
        step.narration.append(
            f"Hand {self.hand}: A {self.cards[0]}, B {self.cards[1]}: {self.history} ({how}) -> "
            f"{'AB'[winner]} wins {chips}; score A {self.score[0]:+} B {self.score[1]:+}"
        )
        self._folded_before = [set() if folded_to is None else {self.cards[seat]} for seat in (0, 1)]
        self._shown_before = set(self.cards) if folded_to is None else set()
        self._deal()
        return step

    def secrets(self, seat: int) -> set[str]:
        """The seat's card in the hand in play, and its card of the hand before if that was never shown.

        A card shown at the last showdown may be dealt again in the next
        hand, which is told in the same step: the kit cannot tell them apart,
        so the hand after a showdown keeps nothing secret of the cards shown.
        """
        if self.is_over:
            return set()
        return ({self.cards[seat]} | self._folded_before[seat]) - self._shown_before

    def dealt(self) -> dict[str, Any]:
        """Each seat's card in the hand in play (``arena check-game`` compares every hand's between plays)."""
        return {"A": self.cards[0], "B": self.cards[1]}

    def shown(self) -> Shown:
        """The table a replay draws without a view of its own: the hand, its moves and pot; chips; each card."""
        if self.is_over:
            return Shown(
                public={"hands played": self.hands}, seats=({"chips": self.score[0]}, {"chips": self.score[1]})
            )
        pot = put_in(self.history, 0) + put_in(self.history, 1)
        return Shown(
            public={"hand": self.hand, "moves": self.history or "-", "pot": pot},
            seats=({"chips": self.score[0]}, {"chips": self.score[1]}),
            private=({"card": [self.cards[0]]}, {"card": [self.cards[1]]}),
        )

    def result(self) -> Result:
        return points_result([float(chips) for chips in self.score])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = [float(chips) for chips in self.score]
        if len(offenders) == 1 and not self.is_over:
            (offender,) = offenders
            lost = put_in(self.history, offender) + ANTE * (self.hands - self.hand)
            points[offender] -= lost
            points[1 - offender] += lost
        return forfeit_result(points, offenders, reason)


class KuhnPoker(Game):
    """Two-player Kuhn poker, OpenSpiel's rules, many hands a match."""

    id: ClassVar[str] = "kuhn-poker"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Kuhn poker"
    summary: ClassVar[str] = (
        "Three cards (J < Q < K), ante 1, one bet of 1; seat A acts first in every hand. "
        "Player 1's value at equilibrium: -1/18 chip a hand. Score: chips won."
    )
    params_table = PARAMS
    points_name: ClassVar[str] = "chips"
    messages = MESSAGES

    def new_match(self, seed: int) -> KuhnMatch:
        hands = self.params["hands"]
        assert isinstance(hands, int)
        return KuhnMatch(seed, hands)

    def points_total(self) -> float:
        return 0.0

    def hand_requests(self) -> int:
        return 2  # "pbb": player 1 is asked twice, player 2 once

    def max_requests(self) -> int:
        hands = self.params["hands"]
        assert isinstance(hands, int)
        return 2 * hands
