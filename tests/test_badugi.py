"""Badugi: hand evaluation against brute force, the betting state machine, playouts, real matches."""

from __future__ import annotations

import itertools
import random
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

from arena.bots.spec import resolve
from arena.games import IllegalAction, ParamError, get_game
from arena.games._rng import Rng
from arena.games.badugi import (
    DECK,
    BadugiMatch,
    BettingRound,
    Deck,
    Structure,
    best_hand,
    check_discard,
    compare,
    describe,
    hand_key,
)
from arena.supervisor.matchlog import read_log, strip_times
from arena.supervisor.play import play_match
from protocol import Limits, Notice, Request
from protocol.badugi import (
    BadugiAct,
    BadugiDraw,
    BadugiDrawn,
    BadugiHandEnd,
    BadugiHandStart,
    BadugiOpponentAction,
    BadugiOpponentDraw,
    BadugiShowdown,
)

from .conftest import SAMPLE_BOTS, protocol_readme_section

BOTS = SAMPLE_BOTS / "badugi"
ACTIONS = ("fold", "check", "call", "bet", "raise")
FAST = Limits(startup_s=10.0, move_s=1.0, time_bank_s=5.0, move_wall_s=5.0)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (apt-get install nodejs)")


# An independent reference: enumerate every subset ----------------------------

RANK_VALUE = {rank: value for value, rank in enumerate("A23456789TJQK", start=1)}


def reference_key(cards: Sequence[str]) -> tuple[int, ...]:
    """The rules read literally: the largest valid subsets, then the lowest rank list from the top."""
    for size in range(len(cards), 0, -1):
        keys = [
            tuple(sorted((RANK_VALUE[c[0]] for c in subset), reverse=True))
            for subset in itertools.combinations(cards, size)
            if len({c[0] for c in subset}) == size and len({c[1] for c in subset}) == size
        ]
        if keys:
            return (4 - size, *min(keys))
    raise AssertionError("no cards")


def is_valid_played_hand(played: Sequence[str], held: Sequence[str]) -> bool:
    return (
        set(played) <= set(held)
        and len({c[0] for c in played}) == len(played)
        and len({c[1] for c in played}) == len(played)
        and [RANK_VALUE[c[0]] for c in played] == sorted((RANK_VALUE[c[0]] for c in played), reverse=True)
    )


@pytest.mark.slow
def test_evaluator_key_equals_brute_force_for_every_four_card_hand() -> None:
    count = 0
    keys: dict[tuple[int, ...], int] = {}
    for hand in itertools.combinations(DECK, 4):
        key = hand_key(hand)
        assert key == reference_key(hand), hand
        keys[key] = keys.get(key, 0) + 1
        count += 1
    assert count == 270725
    assert min(keys) == (0, 4, 3, 2, 1) and keys[(0, 4, 3, 2, 1)] == 24  # 4-3-2-A, in 4! suit assignments
    assert max(keys) == (3, 13) and keys[(3, 13)] == 1  # a lone king: only Kc Kd Kh Ks


@pytest.mark.slow
def test_best_hand_is_a_valid_subset_with_the_reference_key_on_random_hands() -> None:
    rng = random.Random(2024)
    for _ in range(20000):
        held = rng.sample(DECK, 4)
        played = best_hand(held)
        assert is_valid_played_hand(played, held), (held, played)
        assert hand_key(played) == reference_key(held) == hand_key(held)


@pytest.mark.slow
def test_compare_agrees_with_the_reference_on_random_pairs() -> None:
    rng = random.Random(7)
    outcomes = {1: 0, -1: 0, 0: 0}
    for _ in range(20000):
        a, b = rng.sample(DECK, 4), rng.sample(DECK, 4)  # two players' cards need not be disjoint here
        ka, kb = reference_key(a), reference_key(b)
        expected = 1 if ka < kb else -1 if ka > kb else 0
        assert compare(a, b) == expected == -compare(b, a), (a, b)
        outcomes[expected] += 1
    assert all(outcomes.values())  # wins, losses and draws all occurred


# The rules' own examples ------------------------------------------------------


def test_rules_best_and_worst_hands() -> None:
    assert hand_key(["4c", "3d", "2h", "As"]) == (0, 4, 3, 2, 1)
    assert describe(["4c", "3d", "2h", "As"]) == "4-card 4-3-2-A"
    assert best_hand(["Kc", "Kd", "Kh", "Ks"]) in (["Kc"], ["Kd"], ["Kh"], ["Ks"])
    assert describe(["Kc", "Kd", "Kh", "Ks"]) == "1-card K"


def test_rules_example_4c_3h_2c_as() -> None:
    held = ["4c", "3h", "2c", "As"]
    assert best_hand(held) == ["3h", "2c", "As"]  # not 4-3-A, its worse 3-card choice
    assert describe(held) == "3-card 3-2-A"
    assert compare(held, ["Kh", "3d", "2s", "Ah"]) == 0
    assert compare(held, ["Kc", "Qd", "Jh", "Ts"]) == -1  # every 4-card hand wins, even K-Q-J-T
    assert compare(held, ["4c", "3h", "Ad", "Ac"]) == 1  # 3-2-A beats 4-3-A


def test_rules_example_8d_6h_3s_2h() -> None:
    assert best_hand(["8d", "6h", "3s", "2h"]) == ["8d", "3s", "2h"]
    assert compare(["8d", "6h", "3s", "2h"], ["8d", "6h", "3s", "Kh"]) == 1  # 8-3-2 beats 8-6-3


@pytest.mark.parametrize(
    ("other", "outcome"),
    [
        (["8c", "5d", "Ah"], 1),  # 8-4-2 beats 8-5-A
        (["8c", "4d", "Ah"], -1),  # loses to 8-4-A
        (["8c", "3d", "2h"], -1),  # to 8-3-2
        (["7c", "6d", "5h"], -1),  # and to 7-6-5
        (["8s", "4h", "2c"], 0),  # and draws with another 8-4-2
        (["8s", "4h", "2c", "2d"], 0),  # also when held among four cards
        (["8s", "4h", "2c", "9d"], -1),  # every 4-card hand wins
        (["8s", "8h", "8c", "8d"], 1),  # every 3-card hand beats a 1-card one
    ],
)
def test_rules_example_8_4_2(other: list[str], outcome: int) -> None:
    assert compare(["8d", "4c", "2s"], other) == outcome
    assert compare(other, ["8d", "4c", "2s"]) == -outcome


def test_greedy_trap_keeps_the_largest_hand() -> None:
    # Throwing away the higher card of each clash would leave one card; the hand plays 3-2.
    assert best_hand(["Kc", "2c", "2d", "3d"]) == ["3d", "2c"]


@pytest.mark.parametrize(
    "cards",
    [[], ["Kc"] * 2, ["1c"], ["Kx"], ["kc"], ["K"], ["Kc", "Qd", "Jh", "Ts", "9c"], [10]],
)
def test_evaluator_rejects_what_is_not_a_hand(cards: list[Any]) -> None:
    with pytest.raises(ValueError):
        hand_key(cards)


# The deck ---------------------------------------------------------------------


def test_draws_replace_in_place_and_the_muck_is_reshuffled_when_the_deck_runs_out() -> None:
    deck = Deck(["Ac", "2c", "3c"], Rng(1), shuffle=False)
    held = ["Kc", "Kd", "Kh", "Ks"]
    assert deck.draw(held, [3, 1]) == ["Kd", "Ks"]
    assert held == ["Kc", "Ac", "Kh", "2c"] and deck.muck == ["Kd", "Ks"]
    assert deck.draw(held, [0, 2]) == ["Kc", "Kh"]  # 3c, then the muck (Kd Ks), never the cards held
    assert held[0] == "3c" and held[2] in ("Kd", "Ks") and deck.reshuffles == 1
    assert deck.muck == ["Kc", "Kh"] and len(deck.cards) == 1  # the new deck: the other of Kd Ks
    assert sorted(held + deck.cards + deck.muck) == sorted(["Ac", "2c", "3c", "Kc", "Kd", "Kh", "Ks"])


@pytest.mark.parametrize(("answer", "taken"), [([], ()), ([3, 1], (1, 3)), ([0, 1, 2, 3], (0, 1, 2, 3)), ([2], (2,))])
def test_draw_answers_that_are_legal(answer: list[int], taken: tuple[int, ...]) -> None:
    assert check_discard(answer) == taken


@pytest.mark.parametrize(
    "answer", [None, 0, "0", "[0]", [4], [-1], [0, 0], [True], [0.0], ["1"], {"0": 1}, [0, 1, 2, 3, 0]]
)
def test_draw_answers_that_are_illegal(answer: Any) -> None:
    with pytest.raises(IllegalAction):
        check_discard(answer)


# The betting state machine ------------------------------------------------------


def round_one(*actions: str, cap: int = 4) -> BettingRound:
    """Round 1 of a hand where seat 0 has the button: blinds 1 and 2 posted, bets of 2."""
    betting = BettingRound(first=0, bet_size=2, cap=cap, posted=(1, 2), bets=1)
    for action in actions:
        betting.act(action)
    return betting


def later_round(*actions: str, cap: int = 4) -> BettingRound:
    """A round after a draw: the big blind (seat 1) first, bets of 4."""
    betting = BettingRound(first=1, bet_size=4, cap=cap)
    for action in actions:
        betting.act(action)
    return betting


# (history, seat to act, chips to call, legal actions, or "closed")
ROUND_ONE = [
    ((), 0, 1, ["fold", "call", "raise"]),  # the small blind faces the big blind
    (("call",), 1, 0, ["check", "raise"]),  # the big blind's option
    (("call", "check"), None, 0, "closed"),
    (("call", "raise"), 0, 2, ["fold", "call", "raise"]),
    (("call", "raise", "raise"), 1, 2, ["fold", "call", "raise"]),
    (("call", "raise", "raise", "raise"), 0, 2, ["fold", "call"]),  # four bets: the cap
    (("call", "raise", "raise", "raise", "call"), None, 0, "closed"),
    (("raise",), 1, 2, ["fold", "call", "raise"]),
    (("raise", "raise"), 0, 2, ["fold", "call", "raise"]),
    (("raise", "raise", "raise"), 1, 2, ["fold", "call"]),
    (("raise", "raise", "raise", "call"), None, 0, "closed"),
    (("raise", "call"), None, 0, "closed"),
    (("fold",), None, 0, "closed"),
    (("call", "raise", "fold"), None, 0, "closed"),
]
LATER_ROUND = [
    ((), 1, 0, ["check", "bet"]),
    (("check",), 0, 0, ["check", "bet"]),
    (("check", "check"), None, 0, "closed"),
    (("bet",), 0, 4, ["fold", "call", "raise"]),
    (("check", "bet"), 1, 4, ["fold", "call", "raise"]),
    (("check", "bet", "raise"), 0, 4, ["fold", "call", "raise"]),
    (("check", "bet", "raise", "raise"), 1, 4, ["fold", "call", "raise"]),
    (("check", "bet", "raise", "raise", "raise"), 0, 4, ["fold", "call"]),
    (("bet", "raise", "raise", "raise"), 1, 4, ["fold", "call"]),
    (("bet", "call"), None, 0, "closed"),
    (("check", "bet", "fold"), None, 0, "closed"),
]
NOT_ACTIONS: list[Any] = [None, 1, True, ["call"], {"action": "call"}, "CALL", "Call", "", "all-in", "check "]


def assert_state(make: Any, history: tuple[str, ...], seat: int | None, to_call: int, legal: Any) -> None:
    betting = make(*history)
    if legal == "closed":
        assert betting.is_closed and betting.legal() == []
        for action in ACTIONS:
            with pytest.raises(IllegalAction):
                make(*history).act(action)
        return
    assert not betting.is_closed
    assert (betting.to_act, betting.to_call, betting.legal()) == (seat, to_call, legal)
    for action in ACTIONS:
        fresh = make(*history)
        if action in legal:
            fresh.act(action)
            assert fresh.to_act == 1 - seat
        else:
            with pytest.raises(IllegalAction, match="not allowed now"):
                fresh.act(action)
            assert fresh.to_act == seat and fresh.put == betting.put  # a refused action changes nothing
    for action in NOT_ACTIONS:
        with pytest.raises(IllegalAction):
            make(*history).act(action)


@pytest.mark.parametrize(("history", "seat", "to_call", "legal"), ROUND_ONE)
def test_round_one_every_action_in_every_state(
    history: tuple[str, ...], seat: int | None, to_call: int, legal: Any
) -> None:
    assert_state(round_one, history, seat, to_call, legal)


@pytest.mark.parametrize(("history", "seat", "to_call", "legal"), LATER_ROUND)
def test_later_round_every_action_in_every_state(
    history: tuple[str, ...], seat: int | None, to_call: int, legal: Any
) -> None:
    assert_state(later_round, history, seat, to_call, legal)


@pytest.mark.parametrize(
    ("history", "put"),
    [
        (("call", "check"), [2, 2]),
        (("raise", "call"), [4, 4]),
        (("raise", "raise", "raise", "call"), [8, 8]),
        (("call", "raise", "raise", "raise", "call"), [8, 8]),
        (("fold",), [1, 2]),
    ],
)
def test_round_one_chips_put_in(history: tuple[str, ...], put: list[int]) -> None:
    assert round_one(*history).put == put


def test_raise_cap_is_a_parameter() -> None:
    assert round_one(cap=1).legal() == ["fold", "call"]  # the big blind is the only bet allowed
    assert round_one("call", cap=1).legal() == ["check"]
    assert later_round(cap=1).legal() == ["check", "bet"]
    assert later_round("bet", cap=1).legal() == ["fold", "call"]
    assert later_round("bet", "raise", cap=2).legal() == ["fold", "call"]


# Whole hands in a match ----------------------------------------------------------


def new_match(seed: int = 1, **params: object) -> BadugiMatch:
    state = get_game("badugi", params).new_match(seed)
    assert isinstance(state, BadugiMatch)
    return state


def play(state: BadugiMatch, *answers: Any) -> list[tuple[int, Notice]]:
    """Answer the match's requests in turn; returns the notices sent."""
    notices = []
    for answer in answers:
        ((seat, _),) = state.requests().items()
        notices += state.apply({seat: state.check(seat, answer)}).notices
    return notices


def asked(state: BadugiMatch) -> tuple[int, Request]:
    ((seat, request),) = state.requests().items()
    return seat, request


def test_blinds_and_who_acts_first_before_and_after_the_draws() -> None:
    state = new_match(hands=2)
    starts = state.start().notices
    assert [(seat, n.blinds, n.button) for seat, n in starts if isinstance(n, BadugiHandStart)] == [
        (0, [1, 2], "A"),
        (1, [2, 1], "A"),
    ]
    seat, request = asked(state)  # hand 1: A has the button, posts the small blind and acts first
    assert seat == 0 and isinstance(request, BadugiAct)
    assert (request.round, request.to_call, request.legal, request.stakes, request.pot) == (
        1,
        1,
        ["fold", "call", "raise"],
        [1, 2],
        3,
    )
    play(state, "call", "check")
    for draw in (1, 2, 3):
        assert [asked(state)[0]] == [1] and isinstance(asked(state)[1], BadugiDraw)  # the big blind draws first
        play(state, [])
        assert asked(state)[0] == 0 and isinstance(asked(state)[1], BadugiDraw)
        play(state, [])
        seat, request = asked(state)  # after a draw the big blind acts first
        assert seat == 1 and isinstance(request, BadugiAct) and request.round == draw + 1
        assert request.bet_size == (2 if draw == 1 else 4) and request.legal == ["check", "bet"]
        play(state, "check", "check")
    assert state.hand == 2 and state.stakes == [2, 1]
    seat, request = asked(state)  # hand 2: the button moved to B
    assert seat == 1 and isinstance(request, BadugiAct) and request.stakes == [1, 2]
    play(state, "call", "check")
    assert asked(state)[0] == 0 and isinstance(asked(state)[1], BadugiDraw)


def test_blinds_and_bet_sizes_follow_the_parameters() -> None:
    state = new_match(hands=1, small_blind=5, big_blind=10, small_bet=10, big_bet=20, bet_cap=3)
    _, request = asked(state)
    assert isinstance(request, BadugiAct)
    assert (request.to_call, request.bet_size, request.bet_cap, request.pot) == (5, 10, 3, 15)
    play(state, "raise", "raise")
    assert asked(state)[1].legal == ["fold", "call"]  # type: ignore[attr-defined]
    play(state, "call", [], [], "bet", "call", [], [])
    _, request = asked(state)
    assert isinstance(request, BadugiAct) and request.round == 3 and request.bet_size == 20 and request.pot == 80


@pytest.mark.parametrize(
    "params",
    [{"small_blind": 2, "big_blind": 2}, {"small_blind": 3}, {"hands": 0}, {"bet_cap": 0}, {"ante": 1}],
)
def test_bad_parameters(params: dict[str, object]) -> None:
    with pytest.raises(ParamError):
        get_game("badugi", params)


def test_only_the_seat_asked_may_act() -> None:
    state = new_match()
    with pytest.raises(IllegalAction):
        state.check(1, "call")
    play(state, "call", "check")
    with pytest.raises(IllegalAction):
        state.check(0, [])


def test_a_fold_gives_the_pot_and_the_next_hand_is_dealt() -> None:
    state = new_match(hands=3)
    notices = play(state, "fold")
    ends = [(seat, n.won, n.winner, n.ended_by, n.score) for seat, n in notices if isinstance(n, BadugiHandEnd)]
    assert ends == [(0, -1, "B", "fold", [-1, 1]), (1, 1, "B", "fold", [1, -1])]
    assert [seat for seat, n in notices if isinstance(n, BadugiOpponentAction)] == [1]
    assert [n.hand for _, n in notices if isinstance(n, BadugiHandStart)] == [2, 2]
    notices = play(state, "raise", "fold")  # B (button) raises, A folds its big blind
    assert state.score == [-3, 3]
    assert not any(isinstance(n, BadugiShowdown) for _, n in notices)


def scripted_showdown(cards_a: list[str], cards_b: list[str]) -> tuple[BadugiMatch, list[tuple[int, Notice]]]:
    state = new_match(hands=1)
    state.cards = [list(cards_a), list(cards_b)]
    notices = play(state, "raise", "call", [], [], "bet", "raise", "call", [], [], "bet", "call", [], [], "check")
    notices += play(state, "bet", "call")
    assert state.is_over
    return state, notices


def test_showdown_winner_takes_the_pot() -> None:
    # A: 3-card 3-2-A; B: 4-card K-Q-J-T, which wins. Each puts in 4 (r1), 4 (r2), 4 (r3), 4 (r4).
    state, notices = scripted_showdown(["4c", "3h", "2c", "As"], ["Kc", "Qd", "Jh", "Ts"])
    shows = [n for seat, n in notices if isinstance(n, BadugiShowdown) and seat == 0]
    assert len(shows) == 1 and shows[0].winner == "B"
    assert shows[0].played == ["3h", "2c", "As"] and shows[0].opponent_cards == ["Kc", "Qd", "Jh", "Ts"]
    assert state.result().points == [-16.0, 16.0] and state.result().winner == "B"
    ends = [n for seat, n in notices if isinstance(n, BadugiHandEnd) and seat == 1]
    assert (ends[0].pot, ends[0].won, ends[0].ended_by) == (32, 16, "showdown")


def test_equal_hands_split_the_pot() -> None:
    state, notices = scripted_showdown(["4c", "3h", "2c", "As"], ["Kh", "3d", "2s", "Ah"])
    ends = [(seat, n.winner, n.won) for seat, n in notices if isinstance(n, BadugiHandEnd)]
    assert ends == [(0, None, 0), (1, None, 0)]
    assert state.result().points == [0.0, 0.0] and state.result().winner is None


def test_each_seat_learns_only_how_many_cards_the_opponent_drew() -> None:
    state = new_match(seed=5)
    before = list(state.cards[1])
    notices = play(state, "call", "check", [0, 2])
    drawn = [n for seat, n in notices if seat == 1 and isinstance(n, BadugiDrawn)]
    assert drawn[0].discarded == [before[0], before[2]] and drawn[0].cards[1] == before[1]
    told = [n for seat, n in notices if seat == 0 and isinstance(n, BadugiOpponentDraw)]
    assert [(n.draw, n.count) for n in told] == [(1, 2)]
    assert not any(seat == 0 and isinstance(n, BadugiDrawn) for seat, n in notices)


# Forfeits -------------------------------------------------------------------------


def test_forfeit_folds_the_hand_in_play_and_every_hand_not_yet_dealt() -> None:
    state = new_match(hands=10)
    play(state, "raise", "raise")  # A (button) has put in 4, B 6
    result = state.forfeit(frozenset({0}), "A timeout")
    # A loses its 4, then the blinds of hands 2..10: big blind in even hands (5 x 2), small in odd ones (4 x 1).
    assert result.points == [-18.0, 18.0] and result.winner == "B" and result.forfeit == ["A"]
    result = state.forfeit(frozenset({1}), "B crash")
    # B loses its 6, then small blinds in even hands (5 x 1) and big blinds in odd ones (4 x 2).
    assert result.points == [19.0, -19.0] and result.winner == "A" and result.reason == "B crash"
    assert state.forfeit(frozenset({0, 1}), "both").points == [0.0, 0.0]
    assert state.forfeit(frozenset({0, 1}), "both").winner is None


def test_forfeit_when_ahead_still_loses_and_after_the_last_hand_costs_nothing_more() -> None:
    state = new_match(hands=1)
    play(state, "call", "raise", "fold")  # A calls to 2, B raises, A folds: B wins A's 2
    assert state.is_over and state.score == [-2, 2]
    result = state.forfeit(frozenset({1}), "B crash at match_end")
    assert result.points == [-2.0, 2.0] and result.winner == "A"


# Random playouts: chips and cards conserved, hidden cards stay hidden, replay exact --------


def random_answer(rng: random.Random, request: Request) -> Any:
    if isinstance(request, BadugiAct):
        return rng.choice(request.legal)
    return rng.sample(range(4), rng.randint(0, 4))


def card_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str) and len(value) == 2 and value in DECK:
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_strings(item)


def random_playout(seed: int, hands: int) -> list[tuple[int, Any]]:
    """Play a seeded random match, checking invariants at every step; returns every message sent."""
    rng = random.Random(seed)
    state = new_match(seed, hands=hands)
    sent: list[tuple[int, Any]] = []
    seen: list[set[str]] = [set(state.cards[0]), set(state.cards[1])]
    step = state.start()
    while True:
        for seat, message in step.notices:
            sent.append((seat, msgspec.to_builtins(message)))
            audit(seat, message, seen[seat], state)
        if state.is_over:
            break
        assert sorted(state.cards[0] + state.cards[1] + state.deck.cards + state.deck.muck) == sorted(DECK)
        ((seat, request),) = state.requests().items()
        audit(seat, request, seen[seat], state)
        sent.append((seat, msgspec.to_builtins(request)))
        hand = state.hand
        before = [list(state.cards[0]), list(state.cards[1])]
        step = state.apply({seat: state.check(seat, random_answer(rng, request))})
        if state.hand != hand:
            seen = [set(before[s]) | set(state.cards[s]) for s in (0, 1)]
        else:
            for s in (0, 1):
                seen[s] |= set(state.cards[s])
        assert state.score[0] + state.score[1] == 0
    result = state.result()
    assert result.points[0] + result.points[1] == 0
    ends = [message for seat, message in sent if seat == 0 and message["type"] == "badugi_hand_end"]
    assert len(ends) == hands and sum(end["won"] for end in ends) == result.points[0]
    return sent


def audit(seat: int, message: Any, seen: set[str], state: BadugiMatch) -> None:
    """Only the seat's own cards reach it, except the opponent's at a showdown."""
    fields = msgspec.to_builtins(message)
    if isinstance(message, BadugiShowdown):
        assert fields.pop("opponent_cards") == state.cards[1 - seat] or state.hand > message.hand
        fields.pop("opponent_played")
    leaked = set(card_strings(fields)) - seen
    assert not leaked, (seat, message, leaked)


@pytest.mark.parametrize("seed", range(8))
def test_random_playouts_conserve_chips_and_cards_and_hide_the_opponents_cards(seed: int) -> None:
    sent = random_playout(seed, hands=60)
    kinds = {message["type"] for _, message in sent}
    assert kinds >= {"badugi_hand_start", "badugi_act", "badugi_opponent_action", "badugi_hand_end"}


def test_random_playouts_reach_every_kind_of_message() -> None:
    kinds = {message["type"] for seed in range(3) for _, message in random_playout(100 + seed, hands=100)}
    assert kinds == {
        "badugi_hand_start",
        "badugi_act",
        "badugi_opponent_action",
        "badugi_draw",
        "badugi_drawn",
        "badugi_opponent_draw",
        "badugi_showdown",
        "badugi_hand_end",
    }


def test_same_seed_same_match_and_another_seed_another() -> None:
    assert random_playout(42, hands=30) == random_playout(42, hands=30)
    assert random_playout(42, hands=30) != random_playout(43, hands=30)


def test_a_hand_is_dealt_the_same_whatever_happened_before() -> None:
    quick, slow = new_match(9, hands=3), new_match(9, hands=3)
    play(quick, "fold")
    play(slow, "call", "check", [0, 1, 2, 3], [0, 1, 2, 3], "check", "check", [0, 1], [2, 3], "check", "check")
    play(slow, [0], [1], "check", "check")
    assert quick.hand == slow.hand == 2 and quick.cards == slow.cards


# Real matches of the sample bots ------------------------------------------------------


async def run_match(tmp_path: Path, bot_a: str, bot_b: str, *, seed: int, hands: int = 20) -> Any:
    game = get_game("badugi", {"hands": hands})
    specs = (resolve(str(BOTS / bot_a)), resolve(str(BOTS / bot_b)))
    lines: list[str] = []
    record = await play_match(game, specs, seed=seed, limits=FAST, log_dir=tmp_path, narrate=lines.append)
    return record, read_log(record.log_path), lines


@needs_node
@pytest.mark.parametrize(
    ("bot_a", "bot_b"),
    [
        ("rule-based-python", "calling-station-node"),
        ("calling-station-python", "rule-based-node"),
        ("rule-based-node", "rule-based-python"),
    ],
)
async def test_sample_bots_play_full_matches(tmp_path: Path, bot_a: str, bot_b: str) -> None:
    record, log, lines = await run_match(tmp_path, bot_a, bot_b, seed=11)
    assert record.faults == [] and record.result.forfeit == [], record.faults
    assert record.result.points[0] + record.result.points[1] == 0
    won = sum(
        r["msg"]["won"]
        for r in log
        if r["type"] == "send" and r["seat"] == "A" and r["msg"]["type"] == "badugi_hand_end"
    )
    assert won == record.result.points[0]
    assert lines[0].startswith("Hand 1/20, button A:") and any(line.startswith("Hand 20/20") for line in lines)
    draws = [r["msg"]["action"] for r in log if r["type"] == "recv" and isinstance(r["msg"]["action"], list)]
    assert draws  # both bots answered draw requests with lists of indices


@needs_node
async def test_python_and_node_rule_bots_make_the_same_decisions(tmp_path: Path) -> None:
    answers = []
    for bot in ("rule-based-python", "rule-based-node"):
        _, log, _ = await run_match(tmp_path / bot, bot, "rule-based-python", seed=5, hands=40)
        answers.append([r["msg"] for r in log if r["type"] == "recv" and r["seat"] == "A"])
    assert answers[0] == answers[1] and len(answers[0]) > 100
    assert {"raise", "fold"} <= {a["action"] for a in answers[0] if isinstance(a["action"], str)}


async def test_same_seed_reproduces_a_real_match(tmp_path: Path) -> None:
    logs = []
    for run in ("one", "two"):
        _, log, _ = await run_match(tmp_path / run, "rule-based-python", "calling-station-python", seed=77)
        for bot in log[0]["bots"]:
            bot.pop("stderr_log")
        logs.append(strip_times(log))
    assert logs[0] == logs[1]


@pytest.mark.slow
async def test_rule_based_bot_beats_the_calling_station_over_duplicate_seats(tmp_path: Path) -> None:
    total = 0.0
    for seed in (1, 2):
        first, _, _ = await run_match(
            tmp_path / f"{seed}a", "rule-based-python", "calling-station-python", seed=seed, hands=60
        )
        second, _, _ = await run_match(
            tmp_path / f"{seed}b", "calling-station-python", "rule-based-python", seed=seed, hands=60
        )
        total += first.result.points[0] + second.result.points[1]
    assert total > 0


def test_structure_matches_the_parameter_table() -> None:
    game = get_game("badugi")
    assert game.game_id == "badugi/1"
    assert Structure() == game.structure  # type: ignore[attr-defined]


# A round-robin tournament of the sample bots, with duplicate deals -------------------------


@needs_node
@pytest.mark.slow
def test_round_robin_tournament_of_the_sample_bots_with_duplicate_deals(tmp_path: Path) -> None:
    import trio

    from arena.competition.config import BotEntry, TournamentConfig
    from arena.competition.plan import open_competition, prepare
    from arena.competition.runner import run_tournament
    from arena.competition.standings import leaderboard
    from arena.competition.store import Store

    bots = ["calling-station-python", "calling-station-node", "rule-based-python", "rule-based-node"]
    config = TournamentConfig(
        game="badugi",
        bots=[BotEntry(text=str(BOTS / bot)) for bot in bots],
        seed=2026,
        params={"hands": 24},
        limits=FAST,
        db=tmp_path / "results.sqlite",
        log_dir=tmp_path / "logs",
    )
    plan = prepare(config)
    assert plan.duplicate  # Badugi plays duplicate deals by default
    with Store.open(config.db) as store:
        competition = open_competition(plan, store)
        summary = trio.run(lambda: run_tournament(plan, store, competition, jobs=2))
        matches = store.matches(competition.id)
    assert summary.played == len(matches) == 6 * 2
    assert [m.faults for m in matches if m.faults] == []
    assert all(m.points[0] + m.points[1] == 0 for m in matches)
    by_deal: dict[str, list[Any]] = {}
    for match in matches:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 6
    for legs in by_deal.values():
        first, second = sorted(legs, key=lambda m: m.leg)
        assert first.seed == second.seed and (first.bot_a, first.bot_b) == (second.bot_b, second.bot_a)
        # The same seat is dealt the same cards in every hand of both legs.
        starts = [
            [(r["seat"], r["msg"]["cards"]) for r in read_log(Path(m.log_path or "")) if r["type"] == "send"
             and r["msg"]["type"] == "badugi_hand_start"]
            for m in (first, second)
        ]  # fmt: skip
        assert starts[0] == starts[1] and len(starts[0]) == 2 * 24
        names = {first.bot_a, first.bot_b}
        if names in ({"rule-based-python", "rule-based-node"}, {"calling-station-python", "calling-station-node"}):
            # Ports of one strategy: the second leg replays the first with names swapped, so the deal nets zero.
            assert first.points == second.points
    board = leaderboard(plan.names, matches, max_faults=10)
    points = {row.bot: row.points for row in board.standings}
    # Each pair of bots gets its own deals, so only the signs compare across pairs.
    assert points["rule-based-python"] > 0 and points["rule-based-node"] > 0
    assert points["calling-station-python"] < 0 and points["calling-station-node"] < 0
    assert {row.bot for row in board.standings[:2]} == {"rule-based-python", "rule-based-node"}


async def test_the_protocol_readme_example_is_a_real_match(tmp_path: Path) -> None:
    section = protocol_readme_section("Badugi (`badugi/1`)")
    example = section.split("```\n", 1)[1].split("```", 1)[0]
    shown = [line for line in example.splitlines() if line[:2] in ("> ", "< ") and "{...}" not in line]
    _, log, _ = await run_match(tmp_path, "rule-based-python", "calling-station-python", seed=5, hands=1)
    real = [
        ("> " if r["type"] == "send" else "< ") + msgspec.json.encode(r["msg"]).decode()
        for r in log
        if r.get("seat") == "A" and r["type"] in ("send", "recv")
    ] + ["> " + msgspec.json.encode({"type": "quit"}).decode()]  # quit is sent after the log closes
    assert len(shown) > 15
    position = 0
    for line in shown:  # the example's lines appear in the real exchange, in order
        assert line in real[position:], line
        position = real.index(line, position) + 1


def test_the_evaluators_docstring_examples() -> None:
    import doctest

    from arena.games import badugi

    assert doctest.testmod(badugi).attempted >= 4
    assert doctest.testmod(badugi).failed == 0


# A bot's illegal answers end as recorded faults, scored by the forfeit rule -------------------


FAULTY = Path(__file__).with_name("faulty_badugi") / "bot.py"


def faulty_bot(mode: str) -> Any:
    from arena.bots.spec import BotSpec

    return BotSpec(name=f"faulty-{mode}", command=(sys.executable, str(FAULTY), mode), cwd=FAULTY.parent)


@pytest.mark.parametrize(
    ("mode", "points", "says"),
    [
        # Folds the button's small blind in hand 1 (legal), then folds a free check in hand 2 as the big blind:
        # it loses its 2 in hand 2, then its blinds in hands 3 (1) and 4 (2).
        ("fold", [-6.0, 6.0], 'legal: "check"'),
        # Calls, then draws a card that does not exist: its 2 chips in hand 1, then blinds 2, 1, 2.
        ("bad_discard", [-7.0, 7.0], "0..3"),
        # At the first request: its small blind, then blinds 2, 1, 2.
        ("shout", [-6.0, 6.0], '"CALL" is not allowed'),
        ("number", [-6.0, 6.0], "as a string"),
    ],
)
async def test_illegal_answers_are_faults_and_forfeit_by_the_rules(mode: str, points: list[float], says: str) -> None:
    game = get_game("badugi", {"hands": 4})
    specs = (faulty_bot(mode), resolve(str(BOTS / "calling-station-python")))
    record = await play_match(game, specs, seed=3, limits=FAST, log_dir=None)
    assert [(f.seat, f.kind) for f in record.faults] == [("A", "illegal_move")]
    assert says in record.faults[0].reason
    assert record.result.points == points and record.result.winner == "B" and record.result.forfeit == ["A"]
