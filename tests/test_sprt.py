"""The SPRT and paired statistics against published reference values, and the test's error rates in simulation.

Reference values. Each case's counts and its published value come from
fastchess's tests (``app/tests/sprt_test.cpp`` for the LLR, ``elo_test.cpp``
for Elo, nElo and LOS, github.com/Disservin/fastchess), printed there to two
decimals. The full-precision values beside them are what fishtest's reference
implementation (``server/fishtest/stats/LLRcalc.py``: ``LLR_normalized``,
``LLR_logistic``; ``stat_util.py``: ``get_elo``, github.com/official-stockfish/fishtest)
returns for the same counts; ours must agree with those to 1e-6 and round to
fastchess's. fastchess's ``Stats(w, l, d)`` is wins, losses, draws and
``Stats(ll, ld, wl, dd, wd, ww)`` the pentanomial counts.
"""

from __future__ import annotations

import math
import random
from functools import cache

import pytest

from arena.competition.ratings import Outcome, fit
from arena.competition.records import Record
from arena.competition.sprt import (
    MAX_ELO,
    MAX_NELO,
    NELO_PER_T,
    PENTA_SCORES,
    Sprt,
    estimate,
    expected_score,
    llr,
    logistic_elo,
)

# (model, fastchess's Stats(...), elo0, elo1, fastchess's published LLR, fishtest's LLR)
TRINOMIAL_LLR = [
    ("normalized", (36433, 36027, 68692), 0, 2, 0.92, 0.9232934509457336),
    ("normalized", (10871, 10650, 20431), -1.75, 0.25, 2.30, 2.297500407106383),
    ("normalized", (4250, 0, 0), 0, 10, 120.56, 120.54826774120352),
    ("logistic", (21404, 21184, 40708), 0.5, 2.5, -1.57, -1.5718887926943381),
    ("logistic", (57433, 57030, 106593), 0, 2, -2.59, -2.593024163515815),
]
PENTANOMIAL_LLR = [
    ("normalized", (365, 16618, 36029, 200, 16974, 390), 0, 2, 2.25, 2.250367703548933),
    ("normalized", (127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01, 3.010154196606051),
    ("normalized", (0, 0, 0, 0, 0, 5550), 0, 5, 111.82, 111.79755508671465),
    ("logistic", (223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07, -3.0741264395890813),
    ("logistic", (871, 26175, 55003, 980, 26678, 821), 0, 2, -4.98, -4.978672863444156),
]


@pytest.mark.parametrize(("model", "stats", "elo0", "elo1", "published", "reference"), TRINOMIAL_LLR)
def test_trinomial_llr_matches_the_references(
    model: str, stats: tuple[int, int, int], elo0: float, elo1: float, published: float, reference: float
) -> None:
    wins, losses, draws = stats
    value = llr((losses, draws, wins), elo0, elo1, model)
    assert value == pytest.approx(reference, abs=1e-6)
    # fastchess's own value is within 1% (its solver stops early; the (4250, 0, 0) case shows it)
    assert value == pytest.approx(published, rel=0.01)


@pytest.mark.parametrize(("model", "stats", "elo0", "elo1", "published", "reference"), PENTANOMIAL_LLR)
def test_pentanomial_llr_matches_the_references(
    model: str, stats: tuple[int, ...], elo0: float, elo1: float, published: float, reference: float
) -> None:
    ll, ld, wl, dd, wd, ww = stats
    value = llr((ll, ld, wl + dd, wd, ww), elo0, elo1, model)
    assert value == pytest.approx(reference, abs=1e-6)
    assert value == pytest.approx(published, rel=0.01)  # (0, 0, 0, 0, 0, 5550): fastchess stops early


def test_openbench_s_worked_example() -> None:
    # OpenBench/stats.py ends with this example: PentanomialSPRT and (BayesElo) TrinomialSPRT at [0.5, 2.5].
    assert llr((39, 8843, 26675, 9240, 44), 0.5, 2.5) == pytest.approx(2.9416752079894044, abs=1e-6)


# (Stats(...), fastchess: nElo, nElo error, Elo, Elo error, LOS text, score; fishtest: Elo, Elo error, LOS)
ELO_WDL = [
    (
        (76, 89, 123),
        (-20.76, 40.13, None, None, "15.53 %", 0.477),
        (-15.693520705432237, 30.45800071698045, 0.1553264349274983),
    ),
    (
        (136, 96, 111),
        (49.77, 36.77, 40.70, 30.43, "99.60 %", 0.558),
        (40.702458186527075, 30.42721794360099, 0.9960102357334972),
    ),
]
ELO_PENTANOMIAL = [
    (
        (34, 54, 31, 32, 64, 75),
        (57.94, 28.28, 55.58, 27.65, "100.00 %", 0.579),
        (55.57978042044588, 27.65342950639345, 0.9999703930084313),
    ),
    (
        (332, 433, 457, 41, 333, 334),
        (-9.17, 10.96, -8.64, 10.33, "5.05 %", 0.488),
        (-8.64266726796901, 10.334194424393056, 0.05047006698252935),
    ),
    (
        (7895, 8757, 5485, 200, 568, 9999),
        (-19.01, 2.65, -21.04, 2.95, "0.00 %", 0.470),
        (-21.04352057817286, 2.945280868527817, 4.548721049101715e-45),
    ),
]


def check_estimate(counts: tuple[int, ...], published: tuple[object, ...], reference: tuple[float, ...]) -> None:
    found = estimate(counts)
    nelo, nelo_error, elo, elo_error, los_text, score = published
    assert found.elo == pytest.approx(reference[0], abs=1e-6)
    assert found.elo_error95 == pytest.approx(reference[1], abs=1e-6)
    assert found.los == pytest.approx(reference[2], abs=1e-6, rel=1e-6)
    assert round(found.nelo, 2) == nelo and round(found.nelo_error95, 2) == nelo_error
    if elo is not None:
        assert round(found.elo, 2) == elo and round(found.elo_error95, 2) == elo_error
    assert f"{found.los * 100:.2f} %" == los_text
    assert round(found.score, 3) == score


@pytest.mark.parametrize(("stats", "published", "reference"), ELO_WDL)
def test_trinomial_elo_nelo_and_los_match_the_references(
    stats: tuple[int, int, int], published: tuple[object, ...], reference: tuple[float, ...]
) -> None:
    wins, losses, draws = stats
    check_estimate((losses, draws, wins), published, reference)


@pytest.mark.parametrize(("stats", "published", "reference"), ELO_PENTANOMIAL)
def test_pentanomial_elo_nelo_and_los_match_the_references(
    stats: tuple[int, ...], published: tuple[object, ...], reference: tuple[float, ...]
) -> None:
    ll, ld, wl, dd, wd, ww = stats
    check_estimate((ll, ld, wl + dd, wd, ww), published, reference)


def test_a_one_sided_record_has_a_finite_normalized_elo_and_no_made_up_error() -> None:
    # fastchess's third EloWDL case: 34 wins, 356 losses, no draws.
    found = estimate((356, 0, 34))
    assert (round(found.nelo, 2), round(found.nelo_error95, 2), round(found.score, 3)) == (-508.44, 34.48, 0.087)
    assert found.los < 1e-100
    # Every pair split: no spread, so no Elo error and no normalized Elo, never "± 0".
    split = estimate((0, 0, 12, 0, 0))
    assert split.elo == 0 and math.isnan(split.elo_error95) and math.isnan(split.nelo)
    assert math.isnan(estimate((0, 0, 0, 0, 0)).elo)


def test_pairs_are_counted_from_the_first_bot_s_side() -> None:
    counts = Record()
    for first, second in [(1, 1), (1, 0.5), (0.5, 1), (1, 0), (0, 1), (0.5, 0.5), (0.5, 0), (0, 0)]:
        counts.add_pair(first, second)
    assert (counts.ww, counts.wd, counts.wl, counts.dd, counts.ld, counts.ll) == (1, 2, 2, 1, 1, 1)
    assert counts.pentanomial() == (1, 1, 3, 2, 1)
    assert (counts.wins, counts.draws, counts.losses, counts.pairs) == (6, 5, 5, 8)


def test_wald_bounds_and_the_verdict() -> None:
    test = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(-2.944438979166440) and test.upper == pytest.approx(2.944438979166440)
    assert Sprt(alpha=0.05, beta=0.1).lower == pytest.approx(math.log(0.1 / 0.95))
    assert (test.verdict(3.0), test.verdict(-3.0), test.verdict(0.0)) == ("H1", "H0", None)
    for bad in ({"elo0": 5, "elo1": 5}, {"alpha": 0}, {"beta": 1}, {"alpha": 0.6, "beta": 0.5}, {"model": "x"}):
        with pytest.raises(ValueError):
            Sprt(**bad)  # type: ignore[arg-type]


def test_hypotheses_past_what_an_llr_can_take_are_refused_and_those_within_always_give_one() -> None:
    for bad in ({"elo1": 1e300}, {"elo1": math.nan}, {"elo0": -201}, {"elo1": math.inf, "model": "logistic"}):
        with pytest.raises(ValueError, match="must be between"):
            Sprt(**bad)  # type: ignore[arg-type]
    rng = random.Random(1)
    for _ in range(500):  # any counts, at the widest bounds (an error here was a traceback for a user)
        counts = [rng.choice([0, 1, 2, 50, 1000]) for _ in range(rng.choice([3, 5]))]
        for model, widest in (("normalized", MAX_NELO), ("logistic", MAX_ELO)):
            assert math.isfinite(Sprt(elo0=-widest, elo1=widest, model=model).llr(counts))
            assert math.isfinite(Sprt(elo0=widest * 0.99, elo1=widest, model=model).llr(counts))


def test_logistic_elo_and_expected_score_are_inverse() -> None:
    for elo in (-400, -35.5, 0, 100, 800):
        assert logistic_elo(expected_score(elo)) == pytest.approx(elo)
    assert logistic_elo(0.75) == pytest.approx(400 * math.log10(3))
    assert (logistic_elo(0), logistic_elo(1)) == (-math.inf, math.inf)


def test_the_rating_fit_s_error_for_two_bots_is_the_pentanomial_error() -> None:
    # Two bots on duplicate pairs: the sandwich covariance clustered by deal is the variance of pair scores.
    rng = random.Random(5)
    pairs = [rng.choice([(1, 1), (1, 0), (0, 1), (0.5, 1), (0, 0.5), (1, 0.5), (0.5, 0.5)]) for _ in range(400)]
    outcomes = []
    counts = Record()
    for deal, (first, second) in enumerate(pairs):
        outcomes += [Outcome("new", "old", first, f"d{deal}"), Outcome("old", "new", 1 - second, f"d{deal}")]
        counts.add_pair(first, second)
    ratings = fit(["new", "old"], outcomes, prior_games=0)
    found = estimate(counts.pentanomial())
    difference = ratings.difference("new", "old")
    assert difference.elo == pytest.approx(found.elo, abs=1e-9)
    # The fit's error is the delta method's; fastchess maps the interval's ends instead (second order apart).
    p = found.score
    delta_method = 1.959963984540054 * math.sqrt(found.variance / found.units) / (p * (1 - p)) * 400 / math.log(10)
    assert difference.error95 == pytest.approx(delta_method, rel=1e-9)
    assert difference.error95 == pytest.approx(found.elo_error95, rel=0.01)
    assert ratings.los("new", "old") == pytest.approx(found.los, abs=0.01)


# Error rates in simulation -------------------------------------------------------------------
def tilted(base: tuple[float, ...], nelo: float) -> tuple[float, ...]:
    """The pentanomial distribution ``base * exp(theta * score)`` whose normalized Elo is ``nelo``."""

    def nelo_of(theta: float) -> float:
        weights = [b * math.exp(theta * a) for a, b in zip(PENTA_SCORES, base, strict=True)]
        total = sum(weights)
        p = [w / total for w in weights]
        mu = sum(a * q for a, q in zip(PENTA_SCORES, p, strict=True))
        var = sum(q * (a - mu) ** 2 for a, q in zip(PENTA_SCORES, p, strict=True))
        return (mu - 0.5) / math.sqrt(2 * var) * NELO_PER_T

    lo, hi = -20.0, 20.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if nelo_of(mid) < nelo else (lo, mid)
    weights = [b * math.exp(lo * a) for a, b in zip(PENTA_SCORES, base, strict=True)]
    return tuple(w / sum(weights) for w in weights)


BASE = (0.08, 0.2, 0.44, 0.2, 0.08)
"""Pair outcomes of two equal bots: the legs of a pair often split (the deal's luck cancels)."""
SIM = Sprt(elo0=0.0, elo1=100.0, alpha=0.05, beta=0.05)
"""Wide bounds, so a simulated test takes some 35 pairs and the whole simulation a few seconds."""


@cache
def sim_llr(counts: tuple[int, ...]) -> float:
    return SIM.llr(counts)


def run_sprt(truth: tuple[float, ...], rng: random.Random, max_pairs: int = 2000) -> tuple[str | None, int]:
    counts = [0] * 5
    for n in range(1, max_pairs + 1):
        counts[rng.choices(range(5), truth)[0]] += 1
        verdict = SIM.verdict(sim_llr(tuple(counts)))
        if verdict:
            return verdict, n
    return None, max_pairs


def expected_pairs(truth: tuple[float, ...], accept_h1: float) -> float:
    """Wald's approximation of the average number of pairs: the expected final LLR over its drift per pair."""
    drift = SIM.llr(tuple(p * 1e6 for p in truth)) / 1e6
    final = accept_h1 * SIM.upper + (1 - accept_h1) * SIM.lower
    return final / drift


@pytest.mark.slow
@pytest.mark.parametrize(("truth_nelo", "wrong", "nominal"), [(SIM.elo0, "H1", SIM.alpha), (SIM.elo1, "H0", SIM.beta)])
def test_simulated_error_rates_are_near_alpha_and_beta(truth_nelo: float, wrong: str, nominal: float) -> None:
    truth = tilted(BASE, truth_nelo)
    rng = random.Random(2024)
    runs = [run_sprt(truth, rng) for _ in range(300)]
    assert all(verdict for verdict, _ in runs), "every test ends well before 2000 pairs"
    errors = sum(verdict == wrong for verdict, _ in runs) / len(runs)
    # Wald: the error rate is at most about nominal / (1 - the other one) (the LLR overshoots its bound,
    # so it is often below); 300 runs measure it to about ±0.013 (one standard error at 0.05).
    assert 0.005 <= errors <= nominal / (1 - nominal) + 3 * math.sqrt(nominal * (1 - nominal) / 300), errors
    mean_pairs = sum(n for _, n in runs) / len(runs)
    right = 1 - errors if wrong == "H0" else errors
    expected = expected_pairs(truth, right)
    assert 0.8 * expected <= mean_pairs <= 1.5 * expected, (mean_pairs, expected)


def test_a_clearly_better_side_passes_and_an_equal_one_fails_within_the_expected_pairs() -> None:
    rng = random.Random(7)
    better = tilted(BASE, 3 * SIM.elo1)
    verdicts = [run_sprt(better, rng) for _ in range(50)]
    assert all(v == "H1" for v, _ in verdicts)
    assert sum(n for _, n in verdicts) / 50 <= 1.5 * expected_pairs(better, 1.0)
    equal = [run_sprt(BASE, rng) for _ in range(50)]
    assert sum(v == "H0" for v, _ in equal) >= 45
    assert sum(n for _, n in equal) / 50 <= 1.5 * expected_pairs(BASE, 0.0)
