"""The ladder's book of pairs at start: read from the standings' totals, never from the matches."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from pathlib import Path

import pytest

from arena.competition.ladder import Ladder, Pair, PairBook, Policy, Tables
from arena.competition.store import PlayedMatch, Store
from arena.games import get_game
from protocol import Limits


def _versions(store: Store, tid: int, names: list[str]) -> dict[str, int]:
    out = {}
    for slot, name in enumerate(names):
        row = store.add_version(
            tid, name=name, slot=slot, command=("true",), source=name, digest=name, process="reused"
        )  # fmt: skip
        store.set_admission(row.id, "admitted")
        out[row.label] = row.id
    return out


def _matches(deal: Pair | Tables, ids: dict[str, int], rng: random.Random) -> list[PlayedMatch]:
    out = []
    for scheduled in deal.matches(seed=3):
        winner: str | None = rng.choice(["A", "B", None])
        points = {"A": (1.0, 0.0), "B": (0.0, 1.0), None: (0.5, 0.5)}[winner]
        out.append(
            PlayedMatch(
                key=scheduled.key, cycle=0, deal=scheduled.deal, leg=scheduled.leg, bot_a=scheduled.bot_a,
                bot_b=scheduled.bot_b, seed=scheduled.seed, points=points, winner=winner,
                versions=(ids[scheduled.bot_a], ids[scheduled.bot_b]),
            )
        )  # fmt: skip
    return out


def _history(store: Store, tid: int, ids: dict[str, int]) -> list[list[PlayedMatch]]:
    """A ladder's history in both schemes: numbered as the ladder numbers them, some deals half-played at the end."""
    rng = random.Random(7)
    labels = sorted(ids)
    pairs: dict[tuple[str, str], int] = {}
    quads: dict[tuple[str, ...], int] = {}
    deals: list[list[PlayedMatch]] = []
    for turn in range(120):
        if turn % 3:
            a, b = sorted(rng.sample(labels, 2))
            number = pairs[a, b] = pairs.get((a, b), -1) + 1
            single = turn % 7 == 0
            deal: Pair | Tables = Pair(a, b, number, (number % 2,) if single else (0, 1), single=single)
        else:
            a1, b1, a2, b2 = rng.sample(labels, 4)
            number = quads[a1, b1, a2, b2] = quads.get((a1, b1, a2, b2), -1) + 1
            deal = Tables(a1, b1, a2, b2, number)
        deals.append(_matches(deal, ids, rng))
    return deals


def _record_all(store: Store, tid: int, ids: dict[str, int]) -> list[PlayedMatch]:
    deals = _history(store, tid, ids)
    order = [m for deal in deals[:-3] for m in deal]
    order += [deals[-3][0], deals[-2][0], deals[-1][0]]  # a stop: three deals in play, one leg of each recorded
    for match in order:
        assert store.record_match(tid, match)
    return order


def _same(stored: PairBook, of_keys: PairBook) -> bool:
    """Whether a book read from the store is the book of the keys: the same but for the deals at two tables it
    asks the store about (it holds only those not finished)."""
    assert stored.last_tables.items() <= of_keys.last_tables.items()
    assert all(stored.last_table(quad) == last for quad, last in of_keys.last_tables.items())
    return dataclasses.replace(stored, last_tables={}) == dataclasses.replace(of_keys, last_tables={})


def test_the_book_read_from_the_totals_is_the_book_of_the_matches_keys(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(7)])
        rng = random.Random(7)
        checked = 0
        for deal in _history(store, tid, ids):
            for match in deal:
                assert store.record_match(tid, match)
                checked += 1
                assert _same(PairBook.of_store(store, tid), PairBook.of(store.match_keys(tid))), f"after {checked}"
        store.record_match(tid, _matches(Pair("v0", "v1", 99), ids, rng)[0])  # half-played: finished first
        kept = PairBook.of_store(store, tid)
        assert _same(kept, PairBook.of(store.match_keys(tid))) and "v0~v1~99" in kept.partial


def test_a_stop_s_half_played_deals_and_retired_versions(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(6)])
        _record_all(store, tid, ids)
        from_keys = PairBook.of(store.match_keys(tid))
        assert _same(PairBook.of_store(store, tid), from_keys)
        assert from_keys.partial or from_keys.partial_tables
        store.retire(ids["v5"], "changed")  # a retired version's rows stay on disk, out of the book
        kept = PairBook.of_store(store, tid)
        assert not any("v5" in pair for pair in kept.met) and kept.met == {
            pair: count for pair, count in from_keys.met.items() if "v5" not in pair
        }


def test_a_ladder_starts_without_reading_the_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a ladder's start reads of the matches is bounded: the last few by their ids and keys by the index, never
    the whole table (a server at a million matches read every key: 1.4 s)."""
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(6)])
        _record_all(store, tid, ids)
        expected = PairBook.of(store.match_keys(tid))

        def refused(*_args: object) -> None:
            raise AssertionError("the ladder's start read every match")

        monkeypatch.setattr(store, "match_keys", refused)
        monkeypatch.setattr(store, "finished_keys", refused)
        monkeypatch.setattr(store, "matches", refused)
        statements: list[str] = []
        db: sqlite3.Connection = store._db
        db.set_trace_callback(statements.append)
        ladder = Ladder(
            store, tid, get_game("rps-poker"), Limits(), seed=1, policy=Policy(), field=dict, ratings=dict
        )  # fmt: skip
        db.set_trace_callback(None)
        assert _same(ladder.state.book, expected)
        reads = [s for s in statements if "FROM matches" in s]
        assert reads and all("LIMIT" in s or "match_key =" in s for s in reads), reads


def test_a_running_book_keeps_no_row_per_finished_deal_and_numbers_the_next_from_the_store(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
        ids = _versions(store, tid, [f"v{i}" for i in range(5)])
        ladder = Ladder(store, tid, get_game("rps-poker"), Limits(), seed=1, policy=Policy(), field=dict, ratings=dict)
        book = ladder.state.book
        rng = random.Random(5)
        quad = ("v0", "v1", "v2", "v3")
        for number in range(3):
            first, second = _matches(Tables(*quad, number), ids, rng)
            for match in (first, second):
                assert store.record_match(tid, match)
                book.record(match.key)
            assert book.last_tables == {} and book.last_table(quad) == number  # (asked of the store)
        half = _matches(Tables(*quad, 3), ids, rng)[0]
        assert store.record_match(tid, half)
        book.record(half.key)
        assert book.last_tables == {quad: 3} and book.last_table(quad) == 3
        assert book.last_table(("v4", "v1", "v2", "v3")) == -1
        assert _same(book, PairBook.of(store.match_keys(tid)))
