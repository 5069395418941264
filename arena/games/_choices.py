"""The answers a request allows, listed for a person to pick from (the human seat).

Read from the request alone, as a seat sees it: nothing here knows the
match's hidden state. A request type not listed here gets ``None``, and the
person types the answer's JSON.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

Choice = tuple[str, Any]
"""What a person reads, and the action it answers."""


def _indexed(field: str) -> Callable[[Mapping[str, Any]], list[Choice]]:
    return lambda msg: [(str(card), index) for index, card in enumerate(msg[field])]


def _draws(msg: Mapping[str, Any]) -> list[Choice]:
    cards = list(msg["cards"])
    out: list[Choice] = [("stand pat", [])]
    for size in range(1, len(cards) + 1):
        for chosen in itertools.combinations(range(len(cards)), size):
            out.append(("discard " + " ".join(cards[i] for i in chosen), list(chosen)))
    return out


def _splits(msg: Mapping[str, Any]) -> list[Choice]:
    hand = list(msg["hand"])
    out: list[Choice] = []
    for high in itertools.combinations(range(len(hand)), 3):
        rest = [i for i in range(len(hand)) if i not in high]
        for middle in itertools.combinations(rest, 2):
            low = [i for i in rest if i not in middle]
            label = " | ".join(
                f"{name} {' '.join(str(hand[i]) for i in part)}"
                for name, part in (("high", high), ("middle", middle), ("low", low))
            )
            out.append((label, {"high": list(high), "middle": list(middle), "low": low}))
    return out


CHOICES: dict[str, Callable[[Mapping[str, Any]], list[Choice]]] = {
    "gops_bid": lambda msg: [(str(card), card) for card in msg["hand"]],
    "badugi_act": lambda msg: [(str(action), action) for action in msg["legal"]],
    "badugi_draw": _draws,
    "jitsu_play": _indexed("hand"),
    "draft_pick": _indexed("cards"),
    "main_play": _indexed("hand"),
    "poker_set": _splits,
}


QUESTIONS: dict[str, str] = {
    "gops_bid": "Which card do you bid for the prize?",
    "badugi_act": "Your action?",
    "badugi_draw": "Which cards do you discard (the dealer replaces them)?",
    "jitsu_play": "Which card do you play?",
    "draft_pick": "Which card do you keep? (the other one goes to your opponent)",
    "main_play": "Which card do you play against the base card?",
    "poker_set": "How do you set your six cards: three high, two middle, one low?",
}
"""What each known request asks, in the game's words (a request not listed here asks "Your move?")."""


def question(request: Mapping[str, Any]) -> str:
    """What ``request`` asks the person, in the game's words."""
    return QUESTIONS.get(str(request.get("type", "")), "Your move?")


def choices(request: Mapping[str, Any]) -> list[Choice] | None:
    """The answers ``request`` allows, each with words for it; ``None`` when this request type is not known here."""
    make = CHOICES.get(str(request.get("type", "")))
    if make is None:
        return None
    try:
        return make(request)
    except (KeyError, TypeError, ValueError):
        return None
