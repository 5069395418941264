"""A finished match as the store keeps it (read from its rows by
:mod:`arena.competition.database.match_rows`), how it scored for each seat, and :class:`Record`, the one count
of wins, draws, losses and duplicate pairs."""

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

PENTANOMIAL = ("ll", "ld", "wl", "dd", "wd", "ww")
"""The classes of a duplicate pair, by its two matches' results from one bot's side (``wl``: one won, one lost)."""
_PAIR_CLASS = {0.0: "ll", 0.5: "ld", 1.0: "wl", 1.5: "wd", 2.0: "ww"}


def pair_class(first: float, second: float) -> str:
    """The class (of :data:`PENTANOMIAL`) of a pair whose two matches scored ``first`` and ``second`` (0, 0.5, 1)."""
    key = _PAIR_CLASS[first + second]
    return "dd" if key == "wl" and first == 0.5 else key


@dataclass(slots=True)
class Record:
    """Matches won, drawn and lost, and the pentanomial counts of the duplicate pairs among them, from one side.

    The one type that counts results: a bot's standing, its record against
    one opponent (a leaderboard's cell, a pair's stored totals), a
    comparison's pairs. ``wl`` and ``dd`` are kept apart for the reader (a
    split pair and two draws score the same, 1 of 2, and the statistics add
    them up: :meth:`pentanomial`).
    """

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0
    unpaired: int = 0
    """Deals of one match, or of more than two (the pentanomial counts do not describe those)."""

    def add_match(self, result: str) -> None:
        """Count one match: ``"W"``, ``"D"`` or ``"L"`` (see :func:`outcome_for`)."""
        self.matches += 1
        self.wins += result == "W"
        self.draws += result == "D"
        self.losses += result == "L"

    def add_pair(self, first: float, second: float) -> None:
        """Count a duplicate pair whose two matches scored ``first`` and ``second`` (each 0, 0.5 or 1), and them."""
        key = pair_class(first, second)
        setattr(self, key, getattr(self, key) + 1)
        for score in (first, second):
            self.add_match("W" if score == 1.0 else "D" if score == 0.5 else "L")

    @property
    def pairs(self) -> int:
        """How many duplicate pairs were counted."""
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    @property
    def paired(self) -> bool:
        """Whether every deal counted was a complete pair (and there was one): the pentanomial describes them all."""
        return self.unpaired == 0 and self.pairs > 0

    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """``(LL, LD, WL + DD, WD, WW)``, the counts the statistics use."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)


def log_halves(match: PlayedMatch) -> dict[int, int]:
    """Each version's half of ``match``'s log, in bytes, as it is now (a log that is not there counts nothing)."""
    if not match.log_path:
        return {}
    try:
        size = os.stat(match.log_path).st_size
    except OSError:
        return {}
    return {vid: (size + 1) // 2 for vid in match.versions if vid is not None}
