"""High card: the smallest game worth watching, written as a plugin (docs/game-authors.md walks through it).

Each seat is dealt ``cards`` distinct cards from 1..``top``; each turn both
play a card at once, the higher takes a point, and the played cards go on a
pile both seats see. It has no view of its own: its replays draw the generic
table from :meth:`HighCardMatch.shown`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.game_kit import forfeit_result, points_result
from arena.games import Game, IllegalAction, MatchState, Param, Rng, Shown, Step, TextProtocol
from protocol import Message, Notice, Request, Result


class HighCardPlay(Request, tag="high_card_play", kw_only=True):
    """Play one card of your hand; answer its value."""

    turn: int
    hand: list[int]
    score: list[int]
    """Your points and the opponent's so far."""


class HighCardResult(Notice, tag="high_card_result", kw_only=True):
    """Both cards of the turn, shown."""

    turn: int
    your_card: int
    opponent_card: int
    score: list[int]


class HighCardText(TextProtocol):
    """Plain lines, as a paper referee would say them: ``hand 4 5 7`` when a card is wanted; a bot answers ``7``."""

    name: ClassVar[str] = "high-card-text"

    def line(self, message: Message) -> str | None:
        if isinstance(message, HighCardPlay):
            return "hand " + " ".join(map(str, message.hand))
        return None  # a text bot is told nothing else: it keeps its own count

    def action(self, line: bytes, request: Request) -> int:
        words = line.split()
        if not words or not words[0].isdigit() or len(words[0]) > 3:
            raise ValueError(f"expected a card, such as 7, not {line[:40].decode('utf-8', 'replace')!r}")
        return int(words[0])


class HighCardMatch(MatchState):
    """One match: ``cards`` turns of simultaneous plays."""

    def __init__(self, seed: int, cards: int, top: int) -> None:
        deck = list(range(1, top + 1))
        Rng(seed).shuffle(deck)
        self.hands = [sorted(deck[:cards]), sorted(deck[cards : 2 * cards])]
        self.points = [0, 0]
        self.pile: list[int] = []
        self.turn = 1
        self.cards = cards

    @property
    def is_over(self) -> bool:
        return self.turn > self.cards

    def requests(self) -> dict[int, Any]:
        return {
            s: HighCardPlay(turn=self.turn, hand=list(self.hands[s]), score=[self.points[s], self.points[1 - s]])
            for s in (0, 1)
        }

    def legal_actions(self, seat: int) -> list[Any]:
        return list(self.hands[seat])

    def check(self, seat: int, action: Any) -> int:
        if type(action) is not int or action not in self.hands[seat]:
            raise IllegalAction(f"{action!r} is not a card in your hand {self.hands[seat]}")
        return action

    def apply(self, actions: Mapping[int, Any]) -> Step:
        played = [actions[0], actions[1]]
        if played[0] != played[1]:
            self.points[0 if played[0] > played[1] else 1] += 1
        step = Step()
        for s in (0, 1):
            self.hands[s].remove(played[s])
            result = HighCardResult(
                turn=self.turn,
                your_card=played[s],
                opponent_card=played[1 - s],
                score=[self.points[s], self.points[1 - s]],
            )
            step.notices.append((s, result))
        self.pile += played
        step.narration.append(f"Turn {self.turn}: A plays {played[0]}, B plays {played[1]}")
        self.turn += 1
        return step

    def shown(self) -> Shown:
        return Shown(
            public={"turns played": self.turn - 1, "pile": list(self.pile)},
            seats=({"points": self.points[0], "cards held": len(self.hands[0])},
                   {"points": self.points[1], "cards held": len(self.hands[1])}),
            private=({"hand": list(self.hands[0])}, {"hand": list(self.hands[1])}),
        )  # fmt: skip

    def result(self) -> Result:
        return points_result([float(p) for p in self.points])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = [float(p) for p in self.points]
        if len(offenders) == 1:
            points[1 - next(iter(offenders))] += len(self.hands[0])
        return forfeit_result(points, offenders, reason)


class HighCard(Game):
    """High card: play your cards at once; the higher card takes the turn."""

    id: ClassVar[str] = "high-card"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "High card"
    summary: ClassVar[str] = "Both play a card at once; the higher takes a point."
    params_table = (
        Param("cards", 3, "cards dealt to each seat (and turns played)", minimum=1, maximum=4),
        Param("top", 9, "the highest card of the deck", minimum=8, maximum=20),
    )
    messages: ClassVar[tuple[type[Message], ...]] = (HighCardPlay, HighCardResult)
    text_protocols: ClassVar[tuple[type[TextProtocol], ...]] = (HighCardText,)

    def new_match(self, seed: int) -> HighCardMatch:
        return HighCardMatch(seed, int(self.params["cards"]), int(self.params["top"]))

    def max_requests(self) -> int:
        return int(self.params["cards"])
