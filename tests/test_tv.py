"""The TV's public summary of a match in play: what it keeps of a timeline, and when a table's cards are shown."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from arena.competition.schedule import Scheduled
from arena.replay import Event, Frame, Timeline
from arena.server.tv import TVPages, public_summary

SECRET_SEED = 98765432123
HIDDEN = "Qs-hidden"


def _timeline() -> Timeline:
    shown = {
        "public": {"board": ["Kh"], "pot": 6},
        "seats": [{"cards won": 2}, {"cards won": 1}],
        "private": [{"hand": [HIDDEN]}, {"hand": ["Jd-hidden"]}],
    }
    asked = Event("request", 1, {"type": "act", "id": 7, "card": 11})
    frames = [
        Frame("match start"),
        Frame("act card 11", [Event("request", 0, {"type": "act", "hand": [HIDDEN]}), Event("answer", 0)], [1, 0]),
        Frame("act card 11", [asked]),
    ]
    frames[1].shown = shown
    return Timeline("toy", "Toy", ("a", "b"), SECRET_SEED, frames, "rules")


def test_the_summary_keeps_the_public_table_and_nothing_private() -> None:
    summary = public_summary(_timeline(), cards=True)
    assert summary["step"] == 3
    assert summary["score"] == [1, 0]
    assert summary["turn"] == ["B"]
    assert summary["table"] == {
        "public": [["board", ["Kh"]], ["pot", "6"]],
        "seats": [[["cards won", "2"]], [["cards won", "1"]]],
    }
    text = json.dumps(summary)
    assert HIDDEN not in text and "hidden" not in text and str(SECRET_SEED) not in text
    assert "11" not in text  # (a request's numbers, which may be a card, are not kept: not even in a title)


def test_no_card_is_shown_while_another_match_of_its_deal_is_to_be_played() -> None:
    assert public_summary(_timeline(), cards=False)["table"] is None
    recorded: set[str] = set()
    tv: Any = object.__new__(TVPages)
    tv.c = SimpleNamespace(tid=1, store=SimpleNamespace(has_match=lambda _tid, key: key in recorded))

    def match(key: str, shares_deal: bool = False) -> Scheduled:
        return Scheduled(key, 1, "d", 0, "x", "y", 1, shares_deal=shares_deal)

    table_1 = match("a~b~c~d~1-1")  # a deal at two tables: its other table is ...-2
    assert not tv.cards_shown(table_1)
    recorded.add("a~b~c~d~1-2")
    assert tv.cards_shown(table_1)
    assert not tv.cards_shown(match("c1-x-vs-y-a", shares_deal=True))
    recorded.add("c1-x-vs-y-b")
    assert tv.cards_shown(match("c1-x-vs-y-a", shares_deal=True))
    assert tv.cards_shown(match("c1-x-vs-y-s"))  # a single deal: nobody else plays it
