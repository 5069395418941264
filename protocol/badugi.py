"""Badugi messages (game id ``badugi``): heads-up fixed-limit triple draw.

A hand is a run of these messages; only ``badugi_act`` and ``badugi_draw``
are requests (they carry an ``id`` and need an answer):

=========================  ================================  ==============================
message                    answer                            sent
=========================  ================================  ==============================
``badugi_hand_start``      none                              to both, as a hand is dealt
``badugi_act``             ``"fold"``, ``"check"``, ...       to the seat whose turn it is
``badugi_opponent_action`` none                              to the other seat, after an act
``badugi_draw``            list of indices into ``cards``     to the seat that draws
``badugi_drawn``           none                              to the drawer: its new cards
``badugi_opponent_draw``   none                              to the other seat: how many
``badugi_showdown``        none                              to both, when nobody folded
``badugi_hand_end``        none                              to both, as a hand ends
=========================  ================================  ==============================

Cards are rank then suit: ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (the ace is
low), suits ``c d h s``: ``"Kc"``, ``"Td"``, ``"As"``. Amounts are chips.
"""

from __future__ import annotations

from typing import Literal

from .messages import Notice, Request, Seat

BettingAction = Literal["fold", "check", "call", "bet", "raise"]
"""What a seat may answer to ``badugi_act``; ``legal`` lists the ones allowed now."""


class BadugiHandStart(Notice, tag="badugi_hand_start", kw_only=True):
    """A new hand: your four cards and who has the button."""

    hand: int
    """Hand number, 1..``hands``."""
    hands: int
    """Hands in the match."""
    button: Seat
    """The seat with the button: it posts the small blind, acts first before the first draw, last after it."""
    cards: list[str]
    """Your four cards."""
    blinds: list[int]
    """What you and the opponent posted: ``[yours, theirs]``."""
    score: list[int]
    """Chips won so far in the match: ``[yours, theirs]``."""


class BadugiAct(Request, tag="badugi_act", kw_only=True):
    """Your turn to bet: answer one of ``legal`` as a string, such as ``"call"``."""

    hand: int
    round: int
    """Betting round, 1..4: round 1 is before the first draw, round 4 after the last."""
    cards: list[str]
    """Your four cards."""
    legal: list[BettingAction]
    """The actions allowed now; any other answer is an illegal move."""
    to_call: int
    """Chips you must add to call (0 when you may check)."""
    bet_size: int
    """The size of a bet or raise in this round."""
    bets: int
    """Bets made in this round so far (the big blind counts as one in round 1)."""
    bet_cap: int
    """Most bets a round may hold; no raise once ``bets`` reaches it."""
    pot: int
    """Chips in the pot, both seats' together."""
    stakes: list[int]
    """Chips put in this hand so far: ``[yours, theirs]``."""


class BadugiOpponentAction(Notice, tag="badugi_opponent_action", kw_only=True):
    """The opponent acted (a fold ends the hand; ``badugi_hand_end`` follows)."""

    hand: int
    round: int
    action: BettingAction
    pot: int
    """The pot after the action."""


class BadugiDraw(Request, tag="badugi_draw", kw_only=True):
    """Draw: answer the indices into ``cards`` to discard, such as ``[0, 2]``; ``[]`` stands pat."""

    hand: int
    draw: int
    """Draw 1..3."""
    cards: list[str]
    """Your four cards."""
    pot: int


class BadugiDrawn(Notice, tag="badugi_drawn", kw_only=True):
    """Your draw: the new cards took the places of the discarded ones."""

    hand: int
    draw: int
    discarded: list[str]
    """The cards you threw away."""
    cards: list[str]
    """Your four cards now."""


class BadugiOpponentDraw(Notice, tag="badugi_opponent_draw", kw_only=True):
    """How many cards the opponent drew (never which)."""

    hand: int
    draw: int
    count: int
    """0 (stood pat) to 4."""


class BadugiShowdown(Notice, tag="badugi_showdown", kw_only=True):
    """Both seats are still in after round 4: the cards are shown."""

    hand: int
    cards: list[str]
    """Your four cards."""
    opponent_cards: list[str]
    """The opponent's four cards."""
    played: list[str]
    """Your played hand (highest rank first), as ``best_hand`` gives it."""
    opponent_played: list[str]
    """The opponent's played hand."""
    winner: Seat | None
    """The seat whose hand wins; ``None`` for equal hands (the pot is split)."""


class BadugiHandEnd(Notice, tag="badugi_hand_end", kw_only=True):
    """The hand is over: who took the pot, and the score."""

    hand: int
    ended_by: Literal["fold", "showdown"]
    winner: Seat | None
    """The seat that took the pot; ``None`` when it was split."""
    pot: int
    won: int
    """Chips you won in this hand (negative when you lost)."""
    score: list[int]
    """Chips won so far in the match: ``[yours, theirs]``."""
