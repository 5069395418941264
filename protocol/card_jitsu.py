"""Card-Jitsu messages (game id ``card-jitsu``).

One request per round, to both seats at once, then the round's outcome:

=================  =========================  ==========================================
message            answer                     what the challenge's display showed
=================  =========================  ==========================================
``jitsu_play``     index into ``hand``, 0..4  both winning piles, your hand, your choice
``jitsu_result``   none                       both cards played, the round's result
=================  =========================  ==========================================

Cards are strings: element (``F``, ``W``, ``S``), colour (``Y``, ``O``, ``R``,
``B``, ``G``, ``P``), value (``2``..``12``), such as ``"FB9"`` or ``"SG10"``.
"""

from __future__ import annotations

import msgspec

from .messages import Notice, Request, Seat


class JitsuPlay(Request, tag="jitsu_play", kw_only=True):
    """Play a card: answer its index in ``hand`` (0 is the first card)."""

    round: int
    """Round, from 1 up to the ``max_rounds`` parameter."""
    hand: list[str]
    """Your five cards. A played card's replacement takes its place in the list."""
    your_pile: list[str]
    """The cards you have won, in the order you won them."""
    opponent_pile: list[str]
    """The cards your opponent has won."""


class JitsuResult(Notice, tag="jitsu_result", kw_only=True):
    """The round's outcome: both cards, who won the round, and the set that ended the game if one did."""

    round: int
    your_card: str
    opponent_card: str
    winner: Seat | None
    """The seat that won the round (and adds its card to its pile), or ``null`` for a tie."""
    winning_set: list[str] = msgspec.field(default_factory=list)
    """The three cards of the winner's pile that won the whole game this round; empty otherwise."""
