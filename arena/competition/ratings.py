"""Ratings from match outcomes: a Bradley-Terry fit on the Elo scale, with error bars.

Why our own fit and not a rating library: the popular libraries (TrueSkill,
Glicko, online Elo) update one game at a time, so their numbers depend on the
order in which matches finished, and that order changes with ``--jobs``. A
Bradley-Terry fit looks at all outcomes at once, so the same matches give the
same ratings however they were scheduled; it is also the model behind
BayesElo and Ordo, which chess-engine testers trust. It takes sixty lines of
plain Python (Newton's method on a handful of bots), so it needs no numpy.

The model: bot ``i`` has a strength ``theta_i``; it beats ``j`` with
probability ``1 / (1 + exp(theta_j - theta_i))``. A draw counts as half a win
and half a loss. Ratings are ``theta`` on the Elo scale (400 points for odds of
10 to 1), centred so the field averages 0.

A bot that won every match has no finite maximum-likelihood strength, so each
bot also gets ``prior_games`` virtual draws against an average opponent (as
BayesElo does). That keeps every rating finite and pulls ratings from very
few matches towards 0; with hundreds of matches its effect is negligible.

Error bars come from the curvature of the log-likelihood at the fit (the
inverse Fisher information), for each rating relative to the field's average.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of log-odds."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
DEFAULT_PRIOR_GAMES = 2.0


@dataclass(frozen=True)
class Outcome:
    """One match for the rating fit: ``score`` is 1 if ``first`` won, 0.5 for a draw, 0 if ``second`` won."""

    first: str
    second: str
    score: float


@dataclass(frozen=True)
class Rating:
    """A bot's rating on the Elo scale and the half-width of its 95% interval."""

    elo: float
    error95: float


def fit(
    names: Sequence[str], outcomes: Iterable[Outcome], *, prior_games: float = DEFAULT_PRIOR_GAMES
) -> dict[str, Rating]:
    """Fit Bradley-Terry strengths to ``outcomes``; ratings centred on the field's mean.

    With ``prior_games = 0`` the plain maximum-likelihood fit is returned; it
    is finite only when every bot has won and lost (or drawn) something.
    """
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    if n == 0:
        return {}
    # Wins counted per ordered pair: half a win each way for a draw.
    wins = [[0.0] * n for _ in range(n)]
    for outcome in outcomes:
        i, j = index[outcome.first], index[outcome.second]
        wins[i][j] += outcome.score
        wins[j][i] += 1.0 - outcome.score
    theta = [0.0] * n
    for _ in range(200):
        gradient, hessian = _derivatives(theta, wins, prior_games)
        step = _solve(_regularised(hessian, prior_games), gradient)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-12:
            break
    _, hessian = _derivatives(theta, wins, prior_games)
    covariance = _covariance(hessian, prior_games)
    mean = sum(theta) / n
    return {
        name: Rating(
            elo=(theta[i] - mean) * ELO_PER_NAT,
            error95=Z95 * math.sqrt(max(covariance[i][i], 0.0)) * ELO_PER_NAT,
        )
        for name, i in index.items()
    }


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _derivatives(theta: list[float], wins: list[list[float]], prior: float) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood and the Fisher information (minus its Hessian)."""
    n = len(theta)
    gradient = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p0 = _sigmoid(theta[i])  # against the virtual average opponent at 0
        gradient[i] += prior * (0.5 - p0)
        info[i][i] += prior * p0 * (1 - p0)
        for j in range(i + 1, n):
            games = wins[i][j] + wins[j][i]
            if games == 0:
                continue
            p = _sigmoid(theta[i] - theta[j])
            gradient[i] += wins[i][j] - games * p
            gradient[j] -= wins[i][j] - games * p
            w = games * p * (1 - p)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
    return gradient, info


def _regularised(info: list[list[float]], prior: float) -> list[list[float]]:
    """Without a prior the information is singular along (1, 1, ...): pin the mean there instead."""
    if prior > 0:
        return info
    n = len(info)
    return [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]


def _covariance(info: list[list[float]], prior: float) -> list[list[float]]:
    """The covariance of the centred strengths: ``P C P`` with ``P`` the centring projection."""
    n = len(info)
    inverse = _inverse(_regularised(info, prior))
    if prior <= 0:
        # (F + J/n)^-1 - J/n is the pseudo-inverse of F, already centred.
        return [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]
    row_mean = [sum(row) / n for row in inverse]
    col_mean = [sum(inverse[i][j] for i in range(n)) / n for j in range(n)]
    total = sum(row_mean) / n
    return [[inverse[i][j] - row_mean[i] - col_mean[j] + total for j in range(n)] for i in range(n)]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 @ vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-300:
            raise ArithmeticError("singular information matrix")
        for r in range(n):
            if r != col and rows[r][col] != 0.0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]
