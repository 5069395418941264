"""Every error the arena raises on purpose, in one small tree.

Only the CLI turns these into exit codes and one-line messages.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Something the user can fix; the message says what and how."""


class ConfigError(ArenaError):
    """A bad command line, manifest, config file or game parameter."""


class GamePluginError(ConfigError):
    """A game plugin (a package's game, a ``--game-module`` file) that cannot be used; the message names it."""


GAME_ERROR = "game error"
"""A match the game's own code ended (it raised, or asked a seat more than its ``max_requests()``): its result's
reason starts so; it is nobody's fault and no bot's result."""
GAME_ERROR_STATUS = 3
"""The exit status of a command whose matches the game's own code ended (``arena play``, ``tournament``...)."""


class BuildError(ArenaError):
    """A bot's build command failed; the message names the bot and shows the output's tail."""


class StoreError(ArenaError):
    """The results database cannot be used as asked."""


class UploadRefused(ArenaError):
    """A bot uploaded to a competition server cannot be taken; the message names the entry or the limit."""


REASON_CHARS = 400
"""Longest fault reason kept; a longer one (quoting a bot's action or line) is cut in the middle.

Room for the arena's own longest explanation (which interpreter ran in the jail, with its path) whole.
"""


def _readable(reason: str) -> str:
    """``reason`` safe to print: control characters escaped (a quoted action may hold any), at most REASON_CHARS."""
    if not reason.isprintable():
        reason = "".join(c if c.isprintable() else repr(c)[1:-1] for c in reason)
    if len(reason) > REASON_CHARS:
        reason = f"{reason[: REASON_CHARS - 60]} … {reason[-57:]}"
    return reason


class BotFault(ArenaError):
    """A bot broke the rules of the match; it forfeits.

    ``kind`` is a stable short name recorded in logs and results; ``reason``
    says what happened, printable, in at most :data:`REASON_CHARS` characters
    (it quotes what a bot wrote, and is shown in terminals and pages).
    """

    kind = "fault"

    def __init__(self, reason: str) -> None:
        reason = _readable(reason)
        super().__init__(reason)
        self.reason = reason


class Crash(BotFault):
    """The bot exited, or closed its output, before the match ended."""

    kind = "crash"


class Timeout(BotFault):
    """The bot did not answer in time."""

    kind = "timeout"
    machine_may_explain = False
    """Whether the bot was runnable when a wall-clock cap struck (a busy machine could explain it)."""


class InvalidJson(BotFault):
    """The bot wrote a line that is not JSON."""

    kind = "invalid_json"


class ProtocolViolation(BotFault):
    """The bot wrote JSON that is not an answer to the pending request."""

    kind = "protocol_error"


class IllegalMove(BotFault):
    """The bot's action breaks the game's rules (bad index, wrong type...)."""

    kind = "illegal_move"


class OutputLimit(BotFault):
    """The bot wrote a line, or a match's worth of output, over its limit."""

    kind = "output_limit"


class MemoryLimit(BotFault):
    """The bot's process tree used more memory than its limit."""

    kind = "memory_limit"


class DiskLimit(BotFault):
    """The bot wrote more into its scratch folder than its limit (where the arena measures it)."""

    kind = "disk_limit"


FAULT_KINDS = tuple(
    cls.kind
    for cls in (Crash, Timeout, InvalidJson, ProtocolViolation, IllegalMove, OutputLimit, MemoryLimit, DiskLimit)
)
