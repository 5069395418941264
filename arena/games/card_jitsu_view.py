"""How a Card-Jitsu table looks: both hands, the cards played, and each seat's won cards by element."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ._view import CardLook, TableView, Zone, card_of, unknown, zone
from .card_jitsu import COLOURS, ELEMENT_NAMES, ELEMENTS, HAND_SIZE, colour, element, round_reason

COLOUR_NAMES = dict(zip(COLOURS, ("yellow", "orange", "red", "blue", "green", "purple"), strict=True))


class CardJitsuView(TableView):
    """Hands, played cards, and won piles grouped by element (a set: three colours, one element or all three)."""

    game: ClassVar[str] = "card-jitsu"
    points_name: ClassVar[str] = "games won"
    result_is_score: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.round = 0
        self.hands: list[list[str] | None] = [None, None]
        self.played_at: list[int | None] = [None, None]
        self.played = ["", ""]
        self.piles: list[list[str]] = [[], []]
        self.winning_set: list[str] = []
        self.set_winner: int | None = None

    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "jitsu_play":
            return
        if int(msg["round"]) != self.round:
            self.say(f"Round {msg['round']}")
        self.round = int(msg["round"])
        self.hands[seat] = list(msg["hand"])
        self.piles[seat], self.piles[1 - seat] = list(msg["your_pile"]), list(msg["opponent_pile"])
        self.played_at[seat], self.played = None, ["", ""]
        self.status = ["", ""]
        self.outcome = ""

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        hand = self.hands[seat] or []
        self.played_at[seat] = action
        self.played[seat] = hand[action]
        self.status[seat] = f"plays {hand[action]}"
        self.say(f"{'AB'[seat]} plays ", card_of(hand[action]))

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") != "jitsu_result" or self.outcome:
            return  # (both seats are told the same result)
        self.played[seat], self.played[1 - seat] = str(msg["your_card"]), str(msg["opponent_card"])
        self.status = [f"plays {self.played[0]}", f"plays {self.played[1]}"]
        winner = msg.get("winner")
        if 1 - seat not in self.seen:
            self.say(f"{'AB'[1 - seat]} plays ", card_of(self.played[1 - seat]))
        why = round_reason(self.played[0], self.played[1])
        if winner in ("A", "B"):
            index = "AB".index(winner)
            self.piles[index].append(self.played[index])
            self.outcome = f"{winner} wins round {msg['round']} ({why})"
        else:
            self.outcome = f"Round {msg['round']} is a tie ({why})"
        self.say(self.outcome + f"; cards won {len(self.piles[0])} and {len(self.piles[1])}")
        if msg.get("winning_set"):
            self.winning_set = list(msg["winning_set"])
            self.set_winner = "AB".index(winner) if winner in ("A", "B") else None
            self.outcome += f"; {winner} completes a set: {' '.join(self.winning_set)}"
            self.say(f"{winner} completes a set: ", *(card_of(c) for c in self.winning_set))

    def period(self) -> tuple[str, int] | None:
        return ("Round", self.round) if self.round else None

    def running(self) -> list[float] | None:
        """Cards won (a race to a set keeps no points: the cards won tell who is closer)."""
        return [float(len(self.piles[0])), float(len(self.piles[1]))] if self.round else None

    def info(self) -> list[tuple[str, str]]:
        return [("Round", str(self.round))] if self.round else []

    def zones(self, seat: int) -> list[Zone]:
        hand = self.hands[seat]
        played = self.played_at[seat]
        out = [
            zone("Hand", hand, marks={played: "played"} if played is not None else None)
            if hand is not None
            else zone("Hand", unknown(HAND_SIZE)),
            zone("Played", [self.played[seat]] if self.played[seat] else []),
        ]
        pile = self.piles[seat]
        in_set = set(self.winning_set) if self.set_winner == seat else set()
        for letter in ELEMENTS:
            cards = sorted((c for c in pile if element(c) == letter), key=lambda c: (COLOURS.index(colour(c)), c))
            colours = len({colour(c) for c in cards})
            marks = {i: "best" for i, c in enumerate(cards) if c in in_set}
            note = f"{colours} colour" + ("" if colours == 1 else "s")
            out.append(zone(f"Won: {ELEMENT_NAMES[letter]}", cards, marks=marks, note=note))
        return out

    def stats(self, seat: int) -> list[tuple[str, str]]:
        return [("cards won", str(len(self.piles[seat])))]

    @classmethod
    def card(cls, face: str) -> CardLook:
        if len(face) >= 3 and face[0] in ELEMENTS and face[1] in COLOURS and face[2:].isdigit():
            # The colour is part of the card (a set needs three): the card is filled with it and names it,
            # as red and orange ranks alone could not be told apart.
            element_name, colour_name = ELEMENT_NAMES[face[0]], COLOUR_NAMES[face[1]]
            return {
                "sym": element_name,
                "rank": face[2:],
                "c": colour_name,
                "name": f"{element_name} {face[2:]}, {colour_name}",
                "fill": "1",
                "sub": colour_name,
            }
        return super().card(face)
