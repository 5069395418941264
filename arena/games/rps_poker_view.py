"""How an RPS Poker table looks: the draft as it goes, both hands, the base card, the cards played."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ._view import CardLook, TableView, Zone, card_of, num, unknown, zone
from .rps_poker import BEATS, DRAFT_ROUNDS, HAND_SIZE, TURNS

LOOKS = {"R": ("rock", "red"), "P": ("paper", "blue"), "S": ("scissors", "green")}
SYMBOL_NAMES = {"R": "rock", "P": "paper", "S": "scissors"}


def why_turn(card_a: str, card_b: str, base: str) -> str:
    """Why a turn went as it did, in words: ``a pair with the base``, ``7 beats 4``, ``rock beats scissors``."""
    pair_a, pair_b = card_a[1] == base[1], card_b[1] == base[1]
    if pair_a != pair_b:
        return f"a pair with the base's {base[1]}"
    if card_a[1] != card_b[1]:
        high, low = sorted((card_a[1], card_b[1]), reverse=True)
        return f"{high} beats {low}"
    win, lose = (card_a[0], card_b[0]) if BEATS[card_a[0]] == card_b[0] else (card_b[0], card_a[0])
    return f"same number: {SYMBOL_NAMES[win]} beats {SYMBOL_NAMES[lose]}"


class RpsPokerView(TableView):
    """The draft (offers, kept cards, drafted decks), then turns against a base card."""

    game: ClassVar[str] = "rps-poker"
    points_name: ClassVar[str] = "turns won"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.draft_round = 0
        self.turn = 0
        self.base = ""
        self.offered: list[list[str]] = [[], []]
        self.kept: list[int | None] = [None, None]
        self.drafted: list[list[str]] = [[], []]
        self.hands: list[list[str] | None] = [None, None]
        self.played: list[str] = ["", ""]
        self.played_at: list[int | None] = [None, None]
        self.seen_in_hand: list[set[str]] = [set(), set()]
        self.won: list[list[str]] = [[], []]
        self.received: list[str] = ["", ""]
        self.passed: list[list[str]] = [[], []]
        """Cards each seat gave away in the draft (its own view knows them: they were offered to it)."""

    def asked(self, seat: int, msg: Mapping[str, Any]) -> None:
        if msg.get("type") == "draft_pick":
            if int(msg["round"]) != self.draft_round:
                self.say(f"Draft round {msg['round']} of {DRAFT_ROUNDS}")
            self.draft_round = int(msg["round"])
            self.offered[seat] = list(msg["cards"])
            self.kept[seat], self.received[seat] = None, ""
        elif msg.get("type") == "main_play":
            if int(msg["turn"]) != self.turn:
                self.say(f"Turn {msg['turn']} of {TURNS}: the base card is ", card_of(str(msg["base"])))
            self.turn, self.base = int(msg["turn"]), str(msg["base"])
            self.hands[seat] = list(msg["hand"])
            self.seen_in_hand[seat].update(msg["hand"])
            self.played_at[seat], self.played[seat] = None, ""
            self.set_score(seat, msg["score"])
        self.outcome = ""
        self.status[seat] = ""

    def answered(self, seat: int, request: Mapping[str, Any], action: Any) -> None:
        if request.get("type") == "draft_pick":
            self.kept[seat] = action
            card = self.offered[seat][action]
            self.drafted[seat].append(card)
            self.passed[seat] += [c for i, c in enumerate(self.offered[seat]) if i != action]
            self.status[seat] = f"keeps {card}"
            self.outcome = self._draft_outcome()
            gives = [card_of(c) for i, c in enumerate(self.offered[seat]) if i != action]
            self.say(f"{'AB'[seat]} keeps ", card_of(card), " and passes ", *gives)
        elif request.get("type") == "main_play":
            hand = self.hands[seat] or []
            self.played_at[seat] = action
            self.played[seat] = hand[action]
            self.status[seat] = f"plays {hand[action]}"
            self.say(f"{'AB'[seat]} plays ", card_of(hand[action]))

    def told(self, seat: int, msg: Mapping[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "draft_receive":
            self.drafted[seat].append(str(msg["card"]))
            self.received[seat] = str(msg["card"])
            self.outcome = self._draft_outcome()
            if 1 - seat not in self.seen:  # (the view that saw the other seat pass it has said so)
                self.say(f"{'AB'[seat]} receives ", card_of(str(msg["card"])))
        elif kind == "main_result":
            mine, theirs = str(msg["your_card"]), str(msg["opponent_card"])
            self.played[seat], self.played[1 - seat] = mine, theirs
            self.status[seat], self.status[1 - seat] = f"plays {mine}", f"plays {theirs}"
            self.set_score(seat, msg["score"])
            winner = "AB".index(msg["winner"])
            card = self.played[winner]
            if card in self.won[winner]:
                return  # (the other seat's copy of the same result)
            self.won[winner].append(card)
            a, b = self.played
            why = why_turn(a, b, str(msg["base"]))
            self.outcome = f"{'AB'[winner]} wins turn {msg['turn']} ({why})"
            if 1 - seat not in self.seen:
                self.say(f"{'AB'[1 - seat]} plays ", card_of(theirs))
            self.say(f"{'AB'[winner]} wins turn {msg['turn']}: ", card_of(card), f", {why}")

    def _draft_outcome(self) -> str:
        said = []
        for seat in sorted(self.seen):
            kept = self.kept[seat]
            parts = [f"keeps {self.offered[seat][kept]}"] if kept is not None else []
            if self.received[seat]:
                parts.append(f"receives {self.received[seat]}")
            if parts:
                said.append(f"{'AB'[seat]} {' and '.join(parts)}")
        done = "; the draft is over" if self.draft_round == DRAFT_ROUNDS and all(self.received) else ""
        return "; ".join(said) + done

    def period(self) -> tuple[str, int] | None:
        if self.turn:
            return ("Turn", self.turn)
        return ("Draft round", self.draft_round) if self.draft_round else None

    # Drawing --------------------------------------------------------------
    def info(self) -> list[tuple[str, str]]:
        if self.turn:
            return [("Turn", f"{self.turn} / {TURNS}")]
        if self.draft_round:
            return [("Draft round", f"{self.draft_round} / {DRAFT_ROUNDS}")]
        return []

    def center(self) -> list[Zone]:
        return [zone("Base card", [self.base])] if self.base else []

    def zones(self, seat: int) -> list[Zone]:
        out: list[Zone] = []
        if not self.turn:
            if self.offered[seat] or self.draft_round:
                kept = self.kept[seat]
                offered = self.offered[seat] if self.knows(seat) else unknown(2)
                out.append(zone("Offered", offered, marks={kept: "played"} if kept is not None else None))
            out.append(zone("Drafted", self._drafted(seat)))
            return out
        hand = self.hands[seat]
        played = self.played_at[seat]
        if hand is not None:
            out.append(zone("Hand", hand, marks={played: "played"} if played is not None else None))
        else:
            out.append(zone("Hand", unknown(min(HAND_SIZE, TURNS - self.turn + 1))))
        out.append(zone("Played", [self.played[seat]] if self.played[seat] else []))
        if self.knows(seat):
            to_come = sorted(c for c in self.drafted[seat] if c not in self.seen_in_hand[seat])
            out.append(zone("Deck", to_come, note=f"{len(to_come)} to come"))
        out.append(zone("Turns won", self.won[seat]))
        return out

    def _drafted(self, seat: int) -> list[str]:
        """A seat's drafted cards; the other seat's view knows the ones it passed to it."""
        if self.knows(seat):
            return self.drafted[seat]
        passed = self.passed[1 - seat]
        # The seat kept one card a round (unknown here) and received the one passed to it.
        out: list[str] = []
        for k in range(len(self.drafted[1 - seat]) // 2):
            out.append("?")
            if k < len(passed):
                out.append(passed[k])
        return out

    def stats(self, seat: int) -> list[tuple[str, str]]:
        score = self.score[seat]
        return [("turns won", num(score if score is not None else len(self.won[seat])))]

    @classmethod
    def card(cls, face: str) -> CardLook:
        if len(face) == 2 and face[0] in LOOKS and face[1].isdigit():
            sym, colour = LOOKS[face[0]]
            return {"sym": sym, "rank": face[1], "c": colour, "name": f"{sym} {face[1]}"}
        return super().card(face)
