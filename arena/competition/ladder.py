"""A rolling ladder: matches played continuously between a field that changes while it runs.

Used by the competition server (:mod:`arena.server`), whose participants
submit new versions at any time. The ladder always plays **duplicate pairs**
(one deal, both seatings, in two processes of each bot, so no process ever
sees a deal twice) and records each match in the same store as a tournament,
so ``arena results`` reads a ladder's database too. **The second leg starts
when the first has ended**: no two processes of a bot are in one deal at
once, so nothing they share can carry the cards from one leg to the other
while it is played. A *persistent* bot (``reuse = "persistent"``: one
process keeps its state from match to match) plays each leg on a deal of its
own (its process would remember the first leg's cards), as a tournament
plays them.

Which pair next (:func:`next_pair`, pure):

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
so the deals do not depend on timing or on the order versions arrived. In the
store, a match names its bots as a tournament does (the bot's name in each
seat, with the version ids beside), so ``arena results`` shows the current
field of a ladder as it does a tournament's.
"""

from __future__ import annotations

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

from .._errors import ArenaError
from ..bots.spec import BotSpec
from ..games import Game, derive_seed
from ..supervisor._pool import BotPool
from .playing import MAX_GAME_ERRORS, play_scheduled
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


class MatchLost(ArenaError):
    """A match was lost with the process playing it: nothing of it is recorded, and it is played again."""


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

    @property
    def deal(self) -> str:
        """The deal's id, shared by both legs."""
        return f"{self.first}~{self.second}~{self.number}"

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


@dataclass(frozen=True)
class Policy:
    """How the ladder spends its matches."""

    placement_pairs: int = 4
    pair_budget: int = 12
    version_slots: int = 0
    """Most of the ladder's slots (pairs in play, or handed over to wait their turn) one version may hold at
    once; 0: its fair share, ``ceil(slots / versions in the field)``. A slow version then holds no more than
    its share, and the other pairs keep playing."""

    def share(self, slots: int, versions: int) -> int:
        """The most slots one version may hold, of ``slots``, in a field of ``versions``."""
        return self.version_slots or max(1, math.ceil(slots / max(1, versions)))


@dataclass(frozen=True)
class RatingView:
    """A version's current rating and the half-width of its 95% interval."""

    elo: float = 0.0
    error95: float = math.inf


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
    _matrix: _MetMatrix | None = field(default=None, compare=False, repr=False)
    """``met`` as a matrix, made at the first choice of a pair and kept up to date by :meth:`record`."""

    def between(self, active: Sequence[str]) -> np.ndarray:
        """The pairs begun between every two of ``active``, as a matrix in their order (a copy)."""
        if self._matrix is None:
            self._matrix = _MetMatrix()
            for (a, b), count in self.met.items():
                self._matrix.add(a, b, count)
        return self._matrix.between(active)

    @classmethod
    def of(cls, keys: Iterable[str]) -> PairBook:
        """The book of a history given by its matches' keys (as :meth:`Store.finished_keys` gives them)."""
        book = cls()
        for key in keys:
            book.record(key)
        return book

    def record(self, key: str) -> None:
        """Note the match ``key`` (a leg of a ladder pair; other matches are ignored)."""
        pair_id, _, side = key.rpartition("-")  # the pair's id: its legs' deals differ with a persistent bot
        parsed = parse_deal(pair_id)
        if parsed is None or side not in ("a", "b"):
            return
        first, second, number = parsed
        leg = "ab".index(side)
        seen = self.partial.pop(pair_id, None)
        if seen is None:  # the pair's first leg
            self.met[(first, second)] += 1
            if self._matrix is not None:
                self._matrix.add(first, second, 1)
            self.last[(first, second)] = max(self.last.get((first, second), -1), number)
            self.partial[pair_id] = frozenset((leg,))
        elif leg in seen:  # the same leg again (keys are unique in a store: not from one)
            self.partial[pair_id] = seen
        # else its other leg: the pair is finished


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
        return self.met[np.ix_(places, places)]


def next_pair(
    field_names: Sequence[str],
    book: PairBook,
    ratings: Mapping[str, RatingView],
    policy: Policy,
    *,
    busy: Iterable[Pair] = (),
) -> Pair | None:
    """The pair to play next among ``field_names``, or ``None`` when every pair is settled.

    ``book`` is what was played (see :class:`PairBook`). ``busy`` pairs are
    being played right now: they count as played, and the same two versions
    are not given a second pair at once. The work grows with the field's
    pairs, not with the history.
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

    # Pairs begun between every two versions of the field (kept in the book between calls: a ladder of 300
    # versions weighs 45,000 pairs for each pair it hands out), those in play added.
    place = {name: i for i, name in enumerate(active)}
    met_matrix = book.between(active)
    for (a, b), count in extra.items():
        if a in place and b in place:
            met_matrix[place[a], place[b]] += count
            met_matrix[place[b], place[a]] += count

    def met(a: str, b: str) -> int:
        return int(met_matrix[place[a], place[b]])

    # 1. A half-played pair (its other leg lost to a kill) is finished first.
    for deal, seen in sorted(book.partial.items()):
        first, second, number = parse_deal(deal)  # type: ignore[misc]
        if first in in_field and second in in_field and deal not in busy_deals and (first, second) not in occupied:
            return Pair(first, second, number, tuple(leg for leg in (0, 1) if leg not in seen))

    def fresh(a: str, b: str) -> Pair:
        versions = (min(a, b), max(a, b))
        return Pair(*versions, max(book.last.get(versions, -1), busy_last.get(versions, -1)) + 1)

    def free(a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) not in occupied and met(a, b) < policy.pair_budget

    # 2. Placement: a version with fewer than placement_pairs pairs meets a spread of the field.
    played = dict(zip(active, met_matrix.sum(axis=1).tolist(), strict=True))
    by_rating = sorted(active, key=lambda n: (-ratings.get(n, RatingView()).elo, n))
    newcomers = sorted((n for n in active if played[n] < policy.placement_pairs), key=lambda n: (played[n], n))
    for name in newcomers:
        others = [n for n in by_rating if n != name]
        fewest = min(met(name, other) for other in others)
        for index in _spread(len(others)):
            opponent = others[index]
            if free(name, opponent) and met(name, opponent) == fewest:
                return fresh(name, opponent)

    # 3. Where a match tells the most: every pair of the field at once.
    first_of, second_of = np.triu_indices(len(active), 1)
    counts = met_matrix[first_of, second_of]
    views = [ratings.get(name, RatingView()) for name in active]
    elo = np.array([v.elo for v in views], dtype=np.float64)
    error = np.array([v.error95 for v in views], dtype=np.float64)
    gap = np.abs(elo[first_of] - elo[second_of])
    open_ = counts < policy.pair_budget
    open_ &= ~((counts >= SETTLED_AFTER) & (gap > error[first_of] + error[second_of]))  # settled: no overlap
    for a, b in occupied:
        if a in place and b in place:
            i, j = sorted((place[a], place[b]))
            open_[_upper_place(i, j, len(active))] = False
    if not open_.any():
        return None
    p = 1 / (1 + 10 ** (-gap / 400))
    score = np.where(open_, p * (1 - p) / (1 + counts), -1.0)
    top = score == score.max()
    fewest_count = counts[top].min()
    chosen = int(np.flatnonzero(top & (counts == fewest_count))[0])  # the first in the field's order, as before
    return fresh(active[int(first_of[chosen])], active[int(second_of[chosen])])


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
    busy: set[Pair] = field(default_factory=set)
    played: int = 0


class Ladder:
    """Plays :func:`next_pair` over and over, ``slots`` pairs at once, until cancelled.

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
        self.state = LadderState(book=book if book is not None else PairBook.of(store.match_keys(tournament_id)))
        self.paused = False
        self.game_errors = 0
        """Matches the game's own code ended (not recorded); at :data:`MAX_GAME_ERRORS` the ladder pauses."""
        self._changed = trio.Event()
        self._pool: Pool | None = None
        self._playing: dict[Pair, Mapping[str, Player]] = {}
        """The pairs in play, with the field they were taken from."""
        self._scopes: dict[Pair, trio.CancelScope] = {}
        """What ends each pair in play at once (:meth:`abort`)."""
        self._aborted: dict[Pair, str] = {}
        """Why each pair aborted and not yet noted was aborted."""
        self.in_play: dict[str, InPlay] = {}
        """The matches being played now, by key (the server's "now playing" and live pages)."""

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
            if chosen is None or {pair.first, pair.second} & chosen:
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

    async def run(self, pool: Pool) -> None:
        """Play until cancelled."""
        self._pool = pool
        async with trio.open_nursery() as nursery:
            for _ in range(self.slots):
                nursery.start_soon(self._slot, pool)

    def _take(self) -> tuple[Pair, Mapping[str, Player]] | None:
        if self.paused:
            return None
        specs = self.field()
        held = Counter(label for pair in self.state.busy for label in (pair.first, pair.second))
        share = self.policy.share(self.slots, len(specs))
        free = [
            label
            for label, player in specs.items()
            if not (player.entrant.persistent and held[label]) and held[label] < share
        ]
        pair = next_pair(free, self.state.book, self.ratings(), self.policy, busy=self.state.busy)
        if pair is None:
            return None
        self.state.busy.add(pair)
        return pair, specs

    async def _slot(self, pool: Pool) -> None:
        while True:
            taken = self._take()
            if taken is None:
                await self._changed.wait()
                continue
            pair, field = taken
            specs = {field[label].entrant.name: field[label].spec for label in (pair.first, pair.second)}
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

    async def _play_pair(
        self, pair: Pair, scheduled: list[Scheduled], specs: Mapping[str, BotSpec], pool: Pool
    ) -> None:
        # One leg after the other, always: a persistent bot has one process, and two processes of a bot,
        # one in each leg of a deal at once, could tell each other the cards through anything they share.
        for match in scheduled:
            if self._departed(pair):
                break
            await self._play(match, specs, pool)

    def _departed(self, pair: Pair) -> list[str]:
        """The versions of ``pair`` that have left the field (retired, disqualified).

        None while the field is empty: that is a pause, and persistent bots keep their state through it.
        """
        now = self.field()
        return [label for label in (pair.first, pair.second) if now and label not in now]

    async def _play(self, scheduled: Scheduled, specs: Mapping[str, BotSpec], pool: Pool) -> None:
        log_path = self.log_dir / f"{scheduled.key}.jsonl.gz" if self.log_dir else None
        self.in_play[scheduled.key] = InPlay(scheduled, log_path, time.time())
        try:
            await self._play_logged(scheduled, specs, pool, log_path)
        finally:
            self.in_play.pop(scheduled.key, None)

    async def _play_logged(
        self, scheduled: Scheduled, specs: Mapping[str, BotSpec], pool: Pool, log_path: Path | None
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
