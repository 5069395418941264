"""The one way to a leaderboard: every pair's totals as arrays, summed for a field into its totals.

A board (:class:`~arena.competition.board.Leaderboard`) needs, of a field's
matches, only sums per ordered pair of bots (:class:`~arena.competition.totals.PairTotals`,
which the store keeps beside each result). :class:`PairArrays` holds them as
rows of a numpy array and sums a field's (:meth:`PairArrays.totals`) into
:class:`~arena.competition.board.FieldTotals`, which draw the board. Every
board is drawn so:

* a competition server keeps one :class:`PairArrays`, reads from the store only
  the rows that matches recorded since changed (:meth:`PairArrays.refresh`), and
  draws its standings about once a second with array sums (a field of 300 is
  90,000 rows: summing them in Python would take a second of a loaded CPU);
* ``arena results`` and the report read the pairs' totals once
  (:meth:`PairArrays.of_pairs`), with each pair's cell;
* a board of matches (:func:`leaderboard`: a tournament's, or a store's whose
  totals do not describe its matches exactly) first adds them up by deal into
  the same pair totals (:func:`~arena.competition.totals.deal_totals`).

A deal that two pairings shared (``arena compare`` deals each board to NEW and
BASE) is the one thing pair totals cannot describe: a bot's spread of points
over deals and the rating fit's error bars need each such deal as a whole. A
board of matches with such deals takes those two from the matches
(:func:`totals_of_matches`); every other sum still comes from the pairs.
"""

from __future__ import annotations

import io
import json
import operator
import zipfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields, replace

import numpy as np
import numpy.typing as npt

from .board import Cell, FieldTotals, Leaderboard, Standing
from .database.pairs import FieldRows
from .database.saved import Saved
from .database.tables import TableArrays
from .ratings import ONE_KEY, Fitter, Outcome, quad_keys
from .records import PENTANOMIAL, SCORE, PlayedMatch, Record, outcome_for
from .store import Store
from .table_fit import add_table_totals
from .totals import COLUMNS, Pair, PairTotals, Quad, deal_totals, exact, table_deal, table_result

_AT = {name: i for i, name in enumerate(COLUMNS)}
SAVED_LAYOUT = json.dumps({"standings arrays": 1, "file": "npz, deflated", "columns": list(COLUMNS)})
"""What :meth:`PairArrays.saved` keeps, and how: arrays saved by another are read again from the tables."""
_SAVED = ("version", "opponent", "values", "faults", "among", "rowids", "quads", "counts")
_COUNTS = ("matches", "wins", "draws", "losses", *PENTANOMIAL, "unpaired")
"""The columns of a pair's :class:`~arena.competition.records.Record`, in its fields' order."""
if tuple(f.name for f in fields(Record)) != _COUNTS:
    raise ImportError("standings: a Record's fields must be _COUNTS, in order (cells are made from them by position)")
_columns = operator.attrgetter(*COLUMNS)
"""A pair's stored columns (:data:`~arena.competition.totals.COLUMNS`), as a tuple."""


class PairArrays:
    """Every pair's totals of competition ``tid``, as arrays, brought up to date from the store on demand.

    Used from one thread at a time (a server's standings are drawn in a process of their own, one drawing at once).
    """

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.touched = -1
        """The id of the last match whose change the arrays hold (-1: nothing read yet)."""
        self.places: dict[Pair, int] = {}
        self.values = np.zeros((0, len(COLUMNS)))
        self.version = np.zeros(0, dtype=np.int64)
        self.opponent = np.zeros(0, dtype=np.int64)
        self.faults: dict[int, dict[str, int]] = {}
        """The faults of the rows that have any, by row."""
        self.tables = TableRows()
        """The deals at two tables, by their four versions: the pentanomial counts of team ONE's total."""
        self.tables_touched = -1
        self.among: set[int] | None = None
        """The versions whose pair rows the arrays hold, when they were read for a field (``None``: every row)."""
        self._field_mask: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None = None
        """A field's versions and which rows are of two of them (:meth:`_in_field`)."""

    @classmethod
    def of_pairs(
        cls, pairs: Mapping[Pair, PairTotals], tables: Mapping[Quad, Sequence[int]] | None = None
    ) -> PairArrays:
        """Arrays holding ``pairs`` (and the deals at two tables, by their four versions: the store's
        :meth:`~arena.competition.store.Store.table_totals`), not tied to a store."""
        arrays = cls(0)
        held = sorted(pairs.items())
        arrays.places = {pair: place for place, (pair, _) in enumerate(held)}
        arrays.values = np.array([_columns(totals) for _, totals in held], dtype=float).reshape(-1, len(COLUMNS))
        arrays.version = np.array([pair[0] for pair, _ in held], dtype=np.int64)
        arrays.opponent = np.array([pair[1] for pair, _ in held], dtype=np.int64)
        arrays.faults = {place: dict(totals.faults) for place, (_, totals) in enumerate(held) if totals.faults}
        arrays.tables = TableRows.of(tables or {})
        return arrays

    def refresh(self, store: Store, field: Iterable[int] | None = None) -> int:
        """Read what changed since the last refresh; how many pairs changed.

        With ``field`` (the versions a table is drawn for), the first read
        takes only the pairs of two of them, by the primary key: a retired
        version's rows stay on disk, however many there are. Later reads take
        what changed (any pair a match touched since), and the rows of a
        version of ``field`` not read yet (one entered, or admitted again)
        with the versions already held.
        """
        tables = store.repos.tables
        if field is not None and self.touched < 0:
            self.among = set(field)
            rows, self.touched = store.repos.pairs.field_rows(self.tid, self.among)
            self._hold(rows)
            held, self.tables_touched = tables.arrays_since(self.tid, -1, among=self.among)
            self.tables.update(held)
            return len(rows.version)
        changed, self.touched = store.pair_totals_since(self.tid, self.touched)
        new = set(field or ()) - self.among if self.among is not None else set()
        if new and self.among is not None:
            self.among |= new
            changed.update(store.pair_totals_touching(self.tid, new, self.among))
            self.tables.update(tables.arrays_touching(self.tid, new, self.among))
        for pair, totals in changed.items():
            self.put(pair, totals)
        held, self.tables_touched = tables.arrays_since(self.tid, self.tables_touched)
        self.tables.update(held)
        return len(changed)

    def saved(self) -> Saved | None:
        """What :meth:`of_saved` takes back: the arrays as a ``.npz`` file's bytes (no pickle), deflated, with the
        marks they were read up to (``None`` before a first read for a field)."""
        if self.touched < 0 or self.among is None:
            return None
        size, rows = len(self.places), len(self.tables)
        faults = json.dumps({str(place): kinds for place, kinds in self.faults.items()}).encode()
        out = io.BytesIO()
        np.savez(
            out,
            version=self.version[:size], opponent=self.opponent[:size], values=self.values[:size],
            faults=np.frombuffer(faults, dtype=np.uint8), among=np.array(sorted(self.among), dtype=np.int64),
            rowids=self.tables.rowids[:rows], quads=self.tables.quads[:rows], counts=self.tables.counts[:rows],
        )  # fmt: skip
        # Deflated (level 1: a million matches' 29 MB in 4 MB, 0.2 s at a stop, 0.1 s at a start).
        return Saved(SAVED_LAYOUT, self.touched, self.tables_touched, zlib.compress(out.getvalue(), 1))

    @classmethod
    def of_saved(cls, tid: int, saved: Saved) -> PairArrays:
        """The arrays :meth:`saved` kept: as they were, to be brought up to date by :meth:`refresh` (what changed
        since their marks). ``ValueError`` if they are not arrays of this layout, whole."""
        if saved.layout != SAVED_LAYOUT:
            raise ValueError("saved by another layout of the standings' arrays")
        try:
            with np.load(io.BytesIO(zlib.decompress(saved.arrays)), allow_pickle=False) as held:
                parts = {name: held[name] for name in _SAVED}
            faults = json.loads(parts["faults"].tobytes())
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise ValueError(f"unreadable saved standings: {error}") from None
        version, opponent, values = parts["version"], parts["opponent"], parts["values"]
        rowids, quads, counts = parts["rowids"], parts["quads"], parts["counts"]
        size, rows = len(version), len(rowids)
        if (
            len(opponent) != size or values.shape != (size, len(COLUMNS)) or quads.shape != (rows, 4)
            or counts.shape != (rows, 5) or not isinstance(faults, dict) or bool(np.any(np.diff(rowids) <= 0))
        ):  # fmt: skip
            raise ValueError("saved standings whose arrays do not fit together")
        arrays = cls(tid)
        arrays.version, arrays.opponent = version.astype(np.int64, copy=False), opponent.astype(np.int64, copy=False)
        arrays.values = values.astype(np.float64, copy=False)
        arrays.places = {pair: k for k, pair in enumerate(zip(version.tolist(), opponent.tolist(), strict=True))}
        if len(arrays.places) != size:
            raise ValueError("saved standings with a pair twice")
        arrays.faults = {int(place): dict(kinds) for place, kinds in faults.items()}
        arrays.among = set(parts["among"].tolist())
        arrays.tables.update(TableArrays(rowids.astype(np.int64), quads.astype(np.int32), counts.astype(np.int32)))
        arrays.touched, arrays.tables_touched = saved.pairs_touched, saved.tables_touched
        return arrays

    def _in_field(self, ids: npt.NDArray[np.int64], size: int) -> npt.NDArray[np.bool_]:
        """Which of the first ``size`` rows are of two of ``ids`` (sorted): kept for the next drawing of the same
        field, whose rows are those and a few new ones (a pair's place never changes)."""
        kept = self._field_mask
        if kept is None or not np.array_equal(kept[0], ids) or len(kept[1]) > size:
            kept = (ids.copy(), np.zeros(0, dtype=bool))
        held = len(kept[1])
        if held < size:
            more = np.isin(self.version[held:size], ids) & np.isin(self.opponent[held:size], ids)
            kept = (kept[0], np.concatenate([kept[1], more]))
        self._field_mask = kept
        return kept[1]

    def _hold(self, rows: FieldRows) -> None:
        """Hold ``rows`` (the first read: nothing held yet)."""
        pairs = zip(rows.version.tolist(), rows.opponent.tolist(), strict=True)
        self.places = {pair: k for k, pair in enumerate(pairs)}
        self.values, self.version, self.opponent = rows.values, rows.version, rows.opponent
        self._field_mask = None
        self.faults = dict(rows.faults)

    def put(self, pair: Pair, totals: PairTotals) -> None:
        """Hold ``totals`` as ``pair``'s (in place of what it held)."""
        place = self.places.get(pair)
        if place is None:
            place = self.places[pair] = len(self.places)
            if place >= len(self.values):  # grown by an eighth (a server's 100,000 pairs: doubling held 20 MB unused)
                size = grown(place)
                self.values = np.resize(self.values, (size, len(COLUMNS)))
                self.version = np.resize(self.version, size)
                self.opponent = np.resize(self.opponent, size)
            self.version[place], self.opponent[place] = pair
        self.values[place] = _columns(totals)
        if totals.faults:
            self.faults[place] = dict(totals.faults)
        else:
            self.faults.pop(place, None)

    def totals(self, names: Mapping[int, str], *, cells: bool = False) -> FieldTotals:
        """The totals of the field of versions ``names`` (by id), summed over their pairs' rows.

        With ``cells``, each bot's record against each other bot of the field
        too (a cell for every two of them, empty where they did not meet).
        """
        ids = np.array(sorted(names), dtype=np.int64)
        labels = [names[int(v)] for v in ids]
        n, size = len(ids), len(self.places)
        version, opponent, values = self.version[:size], self.opponent[:size], self.values[:size]
        chosen = np.flatnonzero(
            self._in_field(ids, size) & (values[:, _AT["matches"]] > 0)
        ) if n else np.zeros(0, dtype=np.int64)  # fmt: skip
        # The chosen rows' columns one at a time, as each is used: not a copy of every column of the field's rows
        # at once (90,000 rows of 24 at 300 versions: 17 MiB, and as much again for the fit's half, at every
        # drawing; the drawing process's RSS went 111 -> 158 MiB a second).

        def column(name: str) -> np.ndarray:
            taken: np.ndarray = values[chosen, _AT[name]]
            return taken

        i = np.searchsorted(ids, version[chosen]).astype(np.intp)
        j = np.searchsorted(ids, opponent[chosen]).astype(np.intp)

        def per_version(name: str) -> list[float]:
            return np.bincount(i, weights=column(name), minlength=n).tolist()  # type: ignore[no-any-return]

        counts = {name: per_version(name) for name in _COUNTS}
        points, deals, means, squares = (per_version(k) for k in ("points_for", "deals", "deal_means", "deal_squares"))
        rows = {}
        for k, label in enumerate(labels):
            rows[label] = Standing(bot=label, points=points[k])
            for name in _COUNTS:
                setattr(rows[label], name, round(counts[name][k]))
        rows = {label: rows[label] for label in names.values()}  # (in the field's order, as its cells)
        chosen_mask = np.zeros(size, dtype=bool)
        chosen_mask[chosen] = True
        for place in sorted(place for place in self.faults if chosen_mask[place]):  # (a few: no set of 90,000)
            row = rows[names[int(version[place])]]
            for kind, count in self.faults[place].items():
                row.faults[kind] = row.faults.get(kind, 0) + count
        pairwise: dict[str, dict[str, Cell]] = {label: {} for label in labels}
        if cells:
            shown = list(names.values())
            pairwise = {a: {b: Cell() for b in shown if b != a} for a in shown}
            counted: list[list[int]] = (
                np.rint(values[np.ix_(chosen, np.array([_AT[name] for name in _COUNTS]))]).astype(np.int64).tolist()
            )
            points_for = column("points_for").tolist()
            points_against = column("points_against").tolist()
            for k, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
                # (positional: a Cell's fields are its Record's, in _COUNTS' order, as the module checks, then its
                # points; mypy cannot count a list's items)
                cell = Cell(*counted[k], points_for[k], points_against[k])  # type: ignore[call-arg]
                pairwise[labels[a]][labels[b]] = cell
        wins_matrix = np.zeros((n, n))
        wins_matrix[i, j] = column("fit_score")
        lower = (i < j) & (column("fit_games") > 0)
        sums = values[np.ix_(chosen[lower], np.array([_AT["unit_squares"], _AT["unit_products"], _AT["unit_counts"]]))]
        fitter = Fitter.of_arrays(labels, wins_matrix, i[lower], j[lower], sums)
        self.tables.add_to(fitter, ids)
        low = float(column("low").min()) if len(chosen) else float("inf")
        high = float(column("high").max()) if len(chosen) else float("-inf")
        return FieldTotals(
            matches=round(sum(counts["matches"])) // 2,
            rows=rows,
            pairwise=pairwise,
            spreads={label: (round(deals[k]), means[k], squares[k]) for k, label in enumerate(labels)},
            fitter=fitter,
            low=low,
            high=high,
        )


class TableRows:
    """The deals at two tables of a competition by their four versions, as arrays, kept up to date.

    At 300 bots four versions almost never meet twice, so there is a row per
    deal (50,000 at 100,000 matches): they grow with the history (a board
    reads only the field's: a retired version's deals stay on disk), a row is
    known by its rowid in ``table_totals`` (updated in place, never
    replaced), and a board takes its field's rows by a few array operations
    over them, never by a loop in Python (it held the interpreter, and the
    server's pages with it, for most of each drawing of the standings).
    """

    def __init__(self) -> None:
        self.size = 0
        self.rowids = np.zeros(0, dtype=np.int64)
        """Each row's rowid in ``table_totals``, ascending."""
        self.quads = np.zeros((0, 4), dtype=np.int32)
        """Each row's four versions ``(a1, b1, a2, b2)``."""
        self.counts = np.zeros((0, 5), dtype=np.int32)
        """Each row's pentanomial counts of team ONE's total."""
        self._fit: _FieldDeals | None = None
        """A field's deals in the fit's order, as last asked for (:meth:`field_deals`)."""
        self._changed: list[npt.NDArray[np.intp]] = []
        """The rows updated in place since then (by place)."""

    def __len__(self) -> int:
        return self.size

    @classmethod
    def of(cls, tables: Mapping[Quad, Sequence[int]]) -> TableRows:
        """The rows of ``tables`` (the store's :meth:`~arena.competition.store.Store.table_totals`)."""
        rows = cls()
        rows.update(TableArrays.of([(k, *quad, *counts) for k, (quad, counts) in enumerate(sorted(tables.items()))]))
        return rows

    def update(self, arrays: TableArrays) -> None:
        """Hold each row of ``arrays`` (in place of what its rowid held)."""
        if not len(arrays.rowids):
            return
        held = self.rowids[: self.size]
        place = np.minimum(np.searchsorted(held, arrays.rowids), max(self.size - 1, 0))
        found = (held[place] == arrays.rowids) if self.size else np.zeros(len(arrays.rowids), dtype=bool)
        self.quads[place[found]] = arrays.quads[found]
        self.counts[place[found]] = arrays.counts[found]
        if self._fit is not None and found.any():
            self._changed.append(place[found].astype(np.intp))
        new = ~found
        added = int(new.sum())
        if not added:
            return
        end = self.size + added
        if end > len(self.rowids):  # grown by an eighth, as the pairs' arrays
            capacity = grown(end)
            self.rowids = np.resize(self.rowids, capacity)
            self.quads = np.resize(self.quads, (capacity, 4))
            self.counts = np.resize(self.counts, (capacity, 5))
        self.rowids[self.size : end] = arrays.rowids[new]
        self.quads[self.size : end] = arrays.quads[new]
        self.counts[self.size : end] = arrays.counts[new]
        if self.size and arrays.rowids[new][0] < self.rowids[self.size - 1]:  # older rows first read now (a
            # version that joined the field brought its deals): sorted in; new rows come in ascending already
            order = np.argsort(self.rowids[:end], kind="stable")
            self.rowids[:end], self.quads[:end], self.counts[:end] = (
                self.rowids[:end][order], self.quads[:end][order], self.counts[:end][order]
            )  # fmt: skip
            self._fit, self._changed = None, []  # (rows moved: the field's deals are taken again)
        self.size = end

    def add_to(self, fitter: Fitter, ids: npt.NDArray[np.int64]) -> None:
        """Add to ``fitter`` (of the versions ``ids``, sorted, in their order) the rows of four of ``ids``, in the
        fit's order (:meth:`field_deals`). Not copied: the arrays change at the next call, and ``fitter`` is used
        before it (a drawing's)."""
        places, counts = self.field_deals(ids)
        if len(places):
            fitter.add_table_arrays(places, counts, in_order=len(ids) < ONE_KEY, copy=False)

    def field_deals(self, ids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """The rows of four of ``ids`` (sorted), as places in ``ids``, with their counts: each quad once,
        ascending, the order in which a fit reads them.

        Kept between calls for the same ``ids``: a server's standings are drawn
        about once a second from 250,000 deals of which a few dozen are new,
        so the rows added since the last call are sorted in and those updated
        in place are written over; the field's whole sort is done once (and
        again when the field changes, or a version joining it brings older rows).
        """
        fit = self._fit
        if fit is None or not np.array_equal(fit.ids, ids) or len(ids) >= ONE_KEY:
            fit = self._fit = _FieldDeals(ids)
            self._changed = []
        rows = np.arange(fit.size, self.size, dtype=np.intp)
        if self._changed:
            rows = np.unique(np.concatenate([*self._changed, rows]))
            self._changed = []
        fit.size = self.size
        if len(rows) and len(ids):
            quads = np.take(self.quads, rows, axis=0)
            place_of = np.full(max(int(ids.max()), int(quads.max())) + 1, -1, dtype=np.intp)  # by version id
            place_of[ids] = np.arange(len(ids))
            places = place_of[quads]
            inside = np.flatnonzero((places >= 0).all(axis=1))
            # (np.take: a mask's rows of a 2-D array are ten times slower to gather)
            fit.put(np.take(places, inside, axis=0), np.take(self.counts, rows[inside], axis=0))
        return fit.places, fit.counts


class _FieldDeals:
    """A field's deals at two tables as :meth:`TableRows.field_deals` keeps them: each quad once, ascending
    (a field of ``ONE_KEY`` versions or more: taken whole each time, in the rows' order, for the fitter to sort)."""

    def __init__(self, ids: npt.NDArray[np.int64]) -> None:
        self.ids = ids.copy()
        self.size = 0
        """How many of the rows (by place) it has taken."""
        self.keys = np.zeros(0, dtype=np.int64)
        """Each quad as one number."""
        self.places = np.zeros((0, 4), dtype=np.int32)
        self.counts = np.zeros((0, 5), dtype=np.int32)

    def put(self, places: npt.NDArray[np.intp], counts: npt.NDArray[np.int32]) -> None:
        """Hold ``counts`` as the counts of the quads ``places`` (each once): those held, written over; the
        others, sorted in."""
        if not len(places):
            return
        n = len(self.ids)
        if n >= ONE_KEY:  # (taken whole each time: no row held before)
            self.places, self.counts = places.astype(np.int32), counts
            return
        keys = quad_keys(places, n)
        at = np.searchsorted(self.keys, keys)
        held = at < len(self.keys)
        held[held] = self.keys[at[held]] == keys[held]
        self.counts[at[held]] = counts[held]
        new = ~held
        if not new.any():
            return
        order = np.argsort(keys[new], kind="stable")
        keys, places, counts, at = keys[new][order], places[new][order], counts[new][order], at[new][order]
        self.keys = np.insert(self.keys, at, keys)
        self.places = np.insert(self.places, at, places, axis=0)
        self.counts = np.insert(self.counts, at, counts, axis=0)


def grown(size: int) -> int:
    """The room to make for ``size`` rows of arrays that grow a few rows at a time: an eighth more (and at least
    a thousand), so that growing copies them a few dozen times over a server's life and leaves little unused."""
    return size + size // 8 + 1024


def totals_of_matches(names: Sequence[str], matches: Sequence[PlayedMatch]) -> FieldTotals:
    """The totals of the field ``names`` over ``matches`` (each between two of them), with every cell.

    The matches are added up by deal into pair totals, as the store keeps
    them, and summed as every board is (:meth:`PairArrays.totals`). Where a
    deal was shared by two pairings, the spreads and the rating fit are taken
    from the matches themselves (see the module's docstring).
    """
    index = {name: place for place, name in enumerate(names)}
    by_deal: dict[str, list[PlayedMatch]] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    pairs: dict[Pair, PairTotals] = {}
    tables: dict[Quad, list[int]] = {}
    for deal, played in by_deal.items():
        for pair, part in deal_totals(played, index).items():
            pairs.setdefault(pair, PairTotals()).add(part)
        if table_deal(deal) is None:
            continue
        placed = [replace(m, versions=(index[m.bot_a], index[m.bot_b])) for m in played]
        found = table_result(placed)
        if found is not None:
            quad, kind = found
            tables.setdefault(quad, [0] * 5)[kind] += 1
    totals = PairArrays.of_pairs(pairs, tables).totals(dict(enumerate(names)), cells=True)
    if not exact(pairs):
        _from_shared_deals(totals, names, by_deal, tables)
    return totals


def _from_shared_deals(
    totals: FieldTotals,
    names: Sequence[str],
    by_deal: Mapping[str, Sequence[PlayedMatch]],
    tables: Mapping[Quad, Sequence[int]],
) -> None:
    """Take ``totals``' spreads and rating fit from the matches, deal by deal (deals two pairings shared)."""
    deals: dict[str, dict[str, tuple[float, int]]] = {name: {} for name in names}
    fitter = Fitter(names)
    for deal, played in by_deal.items():
        at_tables = table_deal(deal) is not None
        for match in played:
            for seat, points in zip("AB", match.points, strict=True):
                bot = match.bot(seat)
                total, count = deals[bot].get(deal, (0.0, 0))
                deals[bot][deal] = (total + points, count + 1)
            if len(match.forfeit) < 2 and not at_tables:  # (a deal at two tables: counted whole, below)
                fitter.add(Outcome(match.bot_a, match.bot_b, SCORE[outcome_for(match, "A")], deal))
    add_table_totals(fitter, dict(enumerate(names)), tables)
    totals.deals, totals.fitter = deals, fitter


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
    return totals_of_matches(names, matches).board(
        max_faults=max_faults, scheduled=scheduled, points_name=points_name, prior_games=prior_games, rank_by=rank_by
    )
