"""The deals at two tables a board fits, taken from arrays (TableRows) as they were from the quads' dict."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.competition.ratings import Fitter
from arena.competition.standings import TableRows
from arena.competition.table_fit import add_table_totals


@pytest.mark.parametrize("seed", range(5))
def test_a_fields_table_rows_reach_the_fit_as_the_quads_dict_gave_them(seed: int) -> None:
    rng = random.Random(seed)
    versions = rng.sample(range(1, 400), 40)
    tables: dict[tuple[int, int, int, int], list[int]] = {}
    rows = TableRows()
    for _ in range(6):  # the rows come in as the store reports changes: new quads, and counts of old ones again
        changed: dict[tuple[int, int, int, int], list[int]] = {}
        for _ in range(rng.randint(0, 300)):
            a1, b1, a2, b2 = rng.sample(versions, 4)
            changed[a1, b1, a2, b2] = [rng.randint(0, 3) for _ in range(5)]
        for quad in rng.sample(sorted(tables), min(len(tables), 20)):
            changed[quad] = [count + 1 for count in tables[quad]]
        tables.update(changed)
        rows.update(changed)
        field = sorted(rng.sample(versions, rng.randint(0, 40)))  # a field: some versions retired or not admitted
        names = {vid: f"v{vid}" for vid in field}
        expected, got = Fitter([names[vid] for vid in field]), Fitter([names[vid] for vid in field])
        add_table_totals(expected, names, tables)
        rows.add_to(got, np.array(field, dtype=np.int64))
        assert len(got._table_arrays) == len(expected._table_arrays)
        for (quads, counts), (want_quads, want_counts) in zip(got._table_arrays, expected._table_arrays, strict=True):
            assert quads.tolist() == want_quads.tolist() and counts.tolist() == want_counts.tolist()
    assert len(rows) == len(tables)
