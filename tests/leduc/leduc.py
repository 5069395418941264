"""Leduc hold'em, a small poker with two betting rounds and a public card: the kit's test game (``--game-module``).

Six cards (J, Q, K in spades and hearts). Each hand both seats ante 1 and get
a private card; a betting round (raises of 2); then a public card, the board,
is turned and a second round is bet (raises of 4). At the showdown a card
that pairs the board wins, else the higher rank; equal ranks split the pot.
Seat A acts first in both rounds of every hand. In a round a seat may
``call`` (a check when nothing is owed), ``raise`` (at most ``raises`` raises
in a round), or ``fold`` when it owes chips.

Hand ``h`` is dealt from ``Rng(derive_seed(seed, "leduc-hand", h))`` alone:
seat A's card, seat B's card, then the board, whether or not the hand reaches
it, so the deal never depends on the play.

tests/test_leduc_kit.py plants one mistake at a time in copies of this file
and checks that ``arena check-game`` names each; written only from the public
surface (``arena.games``, ``arena.game_kit``), as a game author would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from arena.game_kit import forfeit_result, points_result
from arena.games import Game, IllegalAction, MatchState, Param, Rng, Shown, Step, derive_seed
from protocol import Notice, Request, Result

Card = Literal["Js", "Jh", "Qs", "Qh", "Ks", "Kh"]
Move = Literal["call", "raise", "fold"]
DECK: tuple[Card, ...] = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
RANKS = "JQK"
ANTE = 1
RAISE = (2, 4)
"""The size of a raise in the first and in the second round."""

PARAMS: tuple[Param, ...] = (
    Param("hands", 100, "hands in a match", minimum=1, maximum=100_000),
    Param("raises", 2, "raises allowed in a betting round", minimum=1, maximum=4),
)


class LeducAct(Request, tag="leduc_act", kw_only=True):
    """Your turn: answer ``"call"``, ``"raise"`` or (when you owe chips) ``"fold"``."""

    hand: int
    """The hand, 1..hands."""
    round: int
    """The betting round: 1, or 2 once the board is turned."""
    card: Card
    """Your card."""
    board: Card | None
    """The public card, once turned (round 2); ``null`` in round 1."""
    history: str
    """The hand's moves, ``c`` call, ``r`` raise, rounds apart by ``/``: ``""``, ``"cr"``, ``"rc/c"``."""
    to_call: int
    """Chips you owe to call (0: a call is a check)."""
    raises_left: int
    """Raises still allowed in this round."""
    pot: int
    """Chips in the pot."""
    score: list[int]
    """Your chips won and the opponent's, before this hand."""


class LeducHandEnd(Notice, tag="leduc_hand_end", kw_only=True):
    """The hand's end: the moves, the cards (the opponent's only at a showdown) and the chips."""

    hand: int
    history: str
    your_card: Card
    opponent_card: Card | None
    """The opponent's card at a showdown; ``null`` when a seat folded (it is never shown)."""
    board: Card | None
    """The public card, if the hand reached the second round."""
    won: int
    """Chips you won (negative: lost) in this hand."""
    score: list[int]
    """Your chips won and the opponent's, after this hand."""


def strength(card: str, board: str | None) -> int:
    """A card's showdown strength with ``board``: a pair beats any rank."""
    pair = board is not None and card[0] == board[0]
    return 10 * pair + RANKS.index(card[0])


class LeducMatch(MatchState):
    """A match of ``hands`` hands; one seat is asked at a time."""

    def __init__(self, seed: int, hands: int, raises: int) -> None:
        self.seed = seed
        self.hands = hands
        self.raises = raises
        self.hand = 0
        self.score = [0, 0]
        self._folded_before: list[set[str]] = [set(), set()]
        self._shown_before: set[str] = set()
        self._deal()

    def _deal(self) -> None:
        self.hand += 1
        deck = list(DECK)
        Rng(derive_seed(self.seed, "leduc-hand", self.hand)).shuffle(deck)
        self.cards = deck[:2]
        self.next_board = deck[2]
        self.board: str | None = None
        self.rounds = [""]
        self.put = [ANTE, ANTE]

    @property
    def is_over(self) -> bool:
        return self.hand > self.hands

    @property
    def moves(self) -> str:
        return self.rounds[-1]

    @property
    def to_act(self) -> int:
        return len(self.moves) % 2

    def raises_left(self) -> int:
        return self.raises - self.moves.count("r")

    def requests(self) -> dict[int, Any]:
        if self.is_over:
            return {}
        seat = self.to_act
        act = LeducAct(
            hand=self.hand,
            round=len(self.rounds),
            card=self.cards[seat],  # type: ignore[arg-type]
            board=self.board,  # type: ignore[arg-type]
            history="/".join(self.rounds),
            to_call=self.put[1 - seat] - self.put[seat],
            raises_left=self.raises_left(),
            pot=sum(self.put),
            score=[self.score[seat], self.score[1 - seat]],
        )
        return {seat: act}

    def legal_actions(self, seat: int) -> list[Any]:
        if self.is_over or seat != self.to_act:
            return []
        moves = ["call"]
        if self.raises_left() > 0:
            moves.append("raise")
        if self.put[1 - seat] > self.put[seat]:
            moves.append("fold")
        return moves

    def check(self, seat: int, action: Any) -> str:
        if type(action) is not str or action not in self.legal_actions(seat):
            raise IllegalAction(f"answer one of {', '.join(self.legal_actions(seat)) or 'nothing'}, not {action!r:.40}")
        return action

    def apply(self, actions: Mapping[int, Any]) -> Step:
        seat = self.to_act
        move = actions[seat]
        if move == "fold":
            self.rounds[-1] += "f"
            return self._end_hand(winner=1 - seat)
        if move == "raise":
            self.put[seat] = self.put[1 - seat] + RAISE[len(self.rounds) - 1]
            self.rounds[-1] += "r"
            return Step()
        self.put[seat] = self.put[1 - seat]
        self.rounds[-1] += "c"
        if len(self.moves) < 2:
            return Step()
        if len(self.rounds) == 1:
            self.board = self.next_board
            self.rounds.append("")
            return Step()
        return self._end_hand(winner=None)

    def _end_hand(self, winner: int | None) -> Step:
        showdown = winner is None
        if winner is None:
            ours, theirs = (strength(card, self.board) for card in self.cards)
            winner = 0 if ours > theirs else 1 if theirs > ours else None
        chips = 0 if winner is None else self.put[1 - winner]
        won = [0, 0] if winner is None else [chips if s == winner else -chips for s in (0, 1)]
        for s in (0, 1):
            self.score[s] += won[s]
        step = Step()
        for s in (0, 1):
            end = LeducHandEnd(
                hand=self.hand,
                history="/".join(self.rounds),
                your_card=self.cards[s],  # type: ignore[arg-type]
                opponent_card=self.cards[1 - s] if showdown else None,  # type: ignore[arg-type]
                board=self.board,  # type: ignore[arg-type]
                won=won[s],
                score=[self.score[s], self.score[1 - s]],
            )
            step.notices.append((s, end))
        step.narration.append(f"Hand {self.hand}: {'/'.join(self.rounds)}: A {won[0]:+}, B {won[1]:+}")
        self._folded_before = [set() if showdown else {self.cards[s]} for s in (0, 1)]
        self._shown_before = (set(self.cards) if showdown else set()) | ({self.board} if self.board else set())
        self._deal()
        return step

    def secrets(self, seat: int) -> set[str]:
        """The seat's card, and its card of the hand before if it was never shown.

        A card shown at the last hand's end (a showdown's cards, the board) may be dealt again in the
        next, told in the same step, and a folded card may be this hand's board: those are left out.
        """
        if self.is_over:
            return set()
        return ({self.cards[seat]} | self._folded_before[seat]) - self._shown_before - {self.board}

    def dealt(self) -> dict[str, Any]:
        """Each seat's card, and the board once turned."""
        deal: dict[str, Any] = {"A": self.cards[0], "B": self.cards[1]}
        if self.board is not None:
            deal["board"] = self.board
        return deal

    def shown(self) -> Shown:
        if self.is_over:
            return Shown(public={"hands": self.hands}, seats=({"chips": self.score[0]}, {"chips": self.score[1]}))
        return Shown(
            public={"hand": self.hand, "board": [self.board] if self.board else [], "pot": sum(self.put)},
            seats=({"chips": self.score[0]}, {"chips": self.score[1]}),
            private=({"card": [self.cards[0]]}, {"card": [self.cards[1]]}),
        )

    def result(self) -> Result:
        return points_result([float(chips) for chips in self.score])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = [float(chips) for chips in self.score]
        if len(offenders) == 1 and not self.is_over:
            (offender,) = offenders
            lost = self.put[offender] + ANTE * (self.hands - self.hand)
            points[offender] -= lost
            points[1 - offender] += lost
        return forfeit_result(points, offenders, reason)


class Leduc(Game):
    """Leduc hold'em, many hands a match."""

    id: ClassVar[str] = "leduc"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Leduc hold'em"
    summary: ClassVar[str] = "Six cards, two betting rounds, a public card; seat A acts first. Score: chips won."
    params_table = PARAMS
    points_name: ClassVar[str] = "chips"
    messages = (LeducAct, LeducHandEnd)

    def new_match(self, seed: int) -> LeducMatch:
        hands, raises = self.params["hands"], self.params["raises"]
        assert isinstance(hands, int) and isinstance(raises, int)
        return LeducMatch(seed, hands, raises)

    def points_total(self) -> float:
        return 0.0

    def hand_requests(self) -> int:
        raises = self.params["raises"]
        assert isinstance(raises, int)
        return 2 * ((raises + 3) // 2)  # a round is at most a call, the raises, a call: half of it each

    def max_requests(self) -> int:
        hands = self.params["hands"]
        assert isinstance(hands, int)
        return hands * self.hand_requests()
