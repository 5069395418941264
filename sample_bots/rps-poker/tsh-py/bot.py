"""tsh, a bot of the 2021 "Turn-based RPS Poker" challenge, ported to Python.

The original (JavaScript) was posted by the participant tsh. Strategy: every
card gets a score from its number, how many of the opponent's known cards it
beats, and how likely a card of the same number (a pair with a future base)
is to turn up; the draft keeps the better-scored card, and play picks the
best-scored card of the hand, unless the opponent is known to hold a card
that beats all of its cards, when it throws away its worst one.

The port makes the same choice as the original for every call, quirks
included: the cards it receives in the draft stay in its set of unseen cards,
so its state carries over from one match to the next; a division by zero
gives Infinity or NaN as in JavaScript; and when a score is NaN it answers -1,
as the original's ``indexOf(NaN)`` did (an illegal move).
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


def js_max(values: list[float]) -> float:
    """JavaScript's ``Math.max``: NaN when any value is NaN."""
    return math.nan if any(math.isnan(v) for v in values) else max(values)


class Bot:
    """tsh: score cards by number, known opponents' cards and pairing odds."""

    name = "tsh"

    def __init__(self) -> None:
        self.self_cards: dict[str, None] = {}
        self.opponent_cards: dict[str, None] = {}
        self.other_cards: dict[str, None] = {}

    def score_card(self, card: str, deck_ratio: float) -> float:
        same_num = [c for c in self.self_cards if c[1] == card[1]]
        other_same_num = [c for c in self.other_cards if c[1] == card[1]]
        larger_than_opponent = len([c for c in self.opponent_cards if c[1] < card[1]]) * 0.1
        card_value = int(card[1]) + larger_than_opponent + 0.5
        if len(other_same_num) == 0:
            return card_value - 1 + larger_than_opponent
        if len(other_same_num) == 1:
            card_win = not is_winner(card, other_same_num[0])
            if card_win:
                return 10 * deck_ratio + card_value * (1 - deck_ratio)
            if len(same_num) == 1:
                return 0 * deck_ratio + (card_value - 1) * (1 - deck_ratio)
            return card_value - 1
        return (
            (9 + card_value) * deck_ratio * (1 - deck_ratio) / 2
            + 10 * deck_ratio**2
            + card_value * (1 - deck_ratio) ** 2
        )

    def score_pick_card(self, card: str) -> float:
        return self.score_card(card, js_div(10, len(self.other_cards)))

    def score_play_card(self, card: str, base: str) -> float:
        if all(is_winner(card, c, base) for c in [*self.opponent_cards, *self.other_cards]):
            return math.inf
        known_win = js_div(len([c for c in self.opponent_cards if is_winner(card, c, base)]), len(self.self_cards) + 1)
        deck_ratio = js_div(len(self.self_cards), len(self.other_cards))
        return self.score_card(card, deck_ratio) + known_win

    def draft_pick(self, cards: list[str]) -> int:
        if not self.other_cards:
            for card in FULL_DECK:
                self.other_cards[card] = None
            self.self_cards.clear()
            self.opponent_cards.clear()
        for card in cards:
            self.other_cards.pop(card, None)
        scores = [self.score_pick_card(c) for c in cards]
        if scores[0] > scores[1]:
            self.self_cards[cards[0]] = None
            self.opponent_cards[cards[1]] = None
            return 0
        self.opponent_cards[cards[0]] = None
        self.self_cards[cards[1]] = None
        return 1

    def draft_receive(self, card: str) -> None:
        self.self_cards[card] = None  # (not removed from other_cards: as in the original)

    def main_play(self, cards: list[str], base: str) -> int:
        self.other_cards.pop(base, None)
        opponent_win = any(
            all(not is_winner(mine, theirs, base) for mine in self.self_cards) for theirs in self.opponent_cards
        )
        scores: list[float] = []
        for card in cards:
            score = self.score_play_card(card, base)
            scores.append(-score if opponent_win else score + 10 * (card[1] == base[1]))
        best = js_max(scores)
        # scores.indexOf(best): -1 when best is NaN (NaN equals nothing).
        index = next((i for i, score in enumerate(scores) if score == best), -1)
        if index >= 0:  # the original deletes cards[-1], which is undefined: nothing
            self.self_cards.pop(cards[index], None)
        return index

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
