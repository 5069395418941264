"""The leaderboard as data: standings, the pairwise cells, and how they are drawn from a field's totals.

A board is a pure function of the recorded matches, reached in one way: the
matches' totals per pair of bots (:mod:`arena.competition.totals`, kept by the
store beside each result) are summed for a field into :class:`FieldTotals`
(:mod:`arena.competition.standings`), whose :meth:`FieldTotals.board` draws the
:class:`Leaderboard`. ``arena results``, the report and the server all show
such a board; :mod:`arena.competition.render` draws it as text, JSON and CSV.

How the numbers are made:

* **rating ± 95%**: a Bradley-Terry fit of the matches' wins, draws and losses
  on the Elo scale (:mod:`arena.competition.ratings`), centred on the field's
  average. It weighs each result by the opponent's strength, so it stays
  fair when bots met different fields (a gauntlet, a disqualification). Its
  interval counts each deal once (the two legs of a duplicate pair share
  their luck); with fewer than :data:`MIN_DEALS` deals it is not given
  ("n too small"). Matches that both bots forfeited are left out;
* **LOS**: the likelihood of superiority, the probability (under the fit)
  that the bot is stronger than the one ranked just below it;
* **W-D-L**: matches won, drawn, lost; a forfeit is always a loss for the bot
  that faulted (a double fault is a loss for both);
* **points per match** in the game's unit (RPS Poker: turns won), with a
  Student-t interval over deals, cut to the range of points a match gave in
  this tournament, and only from :data:`MIN_DEALS` deals on;
* **faults** by kind; a bot with more than ``max_faults`` faults is
  disqualified: it plays no more, keeps the results it has, ranks below every
  bot that was not disqualified, and the leaderboard says why;
* **pairwise**: each pair's record, and the head-to-head Elo difference from
  their own matches alone (pentanomial when they met on duplicate pairs), next
  to the difference of their ratings.

Bots rank by rating (``rank_by="points"``: by points per match, as the RPS
Poker challenge did, and the caption says so).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist

from .ratings import DEFAULT_PRIOR_GAMES, Fitter, Ratings
from .records import PlayedMatch, Record
from .sprt import estimate
from .store import TournamentRow

MIN_DEALS = 5
"""Fewer deals than this and a bot's intervals are not given ("n too small")."""
RANK_BY = ("rating", "points")

_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t, 97.5% quantile, for 1..30 degrees of freedom."""


def t975(df: int) -> float:
    """The two-sided 95% Student-t quantile for ``df`` degrees of freedom."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    for limit, value in ((40, 2.021), (60, 2.000), (120, 1.980)):
        if df <= limit:
            return value
    return 1.960


# The data ------------------------------------------------------------------------
@dataclass
class Cell(Record):
    """How the row bot did against the column bot: their :class:`~arena.competition.records.Record`, points,
    and (drawn with the board) the head-to-head estimate from their own matches."""

    points_for: float = 0.0
    points_against: float = 0.0
    elo: float = math.nan
    """Head-to-head Elo difference from these two bots' own matches (pairs when they met on pairs)."""
    elo_error95: float = math.nan
    los: float = math.nan
    """Head-to-head likelihood of superiority of the row bot."""
    rating_difference: float = math.nan
    """Row's rating minus column's rating (the fit over the whole field)."""
    rating_difference_error95: float = math.nan

    @property
    def score(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2


@dataclass
class Standing(Record):
    """One row of the leaderboard: a bot's :class:`~arena.competition.records.Record` over the field, its rating,
    points and faults."""

    bot: str = ""
    rank: int = 0
    rating: float = 0.0
    rating_error: float = math.nan
    """Half-width of the rating's 95% interval; NaN with fewer than :data:`MIN_DEALS` deals."""
    los_next: float = math.nan
    """Probability that this bot is stronger than the next one down (NaN for the last, or with too few deals)."""
    deals: int = 0
    """Deals played: a duplicate pair counts once."""
    points: float = 0.0
    mean: float = math.nan
    """Points per match."""
    mean_low: float = math.nan
    mean_high: float = math.nan
    faults: dict[str, int] = field(default_factory=dict)
    disqualified: str = ""
    """Empty, or why the bot was disqualified."""

    @property
    def score(self) -> float:
        """Match score, 0 to 1: wins plus half the draws, per match."""
        return (self.wins + self.draws / 2) / self.matches if self.matches else math.nan


@dataclass
class Leaderboard:
    """Standings, the pairwise results, and how far the tournament has got."""

    standings: list[Standing]
    pairwise: dict[str, dict[str, Cell]]
    matches: int
    scheduled: int | None = None
    points_name: str = "points"
    ranked_by: str = "rating"
    """``rating`` or ``points`` (points per match)."""
    seed: int | None = None
    """The tournament's seed, when the board is of a recorded tournament."""
    competition: TournamentRow | None = None
    """The recorded competition the board is of (its name, id and game are shown with it)."""
    not_admitted: dict[str, str] = field(default_factory=dict)
    """Bots of the field that do not play, each with why (the build's last lines, or why it did not start)."""
    notes: list[str] = field(default_factory=list)
    """Lines shown under the board: what happened to persistent bots' state, the versions of a history."""


def disqualifications(matches: Iterable[PlayedMatch], max_faults: int) -> dict[str, str]:
    """Bots with more than ``max_faults`` faults, each with the reason, as the leaderboard shows it."""
    counts: dict[str, Counter[str]] = {}
    for match in matches:
        for fault in match.faults:
            counts.setdefault(fault.bot, Counter())[fault.kind] += 1
    return {bot: why for bot, kinds in counts.items() if (why := disqualification(kinds, max_faults))}


def disqualification(kinds: Counter[str], max_faults: int) -> str:
    """Why a bot with these faults (by kind) is disqualified, or ``""`` if it is not.

    The fault after the last one allowed disqualifies a bot, and none of its
    matches starts after it; matches already under way finish and may add
    faults, so a bot may end with more than one fault over the limit. The
    reason says how many of its faults came so, so that it does not read as
    the limit letting more through.
    """
    total = sum(kinds.values())
    if total <= max_faults:
        return ""
    detail = ", ".join(f"{kind} x{n}" for kind, n in sorted(kinds.items()))
    said = f"{total} fault{'' if total == 1 else 's'}, more than the {max_faults} allowed ({detail})"
    late = total - max_faults - 1
    if late:
        said += (
            f": {late} of them in {'a match' if late == 1 else 'matches'} already under way"
            f" when fault {max_faults + 1} disqualified it"
        )
    return said


@dataclass
class FieldTotals:
    """What a field's matches add up to, summed from their pairs' totals (:mod:`arena.competition.standings`):
    :meth:`board` draws the leaderboard from them."""

    matches: int
    rows: dict[str, Standing]
    """Each bot's record, points and faults (its rank, rating and intervals filled by :meth:`board`)."""
    pairwise: dict[str, dict[str, Cell]]
    """Each bot's record against each opponent (empty dicts: the cells were not asked for)."""
    spreads: dict[str, tuple[int, float, float]]
    """Each bot's deals, the sum of its points per match on each, and of their squares."""
    fitter: Fitter
    low: float
    high: float
    deals: dict[str, dict[str, tuple[float, int]]] = field(default_factory=dict)
    """Each bot's points by deal, ``(total, matches)``, for bots whose ``spreads`` cannot be summed by pair (a deal
    two pairings shared: :func:`arena.competition.standings.totals_of_matches`)."""
    start: Mapping[str, float] | None = None
    """Strengths to start the rating fit from (the last fit's), by bot."""
    ratings: Ratings | None = None
    """The fit, once :meth:`board` has drawn it (its strengths start the next one)."""

    def board(
        self,
        *,
        max_faults: int,
        scheduled: int | None = None,
        points_name: str = "points",
        prior_games: float | None = None,
        rank_by: str = "rating",
        head_to_head: bool = True,
    ) -> Leaderboard:
        """The leaderboard (once: it fills the rows it holds).

        Without ``head_to_head`` the cells keep their counts but not their own
        Elo estimates and rating gaps (a server's pages show counts only: the
        estimates of a field of 300 are 90,000 of them).
        """
        if rank_by not in RANK_BY:
            raise ValueError(f"rank_by must be one of {', '.join(RANK_BY)}, not {rank_by!r}")
        rows, pairwise = self.rows, self.pairwise
        prior = DEFAULT_PRIOR_GAMES if prior_games is None else prior_games
        ratings = self.fitter.ratings(prior, start=self.start)
        self.ratings = ratings
        low, high = (self.low, self.high) if self.matches else (-math.inf, math.inf)
        mean_error: dict[str, float] = {}  # each bot's: the standard error of its points per match over deals
        for name, row in rows.items():
            row.deals, spread = self._spread(name)
            row.rating = ratings[name].elo
            row.rating_error = ratings[name].error95 if row.deals >= MIN_DEALS else math.nan
            row.disqualified = disqualification(Counter(row.faults), max_faults)
            if row.matches:
                row.mean = row.points / row.matches
                if row.deals >= MIN_DEALS:
                    mean_error[name] = spread / math.sqrt(row.deals)
                    half = t975(row.deals - 1) * mean_error[name]
                    row.mean_low, row.mean_high = max(low, row.mean - half), min(high, row.mean + half)
        if head_to_head:
            _head_to_head(pairwise, ratings)
        # Ratings compared to a millionth of a point: a fit warm-started from the last one (the server's) and a fit
        # from scratch (arena results, a restored backup) agree to 1e-9, not to the last bit, and bots tied in fact
        # must rank the same way in both (by mean, then name), not by rounding noise.
        if rank_by == "rating":
            key = lambda r: (bool(r.disqualified), -round(r.rating, 6), -_finite(r.mean), r.bot)  # noqa: E731
        else:
            key = lambda r: (bool(r.disqualified), -_finite(r.mean), -round(r.rating, 6), r.bot)  # noqa: E731
        order = sorted(rows.values(), key=key)
        for rank, row in enumerate(order, start=1):
            row.rank = rank
        for upper, lower in itertools.pairwise(order):
            if upper.deals >= MIN_DEALS and lower.deals >= MIN_DEALS:
                if rank_by == "rating":
                    upper.los_next = ratings.los(upper.bot, lower.bot)
                else:  # of the order shown: points per match, not the rating (which may order them otherwise)
                    upper.los_next = _points_los(upper, lower, mean_error)
        return Leaderboard(
            standings=order,
            pairwise=pairwise,
            matches=self.matches,
            scheduled=scheduled,
            points_name=points_name,
            ranked_by=rank_by,
        )

    def _spread(self, name: str) -> tuple[int, float]:
        """A bot's deals and the standard deviation of its points per match over them (NaN with fewer than two)."""
        if name in self.deals:
            means = [total / count for total, count in self.deals[name].values()]
            if len(means) < 2:
                return len(means), math.nan
            centre = math.fsum(means) / len(means)
            return len(means), math.sqrt(math.fsum((m - centre) ** 2 for m in means) / (len(means) - 1))
        deals, total, squares = self.spreads.get(name, (0, 0.0, 0.0))
        if deals < 2:
            return deals, math.nan
        return deals, math.sqrt(max(squares - total * total / deals, 0.0) / (deals - 1))


def _points_los(upper: Standing, lower: Standing, mean_error: dict[str, float]) -> float:
    """The chance that ``upper`` scores more points per match than ``lower``, from their means over deals.

    A normal approximation that takes the two means as independent (they
    are not quite: the two bots may share deals, and play each other).
    """
    difference = _finite(upper.mean) - _finite(lower.mean)
    sd = math.hypot(mean_error.get(upper.bot, 0.0), mean_error.get(lower.bot, 0.0))
    if sd == 0.0 or not math.isfinite(difference):
        return 0.5 if difference == 0 else float(difference > 0)
    return NormalDist().cdf(difference / sd)


def _head_to_head(pairwise: dict[str, dict[str, Cell]], ratings: Ratings) -> None:
    """Fill each cell's head-to-head estimate (pairs when every deal of the two was a pair) and rating gap."""
    for bot, cells in pairwise.items():
        for opponent, cell in cells.items():
            if not cell.matches:
                continue
            found = estimate(cell.pentanomial() if cell.paired else (cell.losses, cell.draws, cell.wins))
            cell.elo, cell.elo_error95, cell.los = found.elo, found.elo_error95, found.los
            difference = ratings.difference(bot, opponent)
            cell.rating_difference = difference.elo
            cell.rating_difference_error95 = difference.error95


def _finite(value: float) -> float:
    return -math.inf if math.isnan(value) else value
