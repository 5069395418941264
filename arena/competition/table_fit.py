"""Deals at two tables into the rating fit: :func:`add_table_totals`, the one way stored table totals reach a fitter.

A deal at two tables (:class:`arena.competition.ladder.Tables`) is stored as
the five pentanomial counts of team ONE's total (``a1`` at table 1 and ``b2``
at table 2, between them both hands of the deal) per four versions
(:meth:`arena.competition.store.Store.table_totals`). Its two matches add
nothing to the pairs' fit columns (:func:`arena.competition.totals.deal_totals`):
the fit counts the deal once, here, in the one likelihood of
:meth:`arena.competition.ratings.Fitter.add_tables` (the deal's luck cancelled).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .ratings import Fitter
from .totals import Quad


def add_table_totals(fitter: Fitter, names: Mapping[int, str], tables: Mapping[Quad, Sequence[int]]) -> None:
    """Add to ``fitter`` the table totals of every quad whose four versions (ids, named by ``names``) it fits.

    In one bulk call (a server's 100,000 quads cost no call each), in the
    quads' order, so the fit is the same whatever order they were stored in.
    """
    place = fitter.index
    quads: list[list[int]] = []
    counts: list[Sequence[int]] = []
    for quad, pentanomial in sorted(tables.items()):
        labels = [names.get(v) for v in quad]
        if all(label is not None and label in place for label in labels):
            quads.append([place[label] for label in labels if label is not None])
            counts.append(pentanomial)
    if quads:
        fitter.add_table_arrays(np.array(quads, dtype=np.intp), np.array(counts, dtype=np.int64))
