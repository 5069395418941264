"""The games: pure rules modules behind one interface (:class:`Game`).

``GAMES`` maps a game's id to its class, built-in games and plugins alike
(:mod:`arena.games._registry` says where they come from and how a package
declares one); :func:`get_game` builds one with parameters checked. Importing
this package imports no game: each is loaded when first asked for.

* :mod:`~arena.games._base`: the interface every game implements;
* :mod:`~arena.games._registry`: where games come from (Arena's five, entry
  points, ``--game-module`` files);
* :mod:`~arena.games._rng`: the seeded random number generator every game uses;
* :mod:`~arena.games._view`: how a game's table looks, drawn from what its seats were told;
* :mod:`~arena.games._choices`: the answers a request allows, listed for a person to pick from;
* each game, its rules and its table: :mod:`~arena.games.rps_poker` and
  :mod:`~arena.games.rps_poker_view`, :mod:`~arena.games.gops` and
  :mod:`~arena.games.gops_view`, :mod:`~arena.games.badugi` and
  :mod:`~arena.games.badugi_view`, :mod:`~arena.games.card_jitsu` and
  :mod:`~arena.games.card_jitsu_view`, :mod:`~arena.games.six_card_poker` and
  :mod:`~arena.games.six_card_poker_view`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._base import (
    Game,
    IllegalAction,
    MatchState,
    Param,
    ParamError,
    Secret,
    Shown,
    ShownValue,
    Step,
    TextProtocol,
    broken_total,
    forfeit_result,
    points_result,
    seat_name,
    smallest,
)
from ._choices import Choice, choices, question
from ._registry import BUILTIN, BUILTIN_GAMES, GAMES, Origin, provide
from ._rng import Rng, derive_seed
from ._view import HIDDEN, TableView, Zone, generic_table, score_text


def view_for(game_id: str) -> type[TableView] | None:
    """The table view of ``game_id`` (``badugi`` or ``badugi/1``), or ``None`` for a game without one."""
    cls = GAMES.get(game_id.partition("/")[0])
    return None if cls is None else cls.table_view()


def get_game(game_id: str, params: Mapping[str, object] | None = None) -> Game:
    """The game named ``game_id`` (``rps-poker`` or ``rps-poker/1``) with ``params``."""
    name, _, version = game_id.partition("/")
    cls = GAMES.lookup(name)
    if version and version != str(cls.version):
        raise ParamError(f"{name} rules version {version} is not available (this arena has {cls.version})")
    return cls(params)


def origin_of(game_id: str) -> Origin:
    """Where the game ``game_id`` comes from (built-in, a package, a file); what a worker needs to have it."""
    return GAMES.origin(game_id)


def load_game_module(path: str) -> list[str]:
    """Register the games defined in the Python file ``path`` (``--game-module``); their ids."""
    return GAMES.load_file(path)


__all__ = [
    "BUILTIN",
    "BUILTIN_GAMES",
    "GAMES",
    "HIDDEN",
    "Choice",
    "Game",
    "IllegalAction",
    "MatchState",
    "Origin",
    "Param",
    "ParamError",
    "Rng",
    "Secret",
    "Shown",
    "ShownValue",
    "Step",
    "TableView",
    "TextProtocol",
    "Zone",
    "broken_total",
    "choices",
    "derive_seed",
    "forfeit_result",
    "generic_table",
    "get_game",
    "load_game_module",
    "origin_of",
    "points_result",
    "provide",
    "question",
    "score_text",
    "seat_name",
    "smallest",
    "view_for",
]
