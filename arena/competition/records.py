"""A finished match as the store keeps it, and how it scored for each seat (shared by the store and the standings)."""

from __future__ import annotations

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
    row_id: int = field(default=0, compare=False)
    """The store's id of the match (0 for a match not read from a store); not part of what the match was."""

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
