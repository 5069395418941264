"""Not duplicable, and does not say so: seat B's card is dealt after seat A answers, from its answer."""

from collections.abc import Mapping
from typing import Any

from kitbase import DECK, KitGame, KitMatch

from arena.games import Step


class AnswerDealtMatch(KitMatch):
    def apply(self, actions: Mapping[int, Any]) -> Step:
        if self.to_act == 0:  # B's card moves on by A's answer: the same seed deals B another card
            index = (DECK.index(self.cards[1]) + actions[0] * 3) % len(DECK)
            if DECK[index] != self.cards[0]:
                self.cards[1] = DECK[index]
        return super().apply(actions)


class KitDeal(KitGame):
    id = "kit-deal"
    match = AnswerDealtMatch
