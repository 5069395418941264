"""How a Six-card poker table looks: each hand of six, the High/Middle/Low lines once set, and who took each.

Its words: a *deal* is one round (six cards to each seat); a seat's six cards are its *hand*; the hand is set
into three *lines* (High of three cards, Middle of two, Low of one), and the seat that takes more lines wins the
deal. (The wire's ``hands_won`` counts lines.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ._view import CardLook, TableView, Zone, card_of, num, unknown, zone
from .six_card_poker import COMPARE, HAND_SIZE, HANDS

COLOURS = {"1": "blue", "2": "green", "3": "orange", "4": "red"}
LINE_NAMES = {"high": "High line", "middle": "Middle line", "low": "Low line"}


class SixCardPokerView(TableView):
    """Each seat's six cards; its split into High 3, Middle 2, Low 1 (the opponent's shown at the showdown)."""

    game: ClassVar[str] = "six-card-poker"
    points_name: ClassVar[str] = "deals won"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deal = 0
        self.hands: list[list[int] | None] = [None, None]
        self.splits: list[dict[str, list[int]] | None] = [None, None]
        self.line_results: dict[str, int] = {}
        """Per line, 1 when A took it, -1 when B did, 0 for a tie (known at the showdown)."""

    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "poker_set":
            return
        if int(msg["deal"]) != self.deal:
            self.deal = int(msg["deal"])
            self.hands, self.splits, self.line_results = [None, None], [None, None], {}
            self.status, self.outcome = ["", ""], ""
            self.say(f"Deal {self.deal} of {int(self.params.get('deals', 100))}")
        self.hands[seat] = list(msg["hand"])
        self.set_score(seat, msg["score"])

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        hand = list(request["hand"])
        split = {name: sorted((hand[i] for i in action[name]), reverse=True) for name, _ in HANDS}
        self.splits[seat] = split
        self.status[seat] = "sets " + self._show(split)
        self._said_split(seat, split)

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "poker_showdown":
            return
        mine = {name: list(msg["your_split"][name]) for name, _ in HANDS}
        theirs = {name: list(msg["opponent_split"][name]) for name, _ in HANDS}
        if self.line_results:
            return  # (the other seat's copy of the same showdown)
        self.splits[seat], self.splits[1 - seat] = mine, theirs
        if 1 - seat not in self.seen:
            self._said_split(1 - seat, theirs)
        a, b = (mine, theirs) if seat == 0 else (theirs, mine)
        self.line_results = {name: COMPARE[name](a[name], b[name]) for name, _ in HANDS}
        self.status = ["sets " + self._show(a), "sets " + self._show(b)]
        self.set_score(seat, msg["score"])
        won = msg["hands_won"] if seat == 0 else list(reversed(msg["hands_won"]))
        winner = msg.get("winner")
        verdict = f"{winner} wins the deal" if winner in ("A", "B") else "the deal is drawn"
        self.outcome = f"Lines taken {num(won[0])} to {num(won[1])}: {verdict}"
        self.say(f"{self.outcome}; deals won {num(self.score[0])} and {num(self.score[1])}")

    def _said_split(self, seat: int, split: Mapping[str, list[int]]) -> None:
        parts: list[str | dict[str, str]] = [f"{'AB'[seat]} sets"]
        for k, (name, _) in enumerate(HANDS):
            parts += [f"{'; ' if k else ' '}{name} ", *(card_of(str(c)) for c in split[name])]
        self.say(*parts)

    @staticmethod
    def _show(split: Mapping[str, list[int]]) -> str:
        return " / ".join("".join(map(str, split[name])) for name, _ in HANDS)

    def period(self) -> tuple[str, int] | None:
        return ("Deal", self.deal) if self.deal else None

    def info(self) -> list[tuple[str, str]]:
        if not self.deal:
            return []
        return [("Deal", f"{self.deal} / {int(self.params.get('deals', 100))}")]

    def zones(self, seat: int) -> list[Zone]:
        hand = self.hands[seat]
        split = self.splits[seat]
        if hand is None and split is not None:
            hand = sorted(c for name, _ in HANDS for c in split[name])
        out = [zone("Hand", [str(c) for c in hand] if hand is not None else unknown(HAND_SIZE))]
        for name, size in HANDS:
            cards = [str(c) for c in split[name]] if split is not None else unknown(size if hand is None else 0)
            result = self.line_results.get(name)
            note = ""
            if result is not None:
                mine = result if seat == 0 else -result
                note = "wins" if mine > 0 else "loses" if mine < 0 else "ties"
            marks = {i: "won" for i in range(len(cards))} if note == "wins" else None
            out.append(zone(LINE_NAMES.get(name, name.capitalize()), cards, marks=marks, note=note))
        return out

    @classmethod
    def card(cls, face: str) -> CardLook:
        if face in COLOURS:
            return {"sym": "", "rank": face, "c": COLOURS[face], "name": f"card {face}"}
        return super().card(face)
