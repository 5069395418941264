"""How a GOPS table looks: the prize card, both bids, both hands and the prizes each seat has won.

Cards are drawn as the 2007 quiz dealt them: prizes are diamonds, seat A
holds spades and seat B hearts (faces ``d7``, ``s7``, ``h7``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ._view import CardLook, TableView, Zone, card_of, num, zone

SUITS = ("s", "h")
"""The suit of each seat's cards (spades for A, hearts for B); prizes are diamonds."""
LOOKS = {"d": ("♦", "orange"), "s": ("♠", "blue"), "h": ("♥", "purple")}
SUIT_NAMES = {"d": "diamonds", "s": "spades", "h": "hearts"}


class GopsView(TableView):
    """The prize on the table, the bids, the hands left and the won piles (every card here is public)."""

    game: ClassVar[str] = "gops"
    points_name: ClassVar[str] = "prize sum"
    result_is_score: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cards = int(self.params.get("cards", 13))
        self.round = 0
        self.prize: int | None = None
        self.prizes_left: list[int] = []
        self.hands: list[list[int]] = [list(range(1, cards + 1)), list(range(1, cards + 1))]
        self.bids: list[int | None] = [None, None]
        self.won: list[list[int]] = [[], []]
        self.discarded: list[int] = []
        self.sums = [0, 0]

    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "gops_bid":
            return
        if int(msg["round"]) != self.round:
            self.say(f"Round {msg['round']}: the prize is ", card_of(f"d{msg['prize']}"))
        self.round, self.prize = int(msg["round"]), int(msg["prize"])
        self.prizes_left = list(msg["prizes_left"])
        self.hands[seat], self.hands[1 - seat] = list(msg["hand"]), list(msg["opponent_hand"])
        self.sums[seat], self.sums[1 - seat] = msg["score"]
        self.bids = [None, None]
        self.status = ["", ""]
        self.outcome = ""

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        self.bids[seat] = int(action)
        self.status[seat] = f"bids {action}"
        self.say(f"{'AB'[seat]} bids ", card_of(f"{SUITS[seat]}{action}"))

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "gops_result":
            return
        bids = [int(msg["your_bid"]), int(msg["opponent_bid"])]
        if seat == 1:
            bids.reverse()
        if self.bids == bids and self.outcome:
            return  # the other seat's copy of the same result
        self.bids = [bids[0], bids[1]]
        if 1 - seat not in self.seen:
            self.say(f"{'AB'[1 - seat]} bids ", card_of(f"{SUITS[1 - seat]}{bids[1 - seat]}"))
        self.status = [f"bids {bids[0]}", f"bids {bids[1]}"]
        self.sums[seat], self.sums[1 - seat] = msg["score"]
        prize = int(msg["prize"])
        winner = msg.get("winner")
        if winner in ("A", "B"):
            self.won["AB".index(winner)].append(prize)
            self.outcome = f"{winner} takes the {prize} with {max(bids)} against {min(bids)}"
        else:
            self.discarded.append(prize)
            self.outcome = f"Equal bids of {bids[0]}: the {prize} is discarded"
        self.say(f"{self.outcome}; prize sums {num(self.sums[0])} and {num(self.sums[1])}")

    def period(self) -> tuple[str, int] | None:
        return ("Round", self.round) if self.round else None

    def running(self) -> list[float] | None:
        return [float(self.sums[0]), float(self.sums[1])] if self.round else None

    def info(self) -> list[tuple[str, str]]:
        if not self.round:
            return []
        return [("Round", f"{self.round} / {int(self.params.get('cards', 13))}")]

    def center(self) -> list[Zone]:
        out = [zone("Prize", [f"d{self.prize}"] if self.prize is not None else [])]
        out.append(zone("Prizes to come", [f"d{p}" for p in self.prizes_left], note=f"worth {sum(self.prizes_left)}"))
        if self.discarded:
            out.append(zone("Discarded", [f"d{p}" for p in self.discarded]))
        return out

    def zones(self, seat: int) -> list[Zone]:
        suit = SUITS[seat]
        bid = self.bids[seat]
        hand = list(self.hands[seat])
        if bid is not None and bid not in hand:
            hand = sorted([*hand, bid])
        marks = {hand.index(bid): "played"} if bid is not None else None
        return [
            zone("Hand", [f"{suit}{v}" for v in hand], marks=marks),
            zone("Bid", [f"{suit}{bid}"] if bid is not None else []),
            zone("Prizes won", [f"d{p}" for p in self.won[seat]], note=f"sum {self.sums[seat]}"),
        ]

    def stats(self, seat: int) -> list[tuple[str, str]]:
        return [("prize sum", num(self.sums[seat]))]

    @classmethod
    def card(cls, face: str) -> CardLook:
        if face[:1] in LOOKS and face[1:].isdigit():
            sym, colour = LOOKS[face[0]]
            return {"sym": sym, "rank": face[1:], "c": colour, "name": f"{face[1:]} of {SUIT_NAMES[face[0]]}"}
        return super().card(face)
