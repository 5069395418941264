"""An Arena starter bot: it answers every request with a legal action.

Arena writes one JSON object per line to the bot's stdin. A message with an
"id" is a request: answer it with one line, {"id": <the same id>, "action": ...}.
Every other message is a notice: never answer it. Exit on "quit" (or when the
input closes). stdout is for answers only: write debugging output to stderr.
"""

import json
import sys


def choose(request):
    """The action for one request: make it play better here."""
    kind = request["type"]
    # game: rps-poker
    if kind == "draft_pick":  # "cards": the two offered; answer 0 or 1, the one to keep
        return 0
    if kind == "main_play":  # "hand", "base", "score"; answer an index into "hand"
        return 0
    # end game
    # game: gops
    if kind == "gops_bid":  # "prize", "hand" (ascending), "opponent_hand", "prizes_left"; bid a card in "hand"
        return request["hand"][0]
    # end game
    # game: card-jitsu
    if kind == "jitsu_play":  # "hand" (5 cards), "your_pile", "opponent_pile"; answer an index into "hand"
        return 0
    # end game
    # game: six-card-poker
    if kind == "poker_set":  # "hand": 6 cards, low to high; answer indices into it, each once
        return {"high": [3, 4, 5], "middle": [1, 2], "low": [0]}
    # end game
    # game: badugi
    if kind == "badugi_act":  # "cards", "legal", "to_call", "pot"...; answer one of "legal"
        return request["legal"][0]  # the first is "fold" when facing a bet: try "call"
    if kind == "badugi_draw":  # "cards"; answer the indices of the cards to discard
        return []  # stand pat
    # end game
    raise ValueError(f"this bot has no answer for a {kind!r} request")


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message:  # a request: exactly one answer, with the same id
            answer = {"id": message["id"], "action": choose(message)}
            print(json.dumps(answer), flush=True)
        elif message["type"] == "match_start":  # a notice: reset what you keep per match
            print(f"{message['match_id']}: seat {message['seat']} against {message['opponent']}", file=sys.stderr)
        elif message["type"] == "quit":
            return


if __name__ == "__main__":
    main()
