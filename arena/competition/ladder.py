"""A rolling ladder: matches played continuously between a field that changes while it runs.

Used by the competition server (:mod:`arena.server`), whose participants
submit new versions at any time. Its deals are played in one of two schemes
(:data:`SCHEMES`).

**Duplicate at two tables** (``"tables"``, the server's default): a deal is
played at two tables by four versions of four different owners, seats kept:
table 1 is ``a1`` (seat A) v ``b1``, table 2 ``a2`` v ``b2``
(:class:`Tables`). No version and no owner is in both tables of a deal, so no
bot ever holds both seats of a deal, and nothing its processes pass to each
other (through any channel of a shared kernel) tells them an opponent's
cards. Deal luck cancels across the tables, as in duplicate bridge: team ONE
= {``a1``, ``b2``} held both hands of the deal between them. A field of fewer
than four owners plays **single deals** (one match a deal, seats alternating)
until a fourth arrives. The choice (:func:`next_deal`, pure) also shares the
ladder's time fairly among owners: an owner whose bots have used more of the
arena's time (their thinking, :attr:`Ladder.usage`) than the others waits
while they catch up.

**Swapped seats** (``"swapped"``): the ladder plays **duplicate pairs**
(one deal, both seatings, in two processes of each bot, so no process ever
sees a deal twice) and records each match in the same store as a tournament,
so ``arena results`` reads a ladder's database too. This scheme is for bots
whose owners trust each other: a bot holds both seats of each deal, and
whatever its processes share carries the first leg's cards to the second
(a shared kernel has channels nobody can list in full). **The second leg starts
when the first has ended**: no two processes of a bot are in one deal at
once, so nothing they share can carry the cards from one leg to the other
while it is played. A *persistent* bot (``reuse = "persistent"``: one
process keeps its state from match to match) plays each leg on a deal of its
own (its process would remember the first leg's cards), as a tournament
plays them.

Which pair next (:func:`next_pair`, pure; :func:`next_deal` builds a deal at two tables from two of its pairs):

1. a pair left half-played (one leg recorded when the arena was killed) is
   finished first, with the same key and seed, so nothing is played twice;
2. a new version plays ``placement_pairs`` pairs against opponents spread
   over the field by rating (the middle first, then the ends, then between);
3. after that, matches go where they tell the most: the pair whose outcome is
   least certain (ratings close, relative to their error bars), divided by
   how often the pair has met; pairs that have met ``pair_budget`` times, or
   whose rating intervals no longer overlap after a few meetings, are settled
   and stop.

Versions are known by their labels (``alice``, then ``alice.v2``... as
:func:`~arena.competition.store.version_label` names them): a pair's deal id
is ``first~second~n``, and its deals are ``derive_seed(seed, "ladder", first,
second, n)`` for the ``n``-th pair between the two versions (labels sorted),
so the deals do not depend on timing or on the order versions arrived. A deal
at two tables is ``a1~b1~a2~b2~n``, its tables' keys ``...-1`` and ``...-2``,
its cards ``derive_seed(seed, "ladder", a1, b1, a2, b2, n)``; a single deal
is ``first~second~n``, its key ``...-s``. In the
store, a match names its bots as a tournament does (the bot's name in each
seat, with the version ids beside), so ``arena results`` shows the current
field of a ladder as it does a tournament's.
"""

from __future__ import annotations

import functools
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import trio

from protocol import Limits

from ..bots.spec import BotSpec
from ..games import Game, derive_seed
from ..supervisor import BotPool
from .playing import MAX_GAME_ERRORS, MatchLost, play_scheduled
from .schedule import Entrant, Scheduled
from .store import PlayedMatch, Store

RemotePlay = Callable[[Scheduled, Mapping[str, BotSpec], Path | None], Awaitable[PlayedMatch]]
"""Plays a scheduled match elsewhere (a cluster, a worker process) given the field's specs and the log's path.

It raises :class:`MatchLost` when the match was lost with the place it played
in (a worker process that died), or withdrawn before it began (a bot of it
was dropped: see :class:`Pool`): the ladder does not record it, and plays the
pair again if both its versions still play.
"""
SETTLED_AFTER = 3
"""Pairs two versions must have played before non-overlapping intervals count as settled."""
TABLES = "tables"
SWAPPED = "swapped"
SCHEMES = (TABLES, SWAPPED)
"""How the ladder plays a deal: at two tables by four owners' versions, or by two versions with seats swapped."""
USAGE_HALF_LIFE_S = 600.0
"""An owner's use of the ladder (:attr:`Ladder.usage`) halves every this many seconds: what a bot that was slow
an hour ago used no longer keeps its owner waiting."""


class Pool(Protocol):
    """What the ladder tells the processes' keeper after a pair (a :class:`BotPool`, or a worker's)."""

    def forget(self, deal: int) -> None:
        """No match on ``deal`` is left to play."""

    def drop(self, name: str) -> None:
        """Stop the idle processes of bot ``name``: it will play no more (its matches not yet begun, if any wait
        their turn there, are withdrawn)."""


@dataclass(frozen=True)
class Pair:
    """The ``number``-th duplicate pair between ``first`` and ``second`` (sorted), and the legs to play."""

    first: str
    second: str
    number: int
    legs: tuple[int, ...] = (0, 1)
    single: bool = False
    """A single deal (one match; ``first`` in seat A when ``number`` is even): a field too small for two tables."""

    @property
    def deal(self) -> str:
        """The deal's id, shared by both legs."""
        return f"{self.first}~{self.second}~{self.number}"

    @property
    def labels(self) -> tuple[str, ...]:
        """The versions that play the deal."""
        return (self.first, self.second)

    def matches(self, seed: int, field: Mapping[str, Player] | None = None) -> list[Scheduled]:
        """The legs to play, as scheduled matches (leg 0: ``first`` in seat A).

        With the ``field`` (label to player) the seats hold the bots' names and
        the matches their version ids, as the store records them; without it,
        the labels themselves.
        """
        field = field or {}
        players = [field.get(self.first), field.get(self.second)]
        persistent = tuple(p.entrant.name for p in players if p is not None and p.entrant.persistent)

        def seat(label: str) -> tuple[str, int | None]:
            player = field.get(label)
            return (player.entrant.name, player.entrant.version_id) if player else (label, None)

        first, second = seat(self.first), seat(self.second)
        seatings = ((first, second), (second, first))
        if self.single:  # one match: no other seat of the deal is played by anyone
            leg = self.number % 2
            (bot_a, version_a), (bot_b, version_b) = seatings[leg]
            deal_seed = derive_seed(seed, "ladder", self.first, self.second, self.number)
            return [
                Scheduled(
                    f"{self.deal}-s", 0, self.deal, leg, bot_a, bot_b, deal_seed,
                    versions=(version_a, version_b), persistent=persistent,
                )
            ]  # fmt: skip
        out = []
        for leg in self.legs:
            key = f"{self.deal}-{'ab'[leg]}"
            if persistent:  # its one process would remember the first leg's cards: a deal per leg
                deal, deal_seed = key, derive_seed(seed, "ladder", self.first, self.second, self.number, leg)
            else:
                deal, deal_seed = self.deal, derive_seed(seed, "ladder", self.first, self.second, self.number)
            (bot_a, version_a), (bot_b, version_b) = seatings[leg]
            out.append(
                Scheduled(
                    key, 0, deal, leg, bot_a, bot_b, deal_seed, shares_deal=not persistent,
                    versions=(version_a, version_b), persistent=persistent,
                )
            )  # fmt: skip
        return out


@dataclass(frozen=True)
class Tables:
    """The ``number``-th deal of four versions at two tables: ``a1`` v ``b1`` at table 1, ``a2`` v ``b2`` at table 2.

    The four are versions of four different owners (:func:`next_deal` makes
    sure): nobody plays both seats of the deal, nor both tables.
    """

    a1: str
    b1: str
    a2: str
    b2: str
    number: int
    tables: tuple[int, ...] = (1, 2)
    """The tables to play (both, or the one a kill left unplayed)."""

    @property
    def deal(self) -> str:
        """The deal's id, shared by both tables."""
        return f"{self.a1}~{self.b1}~{self.a2}~{self.b2}~{self.number}"

    @property
    def labels(self) -> tuple[str, ...]:
        """The versions that play the deal: ``a1, b1, a2, b2``."""
        return (self.a1, self.b1, self.a2, self.b2)

    def seats(self, table: int) -> tuple[str, str]:
        """Who sits in seats A and B at ``table`` (1 or 2)."""
        return (self.a1, self.b1) if table == 1 else (self.a2, self.b2)

    def matches(self, seed: int, field: Mapping[str, Player] | None = None) -> list[Scheduled]:
        """The tables to play, as scheduled matches (key ``deal-1``, ``deal-2``; leg 0 and 1), on one deal."""
        field = field or {}
        deal_seed = derive_seed(seed, "ladder", self.a1, self.b1, self.a2, self.b2, self.number)
        out = []
        for table in self.tables:
            players = [field.get(label) for label in self.seats(table)]
            persistent = tuple(p.entrant.name for p in players if p is not None and p.entrant.persistent)
            (bot_a, version_a), (bot_b, version_b) = (
                (p.entrant.name, p.entrant.version_id) if p else (label, None)
                for p, label in zip(players, self.seats(table), strict=True)
            )
            out.append(
                Scheduled(
                    f"{self.deal}-{table}", 0, self.deal, table - 1, bot_a, bot_b, deal_seed, shares_deal=True,
                    versions=(version_a, version_b), persistent=persistent, last=table == self.tables[-1],
                )
            )  # fmt: skip
        return out


Deal = Pair | Tables
"""What the ladder plays at once in a slot: a duplicate pair, a single deal, or a deal at two tables."""


def parse_tables(deal: str) -> tuple[str, str, str, str, int] | None:
    """``(a1, b1, a2, b2, number)`` of a deal at two tables' id, or ``None`` for another kind of deal."""
    parts = deal.split("~")
    if len(parts) != 5 or not parts[4].isdigit():
        return None
    return parts[0], parts[1], parts[2], parts[3], int(parts[4])


def other_table(key: str) -> str | None:
    """The key of the other table of a deal at two tables, given one table's key; ``None`` for another match."""
    deal, _, table = key.rpartition("-")
    if table not in ("1", "2") or parse_tables(deal) is None:
        return None
    return f"{deal}-{'2' if table == '1' else '1'}"


@dataclass(frozen=True)
class InPlay:
    """A match being played: what was scheduled, where its log is being written, when it began (Unix time)."""

    scheduled: Scheduled
    log_path: Path | None
    started: float


@dataclass(frozen=True)
class Player:
    """A version in the ladder's field: the bot as the store knows it, and its spec.

    The spec is named by the version's label, so a pool keeps each version's
    processes apart (a new version never gets its predecessor's idle process).
    """

    entrant: Entrant
    spec: BotSpec
    owner: str = ""
    """Who owns it (a participant; each house bot its own): no deal at two tables has one owner twice. Empty:
    the version is its own owner."""


@dataclass(frozen=True)
class Policy:
    """How the ladder spends its matches."""

    placement_pairs: int = 4
    pair_budget: int = 12
    version_slots: int = 0
    """Most of the ladder's slots (pairs in play, or handed over to wait their turn) one version may hold at
    once; 0: its fair share, ``ceil(slots / versions in the field)``. A slow version then holds no more than
    its share, and the other pairs keep playing."""

    fair_slack_s: float = 1.0
    """At two tables: an owner whose use of the ladder (its bots' thinking, in seconds, see
    :attr:`Ladder.usage`) is more than this above the fourth least of the field waits while the others catch up
    (unless a slot would idle: see :attr:`heavy_slots`)."""
    heavy_slots: int = 0
    """At most this many slots may hold deals of an owner that is waiting so (0: a quarter of the slots, at
    least one): slow bots never hold the ladder."""
    rest_s: float = 0.0
    """After each deal (or pair) a slot rests this long before it takes the next: at most ``slots / rest_s``
    deals a second, the rest of the machine's CPU left to other work (0: the slots play on at once)."""

    def share(self, slots: int, versions: int) -> int:
        """The most slots one version may hold, of ``slots``, in a field of ``versions``."""
        return self.version_slots or max(1, math.ceil(slots / max(1, versions)))

    def heavy(self, slots: int) -> int:
        """The most of ``slots`` deals of owners over their share of the time may hold at once."""
        return self.heavy_slots or max(1, slots // 4)


@dataclass(frozen=True)
class RatingView:
    """A version's current rating and the half-width of its 95% interval."""

    elo: float = 0.0
    error95: float = math.inf


UNRATED = RatingView()
"""The view of a version not rated yet (one, not one made per version at each choice of a pair)."""

RECENT_MATCHES = 1_000
"""How many of the last matches recorded :meth:`PairBook.of_store` looks through for pairs and deals half-played (a
stop leaves at most those in play: a slot's)."""


def parse_deal(deal: str) -> tuple[str, str, int] | None:
    """``(first, second, number)`` of a ladder pair's id, or ``None`` for another kind of deal."""
    parts = deal.split("~")
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    return parts[0], parts[1], int(parts[2])


@dataclass
class PairBook:
    """What the choice of pairs needs to know of a ladder's history, kept up to date one match at a time.

    The ladder's history grows without end (a king-of-the-hill takes answers
    for months); its choice of pairs must not. The book holds, per two
    versions, how many duplicate pairs they have begun and the last pair's
    number, and the legs recorded of each pair not yet finished: its size
    follows the pairs met, not the matches played. Each match's key is
    :meth:`record`-ed once (the store's keys are unique).
    """

    met: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Duplicate pairs begun (at least one leg recorded), by the two versions' labels (sorted)."""
    last: dict[tuple[str, str], int] = field(default_factory=dict)
    """The highest pair number begun, by the two versions' labels (sorted)."""
    partial: dict[str, frozenset[int]] = field(default_factory=dict)
    """The legs recorded of each pair with one leg still to play, by the pair's id."""
    partial_tables: dict[str, frozenset[int]] = field(default_factory=dict)
    """The tables recorded of each deal at two tables with one table still to play, by the deal's id."""
    last_tables: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    """The highest number of a deal at two tables begun, by its four versions ``(a1, b1, a2, b2)``: with
    :attr:`stored_tables`, only the deals not finished in the store (the others are asked of it)."""
    seat_a: Counter[str] = field(default_factory=Counter)
    """Matches each version played in seat A at two tables ..."""
    seat_b: Counter[str] = field(default_factory=Counter)
    """... and in seat B (a new deal seats in A the one that sat there less, for its share of matches)."""
    stored_tables: Callable[[tuple[str, str, str, str]], int] | None = field(default=None, compare=False, repr=False)
    """How many deals four versions finished, asked of the store (by the table totals' primary key): a book
    that has it keeps no row per deal finished (:meth:`last_table`); the ladder gives it its store's."""
    _matrix: _MetMatrix | None = field(default=None, compare=False, repr=False)
    """``met`` as a matrix, made at the first choice of a pair and kept up to date by :meth:`record`."""
    _scores: _PairScores | None = field(default=None, compare=False, repr=False)
    """The pairs of the field ranked by what a match tells (:func:`next_pair`'s step 3), made again when the
    ratings change, and kept up to date by :meth:`record` in between."""

    def between(self, active: Sequence[str]) -> np.ndarray:
        """The pairs begun between every two of ``active``, as a matrix in their order (a copy)."""
        if self._matrix is None:
            self._matrix = _MetMatrix()
            for (a, b), count in self.met.items():
                self._matrix.add(a, b, count)
        return self._matrix.between(active)

    def scores(self, active: Sequence[str], ratings: Mapping[str, RatingView], budget: int) -> _PairScores:
        """The ranking of the pairs of ``active`` (sorted) for these ``ratings`` and ``budget`` (kept between calls:
        made again when the ratings or the budget change, or a version it does not hold plays)."""
        scores = self._scores
        if scores is None or not scores.holds(active, ratings, budget):
            names = sorted(set(active) | set(ratings))
            scores = self._scores = _PairScores(names, self.between(names), ratings, budget)
        return scores

    def last_table(self, quad: tuple[str, str, str, str]) -> int:
        """The highest number of a deal at two tables the four versions ``quad`` began (-1: none)."""
        last = self.last_tables.get(quad)
        if last is not None:
            return last
        return self.stored_tables(quad) - 1 if self.stored_tables is not None else -1

    @classmethod
    def of(cls, keys: Iterable[str]) -> PairBook:
        """The book of a history given by its matches' keys (as :meth:`Store.finished_keys` gives them)."""
        book = cls()
        for key in keys:
            book.record(key)
        return book

    @classmethod
    def of_store(cls, store: Store, tid: int) -> PairBook:
        """The book of the ladder of ``tid`` as its store keeps it, without reading its matches.

        Pairs begun come from the standings' running totals (``pair_totals``:
        a deal's rows say the two versions played it) of the versions not
        retired (a retired version never plays again: its rows stay on disk);
        deals at two tables, and each version's seats in them, from their
        seats per two versions (``table_seats``), the field's rows; the number
        of a finished deal of four versions is not held (:attr:`stored_tables`
        asks the store when they meet again); the last number of each two versions' pairs follows from their
        deals (a pair's number is the count of their pairs and single deals
        before it: a number is given once its pair is recorded, so they run
        without a gap). Half-played pairs and deals are those a stop left: among
        the last ``RECENT_MATCHES`` recorded, each checked by its other legs'
        keys. What stays per version pair is a few integers, nothing per match.

        Two things differ from :meth:`of` the matches' keys: a swapped pair of a
        persistent bot (a deal per leg) counts as two pairs begun, and its next
        number is that count (higher than the last, so never a key recorded);
        and a pair or deal half-played before the last ``RECENT_MATCHES``
        matches is not finished first (its versions left the field before it
        was: a server's retired versions do not come back).
        """
        current = [row.id for row in store.versions(tid, current=True)]
        labels = {row.id: row.label for row in store.versions(tid)}  # (after: a version entered between is in both)
        book = cls(stored_tables=_StoredTables(store, tid))  # (a ladder reading it in a thread gives its own store)
        window = cls.of(m.key for m in reversed(store.latest_matches(tid, RECENT_MATCHES)))
        book.partial = {
            pair: seen
            for pair, seen in window.partial.items()
            if not any(store.has_match(tid, f"{pair}-{'ab'[leg]}") for leg in (0, 1) if leg not in seen)
        }
        book.partial_tables = {
            deal: seen
            for deal, seen in window.partial_tables.items()
            if not any(store.has_match(tid, f"{deal}-{table}") for table in (1, 2) if table not in seen)
        }
        tables: Counter[tuple[str, str]] = Counter()  # deals at two tables each two versions sat at together
        seat_a, seat_b, together = store.repos.tables.seats(tid, current)
        for version, opponent, deals in together:
            a, b = labels[version], labels[opponent]
            tables[min(a, b), max(a, b)] += deals
        for version in current:
            book.seat_a[labels[version]] += seat_a.get(version, 0)
            book.seat_b[labels[version]] += seat_b.get(version, 0)
        for deal, seen in book.partial_tables.items():
            first_a, first_b, second_a, second_b, number = parse_tables(deal)  # type: ignore[misc]
            named = (first_a, first_b, second_a, second_b)
            book.last_tables[named] = max(book.last_table(named), number)
            for table in seen:
                a, b = (first_a, first_b) if table == 1 else (second_a, second_b)
                tables[min(a, b), max(a, b)] += 1
                book.seat_a[a] += 1
                book.seat_b[b] += 1
        for version, opponent, deals in store.repos.pairs.deals_among(tid, current):
            a, b = labels[version], labels[opponent]
            if a < b and deals:
                book.met[a, b] = deals
                pairs = deals - tables[a, b]  # its swapped pairs and single deals
                if pairs > 0:
                    book.last[a, b] = pairs - 1
        for pair in book.partial:
            first, second, number = parse_deal(pair)  # type: ignore[misc]
            book.last[first, second] = max(book.last.get((first, second), -1), number)
        return book

    def record(self, key: str) -> None:
        """Note the match ``key`` (a leg of a ladder pair, a single deal or a table; other matches are ignored).

        A table counts as a pair begun between its two versions (for placement, budgets and settling), and a
        single deal as a pair played whole.
        """
        pair_id, _, side = key.rpartition("-")  # the pair's id: its legs' deals differ with a persistent bot
        if side in ("1", "2"):
            self._record_table(pair_id, int(side))
            return
        parsed = parse_deal(pair_id)
        if parsed is None or side not in ("a", "b", "s"):
            return
        first, second, number = parsed
        if side == "s":
            self._met(first, second)
            self.last[(first, second)] = max(self.last.get((first, second), -1), number)
            return
        leg = "ab".index(side)
        seen = self.partial.pop(pair_id, None)
        if seen is None:  # the pair's first leg
            self._met(first, second)
            self.last[(first, second)] = max(self.last.get((first, second), -1), number)
            self.partial[pair_id] = frozenset((leg,))
        elif leg in seen:  # the same leg again (keys are unique in a store: not from one)
            self.partial[pair_id] = seen
        # else its other leg: the pair is finished

    def _met(self, a: str, b: str) -> None:
        versions = (min(a, b), max(a, b))
        self.met[versions] += 1
        if self._matrix is not None:
            self._matrix.add(*versions, 1)
        if self._scores is not None:
            self._scores.met_once(*versions)

    def _record_table(self, deal: str, table: int) -> None:
        parsed = parse_tables(deal)
        if parsed is None:
            return
        a1, b1, a2, b2, number = parsed
        seen = self.partial_tables.pop(deal, None)
        if seen is not None and table in seen:  # (not from a store: its keys are unique)
            self.partial_tables[deal] = seen
            return
        seat_a, seat_b = (a1, b1) if table == 1 else (a2, b2)
        self._met(seat_a, seat_b)
        self.seat_a[seat_a] += 1
        self.seat_b[seat_b] += 1
        quad = (a1, b1, a2, b2)
        if seen is None:  # the deal's first table: the other is still to play
            self.last_tables[quad] = max(self.last_tables.get(quad, -1), number)
            self.partial_tables[deal] = frozenset((table,))
        elif self.stored_tables is not None and self.last_tables.get(quad) == number:
            del self.last_tables[quad]  # finished: the store counts it (its match was recorded before this call)


class _StoredTables:
    """How many deals four versions (by label) finished, from a store's table totals (by their primary key)."""

    def __init__(self, store: Store, tid: int) -> None:
        self.store = store
        self.tid = tid
        self.ids: dict[str, int] = {}

    def __call__(self, quad: tuple[str, str, str, str]) -> int:
        if not all(label in self.ids for label in quad):  # a version entered since: read the labels again
            self.ids = {row.label: row.id for row in self.store.versions(self.tid)}
            if not all(label in self.ids for label in quad):
                return 0
        a1, b1, a2, b2 = (self.ids[label] for label in quad)
        return self.store.repos.tables.finished((a1, b1, a2, b2))


class _MetMatrix:
    """Pairs begun between every two versions, as a symmetric matrix by the order versions were first seen."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.met = np.zeros((0, 0), dtype=np.int64)

    def _place(self, name: str) -> int:
        place = self.index.get(name)
        if place is None:
            place = self.index[name] = len(self.index)
            if place >= len(self.met):  # grown by doubling: a version joins in O(1) on average
                bigger = np.zeros((2 * place + 8,) * 2, dtype=np.int64)
                bigger[: len(self.met), : len(self.met)] = self.met
                self.met = bigger
        return place

    def add(self, a: str, b: str, count: int) -> None:
        i, j = self._place(a), self._place(b)
        self.met[i, j] += count
        self.met[j, i] += count

    def between(self, names: Sequence[str]) -> np.ndarray:
        places = np.array([self._place(name) for name in names], dtype=np.int64)
        return self.met.take(places, axis=0).take(places, axis=1)  # twice as fast as np.ix_ on a 300-version field


class _PairScores:
    """Where a match tells the most (:func:`next_pair`'s step 3), kept between choices.

    The choice weighed every pair of the field in numpy at each call (45,000
    at 300 versions, two calls a deal: the server's busiest work on its event
    loop at 100,000 matches). What a pair's score depends on changes at two
    moments: the ratings (a new board: every pair's score is made again here)
    and the pair's own meetings (one pair at a time, as matches are
    recorded). So the open pairs are sorted once per board, best first, and a
    pair met since is set aside: its place in the order is stale, and it can
    only have fallen (a meeting more lowers its score and never reopens a
    settled pair), so it is weighed apart. A choice walks the order from the
    top to the first pair of two free versions and compares it with the few
    set aside: the pair the whole weighing chose, with ties broken the same
    way (score, then fewest meetings, then the field's order).
    """

    RESORT = 256
    """Pairs set aside before the order is made again without a new board (ratings that stay the same)."""
    HEAD = 1024
    """The best open pairs sorted at once: a choice rarely walks past them (sorting all 45,000 pairs of a
    300-version field took most of a new board's ranking); the rest are sorted if it does."""

    def __init__(self, names: list[str], met: np.ndarray, ratings: Mapping[str, RatingView], budget: int) -> None:
        self.names = names
        """The versions ranked (sorted): the field and the versions rated when the ranking was made."""
        self.index = {name: i for i, name in enumerate(names)}
        self.views = dict(ratings)
        self.budget = budget
        self.met = met
        """Pairs begun between every two of ``names`` (a copy of the book's, kept up to date)."""
        self.total = met.sum(axis=1)
        self.first, self.second = _pairs_of(len(names))
        views = [ratings.get(name, UNRATED) for name in names]
        elo = np.array([v.elo for v in views], dtype=np.float64)
        error = np.array([v.error95 for v in views], dtype=np.float64)
        gap = np.abs(elo[self.first] - elo[self.second])
        p = 1 / (1 + 10 ** (-gap / 400))
        self.weight = p * (1 - p)
        """How much the outcome of a pair is in doubt, by pair (in ``numpy.triu_indices`` order)."""
        self.apart = gap > error[self.first] + error[self.second]
        """Whether the pair's rating intervals no longer overlap, by pair."""
        self.counts = met[self.first, self.second]
        self._sort()

    def _sort(self) -> None:
        counts = self.counts
        open_ = (counts < self.budget) & ~((counts >= SETTLED_AFTER) & self.apart)
        places = np.flatnonzero(open_)
        score = self.weight[places] / (1 + counts[places])
        self.rest: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        """The open pairs and their scores, with which of them are sorted: those not sorted yet score lower than
        every sorted one."""
        if len(places) > self.HEAD:  # the head: every pair scoring at least the HEAD-th best (ties included)
            least = np.partition(score, len(score) - self.HEAD)[len(score) - self.HEAD]
            head = np.flatnonzero(score >= least)
            self.rest = (places, score, head)
            places, score = places[head], score[head]
        self.order = self._sorted(places, score)
        """The pairs open when sorted, best first: score, then fewest meetings, then the order of the pairs."""
        self.stale = np.zeros(len(counts), dtype=bool)
        self.moved: set[int] = set()
        """The pairs met since the sort (their place in :attr:`order` is stale)."""

    def _sorted(self, places: np.ndarray, score: np.ndarray) -> np.ndarray:
        return places[np.lexsort((places, self.counts[places], -score))]

    def _sort_rest(self) -> bool:
        """Sort the open pairs left out of :attr:`order` after it (they score lower); whether there were any."""
        if self.rest is None:
            return False
        places, score, head = self.rest
        self.rest = None
        rest = np.ones(len(places), dtype=bool)
        rest[head] = False
        self.order = np.concatenate((self.order, self._sorted(places[rest], score[rest])))  # (those met since: skipped)
        return True

    def holds(self, active: Sequence[str], ratings: Mapping[str, RatingView], budget: int) -> bool:
        """Whether the ranking serves a choice among ``active`` with ``ratings`` and ``budget``."""
        return budget == self.budget and self.index.keys() >= set(active) and ratings == self.views

    def met_once(self, a: str, b: str) -> None:
        """Versions ``a`` and ``b`` (sorted) began a pair."""
        i, j = self.index.get(a), self.index.get(b)
        if i is None or j is None:
            return
        self.met[i, j] += 1
        self.met[j, i] += 1
        self.total[i] += 1
        self.total[j] += 1
        k = _upper_place(i, j, len(self.names))
        self.counts[k] += 1
        if not self.stale[k]:
            self.stale[k] = True
            self.moved.add(k)
            if len(self.moved) > self.RESORT:
                self._sort()

    def played(self, places: np.ndarray, playing: np.ndarray) -> np.ndarray:
        """Pairs begun by each version at ``places`` with the versions ``playing`` (a mask of :attr:`names`)."""
        others = np.flatnonzero(~playing)
        if not others.size:
            every: np.ndarray = self.total[places]
            return every
        # (the rows of ``places`` at the columns of ``others`` only: not a copy of every column of those rows first)
        among: np.ndarray = self.total[places] - self.met[np.ix_(places, others)].sum(axis=1)
        return among

    def best(self, playing: np.ndarray, occupied: set[tuple[str, str]]) -> tuple[str, str] | None:
        """The open pair of two versions ``playing`` (a mask of :attr:`names`), not ``occupied``, ranked first."""
        names, first, second, counts = self.names, self.first, self.second, self.counts
        best: tuple[float, int, int] | None = None
        start, step = 0, 64
        while best is None and (start < len(self.order) or self._sort_rest()):  # the first clean pair of free versions
            chunk = self.order[start : start + step]
            clean = chunk[playing[first[chunk]] & playing[second[chunk]] & ~self.stale[chunk]]
            for k in clean.tolist():
                if (names[first[k]], names[second[k]]) not in occupied:
                    count = int(counts[k])
                    best = (-(float(self.weight[k]) / (1 + count)), count, k)
                    break
            start, step = start + len(chunk), step * 4
        for k in self.moved:  # against those met since the sort, at their own scores
            i, j, count = first[k], second[k], int(counts[k])
            if not (playing[i] and playing[j]) or count >= self.budget or (count >= SETTLED_AFTER and self.apart[k]):
                continue
            if (names[i], names[j]) in occupied:
                continue
            key = (-(float(self.weight[k]) / (1 + count)), count, k)
            if best is None or key < best:
                best = key
        return None if best is None else (names[first[best[2]]], names[second[best[2]]])


def next_pair(
    field_names: Sequence[str],
    book: PairBook,
    ratings: Mapping[str, RatingView],
    policy: Policy,
    *,
    busy: Iterable[Pair] = (),
    finish: bool = True,
) -> Pair | None:
    """The pair to play next among ``field_names``, or ``None`` when every pair is settled.

    ``book`` is what was played (see :class:`PairBook`). ``busy`` pairs are
    being played right now: they count as played, and the same two versions
    are not given a second pair at once. The work does not grow with the
    history: the field's pairs are ranked once per change of the ratings and
    kept in the book (:class:`_PairScores`), and a choice between two costs
    about the field's versions. ``finish``: whether a half-played pair is finished first (not at two tables: a
    pair's second leg would seat a bot in the other seat of a deal it played).
    """
    active = sorted(set(field_names))
    if len(active) < 2:
        return None
    in_field = set(active)
    busy_pairs = list(busy)
    busy_deals = {pair.deal for pair in busy_pairs}
    occupied = {(pair.first, pair.second) for pair in busy_pairs}
    extra: Counter[tuple[str, str]] = Counter()
    busy_last: dict[tuple[str, str], int] = {}
    for pair in busy_pairs:
        versions = (pair.first, pair.second)
        if pair.number > book.last.get(versions, -1):  # not begun in the book yet
            extra[versions] += 1
        busy_last[versions] = max(busy_last.get(versions, -1), pair.number)

    place = {name: i for i, name in enumerate(active)}

    # 1. A half-played pair (its other leg lost to a kill) is finished first.
    for deal, seen in sorted(book.partial.items()) if finish else ():
        first, second, number = parse_deal(deal)  # type: ignore[misc]
        if first in in_field and second in in_field and deal not in busy_deals and (first, second) not in occupied:
            return Pair(first, second, number, tuple(leg for leg in (0, 1) if leg not in seen))

    def fresh(a: str, b: str) -> Pair:
        versions = (min(a, b), max(a, b))
        return Pair(*versions, max(book.last.get(versions, -1), busy_last.get(versions, -1)) + 1)

    # The field's pairs as the book ranks them (kept between calls: a ladder of 300 versions has 45,000 pairs
    # for each pair it hands out, ranked again only when the ratings change).
    scores = book.scores(active, ratings, policy.pair_budget)
    places = np.array([scores.index[name] for name in active], dtype=np.int64)
    playing = np.zeros(len(scores.names), dtype=bool)
    playing[places] = True
    played = scores.played(places, playing)  # pairs begun by each of the field among the field, in play added
    for (a, b), count in extra.items():
        if a in place and b in place:
            played[place[a]] += count
            played[place[b]] += count

    # 2. Placement: a version with fewer than placement_pairs pairs meets a spread of the field.
    if (played < policy.placement_pairs).any():
        placed = _placement(active, book.between(active), extra, ratings, policy, occupied)
        if placed is not None:
            return fresh(*placed)

    # 3. Where a match tells the most: the open pair of the field ranked first.
    chosen = scores.best(playing, occupied)
    return None if chosen is None else fresh(*chosen)


def _placement(
    active: list[str],
    met_matrix: np.ndarray,
    extra: Mapping[tuple[str, str], int],
    ratings: Mapping[str, RatingView],
    policy: Policy,
    occupied: set[tuple[str, str]],
) -> tuple[str, str] | None:
    """The pair a version of ``active`` with fewer than ``placement_pairs`` pairs plays next, if any: an opponent
    spread over the field by rating, among those it met least (``met_matrix``: pairs begun, in ``active``'s order;
    ``extra``: the pairs in play not begun yet)."""
    place = {name: i for i, name in enumerate(active)}
    for (a, b), count in extra.items():
        if a in place and b in place:
            met_matrix[place[a], place[b]] += count
            met_matrix[place[b], place[a]] += count

    def met(a: str, b: str) -> int:
        return int(met_matrix[place[a], place[b]])

    def free(a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) not in occupied and met(a, b) < policy.pair_budget

    played = dict(zip(active, met_matrix.sum(axis=1).tolist(), strict=True))
    views = [ratings.get(name, UNRATED) for name in active]
    by_rating = [name for _, name in sorted((-view.elo, name) for view, name in zip(views, active, strict=True))]
    newcomers = sorted((n for n in active if played[n] < policy.placement_pairs), key=lambda n: (played[n], n))
    for name in newcomers:
        others = [n for n in by_rating if n != name]
        fewest = min(met(name, other) for other in others)
        for index in _spread(len(others)):
            opponent = others[index]
            if free(name, opponent) and met(name, opponent) == fewest:
                return name, opponent
    return None


def owners_of(field_owners: Mapping[str, str]) -> int:
    """How many different owners a field (version label to owner, ``""``: its own) has."""
    return len({owner or label for label, owner in field_owners.items()})


def over_share(field_owners: Mapping[str, str], usage: Mapping[str, float], policy: Policy) -> set[str]:
    """The owners of a field who have used more than their share of the ladder's time, and wait.

    An owner waits when its ``usage`` (seconds of its bots' thinking, see
    :attr:`Ladder.usage`) is more than ``policy.fair_slack_s`` above the
    usage of the owner that completes the least-used deal (the fourth least,
    or the second for single deals): the others play until they catch up.
    """
    owners = sorted({owner or label for label, owner in field_owners.items()}, key=lambda o: (usage.get(o, 0.0), o))
    need = 4 if len(owners) >= 4 else 2
    if len(owners) < need:
        return set()
    threshold = usage.get(owners[need - 1], 0.0) + policy.fair_slack_s
    return {owner for owner in owners if usage.get(owner, 0.0) > threshold}


def next_deal(
    field_owners: Mapping[str, str],
    book: PairBook,
    ratings: Mapping[str, RatingView],
    policy: Policy,
    *,
    free: Iterable[str] | None = None,
    busy: Iterable[Deal] = (),
    usage: Mapping[str, float] | None = None,
    heavy_room: bool = True,
) -> Deal | None:
    """The deal to play next at two tables, or ``None`` when none may be played now (pure).

    ``field_owners``: every version of the field, by label, with its owner
    (``""``: its own). ``free``: those that may take another slot now
    (default: all). A field of four owners or more plays :class:`Tables`: four
    versions of four different owners, none of them in another table of the
    deal, none in both seats. A smaller one plays single deals (a
    :class:`Pair` with ``single``), one match each, seats alternating.

    In order: a deal left with one table played (a kill) is finished first,
    with its own key and seed; then the first pair is :func:`next_pair`'s
    choice (placement of new versions first, then where a deal tells most),
    and the second :func:`next_pair`'s among the other owners' versions. Only
    owners that have not used more than their share of the time
    (:func:`over_share`, by ``usage``) are dealt in, unless no deal could be
    made of them and ``heavy_room`` says a slot may go to the others: then a
    deal of waiting owners alone if there are enough of them (a slow bot
    slows its table), else of anyone's versions.
    """
    usage = usage or {}
    owner = {label: owner or label for label, owner in field_owners.items()}
    free_labels = set(owner) if free is None else set(free) & set(owner)
    busy_deals = list(busy)
    taken_deals = {deal.deal for deal in busy_deals}
    single = owners_of(field_owners) < 4

    if not single:  # 1. a deal with one table played (a kill) is finished first
        for deal, seen in sorted(book.partial_tables.items()):
            a1, b1, a2, b2, number = parse_tables(deal)  # type: ignore[misc]
            if deal not in taken_deals and all(label in free_labels for label in (a1, b1, a2, b2)):
                return Tables(a1, b1, a2, b2, number, tuple(t for t in (1, 2) if t not in seen))

    busy_pairs = _busy_pairs(busy_deals, book)
    waiting = over_share(field_owners, usage, policy)
    chances = [{label for label in free_labels if owner[label] not in waiting}]
    if waiting and heavy_room:  # among the waiting first: a slow bot slows the table it sits at
        chances += [{label for label in free_labels if owner[label] in waiting}, free_labels]
    for chance in chances:
        labels = _one_per_owner(chance, owner)
        if single:
            pair = next_pair(labels, book, ratings, policy, busy=busy_pairs, finish=False)
            if pair is not None:
                return Pair(pair.first, pair.second, pair.number, (pair.number % 2,), single=True)
            continue
        dealt = _two_tables(labels, owner, book, ratings, policy, busy_pairs, busy_deals)
        if dealt is not None:
            return dealt
    return None


def _one_per_owner(labels: Iterable[str], owner: Mapping[str, str]) -> list[str]:
    """``labels`` with one version per owner (the first by label): a server's field has one anyway."""
    chosen: dict[str, str] = {}
    for label in sorted(labels):
        chosen.setdefault(owner[label], label)
    return sorted(chosen.values())


def _busy_pairs(busy: Sequence[Deal], book: PairBook) -> list[Pair]:
    """The pairs of versions in play (each table of a deal at two tables is one), as :func:`next_pair` takes them."""
    out = []
    for deal in busy:
        if isinstance(deal, Pair):
            out.append(deal)
            continue
        for table in deal.tables:
            x, y = sorted(deal.seats(table))
            out.append(Pair(x, y, book.last.get((x, y), -1) + 1 + len(out)))
    return out


def _least_met(labels: Sequence[str], book: PairBook, busy: Sequence[Pair]) -> Pair | None:
    """The pair of ``labels`` not in play that has met least (first in order), settled or not."""
    occupied = {(pair.first, pair.second) for pair in busy}
    active = sorted(labels)
    if len(active) < 2:
        return None
    met = book.between(active)
    best: tuple[int, str, str] | None = None
    for i, x in enumerate(active):
        for j in range(i + 1, len(active)):
            if (x, active[j]) not in occupied and (best is None or met[i, j] < best[0]):
                best = (int(met[i, j]), x, active[j])
    return None if best is None else Pair(best[1], best[2], 0)


def _two_tables(
    labels: Sequence[str],
    owner: Mapping[str, str],
    book: PairBook,
    ratings: Mapping[str, RatingView],
    policy: Policy,
    busy_pairs: list[Pair],
    busy: Sequence[Deal],
) -> Tables | None:
    first = next_pair(labels, book, ratings, policy, busy=busy_pairs, finish=False)
    if first is None:
        return None
    first_owners = {owner[first.first], owner[first.second]}
    rest = [label for label in labels if owner[label] not in first_owners]
    second = next_pair(rest, book, ratings, policy, busy=[*busy_pairs, first], finish=False)
    if second is None:  # every other pair settled: the table the deal needs goes to the pair that met least
        second = _least_met(rest, book, [*busy_pairs, first])
    if second is None:
        return None
    lean = Counter[str]()  # matches in seat A less those in seat B, those in play counted
    for deal in busy:
        if isinstance(deal, Tables):
            for table in deal.tables:
                lean[deal.seats(table)[0]] += 1
                lean[deal.seats(table)[1]] -= 1

    def seated(x: str, y: str) -> tuple[str, str]:
        """Seat A to the one that sat there less, for its share of matches (ties: in the pair's order)."""
        lean_x = book.seat_a[x] - book.seat_b[x] + lean[x]
        lean_y = book.seat_a[y] - book.seat_b[y] + lean[y]
        return (x, y) if lean_x <= lean_y else (y, x)

    a1, b1 = seated(first.first, first.second)
    a2, b2 = seated(second.first, second.second)
    quad = (a1, b1, a2, b2)
    number = book.last_table(quad) + 1
    for deal in busy:
        if isinstance(deal, Tables) and deal.labels == quad:
            number = max(number, deal.number + 1)
    return Tables(a1, b1, a2, b2, number)


@functools.lru_cache(maxsize=4)
def _pairs_of(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.triu_indices(count, 1)``, made once per size (a ranking is made again at each new board); read-only."""
    first, second = np.triu_indices(count, 1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def _upper_place(i: int, j: int, n: int) -> int:
    """Where pair ``(i, j)``, ``i < j``, comes in ``numpy.triu_indices(n, 1)``'s order."""
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


def _spread(count: int) -> list[int]:
    """Indices ``0..count-1`` in an order that spreads over the range: middle, ends, then between."""
    if count <= 0:
        return []
    order: list[int] = []
    seen: set[int] = set()
    for position in [0.5, 0.0, 1.0] + [k / 8 for k in (2, 6, 1, 3, 5, 7)]:
        index = min(count - 1, round(position * (count - 1)))
        if index not in seen:
            seen.add(index)
            order.append(index)
    order += [i for i in range(count) if i not in seen]
    return order


@dataclass
class LadderState:
    """What the ladder knows while it runs: the book of its history and the pairs in play."""

    book: PairBook = field(default_factory=PairBook)
    busy: set[Deal] = field(default_factory=set)
    played: int = 0


class Ladder:
    """Plays :func:`next_deal` (``scheme`` ``"tables"``) or :func:`next_pair` (``"swapped"``) over and over,
    ``slots`` deals at once, until cancelled.

    ``field`` gives the versions that may play now (label to player); ``ratings``
    their current ratings; ``recorded`` is called with each match once it is
    in the store. Matches are played from ``pool`` here, or by ``remote``
    (a cluster, a worker process: then ``pool`` is told what a local pool
    would be, if anything). ``pause`` and ``resume`` stop and restart the taking of new
    pairs (pairs in play finish). :meth:`wake` says the field changed.
    """

    def __init__(
        self,
        store: Store,
        tournament_id: int,
        game: Game,
        limits: Limits,
        *,
        seed: int,
        policy: Policy,
        field: Callable[[], Mapping[str, Player]],
        ratings: Callable[[], Mapping[str, RatingView]],
        recorded: Callable[[PlayedMatch], None] = lambda _match: None,
        log_dir: Path | None = None,
        slots: int = 1,
        remote: RemotePlay | None = None,
        book: PairBook | None = None,
        scheme: str = SWAPPED,
        say: Callable[[str], None] = lambda _text: None,
    ) -> None:
        self.store = store
        self.tid = tournament_id
        self.game = game
        self.limits = limits
        self.seed = seed
        self.policy = policy
        self.field = field
        self.ratings = ratings
        self.recorded = recorded
        self.log_dir = log_dir
        self.slots = max(1, slots)
        self.remote = remote
        if scheme not in SCHEMES:
            raise ValueError(f"a ladder's scheme is one of {', '.join(SCHEMES)}, not {scheme!r}")
        self.scheme = scheme
        self.say = say
        self.usage: dict[str, float] = {}
        """Each owner's use of the ladder: seconds its bots spent thinking (its share of each match's wall time
        beyond both seats' thinking added), halved every ``USAGE_HALF_LIFE_S``. At two tables, deals go to the
        owners that used least (:func:`over_share`)."""
        self._usage_at = time.monotonic()
        self.single: bool | None = None
        """At two tables: whether the field is too small (fewer than four owners) and plays single deals;
        ``None`` before the first choice."""
        self.state = LadderState()
        self.use_book(book if book is not None else PairBook.of_store(store, tournament_id))
        self.paused = False
        self.game_errors = 0
        """Matches the game's own code ended (not recorded); at :data:`MAX_GAME_ERRORS` the ladder pauses."""
        self._changed = trio.Event()
        self._pool: Pool | None = None
        self._playing: dict[Deal, Mapping[str, Player]] = {}
        """The deals in play, with the field they were taken from."""
        self._scopes: dict[Deal, trio.CancelScope] = {}
        """What ends each deal in play at once (:meth:`abort`)."""
        self._aborted: dict[Deal, str] = {}
        """Why each pair aborted and not yet noted was aborted."""
        self._owners: dict[str, tuple[str, str]] = {}
        """The owners of seats A and B of each match in play, by key."""
        self.in_play: dict[str, InPlay] = {}
        """The matches being played now, by key (the server's "now playing" and live pages)."""
        self._idle_said: frozenset[str] = frozenset()
        """The field the ladder last said it was idle with (:meth:`_note_idle`): said once a field."""

    def wake(self) -> None:
        """The field, the ratings or the pause switch changed: look for a pair again.

        A version in play that has left the field (disqualified, retired) is dropped at once: its processes
        stop, and its matches not yet begun are not played.
        """
        self._changed.set()
        self._changed = trio.Event()
        if self._pool is not None:
            for pair, field in self._playing.items():
                for label in self._departed(pair):
                    self._pool.drop(field[label].spec.name)

    def abort(self, labels: Iterable[str] | None, reason: str) -> int:
        """End now the pairs in play of the versions ``labels`` (``None``: every pair); how many.

        Their legs not yet finished are not recorded (nothing counts for or
        against either version, the opponent included): the competition's
        changes say which pair ended and ``reason``. A leg that finished
        before is recorded as played.
        """
        chosen = None if labels is None else set(labels)
        ended = 0
        for pair, scope in self._scopes.items():
            if chosen is None or set(pair.labels) & chosen:
                self._aborted.setdefault(pair, reason)
                scope.cancel()
                ended += 1
        return ended

    def pause(self) -> None:
        """Take no new pairs (the pairs in play finish)."""
        self.paused = True
        self.wake()

    def resume(self) -> None:
        """Take new pairs again."""
        self.paused = False
        self.wake()

    def use_book(self, book: PairBook) -> None:
        """Play from ``book`` (read by the caller, in a thread, before :meth:`run`), asking this ladder's store for
        the deals at two tables it does not hold."""
        book.stored_tables = _StoredTables(self.store, self.tid)
        self.state.book = book

    async def run(self, pool: Pool) -> None:
        """Play until cancelled."""
        self._pool = pool
        async with trio.open_nursery() as nursery:
            for _ in range(self.slots):
                nursery.start_soon(self._slot, pool)

    def _take(self) -> tuple[Deal, Mapping[str, Player]] | None:
        if self.paused:
            return None
        specs = self.field()
        held = Counter(label for deal in self.state.busy for label in deal.labels)
        if self.scheme != TABLES:
            share = self.policy.share(self.slots, len(specs))
            free = [label for label in specs if self._may_take(specs[label], held[label], share)]
            pair = next_pair(free, self.state.book, self.ratings(), self.policy, busy=self.state.busy)  # type: ignore[arg-type]
            if pair is not None:
                self.state.busy.add(pair)
            return None if pair is None else (pair, specs)
        owners = {label: player.owner for label, player in specs.items()}
        usage = self.usage_in_play()
        waiting = over_share(owners, usage, self.policy)
        heavy = sum(any((owners[x] or x) in waiting for x in d.labels if x in owners) for d in self.state.busy)
        self._note_scheme(owners)
        # A deal seats four versions: the slots' seats are shared among the versions that are not waiting (those
        # waiting for the others to catch up leave their share; with four left, each may be in every deal).
        playing = sum((owners[label] or label) not in waiting for label in specs)
        share = self.policy.share(4 * self.slots, max(4, playing))
        free = [label for label in specs if self._may_take(specs[label], held[label], share)]
        deal = next_deal(
            owners, self.state.book, self.ratings(), self.policy, free=free, busy=self.state.busy, usage=usage,
            heavy_room=heavy < self.policy.heavy(self.slots),
        )  # fmt: skip
        if deal is None:
            return None
        self.state.busy.add(deal)
        return deal, specs

    @staticmethod
    def _may_take(player: Player, held: int, share: int) -> bool:
        """Whether a version that holds ``held`` slots may take another (a persistent one holds one at most)."""
        return not (player.entrant.persistent and held) and held < share

    def _note_scheme(self, owners: Mapping[str, str]) -> None:
        """Say (in the competition's changes) when the field becomes too small for two tables, or big enough."""
        if not owners:
            return
        count = owners_of(owners)
        single = count < 4
        if single != self.single:
            if single:
                line = f"single deals: {count} participant(s) in the field, fewer than the four two tables need"
            else:
                line = f"duplicate at two tables: {count} participants in the field"
            if self.single is not None or single:
                self.store.log_change(self.tid, "scheme", line)
                self.say(line)
            self.single = single

    def usage_now(self) -> dict[str, float]:
        """:attr:`usage` as of now (decayed since it was last brought up to date)."""
        now = time.monotonic()
        factor = 0.5 ** ((now - self._usage_at) / USAGE_HALF_LIFE_S)
        self._usage_at = now
        if factor < 1.0:
            self.usage = {owner: used * factor for owner, used in self.usage.items() if used * factor > 1e-6}
        return self.usage

    def usage_in_play(self) -> dict[str, float]:
        """:meth:`usage_now` with the matches in play counted so far (half their time yet to each seat's owner): a
        slow match holds its owners back while it is played, not only once it ends."""
        usage = dict(self.usage_now())
        now = time.time()
        for key, playing in self.in_play.items():
            for owner in self._owners.get(key, ()):
                usage[owner] = usage.get(owner, 0.0) + max(0.0, now - playing.started) / 2
        return usage

    def charge(self, match: PlayedMatch, owners: tuple[str, str]) -> None:
        """Count ``match``'s time against the owners of its seats A and B: each seat's thinking, and half of the
        rest of the match's wall time (starting, the referee)."""
        usage = self.usage_now()
        think = match.think_s
        rest = max(0.0, match.duration_s - sum(think)) / 2
        for owner, seconds in zip(owners, think, strict=True):
            usage[owner] = usage.get(owner, 0.0) + seconds + rest

    async def _slot(self, pool: Pool) -> None:
        while True:
            # (A step of the loop apart from the last match's: its recording and the choice of the next pair were
            # one, up to 90 ms at a million matches, that every page asked for meanwhile waited on.)
            await trio.lowlevel.checkpoint()
            taken = self._take()
            if taken is None:
                self._note_idle()
                await self._changed.wait()
                continue
            pair, field = taken
            specs = {field[label].entrant.name: field[label].spec for label in pair.labels}
            scheduled = pair.matches(self.seed, field)
            self._playing[pair] = field
            try:
                with trio.CancelScope() as self._scopes[pair]:
                    await self._play_pair(pair, scheduled, specs, pool)
                reason = self._aborted.pop(pair, None)
                if reason is not None:
                    self.store.log_change(self.tid, "aborted", f"pair {pair.deal} ended unplayed: {reason}")
            finally:
                self.state.busy.discard(pair)
                del self._playing[pair]
                self._scopes.pop(pair, None)
                self._aborted.pop(pair, None)
                for match in scheduled:  # no later match plays these deals: processes that played them may forget
                    pool.forget(match.seed)
                for label in self._departed(pair):  # its processes released since the drop would idle
                    pool.drop(field[label].spec.name)
            self.wake()  # the other slots may now take the pair's versions again
            if self.policy.rest_s:
                await trio.sleep(self.policy.rest_s)

    def _note_idle(self) -> None:
        """Say when the ladder stops with two versions or more to play and nothing in play (every pair is
        settled), once a field. The server's output said nothing: a ladder that settled its one pair looked, in
        a test's failure, like a server stuck under a flood of connections."""
        if self.paused or self.state.busy:
            return
        field = frozenset(self.field())
        if len(field) < 2 or field == self._idle_said:
            return
        self._idle_said = field
        self.say(
            f"ladder: idle, every pair of the {len(field)} versions playing is settled (ratings apart, or"
            " pair_budget played); it plays again when the field changes"
        )

    async def _play_pair(
        self, pair: Deal, scheduled: list[Scheduled], specs: Mapping[str, BotSpec], pool: Pool
    ) -> None:
        # One leg after the other, always: a persistent bot has one process, and two processes of a bot,
        # one in each leg of a deal at once, could tell each other the cards through anything they share.
        # (At two tables nobody plays both: one table after the other keeps a slot a match, as a pair does.)
        field = self._playing[pair]
        owner = {field[label].entrant.name: field[label].owner or label for label in pair.labels}
        for match in scheduled:
            if self._departed(pair):
                break
            await self._play(match, specs, pool, (owner[match.bot_a], owner[match.bot_b]))

    def _departed(self, pair: Deal) -> list[str]:
        """The versions of ``pair`` that have left the field (retired, disqualified).

        None while the field is empty: that is a pause, and persistent bots keep their state through it.
        """
        now = self.field()
        return [label for label in pair.labels if now and label not in now]

    async def _play(
        self, scheduled: Scheduled, specs: Mapping[str, BotSpec], pool: Pool, owners: tuple[str, str]
    ) -> None:
        log_path = self.log_dir / f"{scheduled.key}.jsonl.gz" if self.log_dir else None
        self.in_play[scheduled.key] = InPlay(scheduled, log_path, time.time())
        self._owners[scheduled.key] = owners
        try:
            await self._play_logged(scheduled, specs, pool, log_path, owners)
        finally:
            self.in_play.pop(scheduled.key, None)
            self._owners.pop(scheduled.key, None)

    async def _play_logged(
        self,
        scheduled: Scheduled,
        specs: Mapping[str, BotSpec],
        pool: Pool,
        log_path: Path | None,
        owners: tuple[str, str],
    ) -> None:
        if self.remote is not None:
            try:
                match = await self.remote(scheduled, specs, log_path)
            except MatchLost:
                return  # not recorded: the pair (or its missing leg) is taken again
        else:
            assert isinstance(pool, BotPool), "a ladder without remote plays from a BotPool"
            match = await play_scheduled(
                self.game, specs, self.limits, scheduled, pool, log_path=log_path, tournament_id=self.tid
            )
        self.charge(match, owners)
        if match.game_error:  # the game's own code failed: nobody's result; too many, and the ladder pauses
            self.game_errors += 1
            log = f"; log: {match.log_path}" if match.log_path else ""
            self.store.log_change(self.tid, "game error", f"match {match.key} not recorded: {match.game_error}{log}")
            if self.game_errors >= MAX_GAME_ERRORS and not self.paused:
                self.paused = True
                self.store.log_change(
                    self.tid, "paused", f"{self.game_errors} game errors: no new pair starts (fix the game; resume)"
                )
            return
        if self.store.record_match(self.tid, match):
            self.state.book.record(match.key)
            self.state.played += 1
            self.recorded(match)
