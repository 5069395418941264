"""Where the files shipped beside the code are: the sample bots, the starter bots and the games' rules.

In a checkout (and an editable install) they are ``sample_bots/``,
``starters/`` and ``docs/games/`` at the top of the repository. A wheel
(``pip install .``, as in the Docker image) carries them inside the package, as
``arena/sample_bots``, ``arena/starters`` and ``arena/rules`` (``pyproject.toml``
maps them), so ``arena check`` has its reference bots, ``arena new`` its
starters and ``arena games`` its rules wherever Arena is installed.
"""

from __future__ import annotations

from pathlib import Path

from ..games import BUILTIN, Game, origin_of

_PACKAGE = Path(__file__).resolve().parents[1]
_CHECKOUT = _PACKAGE.parent


def _shipped(in_package: str, in_checkout: str) -> Path:
    installed = _PACKAGE / in_package
    return installed if installed.is_dir() else _CHECKOUT / in_checkout


def sample_bots() -> Path:
    """The folder of sample bots, one folder per game (``sample_bots/rps-poker/...``)."""
    return _shipped("sample_bots", "sample_bots")


def starters() -> Path:
    """The folder of starter bots, one folder per language (``starters/python/...``)."""
    return _shipped("starters", "starters")


def samples_of(game: Game) -> Path | None:
    """The sample bots of ``game``: ``sample_bots/<id>`` for a built-in game, its package's ``bots/`` for a plugin."""
    if origin_of(game.id) == BUILTIN:
        return sample_bots() / game.id
    return game.bots_path()


def rules_file(game_id: str) -> Path:
    """The rules of the game ``game_id`` (``rps-poker``), in Markdown; it may be missing for a new game."""
    return _shipped("rules", "docs/games") / f"{game_id}.md"


__all__ = ["rules_file", "sample_bots", "samples_of", "starters"]
