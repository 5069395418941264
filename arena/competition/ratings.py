"""Ratings from match outcomes: a Bradley-Terry fit on the Elo scale, with error bars.

Why our own fit and not a rating library: the popular libraries (TrueSkill,
Glicko, online Elo) update one game at a time, so their numbers depend on the
order in which matches finished, and that order changes with ``--jobs``. A
Bradley-Terry fit looks at all outcomes at once, so the same matches give the
same ratings however they were scheduled; it is also the model behind
BayesElo and Ordo, which chess-engine testers trust. It takes a hundred lines of
plain Python (Newton's method on a handful of bots), so it needs no numpy.

The model: bot ``i`` has a strength ``theta_i``; it beats ``j`` with
probability ``1 / (1 + exp(theta_j - theta_i))``. A draw counts as half a win
and half a loss. Ratings are ``theta`` on the Elo scale (400 points for odds of
10 to 1), centred so the field averages 0.

A bot that won every match has no finite maximum-likelihood strength, so each
bot also gets ``prior_games`` virtual draws against an average opponent (as
BayesElo does). That keeps every rating finite and pulls ratings from very
few matches towards 0; with hundreds of matches its effect is negligible.

Error bars are for each rating relative to the field's average. They count a
deal, not a match, as one observation: the two legs of a duplicate pair share
their luck, so the matches of a pair are not independent. The covariance is
the cluster-robust ("sandwich") estimate over deals, which for two bots is
the pentanomial variance of chess-engine testing (:mod:`arena.competition.sprt`),
and credits draws for the variance they remove. From the covariance come the
error of any difference between two ratings and the likelihood that one bot
is stronger than another (LOS).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of log-odds."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
DEFAULT_PRIOR_GAMES = 2.0


@dataclass(frozen=True)
class Outcome:
    """One match for the rating fit: ``score`` is 1 if ``first`` won, 0.5 for a draw, 0 if ``second`` won.

    ``unit`` names the deal the match was played on: matches that share a
    unit (the two legs of a duplicate pair) share their luck, so the error
    bars count them as one observation. Empty: the match is a unit of its own.
    """

    first: str
    second: str
    score: float
    unit: str = ""


@dataclass(frozen=True)
class Rating:
    """A bot's rating on the Elo scale and the half-width of its 95% interval."""

    elo: float
    error95: float


@dataclass(frozen=True)
class Ratings(Mapping[str, Rating]):
    """The fitted ratings (a mapping from bot to :class:`Rating`) and their joint uncertainty."""

    names: tuple[str, ...]
    elo: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    """Of the centred ratings, in Elo squared, in the order of ``names``."""

    def __getitem__(self, name: str) -> Rating:
        i = self.names.index(name)
        return Rating(self.elo[i], Z95 * math.sqrt(max(self.covariance[i][i], 0.0)))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def difference(self, a: str, b: str) -> Rating:
        """How much stronger ``a`` is than ``b``, in Elo, with the 95% half-width of that difference."""
        i, j = self.names.index(a), self.names.index(b)
        c = self.covariance
        variance = c[i][i] + c[j][j] - 2 * c[i][j]
        return Rating(self.elo[i] - self.elo[j], Z95 * math.sqrt(max(variance, 0.0)))

    def los(self, a: str, b: str) -> float:
        """The likelihood of superiority: the probability, under the fit, that ``a`` is stronger than ``b``."""
        diff = self.difference(a, b)
        sd = diff.error95 / Z95
        if sd == 0.0:
            return 0.5 if diff.elo == 0 else float(diff.elo > 0)
        return NormalDist().cdf(diff.elo / sd)


def fit(names: Sequence[str], outcomes: Iterable[Outcome], *, prior_games: float = DEFAULT_PRIOR_GAMES) -> Ratings:
    """Fit Bradley-Terry strengths to ``outcomes``; ratings centred on the field's mean.

    With ``prior_games = 0`` the plain maximum-likelihood fit is returned; it
    is finite only when every bot has won and lost (or drawn) something.

    The covariance is the sandwich (cluster-robust) estimate, clustered by
    :attr:`Outcome.unit`: ``H^-1 M H^-1`` with ``H`` the information and ``M``
    the summed outer products of each unit's score vector. For two bots and
    duplicate pairs it is the pentanomial variance fastchess uses; for
    matches without draws, one per unit, it equals the inverse information.
    The prior's virtual games add their own expected variance to ``M``, so a
    run of identical results still leaves an error bar.
    """
    fitter = Fitter(names)
    for outcome in outcomes:
        fitter.add(outcome)
    return fitter.ratings(prior_games)


class Fitter:
    """The running totals :func:`fit` needs: outcomes added one at a time, the ratings fitted at any time.

    A fit then costs the field's size, not the history's: the wins of each
    pair, and for the error bars, each pair's sums over the units only it
    played (a unit's score vector is ``(S - n p)(e_i - e_j)`` for ``n``
    matches scoring ``S`` for ``i``, so its outer products sum to
    ``sum S^2 - 2 p sum nS + p^2 sum n^2``). Scores are halves, so every
    total is exact: the same outcomes give the same floats in any order.
    Units that more than one pair played (a deal ``arena compare`` gives two
    pairings) are summed one by one, in the units' order.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        n = len(self.names)
        self.wins = [[0.0] * n for _ in range(n)]
        """``wins[i][j]``: what ``i`` scored against ``j`` (half a win each way for a draw)."""
        self._units: dict[str, dict[tuple[int, int], list[float]]] = {}
        """Each named unit's matches by pair ``(i, j)``, ``i < j``: ``[score of i, matches]``."""
        self._sums: dict[tuple[int, int], list[float]] = {}
        """By pair, over the units only that pair played: ``[sum S^2, sum n S, sum n^2]``."""
        self._mixed: set[str] = set()
        """Units more than one pair played."""

    def add(self, outcome: Outcome) -> None:
        """Count one more outcome."""
        i, j = self.index[outcome.first], self.index[outcome.second]
        self.wins[i][j] += outcome.score
        self.wins[j][i] += 1.0 - outcome.score
        if i == j:
            return  # (a bot against itself: no evidence, nothing to the error bars)
        pair, score = ((i, j), outcome.score) if i < j else ((j, i), 1.0 - outcome.score)
        if not outcome.unit:  # a unit of its own
            self._count(pair, score, 1.0, +1.0)
            return
        unit = self._units.setdefault(outcome.unit, {})
        single = outcome.unit not in self._mixed and unit
        if single:
            ((old_pair, (total, count)),) = unit.items()
            self._count(old_pair, total, count, -1.0)
        tally = unit.setdefault(pair, [0.0, 0.0])
        tally[0] += score
        tally[1] += 1.0
        if len(unit) == 1:
            self._count(pair, tally[0], tally[1], +1.0)
        else:
            self._mixed.add(outcome.unit)

    def add_name(self, name: str) -> None:
        """Fit ``name`` too, from now on (it has no outcomes yet); copies made before keep their names."""
        self.names = [*self.names, name]
        self.index = {**self.index, name: len(self.names) - 1}
        for row in self.wins:
            row.append(0.0)
        self.wins.append([0.0] * len(self.names))

    def copy(self) -> Fitter:
        """A copy that later additions leave alone."""
        twin = Fitter.__new__(Fitter)
        twin.names, twin.index = self.names, self.index
        twin.wins = [row[:] for row in self.wins]
        twin._units = {name: {pair: tally[:] for pair, tally in self._units[name].items()} for name in self._mixed}
        twin._sums = {pair: sums[:] for pair, sums in self._sums.items()}
        twin._mixed = set(self._mixed)
        return twin

    def _count(self, pair: tuple[int, int], total: float, count: float, sign: float) -> None:
        sums = self._sums.setdefault(pair, [0.0, 0.0, 0.0])
        sums[0] += sign * total * total
        sums[1] += sign * count * total
        sums[2] += sign * count * count

    def ratings(self, prior_games: float = DEFAULT_PRIOR_GAMES) -> Ratings:
        """The fit of the outcomes so far (see :func:`fit`)."""
        n = len(self.names)
        if n == 0:
            return Ratings((), (), ())
        theta = _strengths(self.wins, prior_games)
        _, hessian = _derivatives(theta, self.wins, prior_games)
        covariance = _covariance(hessian, self._meat(theta, prior_games), prior_games)
        mean = sum(theta) / n
        scale = ELO_PER_NAT * ELO_PER_NAT
        return Ratings(
            names=tuple(self.names),
            elo=tuple((t - mean) * ELO_PER_NAT for t in theta),
            covariance=tuple(tuple(v * scale for v in row) for row in covariance),
        )

    def _meat(self, theta: list[float], prior: float) -> list[list[float]]:
        """Sum over units of the outer product of each unit's score vector (the gradient of its log-likelihood)."""
        n = len(theta)
        meat = [[0.0] * n for _ in range(n)]
        for (i, j), (squares, products, counts) in sorted(self._sums.items()):
            p = _sigmoid(theta[i] - theta[j])
            spread = squares - 2.0 * p * products + p * p * counts
            meat[i][i] += spread
            meat[j][j] += spread
            meat[i][j] -= spread
            meat[j][i] -= spread
        for name in sorted(self._mixed):
            g: dict[int, float] = {}
            for (i, j), (total, count) in sorted(self._units[name].items()):
                residual = total - count * _sigmoid(theta[i] - theta[j])
                g[i] = g.get(i, 0.0) + residual
                g[j] = g.get(j, 0.0) - residual
            for i, gi in g.items():
                for j, gj in g.items():
                    meat[i][j] += gi * gj
        for i in range(n):
            p0 = _sigmoid(theta[i])
            meat[i][i] += prior * p0 * (1 - p0)
        return meat


def ratings_from_scores(
    names: Sequence[str], scores: Mapping[tuple[str, str], float], *, prior_games: float = DEFAULT_PRIOR_GAMES
) -> dict[str, float]:
    """The ratings alone (no error bars) from running totals: ``scores[a, b]`` is what ``a`` scored against ``b``.

    The same point estimate :func:`fit` gives for the same matches, from totals
    that take no more memory however many matches were played (for running
    standings in a long run's log).
    """
    index = {name: i for i, name in enumerate(names)}
    wins = [[0.0] * len(names) for _ in names]
    for (a, b), score in scores.items():
        wins[index[a]][index[b]] += score
    theta = _strengths(wins, prior_games) if names else []
    mean = sum(theta) / len(theta) if theta else 0.0
    return {name: (theta[i] - mean) * ELO_PER_NAT for name, i in index.items()}


def _strengths(wins: list[list[float]], prior_games: float) -> list[float]:
    """The maximum (penalised) likelihood strengths, by Newton's method."""
    theta = [0.0] * len(wins)
    for _ in range(200):
        gradient, hessian = _derivatives(theta, wins, prior_games)
        step = _solve(_regularised(hessian, prior_games), gradient)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-12:
            break
    return theta


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


def _covariance(info: list[list[float]], meat: list[list[float]], prior: float) -> list[list[float]]:
    """The covariance of the centred strengths: ``P B M B P`` with ``B`` the (pseudo-)inverse information."""
    n = len(info)
    inverse = _inverse(_regularised(info, prior))
    if prior <= 0:
        # (F + J/n)^-1 - J/n is the pseudo-inverse of F.
        inverse = [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]
    bread_meat = _product(inverse, meat)
    sandwich = _product(bread_meat, inverse)
    row_mean = [sum(row) / n for row in sandwich]
    col_mean = [sum(sandwich[i][j] for i in range(n)) / n for j in range(n)]
    total = sum(row_mean) / n
    return [[sandwich[i][j] - row_mean[i] - col_mean[j] + total for j in range(n)] for i in range(n)]


def _product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    columns = list(zip(*b, strict=True))
    return [[sum(map(operator.mul, row, column)) for column in columns] for row in a]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 @ vector``."""
    return [row[0] for row in _eliminate(matrix, [[value] for value in vector])]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    return _eliminate(matrix, [[1.0 if r == c else 0.0 for c in range(n)] for r in range(n)])


def _eliminate(matrix: list[list[float]], right: list[list[float]]) -> list[list[float]]:
    """``matrix^-1 @ right`` by Gauss-Jordan elimination with partial pivoting, every column of ``right`` at once.

    (Each column gets the same operations as if solved alone: the pivots and factors come from ``matrix``.)
    """
    n = len(matrix)
    rows = [[*matrix[i], *right[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-300:
            raise ArithmeticError("singular information matrix")
        for r in range(n):
            if r != col and rows[r][col] != 0.0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [[value / rows[i][i] for value in rows[i][n:]] for i in range(n)]
