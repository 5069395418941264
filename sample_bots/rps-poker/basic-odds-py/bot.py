"""BasicOdds by MegaTom, the winner of the 2021 "Turn-based RPS Poker" challenge, ported to Python.

Strategy (MegaTom's): in the draft it keeps the card that beats the other one.
In play it tracks its own cards, the cards it knows its opponent holds (those
it passed on in the draft) and the cards it has not seen, and plays the card
whose expected winnings now, minus what the card would be worth in a later
turn, are highest.

The port is a line-by-line translation that makes the same choice as the
original for every call: JavaScript Sets become insertion-ordered dicts (the
sums run in the same order, so the floating-point results are equal), and
division follows JavaScript (a zero divisor gives Infinity or NaN).
"""

import json
import math
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


def js_div(a: float, b: float) -> float:
    """``a / b`` as JavaScript computes it: dividing by zero gives ±Infinity or NaN, not an error."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


class Bot:
    """BasicOdds (by MegaTom)."""

    name = "BasicOdds"

    def __init__(self) -> None:
        # JavaScript Sets: dicts keep insertion order as Sets do.
        self.self_cards: dict[str, None] = {}
        self.opponent_cards: dict[str, None] = {}
        self.other_cards: dict[str, None] = {}
        self.start = False

    def draft_pick(self, cards: list[str]) -> int:
        if len(self.other_cards) == 0:  # every card seen: a new match begins
            for card in FULL_DECK:
                self.other_cards[card] = None
            self.self_cards.clear()
            self.opponent_cards.clear()
            self.start = False
        self.other_cards.pop(cards[0], None)
        self.other_cards.pop(cards[1], None)
        if is_winner(cards[0], cards[1]):
            self.self_cards[cards[0]] = None
            self.opponent_cards[cards[1]] = None
            return 0
        self.opponent_cards[cards[0]] = None
        self.self_cards[cards[1]] = None
        return 1

    def draft_receive(self, card: str) -> None:
        self.self_cards[card] = None
        self.other_cards.pop(card, None)

    def main_play(self, cards: list[str], base: str) -> int:
        self.other_cards.pop(base, None)
        own, theirs, unseen = len(self.self_cards), len(self.opponent_cards), len(self.other_cards)
        values: list[tuple[float, int]] = []
        for index, card in enumerate(cards):
            winnings: float = 0
            for other in self.other_cards:
                winnings += is_winner(card, other, base)
            winnings *= js_div(own - theirs, unseen)
            for other in self.opponent_cards:
                winnings += is_winner(card, other, base)
            future_winnings: float = 0
            m1 = js_div(unseen - own + theirs, unseen)
            m2 = js_div(m1 * (own - theirs), unseen - 1)
            for new_base in self.other_cards:
                for other in self.opponent_cards:
                    future_winnings += is_winner(card, other, new_base) * m1
                for other in self.other_cards:
                    if other != new_base:
                        future_winnings += is_winner(card, other, new_base) * m2
            values.append((winnings - js_div(future_winnings, own - 1), index))
        best = values[0]  # Array.reduce without a seed: the first maximum; NaN never wins
        for value in values[1:]:
            if value[0] > best[0]:
                best = value
        best_index = best[1]
        self.self_cards.pop(cards[best_index], None)
        return best_index

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
