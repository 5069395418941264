"""GOPS, the Game of Pure Strategy (Goofspiel), as the 2007 quiz's referee played it.

Rules: ``docs/games/gops.md``. Each seat holds the cards 1..``cards``; as
many prize cards are turned up one at a time; both seats bid a card of their
hand at once; the higher bid takes the prize, equal bids discard it (no
carry-over). Bid cards are used up. The higher sum of prizes wins.

Choices where the rules are silent (``docs/games/gops.md`` says the same):

* **Prize order.** ``random`` shuffles the prizes with the arena's RNG
  (``_rng``) from the match's seed; ``ascending`` and ``descending`` ignore
  the seed. Bots are told the prizes still to come, sorted, never their order.
* **Scoring** (``scoring``) only changes the points a match records; the
  winner is always the seat with the higher prize sum. ``win-loss`` gives 1 to
  the winner and 0 to the loser, 0.5 each for a tie (the quiz's verdict);
  ``point-difference`` gives each seat its prize sum minus the other's;
  ``total-points`` gives each seat its prize sum.
* **Forfeit.** A bot that faults loses the match. It keeps the prizes it has
  taken; the prize on the table and every prize still to come go to its
  opponent, and the points are scored from those sums (so under
  ``total-points`` and ``point-difference`` the offender can show more points
  and still have lost). If both fault at the same step, the remaining prizes
  go to nobody and nobody wins (``win-loss`` gives 0 each).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from protocol import SEATS, Message, Result
from protocol.gops import GopsBid, GopsResult

from ._base import Game, IllegalAction, MatchState, Param, Step, forfeit_result
from ._rng import Rng

PRIZE_ORDERS = ("random", "ascending", "descending")
SCORINGS = ("win-loss", "point-difference", "total-points")

PARAMS: tuple[Param, ...] = (
    Param("cards", 13, "cards per suit: each hand and the prizes are valued 1..cards", minimum=1, maximum=52),
    Param("prize_order", "random", "order the prize cards are turned up in", choices=PRIZE_ORDERS),
    Param(
        "scoring",
        "win-loss",
        "the points a match records (the winner always has the higher prize sum)",
        choices=SCORINGS,
    ),
)
"""GOPS parameters; the defaults are the 2007 quiz's game."""


def round_winner(bid_a: int, bid_b: int) -> int | None:
    """The seat whose bid takes the prize, or ``None`` when equal bids discard it."""
    if bid_a == bid_b:
        return None
    return 0 if bid_a > bid_b else 1


def prize_sequence(cards: int, order: str, rng: Rng) -> list[int]:
    """The prize cards in the order they are turned up."""
    prizes = list(range(1, cards + 1))
    if order == "random":
        rng.shuffle(prizes)
    elif order == "descending":
        prizes.reverse()
    return prizes


def match_points(sums: tuple[int, int], winner: int | None, scoring: str, *, forfeited: bool = False) -> list[float]:
    """The points a match records for seats A and B, from their prize sums."""
    a, b = sums
    if scoring == "total-points":
        return [float(a), float(b)]
    if scoring == "point-difference":
        return [float(a - b), float(b - a)]
    if winner is None:
        return [0.0, 0.0] if forfeited else [0.5, 0.5]
    return [1.0, 0.0] if winner == 0 else [0.0, 1.0]


class GopsMatch(MatchState):
    """One match: ``cards`` rounds of simultaneous bids."""

    def __init__(self, seed: int, cards: int, prize_order: str, scoring: str) -> None:
        self.cards = cards
        self.scoring = scoring
        self.prizes = prize_sequence(cards, prize_order, Rng(seed))
        self.hands: list[list[int]] = [list(range(1, cards + 1)) for _ in SEATS]
        self.points = [0, 0]
        self.discarded = 0
        self.round = 1

    @property
    def prize(self) -> int:
        """The prize card on the table this round."""
        return self.prizes[self.round - 1]

    @property
    def is_over(self) -> bool:
        return self.round > self.cards

    def requests(self) -> dict[int, Any]:
        prizes_left = sorted(self.prizes[self.round :])
        return {
            seat: GopsBid(
                round=self.round,
                prize=self.prize,
                hand=list(self.hands[seat]),
                opponent_hand=list(self.hands[1 - seat]),
                prizes_left=prizes_left,
                score=[self.points[seat], self.points[1 - seat]],
            )
            for seat in (0, 1)
        }

    def secrets(self, seat: int) -> tuple[()]:
        """None: both hands and the prizes are public, and bids are made at once."""
        return ()

    def legal_actions(self, seat: int) -> list[Any]:
        return list(self.hands[seat])

    def check(self, seat: int, action: Any) -> int:
        if type(action) is not int:
            raise IllegalAction(f"a bid must be an integer card value, not {action!r}")
        if action not in self.hands[seat]:
            if 1 <= action <= self.cards:
                raise IllegalAction(f"card {action} was already bid")
            raise IllegalAction(f"there is no card {action}: cards are 1..{self.cards}")
        return action

    def apply(self, actions: Mapping[int, Any]) -> Step:
        bids = [actions[0], actions[1]]
        prize = self.prize
        winner = round_winner(bids[0], bids[1])
        if winner is None:
            self.discarded += prize
        else:
            self.points[winner] += prize
        for seat in (0, 1):
            self.hands[seat].remove(bids[seat])
        step = Step()
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    GopsResult(
                        round=self.round,
                        prize=prize,
                        your_bid=bids[seat],
                        opponent_bid=bids[1 - seat],
                        winner=None if winner is None else SEATS[winner],
                        score=[self.points[seat], self.points[1 - seat]],
                    ),
                )
            )
        outcome = "tie, prize discarded" if winner is None else f"{SEATS[winner]} takes {prize}"
        step.narration.append(
            f"Round {self.round:2}: prize {prize:2} | A bids {bids[0]:2}, B bids {bids[1]:2} -> {outcome}, "
            f"{self.points[0]}-{self.points[1]}"
        )
        self.round += 1
        return step

    def _winner(self) -> int | None:
        a, b = self.points
        return None if a == b else 0 if a > b else 1

    def result(self) -> Result:
        winner = self._winner()
        return Result(
            points=match_points((self.points[0], self.points[1]), winner, self.scoring),
            winner=None if winner is None else SEATS[winner],
        )

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        sums = list(self.points)
        winner: int | None = None
        if len(offenders) == 1:
            (offender,) = offenders
            winner = 1 - offender
            sums[winner] += sum(self.prizes[self.round - 1 :])
        points = match_points((sums[0], sums[1]), winner, self.scoring, forfeited=True)
        return forfeit_result(points, offenders, reason)


class Gops(Game):
    """GOPS (Goofspiel), the 2007 quiz's game of simultaneous bids for prize cards."""

    id: ClassVar[str] = "gops"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "GOPS"
    summary: ClassVar[str] = (
        "Each seat holds cards 1..13; for each prize card turned up both bid a card at once, "
        "the higher bid takes the prize, equal bids discard it. Higher prize sum wins."
    )
    params_table = PARAMS
    points_name: ClassVar[str] = "points"
    messages: ClassVar[tuple[type[Message], ...]] = (GopsBid, GopsResult)
    view: ClassVar[str] = ".gops_view:GopsView"

    def new_match(self, seed: int) -> GopsMatch:
        return GopsMatch(
            seed,
            cards=int(self.params["cards"]),
            prize_order=str(self.params["prize_order"]),
            scoring=str(self.params["scoring"]),
        )

    def max_requests(self) -> int:
        return int(self.params["cards"])  # a bid per prize card

    def points_total(self) -> float | None:
        scoring = self.params["scoring"]
        return 1.0 if scoring == "win-loss" else 0.0 if scoring == "point-difference" else None
