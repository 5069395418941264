"""A rolling ladder: matches played continuously between a field that changes while it runs.

Used by the competition server (:mod:`arena.server`), whose participants
submit new versions at any time. The ladder always plays **duplicate pairs**
(one deal, both seatings, the two legs at once in two processes, so no
process ever sees a deal twice) and records each match in the same store as
a tournament, so ``arena results`` reads a ladder's database too.

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

A pair's deals are ``derive_seed(seed, "ladder", a, b, n)`` for the ``n``-th
pair between versions ``a`` and ``b`` (names sorted), so the deals do not
depend on timing or on the order versions arrived.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocol import Limits

from ..bots.spec import BotSpec
from ..games import Game, derive_seed
from ..supervisor._pool import BotPool
from .runner import play_scheduled
from .schedule import Scheduled
from .store import PlayedMatch, Store

RemotePlay = Callable[[Scheduled, Mapping[str, BotSpec], Path | None], Awaitable[PlayedMatch]]
"""Plays a scheduled match elsewhere (a cluster) given the field's specs and the log's path."""
SETTLED_AFTER = 3
"""Pairs two versions must have played before non-overlapping intervals count as settled."""


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

    def matches(self, seed: int) -> list[Scheduled]:
        """The legs to play, as scheduled matches (leg 0: ``first`` in seat A)."""
        deal_seed = derive_seed(seed, "ladder", self.first, self.second, self.number)
        seatings = ((self.first, self.second), (self.second, self.first))
        return [
            Scheduled(f"{self.deal}-{'ab'[leg]}", 0, self.deal, leg, *seatings[leg], deal_seed) for leg in self.legs
        ]


@dataclass(frozen=True)
class Policy:
    """How the ladder spends its matches."""

    placement_pairs: int = 4
    pair_budget: int = 12


@dataclass(frozen=True)
class RatingView:
    """A version's current rating and the half-width of its 95% interval."""

    elo: float = 0.0
    error95: float = math.inf


def parse_deal(deal: str) -> tuple[str, str, int] | None:
    """``(first, second, number)`` of a ladder deal id, or ``None`` for another kind of deal."""
    parts = deal.split("~")
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    return parts[0], parts[1], int(parts[2])


def next_pair(
    field_names: Sequence[str],
    matches: Iterable[PlayedMatch],
    ratings: Mapping[str, RatingView],
    policy: Policy,
    *,
    busy: Iterable[Pair] = (),
) -> Pair | None:
    """The pair to play next among ``field_names``, or ``None`` when every pair is settled.

    ``busy`` pairs are being played right now: they count as played, and the
    same two versions are not given a second pair at once.
    """
    active = sorted(set(field_names))
    if len(active) < 2:
        return None
    in_field = set(active)
    legs: dict[str, set[int]] = {}
    met: Counter[tuple[str, str]] = Counter()
    for match in matches:
        parsed = parse_deal(match.deal)
        if parsed is None or parsed[0] not in in_field or parsed[1] not in in_field:
            continue
        legs.setdefault(match.deal, set()).add(match.leg)
    busy_pairs = list(busy)
    busy_deals = {pair.deal for pair in busy_pairs}
    occupied = {(pair.first, pair.second) for pair in busy_pairs}
    numbers: dict[tuple[str, str], int] = {}
    for deal in legs:
        first, second, number = parse_deal(deal)  # type: ignore[misc]
        met[(first, second)] += 1
        numbers[(first, second)] = max(numbers.get((first, second), -1), number)
    for pair in busy_pairs:
        if pair.deal not in legs:
            met[(pair.first, pair.second)] += 1
        numbers[(pair.first, pair.second)] = max(numbers.get((pair.first, pair.second), -1), pair.number)

    # 1. A half-played pair (its other leg lost to a kill) is finished first.
    for deal, seen in sorted(legs.items()):
        if len(seen) < 2 and deal not in busy_deals:
            first, second, number = parse_deal(deal)  # type: ignore[misc]
            if (first, second) not in occupied:
                return Pair(first, second, number, tuple(leg for leg in (0, 1) if leg not in seen))

    def fresh(a: str, b: str) -> Pair:
        first, second = sorted((a, b))
        return Pair(first, second, numbers.get((first, second), -1) + 1)

    def free(a: str, b: str) -> bool:
        key = (min(a, b), max(a, b))
        return key not in occupied and met[key] < policy.pair_budget

    # 2. Placement: a version with fewer than placement_pairs pairs meets a spread of the field.
    played = Counter[str]()
    for (a, b), count in met.items():
        played[a] += count
        played[b] += count
    by_rating = sorted(active, key=lambda n: (-ratings.get(n, RatingView()).elo, n))
    newcomers = sorted((n for n in active if played[n] < policy.placement_pairs), key=lambda n: (played[n], n))
    for name in newcomers:
        others = [n for n in by_rating if n != name]
        for index in _spread(len(others)):
            opponent = others[index]
            if free(name, opponent) and met[(min(name, opponent), max(name, opponent))] == min(
                met[(min(name, o), max(name, o))] for o in others
            ):
                return fresh(name, opponent)

    # 3. Where a match tells the most.
    best: tuple[float, int, str, str] | None = None
    for i, a in enumerate(active):
        for b in active[i + 1 :]:
            if not free(a, b):
                continue
            count = met[(a, b)]
            ra, rb = ratings.get(a, RatingView()), ratings.get(b, RatingView())
            gap = abs(ra.elo - rb.elo)
            if count >= SETTLED_AFTER and gap > ra.error95 + rb.error95:
                continue  # settled: their intervals no longer overlap
            p = 1 / (1 + 10 ** (-gap / 400))
            score = p * (1 - p) / (1 + count)
            candidate = (score, -count, a, b)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    return fresh(best[2], best[3]) if best else None


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
    """What the ladder knows while it runs: the recorded matches and the pairs in play."""

    matches: list[PlayedMatch] = field(default_factory=list)
    busy: set[Pair] = field(default_factory=set)
    played: int = 0


class Ladder:
    """Plays :func:`next_pair` over and over, ``slots`` pairs at once, until cancelled.

    ``field`` gives the versions that may play now (name to spec); ``ratings``
    their current ratings; ``recorded`` is called with each match once it is
    in the store. Matches are played from ``pool`` here, or by ``remote``
    (a cluster). ``pause`` and ``resume`` stop and restart the taking of new
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
        field: Callable[[], Mapping[str, BotSpec]],
        ratings: Callable[[], Mapping[str, RatingView]],
        recorded: Callable[[PlayedMatch], None] = lambda _match: None,
        log_dir: Path | None = None,
        slots: int = 1,
        remote: RemotePlay | None = None,
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
        self.state = LadderState(matches=store.matches(tournament_id))
        self.paused = False
        self._changed = trio.Event()

    def wake(self) -> None:
        """The field, the ratings or the pause switch changed: look for a pair again."""
        self._changed.set()
        self._changed = trio.Event()

    def pause(self) -> None:
        """Take no new pairs (the pairs in play finish)."""
        self.paused = True
        self.wake()

    def resume(self) -> None:
        """Take new pairs again."""
        self.paused = False
        self.wake()

    async def run(self, pool: BotPool) -> None:
        """Play until cancelled."""
        async with trio.open_nursery() as nursery:
            for _ in range(self.slots):
                nursery.start_soon(self._slot, pool)

    def _take(self) -> tuple[Pair, Mapping[str, BotSpec]] | None:
        if self.paused:
            return None
        specs = self.field()
        pair = next_pair(list(specs), self.state.matches, self.ratings(), self.policy, busy=self.state.busy)
        if pair is None:
            return None
        self.state.busy.add(pair)
        return pair, specs

    async def _slot(self, pool: BotPool) -> None:
        while True:
            taken = self._take()
            if taken is None:
                await self._changed.wait()
                continue
            pair, specs = taken
            try:
                async with trio.open_nursery() as nursery:
                    for scheduled in pair.matches(self.seed):
                        nursery.start_soon(self._play, scheduled, specs, pool)
            finally:
                self.state.busy.discard(pair)
            self.wake()  # the other slots may now take the pair's versions again

    async def _play(self, scheduled: Scheduled, specs: Mapping[str, BotSpec], pool: BotPool) -> None:
        log_path = self.log_dir / f"{scheduled.key}.jsonl.gz" if self.log_dir else None
        if self.remote is not None:
            match = await self.remote(scheduled, specs, log_path)
        else:
            match = await play_scheduled(
                self.game, specs, self.limits, scheduled, pool, log_path=log_path, tournament_id=self.tid
            )
        if self.store.record_match(self.tid, match):
            self.state.matches.append(match)
            self.state.played += 1
            self.recorded(match)
