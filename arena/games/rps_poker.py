"""RPS Poker: a draft of ten cards each, then ten one-card "poker" turns.

Rules: ``docs/games/rps-poker.md`` of the 2021 king-of-the-hill challenge.
Choices where the rules are silent (``docs/games/rps-poker.md`` says the same):

* **Dealing.** The 30 cards are shuffled with the arena's RNG (``_rng``). In
  each draft round seat A is given the top two cards and seat B the next two.
* **Decks are ordered** kept card first, then received card, round by round;
  the main phase then shuffles A's deck, B's deck and the remaining deck, in
  that order, from the same RNG stream.
* **Hands keep their order**: a played card is removed and the drawn card goes
  to the end, so the index a bot answers refers to the ``hand`` it was sent.
* **Forfeit.** A bot that faults loses the match; it keeps the turns it has
  won and every turn not yet played goes to its opponent (a fault in the draft
  gives the opponent all ten). If both fault at the same step, nobody is
  given the remaining turns and nobody wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from protocol import SEATS, Message, Result
from protocol.rps_poker import DraftPick, DraftReceive, MainPlay, MainResult

from ._base import Game, IllegalAction, MatchState, Param, Step, forfeit_result, points_result
from ._rng import Rng

SYMBOLS = "RPS"
FULL_DECK: tuple[str, ...] = tuple(f"{s}{n}" for s in SYMBOLS for n in range(10))
"""The 30 cards, in the order of the challenge's global ``fullDeck``."""
DRAFT_ROUNDS = 5
TURNS = 10
HAND_SIZE = 3
BEATS = {"R": "S", "S": "P", "P": "R"}
"""Rock beats scissors, scissors beat paper, paper beats rock."""

PARAMS: tuple[Param, ...] = ()
"""RPS Poker has no parameters: the rules fix every number."""


def turn_winner(card_a: str, card_b: str, base: str) -> int:
    """The seat (0 or 1) whose card wins the turn against ``base``.

    A pair with the base beats no pair; otherwise the higher number wins;
    otherwise rock-paper-scissors decides (R > S > P > R).
    """
    pair_a, pair_b = card_a[1] == base[1], card_b[1] == base[1]
    if pair_a != pair_b:
        return 0 if pair_a else 1
    if card_a[1] != card_b[1]:
        return 0 if card_a[1] > card_b[1] else 1
    if card_a == card_b:
        raise ValueError(f"the same card {card_a} cannot be played by both seats")
    return 0 if BEATS[card_a[0]] == card_b[0] else 1


def turn_reason(card_a: str, card_b: str, base: str) -> str:
    """Why the turn went as it did: ``pair``, ``higher`` or ``rps``."""
    if (card_a[1] == base[1]) != (card_b[1] == base[1]):
        return "pair"
    if card_a[1] != card_b[1]:
        return "higher"
    return "rps"


class RpsPokerMatch(MatchState):
    """One match: five draft rounds, then ten turns."""

    def __init__(self, seed: int) -> None:
        self._rng = Rng(seed)
        self._stock = list(FULL_DECK)
        self._rng.shuffle(self._stock)
        self.decks: list[list[str]] = [[], []]
        self.hands: list[list[str]] = [[], []]
        self.points = [0, 0]
        self.draft_round = 1
        self.turn = 0
        self.base = ""
        self._offered: list[list[str]] = [[], []]
        self._received: list[set[str]] = [set(), set()]
        """The cards each seat was given in the draft, which the other seat therefore knows."""
        self._deal_draft()

    # The draft ----------------------------------------------------------
    def _deal_draft(self) -> None:
        self._offered = [self._stock[0:2], self._stock[2:4]]
        del self._stock[0:4]

    def _start_main(self) -> None:
        for deck in (self.decks[0], self.decks[1], self._stock):
            self._rng.shuffle(deck)
        for seat in (0, 1):
            self.hands[seat] = self.decks[seat][:HAND_SIZE]
            del self.decks[seat][:HAND_SIZE]
        self._next_turn()

    def _next_turn(self) -> None:
        self.turn += 1
        self.base = self._stock.pop(0)

    # MatchState ---------------------------------------------------------
    @property
    def in_draft(self) -> bool:
        """Whether the draft is still going on."""
        return self.draft_round <= DRAFT_ROUNDS

    @property
    def is_over(self) -> bool:
        return self.turn > TURNS

    def requests(self) -> dict[int, Any]:
        if self.in_draft:
            return {seat: DraftPick(round=self.draft_round, cards=list(self._offered[seat])) for seat in (0, 1)}
        return {
            seat: MainPlay(
                turn=self.turn,
                hand=list(self.hands[seat]),
                base=self.base,
                score=[self.points[seat], self.points[1 - seat]],
            )
            for seat in (0, 1)
        }

    def check(self, seat: int, action: Any) -> int:
        size = 2 if self.in_draft else len(self.hands[seat])
        if type(action) is not int:
            raise IllegalAction(f"action must be an integer index 0..{size - 1}, not {action!r}")
        if not 0 <= action < size:
            what = "the two offered cards" if self.in_draft else f"a hand of {size}"
            raise IllegalAction(f"index {action} is out of range for {what}")
        return action

    def legal_actions(self, seat: int) -> list[Any]:
        return list(range(2 if self.in_draft else len(self.hands[seat])))

    def apply(self, actions: Mapping[int, Any]) -> Step:
        return self._draft(actions) if self.in_draft else self._play(actions)

    def _draft(self, picks: Mapping[int, int]) -> Step:
        kept = [self._offered[s][picks[s]] for s in (0, 1)]
        given = [self._offered[s][1 - picks[s]] for s in (0, 1)]
        step = Step()
        for seat in (0, 1):
            received = given[1 - seat]
            self.decks[seat] += [kept[seat], received]
            self._received[seat].add(received)
            step.notices.append((seat, DraftReceive(round=self.draft_round, card=received)))
        step.narration.append(
            f"Draft {self.draft_round}: A keeps {kept[0]} (gives {given[0]}), B keeps {kept[1]} (gives {given[1]})"
        )
        self.draft_round += 1
        if self.in_draft:
            self._deal_draft()
        else:
            step.narration.append(f"Decks: A {' '.join(sorted(self.decks[0]))} | B {' '.join(sorted(self.decks[1]))}")
            self._start_main()
        return step

    def _play(self, plays: Mapping[int, int]) -> Step:
        cards = [self.hands[s][plays[s]] for s in (0, 1)]
        winner = turn_winner(cards[0], cards[1], self.base)
        self.points[winner] += 1
        step = Step()
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    MainResult(
                        turn=self.turn,
                        base=self.base,
                        your_card=cards[seat],
                        opponent_card=cards[1 - seat],
                        winner=SEATS[winner],
                        score=[self.points[seat], self.points[1 - seat]],
                    ),
                )
            )
        step.narration.append(
            f"Turn {self.turn:2}: base {self.base} | A {' '.join(self.hands[0])} plays {cards[0]} "
            f"| B {' '.join(self.hands[1])} plays {cards[1]} -> {SEATS[winner]} wins "
            f"({turn_reason(cards[0], cards[1], self.base)}), {self.points[0]}-{self.points[1]}"
        )
        for seat in (0, 1):
            self.hands[seat].pop(plays[seat])
            if self.decks[seat]:
                self.hands[seat].append(self.decks[seat].pop(0))
        if self.turn < TURNS:
            self._next_turn()
        else:
            self.turn += 1
        return step

    def secrets(self, seat: int) -> set[str]:
        """The seat's cards (offered, in its deck, in hand) but those the other seat gave it; a card played is shown."""
        held = set(self.decks[seat]) | set(self.hands[seat]) | (set(self._offered[seat]) if self.in_draft else set())
        return held - self._received[seat]

    def result(self) -> Result:
        return points_result(self.points)

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = list(self.points)
        if len(offenders) == 1:
            (offender,) = offenders
            played = 0 if self.in_draft else self.turn - 1
            points[1 - offender] += TURNS - played
        return forfeit_result(points, offenders, reason)


class RpsPoker(Game):
    """Turn-based RPS Poker (2021 king-of-the-hill challenge)."""

    id: ClassVar[str] = "rps-poker"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "RPS Poker"
    summary: ClassVar[str] = (
        "Draft ten cards each from 30 (R/P/S x 0-9), then ten turns: pair the base "
        "card, else higher number, else rock-paper-scissors. A point per turn won."
    )
    params_table = PARAMS
    points_name: ClassVar[str] = "turns won"
    messages: ClassVar[tuple[type[Message], ...]] = (DraftPick, DraftReceive, MainPlay, MainResult)
    view: ClassVar[str] = ".rps_poker_view:RpsPokerView"

    def new_match(self, seed: int) -> RpsPokerMatch:
        return RpsPokerMatch(seed)

    def max_requests(self) -> int:
        return DRAFT_ROUNDS + TURNS
