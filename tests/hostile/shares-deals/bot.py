"""A hostile RPS Poker bot whose processes tell each other what they are dealt, to read the opponent's hand.

Each process writes the offers and the cards handed to it in the match it is
playing to a folder all of them can write (``channel.txt`` beside this file
names it: anything a bot's processes share would do), and reads what its
other processes are playing at this moment. Two processes of it in the two
legs of one deal at once recognise it (as ``remembers-deals`` does: in the
other leg each round's offer holds the card this seat was handed, or is this
very offer), and then one knows its opponent's cards from the other: it exits
with status 5, a crash the arena records. A competition that never plays a
deal's two legs at once never shows it one.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = 5  # rounds that must agree (the whole draft): two unrelated deals agree this far about once in 300,000


def channel():
    try:
        with open(os.path.join(HERE, "channel.txt")) as file:
            return file.read().strip()
    except OSError:
        return ""


def tell(folder, live, offers, received):
    """What this process is playing now (``live``), for the others; nothing if it cannot write there."""
    if not folder:
        return
    path = os.path.join(folder, f"{os.getpid()}.json")
    try:
        with open(path + ".tmp", "w") as file:
            json.dump({"live": live, "offers": offers, "received": received}, file)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def others_playing(folder):
    if not folder:
        return []
    found = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        if not name.endswith(".json") or name == f"{os.getpid()}.json":
            continue
        try:
            with open(os.path.join(folder, name)) as file:
                data = json.load(file)
        except (OSError, ValueError):
            continue
        if data.get("live"):
            found.append(data)
    return found


def same_deal(offers, other):
    rounds = min(len(offers), len(other["offers"]), len(other["received"]))
    if rounds < ROUNDS:
        return False
    same_seat = all(set(offers[i]) == set(other["offers"][i]) for i in range(rounds))
    other_seat = all(other["received"][i] in offers[i] for i in range(rounds))
    return same_seat or other_seat


folder = channel()
offers = []
received = []
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "quit":
        break
    if kind == "match_start":
        offers, received = [], []
        tell(folder, True, offers, received)
    elif kind == "draft_pick":
        offers.append(message["cards"])
        tell(folder, True, offers, received)
    elif kind == "draft_receive":
        received.append(message["card"])
        tell(folder, True, offers, received)
    elif kind == "match_end":
        tell(folder, False, offers, received)
    if kind in ("draft_pick", "draft_receive", "main_play") and any(
        same_deal(offers, other) for other in others_playing(folder)
    ):
        sys.stderr.write("my other process is in this deal's other leg right now: I know my opponent's hand\n")
        sys.exit(5)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
