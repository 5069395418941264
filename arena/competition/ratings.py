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

**Deals at two tables** (:class:`TableDeal`, :meth:`Fitter.add_tables`). A
competition server never lets one bot hold both seats of a deal: a deal is
played at two tables, seats kept, by four versions of four owners, table 1
``a1`` (seat A) against ``b1``, table 2 ``a2`` against ``b2``. As in duplicate
bridge, team ONE is ``{a1, b2}`` (between them they held both hands of the
deal) and team TWO ``{a2, b1}``; the deal's result is team ONE's total
``t = score1 + (1 - score2)``, one of 0, 0.5, 1, 1.5, 2 (its pentanomial
class ``2t``).

The model: at each table, seat A wins with probability
``sigmoid(theta_A - theta_B + delta)``, where ``delta`` is the deal's: its
luck (how much its cards favour seat A) and the seat's advantage, any size,
the same at both tables because the cards are. That ``delta`` is not
estimated but conditioned away, as a matched-pairs (conditional logistic)
analysis does: a deal whose two tables went the same way (``t = 1``) says
nothing about the players, and given that they went different ways, team ONE
won (``t = 2`` rather than 0) with probability
``P = sigmoid(theta_a1 + theta_b2 - theta_a2 - theta_b1)``, whatever
``delta`` was (the ``exp(delta)`` factors cancel). So a table deal is a game
between two teams whose strengths are sums. Draws: with Davidson's model, the
draw extension of Bradley-Terry (a table's win, draw and loss weigh
``exp(theta_A + delta)``, ``nu exp((theta_A + delta + theta_B) / 2)``,
``exp(theta_B)``), a deal with one table drawn (``t = 1.5`` or 0.5) is the
same comparison at half the contrast: given ``t`` in {0.5, 1.5}, team ONE had
1.5 with probability ``H = sigmoid((theta_a1 + theta_b2 - theta_a2 -
theta_b1) / 2)``, whatever ``delta`` and the draw weight ``nu`` were (the
two ways to each total share their factors). With ``v`` the contrast
``e_a1 + e_b2 - e_a2 - e_b1`` and a quad's (``a1, b1, a2, b2``) pentanomial
counts ``n0..n4``, the log-likelihood is
``n4 log P + n0 log(1 - P) + n3 log H + n1 log(1 - H)``, its gradient
``(n4 - (n0 + n4) P + (n3 - (n1 + n3) H) / 2) v``, its information
``((n0 + n4) P (1 - P) + (n1 + n3) H (1 - H) / 4) v v'`` (logistic
likelihoods: the Newton step of the pairs' fit, the same concave problem),
and the sandwich's middle sums each deal's outer score,
``(n0 P^2 + n4 (1 - P)^2 + (n1 H^2 + n3 (1 - H)^2) / 4) v v'``. Pair outcomes
and table deals add their terms to one likelihood; without table deals
nothing of the pairs' fit changes.

Why this and not the team's mean score: the team total's mean,
``1 + sigmoid(d1 + delta) - sigmoid(d2 + delta)``, still depends on the
deal's luck (it cancels only to first order), and a deal where luck decided
both tables (``t = 1``) would pull every strength towards 0; the conditional
likelihood is exactly free of ``delta``. (Treating ``t`` as two games won by
a team at ``P``, the mean-score form, would also halve the scale: it fits a
swapped pair ``(a, b, b, a)`` at ``sigmoid(2 (theta_a - theta_b))`` where the
pairs' fit has ``sigmoid(theta_a - theta_b)``.) Nor does a drawn table count
as half a win here, as it does in the pairs' fit: read so, a deal with one
draw would compare the teams at the full contrast where Davidson's model has
half, and its luck would no longer cancel. What it assumes: the logistic
model at each table with the deal's effect additive on the log-odds (a deal
may favour seat A by any amount, but not favour one *bot* over another);
draws as Davidson's model has them; outcomes of different deals independent.

Its scale: without deal luck or draws the table fit and the pairs' fit
estimate the same strengths (a swapped pair fed as a table deal
``(a, b, b, a)`` has ``P = sigmoid(2 (theta_a - theta_b))``, the chance that
``a`` won both legs rather than lost both). With luck, the pairs' fit (and
that of single deals) estimates strengths *averaged over deals*, which luck
pulls together (every expected score is nearer a half), and draws counted as
half a win pull them together too; the table fit estimates strengths
*within a deal*, which neither does: a server's ratings spread wider than a
local tournament's of the same bots, each consistent in itself.

Paired statistics (:mod:`arena.competition.sprt`) map as follows. A table
deal's total is pentanomial, so the score, normalized Elo, LOS and SPRT of
that module apply unchanged to a comparison of two *teams*: team ONE's
counts, ``(n0, ..., n4)``. Two *bots* are compared on one contrast only when
the other two are the same bot (``b1 = b2 = R``: ``v = e_a1 - e_a2``, NEW and
OLD each against R on the same cards), and then R holds the same hand at both
tables, which only a trusted reference may; so ``arena compare`` between
trusted bots keeps swapped seats, whose pentanomial is the pair's own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of log-odds."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
DEFAULT_PRIOR_GAMES = 2.0
ONE_KEY = 40_000
"""A field of fewer bots numbers each quad of places as one int64 (``n^4 < 2^63``): :func:`quad_keys`."""


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
class TableDeal:
    """One deal at two tables, seats kept, for the rating fit: seat A's score at each table.

    Table 1 is ``a1`` (seat A) against ``b1``, table 2 ``a2`` (seat A) against
    ``b2``, on the same cards; ``score1`` is what ``a1`` scored (1 for a win,
    0.5 for a draw, 0 for a loss), ``score2`` what ``a2`` scored. Team ONE,
    ``a1`` and ``b2``, held both hands of the deal between them; the deal's
    result is their total (see the module's docstring).
    """

    a1: str
    b1: str
    a2: str
    b2: str
    score1: float
    score2: float

    @property
    def total(self) -> float:
        """Team ONE's total: 0, 0.5, 1, 1.5 or 2."""
        return self.score1 + (1.0 - self.score2)

    @property
    def pentanomial(self) -> int:
        """The deal's class, 0 to 4: twice team ONE's total."""
        for score in (self.score1, self.score2):
            if score not in (0.0, 0.5, 1.0):
                raise ValueError(f"a table's score is 1, 0.5 or 0, not {score!r}")
        return round(2 * self.total)


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


def fit(
    names: Sequence[str], outcomes: Iterable[Outcome | TableDeal], *, prior_games: float = DEFAULT_PRIOR_GAMES
) -> Ratings:
    """Fit Bradley-Terry strengths to ``outcomes`` (matches, deals at two tables); ratings centred on the field's mean.

    With ``prior_games = 0`` the plain maximum-likelihood fit is returned; it
    is finite only when every bot has won and lost (or drawn) something.

    The covariance is the sandwich (cluster-robust) estimate, clustered by
    :attr:`Outcome.unit`: ``H^-1 M H^-1`` with ``H`` the information and ``M``
    the summed outer products of each unit's score vector. For two bots and
    duplicate pairs it is the pentanomial variance fastchess uses; for
    matches without draws, one per unit, it equals the inverse information.
    The prior's virtual games add their own expected variance to ``M``, so a
    run of identical results still leaves an error bar. A :class:`TableDeal`
    is one unit of its own, in the conditional likelihood of the module's
    docstring.
    """
    fitter = Fitter(names)
    for outcome in outcomes:
        if isinstance(outcome, TableDeal):
            counts = [0] * 5
            counts[outcome.pentanomial] = 1
            fitter.add_tables(outcome.a1, outcome.b1, outcome.a2, outcome.b2, counts)
        else:
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
    pairings) are summed one by one, in the units' order. Deals at two tables
    are kept as each quad's five pentanomial counts (:meth:`add_tables`, or
    in bulk :meth:`add_table_arrays`), whole numbers too: a fit sums each
    quad once, in the quads' order, however they came.
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
        self._tables: dict[tuple[int, int, int, int], list[int]] = {}
        """Deals at two tables by quad ``(a1, b1, a2, b2)``: their pentanomial counts (never all 0)."""
        self._table_arrays: list[tuple[npt.NDArray[np.integer], npt.NDArray[np.integer], bool]] = []
        """Quads and counts added in bulk (:meth:`add_table_arrays`), as they came, and whether in the fit's order."""

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

    def add_tables(self, a1: str, b1: str, a2: str, b2: str, pentanomial: Sequence[int], sign: int = 1) -> None:
        """Count (``sign = -1``: uncount) deals at two tables of these four bots in these seats.

        Table 1 is ``a1`` (seat A) against ``b1``, table 2 ``a2`` against
        ``b2``; ``pentanomial[k]`` is how many of the deals team ONE (``a1``
        and ``b2``) scored ``k / 2`` on. Uncounting what was counted leaves
        the fitter as it was before, bit for bit.
        """
        if sign not in (1, -1):
            raise ValueError(f"sign is 1 (add) or -1 (remove), not {sign!r}")
        if len(pentanomial) != 5 or any(int(c) != c or c < 0 for c in pentanomial):
            raise ValueError(f"a quad's pentanomial is 5 counts, each a whole number from 0, not {list(pentanomial)!r}")
        quad = (self.index[a1], self.index[b1], self.index[a2], self.index[b2])
        counts = self._tables.get(quad, [0] * 5)
        new = [c + sign * int(k) for c, k in zip(counts, pentanomial, strict=True)]
        if min(new) < 0:
            raise ValueError(
                f"cannot remove {list(pentanomial)} deals of {a1}, {b1}, {a2}, {b2}: only {counts} were added"
            )
        if any(new):
            self._tables[quad] = new
        else:
            self._tables.pop(quad, None)

    def add_table_arrays(
        self,
        quads: npt.NDArray[np.integer],
        counts: npt.NDArray[np.integer],
        *,
        in_order: bool = False,
        copy: bool = True,
    ) -> None:
        """:meth:`add_tables` in bulk: row ``k`` of ``quads`` is ``(a1, b1, a2, b2)`` as places in ``names``, of
        ``counts`` its pentanomial counts (a server's 100,000 quads, no call for each). Not undone by a ``sign``.

        ``in_order``: each quad once, ascending (by ``a1``, then ``b1``, ``a2``,
        ``b2``), as a fit reads them: taken as they are when they are all the
        fitter has, not sorted again (a server keeps its field's deals so
        between drawings of the standings). Checked: quads out of order are
        a ``ValueError``.

        Without ``copy``, the arrays are held as they are: the caller does
        not change them while this fitter is in use (a drawing of the
        standings, whose fitter ends with it: 10 MB less at its peak).
        """
        quads = np.asarray(quads).reshape(-1, 4)  # (kept in their own integer type: a server's are int32)
        counts = np.asarray(counts).reshape(-1, 5)
        if not (np.issubdtype(quads.dtype, np.integer) and np.issubdtype(counts.dtype, np.integer)):
            raise ValueError("a quad's places and its counts are whole numbers")
        if len(quads) != len(counts):
            raise ValueError(f"{len(quads)} quads but {len(counts)} rows of counts")
        if len(quads) and (quads.min() < 0 or quads.max() >= len(self.names)):
            raise ValueError(f"a quad's places must be from 0 to {len(self.names) - 1}")
        if len(counts) and counts.min() < 0:
            raise ValueError("a pentanomial count is never negative")
        if in_order and len(quads) > 1:
            if len(self.names) >= ONE_KEY:
                raise ValueError(f"quads in order are for a field of fewer than {ONE_KEY:,} (one number each)")
            key = quad_keys(quads, len(self.names))
            if not bool(np.all(key[1:] > key[:-1])):
                raise ValueError("quads said to be in order are not: each once, ascending")
        held = (quads.copy(), counts.copy()) if copy else (quads, counts)
        self._table_arrays = [*self._table_arrays, (*held, in_order)]

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
        twin._tables = {quad: counts[:] for quad, counts in self._tables.items()}
        twin._table_arrays = self._table_arrays  # (replaced, never changed: shared)
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
        tables = self._table_totals()
        theta = _strengths(wins, prior_games, first, tables)
        _, hessian = _derivatives(theta, wins, prior_games)
        meat = self._meat(theta, prior_games)
        if tables is not None:  # (only then: without table deals the pairs' fit is what it always was, bit for bit)
            _, table_info, table_meat = tables.terms(theta, meat=True)
            hessian = hessian + table_info
            meat = meat + table_meat
        covariance = _covariance(hessian, meat, prior_games)
        centred = (theta - theta.mean()) * ELO_PER_NAT
        scale = ELO_PER_NAT * ELO_PER_NAT
        return Ratings(
            names=tuple(self.names),
            elo=tuple(centred.tolist()),
            covariance=tuple(tuple(row) for row in (covariance * scale).tolist()),
            strengths=tuple(theta.tolist()),
        )

    def _table_totals(self) -> _Tables | None:
        """The deals at two tables as arrays: each quad once, in order, whatever order and door they came in by."""
        parts = [(places, counts, in_order) for places, counts, in_order in self._table_arrays if len(places)]
        if self._tables:
            parts.append(
                (
                    np.array(list(self._tables), dtype=np.intp),
                    np.array(list(self._tables.values()), dtype=np.int64),
                    False,
                )
            )
        if not parts:
            return None
        n = len(self.names)
        if len(parts) == 1 and parts[0][2]:  # each quad once, in order, already (checked when added)
            places, counts, _ = parts[0]
            kept = counts.any(axis=1)
            if kept.all():  # (as a server's are: no copy of them)
                return _Tables(n, places, counts)
            return _Tables(n, places[kept], counts[kept]) if kept.any() else None
        places = np.concatenate([p.astype(np.intp) for p, _, _ in parts])
        counts = np.concatenate([c.astype(np.int64) for _, c, _ in parts])
        # (np.take, not places[order]: ten times quicker on a server's 250,000 rows)
        if n < ONE_KEY:  # the quad as one number: a sort of one key, not four
            key = quad_keys(places, n)
            order = np.argsort(key, kind="stable")
            key = np.take(key, order)
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        else:
            order = np.lexsort(places.T[::-1])
            sorted_places = np.take(places, order, axis=0)
            starts = np.flatnonzero(np.r_[True, np.any(sorted_places[1:] != sorted_places[:-1], axis=1)])
        places, counts = np.take(places, order, axis=0), np.take(counts, order, axis=0)
        if len(starts) < len(places):  # a quad in two parts (stored and new): its counts added up
            counts = np.add.reduceat(counts, starts, axis=0)  # (whole numbers: exact in any order)
            places = np.take(places, starts, axis=0)
        kept = counts.any(axis=1)
        if not kept.any():
            return None
        return _Tables(n, places[kept], counts[kept])

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


def _strengths(
    wins: Matrix | list[list[float]], prior_games: float, start: Matrix | None = None, tables: _Tables | None = None
) -> Matrix:
    """The maximum (penalised) likelihood strengths, by Newton's method (from ``start``, or from 0)."""
    table: Matrix = np.asarray(wins, dtype=np.float64)
    theta: Matrix = np.zeros(len(table)) if start is None else np.array(start, dtype=np.float64)
    for _ in range(200):
        gradient, hessian = _derivatives(theta, table, prior_games)
        if tables is not None:
            table_gradient, table_info, _ = tables.terms(theta)
            gradient, hessian = gradient + table_gradient, hessian + table_info
        step = _solve(_regularised(hessian, prior_games), gradient)
        theta = theta + step
        if not len(step) or float(np.max(np.abs(step))) < 1e-12:
            break
    return theta


def quad_keys(places: npt.NDArray[np.integer], n: int) -> npt.NDArray[np.int64]:
    """Each quad ``(a1, b1, a2, b2)`` of places in a field of ``n`` (fewer than ``ONE_KEY``) as one number, in the
    quads' order."""
    wide = places.astype(np.int64, copy=False)
    keys: npt.NDArray[np.int64] = ((wide[:, 0] * n + wide[:, 1]) * n + wide[:, 2]) * n + wide[:, 3]
    return keys


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


TEAM_SIGNS = np.array([1.0, -1.0, -1.0, 1.0])
"""Each seat's sign in a table deal's contrast ``e_a1 - e_b1 - e_a2 + e_b2``: team ONE is ``a1`` and ``b2``."""


TERMS_BLOCK = 32_768
"""Deals at two tables whose terms are computed at once (:meth:`_Tables.terms`): a server's 250,000 at once took
a dozen arrays of 2 MB each, 23 MB at the peak of a drawing of the standings."""


class _Tables:
    """Deals at two tables, by quad, as a fit reads them: the terms they add to the likelihood's derivatives.

    A quad's ``v v'`` has 16 cells; they are summed over the deals as the
    four seats' own cells (the diagonal, sign +1: ``n`` bins each) and, for
    each two seats ``s < t``, the cells ``(q_s, q_t)`` with the sign
    ``sign_s sign_t`` (``n^2`` bins), added to the matrix and its transpose:
    ten passes over the deals, none through a 16-times array (a server's
    250,000 deals at two tables: 4 million cells, 32 MB each time they were
    spread, three times a drawing of the standings).
    """

    def __init__(self, n: int, places: npt.NDArray[np.integer], counts: npt.NDArray[np.integer]) -> None:
        self.n = n
        small = np.int32 if n * n < 2**31 else np.int64  # (a server's 250,000 deals: 6 MB of cells, not 12)
        self.seats: list[npt.NDArray[np.integer]] = [
            np.ascontiguousarray(places[:, seat], dtype=small) for seat in range(4)
        ]
        """Each seat's versions (``a1``, ``b1``, ``a2``, ``b2``) as a contiguous array: gathered, counted."""
        whole: type[np.signedinteger[Any]] = (
            np.int32 if len(counts) and counts.max() < 2**30 else np.int64  # (two of them summed: no overflow)
        )
        self.lost, self.half_lost, self.half_won, self.won = (
            np.ascontiguousarray(counts[:, k], dtype=whole) for k in (0, 1, 3, 4)
        )
        """Team ONE's deals by class: totals 0, 0.5, 1.5, 2 (a total of 1 tells nothing). Whole numbers, kept as
        such (half the bytes of floats, where they fit: a drawing of a server's standings holds these while it
        fits); each is made a float as it meets one, exactly."""

    def _cells(self) -> Iterator[tuple[npt.NDArray[np.integer], float]]:
        """For each two seats ``s < t``: the cell ``(q_s, q_t)`` of each quad, flattened, and its sign (made at each
        use, not kept: six arrays of every deal, 6 MiB of a drawing at a million matches, for a few passes)."""
        n = self.n
        for s in range(4):
            for t in range(s + 1, 4):
                yield self.seats[s] * n + self.seats[t], float(TEAM_SIGNS[s] * TEAM_SIGNS[t])

    @property
    def places(self) -> Places:
        """Each quad's places ``(a1, b1, a2, b2)``, a row each, in the fit's order."""
        return np.column_stack(self.seats)

    def terms(self, theta: Matrix, *, meat: bool = False) -> tuple[Matrix, Matrix, Matrix]:
        """The gradient of the log-likelihood, the information, and (``meat``) the sum of the deals' outer scores.

        A deal of total 2 or 0 is a game of the teams at ``P = sigmoid(v'theta)``, one of 1.5 or 0.5 a game at
        ``H = sigmoid(v'theta / 2)`` along ``v / 2``: each adds its residual times its contrast to the gradient.
        """
        n, size = self.n, len(self.won)
        residual, weight = np.empty(size), np.empty(size)
        squares = np.empty(size if meat else 0)
        for start in range(0, size, TERMS_BLOCK):  # (a block at a time: a dozen arrays of a block, not of every deal)
            at = slice(start, start + TERMS_BLOCK)
            a1, b1, a2, b2 = (np.take(theta, seat[at]) for seat in self.seats)
            contrast = (a1 - b1) - (a2 - b2)
            p, h = _sigmoid(contrast), _sigmoid(0.5 * contrast)
            won, lost, half_won, half_lost = self.won[at], self.lost[at], self.half_won[at], self.half_lost[at]
            residual[at] = (won - (won + lost) * p) + 0.5 * (half_won - (half_won + half_lost) * h)
            weight[at] = (won + lost) * p * (1 - p) + 0.25 * (half_won + half_lost) * h * (1 - h)
            if meat:  # a deal's score: (1 - P) v won, -P v lost; (1 - H) v / 2 half won, -H v / 2 half lost
                squares[at] = lost * p * p + won * (1 - p) ** 2 + 0.25 * (half_lost * h * h + half_won * (1 - h) ** 2)
        gradient = np.zeros(n)
        for sign, seat in zip(TEAM_SIGNS, self.seats, strict=True):
            gradient += sign * np.bincount(seat, weights=residual, minlength=n)
        info = self._spread(weight)
        outer = self._spread(squares) if meat else np.zeros((0, 0))
        return gradient, info, outer

    def _spread(self, weight: Matrix) -> Matrix:
        """``sum_q weight_q v_q v_q'`` as an ``n x n`` matrix."""
        n = self.n
        upper = np.zeros(n * n)
        for cells, sign in self._cells():
            upper += sign * np.bincount(cells, weights=weight, minlength=n * n)
        square = upper.reshape(n, n)
        total: Matrix = square + square.T
        diagonal = np.zeros(n)
        for seat in self.seats:
            diagonal += np.bincount(seat, weights=weight, minlength=n)
        total[np.diag_indices(n)] += diagonal
        return total


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
