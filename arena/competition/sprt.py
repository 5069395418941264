"""Paired statistics and the sequential probability ratio test (SPRT), as chess-engine testers use them.

Two bots meet on a **deal pair**: the same deal twice, seats swapped. Each
pair ends with the first bot scoring 0, 0.5, 1, 1.5 or 2 (a loss counts 0, a
draw 0.5, a win 1), the five outcomes of the **pentanomial** model
(``LL``, ``LD``, ``WL + DD``, ``WD``, ``WW``). Counting pairs instead of
matches is what makes duplicate deals pay: the two legs share their luck, so
the variance of a pair is less than that of two independent matches, and the
statistics below use the variance of pairs.

From the counts this module computes what fastchess and OpenBench print:

* the **score** (mean points per match, 0 to 1) and its 95% interval from the
  variance of pair scores (fastchess ``app/src/matchmaking/elo/elo_pentanomial.cpp``);
* **logistic Elo**, ``-400 log10(1/score - 1)``, with the half-width of the
  interval mapped through the same function;
* **normalized Elo** (nElo), ``(score - 0.5) / sigma * 800 / ln 10`` with
  ``sigma`` the standard deviation of one match's score (``sqrt(2 var)`` of a
  pair's mean), a scale-free measure of how separable two bots are
  (Michel Van den Bergh, "Normalized Elo", https://www.cantate.be/Fishtest/normalized_elo_practical.pdf);
* the **likelihood of superiority**, ``LOS = Phi((score - 0.5) / sqrt(var / pairs))``;
* the **log-likelihood ratio** of the generalized SPRT for ``H1: elo = elo1``
  against ``H0: elo = elo0``, in either model: ``logistic`` (the expected score
  is ``1 / (1 + 10^(-elo/400))``; Van den Bergh, "Comparing the approximations
  for the generalized log likelihood ratio of a multinomial distribution",
  Proposition 1.1) or ``normalized`` (the t-value ``(mu - 1/2) / sigma`` is
  ``elo * sqrt(2) / (800 / ln 10)`` per pair; "Normalized Elo", section 4.1).
  Empty outcomes count 0.001 each, as in fastchess and fishtest, so the LLR is
  finite from the first pair on. The maximum-likelihood distributions are
  solved to machine precision (fastchess stops at 1e-4, fishtest after ten
  rounds), so our values agree with theirs to their precision and are exact
  beyond it;
* Wald's stopping bounds ``ln(beta / (1 - alpha))`` and ``ln((1 - beta) / alpha)``.

The same functions take the three outcomes (loss, draw, win) of single
matches (the trinomial model), for matches that are not played in pairs.

A deal played at two tables, seats kept, by four bots (a competition
server's duplicate: :mod:`arena.competition.ratings`) is pentanomial too,
from team ONE's side: ``Record.add_pair(score1, 1 - score2)``
(:class:`arena.competition.records.Record`), ``score1`` the
first table's seat A, ``score2`` the second's. The statistics below then
compare two *teams*, not two bots.

Reference values: fastchess's ``app/tests/sprt_test.cpp`` and
``app/tests/elo_test.cpp`` (published to two decimals), and fishtest's
``server/fishtest/stats/LLRcalc.py`` and ``stat_util.py`` (full precision) on
the same counts; ``tests/test_sprt.py`` checks them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

MODELS = ("normalized", "logistic")
"""The SPRT's Elo models: normalized Elo (fastchess's default) and logistic Elo."""
DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 10.0
"""The default test: is NEW 10 nElo better (H1) or not better (H0)?

fastchess's own documented example is ``-sprt elo0=0 elo1=2 alpha=0.05
beta=0.05`` in normalized Elo, for chess engines that gain a few Elo per
patch over a hundred thousand games. Card bots change more from one version
to the next, and a match is cheap but noisy: at [0, 2] a copy of a bot
needs some 90,000 pairs to be told apart from a better one; at [0, 10] some
3,500. Alpha, beta and the model are fastchess's.
"""
MAX_NELO = 200.0
MAX_ELO = 2000.0
"""The widest hypotheses a test takes, in each model. Past some 230 nElo (a t-value near 1 per pair: bots
that never share a deal pair) no distribution of pair results has the tested mean, and the LLR is undefined;
2000 Elo is an expected score of 0.99999."""
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value (per match): 347.43558552260146."""
Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% quantile of the normal distribution."""
REGULARIZE = 1e-3
"""What an outcome never seen counts as in the LLR (fastchess and fishtest use the same)."""

PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's mean score for LL, LD, WL+DD, WD, WW."""
TRI_SCORES = (0.0, 0.5, 1.0)
"""A match's score for a loss, a draw, a win."""


# Estimates ---------------------------------------------------------------------
def logistic_elo(score: float) -> float:
    """The Elo difference at which the expected score is ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0 (in JSON too)


def expected_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (the logistic curve)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class Estimate:
    """How much better one side is, from its pair (or match) counts.

    Elo values are NaN without results; the error terms are NaN when they are
    undefined (no spread, or fewer than two units).
    """

    units: int
    """Pairs (pentanomial) or matches (trinomial)."""
    score: float
    """Mean points per match, 0 to 1."""
    variance: float
    """Variance of one unit's mean score."""
    elo: float
    elo_error95: float
    nelo: float
    nelo_error95: float
    los: float
    """Likelihood of superiority: the probability that the side is the stronger, 0 to 1."""

    @property
    def score_interval(self) -> tuple[float, float]:
        """The score's 95% interval, cut to the score range 0 to 1."""
        half = Z95 * math.sqrt(self.variance / self.units) if self.units else math.nan
        return max(0.0, self.score - half), min(1.0, self.score + half)


def estimate(counts: Sequence[int]) -> Estimate:
    """Score, logistic and normalized Elo with 95% errors, and LOS, from 5 pentanomial or 3 trinomial counts.

    Follows fastchess (``EloPentanomial``, ``EloWDL``): the interval of the
    score is ``score ± 1.96 sqrt(var / n)`` and each Elo error is half the
    width of that interval mapped to Elo.
    """
    scores = _scores_for(counts)
    n = sum(counts)
    if n <= 0:
        return Estimate(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    score = sum(a * c for a, c in zip(scores, counts, strict=True)) / n
    variance = sum(c * (a - score) ** 2 for a, c in zip(scores, counts, strict=True)) / n
    per_unit = variance / n
    # One match's standard deviation: a pair's mean averages two matches.
    sigma_match = math.sqrt(2 * variance) if len(counts) == 5 else math.sqrt(variance)
    low, high = score - Z95 * math.sqrt(per_unit), score + Z95 * math.sqrt(per_unit)
    elo = logistic_elo(score)
    spread = n >= 2 and variance > 0
    elo_error = (logistic_elo(min(high, 1.0)) - logistic_elo(max(low, 0.0))) / 2 if spread else math.nan
    if sigma_match > 0:
        nelo = (score - 0.5) / sigma_match * NELO_PER_T
        nelo_error = (high - low) / 2 / sigma_match * NELO_PER_T if n >= 2 else math.nan
        los = _normal_cdf((score - 0.5) / math.sqrt(per_unit))
    else:
        nelo = nelo_error = math.nan
        los = math.nan if score == 0.5 else float(score > 0.5)
    return Estimate(n, score, variance, elo, elo_error, nelo, nelo_error, los)


def _normal_cdf(z: float) -> float:
    """The standard normal distribution function, accurate far into both tails."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


# The SPRT ----------------------------------------------------------------------
def llr(counts: Sequence[float], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The generalized log-likelihood ratio of ``elo = elo1`` against ``elo = elo0``.

    ``counts`` are the 5 pentanomial counts ``(LL, LD, WL+DD, WD, WW)`` or the
    3 trinomial counts ``(L, D, W)``; ``model`` is ``normalized`` (the bounds
    are normalized Elo) or ``logistic`` (the bounds are logistic Elo). Zero
    counts are taken as 0.001 (fastchess, fishtest), so the value is finite.
    """
    if model not in MODELS:
        raise ValueError(f"unknown SPRT model {model!r}; known: {', '.join(MODELS)}")
    scores = _scores_for(counts)
    if sum(counts) <= 0:
        return 0.0
    regular = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(regular)
    observed = [c / total for c in regular]
    if model == "logistic":
        p0 = _mle_with_mean(scores, observed, expected_score(elo0))
        p1 = _mle_with_mean(scores, observed, expected_score(elo1))
    else:
        per_unit = math.sqrt(2.0) if len(counts) == 5 else 1.0
        p0 = _mle_with_t(scores, observed, 0.5, elo0 / NELO_PER_T * per_unit)
        p1 = _mle_with_t(scores, observed, 0.5, elo1 / NELO_PER_T * per_unit)
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(observed, p0, p1, strict=True))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test: ``H0: elo = elo0`` against ``H1: elo = elo1``.

    It accepts H1 once the LLR reaches ``upper`` and H0 once it falls to
    ``lower`` (Wald's bounds): a bot truly at ``elo0`` passes with probability
    about ``alpha``; one truly at ``elo1`` fails with probability about ``beta``.
    """

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    model: str = "normalized"

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown SPRT model {self.model!r}; known: {', '.join(MODELS)}")
        limit, unit = (MAX_NELO, "nElo") if self.model == "normalized" else (MAX_ELO, "Elo")
        for name, value in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -limit <= value <= limit:  # NaN too
                raise ValueError(f"{name} must be between -{limit:g} and {limit:g} {unit}, not {value:g}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 1:
                raise ValueError(f"{name} must be between 0 and 1, not {value:g}")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be less than 1")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``ln(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``ln((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """The LLR of these counts (5 pentanomial or 3 trinomial)."""
        return llr(counts, self.elo0, self.elo1, self.model)

    def verdict(self, value: float) -> str | None:
        """``"H1"``, ``"H0"``, or ``None`` while the test goes on."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


# Maximum-likelihood distributions ---------------------------------------------
def _scores_for(counts: Sequence[float]) -> tuple[float, ...]:
    if len(counts) == 5:
        return PENTA_SCORES
    if len(counts) == 3:
        return TRI_SCORES
    raise ValueError(f"expected 5 pentanomial or 3 trinomial counts, got {len(counts)}")


def _mle_with_mean(scores: Sequence[float], observed: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``scores`` with expectation ``mean`` closest to ``observed`` (Proposition 1.1)."""
    shifted = [a - mean for a in scores]
    x = _secular_root(shifted, observed)
    return [p / (1 + x * a) for a, p in zip(shifted, observed, strict=True)]


def _mle_with_t(scores: Sequence[float], observed: Sequence[float], ref: float, t: float) -> list[float]:
    """The distribution with t-value ``(mu - ref) / sigma = t`` closest to ``observed`` ("Normalized Elo" 4.1).

    A fixed-point iteration from the uniform distribution, as the paper
    suggests (a start with less spread than the answer can leave no root),
    run until it no longer moves.
    """
    p = [1.0 / len(scores)] * len(scores)
    x = 0.0
    for _ in range(500):
        mu = sum(a * q for a, q in zip(scores, p, strict=True))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
        phi = [a - ref - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in scores]
        x = _secular_root(phi, observed, x)
        new = [q / (1 + x * f) for q, f in zip(observed, phi, strict=True)]
        moved = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if moved < 1e-11:  # the LLR is at a maximum in p: its error is of the order of this squared
            break
    return p


def _secular_root(a: Sequence[float], p: Sequence[float], start: float = 0.0) -> float:
    """The root ``x`` of ``sum p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``.

    The function falls strictly from plus to minus infinity across that
    interval, so safeguarded Newton steps inside a shrinking bracket find the
    root to machine precision. ``start`` is a guess (the previous root, in
    an iteration).
    """
    if not (max(a) > 0 > min(a)):
        raise ArithmeticError("the outcomes' scores do not straddle the tested value")
    lo, hi = -1.0 / max(a), -1.0 / min(a)
    pairs = list(zip(a, p, strict=True))
    x = start if lo < start < hi else 0.0
    for _ in range(200):
        f = slope = size = 0.0
        for ai, pi in pairs:
            term = ai / (1 + x * ai)
            f += pi * term
            size += abs(pi * term)
            slope -= pi * term * term
        if abs(f) <= 1e-15 * size:  # zero, to rounding
            return x
        if f > 0:
            lo = x
        else:
            hi = x
        step = x - f / slope
        x_next = step if lo < step < hi else (lo + hi) / 2
        if abs(x_next - x) <= 4e-16 * max(1.0, abs(x)):
            return x_next
        x = x_next
    return x
