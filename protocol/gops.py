"""GOPS messages (game id ``gops``).

=================  ============  ==============================================
message            answer        the 2007 referee's plain-text line
=================  ============  ==============================================
``gops_bid``       a card value  ``Competition card:  N``
``gops_result``    none          ``Opponent's bid:  N``
=================  ============  ==============================================

Bots declared with ``protocol = "gops-text"`` get exactly those text lines
instead of JSON (``arena/supervisor/wires.py``); JSON bots get the Structs below, which
also carry what a text bot has to track for itself.
"""

from __future__ import annotations

from .messages import Notice, Request, Seat


class GopsBid(Request, tag="gops_bid", kw_only=True):
    """A prize card is turned up: bid one card of your hand; answer its value."""

    round: int
    """Round, 1..``cards``."""
    prize: int
    """The value of the prize (competition) card turned up this round."""
    hand: list[int]
    """Your cards left, ascending."""
    opponent_hand: list[int]
    """The opponent's cards left, ascending (public: every bid is shown)."""
    prizes_left: list[int]
    """Prize cards still to come after this one, ascending (their order is hidden when random)."""
    score: list[int]
    """Your prize points and the opponent's so far."""


class GopsResult(Notice, tag="gops_result", kw_only=True):
    """Both bids of the round, revealed; the higher bid takes the prize, equal bids discard it."""

    round: int
    prize: int
    your_bid: int
    opponent_bid: int
    winner: Seat | None
    """The seat that took the prize, or ``None`` when equal bids discarded it."""
    score: list[int]
    """Your prize points and the opponent's after this round."""
