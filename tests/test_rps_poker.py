import itertools
import random

import pytest

from arena.games import IllegalAction, ParamError, get_game
from arena.games._rng import Rng, derive_seed
from arena.games.rps_poker import FULL_DECK, RpsPokerMatch, turn_winner


@pytest.mark.parametrize(
    ("a", "b", "base", "winner", "why"),
    [
        ("R3", "S9", "P3", 0, "A pairs the base, B does not: pair beats a higher number"),
        ("P9", "S3", "R3", 1, "B pairs the base"),
        ("R8", "S2", "P5", 0, "no pair: higher number"),
        ("S1", "P2", "R5", 1, "no pair: higher number, B"),
        ("R4", "S4", "P7", 0, "same number: rock beats scissors"),
        ("S4", "P4", "P7", 0, "scissors beat paper"),
        ("P4", "R4", "S7", 0, "paper beats rock"),
        ("S4", "R4", "P7", 1, "rock beats scissors, B"),
        ("P6", "S6", "R6", 1, "both pair the base: rock-paper-scissors decides"),
        ("R6", "P6", "S6", 1, "both pair: paper beats rock"),
        ("R0", "S0", "P0", 0, "both pair on zero"),
        ("R0", "P9", "S0", 0, "a pair of zeros beats a nine"),
    ],
)
def test_turn_winner(a: str, b: str, base: str, winner: int, why: str) -> None:
    assert turn_winner(a, b, base) == winner, why
    assert turn_winner(b, a, base) == 1 - winner, "the rule is symmetric"


def test_turn_winner_over_every_triple_is_total_and_antisymmetric() -> None:
    for a, b, base in itertools.permutations(FULL_DECK, 3):
        assert turn_winner(a, b, base) + turn_winner(b, a, base) == 1


def test_full_deck_is_the_thirty_cards_in_the_challenge_order() -> None:
    assert len(FULL_DECK) == len(set(FULL_DECK)) == 30
    assert FULL_DECK[:3] == ("R0", "R1", "R2") and FULL_DECK[10] == "P0" and FULL_DECK[-1] == "S9"


def _play(state: RpsPokerMatch, chooser: random.Random, trace: list[object]) -> None:
    while not state.is_over:
        requests = state.requests()
        trace.append(requests)
        actions = {}
        for seat, request in requests.items():
            size = len(getattr(request, "cards", None) or request.hand)  # type: ignore[attr-defined]
            actions[seat] = state.check(seat, chooser.randrange(size))
        trace.append(state.apply(actions).notices)


def test_draft_and_draw_counts_and_hand_sizes() -> None:
    state = get_game("rps-poker").new_match(11)
    seen: list[set[str]] = []
    hand_sizes: list[int] = []
    draft_rounds = 0
    while not state.is_over:
        requests = state.requests()
        if state.in_draft:
            draft_rounds += 1
            offered = set(requests[0].cards) | set(requests[1].cards)  # type: ignore[attr-defined]
            assert len(offered) == 4
            seen.append(offered)
            state.apply({0: 0, 1: 1})
        else:
            if not hand_sizes:
                assert [len(d) for d in state.decks] == [7, 7], "10-card decks minus 3 drawn"
                assert len(state._stock) == 9, "10 left over, one turned up as the first base"
            assert len(requests[0].hand) == len(requests[1].hand)  # type: ignore[attr-defined]
            hand_sizes.append(len(requests[0].hand))  # type: ignore[attr-defined]
            state.apply({0: 0, 1: 0})
    assert draft_rounds == 5
    assert len(set().union(*seen)) == 20, "the draft deals 20 distinct cards"
    assert hand_sizes == [3] * 8 + [2, 1]
    assert sum(state.points) == 10


def test_draft_gives_the_unkept_card_to_the_opponent() -> None:
    state = get_game("rps-poker").new_match(5)
    offered = state.requests()
    step = state.apply({0: 1, 1: 0})
    a_cards, b_cards = offered[0].cards, offered[1].cards  # type: ignore[attr-defined]
    assert state.decks[0] == [a_cards[1], b_cards[1]]
    assert state.decks[1] == [b_cards[0], a_cards[0]]
    assert [(seat, n.card) for seat, n in step.notices] == [(0, b_cards[1]), (1, a_cards[0])]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(30))
def test_random_playouts_keep_every_card_unique_and_ten_points(seed: int) -> None:
    state = get_game("rps-poker").new_match(seed)
    trace: list[object] = []
    _play(state, random.Random(seed), trace)
    result = state.result()
    assert sum(result.points) == 10
    assert result.winner == (
        None if result.points[0] == result.points[1] else "AB"[result.points[1] > result.points[0]]
    )
    again: list[object] = []
    _play(get_game("rps-poker").new_match(seed), random.Random(seed), again)
    assert again == trace


def test_same_seed_same_deal_and_different_seeds_differ() -> None:
    deal = lambda seed: get_game("rps-poker").new_match(seed).requests()  # noqa: E731
    assert deal(123) == deal(123)
    assert len({str(deal(s)) for s in range(20)}) == 20


def test_the_deal_is_pinned_for_a_known_seed() -> None:
    # Changing the RNG or the deal order changes every recorded match: that needs a new rules version.
    first = get_game("rps-poker").new_match(7).requests()
    assert first[0].cards == ["S5", "R1"] and first[1].cards == ["R4", "R7"]  # type: ignore[attr-defined]


def test_rng_is_splitmix64() -> None:
    # Reference values of SplitMix64 from seed 0 (as published with the algorithm).
    rng = Rng(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert derive_seed(1, "x") == derive_seed(1, "x") != derive_seed(1, "y")


@pytest.mark.parametrize("action", [2, -1, "0", 0.0, True, None, [0]])
def test_illegal_draft_actions_are_refused_with_a_reason(action: object) -> None:
    state = get_game("rps-poker").new_match(1)
    with pytest.raises(IllegalAction, match="index"):
        state.check(0, action)


def test_forfeit_gives_the_remaining_turns_to_the_opponent() -> None:
    state = get_game("rps-poker").new_match(3)
    for _ in range(5):
        state.apply({0: 0, 1: 0})
    for _ in range(4):
        state.apply({0: 0, 1: 0})
    earned = list(state.points)
    result = state.forfeit(frozenset({1}), "B timeout")
    assert result.points == [earned[0] + 6, earned[1]]
    assert result.winner == "A" and result.forfeit == ["B"]
    both = state.forfeit(frozenset({0, 1}), "both")
    assert both.points == earned and both.winner is None


def test_forfeit_in_the_draft_gives_all_ten() -> None:
    result = get_game("rps-poker").new_match(3).forfeit(frozenset({0}), "A crash")
    assert result.points == [0, 10] and result.winner == "B"


def test_unknown_game_and_parameters_are_clear_errors() -> None:
    with pytest.raises(ParamError, match="unknown game"):
        get_game("chess")
    with pytest.raises(ParamError, match="valid: none"):
        get_game("rps-poker", {"turns": 12})
    with pytest.raises(ParamError, match="version 9"):
        get_game("rps-poker/9")
