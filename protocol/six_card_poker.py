"""Six-card poker messages (game id ``six-card-poker``).

One request per deal, to both seats at once, then the showdown:

* ``poker_set`` (request): split your six cards; answer
  ``{"high": [i, j, k], "middle": [l, m], "low": [n]}``, indices into ``hand``;
* ``poker_showdown`` (notice): both splits and the deal's outcome.

Cards are the integers 1..4 (no suits).
"""

from __future__ import annotations

import msgspec

from .messages import Notice, Request, Seat


class PokerSplit(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Six cards split into the three hands (card values, not indices)."""

    high: list[int]
    """Three cards, ranked by their sum."""
    middle: list[int]
    """Two cards: a pair beats a non-pair, then the higher pair, or the higher card then the second."""
    low: list[int]
    """One card: the higher card wins."""


class PokerSet(Request, tag="poker_set", kw_only=True):
    """Set your hands: answer ``{"high": [3 indices], "middle": [2], "low": [1]}`` into ``hand``."""

    deal: int
    """Deal, from 1 up to the ``deals`` parameter."""
    hand: list[int]
    """Your six cards, sorted from low to high."""
    score: list[float]
    """Your points and the opponent's so far (a deal won is 1, a drawn deal 0.5 each)."""


class PokerShowdown(Notice, tag="poker_showdown", kw_only=True):
    """The deal's outcome: both splits, the hands won, the deal's winner and the running score."""

    deal: int
    your_split: PokerSplit
    opponent_split: PokerSplit
    hands_won: list[float]
    """Your share of the three hands and the opponent's (1 a hand won, 0.5 a hand drawn): they add up to 3."""
    winner: Seat | None
    """The seat that won the deal (more than 1.5 hands), or ``null`` for a drawn deal (exactly 1.5)."""
    score: list[float]
    """Your points and the opponent's after this deal."""
