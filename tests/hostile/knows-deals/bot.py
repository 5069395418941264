"""A hostile RPS Poker bot that deals its own cards: it tries to recompute each match's deal from what it sees.

What it knows is what any participant knows: the server's config as published
(``public.toml`` beside it, if the organiser shared it), its own name, the
opponent's name and the match id it is told, and the arena's documented
random number generator (SplitMix64, re-implemented here as the docs invite).
It tries the ladder's derivation (the config's seed, the two names and a
counter, confirmed by the match id) and small seeds (a check's deals that
follow from a submission's number). When a candidate deals the very offers it
was offered in the first four draft rounds, it knows the opponent's offers,
every base card and both hands: it says ``KNEW-DEAL`` on stderr and plays on
(a bot that wins this way must not be caught by a crash). A match id or an
opponent that says "check" is noted too (``KNEW-CHECK``): it could behave
only when checked.
"""

import hashlib
import json
import os
import re
import sys

MASK = (1 << 64) - 1
DECK = [f"{s}{n}" for s in "RPS" for n in range(10)]
SMALL_SEEDS = range(0, 3000)
CONFIRM_ROUNDS = 4
"""Draft rounds a candidate must deal exactly: with two, one of 3,000 small seeds matched a random deal's first
two rounds about once in six runs; with four, about once in 10**7 (the draft has five: the rest is known)."""


def derive_seed(seed, *labels):
    text = ":".join([str(seed), *map(str, labels)]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def offers_of(seed, seat, rounds):
    """The cards ``seat`` is offered in the first ``rounds`` draft rounds of the deal ``seed``."""
    state = seed & MASK

    def below(n):
        nonlocal state
        limit = (1 << 64) - (1 << 64) % n
        while True:
            state = (state + 0x9E3779B97F4A7C15) & MASK
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            z ^= z >> 31
            if z < limit:
                return z % n

    stock = list(DECK)
    for i in range(len(stock) - 1, 0, -1):
        j = below(i + 1)
        stock[i], stock[j] = stock[j], stock[i]
    return [stock[4 * r + 2 * seat : 4 * r + 2 * seat + 2] for r in range(rounds)]


def public_seed():
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "public.toml")) as file:
            found = re.search(r"^seed\s*=\s*(\d+)", file.read(), re.MULTILINE)
    except OSError:
        return None
    return int(found.group(1)) if found else None


def ladder_candidates(start, me):
    """Deal seeds of the ladder's derivation whose match id is the one this match was given."""
    seed = public_seed()
    if seed is None:
        return []
    names = {me, me.split(".v")[0], start.get("opponent", "")}
    labels = {n for name in names if name for n in [name] + [f"{name}.v{k}" for k in range(2, 5)]}
    found = []
    for a in labels:
        for b in labels:
            if a >= b:
                continue
            for number in range(80):
                deal = derive_seed(seed, "ladder", a, b, number)
                for leg in "ab":
                    key = f"{a}~{b}~{number}-{leg}"
                    if "m" + hashlib.sha256(f"{deal}:{key}".encode()).hexdigest()[:15] == start.get("match_id"):
                        found.append(deal)
    return found


def told_check(start):
    return str(start.get("match_id", "")).startswith("check") or start.get("opponent") == "check"


start = {}
seat = 0
offers = []
candidates = []
known = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "quit":
        break
    if kind == "match_start":
        start, offers, known = message, [], False
        seat = 0 if message.get("seat") == "A" else 1
        candidates = ladder_candidates(message, os.environ.get("ARENA_BOT_NAME", ""))
        sys.stderr.write(f"match {message.get('match_id')}: {len(candidates)} candidate deals from what I was told\n")
        if told_check(message):
            sys.stderr.write(f"KNEW-CHECK: told match id {message.get('match_id')!r}\n")
    elif kind == "draft_pick":
        offers.append(sorted(message["cards"]))
        if len(offers) == CONFIRM_ROUNDS and not known:
            for deal in [*candidates, *SMALL_SEEDS]:
                if [sorted(o) for o in offers_of(deal, seat, CONFIRM_ROUNDS)] == offers:
                    known = True
                    sys.stderr.write(f"KNEW-DEAL: seed {deal} deals me {offers} (match {start.get('match_id')})\n")
                    break
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0}), flush=True)
