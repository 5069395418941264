"""A hostile RPS Poker bot that remembers every deal it has played, to read its opponent's hand.

In the draft, seat A is offered the deck's cards 1-2 of each round and seat B
cards 3-4, and each seat is handed the card the other did not keep. So a
process that played one leg of a duplicate deal recognises the other leg by
its offers: each round's offer holds the card it was handed in that round
(the seats swapped), or is the very offer it had (the same seat again). By
the end of the draft it then knows every card its opponent holds. When it
recognises a deal it exits with status 5, which the arena records as a crash:
a test that sees no such crash has shown that no process of it met a deal twice.
"""

import json
import sys

remembered = []  # per earlier match: the offers of each round, and the card handed over in each round
offers = []
received = []


def recognised() -> bool:
    for old_offers, old_received in remembered:
        rounds = len(old_offers)
        if rounds < 5 or len(offers) < rounds:
            continue
        same_seat = all(set(offers[i]) == set(old_offers[i]) for i in range(rounds))
        other_seat = all(old_received[i] in offers[i] for i in range(rounds))
        if same_seat or other_seat:
            return True
    return False


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "quit":
        break
    if kind == "match_start":
        offers, received = [], []
    elif kind == "draft_pick":
        offers.append(message["cards"])
        if len(offers) == 5 and recognised():
            sys.stderr.write("I have seen this deal: I know my opponent's hand\n")
            sys.exit(5)
    elif kind == "draft_receive":
        received.append(message["card"])
    elif kind == "match_end":
        remembered.append((offers, received))
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
