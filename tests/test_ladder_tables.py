"""The ladder's deals at two tables (pure): four owners a deal, seats kept, kills, small fields, time shared fairly."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from arena.bots.spec import BotSpec
from arena.competition.board import Leaderboard
from arena.competition.ladder import (
    Pair,
    PairBook,
    Player,
    Policy,
    RatingView,
    Tables,
    next_deal,
    other_table,
    over_share,
    parse_tables,
)
from arena.competition.results import board_from_store
from arena.competition.schedule import Entrant, Scheduled
from arena.competition.standings import PairArrays, leaderboard
from arena.competition.store import PlayedMatch, Store


def results_of(store: Store) -> Leaderboard:
    return board_from_store(store)


def owners(*names: str) -> dict[str, str]:
    """A field of one version per owner (the owner's name is the version's label)."""
    return {name: name for name in names}


def record(book: PairBook, deal: Pair | Tables) -> None:
    for match in deal.matches(seed=1):
        book.record(match.key)


def test_a_deal_at_two_tables_seats_four_owners_once_each_on_one_deal_with_seats_kept() -> None:
    first, second = Tables("w", "x", "y", "z", 3).matches(seed=5)
    assert first.seed == second.seed and first.deal == second.deal == "w~x~y~z~3"
    assert (first.key, first.bot_a, first.bot_b) == ("w~x~y~z~3-1", "w", "x")
    assert (second.key, second.bot_a, second.bot_b) == ("w~x~y~z~3-2", "y", "z")
    assert parse_tables(first.deal) == ("w", "x", "y", "z", 3)
    assert other_table(first.key) == second.key and other_table(second.key) == first.key
    assert other_table("x~y~3-a") is None
    assert Tables("w", "x", "y", "z", 4).matches(seed=5)[0].seed != first.seed
    assert Tables("w", "x", "z", "y", 3).matches(seed=5)[0].seed != first.seed  # the four labels name the deal


def test_no_deal_seats_an_owner_twice_over_a_long_run_and_seats_even_out() -> None:
    # Eight versions of six owners (two owners have two versions in the field): the pure choice never seats an
    # owner in both tables of a deal, nor a version in both seats, however the deals go.
    field = {"a": "ann", "a2": "ann", "b": "bob", "b2": "bob", "c": "cy", "d": "di", "e": "ed", "f": "flo"}
    book = PairBook()
    rng = random.Random(3)
    ratings = {label: RatingView(rng.uniform(-200, 200), 80.0) for label in field}
    policy = Policy(placement_pairs=2, pair_budget=1000)
    seat_a: Counter[str] = Counter()
    for _ in range(400):
        deal = next_deal(field, book, ratings, policy)
        assert isinstance(deal, Tables)
        assert len({field[label] for label in deal.labels}) == 4, deal
        record(book, deal)
        seat_a.update((deal.a1, deal.a2))
    played = Counter(label for label in book.seat_a.elements())
    assert played == seat_a
    for label in ("c", "d", "e", "f"):  # the single versions of their owners sit in seat A about half the time
        tables = sum(count for (x, y), count in book.met.items() if label in (x, y))
        assert abs(seat_a[label] - tables / 2) <= 2, (label, seat_a[label], tables)


def test_a_deal_left_with_one_table_played_is_finished_first_with_its_own_key() -> None:
    book = PairBook()
    book.record("p~q~r~s~0-2")  # a kill came after table 2
    deal = next_deal(owners("p", "q", "r", "s", "t"), book, {}, Policy())
    assert deal == Tables("p", "q", "r", "s", 0, (1,))
    assert [m.key for m in deal.matches(seed=1)] == ["p~q~r~s~0-1"]
    assert next_deal(owners("p", "q", "r", "s", "t"), book, {}, Policy(), free=["p", "q", "r", "t"]) != deal  # s busy
    record(book, deal)
    assert book.partial_tables == {}
    assert next_deal(owners("p", "q", "r", "s"), book, {}, Policy(), busy=[]) != deal


def test_a_half_played_swapped_pair_is_left_alone_at_two_tables() -> None:
    # Its second leg would seat each of its bots in the other seat of a deal it has played.
    book = PairBook.of(["a~b~0-a"])
    deal = next_deal(owners("a", "b", "c", "d"), book, {}, Policy())
    assert isinstance(deal, Tables)


def test_a_field_of_fewer_than_four_owners_plays_single_deals_seats_alternating() -> None:
    field = {"a": "ann", "a2": "ann", "b": "bob", "c": "cy"}
    book = PairBook()
    seats = []
    for _ in range(12):
        deal = next_deal(field, book, {}, Policy(placement_pairs=0, pair_budget=100))
        assert isinstance(deal, Pair) and deal.single
        (match,) = deal.matches(seed=1)
        assert match.key == f"{deal.deal}-s" and field[match.bot_a] != field[match.bot_b]
        seats.append((match.bot_a, match.bot_b))
        record(book, deal)
    assert book.partial == {}
    for x, y in {tuple(sorted(s)) for s in seats}:
        assert Counter(s for s in seats if sorted(s) == [x, y])[(x, y)] in range(1, 4)
    assert next_deal(owners("a"), PairBook(), {}, Policy()) is None


def test_a_new_version_is_dealt_in_first_against_a_spread_of_the_field() -> None:
    field = owners(*(f"old{i}" for i in range(9)))
    ratings = {name: RatingView(elo=100.0 * i, error95=30.0) for i, name in enumerate(field)}
    book = PairBook()
    policy = Policy(placement_pairs=4, pair_budget=1000)
    while (settling := next_deal(field, book, ratings, policy)) is not None:  # the old field settles among itself
        record(book, settling)
    field["new"] = "new"
    opponents = []
    for _ in range(4):
        deal = next_deal(field, book, ratings, policy)
        assert isinstance(deal, Tables) and "new" in deal.labels
        table = 1 if "new" in deal.seats(1) else 2
        (opponent,) = set(deal.seats(table)) - {"new"}
        opponents.append(opponent)
        record(book, deal)
    ranks = sorted(int(o[3:]) for o in opponents)
    assert len(set(opponents)) == 4 and ranks[0] <= 1 and ranks[-1] >= 7


def test_versions_in_play_are_not_dealt_the_same_pair_again_at_once() -> None:
    field = owners(*"abcdefgh")
    book = PairBook()
    busy: list[Pair | Tables] = []
    for _ in range(4):
        deal = next_deal(field, book, {}, Policy(), busy=busy)
        assert deal is not None
        busy.append(deal)
    pairs = [frozenset(d.seats(t)) for d in busy if isinstance(d, Tables) for t in (1, 2)]
    assert len(pairs) == len(set(pairs)) == 8
    assert len({d.deal for d in busy}) == 4


def use(field: Mapping[str, str], slow: set[str], deals: int, *, heavy_room: bool) -> Counter[str]:
    """Owners' matches over ``deals`` choices when ``slow`` owners' bots think 50 times as long as the others'."""
    book, usage, count = PairBook(), {owner: 0.0 for owner in field.values()}, Counter[str]()
    policy = Policy(placement_pairs=0, pair_budget=10**6, fair_slack_s=1.0)
    for _ in range(deals):
        deal = next_deal(field, book, {}, policy, usage=usage, heavy_room=heavy_room)
        assert isinstance(deal, Tables)
        record(book, deal)
        for label in deal.labels:
            usage[field[label]] += 5.0 if field[label] in slow else 0.1
            count[field[label]] += 1
    return count


def test_owners_whose_bots_use_more_time_wait_while_the_others_catch_up() -> None:
    field = owners("slow1", "slow2", "slow3", "slow4", "me", "h1", "h2", "h3")
    slow = {"slow1", "slow2", "slow3", "slow4"}
    fast = use({**owners("me", "h1", "h2", "h3"), **{f"f{i}": f"f{i}" for i in range(4)}}, set(), 400, heavy_room=False)
    timed = use(field, slow, 400, heavy_room=False)
    assert all(timed[owner] <= 0.05 * timed["me"] for owner in slow), timed  # the slow play far fewer matches
    assert timed["me"] >= fast["me"], (timed, fast)  # and nobody else plays fewer
    assert over_share({"a": "", "b": "", "c": "", "d": "", "e": ""}, {"e": 9.0}, Policy(fair_slack_s=5)) == {"e"}
    assert over_share({"a": "", "b": "", "c": "", "d": ""}, {"d": 9.0}, Policy(fair_slack_s=5)) == set()


def test_a_waiting_owner_is_dealt_in_only_when_no_deal_could_be_made_without_it_and_a_slot_is_left() -> None:
    field = owners("a", "b", "c", "d", "e")
    usage = {"e": 100.0}
    busy = [Tables("a", "b", "c", "d", 0)]
    policy = Policy(pair_budget=1000, version_slots=1)
    # Every other owner is busy: with no room for a heavy deal, nothing; with room, a deal with e.
    assert next_deal(field, PairBook(), {}, policy, free=["e"], busy=busy, usage=usage, heavy_room=False) is None
    free = ["a", "b", "c", "d", "e"]
    deal = next_deal(field, PairBook(), {}, policy, free=free, usage=usage, heavy_room=False)
    assert deal is not None and "e" not in deal.labels
    book = PairBook()
    deal = next_deal(field, book, {}, Policy(pair_budget=0), free=free, usage=usage, heavy_room=True)
    assert deal is None  # (every pair spent: nothing at all)


def four_versions(store: Store) -> tuple[int, dict[str, int], dict[str, Player]]:
    """A competition of four admitted versions w, x, y, z: its id, their ids and their players, by name."""
    tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
    ids = {}
    for slot, name in enumerate("wxyz"):
        row = store.add_version(tid, name=name, slot=slot, command=["x"], source="", digest=name, process="fresh")
        store.set_admission(row.id, "admitted")
        ids[name] = row.id
    entrants = {n: Player(Entrant(n, s, 1, ids[n]), BotSpec(name=n, command=("x",), cwd=Path("."))) for s, n in
                enumerate("wxyz")}  # fmt: skip
    return tid, ids, entrants


def test_a_deal_s_second_table_adds_its_pentanomial_class_to_its_four_versions_and_the_fit_reads_it(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid, ids, entrants = four_versions(store)
        kinds = []
        for number, (first, second) in enumerate([("A", "B"), ("A", "A"), (None, "B"), ("B", "A"), ("A", "B")]):
            one, two = Tables("w", "x", "y", "z", number).matches(seed=1, field=entrants)
            for match, winner in ((one, first), (two, second)):
                store.record_match(tid, played_as(match, winner))
                if match is one:  # after one table: nothing counted yet
                    assert sum(map(sum, store.table_totals(tid).values())) == number
            kinds.append({"A": 1.0, None: 0.5, "B": 0.0}[first] + {"B": 1.0, None: 0.5, "A": 0.0}[second])
        counts = store.table_totals(tid)[(ids["w"], ids["x"], ids["y"], ids["z"])]
        assert list(counts) == [sum(int(2 * k) == c for k in kinds) for c in range(5)] == [1, 0, 1, 1, 2]
        pairs = store.pair_totals(tid)
        assert pairs[(ids["w"], ids["x"])].wins == 3 and pairs[(ids["w"], ids["x"])].fit_games == 0  # the fit: tables
        assert not any(t.mixed for t in pairs.values())
        board = results_of(store)
        # team ONE (w, z) totalled 1.5 a deal on average: w and z are rated above x and y
        ranked = [s.bot for s in board.standings]
        assert set(ranked[:2]) == {"w", "z"}, board.standings
        # The server's standings read the same totals; a field without one of the four leaves their deals out.
        table = PairArrays(tid)
        table.refresh(store)
        whole = table.totals({vid: name for name, vid in ids.items()}).fitter.ratings()
        assert whole["w"].elo > whole["x"].elo and whole["z"].elo > whole["y"].elo
        without_z = table.totals({vid: name for name, vid in ids.items() if name != "z"}).fitter.ratings()
        assert abs(without_z["w"].elo - without_z["x"].elo) < 1e-9  # w and x: their table deals are left out


def test_the_board_of_matches_at_two_tables_is_the_board_of_their_stored_totals(tmp_path: Path) -> None:
    # A board drawn from the matches themselves (arena results falls back to it) counts a deal at two tables once,
    # whole, as the store's totals do: the two tables are not two outcomes of one shared deal.
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid, _, entrants = four_versions(store)
        seats = [("w", "x", "y", "z"), ("y", "w", "z", "x"), ("x", "z", "w", "y")]
        for number, winners in enumerate([("A", "B"), ("A", None), (None, "B"), ("B", "A"), ("A", "A"), ("B", "B")]):
            two = Tables(*seats[number % 3], number).matches(seed=1, field=entrants)
            for match, winner in zip(two, winners, strict=True):
                store.record_match(tid, played_as(match, winner))
        stored = results_of(store)
        counted = leaderboard(list("wxyz"), store.matches(tid), max_faults=10)
    assert [r.bot for r in counted.standings] == [r.bot for r in stored.standings]
    for mine, theirs in zip(counted.standings, stored.standings, strict=True):
        assert (mine.rating, mine.rating_error) == pytest.approx((theirs.rating, theirs.rating_error), rel=1e-9)
        assert (mine.wins, mine.draws, mine.losses, mine.deals) == (
            theirs.wins,
            theirs.draws,
            theirs.losses,
            theirs.deals,
        )


def played_as(match: Scheduled, winner: str | None) -> PlayedMatch:
    points = {"A": (1.0, 0.0), "B": (0.0, 1.0), None: (0.5, 0.5)}[winner]
    return PlayedMatch(
        key=match.key, cycle=0, deal=match.deal, leg=match.leg, bot_a=match.bot_a, bot_b=match.bot_b,
        seed=match.seed, points=points, winner=winner, versions=match.versions,
    )  # fmt: skip


def test_a_slot_left_to_waiting_owners_goes_to_a_deal_of_waiting_owners_alone_when_there_are_four() -> None:
    field = owners("me", "h1", "h2", "h3", "s1", "s2", "s3", "s4")
    usage = {f"s{i}": 100.0 for i in range(1, 5)}
    busy = [Tables("me", "h1", "h2", "h3", 0)]
    policy = Policy(pair_budget=1000)
    free = ["s1", "s2", "s3", "s4", "me", "h1"]  # (h2 and h3 at their share)
    deal = next_deal(field, PairBook(), {}, policy, free=free, busy=busy, usage=usage, heavy_room=True)
    assert deal is not None and set(deal.labels) == {"s1", "s2", "s3", "s4"}
    assert next_deal(field, PairBook(), {}, policy, free=free, busy=busy, usage=usage, heavy_room=False) is None


def test_stored_table_totals_reach_the_fit_once_in_bulk_and_skip_versions_outside_it() -> None:
    from arena.competition.ratings import Fitter
    from arena.competition.table_fit import add_table_totals

    names = {1: "a", 2: "b", 3: "c", 4: "d", 5: "gone"}
    tables = {(1, 2, 3, 4): [0, 1, 2, 3, 4], (1, 2, 3, 5): [9, 0, 0, 0, 0]}
    bulk = Fitter(["a", "b", "c", "d"])
    add_table_totals(bulk, names, tables)
    one = Fitter(["a", "b", "c", "d"])
    one.add_tables("a", "b", "c", "d", [0, 1, 2, 3, 4])
    assert bulk.ratings().items() == one.ratings().items()
    assert bulk.ratings()["a"].elo > bulk.ratings()["c"].elo  # (team ONE {a, d} scored more than team TWO)
