"""ObviousStrats, a bot of the 2021 "Turn-based RPS Poker" challenge, ported to Python.

The original (JavaScript) was posted by a participant, built on tsh's code.
Strategy: in the draft it keeps the card that beats the other one. In play it
pairs the base card when it can; otherwise, if its opponent is known to hold
a pair for the base, it throws away its lowest card; otherwise it plays its
highest card.

The port makes the same choice as the original for every call, state quirks
included (its state resets when its set of unseen cards is not full at the
start of a draft).
"""

import json
import sys

FULL_DECK = tuple(f"{symbol}{number}" for symbol in "RPS" for number in range(10))
"""The challenge's global ``fullDeck``: 'R0'..'R9', 'P0'..'P9', 'S0'..'S9'."""


def is_winner(card: str, opponent: str, base: str = "") -> bool:
    """The original's ``isWinner``; with no base, ``base[1]`` is JavaScript's ``undefined`` (no pair)."""
    pair = base[1] if len(base) > 1 else None
    if card[1] == pair and opponent[1] != pair:
        return True
    if card[1] != pair and opponent[1] == pair:
        return False
    if card[1] > opponent[1]:
        return True
    if card[1] < opponent[1]:
        return False
    return card[0] + opponent[0] in "RSPR"


class Bot:
    """ObviousStrats: pair the base, else dump low against a known pair, else play high."""

    name = "ObviousStrats"

    def __init__(self) -> None:
        self.self_cards: dict[str, None] = {}
        self.opponent_cards: dict[str, None] = {}
        self.other_cards: dict[str, None] = {}

    def draft_pick(self, cards: list[str]) -> int:
        if len(self.other_cards) != 30:
            for card in FULL_DECK:
                self.other_cards[card] = None
            self.self_cards.clear()
            self.opponent_cards.clear()
        if is_winner(cards[0], cards[1]):
            self.self_cards[cards[0]] = None
            self.opponent_cards[cards[1]] = None
            return 0
        self.opponent_cards[cards[0]] = None
        self.self_cards[cards[1]] = None
        return 1

    def draft_receive(self, card: str) -> None:
        self.self_cards[card] = None

    def main_play(self, cards: list[str], base: str) -> int:
        self.other_cards.pop(base, None)
        match = next((i for i, card in enumerate(cards) if card[1] == base[1]), -1)
        if match > -1:
            self.self_cards.pop(cards[match], None)
            return match
        if any(card[1] == base[1] for card in self.opponent_cards):
            lowest = min(int(card[1]) for card in cards)
            match = next(i for i, card in enumerate(cards) if int(card[1]) == lowest)
            self.self_cards.pop(cards[match], None)
            return match
        highest = max(int(card[1]) for card in cards)
        match = next(i for i, card in enumerate(cards) if int(card[1]) == highest)
        self.self_cards.pop(cards[match], None)
        return match

    def main_postprocess(self, card: str) -> None:
        self.other_cards.pop(card, None)
        self.opponent_cards.pop(card, None)


def serve(bot: Bot) -> None:
    """Play Arena's protocol on stdin/stdout, calling ``bot`` as the challenge's controller did.

    One bot object plays every match of the process: like the original, it
    resets its own state when a new draft begins.
    """
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "draft_pick":
            answer(message["id"], bot.draft_pick(message["cards"]))
        elif kind == "draft_receive":
            bot.draft_receive(message["card"])
        elif kind == "main_play":
            answer(message["id"], bot.main_play(message["hand"], message["base"]))
        elif kind == "main_result":
            bot.main_postprocess(message["opponent_card"])
        elif kind == "quit":
            break


def answer(request_id: int, action: int) -> None:
    print(json.dumps({"id": request_id, "action": action}), flush=True)


if __name__ == "__main__":
    serve(Bot())
