from __future__ import annotations

import math
import random

import pytest

from arena.competition.ratings import ELO_PER_NAT, Z95, Outcome, fit


def test_two_bots_three_wins_to_one_give_the_textbook_elo_gap_and_error() -> None:
    outcomes = [Outcome("a", "b", 1.0)] * 3 + [Outcome("a", "b", 0.0)]
    ratings = fit(["a", "b"], outcomes, prior_games=0)
    # p = 3/4, so the gap is 400 log10(3); each rating is half the gap from the mean.
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(400 * math.log10(3))
    assert ratings["a"].elo == pytest.approx(-ratings["b"].elo)
    # Var(gap) = 1 / (n p (1-p)) = 4/3 in nats^2; each centred rating carries half the gap.
    assert ratings["a"].error95 == pytest.approx(Z95 * math.sqrt(4 / 3) / 2 * ELO_PER_NAT)


def test_a_draw_counts_half_a_win_each_way() -> None:
    with_draws = fit(["a", "b"], [Outcome("a", "b", 0.5)] * 2 + [Outcome("a", "b", 1.0)], prior_games=0)
    as_halves = fit(["a", "b"], [Outcome("a", "b", 1.0)] * 2 + [Outcome("a", "b", 0.0)], prior_games=0)
    assert with_draws["a"].elo == pytest.approx(as_halves["a"].elo)


def test_a_symmetric_cycle_rates_everyone_zero() -> None:
    outcomes = [Outcome("a", "b", 1), Outcome("b", "c", 1), Outcome("c", "a", 1)]
    ratings = fit(["a", "b", "c"], outcomes)
    for rating in ratings.values():
        assert rating.elo == pytest.approx(0, abs=1e-9)
    assert ratings["a"].error95 == pytest.approx(ratings["c"].error95)


def test_an_unbeaten_bot_gets_a_finite_rating_thanks_to_the_prior() -> None:
    ratings = fit(["a", "b"], [Outcome("a", "b", 1.0)] * 5)
    assert 0 < ratings["a"].elo < 1000
    assert math.isfinite(ratings["a"].error95)
    more = fit(["a", "b"], [Outcome("a", "b", 1.0)] * 50)
    assert more["a"].elo > ratings["a"].elo


def test_the_fit_does_not_depend_on_the_order_matches_finished() -> None:
    rng = random.Random(3)
    names = ["a", "b", "c", "d"]
    outcomes = [Outcome(*rng.sample(names, 2), rng.choice([0.0, 0.5, 1.0])) for _ in range(60)]
    first = fit(names, outcomes)
    rng.shuffle(outcomes)
    second = fit(names, outcomes)
    for name in names:
        assert first[name].elo == pytest.approx(second[name].elo, abs=1e-9)
        assert first[name].error95 == pytest.approx(second[name].error95, abs=1e-9)
    assert sum(r.elo for r in first.values()) == pytest.approx(0, abs=1e-9)


def test_more_matches_give_smaller_error_bars() -> None:
    few = fit(["a", "b"], [Outcome("a", "b", 1), Outcome("a", "b", 0)] * 2)
    many = fit(["a", "b"], [Outcome("a", "b", 1), Outcome("a", "b", 0)] * 50)
    assert many["a"].error95 < few["a"].error95 / 3


def test_bots_without_matches_sit_at_zero() -> None:
    ratings = fit(["a", "b", "idle"], [Outcome("a", "b", 1.0)])
    # a and b move symmetrically away from the prior's 0, so the field's mean stays at the idle bot.
    assert ratings["idle"].elo == pytest.approx(0, abs=1e-9)
    assert ratings["a"].elo == pytest.approx(-ratings["b"].elo)


def test_ratings_from_running_totals_equal_the_full_fit() -> None:
    rng = random.Random(11)
    names = ["a", "b", "c", "d"]
    outcomes = [Outcome(*rng.sample(names, 2), rng.choice([0.0, 0.5, 1.0])) for _ in range(80)]
    scores: dict[tuple[str, str], float] = {}
    for o in outcomes:
        scores[o.first, o.second] = scores.get((o.first, o.second), 0.0) + o.score
        scores[o.second, o.first] = scores.get((o.second, o.first), 0.0) + 1 - o.score
    from arena.competition.ratings import ratings_from_scores

    totals = ratings_from_scores(names, scores)
    full = fit(names, outcomes)
    for name in names:
        assert totals[name] == pytest.approx(full[name].elo, abs=1e-9)


def _meat_unit_by_unit(
    names: list[str], theta: list[float], outcomes: list[Outcome], prior: float
) -> list[list[float]]:
    """The sandwich's middle straight from its definition: each unit's score vector, outer-multiplied."""
    from arena.competition.ratings import _sigmoid

    index = {name: i for i, name in enumerate(names)}
    units: dict[object, dict[int, float]] = {}
    for k, o in enumerate(outcomes):
        i, j = index[o.first], index[o.second]
        residual = o.score - _sigmoid(theta[i] - theta[j])
        g = units.setdefault(o.unit or k, {})
        g[i] = g.get(i, 0.0) + residual
        g[j] = g.get(j, 0.0) - residual
    meat = [[0.0] * len(names) for _ in names]
    for g in units.values():
        for i, gi in g.items():
            for j, gj in g.items():
                meat[i][j] += gi * gj
    for i in range(len(names)):
        meat[i][i] += prior * _sigmoid(theta[i]) * (1 - _sigmoid(theta[i]))
    return meat


def test_the_running_fit_sums_the_units_as_their_definition_does() -> None:
    from arena.competition.ratings import Fitter, _strengths

    rng = random.Random(5)
    names = ["a", "b", "c", "d"]
    outcomes = []
    for deal in range(300):  # duplicate pairs, single matches, and deals two pairings share (arena compare)
        first, second, third = rng.sample(names, 3)
        unit = "" if deal % 7 == 0 else f"d{deal}"
        for a, b in ((first, second), (second, first)) + (((third, second),) if deal % 5 == 0 else ()):
            outcomes.append(Outcome(a, b, rng.choice([0.0, 0.5, 1.0]), unit))
    fitter = Fitter(names)
    for outcome in outcomes:
        fitter.add(outcome)
    theta = _strengths(fitter.wins, 2.0)
    expected = _meat_unit_by_unit(names, theta, outcomes, 2.0)
    got = fitter._meat(theta, 2.0)
    for row, want in zip(got, expected, strict=True):
        assert row == pytest.approx(want, rel=1e-9, abs=1e-9)
    shuffled = outcomes[:]
    rng.shuffle(shuffled)
    assert fit(names, shuffled) == fit(names, outcomes), "the same floats in any order"
