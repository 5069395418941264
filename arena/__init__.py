"""Arena: a sandboxed referee for two-player card-game bots in any language.

The public surface:

* :func:`arena.games.get_game` and the games in :mod:`arena.games`;
* :func:`resolve` a bot named as a folder, executable or command line;
* :func:`play_match` to run one match between two bots (inside ``trio.run``);
* the error tree (:class:`ArenaError` and its children).

Its own modules: :mod:`~arena._errors` (the error tree), :mod:`~arena.cli`
(the ``arena`` command), :mod:`~arena.__main__` (``python -m arena``),
:mod:`~arena.game_kit` (what a game's author needs besides
:mod:`arena.games`) and :mod:`~arena._lazy` (a package's public names
imported on first use, so that a command imports only what it uses).
The packages, lowest layer first: :mod:`arena.games`, :mod:`arena.bots`,
:mod:`arena.sandbox`, :mod:`arena.supervisor`, :mod:`arena.checks`,
:mod:`arena.competition`, :mod:`arena.replay`, :mod:`arena.server`
(``docs/architecture.md`` draws them).
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
from ._lazy import lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .bots.spec import BotSpec, resolve
    from .supervisor.match import Fault, MatchRecord
    from .supervisor.play import play_match

_LAZY = {
    "BotSpec": "arena.bots.spec",
    "resolve": "arena.bots.spec",
    "Fault": "arena.supervisor.match",
    "MatchRecord": "arena.supervisor.match",
    "play_match": "arena.supervisor.play",
}
"""Names of the public surface imported on first use: importing ``arena`` (every ``arena.x`` module does)
must not import trio, psutil and the whole supervisor, or ``arena --help`` would pay for them."""


__getattr__ = lazy_names(__name__, _LAZY, globals())


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
