"""An RPS Poker bot with a newcomer's mistake, to try `arena check` on.

It means to keep the higher card in the draft and to play its highest card,
but it counts cards from 1, as people do, while the protocol counts from 0.
`arena check examples/off-by-one-bot` finds it; the fix is one character.
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "draft_pick":
        first, second = message["cards"]
        keep = 0 if first[1] >= second[1] else 1
        print(json.dumps({"id": message["id"], "action": keep}), flush=True)
    elif message["type"] == "main_play":
        hand = message["hand"]
        highest = max(hand, key=lambda card: card[1])
        print(f"hand {hand}, playing {highest}", file=sys.stderr)
        print(json.dumps({"id": message["id"], "action": hand.index(highest) + 1}), flush=True)  # the mistake: + 1
