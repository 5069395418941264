"""A finished match as the store keeps it, and how it scored for each seat (it is read from its rows by
:mod:`arena.competition.database.match_rows`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FaultRow:
    """A fault as stored: the seat, the bot in it, the kind and the reason."""

    seat: str
    bot: str
    kind: str
    reason: str
    request_id: int | None = None
    request_type: str = ""


@dataclass(frozen=True)
class PlayedMatch:
    """One finished match as the store keeps it."""

    key: str
    cycle: int
    deal: str
    """The deal's id: the two legs of a duplicate pair share it."""
    leg: int
    bot_a: str
    bot_b: str
    seed: int
    points: tuple[float, float]
    winner: str | None
    """``"A"``, ``"B"`` or ``None`` (draw, or both faulted)."""
    forfeit: tuple[str, ...] = ()
    reason: str = ""
    duration_s: float = 0.0
    peak_rss: tuple[int | None, int | None] = (None, None)
    log_path: str | None = None
    faults: tuple[FaultRow, ...] = field(default=())
    versions: tuple[int | None, int | None] = (None, None)
    """The store's ids of the bot versions in seats A and B (``None`` for a match not tied to versions)."""
    game_error: str = ""
    """What the game's own code did wrong when it ended the match ("" when it did not): such a match is not
    recorded, and no bot's result."""
    row_id: int = field(default=0, compare=False)
    """The store's id of the match (0 for a match not read from a store); not part of what the match was."""
    think_s: tuple[float, float] = field(default=(0.0, 0.0), compare=False)
    """Seconds each seat's bot spent thinking, as the supervisor measured them (not stored: the ladder's share of
    time by owner counts them as matches end)."""

    def bot(self, seat: str) -> str:
        """The bot in ``seat``."""
        return self.bot_a if seat == "A" else self.bot_b


def outcome_for(match: PlayedMatch, seat: str) -> str:
    """``"W"``, ``"D"`` or ``"L"`` for the bot in ``seat``."""
    if seat in match.forfeit:
        return "L"
    if match.winner is None:
        return "D"
    return "W" if match.winner == seat else "L"


SCORE = {"W": 1.0, "D": 0.5, "L": 0.0}
"""A match's score for a seat, by its outcome."""


def log_halves(match: PlayedMatch) -> dict[int, int]:
    """Each version's half of ``match``'s log, in bytes, as it is now (a log that is not there counts nothing)."""
    if not match.log_path:
        return {}
    try:
        size = os.stat(match.log_path).st_size
    except OSError:
        return {}
    return {vid: (size + 1) // 2 for vid in match.versions if vid is not None}
