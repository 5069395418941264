"""Kuhn poker's messages (game id ``kuhn-poker``): what a bot is asked and told.

==================  =======================  =====================================
message             answer                   when
==================  =======================  =====================================
``kuhn_act``        ``"pass"`` or ``"bet"``  your turn in a hand
``kuhn_hand_end``   none                     the hand is over: cards shown, chips
==================  =======================  =====================================
"""

from __future__ import annotations

from typing import Literal

from protocol import Notice, Request

Card = Literal["J", "Q", "K"]
Move = Literal["pass", "bet"]


class KuhnAct(Request, tag="kuhn_act", kw_only=True):
    """Your turn: answer ``"pass"`` or ``"bet"`` (after a bet, pass folds and bet calls)."""

    hand: int
    """The hand, 1..hands."""
    hands: int
    """Hands in the match."""
    player: Literal[1, 2]
    """1 if you act first in every hand (seat A), 2 if second (seat B)."""
    card: Card
    """Your card."""
    history: str
    """The hand's moves so far, ``p`` for pass and ``b`` for bet: ``""``, ``"p"``, ``"b"`` or ``"pb"``."""
    pot: int
    """Chips in the pot, antes included."""
    score: list[int]
    """Your chips won and the opponent's, before this hand."""


class KuhnHandEnd(Notice, tag="kuhn_hand_end", kw_only=True):
    """The hand's end: the moves, the cards (the opponent's only at a showdown) and the chips."""

    hand: int
    history: str
    """Every move of the hand: ``pp``, ``pbp``, ``pbb``, ``bp`` or ``bb``."""
    your_card: Card
    opponent_card: Card | None
    """The opponent's card at a showdown; ``null`` when a player folded (it is never shown)."""
    won: int
    """Chips you won (negative: lost) in this hand."""
    score: list[int]
    """Your chips won and the opponent's, after this hand."""


MESSAGES = (KuhnAct, KuhnHandEnd)
