"""The ladder's choice of pairs kept between calls is the choice weighed from scratch, over random histories."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pytest

from arena.competition import ladder
from arena.competition.ladder import (
    SETTLED_AFTER,
    UNRATED,
    Pair,
    PairBook,
    Policy,
    RatingView,
    _spread,
    next_pair,
    parse_deal,
)


def from_scratch(
    field_names: Sequence[str],
    book: PairBook,
    ratings: Mapping[str, RatingView],
    policy: Policy,
    busy: Iterable[Pair],
    finish: bool,
) -> Pair | None:
    """The choice as :func:`next_pair` made it before it kept its ranking: every pair of the field weighed at once."""
    active = sorted(set(field_names))
    if len(active) < 2:
        return None
    busy_pairs = list(busy)
    occupied = {(pair.first, pair.second) for pair in busy_pairs}
    extra: Counter[tuple[str, str]] = Counter()
    busy_last: dict[tuple[str, str], int] = {}
    for pair in busy_pairs:
        versions = (pair.first, pair.second)
        if pair.number > book.last.get(versions, -1):
            extra[versions] += 1
        busy_last[versions] = max(busy_last.get(versions, -1), pair.number)
    place = {name: i for i, name in enumerate(active)}
    met_matrix = book.between(active)
    for (a, b), count in extra.items():
        if a in place and b in place:
            met_matrix[place[a], place[b]] += count
            met_matrix[place[b], place[a]] += count
    busy_deals = {pair.deal for pair in busy_pairs}
    for deal, seen in sorted(book.partial.items()) if finish else ():
        first, second, number = parse_deal(deal)  # type: ignore[misc]
        if first in place and second in place and deal not in busy_deals and (first, second) not in occupied:
            return Pair(first, second, number, tuple(leg for leg in (0, 1) if leg not in seen))

    def fresh(a: str, b: str) -> Pair:
        versions = (min(a, b), max(a, b))
        return Pair(*versions, max(book.last.get(versions, -1), busy_last.get(versions, -1)) + 1)

    played = dict(zip(active, met_matrix.sum(axis=1).tolist(), strict=True))
    views = [ratings.get(name, UNRATED) for name in active]
    by_rating = [name for _, name in sorted((-view.elo, name) for view, name in zip(views, active, strict=True))]
    for name in sorted((n for n in active if played[n] < policy.placement_pairs), key=lambda n: (played[n], n)):
        others = [n for n in by_rating if n != name]
        fewest = min(int(met_matrix[place[name], place[o]]) for o in others)
        for index in _spread(len(others)):
            opponent = others[index]
            count = int(met_matrix[place[name], place[opponent]])
            versions = (min(name, opponent), max(name, opponent))
            if versions not in occupied and count < policy.pair_budget and count == fewest:
                return fresh(name, opponent)
    first_of, second_of = np.triu_indices(len(active), 1)
    counts = met_matrix[first_of, second_of]
    elo = np.array([v.elo for v in views], dtype=np.float64)
    error = np.array([v.error95 for v in views], dtype=np.float64)
    gap = np.abs(elo[first_of] - elo[second_of])
    open_ = (counts < policy.pair_budget) & ~((counts >= SETTLED_AFTER) & (gap > error[first_of] + error[second_of]))
    open_ &= np.array([(active[i], active[j]) not in occupied for i, j in zip(first_of, second_of, strict=True)])
    if not open_.any():
        return None
    p = 1 / (1 + 10 ** (-gap / 400))
    score = np.where(open_, p * (1 - p) / (1 + counts), -1.0)
    top = score == score.max()
    chosen = int(np.flatnonzero(top & (counts == counts[top].min()))[0])
    return fresh(active[int(first_of[chosen])], active[int(second_of[chosen])])


def random_ratings(rng: random.Random, names: Iterable[str]) -> dict[str, RatingView]:
    # Coarse values, so that pairs tie on score and the order of ties is checked; narrow intervals settle pairs.
    return {name: RatingView(50.0 * rng.randint(-6, 6), rng.choice([20.0, 60.0, 150.0, 400.0])) for name in names}


@pytest.mark.parametrize(("seed", "resort", "head"), [(1, 256, 1024), (2, 256, 3), (3, 4, 1024), (4, 1, 8), (5, 16, 1)])
def test_the_kept_ranking_chooses_as_a_weighing_from_scratch(
    seed: int, resort: int, head: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ladder._PairScores, "RESORT", resort)  # (made again after so many pairs met)
    monkeypatch.setattr(ladder._PairScores, "HEAD", head)  # (so many pairs sorted at first, the rest when walked to)
    rng = random.Random(seed)
    field = [f"bot{i:02d}" for i in range(12)]
    retired: list[str] = []
    ratings = random_ratings(rng, field)
    policy = Policy(placement_pairs=3, pair_budget=6)
    book = PairBook()
    chosen = settled = 0
    for step in range(900):
        roll = rng.random()
        if roll < 0.06:  # a new board: every rating moves
            ratings = random_ratings(rng, field)
        elif roll < 0.09:  # the same mapping changed in place (the kept ranking must see it)
            ratings[rng.choice(field)] = RatingView(50.0 * rng.randint(-6, 6), 60.0)
        elif roll < 0.095:  # a version replaced: a newcomer, unrated until the next board
            old = rng.choice(field)
            field.remove(old)
            retired.append(old)
            field.append(f"{old[:5]}.v{step}")
        elif roll < 0.1 and retired:  # a pair of a retired version recorded late (it is outside the field)
            a, b = sorted((rng.choice(retired), rng.choice(field)))
            book.record(f"{a}~{b}~{book.last.get((a, b), -1) + 1}-s")
        elif roll < 0.105 and retired:  # a version taken out comes back (a disqualification lifted)
            field.append(retired.pop(rng.randrange(len(retired))))
        elif roll < 0.11:  # the organiser changes the pair budget
            policy = Policy(placement_pairs=3, pair_budget=rng.choice([4, 6, 8]))
        free = rng.sample(field, rng.randint(len(field) - 4, len(field)))
        busy = []
        for _ in range(rng.randint(0, 3)):
            a, b = sorted(rng.sample(field, 2))
            busy.append(Pair(a, b, book.last.get((a, b), -1) + rng.randint(0, 2)))
        finish = rng.random() < 0.5
        want = from_scratch(free, book, ratings, policy, busy, finish)
        got = next_pair(free, book, ratings, policy, busy=busy, finish=finish)
        assert got == want, f"step {step}"
        if got is None:
            settled += 1
            continue
        chosen += 1
        legs = got.legs if rng.random() < 0.9 else got.legs[:1]  # now and then a pair is left half-played
        for match in got.matches(seed=1):
            if match.leg in legs:
                book.record(match.key)
    assert chosen > 400 and settled > 20  # (the history went through placements, scores and settled fields)
