"""The standings as running totals per pair of versions: kept in the store beside each result, read in thousands.

A leaderboard (:mod:`arena.competition.board`) needs, of the matches
between the versions of a field, only sums: each version's wins, draws,
losses and points against each opponent, the pentanomial counts of their
duplicate pairs, the spread of its points over deals, the faults, and for
the rating fit each pair's score and the sums its error bars take
(:class:`~arena.competition.ratings.Fitter`). Each of these is a sum over
*deals* of what that deal's matches make, so the store keeps, per ordered
pair of versions, the totals (:class:`PairTotals`), and when a match is
recorded it adds, in the same transaction, the difference between what its
deal's matches made before and what they make with it (:func:`deal_totals`).

The standings of any field are then a pass over the pairs of its versions
(:class:`~arena.competition.standings.PairArrays`): a version that is replaced or disqualified leaves
its rows out, and nothing is counted again. A server at a million matches
reads its 45,000 pair rows at start, not the million matches.

Exact: every total is the same float as the sum over matches would give,
except the spread of points over deals, which is kept as a sum of squares
(equal to the two-pass sum to about 1e-12 of the points' scale). Deals that
more than one pairing played (``arena compare`` deals each board to NEW and
BASE) are marked ``mixed``: their error bars need the deal's vector, so a
board with such a pair is drawn from the matches instead (:func:`exact`).
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

from .records import SCORE, PlayedMatch, Record, outcome_for, pair_class


@dataclass(slots=True)
class PairTotals(Record):
    """What one version's matches against one opponent add up to, from the version's side: their
    :class:`~arena.competition.records.Record` (wins, draws, losses, pentanomial counts), then these sums."""

    points_for: float = 0.0
    points_against: float = 0.0
    deals: int = 0
    """Deals the two played (a duplicate pair is one deal)."""
    deal_means: float = 0.0
    """The sum over those deals of the version's points per match on the deal."""
    deal_squares: float = 0.0
    """The sum of the squares of those means."""
    fit_score: float = 0.0
    """The version's score (1, 0.5, 0 a match) over the matches the rating fit counts (not both seats forfeited)."""
    fit_games: float = 0.0
    unit_squares: float = 0.0
    """Over deals: the sum of ``S^2``, ``S`` the version's fit score on the deal..."""
    unit_products: float = 0.0
    """... of ``n S``, ``n`` the deal's matches the fit counts ..."""
    unit_counts: float = 0.0
    """... and of ``n^2`` (the rating's error bars: see :class:`~arena.competition.ratings.Fitter`)."""
    mixed: int = 0
    """Deals of the two that another pairing also played."""
    low: float = math.inf
    """The lowest points either seat scored in their matches."""
    high: float = -math.inf
    faults: dict[str, int] = field(default_factory=dict)
    """The version's faults in these matches, by kind."""

    def add(self, other: PairTotals, sign: int = 1) -> None:
        """Add ``other`` (``sign`` -1: take it away; the range only ever widens)."""
        # Read in one C call each; a match's change is mostly zeros, and adding a zero changes nothing (no total is
        # ever -0.0: every one starts at 0.0, and x + y is -0.0 only when both are).
        for name, mine, theirs in zip(_ADDITIVE, _additive(self), _additive(other), strict=True):
            if theirs:
                setattr(self, name, mine + sign * theirs)
        self.low, self.high = min(self.low, other.low), max(self.high, other.high)
        for kind, count in other.faults.items():
            left = self.faults.get(kind, 0) + sign * count
            if left:
                self.faults[kind] = left
            else:
                self.faults.pop(kind, None)

    def difference(self, before: PairTotals) -> PairTotals:
        """``self - before`` (the range is ``self``'s)."""
        differences = [mine - theirs for mine, theirs in zip(_additive(self), _additive(before), strict=True)]
        # (positional: the fields are _ADDITIVE's, then low, high and faults, as the module asserts)
        out = PairTotals(*differences, self.low, self.high, dict(self.faults))  # type: ignore[call-arg]
        for kind, count in before.faults.items():
            out.faults[kind] = out.faults.get(kind, 0) - count
        out.faults = {kind: count for kind, count in out.faults.items() if count}
        return out

    @property
    def empty(self) -> bool:
        """Whether nothing was counted."""
        return self.matches == 0


_ADDITIVE = tuple(f.name for f in fields(PairTotals) if f.name not in ("low", "high", "faults"))
if [f.name for f in fields(PairTotals)] != [*_ADDITIVE, "low", "high", "faults"]:  # (PairTotals.difference's order)
    raise ImportError("PairTotals: its additive fields must come first, then low, high and faults")
_additive = operator.attrgetter(*_ADDITIVE)
"""The additive totals of a :class:`PairTotals`, as a tuple in :data:`_ADDITIVE`'s order."""
COLUMNS = (*_ADDITIVE, "low", "high")
"""The stored columns of a pair's totals, in order (its faults are rows of their own)."""

Pair = tuple[int, int]
"""An ordered pair of version ids: the version, then its opponent."""


Quad = tuple[int, int, int, int]
"""The four version ids of a deal at two tables: ``a1, b1, a2, b2`` (table 1 is ``a1`` v ``b1``)."""


def table_deal(deal: str) -> tuple[str, str, str, str, int] | None:
    """``(a1, b1, a2, b2, number)`` of a deal at two tables' id (``a1~b1~a2~b2~n``), or ``None`` for another deal.

    (The ladder names its deals so: :class:`arena.competition.ladder.Tables`.)
    """
    parts = deal.split("~")
    if len(parts) != 5 or not parts[4].isdigit():
        return None
    return parts[0], parts[1], parts[2], parts[3], int(parts[4])


def table_result(matches: Sequence[PlayedMatch]) -> tuple[Quad, int] | None:
    """The four versions of a deal at two tables whose two tables are both in ``matches``, and its pentanomial
    class: ``int(2 * t)``, ``t`` team ONE's total (``a1``'s score at table 1 and ``b2``'s at table 2, 1 a win, 0.5
    a draw); ``None`` while a table is missing (or for another deal)."""
    if not matches or table_deal(matches[0].deal) is None:
        return None
    tables = {m.leg: m for m in matches}
    one, two = tables.get(0), tables.get(1)
    if one is None or two is None or None in one.versions or None in two.versions:
        return None
    total = SCORE[outcome_for(one, "A")] + SCORE[outcome_for(two, "B")]
    quad = (one.versions[0], one.versions[1], two.versions[0], two.versions[1])
    return quad, int(2 * total)  # type: ignore[return-value]


def deal_totals(matches: Sequence[PlayedMatch], places: Mapping[str, int] | None = None) -> dict[Pair, PairTotals]:
    """What the ``matches`` of one deal (in the order they were recorded) add to each ordered pair of versions
    (with ``places``: of bots, each pair keyed by the bots' places in it, whatever their versions).

    Matches not tied to two versions add nothing (a store's standings then
    come from the matches: see :func:`exact`). The two tables of a deal at
    two tables (:func:`table_deal`) add their matches, points and faults to
    their pairs, but nothing to the rating fit's columns: the fit counts the
    deal as a whole, from its table totals (:func:`table_result`).
    """
    sides = [m.versions if places is None else (places[m.bot_a], places[m.bot_b]) for m in matches]
    pairings = {frozenset(side) for side in sides if None not in side}
    tables = bool(matches) and table_deal(matches[0].deal) is not None
    mixed = int(len(pairings) > 1 and not tables)
    out: dict[Pair, PairTotals] = {}
    points: dict[Pair, float] = {}
    scores: dict[Pair, list[float]] = {}
    for m, (va, vb) in zip(matches, sides, strict=True):
        if va is None or vb is None:
            continue
        for seat, side in (("A", (va, vb)), ("B", (vb, va))):
            mine, theirs = (m.points[0], m.points[1]) if seat == "A" else (m.points[1], m.points[0])
            totals = out.setdefault(side, PairTotals())
            result = outcome_for(m, seat)
            totals.add_match(result)
            totals.points_for += mine
            totals.points_against += theirs
            totals.low, totals.high = min(totals.low, *m.points), max(totals.high, *m.points)
            points[side] = points.get(side, 0.0) + mine
            scores.setdefault(side, []).append(SCORE[result])
            for fault in m.faults:
                if fault.seat == seat:
                    totals.faults[fault.kind] = totals.faults.get(fault.kind, 0) + 1
            if len(m.forfeit) < 2 and not tables:
                totals.fit_score += SCORE[result]
                totals.fit_games += 1
    for side, totals in out.items():
        mean = points[side] / totals.matches
        totals.deals, totals.deal_means, totals.deal_squares, totals.mixed = 1, mean, mean * mean, mixed
        played = scores[side]
        if len(played) != 2:
            totals.unpaired = 1
        if len(played) >= 2:
            setattr(totals, pair_class(played[0], played[1]), 1)
        if totals.fit_games:
            s, n = totals.fit_score, totals.fit_games
            totals.unit_squares, totals.unit_products, totals.unit_counts = s * s, n * s, n * n
    return out


def deal_change(before: Sequence[PlayedMatch], match: PlayedMatch) -> dict[Pair, PairTotals]:
    """What recording ``match`` adds to each pair, given the matches of its deal recorded ``before`` it."""
    old = deal_totals(before)
    new = deal_totals([*before, match])
    return {side: totals.difference(old.get(side, PairTotals())) for side, totals in new.items()}


WHOLE = frozenset(f.name for f in fields(PairTotals) if f.type == "int")
"""The columns that count (stored as integers)."""


def from_row(values: Sequence[float], faults: str) -> PairTotals:
    """A pair's totals from its stored columns (:data:`COLUMNS`, in order: the fields' own) and its faults (JSON)."""
    totals = PairTotals(*values)  # type: ignore[arg-type]
    if faults != "{}":
        totals.faults = json.loads(faults)
    return totals


def to_row(totals: PairTotals) -> tuple[list[float], str]:
    """A pair's totals as stored: its columns (:data:`COLUMNS`, in order) and its faults (JSON)."""
    faults = json.dumps(totals.faults, sort_keys=True) if totals.faults else "{}"
    return [*_additive(totals), totals.low, totals.high], faults


def exact(pairs: Mapping[Pair, PairTotals]) -> bool:
    """Whether a board drawn from these pairs is the board of their matches (no deal another pairing shared)."""
    return not any(t.mixed for t in pairs.values())
