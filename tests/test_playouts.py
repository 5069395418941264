"""Seeded random playouts of every registered game (after OpenSpiel's ``random_sim_test``).

Each playout answers every request with a random legal action, found as the
conformance kit finds them (``arena.checks._kit.legal_options``): from the
game's ``legal_actions`` when it lists them, otherwise from a pool of
candidate actions (small integers, the strings and numbers the request
carries, short lists of indices) filtered by the game's own ``check``.
Every parameter with a list of choices is played with each choice.
"""

import random
from typing import Any

import pytest

import protocol
from arena.checks._kit import legal_options
from arena.games import GAMES, Game, IllegalAction, MatchState, get_game

SEEDS = range(12)
MAX_STEPS = 10_000


def variants() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for game_id, cls in sorted(GAMES.items()):
        found.append((game_id, {}))
        for param in cls.params_table:
            found += [(game_id, {param.name: choice}) for choice in param.choices if choice != param.default]
    return found


VARIANTS = variants()
IDS = [game_id + "".join(f"-{k}={v}" for k, v in params.items()) for game_id, params in VARIANTS]


def legal(state: MatchState, seat: int, request: protocol.Request) -> list[Any]:
    return legal_options(state, seat, request)


def playout(game: Game, seed: int, *, stop_at: int | None = None) -> tuple[list[bytes], MatchState]:
    """The messages of a random legal playout (each prefixed by its seat), and the final state."""
    chooser = random.Random(seed)
    state = game.new_match(seed)
    sent = [str(seat).encode() + protocol.encode(notice) for seat, notice in state.start().notices]
    steps = 0
    asked = [0, 0]  # a seat is never asked more than the game's max_requests, which a match's clock follows
    while not state.is_over and steps != stop_at:
        steps += 1
        assert steps <= MAX_STEPS, f"{game.game_id} did not end within {MAX_STEPS} steps"
        requests = state.requests()
        assert requests, "a match that is not over must ask some seat to act"
        actions = {}
        for seat, request in sorted(requests.items()):
            asked[seat] += 1
            assert asked[seat] <= game.max_requests(), f"seat {seat} asked more than {game.max_requests()} requests"
            sent.append(str(seat).encode() + protocol.encode(request))
            options = legal(state, seat, request)
            assert options, f"no legal action found for seat {seat} at {request!r}"
            actions[seat] = state.check(seat, chooser.choice(options))
        step = state.apply(actions)
        sent += [str(seat).encode() + protocol.encode(notice) for seat, notice in step.notices]
    return sent, state


@pytest.mark.parametrize(("game_id", "params"), VARIANTS, ids=IDS)
def test_random_legal_playouts_end_and_scores_add_up(game_id: str, params: dict[str, Any]) -> None:
    game = get_game(game_id, params)
    total = game.points_total()
    for seed in SEEDS:
        _, state = playout(game, seed)
        result = state.result()
        assert len(result.points) == 2
        assert result.forfeit == [] and result.reason == ""
        if total is not None:
            assert sum(result.points) == pytest.approx(total), f"seed {seed}: {result.points} do not add up to {total}"
        if result.winner is None:
            assert result.points[0] == result.points[1], f"seed {seed}: a draw with unequal points {result.points}"
        else:
            winner = "AB".index(result.winner)
            assert result.points[winner] > result.points[1 - winner], f"seed {seed}: winner has fewer points"


@pytest.mark.parametrize(("game_id", "params"), VARIANTS, ids=IDS)
def test_the_same_seed_reproduces_every_message(game_id: str, params: dict[str, Any]) -> None:
    game = get_game(game_id, params)
    runs = [playout(game, seed) for seed in (5, 5, 6)]
    assert runs[0][0] == runs[1][0]
    assert runs[0][1].result() == runs[1][1].result()
    assert runs[0][0] != runs[2][0], "another seed (and other random choices) gives another match"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_forfeit_at_any_step_is_a_loss_for_the_offender(game_id: str) -> None:
    game = get_game(game_id)
    for seed in SEEDS:
        _, state = playout(game, seed, stop_at=random.Random(seed).randrange(1, 20))
        if state.is_over:
            continue
        for offender in (0, 1):
            result = state.forfeit(frozenset({offender}), "test")
            assert result.winner == "AB"[1 - offender]
            assert result.forfeit == ["AB"[offender]] and result.reason == "test"
        both = state.forfeit(frozenset({0, 1}), "both")
        assert both.winner is None and both.forfeit == ["A", "B"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_listed_legal_actions_pass_check_and_junk_does_not(game_id: str) -> None:
    game = get_game(game_id)
    state = game.new_match(3)
    state.start()
    for seat, request in state.requests().items():
        for action in legal(state, seat, request):
            state.check(seat, action)
        junks: tuple[Any, ...] = (None, -1, "?", [[]], 1.5)
        for junk in junks:
            with pytest.raises(IllegalAction):
                state.check(seat, junk)
