"""Ratings from match outcomes: a Bradley-Terry fit on the Elo scale, with error bars.

Why our own fit and not a rating library: the popular libraries (TrueSkill,
Glicko, online Elo) update one game at a time, so their numbers depend on the
order in which matches finished, and that order changes with ``--jobs``. A
Bradley-Terry fit looks at all outcomes at once, so the same matches give the
same ratings however they were scheduled; it is also the model behind
BayesElo and Ordo, which chess-engine testers trust. The fit is Newton's
method over the field's pairs, in numpy: a field of 300 versions is a dense
300 x 300 system (the pure-Python Gauss-Jordan solve of earlier releases took
27 s there; numpy's LAPACK takes milliseconds). It reads only the totals of
each pair of bots (:class:`Fitter`), never the matches, and starts from the
last fit's strengths when it has them.

Floating point: the totals a fit reads are sums of halves, exact in any order
and on any machine; the fit itself goes through numpy's BLAS and LAPACK, whose
last bits may differ between builds and CPUs (vector widths, summation order).
Two machines agree on the ratings to far better than the 1e-9 the tests ask
of a warm-started fit against one from scratch; they may not agree bit for bit.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

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
    strengths: tuple[float, ...] = field(default=(), compare=False)
    """The fitted strengths before centring (natural log-odds): where the next fit of a grown history starts."""

    def __getitem__(self, name: str) -> Rating:
        i = self._index()[name]
        return Rating(self.elo[i], Z95 * math.sqrt(max(self.covariance[i][i], 0.0)))

    def _index(self) -> dict[str, int]:
        found: dict[str, int] | None = self.__dict__.get("_by_name")
        if found is None:  # (a field of 300 asks for 90,000 differences: no list.index each time)
            found = {name: i for i, name in enumerate(self.names)}
            object.__setattr__(self, "_by_name", found)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def difference(self, a: str, b: str) -> Rating:
        """How much stronger ``a`` is than ``b``, in Elo, with the 95% half-width of that difference."""
        index = self._index()
        i, j = index[a], index[b]
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


Matrix = npt.NDArray[np.float64]
Places = npt.NDArray[np.intp]


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
        self._wins_array: Matrix | None = None
        self._sum_arrays: tuple[Places, Places, Matrix] | None = None
        """(:meth:`of_arrays`: its totals as they came, never added to.)"""

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
        twin._wins_array, twin._sum_arrays = self._wins_array, self._sum_arrays  # (never added to: shared)
        return twin

    def _count(self, pair: tuple[int, int], total: float, count: float, sign: float) -> None:
        sums = self._sums.setdefault(pair, [0.0, 0.0, 0.0])
        sums[0] += sign * total * total
        sums[1] += sign * count * total
        sums[2] += sign * count * count

    @classmethod
    def of_pairs(
        cls,
        names: Sequence[str],
        wins: Matrix,
        sums: Mapping[tuple[int, int], tuple[float, float, float]],
    ) -> Fitter:
        """A fitter from its totals alone: ``wins[i, j]`` what ``i`` scored against ``j``; ``sums`` by pair ``i < j``.

        ``sums`` are each pair's ``(sum S^2, sum n S, sum n^2)`` over the units
        only that pair played, ``S`` being ``i``'s score on a unit of ``n``
        matches (see the class's docstring). These are what the store keeps
        per pair of versions beside each result
        (:class:`~arena.competition.standings.PairTotals`), so a fit of a
        history of a million matches reads a few thousand rows.
        """
        fitter = cls(())
        fitter.names = list(names)
        fitter.index = {name: i for i, name in enumerate(fitter.names)}
        fitter.wins = wins.tolist()
        fitter._sums = {pair: list(values) for pair, values in sums.items()}
        return fitter

    @classmethod
    def of_arrays(cls, names: Sequence[str], wins: Matrix, first: Places, second: Places, sums: Matrix) -> Fitter:
        """:meth:`of_pairs` with the pairs' sums as arrays: pair ``k`` is ``(first[k], second[k])``, ``first[k] <
        second[k]``, its sums the row ``sums[k]`` (a server's field of 300: 45,000 pairs, no dict of them)."""
        fitter = cls(())
        fitter.names = list(names)
        fitter.index = {name: i for i, name in enumerate(fitter.names)}
        fitter._wins_array = wins
        order = np.lexsort((second, first))  # the order of :meth:`of_pairs`'s sorted pairs
        fitter._sum_arrays = (first[order], second[order], sums[order])
        return fitter

    def ratings(self, prior_games: float = DEFAULT_PRIOR_GAMES, *, start: Mapping[str, float] | None = None) -> Ratings:
        """The fit of the outcomes so far (see :func:`fit`).

        ``start``: strengths to begin Newton's method from, by name (a previous
        fit's :attr:`Ratings.strengths`); names it lacks begin at 0. The result
        is the same fit to within the convergence tolerance (1e-12 in log-odds),
        in fewer steps when the history grew a little since.
        """
        n = len(self.names)
        if n == 0:
            return Ratings((), (), ())
        wins = self._wins_array if self._wins_array is not None else np.array(self.wins, dtype=np.float64)
        first = None if start is None else np.array([start.get(name, 0.0) for name in self.names])
        theta = _strengths(wins, prior_games, first)
        _, hessian = _derivatives(theta, wins, prior_games)
        covariance = _covariance(hessian, self._meat(theta, prior_games), prior_games)
        centred = (theta - theta.mean()) * ELO_PER_NAT
        scale = ELO_PER_NAT * ELO_PER_NAT
        return Ratings(
            names=tuple(self.names),
            elo=tuple(centred.tolist()),
            covariance=tuple(tuple(row) for row in (covariance * scale).tolist()),
            strengths=tuple(theta.tolist()),
        )

    def _meat(self, theta: Matrix, prior: float) -> Matrix:
        """Sum over units of the outer product of each unit's score vector (the gradient of its log-likelihood)."""
        n = len(theta)
        theta = np.asarray(theta, dtype=np.float64)
        meat = np.zeros((n, n))
        i: Places
        j: Places
        if self._sum_arrays is not None:
            i, j, sums = self._sum_arrays
        elif self._sums:
            pairs = sorted(self._sums)
            i = np.array([p[0] for p in pairs], dtype=np.intp)
            j = np.array([p[1] for p in pairs], dtype=np.intp)
            sums = np.array([self._sums[p] for p in pairs])
        if self._sum_arrays is not None or self._sums:
            p = _sigmoid(theta[i] - theta[j])
            spread = sums[:, 0] - 2.0 * p * sums[:, 1] + p * p * sums[:, 2]
            np.add.at(meat, (i, i), spread)
            np.add.at(meat, (j, j), spread)
            np.add.at(meat, (i, j), -spread)
            np.add.at(meat, (j, i), -spread)
        for name in sorted(self._mixed):
            g: dict[int, float] = {}
            for (a, b), (total, count) in sorted(self._units[name].items()):
                residual = total - count * float(_sigmoid(theta[a] - theta[b]))
                g[a] = g.get(a, 0.0) + residual
                g[b] = g.get(b, 0.0) - residual
            for a, ga in g.items():
                for b, gb in g.items():
                    meat[a, b] += ga * gb
        p0 = _sigmoid(theta)
        meat[np.diag_indices(n)] += prior * p0 * (1 - p0)
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
    if not names:
        return {}
    theta = _strengths(wins, prior_games)
    mean = float(theta.mean())
    return {name: (float(theta[i]) - mean) * ELO_PER_NAT for name, i in index.items()}


def _strengths(wins: Matrix | list[list[float]], prior_games: float, start: Matrix | None = None) -> Matrix:
    """The maximum (penalised) likelihood strengths, by Newton's method (from ``start``, or from 0)."""
    table: Matrix = np.asarray(wins, dtype=np.float64)
    theta: Matrix = np.zeros(len(table)) if start is None else np.array(start, dtype=np.float64)
    for _ in range(200):
        gradient, hessian = _derivatives(theta, table, prior_games)
        step = _solve(_regularised(hessian, prior_games), gradient)
        theta = theta + step
        if not len(step) or float(np.max(np.abs(step))) < 1e-12:
            break
    return theta


def _sigmoid(x: Matrix) -> Matrix:
    """``1 / (1 + exp(-x))``, elementwise, without overflow for large ``|x|``."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _derivatives(theta: Matrix, wins: Matrix, prior: float) -> tuple[Matrix, Matrix]:
    """The gradient of the log-likelihood and the Fisher information (minus its Hessian)."""
    n = len(theta)
    games = wins + wins.T
    np.fill_diagonal(games, 0.0)  # a bot against itself tells nothing
    p = _sigmoid(theta[:, None] - theta[None, :])
    p0 = _sigmoid(theta)  # against the virtual average opponent at 0
    off = np.where(games > 0, wins - games * p, 0.0)
    np.fill_diagonal(off, 0.0)
    gradient = off.sum(axis=1) + prior * (0.5 - p0)
    weight = games * p * (1 - p)
    info = -weight
    info[np.diag_indices(n)] = weight.sum(axis=1) + prior * p0 * (1 - p0)
    return gradient, info


def _regularised(info: Matrix, prior: float) -> Matrix:
    """Without a prior the information is singular along (1, 1, ...): pin the mean there instead."""
    if prior > 0:
        return info
    return info + 1.0 / len(info)


def _covariance(info: Matrix, meat: Matrix, prior: float) -> Matrix:
    """The covariance of the centred strengths: ``P B M B P`` with ``B`` the (pseudo-)inverse information."""
    n = len(info)
    inverse = _inverse(_regularised(info, prior))
    if prior <= 0:
        inverse = inverse - 1.0 / n  # (F + J/n)^-1 - J/n is the pseudo-inverse of F.
    sandwich = inverse @ meat @ inverse
    row_mean = sandwich.mean(axis=1)
    col_mean = sandwich.mean(axis=0)
    total = row_mean.mean()
    centred: Matrix = sandwich - row_mean[:, None] - col_mean[None, :] + total
    return centred


def _solve(matrix: Matrix, vector: Matrix) -> Matrix:
    """``matrix^-1 @ vector``."""
    try:
        solved: Matrix = np.asarray(np.linalg.solve(matrix, vector), dtype=np.float64)
    except np.linalg.LinAlgError:
        raise ArithmeticError("singular information matrix") from None
    return solved


def _inverse(matrix: Matrix) -> Matrix:
    try:
        inverse: Matrix = np.asarray(np.linalg.inv(matrix), dtype=np.float64)
    except np.linalg.LinAlgError:
        raise ArithmeticError("singular information matrix") from None
    return inverse
