"""What a game's author needs besides :mod:`arena.games`: results, and the conformance kit.

A game module imports its interface from :mod:`arena.games` (``Game``,
``MatchState``, ``Param``, ``Rng``, ``Shown``...) and its results from here::

    from arena.game_kit import forfeit_result, points_result

and a game's own tests may run the kit (``arena check-game``) in-process::

    from arena.game_kit import Sizes, check_game

    checks = check_game(MyGame(), Sizes(matches=200))
    assert all(check.passed is not False for check in checks), [str(c) for c in checks]

docs/game-authors.md is the guide; docs/game-kit.md says what each check proves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .games import Secret, ShownValue, forfeit_result, points_result, seat_name

if TYPE_CHECKING:
    from .checks.game import Sizes, check_game
    from .checks.outcome import Check

_KIT = {"Check": "arena.checks.outcome", "Sizes": "arena.checks.game", "check_game": "arena.checks.game"}
"""Names imported when first asked for: the kit imports much that a game module never needs."""


def __getattr__(name: str) -> Any:
    module = _KIT.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.game_kit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = ["Check", "Secret", "ShownValue", "Sizes", "check_game", "forfeit_result", "points_result", "seat_name"]
