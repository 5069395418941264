"""The deals at two tables a board fits, taken from arrays (TableRows) as they were from the quads' dict."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from arena.competition.database.tables import TableArrays
from arena.competition.ladder import Tables
from arena.competition.ratings import Fitter
from arena.competition.standings import PairArrays, TableRows
from arena.competition.store import Store
from arena.competition.table_fit import add_table_totals


@pytest.mark.parametrize("seed", range(5))
def test_a_fields_table_rows_reach_the_fit_as_the_quads_dict_gave_them(seed: int) -> None:
    rng = random.Random(seed)
    versions = rng.sample(range(1, 400), 40)
    tables: dict[tuple[int, int, int, int], list[int]] = {}
    rowids: dict[tuple[int, int, int, int], int] = {}  # as the store's: a quad's row is updated in place
    rows = TableRows()
    field: list[int] | None = None
    for _ in range(10):  # the rows come in as the store reports changes: new quads, and counts of old ones again
        changed: dict[tuple[int, int, int, int], list[int]] = {}
        for _ in range(rng.randint(0, 300)):
            a1, b1, a2, b2 = rng.sample(versions, 4)
            changed[a1, b1, a2, b2] = [rng.randint(0, 3) for _ in range(5)]
        for quad in rng.sample(sorted(tables), min(len(tables), 20)):
            changed[quad] = [count + 1 for count in tables[quad]]
        tables.update(changed)
        for quad in changed:
            rowids.setdefault(quad, len(rowids) + 1)
        got_rows = [(rowids[quad], *quad, *counts) for quad, counts in changed.items()]
        rng.shuffle(got_rows)
        rows.update(TableArrays.of(got_rows))
        if field is None or rng.random() < 0.4:  # a field: some versions retired or not admitted; or the same field
            # as before, whose deals the rows keep in the fit's order, sorting in the new and changed ones
            field = sorted(rng.sample(versions, rng.randint(0, 40)))
        names = {vid: f"v{vid}" for vid in field}
        expected, got = Fitter([names[vid] for vid in field]), Fitter([names[vid] for vid in field])
        add_table_totals(expected, names, tables)
        rows.add_to(got, np.array(field, dtype=np.int64))
        want, found = expected._table_totals(), got._table_totals()  # (each quad once, in the fitter's order)
        assert (want is None) == (found is None)
        if want is not None and found is not None:
            assert want.places.tolist() == found.places.tolist()
            assert [a.tolist() for a in (want.lost, want.half_lost, want.half_won, want.won)] == [
                a.tolist() for a in (found.lost, found.half_lost, found.half_won, found.won)
            ]
            assert expected.ratings().elo == got.ratings().elo  # the same fit, bit for bit
    assert len(rows) == len(tables)


def test_rows_that_come_in_out_of_order_are_held_by_their_rowids() -> None:
    rows = TableRows()
    rows.update(TableArrays.of([(5, 1, 2, 3, 4, 1, 0, 0, 0, 0), (9, 2, 3, 4, 5, 0, 1, 0, 0, 0)]))
    rows.update(TableArrays.of([(7, 3, 4, 5, 6, 0, 0, 1, 0, 0), (5, 1, 2, 3, 4, 2, 0, 0, 0, 0)]))
    assert rows.rowids[: len(rows)].tolist() == [5, 7, 9]
    assert rows.counts[: len(rows)].tolist() == [[2, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0]]
    assert rows.quads[: len(rows)].tolist() == [[1, 2, 3, 4], [3, 4, 5, 6], [2, 3, 4, 5]]


def test_a_board_read_for_a_field_gets_the_deals_of_a_version_that_joins_it_later(tmp_path: Path) -> None:
    """The first read takes only the deals of four of the field (a retired version's stay on disk); a version
    that joins the field later (admitted again) brings its deals with the field's, and the fit is the one a
    first read of the whole field makes."""
    from .test_ladder_book import _matches, _versions

    rng = random.Random(3)
    with Store.open(tmp_path / "tables.sqlite") as store:
        tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(7)])
        labels = sorted(ids)
        for number in range(60):
            a1, b1, a2, b2 = rng.sample(labels, 4)
            for match in _matches(Tables(a1, b1, a2, b2, number), ids, rng):
                assert store.record_match(tid, match)
        late = ids["v6"]
        field = sorted(vid for vid in ids.values() if vid != late)
        arrays = PairArrays(tid)
        arrays.refresh(store, field)
        held = {tuple(quad) for quad in arrays.tables.quads[: len(arrays.tables)].tolist()}
        assert held and not any(late in quad for quad in held)  # (the late one's deals stay on disk)
        arrays.refresh(store, [*field, late])
        whole = PairArrays(tid)
        whole.refresh(store, [*field, late])
        names = {vid: f"v{vid}" for vid in ids.values()}
        got, want = (a.totals(names).fitter._table_totals() for a in (arrays, whole))
        assert got is not None and want is not None and got.places.tolist() == want.places.tolist()
        assert any(ids["v6"] in quad for quad in arrays.tables.quads[: len(arrays.tables)].tolist())


def _deals(store: Store, tid: int, ids: dict[str, int], labels: list[str], rng: random.Random, count: int) -> None:
    """``count`` deals among ``labels``: at two tables (four of them) and of pairs, half-played ones among them."""
    from arena.competition.ladder import Pair

    from .test_ladder_book import _matches

    for _ in range(count):
        number = rng.randrange(10**6)
        if rng.random() < 0.7 and len(labels) >= 4:
            deal: Pair | Tables = Tables(*rng.sample(labels, 4), number)
        else:
            deal = Pair(*rng.sample(labels, 2), number)
        played = _matches(deal, ids, rng)
        for match in played[: len(played) - (len(labels) > 2 and rng.random() < 0.2)]:  # (some left half-played)
            store.record_match(tid, match)


def test_saved_arrays_brought_up_to_date_draw_what_a_first_read_draws(tmp_path: Path) -> None:
    """A server's stop saves its arrays (``PairArrays.saved``); the next start takes them back and reads only what
    changed since (matches recorded after the save, a version joining the field): the same totals and fit as a
    first read of everything."""
    from .test_ladder_book import _versions

    rng = random.Random(11)
    with Store.open(tmp_path / "saved.sqlite") as store:
        tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(8)])
        labels = sorted(ids)
        late = ids["v7"]
        _deals(store, tid, ids, labels[:7], rng, 80)
        field = sorted(vid for vid in ids.values() if vid != late)
        running = PairArrays(tid)
        running.refresh(store, field)
        saved = running.saved()
        assert saved is not None
        # After the stop: a deal of the first two first (their pair touched then only), then new deals and pairs,
        # the late version's too.
        _deals(store, tid, ids, labels[:2], rng, 1)
        _deals(store, tid, ids, labels[1:], rng, 60)
        restored = PairArrays.of_saved(tid, saved)
        first_read = store.repos.pairs.field_rows
        store.repos.pairs.field_rows = None  # type: ignore[assignment]  # (what changed only: no first read)
        restored.refresh(store, [*field, late])
        store.repos.pairs.field_rows = first_read  # type: ignore[method-assign]
        whole = PairArrays(tid)
        whole.refresh(store, [*field, late])
        names = {vid: label for label, vid in ids.items()}
        got, want = restored.totals(names), whole.totals(names)
        assert got.rows == want.rows and got.matches == want.matches
        got_tables, want_tables = got.fitter._table_totals(), want.fitter._table_totals()
        assert got_tables is not None and want_tables is not None
        assert got_tables.places.tolist() == want_tables.places.tolist()
        got_fit, want_fit = got.fitter.ratings(), want.fitter.ratings()
        assert all(abs(a - b) < 1e-9 for a, b in zip(got_fit.elo, want_fit.elo, strict=True))
        assert any(late in quad for quad in restored.tables.quads[: len(restored.tables)].tolist())


def test_saved_arrays_of_another_layout_or_damaged_are_refused_not_misread(tmp_path: Path) -> None:
    from arena.competition.database.saved import Saved

    from .test_ladder_book import _versions

    with Store.open(tmp_path / "saved.sqlite") as store:
        tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(5)])
        _deals(store, tid, ids, sorted(ids), random.Random(2), 20)
        arrays = PairArrays(tid)
        arrays.refresh(store, sorted(ids.values()))
        saved = arrays.saved()
    assert saved is not None and PairArrays.of_saved(tid, saved).places == arrays.places
    other = saved._replace(layout=saved.layout.replace("points_for", "points"))
    cut = saved._replace(arrays=saved.arrays[: len(saved.arrays) // 2])
    for bad in (other, cut, Saved(saved.layout, 1, 1, b"not arrays")):
        with pytest.raises(ValueError):
            PairArrays.of_saved(tid, bad)


def test_a_running_servers_arrays_total_each_field_as_a_first_read_does(tmp_path: Path) -> None:
    """The arrays keep, between drawings, which rows are of the field's versions (new rows added to it): drawn
    again after new pairs, for another field and back, each total is that of a first read."""
    from .test_ladder_book import _versions

    rng = random.Random(5)
    with Store.open(tmp_path / "running.sqlite") as store:
        tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(7)])
        labels = sorted(ids)
        running = PairArrays(tid)
        whole_field = sorted(ids.values())
        fields = [whole_field[:5], whole_field[:5], whole_field[1:], whole_field[:5], whole_field]
        for turn, field in enumerate(fields):
            _deals(store, tid, ids, labels[: 4 + turn % 4], rng, 15)  # (new pairs as more versions play)
            running.refresh(store, whole_field)
            fresh = PairArrays(tid)
            fresh.refresh(store, whole_field)
            names = {vid: f"v{vid}" for vid in field}
            got, want = running.totals(names), fresh.totals(names)
            assert got.rows == want.rows and got.matches == want.matches, turn
