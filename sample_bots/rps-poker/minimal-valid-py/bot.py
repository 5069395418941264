"""MinimalValid, the smallest valid bot of the 2021 "Turn-based RPS Poker" challenge, ported to Python.

The original (JavaScript) came with the challenge: it always takes the first
card offered and always plays the first card of its hand. This port keeps the
challenge's API (one method per call of the original controller) and makes the
same choice as the original for every call.
"""

import json
import sys


class Bot:
    """MinimalValid: index 0, always."""

    name = "MinimalValid"

    def draft_pick(self, cards: list[str]) -> int:
        return 0

    def draft_receive(self, card: str) -> None:
        pass

    def main_play(self, cards: list[str], base: str) -> int:
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
