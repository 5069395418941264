"""The competition's catalogue part on its own: versions and matches read from a store, no server running."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.spec import resolve
from arena.competition.plan import enter_version
from arena.competition.store import PlayedMatch, Store
from arena.server.catalogue import Catalogue, relative_paths
from arena.server.state import State

from .servertools import MINIMAL_BOT


@pytest.fixture
def catalogue(tmp_path: Path) -> Iterator[Catalogue]:
    store = Store.open(tmp_path / "server.sqlite")
    state = State(store)
    tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
    yield Catalogue(store, state, tid, tmp_path)
    state.close()
    store.close()


def enter(catalogue: Catalogue, name: str) -> int:
    """A new version of ``name``'s bot (the minimal bot's files), entered as the server enters one; its id."""
    owner = catalogue.state.participant_named(name) or catalogue.state.add_participant(name)[0]
    row = enter_version(catalogue.store, catalogue.tid, name, resolve(str(MINIMAL_BOT)))
    catalogue.state.add_entry(row.id, owner.id, submission_id=None, folder=str(MINIMAL_BOT))
    catalogue.forget()
    return row.id


def record(catalogue: Catalogue, key: str, a: tuple[str, int], b: tuple[str, int]) -> None:
    deal, _, leg = key.rpartition("-")
    match = PlayedMatch(
        key=key, cycle=0, deal=deal, leg=0 if leg in "a1s" else 1, bot_a=a[0], bot_b=b[0], seed=1, points=(1, 0),
        winner="A", versions=(a[1], b[1]),
    )  # fmt: skip
    assert catalogue.store.record_match(catalogue.tid, match)


def test_versions_by_owner_and_number_and_read_again_when_forgotten(catalogue: Catalogue) -> None:
    first, bob = enter(catalogue, "alice"), enter(catalogue, "bob")
    assert [v.label for v in catalogue.versions()] == ["alice", "bob"]
    alice = catalogue.state.participant_named("alice")
    assert alice is not None
    seen = catalogue.versions(alice.id)
    second = catalogue.store.add_version(
        catalogue.tid, name="alice", slot=0, command=["x"], source="x", digest="d", process="fresh"
    )
    catalogue.state.add_entry(second.id, alice.id, submission_id=None, folder="/nowhere")
    assert catalogue.versions(alice.id) == seen  # read once, until told
    catalogue.forget()
    assert [v.number for v in catalogue.versions(alice.id)] == [1, 2]
    assert catalogue.version(alice.id, 2) is not None and catalogue.version(alice.id, 3) is None
    assert {v.id for v in catalogue.versions()} == {first, bob, second.id}


def test_specs_of_current_versions_named_by_label(catalogue: Catalogue) -> None:
    vid = enter(catalogue, "alice")
    catalogue.load_specs()
    assert catalogue.specs[vid].name == "alice" and catalogue.specs[vid].owner.startswith("participant ")
    assert catalogue.build_log(catalogue.versions()[0]) is None  # the minimal bot has no build step


def test_a_deal_is_over_once_both_its_matches_are_recorded(catalogue: Catalogue) -> None:
    a, b = ("alice", enter(catalogue, "alice")), ("bob", enter(catalogue, "bob"))
    record(catalogue, "p1-a", a, b)
    first = catalogue.match("p1-a")
    assert first is not None and not catalogue.deal_over(first)
    record(catalogue, "p1-b", b, a)
    assert catalogue.deal_over(first)
    tables = "alice~bob~carol~dave~7"  # a deal at two tables: over with the other table
    record(catalogue, f"{tables}-1", a, b)
    table = catalogue.match(f"{tables}-1")
    assert table is not None and not catalogue.deal_over(table)
    record(catalogue, f"{tables}-2", b, a)
    assert catalogue.deal_over(table)
    record(catalogue, "q3-s", a, b)  # a single deal: over once played
    single = catalogue.match("q3-s")
    assert single is not None and catalogue.deal_over(single)


def test_matches_named_by_version_and_filtered_by_participant(catalogue: Catalogue) -> None:
    a, b = ("alice", enter(catalogue, "alice")), ("bob", enter(catalogue, "bob"))
    c = ("carol", enter(catalogue, "carol"))
    record(catalogue, "p1-a", a, b)
    record(catalogue, "p2-a", b, c)
    alice = catalogue.state.participant_named("alice")
    assert [m.key for m in catalogue.latest_matches(10)] == ["p2-a", "p1-a"]
    assert [m.key for m in catalogue.latest_matches(10, participant=alice)] == ["p1-a"]
    v2 = enter(catalogue, "bob")
    record(catalogue, "p3-a", ("bob", v2), c)
    assert [(m.bot_a, m.bot_b) for m in catalogue.labelled(catalogue.latest_matches(1))] == [("bob.v2", "carol")]


def test_the_servers_own_paths_are_cut_out() -> None:
    assert relative_paths("/srv/data/bots/alice/s1/bot.py: error", Path("/srv/data/bots/alice/s1")) == "bot.py: error"
    assert relative_paths("in /srv/data", Path("/srv/data")) == "in ."


def test_a_page_of_matches_learns_which_deals_are_over_in_one_read_and_keeps_them(catalogue: Catalogue) -> None:
    a, b = ("alice", enter(catalogue, "alice")), ("bob", enter(catalogue, "bob"))
    tables = "alice~bob~carol~dave~"
    for n in range(30):
        record(catalogue, f"{tables}{n}-1", a, b)
        if n % 3:  # a third of the deals still wait for their other table
            record(catalogue, f"{tables}{n}-2", b, a)
    record(catalogue, "p1-a", a, b)
    record(catalogue, "p2-a", a, b)
    record(catalogue, "p2-b", b, a)
    page = catalogue.latest_matches(100)
    statements: list[str] = []
    catalogue.store._db.set_trace_callback(statements.append)
    over = catalogue.deals_over(page)
    assert len(statements) == 1
    assert over == {f"{tables}{n}-{t}" for n in range(30) if n % 3 for t in (1, 2)} | {"p2-a", "p2-b"}
    statements.clear()
    assert [catalogue.deal_over(m) for m in page] == [m.key in over for m in page]
    asked = len(statements)
    assert asked == sum(2 for m in page if m.key not in over)  # only the deals not over yet are asked again
    record(catalogue, f"{tables}0-2", b, a)
    first = catalogue.match(f"{tables}0-1")
    assert first is not None and catalogue.deal_over(first)  # a deal over since is seen at once


def test_matches_are_read_by_their_keys_in_one_read(catalogue: Catalogue) -> None:
    a, b = ("alice", enter(catalogue, "alice")), ("bob", enter(catalogue, "bob"))
    for key in ("x-1", "x-2", "y-a", "y-b"):
        record(catalogue, key, a, b)
    keys = ["y-b", "nope", "x-1", "y-a"]
    assert [m.key for m in catalogue.store.matches_of_keys(catalogue.tid, keys)] == ["x-1", "y-a", "y-b"]
    assert catalogue.store.recorded_keys(catalogue.tid, keys) == {"x-1", "y-a", "y-b"}
    assert catalogue.store.matches_of_keys(catalogue.tid, []) == [] and not catalogue.store.recorded_keys(1, [])
