"""A hostile high-card bot whose processes pool every deal they see, to play the perfect counter when one comes again.

After each match, each process writes the hand it was dealt and the cards its
opponent played (the opponent's whole hand) to a folder all its processes can
write (``channel.txt`` beside this file names it: in a test without the
sandbox's layers, standing for any channel a shared kernel leaves between a
bot's processes). At the start of a match it looks there for a deal whose
opponent's hand is the hand it was just dealt: then it is in the other seat of
a deal one of its processes played, and knows its opponent's hand. Against an
opponent that plays its highest card first (the ``high`` example bot), it then
plays the counter that wins the most turns; otherwise it plays its highest
card first too (a mirror: over both seats of a deal, an even score). It says on
stderr each time it recognises a deal, and after the match whether it knew
(the opponent played the hand it recalled: a leak) or only guessed (another
deal's opponent held the same hand: with 4 cards of 20, a few in a hundred
deals).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def channel():
    try:
        with open(os.path.join(HERE, "channel.txt")) as file:
            return file.read().strip()
    except OSError:
        return ""


def remember(folder, mine, theirs):
    if not folder or len(theirs) != len(mine):
        return
    path = os.path.join(folder, f"{os.getpid()}-{len(os.listdir(folder))}.json")
    try:
        with open(path + ".tmp", "w") as file:
            json.dump({"mine": sorted(mine), "theirs": sorted(theirs)}, file)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def recall(folder, hand):
    """The opponent's hand, if a process of this bot held it with ``hand`` against it (the other seat of this deal)."""
    if not folder:
        return None
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name)) as file:
                seen = json.load(file)
        except (OSError, ValueError):
            continue
        if seen.get("theirs") == sorted(hand):
            return seen["mine"]
    return None


def counter(mine, theirs):
    """For each of the opponent's cards, the card of ``mine`` to play against it: as many turns won as can be."""
    plan = {}
    left = sorted(mine)
    for card in sorted(theirs):  # beat each card, lowest first, with the least card that beats it
        beater = next((c for c in left if c > card), None)
        if beater is not None:
            plan[card] = beater
            left.remove(beater)
    for card in sorted(theirs):  # the rest lose: the lowest cards go there
        if card not in plan:
            plan[card] = left.pop(0)
    return plan


folder = channel()
dealt, seen, plan, theirs_left, known = [], [], None, [], None
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "quit":
        break
    if kind == "high_card_play":
        hand = message["hand"]
        if message["turn"] == 1:
            dealt, seen = list(hand), []
            known = recall(folder, hand)
            plan, theirs_left = (counter(hand, known), sorted(known)) if known else (None, [])
            if known:
                sys.stderr.write(f"recognised: my opponent holds {known}\n")
        if plan:
            expected = max(theirs_left)  # the opponent plays its highest card first
            card = plan[expected]
            if card not in hand:
                card = max(hand)
        else:
            card = max(hand)
        print(json.dumps({"id": message["id"], "action": card}), flush=True)
    elif kind == "high_card_result":
        seen.append(message["opponent_card"])
        if message["opponent_card"] in theirs_left:
            theirs_left.remove(message["opponent_card"])
        if len(seen) == len(dealt):
            remember(folder, dealt, seen)
            if known:
                right = sorted(seen) == sorted(known)
                sys.stderr.write("knew: my opponent held what I recalled\n" if right else "only guessed: it did not\n")
