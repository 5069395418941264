"""Kuhn poker's rules, table by table (run with ``python -m pytest tests`` in this folder).

The whole game is checked by Arena's conformance kit: ``arena check-game kuhn-poker``.
"""

from __future__ import annotations

import random

import pytest
from kuhn_poker.game import KuhnMatch

from arena.games import IllegalAction


def play(moves: str, cards: tuple[str, str]) -> tuple[list[int], list[object]]:
    """One hand with ``cards`` dealt, played with ``moves``; the chips won and the hand-end notices."""
    state = KuhnMatch(1, hands=1)
    state.cards = list(cards)
    step = None
    for move in moves:
        ((seat, _),) = state.requests().items()
        step = state.apply({seat: state.check(seat, "bet" if move == "b" else "pass")})
    assert step is not None and state.is_over
    return state.score, [notice for _, notice in step.notices]


@pytest.mark.parametrize(
    ("moves", "cards", "score", "shown"),
    [
        ("pp", ("K", "J"), [1, -1], True),
        ("pp", ("J", "Q"), [-1, 1], True),
        ("pbp", ("K", "J"), [-1, 1], False),
        ("pbb", ("J", "Q"), [-2, 2], True),
        ("bp", ("J", "K"), [1, -1], False),
        ("bb", ("Q", "J"), [2, -2], True),
        ("bb", ("Q", "K"), [-2, 2], True),
    ],
)
def test_a_hand_ends_and_pays_as_openspiel_s_kuhn_poker(
    moves: str, cards: tuple[str, str], score: list[int], shown: bool
) -> None:
    chips, notices = play(moves, cards)
    assert chips == score
    assert [n.opponent_card for n in notices] == ([cards[1], cards[0]] if shown else [None, None])


def test_player_one_acts_first_and_an_unasked_seat_is_refused() -> None:
    state = KuhnMatch(5, hands=2)
    ((seat, request),) = state.requests().items()
    assert (seat, request.player, request.history, request.pot) == (0, 1, "", 2)
    with pytest.raises(IllegalAction):
        state.check(1, "bet")
    for junk in ("Bet", 1, None, ["bet"], "fold"):
        with pytest.raises(IllegalAction):
            state.check(0, junk)


def test_each_hand_is_dealt_from_the_seed_and_its_number_alone() -> None:
    def deals(chooser: random.Random) -> list[list[str]]:
        state, seen = KuhnMatch(11, hands=30), []
        while not state.is_over:
            if state.history == "":
                seen.append(list(state.cards))
            ((seat, _),) = state.requests().items()
            state.apply({seat: chooser.choice(["pass", "bet"])})
        return seen

    assert deals(random.Random(1)) == deals(random.Random(2))
    assert len({tuple(d) for d in deals(random.Random(1))}) > 1


def test_a_fault_folds_the_hand_and_loses_every_ante_to_come() -> None:
    state = KuhnMatch(3, hands=10)
    state.apply({0: "bet"})  # A bets: it has put in 2, and 9 hands are still to be dealt
    result = state.forfeit(frozenset({0}), "timeout")
    assert result.points == [-11.0, 11.0] and result.winner == "B"
    both = state.forfeit(frozenset({0, 1}), "both")
    assert both.points == [0.0, 0.0] and both.winner is None
