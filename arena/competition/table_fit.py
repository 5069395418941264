"""Deals at two tables into the rating fit: :func:`add_tables`, the ladder's one call into the fitter for them.

A deal at two tables (:class:`arena.competition.ladder.Tables`) is stored as
the five pentanomial counts of team ONE's total (``a1`` at table 1 and ``b2``
at table 2, between them both hands of the deal) per four versions
(:meth:`arena.competition.store.Store.table_totals`). Its two matches add
nothing to the pairs' fit columns (:func:`arena.competition.totals.deal_totals`):
the fit counts the deal once, here.

A fitter that knows deals at two tables (``Fitter.add_tables``, one likelihood
for pairs and table deals, with the deal's luck cancelled) takes them itself.
Until then this module fits each deal as its two tables, each crediting its
team-ONE seat with the team's mean score ``t / 2`` and counted as a unit of
its own: the strengths' estimates are what the tables' results make of the
four versions on average, and the error bars take no credit for the luck the
two tables cancel (they are wider than the full fit's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .ratings import Fitter


def add_tables(fitter: Fitter, a1: str, b1: str, a2: str, b2: str, pentanomial: Sequence[int], sign: int = 1) -> None:
    """Add (``sign`` -1: remove) the deals of these four versions in these places to ``fitter``.

    ``pentanomial[k]``: deals where team ONE ({``a1``, ``b2``}) totalled ``k / 2``.
    """
    own = getattr(fitter, "add_tables", None)
    if own is not None:
        own(a1, b1, a2, b2, pentanomial, sign)
        return
    index = fitter.index
    for winner, loser in ((a1, b1), (b2, a2)):  # the team-ONE seat of each table, and its opponent
        i, j = index[winner], index[loser]
        scored = sum(count * kind / 4 for kind, count in enumerate(pentanomial))
        deals = float(sum(pentanomial))
        if i == j or not deals:
            continue
        # Each deal a unit of its own: sum S^2, sum n S, sum n^2 over deals, S the first's (lower index) score.
        first_scores = [(kind / 4 if i < j else 1 - kind / 4, count) for kind, count in enumerate(pentanomial)]
        sums = [
            sum(count * s * s for s, count in first_scores),
            sum(count * s for s, count in first_scores),
            deals,
        ]
        _add_pair(fitter, i, j, sign * scored, sign * (deals - scored), [sign * v for v in sums])


def _add_pair(fitter: Fitter, i: int, j: int, won: float, lost: float, sums: list[float]) -> None:
    """``i`` scored ``won`` against ``j`` and ``j`` scored ``lost``; the pair's unit sums grow by ``sums``."""
    first, second = min(i, j), max(i, j)
    arrays = fitter._sum_arrays
    if fitter._wins_array is not None:  # (made from arrays: copied, since those are shared)
        wins = fitter._wins_array.copy()
        wins[i, j] += won
        wins[j, i] += lost
        fitter._wins_array = wins
    else:
        fitter.wins[i][j] += won
        fitter.wins[j][i] += lost
    if arrays is not None:
        firsts, seconds, table = arrays
        firsts = np.append(firsts, np.intp(first)).astype(np.intp)
        seconds = np.append(seconds, np.intp(second)).astype(np.intp)
        table = np.vstack([table.reshape(-1, 3), np.array(sums, dtype=np.float64)])
        order = np.lexsort((seconds, firsts))
        fitter._sum_arrays = (firsts[order], seconds[order], table[order])
    else:
        totals = fitter._sums.setdefault((first, second), [0.0, 0.0, 0.0])
        for k, value in enumerate(sums):
            totals[k] += value
