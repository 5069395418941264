"""The node host that runs bots written for the RPS Poker challenge, unchanged.

Run a challenge-format bot file as an Arena bot with::

    node <HOST_JS> BOT_FILE [BOT_NAME]

``host.js`` documents what it loads and how faults are reported.
"""

from __future__ import annotations

from pathlib import Path

HOST_JS = Path(__file__).with_name("host.js")
"""The host program, shipped with the package."""

__all__ = ["HOST_JS"]
