"""The node host that runs bots written for the RPS Poker challenge, unchanged.

Run a challenge-format bot file as an Arena bot with::

    node <HOST_JS> BOT_FILE [BOT_NAME]

In a bot's command (``run`` in ``bot.toml``, or a command line) the word
``$ARENA_JS_HOST`` stands for the host's path on the machine that runs the
bot: ``run = "node $ARENA_JS_HOST bot.js"``. The sandbox lets a bot read the
host (and nothing else of Arena's), so a bot folder needs no copy of it.
``host.js`` documents what it loads and how faults are reported.
"""

from __future__ import annotations

from pathlib import Path

HOST_JS = Path(__file__).with_name("host.js")
"""The host program, shipped with the package."""

HOST_WORD = "$ARENA_JS_HOST"
"""The word in a bot's command that stands for :data:`HOST_JS`."""


def with_host(command: tuple[str, ...]) -> tuple[str, ...]:
    """``command`` with every :data:`HOST_WORD` replaced by this machine's :data:`HOST_JS`."""
    return tuple(str(HOST_JS) if word == HOST_WORD else word for word in command)


__all__ = ["HOST_JS", "HOST_WORD", "with_host"]
