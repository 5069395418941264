"""The games: pure rules modules behind one interface (:class:`Game`).

``GAMES`` maps a game's id to its class; :func:`get_game` builds one with
parameters checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._base import Game, IllegalAction, MatchState, Param, ParamError, Step
from ._rng import Rng, derive_seed
from ._view import TableView, score_text
from .badugi import Badugi
from .badugi_view import BadugiView
from .card_jitsu import CardJitsu
from .card_jitsu_view import CardJitsuView
from .gops import Gops
from .gops_view import GopsView
from .rps_poker import RpsPoker
from .rps_poker_view import RpsPokerView
from .six_card_poker import SixCardPoker
from .six_card_poker_view import SixCardPokerView

GAMES: dict[str, type[Game]] = {cls.id: cls for cls in (RpsPoker, Gops, CardJitsu, SixCardPoker, Badugi)}
VIEWS: dict[str, type[TableView]] = {
    cls.game: cls for cls in (RpsPokerView, GopsView, CardJitsuView, SixCardPokerView, BadugiView)
}
"""Each game's table view (``arena.games._view``), by game id."""


def view_for(game_id: str) -> type[TableView] | None:
    """The table view of ``game_id`` (``badugi`` or ``badugi/1``), or ``None`` for a game without one."""
    return VIEWS.get(game_id.partition("/")[0])


def get_game(game_id: str, params: Mapping[str, object] | None = None) -> Game:
    """The game named ``game_id`` (``rps-poker`` or ``rps-poker/1``) with ``params``."""
    name, _, version = game_id.partition("/")
    cls = GAMES.get(name)
    if cls is None:
        raise ParamError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}")
    if version and version != str(cls.version):
        raise ParamError(f"{name} rules version {version} is not available (this arena has {cls.version})")
    return cls(params)


__all__ = [
    "GAMES",
    "VIEWS",
    "Game",
    "IllegalAction",
    "MatchState",
    "Param",
    "ParamError",
    "Rng",
    "Step",
    "TableView",
    "derive_seed",
    "get_game",
    "score_text",
    "view_for",
]
