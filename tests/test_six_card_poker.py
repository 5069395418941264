from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena import play_match, resolve
from arena.bots.spec import BotSpec
from arena.games import GAMES, IllegalAction, ParamError, get_game
from arena.games._rng import Rng
from arena.games.six_card_poker import (
    DECK,
    SixCardPoker,
    SixCardPokerMatch,
    all_splits,
    check_split,
    compare_high,
    compare_low,
    compare_middle,
    deal_winner,
    hands_won,
    middle_rank,
    split_of,
)
from arena.supervisor.matchlog import read_log
from protocol import Limits
from protocol.six_card_poker import PokerSplit

from .conftest import REPO, SAMPLE_BOTS, readme_exchange, seen_by

BOTS = SAMPLE_BOTS / "six-card-poker"

# Comparisons ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected", "why"),
    [
        ([4, 4, 4], [4, 4, 3], 1, "12 beats 11"),
        ([4, 1, 1], [2, 2, 2], 0, "6 and 6: a draw, however made"),
        ([3, 3, 3], [4, 4, 2], -1, "three of a kind means nothing: 9 loses to 10"),
        ([1, 1, 1], [1, 1, 2], -1, "3 loses to 4"),
        ([4, 3, 2], [2, 3, 4], 0, "order does not matter"),
    ],
)
def test_compare_high(a: list[int], b: list[int], expected: int, why: str) -> None:
    assert compare_high(a, b) == expected, why
    assert compare_high(b, a) == -expected


@pytest.mark.parametrize(
    ("a", "b", "expected", "why"),
    [
        ([1, 1], [4, 3], 1, "any pair beats any non-pair"),
        ([2, 2], [1, 1], 1, "two pairs: the higher pair"),
        ([4, 4], [3, 3], 1, "two pairs: the higher pair, again"),
        ([3, 3], [3, 3], 0, "equal pairs: a draw"),
        ([4, 1], [3, 2], 1, "two non-pairs: the higher high card, even with a lower second"),
        ([4, 2], [4, 1], 1, "equal high cards: the higher second card"),
        ([3, 1], [1, 3], 0, "equal non-pairs in either order: a draw"),
        ([2, 1], [4, 3], -1, "the lowest non-pair loses to the highest"),
        ([1, 2], [2, 1], 0, "the hands may come in any order"),
    ],
)
def test_compare_middle(a: list[int], b: list[int], expected: int, why: str) -> None:
    assert compare_middle(a, b) == expected, why
    assert compare_middle(b, a) == -expected


def test_middle_ranking_of_all_ten_two_card_hands() -> None:
    hands = [list(h) for h in itertools.combinations_with_replacement((1, 2, 3, 4), 2)]
    ranked = sorted(hands, key=middle_rank)
    order = [[1, 2], [1, 3], [2, 3], [1, 4], [2, 4], [3, 4], [1, 1], [2, 2], [3, 3], [4, 4]]
    assert ranked == order
    for i, j in itertools.product(range(10), repeat=2):
        assert compare_middle(order[i], order[j]) == (i > j) - (i < j)


@pytest.mark.parametrize(("a", "b", "expected"), [([4], [1], 1), ([2], [3], -1), ([3], [3], 0)])
def test_compare_low(a: list[int], b: list[int], expected: int) -> None:
    assert compare_low(a, b) == expected
    assert compare_low(b, a) == -expected


def split(text: str) -> PokerSplit:
    high, middle, low = text.split("/")
    return PokerSplit(high=[int(c) for c in high], middle=[int(c) for c in middle], low=[int(low)])


@pytest.mark.parametrize(
    ("a", "b", "hands", "winner", "why"),
    [
        ("444/33/2", "111/22/1", (3.0, 0.0), 0, "all three hands"),
        ("444/11/1", "333/22/4", (1.0, 2.0), 1, "high to A, middle and low to B"),
        ("444/22/1", "332/33/4", (1.0, 2.0), 1, "the higher pair and the higher low card"),
        ("443/21/1", "433/32/1", (1.5, 1.5), None, "a win, a loss, a draw: exactly 1.5 is a drawn deal"),
        ("432/33/1", "441/22/3", (1.5, 1.5), None, "a draw, a win, a loss: a drawn deal"),
        ("222/11/1", "411/11/1", (1.5, 1.5), None, "three draws: a drawn deal"),
        ("331/44/2", "421/44/2", (1.5, 1.5), None, "three draws, the high hands made differently"),
        ("322/11/4", "331/21/4", (2.0, 1.0), 0, "a pair in the middle and two draws wins the deal"),
        ("431/44/2", "421/44/2", (2.0, 1.0), 0, "a win and two draws wins the deal"),
        ("331/44/1", "421/44/2", (1.0, 2.0), 1, "two draws and a loss lose the deal"),
        ("441/22/1", "441/33/4", (0.5, 2.5), 1, "a draw and two losses"),
    ],
)
def test_hands_won_and_deal_winner(a: str, b: str, hands: tuple[float, float], winner: int | None, why: str) -> None:
    assert hands_won(split(a), split(b)) == hands, why
    assert deal_winner(split(a), split(b)) == winner, why
    assert hands_won(split(b), split(a)) == (hands[1], hands[0])
    assert deal_winner(split(b), split(a)) == (None if winner is None else 1 - winner)


# Actions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (3, "must be an object"),
        ([[3, 4, 5], [1, 2], [0]], "must be an object"),
        ("high", "must be an object"),
        ({"high": [3, 4, 5], "middle": [1, 2]}, "no 'low' key"),
        ({"high": [3, 4, 5], "middle": [1, 2], "low": [0], "note": 1}, "unknown key 'note'"),
        ({"high": [3, 4], "middle": [1, 2, 5], "low": [0]}, "high must be a list of 3"),
        ({"high": [3, 4, 5], "middle": [1], "low": [0, 2]}, "middle must be a list of 2"),
        ({"high": [3, 4, 5], "middle": [1, 2], "low": 0}, "low must be a list of 1"),
        ({"high": [3, 4, "5"], "middle": [1, 2], "low": [0]}, "high holds '5'"),
        ({"high": [3, 4, True], "middle": [1, 2], "low": [0]}, "high holds True"),
        ({"high": [3, 4, 5.0], "middle": [1, 2], "low": [0]}, "high holds 5.0"),
        ({"high": [3, 4, 6], "middle": [1, 2], "low": [0]}, "index 6 in high is out of range"),
        ({"high": [3, 4, 5], "middle": [1, -1], "low": [0]}, "index -1 in middle is out of range"),
        ({"high": [3, 4, 5], "middle": [1, 2], "low": [2]}, "index 2 is used more than once"),
        ({"high": [0, 0, 5], "middle": [1, 2], "low": [3]}, "index 0 is used more than once"),
    ],
)
def test_check_split_refuses_with_a_reason(action: object, reason: str) -> None:
    with pytest.raises(IllegalAction, match=reason.replace("(", r"\(")):
        check_split(action)


def test_all_sixty_splits_are_legal_and_distinct() -> None:
    splits = all_splits()
    assert len(splits) == 60
    assert len({tuple(tuple(s[k]) for k in ("high", "middle", "low")) for s in splits}) == 60
    for action in splits:
        assert check_split(action) == action
    assert check_split({"low": [5], "middle": [4, 0], "high": [1, 3, 2]}) == {
        "high": [1, 3, 2],
        "middle": [4, 0],
        "low": [5],
    }


def test_split_of_takes_cards_by_index_and_sorts_each_hand_high_to_low() -> None:
    hand = [1, 1, 2, 3, 4, 4]
    assert split_of(hand, {"high": [0, 5, 3], "middle": [1, 4], "low": [2]}) == split("431/41/2")


# Deals and matches ----------------------------------------------------------


def test_the_deal_alternates_from_one_shuffle_per_deal() -> None:
    rng = Rng(77)
    state = SixCardPokerMatch(seed=77, deals=3)
    for _ in range(3):
        deck = list(DECK)
        rng.shuffle(deck)
        # Positions 1, 3, ..., 11 to A; 2, 4, ..., 12 to B; 4 cards unseen.
        assert state.hands == [sorted(deck[0:12:2]), sorted(deck[1:12:2])]
        assert all(c <= 4 for c in (Counter(state.hands[0]) + Counter(state.hands[1])).values())
        state.apply({0: all_splits()[0], 1: all_splits()[0]})


Strategy = Callable[[list[int]], dict[str, list[int]]]


def naive(hand: list[int]) -> dict[str, list[int]]:
    return {"high": [3, 4, 5], "middle": [1, 2], "low": [0]}


def pair_in_middle(hand: list[int]) -> dict[str, list[int]]:
    for i in range(5, 0, -1):
        if hand[i] == hand[i - 1]:
            rest = [j for j in range(6) if j not in (i, i - 1)]
            return {"high": rest[1:], "middle": [i - 1, i], "low": [rest[0]]}
    return naive(hand)


def _match(seed: int, deals: int, a: Strategy, b: Strategy) -> tuple[SixCardPokerMatch, list[list[list[int]]]]:
    state = SixCardPokerMatch(seed=seed, deals=deals)
    dealt = []
    while not state.is_over:
        requests = state.requests()
        dealt.append([requests[0].hand, requests[1].hand])  # type: ignore[attr-defined]
        state.apply({0: state.check(0, a(requests[0].hand)), 1: state.check(1, b(requests[1].hand))})  # type: ignore[attr-defined]
    return state, dealt


def test_points_count_deals_won_with_draws_as_half() -> None:
    game = get_game("six-card-poker", {"deals": 50})
    state, _ = _match(3, 50, naive, pair_in_middle)
    result = state.result()
    assert sum(result.points) == game.points_total() == 50
    assert result.winner == ("A" if result.points[0] > 25 else "B" if result.points[0] < 25 else None)
    assert result.points[1] > result.points[0]  # a pair in the middle beats the naive split


def test_same_seed_same_deals_whatever_the_bots_play() -> None:
    _, one = _match(9, 20, naive, naive)
    _, two = _match(9, 20, pair_in_middle, naive)
    _, other = _match(10, 20, naive, naive)
    assert one == two and one != other


def test_duplicate_pair_gives_each_strategy_both_hands_of_every_deal() -> None:
    # A tournament with duplicate deals plays seed s as (X, Y) and again as (Y, X).
    first, dealt_first = _match(21, 30, naive, pair_in_middle)
    second, dealt_second = _match(21, 30, pair_in_middle, naive)
    assert dealt_first == dealt_second  # the same cards in each seat
    x_hands = [d[0] for d in dealt_first] + [d[1] for d in dealt_second]
    y_hands = [d[1] for d in dealt_first] + [d[0] for d in dealt_second]
    assert sorted(x_hands) == sorted(y_hands)
    assert SixCardPoker.duplicate_deals is True
    # Over the pair the luck of the deal cancels: two copies of one strategy tie exactly.
    same, _ = _match(21, 30, pair_in_middle, pair_in_middle)
    assert same.points[0] + same.points[1] == 30
    pair_total_for_x = first.points[0] + second.points[1]
    pair_total_for_y = first.points[1] + second.points[0]
    assert pair_total_for_x + pair_total_for_y == 60


def test_forfeit_gives_the_unplayed_deals_to_the_opponent() -> None:
    state = SixCardPokerMatch(seed=5, deals=10)
    for _ in range(3):
        state.apply({0: naive(state.hands[0]), 1: pair_in_middle(state.hands[1])})
    played = list(state.points)
    result = state.forfeit(frozenset({1}), "B illegal_move: x")
    assert result.points == [played[0] + 7, played[1]] and result.winner == "A" and result.forfeit == ["B"]
    both = state.forfeit(frozenset({0, 1}), "both")
    assert both.points == played and both.winner is None


def test_parameters() -> None:
    assert GAMES["six-card-poker"] is SixCardPoker
    assert get_game("six-card-poker/1").params == {"deals": 100}
    with pytest.raises(ParamError, match="at least 1"):
        get_game("six-card-poker", {"deals": 0})
    with pytest.raises(ParamError, match="valid: deals"):
        get_game("six-card-poker", {"hands": 5})


def test_random_splits_over_many_seeds_keep_the_points_whole() -> None:
    chooser = random.Random(0)
    splits = all_splits()
    for seed in range(100):
        state = SixCardPokerMatch(seed=seed, deals=5)
        while not state.is_over:
            state.apply({s: chooser.choice(splits) for s in (0, 1)})
        result = state.result()
        assert sum(result.points) == 5 and all(p * 2 == int(p * 2) for p in result.points)


# Real bots -------------------------------------------------------------------


def _sent(log: Path, seat: str, kind: str) -> list[dict[str, Any]]:
    records = read_log(next(log.glob("*.jsonl")))
    return [r["msg"] for r in records if r["type"] == "send" and r["seat"] == seat and r["msg"]["type"] == kind]


@pytest.mark.slow
async def test_sample_bots_with_seats_swapped_see_the_same_deals(tmp_path: Path) -> None:
    game = get_game("six-card-poker", {"deals": 20})
    naive_bot, thoughtful = resolve(str(BOTS / "sorted-python")), resolve(str(BOTS / "fictitious-play-js"))
    one = await play_match(game, (naive_bot, thoughtful), seed=31, limits=Limits(), log_dir=tmp_path / "one")
    two = await play_match(game, (thoughtful, naive_bot), seed=31, limits=Limits(), log_dir=tmp_path / "two")
    assert not one.faults and not two.faults
    for seat in ("A", "B"):
        hands_one = [m["hand"] for m in _sent(tmp_path / "one", seat, "poker_set")]
        hands_two = [m["hand"] for m in _sent(tmp_path / "two", seat, "poker_set")]
        assert hands_one == hands_two and len(hands_one) == 20
    # The showdowns explain the result, and the thoughtful bot wins both seatings.
    for log, record in ((tmp_path / "one", one), (tmp_path / "two", two)):
        showdowns = _sent(log, "A", "poker_showdown")
        assert showdowns[-1]["score"] == record.result.points
        wins = Counter(m["winner"] for m in showdowns)
        assert record.result.points == [wins["A"] + wins[None] / 2, wins["B"] + wins[None] / 2]
    assert one.result.winner == "B" and two.result.winner == "A"


async def test_a_repeated_index_is_an_illegal_move_and_a_forfeit(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if 'id' in m:\n"
        "        split = {'high': [0, 1, 2], 'middle': [3, 4], 'low': [5 if m['deal'] < 3 else 4]}\n"
        "        print(json.dumps({'id': m['id'], 'action': split}), flush=True)\n"
    )
    game = get_game("six-card-poker", {"deals": 10})
    specs = (BotSpec(name="bad", command=("python3", "-c", code), cwd=REPO), resolve(str(BOTS / "sorted-python")))
    record = await play_match(game, specs, seed=2, limits=Limits(), log_dir=None)
    assert [(f.seat, f.kind, f.request_type) for f in record.faults] == [("A", "illegal_move", "poker_set")]
    assert "index 4 is used more than once" in record.faults[0].reason
    assert record.result.winner == "B" and record.result.forfeit == ["A"]
    assert sum(record.result.points) == 10 and record.result.points[1] >= 8  # deals 3..10 go to B


async def test_protocol_readme_example_is_a_real_exchange(tmp_path: Path) -> None:
    shown = readme_exchange("Six-card poker")
    assert len(shown) >= 10
    specs = (resolve(str(BOTS / "fictitious-play-js")), resolve(str(BOTS / "sorted-python")))
    await play_match(get_game("six-card-poker", {"deals": 3}), specs, seed=5, limits=Limits(), log_dir=tmp_path)
    seen = seen_by(read_log(next(tmp_path.glob("*.jsonl"))), "A", abbreviate_limits=True)
    for line in shown:
        assert line in seen, line
