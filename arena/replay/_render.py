"""How a game's messages look: card faces, colours, and readable fields.

A renderer turns messages and actions into *segments* that both viewers
draw: ``{"t": text}``, ``{"t": text, "k": 1}`` (a field's name), or a card
``{"face": "R3", "sym": "rock", "rank": "3", "c": "red"}`` (``sym``: a suit
symbol, or a word where a symbol would need an emoji font). The default
renderer shows any game's messages field by field and draws strings that
look like playing cards (``QH``, ``10s``, ``7♣``) as cards; a game can
register a renderer that knows its own cards (:func:`register_renderer`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

from ..games import score_text

Seg = dict[str, Any]

COLOURS = ("red", "blue", "green", "black", "purple", "orange", "yellow")
"""Colour names a card may have; each viewer maps them to its own palette."""

_PLAYING_CARD = re.compile(r"^(10|[2-9TJQKA])([SHDCshdc♠♥♦♣])$")
_SUITS = {"s": ("♠", "black"), "h": ("♥", "red"), "d": ("♦", "red"), "c": ("♣", "black")}
_SUITS.update({"♠": _SUITS["s"], "♥": _SUITS["h"], "♦": _SUITS["d"], "♣": _SUITS["c"]})


def text(value: str, *, key: bool = False) -> Seg:
    """A plain text segment (``key``: a field's name, drawn dim)."""
    return {"t": value, "k": 1} if key else {"t": value}


def plain(segments: list[Seg]) -> str:
    """Segments as plain text (cards by their face)."""
    return "".join(str(s.get("face", s.get("t", ""))) for s in segments)


class Renderer:
    """Draws any game's messages; subclasses know a game's cards."""

    games: ClassVar[tuple[str, ...]] = ()

    def card(self, value: str) -> Seg | None:
        """``value`` as a card segment, or ``None`` when it is not a card."""
        match = _PLAYING_CARD.match(value)
        if match is None:
            return None
        rank, suit = match.groups()
        sym, colour = _SUITS[suit.lower() if suit.isascii() else suit]
        return {"face": value, "sym": sym, "rank": rank.upper(), "c": colour}

    def value(self, value: Any, key: str = "") -> list[Seg]:
        """One field's value: cards drawn, lists spaced, scores as ``1 : 0``."""
        if isinstance(value, str):
            card = self.card(value)
            return [card] if card is not None else [text(value)]
        if isinstance(value, list):
            if key == "score" and len(value) == 2 and all(isinstance(v, int | float) for v in value):
                return [text(score_text(value[0], value[1]))]
            if value and all(isinstance(v, str) and self.card(v) for v in value):
                out: list[Seg] = []
                for item in value:
                    out += self.value(item)
                return out
        if isinstance(value, float):
            return [text(number(value))]
        return [text(json.dumps(value, separators=(",", ":"), ensure_ascii=False))]

    def message(self, msg: dict[str, Any]) -> list[Seg]:
        """A message: its type, then each field but the request id."""
        out: list[Seg] = [text(str(msg.get("type", "?")))]
        for key, value in msg.items():
            if key in ("type", "id"):
                continue
            if msg.get("type") in ("match_start", "match_end") and key in ("limits", "match_id", "params", "seat"):
                continue
            out += [text(f" {key} ", key=True), *self.value(value, key)]
        return out

    def action(self, request: dict[str, Any] | None, action: Any) -> list[Seg]:
        """An answer; an index into the request's only list of cards also shows the card."""
        out = [text(json.dumps(action, separators=(",", ":"), ensure_ascii=False))]
        if request is None or not isinstance(action, int) or isinstance(action, bool):
            return out
        lists = {k: v for k, v in request.items() if isinstance(v, list) and k != "score"}
        for name in ("hand", "cards", "options"):
            if name in lists:
                lists = {name: lists[name]}
        if len(lists) == 1 and 0 <= action < len(chosen_from := next(iter(lists.values()))):
            chosen = chosen_from[action]
            # A list of numbers is a list of values (GOPS's hand): an action
            # there is a value, and "1 = 2" would misread a bid of 1.
            if not isinstance(chosen, int | float):
                out += [text(" = "), *self.value(chosen)]
        return out

    def result(
        self, result: dict[str, Any], names: tuple[str, str], *, score: Callable[[Any, Any], str] = score_text
    ) -> list[Seg]:
        """The match's result in words (``score`` writes the two seats' points: ``434 : -434`` by default)."""
        winner = result.get("winner")
        verdict = f"{winner} ({names['AB'.index(winner)]}) wins" if winner in ("A", "B") else "draw"
        if winner is None and result.get("forfeit"):
            verdict = "no winner"
        out = [text(f"{names[0]} {score(*result.get('points', [0, 0]))} {names[1]}: {verdict}")]
        if result.get("reason"):
            out.append(text(f" ({result['reason']})"))
        return out


class RpsPokerRenderer(Renderer):
    """RPS Poker's cards: rock, paper or scissors and a number, each symbol its colour."""

    games = ("rps-poker",)
    SYMBOLS: ClassVar[dict[str, tuple[str, str]]] = {
        "R": ("rock", "red"),
        "P": ("paper", "blue"),
        "S": ("scissors", "green"),
    }

    def card(self, value: str) -> Seg | None:
        if len(value) == 2 and value[0] in self.SYMBOLS and value[1].isdigit():
            sym, colour = self.SYMBOLS[value[0]]
            return {"face": value, "sym": sym, "rank": value[1], "c": colour}
        return None


class CardJitsuRenderer(Renderer):
    """Card-Jitsu's cards: element (fire, water, snow), colour and value, such as ``FR7``."""

    games = ("card-jitsu",)
    ELEMENTS: ClassVar[dict[str, str]] = {"F": "fire", "W": "water", "S": "snow"}
    COLOURS: ClassVar[dict[str, str]] = {
        "R": "red",
        "B": "blue",
        "G": "green",
        "Y": "yellow",
        "O": "orange",
        "P": "purple",
    }
    _CARD = re.compile(r"^([FWS])([RBGYOP])(\d{1,2})$")

    def card(self, value: str) -> Seg | None:
        match = self._CARD.match(value)
        if match is None:
            return None
        element, colour, number = match.groups()
        return {"face": value, "sym": self.ELEMENTS[element], "rank": number, "c": self.COLOURS[colour]}


_RENDERERS: dict[str, Renderer] = {}


def register_renderer(renderer: Renderer) -> None:
    """Use ``renderer`` for the games it names (``games``, ids without version)."""
    for game in renderer.games:
        _RENDERERS[game] = renderer


def renderer_for(game: str) -> Renderer:
    """The renderer of ``game`` (``rps-poker/1`` or ``rps-poker``); the default one otherwise."""
    return _RENDERERS.get(game.partition("/")[0], Renderer())


def number(value: Any) -> str:
    """A number as people write it: ``3``, ``2.5``, ``-4``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


register_renderer(RpsPokerRenderer())
register_renderer(CardJitsuRenderer())
