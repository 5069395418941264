"""Leaks a hand: seat B's request tells it seat A's card before the round's end shows it."""

from typing import Any

from kitbase import KitGame, KitMatch, KitPlay


class LeakyPlay(KitPlay, tag="kit_leaky_play", kw_only=True):
    """Answer 0 or 1 (and, wrongly, the other's card)."""

    hint: str = ""


class LeakMatch(KitMatch):
    def requests(self) -> dict[int, Any]:
        if self.is_over:
            return {}
        seat = self.to_act
        return {seat: LeakyPlay(round=self.round, card=self.cards[seat], hint=self.cards[1 - seat])}


class KitLeak(KitGame):
    id = "kit-leak"
    match = LeakMatch
    messages = (LeakyPlay, *KitGame.messages)
