"""The incremental standings of a living competition: every pair's totals as arrays, kept up to date by what changed.

A server draws its standings about once a second while the ladder plays. Reading all the pair totals of a
field of 300 (90,000 rows) and summing them in Python each time would take a second of a loaded CPU; so a
:class:`PairTable` keeps every pair's totals (:mod:`arena.competition.totals`) as rows of a numpy array, reads
from the store only the rows that matches recorded since changed (:meth:`Store.pair_totals_since`), and draws
a field's totals (:meth:`PairTable.tally`) with array sums. It holds a row per pair of versions that met,
never a match. The board it gives is :func:`~arena.competition.results.tally_of_pairs`'s, without the
pairwise cells (a server's pages read one bot's opponents from the store when they show them). A ladder's
deals are each played by one pair, so its totals are exact (:func:`~arena.competition.totals.exact`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .ratings import Fitter
from .results import FrozenTally, Standing
from .store import Store
from .table_fit import add_table_totals
from .totals import COLUMNS, Pair, PairTotals, Quad

_AT = {name: i for i, name in enumerate(COLUMNS)}


class PairTable:
    """Every pair's totals of competition ``tid``, as arrays, brought up to date from the store on demand.

    Used from one thread at a time (the server's standings are drawn in a worker thread, one drawing at once).
    """

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.touched = -1
        """The id of the last match whose change the table holds (-1: nothing read yet)."""
        self.places: dict[Pair, int] = {}
        self.values = np.zeros((0, len(COLUMNS)))
        self.version = np.zeros(0, dtype=np.int64)
        self.opponent = np.zeros(0, dtype=np.int64)
        self.faults: dict[int, dict[str, int]] = {}
        """The faults of the rows that have any, by row."""
        self.tables: dict[Quad, tuple[int, ...]] = {}
        """The deals at two tables, by their four versions: the pentanomial counts of team ONE's total."""
        self.tables_touched = -1

    def refresh(self, store: Store) -> int:
        """Read what changed since the last refresh; how many pairs changed."""
        changed, self.touched = store.pair_totals_since(self.tid, self.touched)
        for pair, totals in changed.items():
            self._put(pair, totals)
        tables, self.tables_touched = store.table_totals_since(self.tid, self.tables_touched)
        self.tables.update(tables)
        return len(changed)

    def _put(self, pair: Pair, totals: PairTotals) -> None:
        place = self.places.get(pair)
        if place is None:
            place = self.places[pair] = len(self.places)
            if place >= len(self.values):  # grown by doubling
                size = 2 * place + 64
                self.values = np.resize(self.values, (size, len(COLUMNS)))
                self.version = np.resize(self.version, size)
                self.opponent = np.resize(self.opponent, size)
            self.version[place], self.opponent[place] = pair
        self.values[place] = [getattr(totals, name) for name in COLUMNS]
        if totals.faults:
            self.faults[place] = dict(totals.faults)
        else:
            self.faults.pop(place, None)

    def tally(self, names: Mapping[int, str]) -> FrozenTally:
        """The totals a leaderboard of the versions ``names`` (by id) draws from, summed over their pairs' rows."""
        ids = np.array(sorted(names), dtype=np.int64)
        labels = [names[int(v)] for v in ids]
        n, size = len(ids), len(self.places)
        version, opponent, values = self.version[:size], self.opponent[:size], self.values[:size]
        chosen = np.flatnonzero(
            np.isin(version, ids) & np.isin(opponent, ids) & (values[:, _AT["matches"]] > 0)
        ) if n else np.zeros(0, dtype=np.int64)  # fmt: skip
        rows_of = values[chosen]
        i = np.searchsorted(ids, version[chosen]).astype(np.intp)
        j = np.searchsorted(ids, opponent[chosen]).astype(np.intp)

        def per_version(name: str) -> list[float]:
            return np.bincount(i, weights=rows_of[:, _AT[name]], minlength=n).tolist()  # type: ignore[no-any-return]

        matches, wins, draws, losses = (per_version(k) for k in ("matches", "wins", "draws", "losses"))
        points, deals, means, squares = (per_version(k) for k in ("points_for", "deals", "deal_means", "deal_squares"))
        rows = {}
        for k, label in enumerate(labels):
            rows[label] = Standing(
                bot=label, matches=round(matches[k]), wins=round(wins[k]), draws=round(draws[k]),
                losses=round(losses[k]), points=points[k],
            )  # fmt: skip
        for place in self.faults.keys() & set(chosen.tolist()):
            row = rows[names[int(version[place])]]
            for kind, count in self.faults[place].items():
                row.faults[kind] = row.faults.get(kind, 0) + count
        wins_matrix = np.zeros((n, n))
        wins_matrix[i, j] = rows_of[:, _AT["fit_score"]]
        lower = (i < j) & (rows_of[:, _AT["fit_games"]] > 0)
        sums = rows_of[lower][:, [_AT["unit_squares"], _AT["unit_products"], _AT["unit_counts"]]]
        fitter = Fitter.of_arrays(labels, wins_matrix, i[lower], j[lower], sums)
        add_table_totals(fitter, names, self.tables)
        low = float(rows_of[:, _AT["low"]].min()) if len(chosen) else float("inf")
        high = float(rows_of[:, _AT["high"]].max()) if len(chosen) else float("-inf")
        return FrozenTally(
            matches=round(sum(matches)) // 2,
            rows=rows,
            pairwise={label: {} for label in labels},
            deals={},
            spreads={label: (round(deals[k]), means[k], squares[k]) for k, label in enumerate(labels)},
            meetings={},
            fitter=fitter,
            low=low,
            high=high,
        )
