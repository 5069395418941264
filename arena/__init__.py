"""Arena: a sandboxed referee for two-player card-game bots in any language.

The public surface:

* :func:`arena.games.get_game` and the games in :mod:`arena.games`;
* :func:`resolve` a bot named as a folder, executable or command line;
* :func:`play_match` to run one match between two bots (inside ``trio.run``);
* the error tree (:class:`ArenaError` and its children).
"""

__version__ = "0.1.0"

from ._errors import (
    ArenaError,
    BotFault,
    BuildError,
    ConfigError,
    Crash,
    IllegalMove,
    InvalidJson,
    OutputLimit,
    ProtocolViolation,
    StoreError,
    Timeout,
)
from .bots.spec import BotSpec, resolve
from .supervisor.match import Fault, MatchRecord
from .supervisor.play import play_match

__all__ = [
    "ArenaError",
    "BotFault",
    "BotSpec",
    "BuildError",
    "ConfigError",
    "Crash",
    "Fault",
    "IllegalMove",
    "InvalidJson",
    "MatchRecord",
    "OutputLimit",
    "ProtocolViolation",
    "StoreError",
    "Timeout",
    "__version__",
    "play_match",
    "resolve",
]
