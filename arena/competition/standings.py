"""The standings as running totals per pair of versions: kept in the store beside each result, read in thousands.

A leaderboard (:mod:`arena.competition.results`) needs, of the matches
between the versions of a field, only sums: each version's wins, draws,
losses and points against each opponent, the pentanomial counts of their
duplicate pairs, the spread of its points over deals, the faults, and for
the rating fit each pair's score and the sums its error bars take
(:class:`~arena.competition.ratings.Fitter`). Each of these is a sum over
*deals* of what that deal's matches make, so the store keeps, per ordered
pair of versions, the totals (:class:`PairTotals`), and when a match is
recorded it adds, in the same transaction, the difference between what its
deal's matches made before and what they make with it (:func:`deal_totals`).

The standings of any field are then a pass over the pairs of its versions
(:func:`frozen_tally`): a version that is replaced or disqualified leaves
its rows out, and nothing is counted again. A server at a million matches
reads its 45,000 pair rows at start, not the million matches.

Exact: every total is the same float as the sum over matches would give,
except the spread of points over deals, which is kept as a sum of squares
(equal to the two-pass sum to about 1e-12 of the points' scale). Deals that
more than one pairing played (``arena compare`` deals each board to NEW and
BASE) are marked ``mixed``: their error bars need the deal's vector, so a
board with such a pair is drawn from the matches instead (:func:`exact`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .ratings import Fitter
from .results import Cell, FrozenTally, Leaderboard, Standing
from .totals import Pair, PairTotals


class Book:
    """Every pair's totals of a competition, by version and opponent: the standings of any field come from it."""

    def __init__(self) -> None:
        self.by_version: dict[int, dict[int, PairTotals]] = {}

    def add(self, change: Mapping[Pair, PairTotals]) -> None:
        """Add a recorded match's change (:func:`deal_change`)."""
        for (version, opponent), totals in change.items():
            self.by_version.setdefault(version, {}).setdefault(opponent, PairTotals()).add(totals)

    def faults(self, version: int) -> Counter[str]:
        """Every fault of ``version`` over all its matches, by kind."""
        out: Counter[str] = Counter()
        for totals in self.by_version.get(version, {}).values():
            out.update(totals.faults)
        return out

    def played(self, version: int) -> int:
        """How many matches ``version`` has played (against anyone)."""
        return sum(t.matches for t in self.by_version.get(version, {}).values())

    def between(self, ids: Iterable[int]) -> dict[Pair, PairTotals]:
        """The totals of the pairs of two of ``ids`` that met, copied (a thread may read them meanwhile)."""
        wanted = set(ids)
        out = {}
        for version in wanted:
            for opponent, totals in self.by_version.get(version, {}).items():
                if opponent in wanted and not totals.empty:
                    copy = PairTotals()
                    copy.add(totals)
                    out[version, opponent] = copy
        return out


def exact(pairs: Mapping[Pair, PairTotals]) -> bool:
    """Whether a board drawn from these pairs is the board of their matches (no deal another pairing shared)."""
    return not any(t.mixed for t in pairs.values())


def frozen_tally(names: Mapping[int, str], pairs: Mapping[Pair, PairTotals]) -> FrozenTally:
    """The totals a leaderboard of the versions ``names`` (by id) draws from, out of their ``pairs``' totals.

    The same as a :class:`~arena.competition.results.Tally` of their matches
    (see the module's docstring for the one sum that is not bit for bit).
    """
    order = list(names)
    labels = [names[v] for v in order]
    index = {v: i for i, v in enumerate(order)}
    rows = {name: Standing(bot=name) for name in labels}
    pairwise = {a: {b: Cell() for b in labels if b != a} for a in labels}
    spreads: dict[str, tuple[int, float, float]] = dict.fromkeys(labels, (0, 0.0, 0.0))
    meetings = {}
    wins = np.zeros((len(order), len(order)))
    sums: dict[tuple[int, int], tuple[float, float, float]] = {}
    low, high, matches = math.inf, -math.inf, 0
    for (version, opponent), t in sorted(pairs.items()):
        if version not in index or opponent not in index or t.empty:
            continue
        bot, other = names[version], names[opponent]
        row, cell = rows[bot], pairwise[bot][other]
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
    return FrozenTally(
        matches=matches // 2,
        rows=rows,
        pairwise=pairwise,
        deals={},
        spreads=spreads,
        meetings=meetings,
        fitter=Fitter.of_pairs(labels, wins, sums),
        low=low,
        high=high,
    )


def board_of(
    names: Mapping[int, str],
    pairs: Mapping[Pair, PairTotals],
    *,
    max_faults: int,
    start: Mapping[str, float] | None = None,
    **options: Any,
) -> Leaderboard:
    """The leaderboard of the versions ``names`` (by id) from the pair totals (``start``: the last fit's strengths)."""
    frozen = frozen_tally(names, pairs)
    frozen.start = start
    return frozen.board(max_faults=max_faults, **options)
