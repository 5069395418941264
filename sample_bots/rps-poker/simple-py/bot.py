"""Simple, an example bot of the 2021 "Turn-based RPS Poker" challenge, ported to Python.

The original (JavaScript) came with the challenge: in the draft it keeps the
card with the higher number (the first one on a tie); in play it always plays
the first card of its hand. It keeps a set of its deck that no choice reads;
the port keeps it too, so that it stays a line-by-line translation.
"""

import json
import sys


class Bot:
    """Simple: draft the higher number, play the first card."""

    name = "Simple"

    def __init__(self) -> None:
        self.my_deck: dict[str, None] = {}  # a JS Set: insertion-ordered

    def draft_pick(self, cards: list[str]) -> int:
        card_id = 1 if cards[0][1] < cards[1][1] else 0
        self.my_deck[cards[card_id]] = None
        return card_id

    def draft_receive(self, card: str) -> None:
        self.my_deck[card] = None

    def main_play(self, cards: list[str], base: str) -> int:
        self.my_deck.pop(cards[0], None)
        return 0

    def main_postprocess(self, card: str) -> None:
        pass


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
