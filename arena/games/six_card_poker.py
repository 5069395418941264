"""Six-card poker: split six cards into a high, a middle and a low hand, many deals.

Rules: ``docs/games/six-card-poker.md`` (a 2008 programming puzzle).
Choices where the rules are silent (``docs/games/six-card-poker.md`` says the same):

* **A match is many deals** (the ``deals`` parameter). Each deal shuffles a
  fresh 16-card deck with the match's RNG stream (``Rng(seed)``, one shuffle
  per deal, in order); seat A gets positions 1, 3, ..., 11 and seat B
  positions 2, 4, ..., 12, each shown sorted. The 4 undealt cards are never
  shown to anyone.
* **Actions** are indices into the sorted hand the bot was sent:
  ``{"high": [i, j, k], "middle": [l, m], "low": [n]}``, each of 0..5 used
  exactly once, no other keys. Equal cards are interchangeable, so any index
  of a value does.
* **Points** are deals won, a drawn deal (exactly 1.5 hands each) half a
  point each; the match's winner has more points. The puzzle's score, the
  share of deals won, is ``points / deals``.
* **Duplicate deals.** The deal depends on the seed only, never on the bots,
  and the seats are symmetric (both split at once, unseen), so a tournament
  that replays each seed with the seats swapped (``duplicate_deals = True``)
  gives each bot both hands of every deal against the same opponent: the
  luck of the deal cancels over the pair.
* **Forfeit.** A bot that faults loses the match: it keeps the points of the
  deals already played, and every deal not yet played (the one being set
  included) is a point for its opponent. If both fault at the same step,
  the remaining deals go to nobody and nobody wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar

from protocol import SEATS, Message, Result
from protocol.six_card_poker import PokerSet, PokerShowdown, PokerSplit

from ._base import Game, IllegalAction, MatchState, Param, Step, forfeit_result, points_result
from ._rng import Rng

DECK: tuple[int, ...] = tuple(v for v in (1, 2, 3, 4) for _ in range(4))
"""Four each of 1, 2, 3, 4, in that order before the shuffle."""
HAND_SIZE = 6
HANDS: tuple[tuple[str, int], ...] = (("high", 3), ("middle", 2), ("low", 1))
"""The three hands of a split and their sizes, in the order they are compared."""

PARAMS: tuple[Param, ...] = (
    Param("deals", 100, "deals in a match; each deal is one split by each seat", minimum=1, maximum=1_000_000),
)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def compare_high(a: Sequence[int], b: Sequence[int]) -> int:
    """1 if high hand ``a`` beats ``b``, -1 if it loses, 0 for a draw: the higher sum wins."""
    return _sign(sum(a) - sum(b))


def middle_rank(cards: Sequence[int]) -> tuple[int, int, int]:
    """A key that orders two-card hands: any pair above any non-pair, then the high card, then the second."""
    high, second = max(cards), min(cards)
    return (1 if high == second else 0, high, second)


def compare_middle(a: Sequence[int], b: Sequence[int]) -> int:
    """1 if middle hand ``a`` beats ``b``, -1 if it loses, 0 for a draw.

    Any pair beats any non-pair; two pairs: the higher pair; two non-pairs:
    the higher high card, and if equal, the higher second card.
    """
    ra, rb = middle_rank(a), middle_rank(b)
    return (ra > rb) - (ra < rb)


def compare_low(a: Sequence[int], b: Sequence[int]) -> int:
    """1 if low hand ``a`` beats ``b``, -1 if it loses, 0 for a draw: the higher card wins."""
    return _sign(a[0] - b[0])


COMPARE = {"high": compare_high, "middle": compare_middle, "low": compare_low}


def hands_won(split_a: PokerSplit, split_b: PokerSplit) -> tuple[float, float]:
    """Each side's share of the three hands: 1 per hand won, 0.5 per hand drawn (they add to 3)."""
    a = 0.0
    for name, _ in HANDS:
        a += (1 + COMPARE[name](getattr(split_a, name), getattr(split_b, name))) / 2
    return a, 3 - a


def deal_winner(split_a: PokerSplit, split_b: PokerSplit) -> int | None:
    """The seat that wins the deal with more than 1.5 hands, or ``None`` when it is exactly 1.5."""
    a, b = hands_won(split_a, split_b)
    if a == b:
        return None
    return 0 if a > b else 1


def split_of(hand: Sequence[int], action: Mapping[str, Sequence[int]]) -> PokerSplit:
    """The split that checked ``action`` (indices into ``hand``) describes, each hand sorted high to low."""
    return PokerSplit(**{name: sorted((hand[i] for i in action[name]), reverse=True) for name, _ in HANDS})


def check_split(action: Any) -> dict[str, list[int]]:
    """``action`` as ``{"high": [...], "middle": [...], "low": [...]}``, or :class:`IllegalAction` saying why."""
    example = '{"high": [i, j, k], "middle": [l, m], "low": [n]}'
    if not isinstance(action, dict):
        raise IllegalAction(f"action must be an object {example}, not {action!r}")
    names = [name for name, _ in HANDS]
    extra = sorted(set(action) - set(names))
    if extra:
        raise IllegalAction(f"unknown key {extra[0]!r} in the action; the keys are high, middle, low")
    checked: dict[str, list[int]] = {}
    for name, size in HANDS:
        if name not in action:
            raise IllegalAction(f"the action has no {name!r} key; expected {example}")
        indices = action[name]
        if not isinstance(indices, list) or len(indices) != size:
            raise IllegalAction(f"{name} must be a list of {size} indices into hand, not {indices!r}")
        for index in indices:
            if type(index) is not int:
                raise IllegalAction(f"{name} holds {index!r}; indices are integers 0..{HAND_SIZE - 1}")
            if not 0 <= index < HAND_SIZE:
                raise IllegalAction(f"index {index} in {name} is out of range for a hand of {HAND_SIZE} (0..5)")
        checked[name] = list(indices)
    used = [i for name in names for i in checked[name]]
    repeated = sorted({i for i in used if used.count(i) > 1})
    if repeated:
        raise IllegalAction(f"index {repeated[0]} is used more than once; each of 0..5 must be used exactly once")
    return checked


def all_splits() -> list[dict[str, list[int]]]:
    """The 60 ways to split indices 0..5 into high 3, middle 2 and low 1."""
    splits = []
    for high in combinations(range(HAND_SIZE), 3):
        rest = [i for i in range(HAND_SIZE) if i not in high]
        for middle in combinations(rest, 2):
            low = [i for i in rest if i not in middle]
            splits.append({"high": list(high), "middle": list(middle), "low": low})
    return splits


def _show(split: PokerSplit) -> str:
    return f"{''.join(map(str, split.high))}/{''.join(map(str, split.middle))}/{split.low[0]}"


class SixCardPokerMatch(MatchState):
    """One match: ``deals`` deals, one split by each seat per deal."""

    def __init__(self, seed: int, deals: int) -> None:
        self.deals = deals
        self._rng = Rng(seed)
        self.deal = 0
        self.points = [0.0, 0.0]
        self.hands: list[list[int]] = [[], []]
        self._next_deal()

    def _next_deal(self) -> None:
        self.deal += 1
        if self.deal > self.deals:
            return
        deck = list(DECK)
        self._rng.shuffle(deck)
        # Dealt alternately: positions 1, 3, ..., 11 to A and 2, 4, ..., 12 to B.
        self.hands = [sorted(deck[0:12:2]), sorted(deck[1:12:2])]

    def _score(self, seat: int) -> list[float]:
        return [self.points[seat], self.points[1 - seat]]

    @property
    def is_over(self) -> bool:
        return self.deal > self.deals

    def requests(self) -> dict[int, Any]:
        return {seat: PokerSet(deal=self.deal, hand=list(self.hands[seat]), score=self._score(seat)) for seat in (0, 1)}

    def check(self, seat: int, action: Any) -> dict[str, list[int]]:
        return check_split(action)

    def legal_actions(self, seat: int) -> list[Any]:
        return all_splits()

    def secrets(self, seat: int) -> set[tuple[int, ...]]:
        """The seat's sorted hand of the deal in play, until the showdown shows both splits."""
        return set() if self.is_over else {tuple(self.hands[seat])}

    def apply(self, actions: Mapping[int, Any]) -> Step:
        splits = [split_of(self.hands[s], actions[s]) for s in (0, 1)]
        won = hands_won(splits[0], splits[1])
        winner = deal_winner(splits[0], splits[1])
        if winner is None:
            self.points[0] += 0.5
            self.points[1] += 0.5
        else:
            self.points[winner] += 1
        step = Step()
        for seat in (0, 1):
            showdown = PokerShowdown(
                deal=self.deal,
                your_split=splits[seat],
                opponent_split=splits[1 - seat],
                hands_won=[won[seat], won[1 - seat]],
                winner=None if winner is None else SEATS[winner],
                score=self._score(seat),
            )
            step.notices.append((seat, showdown))
        outcome = "drawn deal" if winner is None else f"{SEATS[winner]} wins"
        step.narration.append(
            f"Deal {self.deal:3}: A {''.join(map(str, self.hands[0]))} sets {_show(splits[0])} "
            f"| B {''.join(map(str, self.hands[1]))} sets {_show(splits[1])} "
            f"-> hands {won[0]:g}-{won[1]:g}, {outcome}; score {self.points[0]:g}-{self.points[1]:g}"
        )
        self._next_deal()
        return step

    def result(self) -> Result:
        return points_result(self.points)

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = list(self.points)
        if len(offenders) == 1:
            (offender,) = offenders
            points[1 - offender] += self.deals - self.deal + 1
        return forfeit_result(points, offenders, reason)


class SixCardPoker(Game):
    """Six-card poker (2008 programming puzzle), a match of many deals."""

    id: ClassVar[str] = "six-card-poker"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Six-card poker"
    summary: ClassVar[str] = (
        "16 cards (four each of 1-4); each seat gets six and splits them unseen into high 3 (sum), "
        "middle 2 (pairs first) and low 1. More than 1.5 of the 3 hands wins the deal; many deals."
    )
    params_table = PARAMS
    duplicate_deals: ClassVar[bool] = True
    points_name: ClassVar[str] = "deals won"
    messages: ClassVar[tuple[type[Message], ...]] = (PokerSet, PokerShowdown)
    view: ClassVar[str] = ".six_card_poker_view:SixCardPokerView"

    def points_total(self) -> float:
        deals = self.params["deals"]
        assert isinstance(deals, int)
        return float(deals)

    def max_requests(self) -> int:
        return int(self.params["deals"])  # a split per deal

    def new_match(self, seed: int) -> SixCardPokerMatch:
        deals = self.params["deals"]
        assert isinstance(deals, int)
        return SixCardPokerMatch(seed, deals)
