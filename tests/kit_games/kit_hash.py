"""Not deterministic across processes: the deal depends on Python's string hash, which PYTHONHASHSEED changes."""

from kitbase import DECK, KitGame, KitMatch

from arena.games import Rng


class HashMatch(KitMatch):
    def deal(self) -> None:
        self.round += 1
        deck = list(DECK)
        Rng(hash(f"{self.seed}-{self.round}")).shuffle(deck)
        self.cards = deck[:2]
        self.answered = []


class KitHash(KitGame):
    id = "kit-hash"
    match = HashMatch
