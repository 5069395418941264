"""How a Badugi table looks: both hands, the pot, chips won, the bets of the round, the draws, the showdown."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ._view import CardLook, TableView, Zone, card_of, num, unknown, zone
from .badugi import HAND_SIZE, ROUNDS, describe

FOUR_COLOURS = {"c": ("♣", "green"), "d": ("♦", "blue"), "h": ("♥", "red"), "s": ("♠", "black")}
"""A four-colour deck: in Badugi the suits matter as much as the ranks (the page's text draws cards so too)."""
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}


@functools.lru_cache(maxsize=4096)
def _described(cards: tuple[str, ...]) -> str:
    return describe(cards)


def named(cards: Sequence[str]) -> str:
    """The hand ``cards`` play, in words (``3-card 8-3-2``); a view asks it of the same cards often."""
    return _described(tuple(cards))


VERBS = {"fold": "folds", "check": "checks", "call": "calls", "bet": "bets", "raise": "raises"}


class BadugiView(TableView):
    """Hands, pot, stakes and actions of the round, draws (how many cards each changed), the showdown."""

    game: ClassVar[str] = "badugi"
    points_name: ClassVar[str] = "chips won"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hand = 0
        self.hands_total = int(self.params.get("hands", 100))
        self.button = 0
        self.round = 0
        self.draw = 0
        self.pot = 0
        self.stakes = [0, 0]
        """Chips each seat has put in this hand."""
        self.cards: list[list[str] | None] = [None, None]
        self.marks: list[dict[int, str]] = [{}, {}]
        self.best: list[str] = ["", ""]
        self.actions: list[list[str]] = [[], []]
        """Each seat's actions in the betting round in play."""
        self.drawn: list[str] = ["", ""]
        self.discarded: list[list[str]] = [[], []]

    def opens(self, seat: int, msg: Mapping[str, Any]) -> bool:
        return msg.get("type") == "badugi_hand_start" and self.hand not in (0, int(msg["hand"]))

    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        kind = msg.get("type")
        self.cards[seat] = list(msg["cards"])
        self.marks[seat] = {}
        self.pot = int(msg["pot"])
        if kind == "badugi_act":
            if int(msg["round"]) != self.round:
                self.round, self.actions = int(msg["round"]), [[], []]
                self.drawn, self.discarded = ["", ""], [[], []]
            self.draw = 0
            self.stakes[seat], self.stakes[1 - seat] = msg["stakes"]
        elif kind == "badugi_draw":
            self.draw = int(msg["draw"])
        self.outcome = ""

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        if request.get("type") == "badugi_act":
            put = 0
            if action == "call":
                put = int(request["to_call"])
            elif action in ("bet", "raise"):
                put = int(request["to_call"]) + int(request["bet_size"])
            self.stakes[seat] = int(request["stakes"][0]) + put
            self.pot = int(request["pot"]) + put
            self._acted(seat, str(action))
        else:
            self.marks[seat] = {int(i): "out" for i in action}
            self.drawn[seat] = f"draws {len(action)}" if action else "stands pat"
            self.status[seat] = self.drawn[seat]

    def _acted(self, seat: int, action: str) -> None:
        self.say(f"{'AB'[seat]} {VERBS.get(action, action)}; the pot is {self.pot}")
        self.actions[seat].append(VERBS.get(action, action))
        self.status[seat] = ", ".join(self.actions[seat])
        if action == "fold":
            self.outcome = f"{'AB'[seat]} folds"

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "badugi_hand_start":
            self._deal(seat, msg)
        elif kind == "badugi_opponent_action":
            other = 1 - seat
            if other not in self.seen:  # (a view that saw the answer knows it already)
                self.pot = int(msg["pot"])
                self.stakes[other] = self.pot - self.stakes[seat]
                self._acted(other, str(msg["action"]))
        elif kind == "badugi_drawn":
            old = self.cards[seat] or []
            self.cards[seat] = list(msg["cards"])
            self.marks[seat] = {i: "new" for i, card in enumerate(msg["cards"]) if card not in old}
            count = len(msg["discarded"])
            self.discarded[seat] = list(msg["discarded"])
            self.drawn[seat] = f"draws {count}" if count else "stands pat"
            self.status[seat] = self.drawn[seat]
            if count:
                thrown = [card_of(c) for c in msg["discarded"]]
                new = [card_of(c) for c in msg["cards"] if c not in old]
                self.say(f"{'AB'[seat]} throws ", *thrown, " and draws ", *new, f" ({named(msg['cards'])})")
            else:
                self.say(f"{'AB'[seat]} stands pat ({named(msg['cards'])})")
        elif kind == "badugi_opponent_draw":
            other = 1 - seat
            count = int(msg["count"])
            self.drawn[other] = f"draws {count}" if count else "stands pat"
            self.status[other] = self.drawn[other]
            if other not in self.seen:
                self.say(f"{'AB'[other]} {self.drawn[other]}")
                self.marks[other] = {i: "new" for i in range(count)}
                self.discarded[other] = unknown(count)
        elif kind == "badugi_showdown":
            self.cards[seat], self.cards[1 - seat] = list(msg["cards"]), list(msg["opponent_cards"])
            self.best[seat], self.best[1 - seat] = named(msg["played"]), named(msg["opponent_played"])
            for s, played in ((seat, msg["played"]), (1 - seat, msg["opponent_played"])):
                cards = self.cards[s] or []
                self.marks[s] = {i: "best" for i, card in enumerate(cards) if card in played}
            if seat == min(self.seen):  # (both seats are shown the same cards)
                for s in (0, 1):
                    shown = [card_of(c) for c in self.cards[s] or []]
                    self.say(f"{'AB'[s]} shows ", *shown, f" ({self.best[s]})")
        elif kind == "badugi_hand_end":
            self.set_score(seat, msg["score"])
            winner = msg.get("winner")
            pot = int(msg["pot"])
            if msg.get("ended_by") == "fold" and winner in ("A", "B"):
                self.outcome = f"{'AB'[1 - 'AB'.index(winner)]} folds: {winner} wins the pot of {pot}"
            elif winner in ("A", "B"):
                w = "AB".index(winner)
                self.outcome = f"Showdown: {winner}'s {self.best[w]} beats {self.best[1 - w]}; {winner} wins {pot}"
            else:
                self.outcome = f"Showdown: equal hands ({self.best[0]}), the pot of {pot} is split"
            if seat == min(self.seen):
                a, b = (num(x or 0) for x in self.score)
                self.say(f"{self.outcome}. Chips won: A {a}, B {b}")

    def _deal(self, seat: int, msg: Mapping[str, Any]) -> None:
        if int(msg["hand"]) != self.hand:
            self.hand = int(msg["hand"])
            self.cards, self.marks, self.best, self.discarded = [None, None], [{}, {}], ["", ""], [[], []]
            self.actions, self.drawn, self.status = [[], []], ["", ""], ["", ""]
            self.round, self.draw, self.outcome = 1, 0, ""
            self.say(f"Hand {self.hand} of {msg['hands']}: {msg['button']} has the button")
        self.hands_total = int(msg["hands"])
        self.button = "AB".index(msg["button"])
        self.cards[seat] = list(msg["cards"])
        self.say(f"{'AB'[seat]} is dealt ", *(card_of(c) for c in msg["cards"]), f" ({named(msg['cards'])})")
        self.stakes[seat], self.stakes[1 - seat] = msg["blinds"]
        self.pot = sum(self.stakes)
        self.set_score(seat, msg["score"])

    def period(self) -> tuple[str, int] | None:
        return ("Hand", self.hand) if self.hand else None

    def info(self) -> list[tuple[str, str]]:
        if not self.hand:
            return []
        out = [("Hand", f"{self.hand} / {self.hands_total}")]
        if self.draw:
            out.append(("Draw", f"{self.draw} / {ROUNDS - 1}"))
        elif self.round:
            out.append(("Betting round", f"{self.round} / {ROUNDS}"))
        out.append(("Pot", str(self.pot)))
        return out

    def zones(self, seat: int) -> list[Zone]:
        cards = self.cards[seat]
        note = self.best[seat] or (named(cards) if cards else "")
        out = [zone("Cards", cards if cards is not None else unknown(HAND_SIZE), marks=self.marks[seat], note=note)]
        if self.discarded[seat]:
            out.append(zone("Discarded", self.discarded[seat], note=self.drawn[seat]))
        return out

    def stats(self, seat: int) -> list[tuple[str, str]]:
        score = self.score[seat]
        out = [("chips won", f"{score:+g}" if score is not None else "0"), ("in the pot", str(self.stakes[seat]))]
        if self.hand:
            out.append(("button" if seat == self.button else "big blind", "●" if seat == self.button else "○"))
        return out

    @classmethod
    def card(cls, face: str) -> CardLook:
        if len(face) == 2 and face[1] in FOUR_COLOURS:
            sym, colour = FOUR_COLOURS[face[1]]
            name = f"{RANK_NAMES.get(face[0], face[0])} of {SUIT_NAMES[face[1]]}"
            return {"sym": sym, "rank": face[0], "c": colour, "name": name}
        return super().card(face)
