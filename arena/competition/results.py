"""The leaderboard: ratings, standings, faults and the pairwise results, as data and as text.

Everything here is a pure function of the recorded matches
(:class:`~arena.competition.store.PlayedMatch`), so ``arena results DB`` shows the same
table the tournament printed, and works while a tournament is still writing.
:func:`leaderboard` builds the data (:class:`Leaderboard`); the ``render_*``
functions only draw it, so another view (the HTML report) can draw the same data.

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

import csv
import io
import itertools
import json
import math
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from .._errors import StoreError
from ..checks.hints import printable
from ..games import score_text
from .ratings import DEFAULT_PRIOR_GAMES, Fitter, Outcome, Ratings
from .records import SCORE
from .records import outcome_for as outcome_for
from .sprt import PairCounts, estimate
from .store import PlayedMatch, Store, TournamentRow, VersionRow
from .table_fit import add_table_totals
from .totals import Pair, PairTotals, exact

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
class Cell:
    """How the row bot did against the column bot."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points_for: float = 0.0
    points_against: float = 0.0
    pairs: PairCounts | None = None
    """Pentanomial counts of their duplicate pairs (``None`` when they met on no complete pair)."""
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
class Standing:
    """One row of the leaderboard."""

    bot: str
    rank: int = 0
    rating: float = 0.0
    rating_error: float = math.nan
    """Half-width of the rating's 95% interval; NaN with fewer than :data:`MIN_DEALS` deals."""
    los_next: float = math.nan
    """Probability that this bot is stronger than the next one down (NaN for the last, or with too few deals)."""
    deals: int = 0
    """Deals played: a duplicate pair counts once."""
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
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


_SCORE = SCORE


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


def leaderboard(
    names: Sequence[str],
    matches: Sequence[PlayedMatch],
    *,
    max_faults: int,
    scheduled: int | None = None,
    points_name: str = "points",
    prior_games: float | None = None,
    rank_by: str = "rating",
) -> Leaderboard:
    """The leaderboard of ``names`` over ``matches`` (pure: the same matches give the same board)."""
    tally = Tally(names)
    for match in matches:
        tally.add(match)
    return tally.frozen().board(
        max_faults=max_faults, scheduled=scheduled, points_name=points_name, prior_games=prior_games, rank_by=rank_by
    )


class Tally:
    """A leaderboard's running totals: matches added one at a time, the board drawn from them at any time
    (``tally.frozen().board(...)``).

    :func:`leaderboard` is a tally of all its matches; a competition server
    keeps one and adds each result as it comes, so that drawing the board
    costs the field and its deals, not a pass over the whole history.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.matches = 0
        self._rows = {name: Standing(bot=name) for name in self.names}
        self._pairwise = {a: {b: Cell() for b in self.names if b != a} for a in self.names}
        self._deals: dict[str, dict[str, tuple[float, int]]] = {name: {} for name in self.names}
        """Each bot's points by deal: ``(total, matches)`` (replaced, never changed: a copy of the dict is a copy)."""
        self._legs: dict[tuple[str, str], _Meetings] = {}
        """What each ordered pair's matches scored (1, 0.5, 0), by deal."""
        self._fitter = Fitter(self.names)
        self._low, self._high = math.inf, -math.inf

    def add(self, match: PlayedMatch) -> None:
        """Count one more match (both its bots must be of ``names``)."""
        self.matches += 1
        for seat, other in (("A", "B"), ("B", "A")):
            bot, opponent = match.bot(seat), match.bot(other)
            mine, theirs = match.points[0 if seat == "A" else 1], match.points[0 if other == "A" else 1]
            row, cell = self._rows[bot], self._pairwise[bot][opponent]
            result = outcome_for(match, seat)
            for tally in (row, cell):
                tally.matches += 1
                tally.wins += result == "W"
                tally.draws += result == "D"
                tally.losses += result == "L"
            row.points += mine
            cell.points_for += mine
            cell.points_against += theirs
            self._count_points(bot, match.deal, mine)
            meetings = self._legs.get((bot, opponent))
            if meetings is None:
                meetings = self._legs[bot, opponent] = _Meetings()
            meetings.add(match.deal, _SCORE[result])
        for fault in match.faults:
            faults = self._rows[fault.bot].faults
            faults[fault.kind] = faults.get(fault.kind, 0) + 1
        if len(match.forfeit) < 2:
            self._fitter.add(Outcome(match.bot_a, match.bot_b, _SCORE[outcome_for(match, "A")], match.deal))
        self._low = min(self._low, *match.points)
        self._high = max(self._high, *match.points)

    def add_bot(self, name: str) -> None:
        """Count ``name``'s matches too, from now on: a bot that played none of those counted so far.

        The totals are then those a tally of the longer list of names would
        have (a new bot comes last, as its first match will).
        """
        self.names = [*self.names, name]
        self._rows[name] = Standing(bot=name)
        for cells in self._pairwise.values():
            cells[name] = Cell()
        self._pairwise[name] = {b: Cell() for b in self.names if b != name}
        self._deals[name] = {}
        self._fitter.add_name(name)

    def _count_points(self, bot: str, deal: str, points: float) -> None:
        deals = self._deals[bot]
        total, count = deals.get(deal, (0.0, 0))
        deals[deal] = (total + points, count + 1)

    def frozen(self) -> FrozenTally:
        """The totals as they are now, copied: later additions leave them alone (so a thread may draw the board)."""
        return FrozenTally(
            matches=self.matches,
            rows={name: replace(row, faults=dict(row.faults)) for name, row in self._rows.items()},
            pairwise={a: {b: replace(cell) for b, cell in cells.items()} for a, cells in self._pairwise.items()},
            deals={name: dict(deals) for name, deals in self._deals.items()},
            meetings={pair: (replace(m.pairs), m.unpaired) for pair, m in self._legs.items()},
            fitter=self._fitter.copy(),
            low=self._low,
            high=self._high,
        )


@dataclass
class FrozenTally:
    """A :class:`Tally` as it was at one moment: :meth:`board` draws its leaderboard."""

    matches: int
    rows: dict[str, Standing]
    pairwise: dict[str, dict[str, Cell]]
    deals: dict[str, dict[str, tuple[float, int]]]
    """Each bot's points by deal: ``(total, matches)`` (empty when ``spreads`` gives their sums)."""
    meetings: dict[tuple[str, str], tuple[PairCounts, int]]
    """Each ordered pair's pentanomial counts, and its deals that were not played as pairs."""
    fitter: Fitter
    low: float
    high: float
    spreads: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    """Each bot's deals, the sum of its points per match on each, and of their squares (the store's running sums:
    :mod:`arena.competition.standings`), for bots not in ``deals``."""
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
            _head_to_head(pairwise, self.meetings, ratings)
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


def tally_of_pairs(
    names: Mapping[int, str],
    pairs: Mapping[Pair, PairTotals],
    *,
    every_cell: bool = True,
    tables: Mapping[tuple[int, int, int, int], Sequence[int]] | None = None,
) -> FrozenTally:
    """The totals a leaderboard of the versions ``names`` (by id) draws from, out of their ``pairs``' totals.

    The same as a :class:`~arena.competition.results.Tally` of their matches
    (see the module's docstring for the one sum that is not bit for bit).
    ``tables``: the deals at two tables by their four versions (the store's
    :meth:`~arena.competition.store.Store.table_totals`), which the fit counts
    (their matches count in the pairs' other totals).
    """
    order = list(names)
    labels = [names[v] for v in order]
    index = {v: i for i, v in enumerate(order)}
    rows = {name: Standing(bot=name) for name in labels}
    pairwise: dict[str, dict[str, Cell]] = (
        {a: {b: Cell() for b in labels if b != a} for a in labels} if every_cell else {a: {} for a in labels}
    )  # (without every_cell, only the cells of bots that met)
    spreads: dict[str, tuple[int, float, float]] = dict.fromkeys(labels, (0, 0.0, 0.0))
    meetings = {}
    wins = np.zeros((len(order), len(order)))
    sums: dict[tuple[int, int], tuple[float, float, float]] = {}
    low, high, matches = math.inf, -math.inf, 0
    for (version, opponent), t in sorted(pairs.items()):
        if version not in index or opponent not in index or t.empty:
            continue
        bot, other = names[version], names[opponent]
        row = rows[bot]
        cell = pairwise[bot].get(other) or pairwise[bot].setdefault(other, Cell())
        for tally in (row, cell):
            tally.matches += t.matches
            tally.wins += t.wins
            tally.draws += t.draws
            tally.losses += t.losses
        row.points += t.points_for
        cell.points_for += t.points_for
        cell.points_against += t.points_against
        for kind, count in t.faults.items():
            row.faults[kind] = row.faults.get(kind, 0) + count
        deals, means, squares = spreads[bot]
        spreads[bot] = (deals + t.deals, means + t.deal_means, squares + t.deal_squares)
        meetings[bot, other] = (t.pentanomial(), t.unpaired)
        i, j = index[version], index[opponent]
        wins[i, j] = t.fit_score
        if i < j and t.fit_games:
            sums[i, j] = (t.unit_squares, t.unit_products, t.unit_counts)
        low, high = min(low, t.low), max(high, t.high)
        matches += t.matches
    fitter = Fitter.of_pairs(labels, wins, sums)
    add_table_totals(fitter, names, tables or {})
    return FrozenTally(
        matches=matches // 2,
        rows=rows,
        pairwise=pairwise,
        deals={},
        spreads=spreads,
        meetings=meetings,
        fitter=fitter,
        low=low,
        high=high,
    )


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


@dataclass
class _Meetings:
    """One bot's match scores against one opponent, by deal, with the pentanomial counts of their pairs."""

    deals: dict[str, int] = field(default_factory=dict)
    """Matches on each deal."""
    firsts: dict[str, float] = field(default_factory=dict)
    """The score of each deal's first match, until its second comes."""
    pairs: PairCounts = field(default_factory=PairCounts)
    """Deals of exactly two matches (counted when the second came)."""
    unpaired: int = 0
    """Deals of one match, or of more than two."""

    def add(self, deal: str, score: float) -> None:
        seen = self.deals.get(deal, 0)
        self.deals[deal] = seen + 1
        if seen == 0:
            self.firsts[deal] = score
            self.unpaired += 1
        elif seen == 1:
            self.pairs.add(self.firsts.pop(deal), score)
            self.unpaired -= 1
        elif seen == 2:
            self.unpaired += 1  # (a third match: the pair counts no longer describe these two bots' deals)


def _head_to_head(
    pairwise: dict[str, dict[str, Cell]], meetings: dict[tuple[str, str], tuple[PairCounts, int]], ratings: Ratings
) -> None:
    """Fill each cell's head-to-head estimate (pairs when every deal of the two was a pair) and rating gap."""
    for (bot, opponent), (pairs, unpaired) in meetings.items():
        cell = pairwise[bot][opponent]
        if not unpaired:
            cell.pairs = pairs
            found = estimate(pairs.pentanomial())
        else:
            found = estimate((cell.losses, cell.draws, cell.wins))
        cell.elo, cell.elo_error95, cell.los = found.elo, found.elo_error95, found.los
        difference = ratings.difference(bot, opponent)
        cell.rating_difference = difference.elo
        cell.rating_difference_error95 = difference.error95


def _finite(value: float) -> float:
    return -math.inf if math.isnan(value) else value


def chosen_competition(store: Store, tid: int | None = None, name: str | None = None) -> TournamentRow:
    """The competition ``--tournament ID`` or ``--name NAME`` chooses in ``store``, by default the latest.

    Every command that reads one competition of a database (``arena results``,
    its ``--matches`` and ``--html``, ``arena replay --db``) chooses it here, so
    they all mean the same one.
    """
    if name is not None:
        found = store.latest(name)
        if found is None:
            names = sorted({t.name for t in store.tournaments()})
            raise StoreError(f"{store.path} holds no competition called {name!r} (it holds: {', '.join(names)})")
        return found
    tournament = store.tournament(tid)
    if tournament is None:
        raise StoreError(f"{store.path} holds no tournament" + (f" with id {tid}" if tid is not None else ""))
    return tournament


def numbered_matches(store: Store, tid: int, *, current: bool = False) -> list[tuple[int, PlayedMatch]]:
    """The matches of competition ``tid``, each with its number (only the current standings' with ``current``).

    A match's number counts from 1 over all the competition's matches (a
    retired version's too) in the order they finished, and never changes: it
    is the ``#`` of ``arena results --matches`` and of the report, and the
    ``N`` of ``arena replay --db DB N``.
    """
    every = list(enumerate(store.matches(tid), start=1))
    if not current:
        return every
    kept = {m.row_id for m in store.matches(tid, current=True)}
    return [(number, m) for number, m in every if m.row_id in kept]


def find_match(store: Store, tournament: TournamentRow, match: str) -> tuple[int, PlayedMatch]:
    """The match of ``tournament`` that ``match`` names, by its number or its key, with its number."""
    for number, played in numbered_matches(store, tournament.id):
        if match in (played.key, str(number)):
            return number, played
    # The command names the competition, as it may not be the database's latest (shown as a shell reads it).
    which = (
        f"--name {shlex.quote(tournament.name)}"
        if printable(tournament.name) == tournament.name
        else f"--tournament {tournament.id}"
    )
    raise StoreError(
        f"no match {match!r} in competition {tournament.name!r} (id {tournament.id}) of {store.path}"
        f" (`arena results {shlex.quote(str(store.path))} --matches {which}` lists them;"
        " --name or --tournament choose another competition)"
    )


def board_from_store(
    store: Store, tid: int | None = None, *, rank_by: str = "rating", history: bool = False
) -> Leaderboard:
    """The leaderboard of competition ``tid`` (the latest when ``None``) in ``store``.

    By default the current field: its admitted bots, over the matches between
    them (a retired version's matches are left out), with the bots not
    admitted listed under it. With ``history``, every version that played,
    named ``bot``, ``bot.v2``..., over every match, with each version's story.
    """
    tournament = chosen_competition(store, tid)
    config = tournament.config
    versions = store.versions(tournament.id)
    options: dict[str, Any] = {
        "max_faults": int(config.get("max_faults", 0)),
        "points_name": str(config.get("points_name", "points")),
        "rank_by": rank_by,
    }
    # The board of the store's pair totals (kept beside each result: a million matches read as a few thousand
    # rows), unless they do not describe the matches exactly; then the board of the matches themselves.
    pairs = store.pair_totals(tournament.id) if store.all_versioned(tournament.id) else {}
    by_pairs = bool(pairs) and exact(pairs)
    if history:
        label = {v.id: v.label for v in versions}
        met = {version for version, _ in pairs}
        if not by_pairs:
            matches = [labelled_by_version(m, label) for m in store.matches(tournament.id)]
            met = {vid for m in matches for vid in m.versions if vid is not None}
        shown = {v.id: v.label for v in versions if v.id in met or (v.current and v.admission == "admitted")}
        notes = ["Versions:", *(f"  {_story(v)}" for v in versions)]
        notes += ["Changes:", *(f"  {c.at} {c.line.splitlines()[0]}" for c in store.changes(tournament.id))]
        scheduled = None
    else:
        field_ = [v for v in versions if v.current]
        shown = {v.id: v.name for v in field_ if v.admission == "admitted"}
        if by_pairs:
            faulted = {shown[vid] for (vid, other), t in pairs.items() if vid in shown and other in shown and t.faults}
        else:
            matches = store.matches(tournament.id, current=True)
            faulted = {f.bot for m in matches for f in m.faults}
        notes = [
            f"{v.name} keeps its state from match to match (persistent): after each of its faults a fresh"
            " process took over, and the state was lost"
            for v in field_
            if v.process == "persistent" and v.name in faulted
        ]
        scheduled = config.get("scheduled")
    if by_pairs:
        tables = store.table_totals(tournament.id)
        board = tally_of_pairs(shown, pairs, tables=tables).board(scheduled=scheduled, **options)
    else:
        board = leaderboard(list(shown.values()), matches, scheduled=scheduled, **options)
    board.seed = tournament.seed
    board.competition = tournament
    if not history:
        board.not_admitted = {v.name: v.reason for v in versions if v.current and v.admission == "not_admitted"}
    verdict = config.get("compare", {}).get("verdict") if not history else None
    board.notes = notes + ([f"arena compare: {verdict}"] if verdict else [])
    return board


NOT_ADMITTED_LINES = 8
"""Lines of a not-admitted bot's reason (the end of its build's output) shown under the leaderboard."""


def labelled_by_version(match: PlayedMatch, label: dict[int, str]) -> PlayedMatch:
    """``match`` with its bots named by version (``bot``, ``bot.v2``)."""
    a, b = (
        label.get(v, name) if v is not None else name
        for v, name in zip(match.versions, (match.bot_a, match.bot_b), strict=True)
    )
    faults = tuple(replace(f, bot=a if f.seat == "A" else b) for f in match.faults)
    return replace(match, bot_a=a, bot_b=b, faults=faults)


def _story(version: VersionRow) -> str:
    """One line on a version: its hash, process mode, admission and whether it is retired."""
    state = "current" if version.current else f"retired ({version.retired_because}) {version.retired_at}"
    admission = {"admitted": "", "pending": ", not checked yet"}.get(
        version.admission, f", not admitted: {version.reason.splitlines()[0] if version.reason else ''}"
    )
    return (
        f"{version.label}: sha {version.digest[:12]}, {version.process} process, added {version.added_at},"
        f" {state}{admission}"
    )


# Rendering -----------------------------------------------------------------------
def caption(board: Leaderboard) -> str:
    """What the table's columns are, in a sentence or three."""
    per_match = f"{board.points_name} per match"
    ranked = (
        "Ranked by rating"
        if board.ranked_by == "rating"
        else f"Ranked by {per_match} (the rating may order bots differently)"
    )
    too_small = any(row.matches and math.isnan(row.rating_error) for row in board.standings)
    los = (
        "the chance that a bot is stronger than the next one down"
        if board.ranked_by == "rating"
        else f"the chance that a bot's {per_match} are truly more than the next one down's, from their spread over "
        "deals"
    )
    return (
        f"{ranked}: Elo from a Bradley-Terry fit of wins, draws and losses that weighs each opponent's "
        f"strength, 0 = the field's average; ± is its 95% interval, counting a duplicate deal once"
        + (f" (n too small: fewer than {MIN_DEALS} deals)" if too_small else "")
        + f". LOS: {los}. W-D-L: matches won, drawn, lost (a fault loses the match)."
    )


def _signed(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else "-"


def _rating_error(row: Standing) -> str:
    if not row.matches:
        return "-"
    return "n too small" if math.isnan(row.rating_error) else f"± {row.rating_error:.0f}"


def _percent(value: float) -> str:
    if math.isnan(value):
        return ""
    if 0.0 < value < 0.001:
        return "<0.1%"
    if 0.999 < value < 1.0:
        return ">99.9%"
    return f"{100 * value:.1f}%"


def _mean(row: Standing) -> str:
    if math.isnan(row.mean):
        return "-"
    return f"{row.mean:.2f}"


def _faults(row: Standing) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(row.faults.items())) or "-"


def render_table(board: Leaderboard, *, width: int | None = None, pairwise: bool | None = None) -> str:
    """The leaderboard as text: the standings, a caption, and the pairwise matrix.

    ``width`` is the terminal's (default 100). The matrix is drawn when it
    fits in ``width``, always with ``pairwise=True``, never with ``False``.
    """
    from rich import box
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

    width = width or 100
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False, emoji=False)
    progress = f"{board.matches} matches" + (f" of {board.scheduled}" if board.scheduled is not None else "")
    table = Table(
        title=f"Leaderboard ({progress})", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("bot", overflow="fold", min_width=8)
    table.add_column("rating", justify="right", no_wrap=True)
    table.add_column("±95%", justify="right")
    table.add_column("LOS", justify="right", no_wrap=True)
    table.add_column("W-D-L", justify="right", no_wrap=True)
    table.add_column(f"{board.points_name}\nper match", justify="right")
    any_faults = any(row.faults for row in board.standings)
    if any_faults:
        table.add_column("faults", overflow="fold")
    if heading(board):
        console.print(Text(printable(heading(board))))
    for row in board.standings:
        cells: list[str | Text] = [
            str(row.rank),
            Text(printable(row.bot) + (" (DQ)" if row.disqualified else "")),
            _signed(row.rating) if row.matches else "-",
            _rating_error(row),
            _percent(row.los_next),
            f"{row.wins}-{row.draws}-{row.losses}",
            _mean(row),
        ]
        table.add_row(*cells, *([_faults(row)] if any_faults else []))
    console.print(table)
    console.print()
    console.print(caption(board))
    for row in board.standings:
        if row.disqualified:
            console.print(Text(f"{printable(row.bot)} was disqualified: {row.disqualified}"))
    if board.not_admitted:
        console.print("Not admitted (tried again when their files change):")
        for name, reason in board.not_admitted.items():
            first, *rest = reason.splitlines() or [""]
            console.print(Text(f"  {printable(name)}: {printable(first)}"))
            for line in rest[-NOT_ADMITTED_LINES:]:
                console.print(Text(f"    {printable(line.strip())}"))
    names = [row.bot for row in board.standings]
    if len(names) > 1 and pairwise is None and 3 * len(names) > width:
        # Each of its columns takes three characters at least: it cannot fit, and measuring a matrix of 300 bots'
        # cells (rich measures every one) took longer than drawing the whole board.
        console.print()
        console.print(
            f"(The pairwise matrix of {len(names)} bots is wider than {width} columns: "
            "--pairwise shows it anyway; --format csv and json always have it.)"
        )
    elif len(names) > 1 and pairwise is not False:
        matrix = _pairwise_table(board, names)
        needed = Measurement.get(console, console.options.update(max_width=1 << 16), matrix).maximum
        console.print()
        if pairwise or needed <= width:
            wide = Console(file=console.file, width=max(width, needed), color_system=None, highlight=False)
            wide.print(matrix)
        else:
            console.print(
                f"(The pairwise matrix needs {needed} columns, more than {width}: "
                "--pairwise shows it anyway; --format csv and json always have it.)"
            )
    for note in board.notes:
        console.print(Text(printable(note)))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    # rich pads a table's rows to its width and leaves a space where it wraps a line: none of it is text
    return "".join(line.rstrip() + "\n" for line in output.splitlines())


def _pairwise_table(board: Leaderboard, names: list[str]) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    matrix = Table(
        title="Pairwise (row's W-D-L against column)", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False
    )
    matrix.add_column("bot", no_wrap=True)
    for rank in range(1, len(names) + 1):
        matrix.add_column(str(rank), justify="right", no_wrap=True)
    for rank, a in enumerate(names, start=1):
        cells = []
        for b in names:
            cell = board.pairwise[a].get(b)
            cells.append("" if cell is None else f"{cell.wins}-{cell.draws}-{cell.losses}" if cell.matches else "-")
        matrix.add_row(Text(f"{rank} {printable(a)}"), *cells)
    return matrix


def _competition_data(competition: TournamentRow | None) -> dict[str, Any]:
    if competition is None:
        return {}
    return {"competition": {"id": competition.id, "name": competition.name, "game": competition.game}}


def heading(board: Leaderboard) -> str:
    """The line above a recorded board's table: which competition it is of (empty for a board not recorded)."""
    c = board.competition
    if c is None:
        return ""
    return f"Competition {c.name!r}, tournament {c.id}: {c.game}" if c.name else f"Tournament {c.id}: {c.game}"


def to_json(board: Leaderboard) -> dict[str, Any]:
    """The leaderboard as plain data (NaN becomes ``null``)."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    def cell_data(cell: Cell) -> dict[str, Any]:
        data = asdict(cell)
        data["score"] = cell.score
        if cell.pairs is not None:
            data["pairs"] = {**asdict(cell.pairs), "pairs": cell.pairs.pairs}
        return data

    data: dict[str, Any] = clean(
        {
            # Seeds are strings: a 64-bit integer loses its last digits in JavaScript's numbers.
            "seed": None if board.seed is None else str(board.seed),
            **_competition_data(board.competition),
            "matches": board.matches,
            "scheduled": board.scheduled,
            "points_name": board.points_name,
            "ranked_by": board.ranked_by,
            "min_deals": MIN_DEALS,
            "caption": caption(board),
            "standings": [{**asdict(row), "score": row.score} for row in board.standings],
            "not_admitted": board.not_admitted,
            "notes": board.notes,
            "pairwise": {a: {b: cell_data(cell) for b, cell in row.items()} for a, row in board.pairwise.items()},
        }
    )
    return data


def render_csv(board: Leaderboard) -> str:
    """The standings as CSV, one row per bot, with wins, draws and losses against each opponent."""
    names = [row.bot for row in board.standings]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "rank", "bot", "rating", "rating_error95", "los_next", "deals", "matches", "wins", "draws", "losses",
            "score", "points", "mean", "mean_low", "mean_high", "faults", "disqualified",
            *(f"vs:{n}:{what}" for n in names for what in ("wins", "draws", "losses")),
        ]
    )  # fmt: skip
    for row in board.standings:
        cells: list[Any] = []
        for n in names:
            cell = board.pairwise[row.bot].get(n)
            cells += ["", "", ""] if cell is None or not cell.matches else [cell.wins, cell.draws, cell.losses]
        writer.writerow(
            [
                row.rank, row.bot, _csv_number(row.rating, 3), _csv_number(row.rating_error, 3),
                _csv_number(row.los_next, 6), row.deals, row.matches, row.wins, row.draws, row.losses,
                _csv_number(row.score, 6), _csv_number(row.points, 6),
                *(_csv_number(v, 6) for v in (row.mean, row.mean_low, row.mean_high)),
                ";".join(f"{k}={v}" for k, v in sorted(row.faults.items())), row.disqualified, *cells,
            ]
        )  # fmt: skip
    return out.getvalue()


def _csv_number(value: float, digits: int) -> str:
    return "" if not math.isfinite(value) else str(round(value, digits))


def render(board: Leaderboard, fmt: str, *, width: int | None = None, pairwise: bool | None = None) -> str:
    """The leaderboard in ``fmt``: ``table``, ``json`` or ``csv``."""
    if fmt == "json":
        return json.dumps(to_json(board), indent=2) + "\n"
    if fmt == "csv":
        return render_csv(board)
    return render_table(board, width=width, pairwise=pairwise)


# The list of matches ---------------------------------------------------------------
def matches_report(store: Store, tid: int | None = None) -> dict[str, Any]:
    """Tournament ``tid`` (the latest when ``None``) and every match of it, as plain data.

    Numbered from 1 as ``arena replay --db DB N`` takes them. Seeds are
    strings: they reach 2**63, past the integers a JavaScript reader keeps
    exactly.
    """
    tournament = chosen_competition(store, tid)
    config = tournament.config
    versions = store.versions(tournament.id)
    label = {v.id: v.label for v in versions}
    return {
        "tournament": {
            "id": tournament.id,
            "name": tournament.name,
            "game": tournament.game,
            "params": config.get("params", {}),
            "seed": str(tournament.seed),
            "points_name": config.get("points_name", "points"),
        },
        "bots": {v.label: {"digest": v.digest, "command": list(v.command)} for v in versions},
        # every match, retired versions' too (named bot.v2...), numbered as `arena replay --db DB N` takes them
        "matches": [
            _match_row(number, labelled_by_version(m, label)) for number, m in numbered_matches(store, tournament.id)
        ],
    }


def _match_row(number: int, m: PlayedMatch) -> dict[str, Any]:
    return {
        "n": number,
        "key": m.key,
        "cycle": m.cycle,
        "deal": m.deal,
        "leg": m.leg,
        "a": m.bot_a,
        "b": m.bot_b,
        "points_a": m.points[0],
        "points_b": m.points[1],
        "winner": m.bot(m.winner) if m.winner else None,
        "winner_seat": m.winner,
        "seed": str(m.seed),
        "forfeit": list(m.forfeit),
        "faults": [{"seat": f.seat, "bot": f.bot, "kind": f.kind, "reason": f.reason} for f in m.faults],
        "duration_s": m.duration_s,
        "log": m.log_path,
    }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def render_matches(report: dict[str, Any], fmt: str) -> str:
    """The list of matches (:func:`matches_report`) as a table, JSON or CSV.

    The table shows the points as ``A : B`` (Badugi's ``-930 : 930``: no
    separator that reads as a minus sign); CSV has one column per seat's
    points and the winner's name.
    """
    rows = report["matches"]
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        fields = ["n", "key", "cycle", "deal", "leg", "a", "b", "points_a", "points_b", "winner", "winner_seat",
                  "seed", "faults", "log"]  # fmt: skip
        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    **row,
                    "points_a": _number(row["points_a"]),
                    "points_b": _number(row["points_b"]),
                    "winner": row["winner"] or "",
                    "winner_seat": row["winner_seat"] or "",
                    "faults": _fault_text(row),
                    "log": row["log"] or "",
                }
            )
        return out.getvalue()

    def cell(text: str) -> str:
        return printable(text).replace("\t", " ")

    lines = ["#\tmatch\tA\tB\tpoints A : B\twinner\tfaults\tlog"]
    for row in rows:
        points = score_text(row["points_a"], row["points_b"])
        lines.append(
            f"{row['n']}\t{cell(row['key'])}\t{cell(row['a'])}\t{cell(row['b'])}\t{points}"
            f"\t{cell(row['winner']) if row['winner'] else 'draw'}"
            f"\t{cell(_fault_text(row)) or '-'}\t{cell(row['log'] or '-')}"
        )
    return "\n".join(lines) + "\n"


def _fault_text(row: dict[str, Any]) -> str:
    return "; ".join(f"{f['seat']} {f['kind']}: {f['reason']}" for f in row["faults"])
