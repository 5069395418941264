"""The rolling ladder's choice of pairs (pure): placement, where matches tell most, budgets, restarts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from arena.competition.ladder import Pair, PairBook, Policy, RatingView, next_pair, parse_deal
from arena.competition.store import PlayedMatch, Store


def played(pair: Pair, legs: tuple[int, ...] = (0, 1), winner: str | None = "A") -> list[PlayedMatch]:
    out = []
    for scheduled in Pair(pair.first, pair.second, pair.number, legs).matches(seed=1):
        out.append(
            PlayedMatch(
                key=scheduled.key, cycle=0, deal=scheduled.deal, leg=scheduled.leg, bot_a=scheduled.bot_a,
                bot_b=scheduled.bot_b, seed=scheduled.seed, points=(1.0, 0.0), winner=winner,
            )
        )  # fmt: skip
    return out


def book(history: Iterable[PlayedMatch]) -> PairBook:
    return PairBook.of(match.key for match in history)


def test_a_pair_has_both_legs_on_one_deal_with_seats_swapped() -> None:
    a, b = Pair("x.v1", "y.v1", 3).matches(seed=5)
    assert a.seed == b.seed and a.deal == b.deal == "x.v1~y.v1~3"
    assert (a.bot_a, a.bot_b) == (b.bot_b, b.bot_a) == ("x.v1", "y.v1")
    assert parse_deal(a.deal) == ("x.v1", "y.v1", 3)
    assert Pair("x.v1", "y.v1", 4).matches(seed=5)[0].seed != a.seed


def test_fewer_than_two_versions_play_nothing() -> None:
    assert next_pair(["a"], PairBook(), {}, Policy()) is None


def test_a_half_played_pair_is_finished_first_with_its_own_key() -> None:
    history = played(Pair("a", "b", 0)) + played(Pair("a", "c", 0), legs=(0,))
    pair = next_pair(["a", "b", "c"], book(history), {}, Policy())
    assert pair == Pair("a", "c", 0, (1,))


def test_a_newcomer_plays_placement_pairs_against_a_spread_of_the_field() -> None:
    field = [f"old{i}" for i in range(9)]
    ratings = {name: RatingView(elo=100.0 * i, error95=30.0) for i, name in enumerate(field)}
    history: list[PlayedMatch] = []
    for i, a in enumerate(field):  # the old field has settled among itself
        for b in field[i + 1 :]:
            for n in range(3):
                history += played(Pair(a, b, n))
    opponents = []
    policy = Policy(placement_pairs=4, pair_budget=12)
    for _ in range(4):
        pair = next_pair([*field, "new"], book(history), ratings, policy)
        assert pair is not None and "new" in (pair.first, pair.second)
        opponents.append(pair.first if pair.second == "new" else pair.second)
        history += played(pair)
    ranks = sorted(field.index(o) for o in opponents)
    assert len(set(opponents)) == 4
    assert ranks[0] <= 1 and ranks[-1] >= 7  # both ends of the field, not four neighbours


def test_after_placement_the_closest_uncertain_pair_is_chosen() -> None:
    ratings = {"a": RatingView(0, 50), "b": RatingView(10, 50), "c": RatingView(600, 50)}
    history = []
    for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
        for n in range(2):
            history += played(Pair(first, second, n))
    pair = next_pair(["a", "b", "c"], book(history), ratings, Policy(placement_pairs=1, pair_budget=10))
    assert pair == Pair("a", "b", 2)


def test_settled_pairs_and_spent_budgets_stop() -> None:
    ratings = {"a": RatingView(0, 20), "b": RatingView(500, 20)}
    history = []
    for n in range(3):
        history += played(Pair("a", "b", n))
    assert next_pair(["a", "b"], book(history), ratings, Policy(placement_pairs=1, pair_budget=10)) is None
    close = {"a": RatingView(0, 200), "b": RatingView(10, 200)}
    assert next_pair(["a", "b"], book(history), close, Policy(placement_pairs=1, pair_budget=3)) is None
    assert next_pair(["a", "b"], book(history), close, Policy(placement_pairs=1, pair_budget=4)) == Pair("a", "b", 3)


def test_busy_pairs_count_and_are_not_doubled() -> None:
    busy = [Pair("a", "b", 0)]
    pair = next_pair(["a", "b", "c"], PairBook(), {}, Policy(), busy=busy)
    assert pair is not None and (pair.first, pair.second) != ("a", "b")
    assert next_pair(["a", "b"], PairBook(), {}, Policy(), busy=busy) is None


def test_retired_versions_are_never_chosen() -> None:
    history = played(Pair("a.v1", "b.v1", 0), legs=(0,))
    pair = next_pair(["a.v2", "b.v1"], book(history), {}, Policy())
    assert pair == Pair("a.v2", "b.v1", 0)


def test_a_long_run_spends_matches_fairly_and_never_repeats_a_key() -> None:
    field = ["a", "b", "c", "d"]
    history: list[PlayedMatch] = []
    policy = Policy(placement_pairs=2, pair_budget=5)
    while (pair := next_pair(field, book(history), {}, policy)) is not None:
        history += played(pair, winner=None)
    keys = [m.key for m in history]
    assert len(keys) == len(set(keys))
    per_pair = Counter((m.bot_a, m.bot_b) if m.bot_a < m.bot_b else (m.bot_b, m.bot_a) for m in history)
    assert set(per_pair.values()) == {10}  # every pair up to its budget of 5 duplicate pairs


def test_a_pair_with_a_persistent_bot_has_a_deal_per_leg() -> None:
    from pathlib import Path

    from arena.bots.spec import BotSpec
    from arena.competition.ladder import Player
    from arena.competition.schedule import Entrant

    spec = BotSpec(name="x", command=("true",), cwd=Path("."))
    field = {
        "keeper.v2": Player(Entrant("keeper", 0, 2, 11, persistent=True), spec),
        "plain": Player(Entrant("plain", 1, 1, 12), spec),
    }
    a, b = Pair("keeper.v2", "plain", 0).matches(seed=5, field=field)
    assert (a.bot_a, a.bot_b, a.versions) == ("keeper", "plain", (11, 12))  # the store's names and version ids
    assert (b.bot_a, b.bot_b, b.versions) == ("plain", "keeper", (12, 11))
    assert a.seed != b.seed and a.deal == a.key and b.deal == b.key and not a.shares_deal
    assert a.persistent == ("keeper",)
    plain = {**field, "keeper.v2": Player(Entrant("keeper", 0, 2, 11), spec)}
    c, d = Pair("keeper.v2", "plain", 0).matches(seed=5, field=plain)
    assert c.seed == d.seed and c.deal == d.deal == "keeper.v2~plain~0" and c.shares_deal and c.persistent == ()
    # Finished legs are found by key, whichever deal they were on: a half-played persistent pair is finished.
    history = [
        PlayedMatch(key=a.key, cycle=0, deal=a.deal, leg=0, bot_a="keeper", bot_b="plain", seed=a.seed,
                    points=(1.0, 0.0), winner="A")
    ]  # fmt: skip
    assert next_pair(["keeper.v2", "plain"], book(history), {}, Policy()) == Pair("keeper.v2", "plain", 0, (1,))


def test_the_book_kept_match_by_match_is_the_book_rebuilt_from_the_store(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ladder.sqlite") as store:
        tid = store.create_competition(name="l", seed=1, game="rps-poker/1", config={}).id
        kept = PairBook.of(store.finished_keys(tid))
        policy = Policy(placement_pairs=2, pair_budget=3)
        field = ["a", "b", "c", "d", "e"]
        checked = 0
        while True:  # two pairs in play at once, their legs recorded interleaved, as the ladder's slots do
            first = next_pair(field, kept, {}, policy)
            second = next_pair(field, kept, {}, policy, busy=[first] if first else [])
            legs = [m for pair in (first, second) if pair for m in played(pair)]
            if not legs:
                break
            for match in legs[::2] + legs[1::2]:
                assert store.record_match(tid, match)
                kept.record(match.key)
                checked += 1
                assert kept == PairBook.of(store.finished_keys(tid)), f"after {checked} matches"
                assert kept == PairBook.of(store.match_keys(tid)), f"after {checked} matches (keys streamed)"
        assert checked == 2 * 3 * 10  # every pair of five versions up to its budget, both legs
        assert not kept.partial and len(kept.met) == 10 and set(kept.met.values()) == {3}


def test_the_book_grows_with_the_pairs_not_the_matches() -> None:
    history = [m for n in range(500) for m in played(Pair("a", "b", n))] + played(Pair("a", "c", 0), legs=(1,))
    kept = book(history)
    assert kept.met == Counter({("a", "b"): 500, ("a", "c"): 1})
    assert kept.last == {("a", "b"): 499, ("a", "c"): 0} and kept.partial == {"a~c~0": frozenset({1})}
    assert next_pair(["a", "b", "c"], kept, {}, Policy(pair_budget=1000)) == Pair("a", "c", 0, (0,))


def test_a_busy_pair_already_begun_counts_once() -> None:
    kept = book(played(Pair("a", "b", 0), legs=(0,)) + played(Pair("c", "d", 0)) + played(Pair("c", "d", 1)))
    busy = [Pair("a", "b", 0, (1,))]  # its second leg in play
    ratings = {"a": RatingView(1000, 50), "b": RatingView(149, 50), "c": RatingView(200, 50), "d": RatingView(150, 50)}
    # a and b have one pair each (counted twice, they would be placed and b-d, the closest, would play).
    pair = next_pair(["a", "b", "c", "d"], kept, ratings, Policy(placement_pairs=2, pair_budget=10), busy=busy)
    assert pair == Pair("a", "d", 0)
