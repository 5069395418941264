"""The games: pure rules modules behind one interface (:class:`Game`).

``GAMES`` maps a game's id to its class; :func:`get_game` builds one with
parameters checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._base import Game, IllegalAction, MatchState, Param, ParamError, Step
from ._rng import Rng, derive_seed
from .badugi import Badugi
from .card_jitsu import CardJitsu
from .gops import Gops
from .rps_poker import RpsPoker
from .six_card_poker import SixCardPoker

GAMES: dict[str, type[Game]] = {cls.id: cls for cls in (RpsPoker, Gops, CardJitsu, SixCardPoker, Badugi)}


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
    "Game",
    "IllegalAction",
    "MatchState",
    "Param",
    "ParamError",
    "Rng",
    "Step",
    "derive_seed",
    "get_game",
]
