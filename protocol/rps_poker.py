"""RPS Poker messages (game id ``rps-poker``).

They carry what the challenge's JavaScript API gave a bot, named after its
methods, plus the turn's outcome and the running score:

=================  =======  ==========================================
message            answer   original API
=================  =======  ==========================================
``draft_pick``     0 or 1   ``draftPick(cards)``
``draft_receive``  none     ``draftReceive(card)``
``main_play``      index    ``mainPlay(cards, base)``
``main_result``    none     ``mainPostprocess(card)`` (``opponent_card``)
=================  =======  ==========================================
"""

from __future__ import annotations

from .messages import Notice, Request, Seat


class DraftPick(Request, tag="draft_pick", kw_only=True):
    """Draft step 2.2: keep one of two cards; answer its index, 0 or 1."""

    round: int
    """Draft round, 1..5."""
    cards: list[str]
    """The two cards offered, such as ``["R3", "S7"]``."""


class DraftReceive(Notice, tag="draft_receive", kw_only=True):
    """Draft step 2.3: the card the opponent did not keep joins your deck."""

    round: int
    card: str


class MainPlay(Request, tag="main_play", kw_only=True):
    """Main step 3.2: play a card; answer its index in ``hand``."""

    turn: int
    """Turn, 1..10."""
    hand: list[str]
    """Your hand: 3 cards in turns 1-8, then 2, then 1."""
    base: str
    """The base card turned up this turn."""
    score: list[int]
    """Your points and the opponent's so far."""


class MainResult(Notice, tag="main_result", kw_only=True):
    """The turn's outcome; ``opponent_card`` is what ``mainPostprocess`` got."""

    turn: int
    base: str
    your_card: str
    opponent_card: str
    winner: Seat
    """The seat that won the turn."""
    score: list[int]
    """Your points and the opponent's after this turn."""
