from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from arena import play_match, resolve
from arena.bots.spec import BotSpec
from arena.games import GAMES, IllegalAction, ParamError, get_game
from arena.games.card_jitsu import (
    ALL_CARDS,
    COLOURS,
    ELEMENTS,
    HAND_SIZE,
    CardJitsu,
    CardJitsuMatch,
    find_set,
    is_set,
    round_winner,
)
from arena.supervisor.matchlog import read_log, strip_times
from protocol import Limits
from protocol.card_jitsu import JitsuResult

from .conftest import REPO, SAMPLE_BOTS, readme_exchange, seen_by

BOTS = SAMPLE_BOTS / "card-jitsu"


# Rounds ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "winner", "why"),
    [
        ("FY2", "SP12", 0, "fire beats snow, whatever the values"),
        ("SY2", "WP12", 0, "snow beats water"),
        ("WY2", "FP12", 0, "water beats fire"),
        ("SB9", "FB9", 1, "fire beats snow, B"),
        ("WB9", "SB9", 1, "snow beats water, B"),
        ("FB9", "WB9", 1, "water beats fire, B"),
        ("FR10", "FB9", 0, "same element: higher value (10 is more than 9, not a string compare)"),
        ("WG3", "WG12", 1, "same element and colour: higher value"),
        ("SR7", "SB7", None, "same element and value: a tie, colours do not matter"),
        ("FY5", "FY5", None, "the very same card on both sides: a tie"),
    ],
)
def test_round_winner(a: str, b: str, winner: int | None, why: str) -> None:
    assert round_winner(a, b) == winner, why
    assert round_winner(b, a) == (None if winner is None else 1 - winner), "the rule is symmetric"


def test_round_winner_over_every_pair_of_cards() -> None:
    ties = 0
    for a, b in itertools.product(ALL_CARDS, repeat=2):
        winner = round_winner(a, b)
        if winner is None:
            ties += 1
            assert a[0] == b[0] and a[2:] == b[2:]
        else:
            assert round_winner(b, a) == 1 - winner
    # A tie needs the same element and value: 198 cards x 6 colours for the other card.
    assert ties == len(ALL_CARDS) * len(COLOURS)


def test_the_supply_is_198_distinct_cards() -> None:
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 3 * 6 * 11
    assert {"FB9", "SG10", "WY2", "SP12"} <= set(ALL_CARDS)
    assert "FB1" not in ALL_CARDS and "FB13" not in ALL_CARDS


# The game-winning set ------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected", "why"),
    [
        (["FB9", "FR3", "FG4"], True, "same element, three colours"),
        (["WY2", "WO2", "WP2"], True, "same element, same values do not matter"),
        (["FB9", "WR3", "SG4"], True, "all different elements, three colours"),
        (["SY12", "FO12", "WR12"], True, "all different elements, same values"),
        (["FB9", "FB3", "FG4"], False, "same element, a repeated colour"),
        (["FB9", "FR3", "FR4"], False, "same element, a repeated colour (the other two)"),
        (["FB9", "WB3", "SG4"], False, "all different elements, a repeated colour"),
        (["FB9", "WB3", "SB4"], False, "all different elements, one colour"),
        (["FB9", "FR3", "WG4"], False, "two elements, three colours: neither all same nor all different"),
        (["WB9", "SR3", "SG4"], False, "two elements, three colours, the other way"),
        (["FB9", "FB9", "FB9"], False, "three copies of one card"),
        (["FB9", "FB9", "FR3"], False, "a duplicate: only two colours"),
        (["FB9", "FR3"], False, "two cards are not a set"),
        (["FB9", "FR3", "FG4", "FY5"], False, "is_set takes exactly three cards"),
    ],
)
def test_is_set(cards: list[str], expected: bool, why: str) -> None:
    assert is_set(cards) is expected, why
    for order in itertools.permutations(cards[:3]):
        assert is_set(list(order) + cards[3:]) is expected, "order does not matter"


@pytest.mark.parametrize(
    ("pile", "has_set", "why"),
    [
        ([], False, "an empty pile"),
        (["FB9", "FR3"], False, "two cards"),
        (["FB9", "FR3", "FG4"], True, "exactly a same-element set"),
        (["FB9", "FB9", "FB9", "FB9"], False, "many copies of one card"),
        (["FB9", "FB9", "FR3", "FR3", "FG4"], True, "duplicates around a set"),
        (["FB9", "FB10", "FB2", "FR3", "FR4"], False, "many cards, two kinds: two colours only"),
        (["FB9", "WB3", "SB4", "FB2", "WB5"], False, "all three elements, all blue"),
        (["FB9", "WB3", "SB4", "FR2"], False, "three elements but only two colours"),
        (["FB9", "WB3", "SB4", "SR2", "WG5"], True, "FB SR WG: three elements, three colours"),
        (["FY2", "FO3", "WR4", "WB5"], False, "two elements, four colours"),
        (["FY2", "FO3", "WR4", "WB5", "SG6"], True, "the fifth card completes FY WR SG"),
        (["FY2", "FY2", "WY3", "WY3", "SY4", "SY4"], False, "every element, one colour, in duplicate"),
        (["SG10", "SG10", "SG11", "SY2", "SP3"], True, "snow set after duplicates"),
    ],
)
def test_find_set(pile: list[str], has_set: bool, why: str) -> None:
    found = find_set(pile)
    assert (found is not None) is has_set, why
    if found is not None:
        assert is_set(found) and all(card in pile for card in found)
        assert len(set(found)) == 3


def _kinds() -> list[str]:
    return [f"{e}{c}" for e in ELEMENTS for c in COLOURS]


def test_every_three_kinds_counted_against_the_combinatorics() -> None:
    # Same element: 3 elements x C(6,3) colour choices = 60. All different
    # elements: colours for F, W, S all different = 6 x 5 x 4 = 120.
    sets = same = different = 0
    for triple in itertools.combinations(_kinds(), 3):
        cards = [kind + "7" for kind in triple]
        if is_set(cards):
            sets += 1
            elements = {c[0] for c in cards}
            same += len(elements) == 1
            different += len(elements) == 3
            assert len({c[1] for c in cards}) == 3
    assert (same, different, sets) == (60, 120, 180)


def test_every_pile_of_three_kinds_with_repeats_needs_three_different_kinds() -> None:
    # Piles of three drawn with repetition: a repeated kind can never be part of a set.
    for triple in itertools.combinations_with_replacement(_kinds(), 3):
        cards = [kind + "5" for kind in triple]
        found = find_set(cards)
        if len(set(triple)) < 3:
            assert found is None, triple
        else:
            assert (found is not None) is is_set(cards)


def test_find_set_agrees_with_every_triple_of_random_piles_with_duplicates() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        size = rng.randrange(0, 9)
        pile = [rng.choice(ALL_CARDS[:40]) if rng.random() < 0.5 else rng.choice(ALL_CARDS) for _ in range(size)]
        pile += rng.sample(pile, k=min(len(pile), rng.randrange(3)))  # more duplicates
        brute = any(is_set(list(t)) for t in itertools.combinations(pile, 3))
        assert (find_set(pile) is not None) is brute, pile


def test_every_four_kind_pile_is_decided_by_its_triples() -> None:
    for four in itertools.combinations(_kinds(), 4):
        pile = [kind + "9" for kind in four]
        brute = any(is_set(list(t)) for t in itertools.combinations(pile, 3))
        assert (find_set(pile) is not None) is brute


# Matches -------------------------------------------------------------------


def _play(state: CardJitsuMatch, chooser: random.Random) -> list[Any]:
    trace: list[Any] = []
    while not state.is_over:
        requests = state.requests()
        trace.append(requests)
        actions = {seat: state.check(seat, chooser.randrange(HAND_SIZE)) for seat in requests}
        trace.append(state.apply(actions).notices)
    trace.append(state.result())
    return trace


def test_hands_are_five_distinct_cards_and_the_replacement_takes_the_played_slot() -> None:
    state = CardJitsuMatch(seed=3, max_rounds=500)
    chooser = random.Random(3)
    rounds = 0
    while not state.is_over:
        before = [list(h) for h in state.hands]
        plays = {seat: chooser.randrange(HAND_SIZE) for seat in (0, 1)}
        state.apply(plays)
        rounds += 1
        for seat in (0, 1):
            hand = state.hands[seat]
            assert len(hand) == len(set(hand)) == HAND_SIZE
            kept = [c for i, c in enumerate(before[seat]) if i != plays[seat]]
            assert [c for i, c in enumerate(hand) if i != plays[seat]] == kept
            assert hand[plays[seat]] not in kept
    assert rounds == state.round - 1


def test_same_seed_same_match_and_other_seeds_differ() -> None:
    game = get_game("card-jitsu")
    one = _play(game.new_match(41), random.Random(1))
    two = _play(game.new_match(41), random.Random(1))
    assert one == two
    assert _play(game.new_match(42), random.Random(1)) != one


def test_a_seats_cards_depend_only_on_the_seed_and_its_own_plays() -> None:
    # This is what makes duplicate deals work: the other bot in this seat gets the same cards.
    def seat_a_hands(seat_b_chooser: random.Random) -> list[list[str]]:
        state = CardJitsuMatch(seed=8, max_rounds=30)
        chooser_a = random.Random(0)
        hands = []
        while state.round <= 30:  # past a set too (apply does not stop): only the draws matter here
            hands.append(list(state.hands[0]))
            state.apply({0: chooser_a.randrange(HAND_SIZE), 1: seat_b_chooser.randrange(HAND_SIZE)})
        return hands

    assert seat_a_hands(random.Random(1)) == seat_a_hands(random.Random(2))
    first = CardJitsuMatch(seed=8, max_rounds=1)
    assert first.hands[0] != first.hands[1]


def test_a_completed_set_ends_the_game_at_once() -> None:
    state = CardJitsuMatch(seed=1, max_rounds=100)
    state.piles = [["FB9", "FR3"], ["WB2", "SR4"]]
    state.hands = [["FG4", "FY2", "FO3", "FP5", "FB6"], ["SG12", "SY2", "SO3", "SP5", "SB6"]]
    step = state.apply({0: 0, 1: 0})  # FG4 (fire) beats SG12 (snow): A's pile gets FB FR FG
    assert state.is_over and state.winner == 0
    assert state.piles[0] == ["FB9", "FR3", "FG4"]
    notices = dict(step.notices)
    assert isinstance(notices[1], JitsuResult)
    assert notices[0].winner == "A" and notices[1].winner == "A"  # type: ignore[attr-defined]
    assert notices[1].winning_set == ["FB9", "FR3", "FG4"]
    assert notices[1].your_card == "SG12" and notices[1].opponent_card == "FG4"
    assert any("A completes a set" in line for line in step.narration)
    result = state.result()
    assert result.points == [1.0, 0.0] and result.winner == "A"


def test_a_tie_adds_nothing_to_either_pile() -> None:
    state = CardJitsuMatch(seed=1, max_rounds=100)
    state.hands = [["FG4", "FY2", "FO3", "FP5", "FB6"], ["FR4", "SY2", "SO3", "SP5", "SB6"]]
    step = state.apply({0: 0, 1: 0})
    assert state.piles == [[], []] and not state.is_over
    assert all(n.winner is None and n.winning_set == [] for _, n in step.notices)  # type: ignore[attr-defined]


def test_round_limit_makes_a_draw() -> None:
    game = get_game("card-jitsu", {"max_rounds": 2})
    state = game.new_match(5)
    trace = _play(state, random.Random(0))
    assert state.round == 3 and state.winner is None  # two rounds cannot give anyone three cards
    assert trace[-1].points == [0.5, 0.5] and trace[-1].winner is None
    assert sum(trace[-1].points) == game.points_total()


def test_random_games_end_with_a_winner_long_before_the_default_limit() -> None:
    game = get_game("card-jitsu")
    for seed in range(200):
        state = game.new_match(seed)
        result = _play(state, random.Random(seed))[-1]
        assert result.winner in ("A", "B") and sorted(result.points) == [0.0, 1.0]
        assert 3 <= state.round - 1 < 40


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("1", "integer index"),
        (True, "integer index"),
        (1.0, "integer index"),
        (None, "integer index"),
        ([0], "integer index"),
        (5, "out of range"),
        (-1, "out of range"),
    ],
)
def test_check_refuses_with_a_reason(action: object, reason: str) -> None:
    state = CardJitsuMatch(seed=1, max_rounds=5)
    with pytest.raises(IllegalAction, match=reason):
        state.check(0, action)
    assert state.check(1, 4) == 4


def test_forfeit() -> None:
    state = CardJitsuMatch(seed=1, max_rounds=5)
    one = state.forfeit(frozenset({1}), "B timeout")
    assert one.points == [1.0, 0.0] and one.winner == "A" and one.forfeit == ["B"] and one.reason == "B timeout"
    both = state.forfeit(frozenset({0, 1}), "both")
    assert both.points == [0.0, 0.0] and both.winner is None and both.forfeit == ["A", "B"]


def test_parameters() -> None:
    assert GAMES["card-jitsu"] is CardJitsu
    assert get_game("card-jitsu/1").params == {"max_rounds": 100}
    with pytest.raises(ParamError, match="at least 1"):
        get_game("card-jitsu", {"max_rounds": 0})
    with pytest.raises(ParamError, match="valid: max_rounds"):
        get_game("card-jitsu", {"rounds": 5})


# Real bots -------------------------------------------------------------------


def _records(log_dir: Path) -> list[dict[str, Any]]:
    return read_log(next(log_dir.glob("*.jsonl")))


async def test_sample_bots_play_a_match_that_the_log_explains_and_replays(tmp_path: Path) -> None:
    game = get_game("card-jitsu")
    specs = (resolve(str(BOTS / "random-python")), resolve(str(BOTS / "set-seeker-js")))
    record = await play_match(game, specs, seed=12, limits=Limits(), log_dir=tmp_path / "one")
    assert not record.faults and record.result.winner in ("A", "B")
    records = _records(tmp_path / "one")
    results = [
        r["msg"] for r in records if r["type"] == "send" and r["seat"] == "A" and r["msg"]["type"] == "jitsu_result"
    ]
    piles: dict[str, list[str]] = {"A": [], "B": []}
    for msg in results:
        if msg["winner"] is not None:
            piles[msg["winner"]].append(msg["your_card"] if msg["winner"] == "A" else msg["opponent_card"])
    winner = record.result.winner
    assert results[-1]["winning_set"] and find_set(piles[winner]) is not None
    assert all(find_set(p[:-1]) is None for p in piles.values() if p)  # nobody had a set before the last round
    await play_match(game, specs, seed=12, limits=Limits(), log_dir=tmp_path / "two")
    logs = []
    for run in ("one", "two"):
        records = _records(tmp_path / run)
        for bot in records[0]["bots"]:
            bot.pop("stderr_log")
        logs.append(strip_times(records))
    assert logs[0] == logs[1]


async def test_an_out_of_range_card_is_an_illegal_move_and_a_forfeit(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' in m:\n"
        "        print(json.dumps({'id': m['id'], 'action': m['round'] + 3}), flush=True)\n"
    )
    specs = (resolve(str(BOTS / "set-seeker-js")), BotSpec(name="bad", command=("python3", "-c", code), cwd=REPO))
    record = await play_match(get_game("card-jitsu"), specs, seed=4, limits=Limits(), log_dir=None)
    # Round 1 gets index 4 (legal); round 2 gets index 5, before anyone can hold three cards.
    assert [(f.seat, f.kind, f.request_type) for f in record.faults] == [("B", "illegal_move", "jitsu_play")]
    assert "index 5 is out of range" in record.faults[0].reason
    assert record.result.points == [1.0, 0.0] and record.result.winner == "A" and record.result.forfeit == ["B"]


async def test_protocol_readme_example_is_a_real_exchange(tmp_path: Path) -> None:
    shown = readme_exchange("Card-Jitsu")
    assert len(shown) >= 10
    specs = (resolve(str(BOTS / "set-seeker-js")), resolve(str(BOTS / "random-python")))
    await play_match(get_game("card-jitsu"), specs, seed=3, limits=Limits(), log_dir=tmp_path)
    seen = seen_by(read_log(next(tmp_path.glob("*.jsonl"))), "A", abbreviate_limits=True)
    for line in shown:
        assert line in seen, line
