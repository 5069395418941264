"""Badugi: heads-up fixed-limit triple-draw low-ball poker.

Rules: ``docs/games/badugi.md``. Hand evaluation is a public API:

* :func:`best_hand` -- the played hand (its cards, highest rank first) out of
  the four held;
* :func:`compare` -- ``1`` when the first hand wins a showdown, ``-1`` when the
  second does, ``0`` for equal hands;
* :func:`hand_key` -- a sort key, lower is better; :func:`describe` -- text.

Cards are rank then suit: ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (the ace is
low), suits ``c d h s``: ``Kc``, ``Td``, ``As``.

Choices where the rules are silent (``docs/games/badugi.md`` says the same):

* **Hands and button.** A match is ``hands`` hands; seat A has the button in
  hand 1 and the button alternates hand by hand. The button posts the small
  blind and acts first in round 1; the other seat (the big blind) acts first
  in rounds 2-4 and draws first in every draw.
* **Chips.** There are no stacks: every hand is played in full whatever was
  won before (as in the ACPC's limit events). The score is the chips won over
  the match, so the two scores always add up to zero.
* **Betting.** Fold / check / call / bet / raise; a bet or raise is
  ``small_bet`` in rounds 1-2 and ``big_bet`` in rounds 3-4; at most
  ``bet_cap`` bets a round, the big blind counting as round 1's first. Folding
  when you could check is not allowed (the request lists what is).
* **Dealing.** Each hand has its own deck, shuffled by a generator seeded from
  the match seed and the hand number, so a hand's deal does not depend on the
  hands before it (duplicate matches replay the same deals). Cards are dealt
  one at a time, the big blind first. In a draw the new cards take the places
  of the discarded ones (lowest index first), so indices keep their meaning.
  The drawer's discards go to the muck after its new cards are dealt; when the
  deck runs out, the muck (never the cards in play) is shuffled into a new
  deck. Heads-up this cannot happen with 52 cards (8 dealt, at most 24 drawn)
  but the rule is implemented and tested.
* **Split pots.** Equal hands split the pot; an odd chip would go to the big
  blind (the seat left of the button). Heads-up both seats have put in the same
  at a showdown, so no odd chip arises.
* **Forfeit.** A bot that faults loses the match. It folds the hand in play
  (the opponent wins what the offender has put in), and each hand not yet
  dealt is scored as if it folded at once: it loses its blind (the small blind
  when it would have had the button, else the big blind). If both fault at the
  same step, the hand in play is void and nobody wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

from protocol import SEATS, Message, Result
from protocol.badugi import (
    BadugiAct,
    BadugiDraw,
    BadugiDrawn,
    BadugiHandEnd,
    BadugiHandStart,
    BadugiOpponentAction,
    BadugiOpponentDraw,
    BadugiShowdown,
    BettingAction,
)

from ._base import Game, IllegalAction, MatchState, Param, ParamError, Step, forfeit_result, points_result
from ._rng import Rng, derive_seed

RANKS = "A23456789TJQK"
"""Ranks from lowest (the ace, 1) to highest (the king, 13)."""
SUITS = "cdhs"
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 52 cards, in the order a hand's deck is shuffled from."""
HAND_SIZE = 4
ROUNDS = 4
DRAWS = 3

PARAMS: tuple[Param, ...] = (
    Param("hands", 100, "hands in a match (the button alternates; even gives both seats it equally)", minimum=1),
    Param("small_blind", 1, "posted by the button before the deal", minimum=1),
    Param("big_blind", 2, "posted by the other seat; counts as round 1's first bet", minimum=1),
    Param("small_bet", 2, "size of a bet or raise in betting rounds 1 and 2", minimum=1),
    Param("big_bet", 4, "size of a bet or raise in betting rounds 3 and 4", minimum=1),
    Param("bet_cap", 4, "most bets in one betting round (a bet and three raises)", minimum=1, maximum=100),
)


# Hand evaluation ----------------------------------------------------------


_PARSED = {rank + suit: (RANKS.index(rank) + 1, SUITS.index(suit)) for suit in SUITS for rank in RANKS}


def parse_card(card: str) -> tuple[int, int]:
    """``(rank, suit)`` of a card such as ``"Td"``: rank 1 (ace) .. 13 (king), suit 0..3 (``c d h s``)."""
    parsed = _PARSED.get(card) if isinstance(card, str) else None
    if parsed is None:
        raise ValueError(f"{card!r} is not a card: write rank then suit, such as 'Kc', 'Td', 'As'")
    return parsed


def _parse_hand(cards: Iterable[str]) -> list[tuple[int, int]]:
    cards = list(cards)
    parsed = [parse_card(card) for card in cards]
    if not 1 <= len(parsed) <= HAND_SIZE:
        raise ValueError(f"a badugi hand holds 1 to 4 cards, not {len(parsed)}")
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"the same card twice in {cards}")
    return parsed


def _played(cards: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """Indices of the played hand's cards.

    Dynamic programming over the ranks, lowest first, keeping for each set of
    suits already used the best partial hand: the most cards, then the lowest
    ``sum(2**rank)``. Comparing rank lists from the highest down is comparing
    those sums, and ranks added later are all higher, so the best partial hand
    for a set of suits stays best whatever is added to it.
    """
    by_rank: dict[int, list[int]] = {}
    for i, (rank, _) in enumerate(cards):
        by_rank.setdefault(rank, []).append(i)
    # suit mask -> (cards played, sum of 2**rank, indices played)
    best: dict[int, tuple[int, int, tuple[int, ...]]] = {0: (0, 0, ())}
    for rank in sorted(by_rank):
        extended = dict(best)
        for used, (size, weight, chosen) in best.items():
            for i in by_rank[rank]:
                suit = 1 << cards[i][1]
                if used & suit:
                    continue
                candidate = (size + 1, weight | 1 << rank, (*chosen, i))
                current = extended.get(used | suit)
                if current is None or (candidate[0], -candidate[1]) > (current[0], -current[1]):
                    extended[used | suit] = candidate
        best = extended
    return max(best.values(), key=lambda entry: (entry[0], -entry[1]))[2]


def best_hand(cards: Iterable[str]) -> list[str]:
    """The played hand out of the cards held: its cards, highest rank first.

    The played hand is the largest set of cards of distinct suits and distinct
    ranks, and of those the lowest (compared from the highest rank down)::

        >>> best_hand(["4c", "3h", "2c", "As"])
        ['3h', '2c', 'As']
        >>> best_hand(["8d", "6h", "3s", "2h"])
        ['8d', '3s', '2h']

    When two choices have the same ranks (``2c`` or ``2d`` beside ``Ah 3s``)
    either may be named; which one is fixed for a given order of ``cards``.
    Raises ``ValueError`` for anything but 1 to 4 distinct cards.
    """
    held = list(cards)
    parsed = _parse_hand(held)
    played = _played(parsed)
    return [held[i] for i in sorted(played, key=lambda i: -parsed[i][0])]


def hand_key(cards: Iterable[str]) -> tuple[int, ...]:
    """A sort key for the hand that ``cards`` play: lower is better.

    ``(4 - number of cards played, ranks from the highest down)``; for example
    ``(0, 4, 3, 2, 1)`` for 4-3-2-A, the best hand, and ``(3, 13)`` for a lone
    king, the worst. Equal keys are equal hands.
    """
    parsed = _parse_hand(cards)
    ranks = sorted((parsed[i][0] for i in _played(parsed)), reverse=True)
    return (HAND_SIZE - len(ranks), *ranks)


def compare(hand_a: Iterable[str], hand_b: Iterable[str]) -> int:
    """``1`` when ``hand_a`` wins a showdown against ``hand_b``, ``-1`` when it loses, ``0`` for a draw.

    Each argument is the four cards held (or a played hand: the result is the
    same)::

        >>> compare(["4c", "3h", "2c", "As"], ["Kh", "3d", "2s", "Ah"])
        0
        >>> compare(["Kc", "Qd", "Jh", "Ts"], ["4c", "3h", "2c", "As"])
        1
    """
    key_a, key_b = hand_key(hand_a), hand_key(hand_b)
    return (key_a < key_b) - (key_a > key_b)


def describe(cards: Iterable[str]) -> str:
    """The hand ``cards`` play, in words: ``"4-card 7-4-2-A"``, ``"3-card 8-3-2"``."""
    played = best_hand(cards)
    return f"{len(played)}-card {'-'.join(card[0] for card in played)}"


# The deck -----------------------------------------------------------------


class Deck:
    """The cards still to be dealt in a hand, and the muck of discards."""

    def __init__(self, cards: Sequence[str], rng: Rng, *, shuffle: bool = True) -> None:
        self._rng = rng
        self.cards = list(cards)
        if shuffle:
            rng.shuffle(self.cards)
        """Cards to deal, the next one first."""
        self.muck: list[str] = []
        """Discards not yet shuffled back."""
        self.reshuffles = 0

    def deal(self, count: int) -> list[str]:
        """The next ``count`` cards; when the deck is empty the muck is shuffled into a new one."""
        dealt = []
        for _ in range(count):
            if not self.cards:
                assert self.muck, "no cards left to deal"
                self.cards, self.muck = self.muck, []
                self._rng.shuffle(self.cards)
                self.reshuffles += 1
            dealt.append(self.cards.pop(0))
        return dealt

    def draw(self, held: list[str], discard: Sequence[int]) -> list[str]:
        """Replace ``held[i]`` for each ``i`` in ``discard`` (in place); returns the discarded cards."""
        thrown = [held[i] for i in sorted(discard)]
        for i, card in zip(sorted(discard), self.deal(len(thrown)), strict=True):
            held[i] = card
        self.muck += thrown
        return thrown


# Betting ------------------------------------------------------------------


class BettingRound:
    """One fixed-limit betting round between two seats.

    The round is over when a seat folds, or when both have acted since the
    last bet and have put in the same. Blinds posted before round 1 are not
    actions: the big blind still gets its turn (its "option") when the small
    blind only calls.
    """

    def __init__(self, *, first: int, bet_size: int, cap: int, posted: Sequence[int] = (0, 0), bets: int = 0) -> None:
        self.to_act = first
        """The seat whose turn it is."""
        self.bet_size = bet_size
        self.cap = cap
        self.put = list(posted)
        """Chips each seat has put in during this round (blinds included)."""
        self.bets = bets
        """Bets made in this round (the big blind counts as one)."""
        self.acted = [False, False]
        self.folded: int | None = None
        self.actions: list[tuple[int, BettingAction]] = []

    @property
    def to_call(self) -> int:
        """Chips the seat to act must add to call."""
        return max(self.put) - self.put[self.to_act]

    @property
    def is_closed(self) -> bool:
        """Whether the round is over."""
        return self.folded is not None or (all(self.acted) and self.put[0] == self.put[1])

    def legal(self) -> list[BettingAction]:
        """The actions the seat to act may take now."""
        if self.is_closed:
            return []
        can_raise = 0 < self.bets < self.cap
        if self.to_call > 0:
            return ["fold", "call", "raise"] if can_raise else ["fold", "call"]
        if self.bets == 0:
            return ["check", "bet"]
        return ["check", "raise"] if can_raise else ["check"]

    def check(self, action: object) -> BettingAction:
        """``action`` if the seat to act may take it, or :class:`IllegalAction` saying why not."""
        legal = self.legal()
        if isinstance(action, str) and action in legal:
            return action
        allowed = ", ".join(f'"{a}"' for a in legal)
        if not isinstance(action, str):
            raise IllegalAction(f"answer one of {allowed} as a string, not {action!r}")
        raise IllegalAction(
            f'"{action}" is not allowed now (to call: {self.to_call}, bets: {self.bets}); legal: {allowed}'
        )

    def act(self, action: object) -> int:
        """Play ``action`` for the seat to act; returns the chips it put in."""
        checked = self.check(action)
        seat = self.to_act
        before = self.put[seat]
        if checked == "fold":
            self.folded = seat
        elif checked == "call":
            self.put[seat] = max(self.put)
        elif checked in ("bet", "raise"):
            self.put[seat] = max(self.put) + self.bet_size
            self.bets += 1
            self.acted[1 - seat] = False
        self.acted[seat] = True
        self.actions.append((seat, checked))
        self.to_act = 1 - seat
        return self.put[seat] - before


# The match ----------------------------------------------------------------


@dataclass(frozen=True)
class Structure:
    """The betting structure and length of a match (the game's parameters)."""

    hands: int = 100
    small_blind: int = 1
    big_blind: int = 2
    small_bet: int = 2
    big_bet: int = 4
    bet_cap: int = 4

    def button(self, hand: int) -> int:
        """The seat with the button in hand ``hand`` (1-based): A in odd hands, B in even ones."""
        return (hand - 1) % 2

    def bet_size(self, round_: int) -> int:
        """The bet size in betting round ``round_`` (1..4)."""
        return self.small_bet if round_ <= 2 else self.big_bet

    def blind(self, seat: int, hand: int) -> int:
        """What ``seat`` posts in hand ``hand``."""
        return self.small_blind if seat == self.button(hand) else self.big_blind


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards)


class BadugiMatch(MatchState):
    """A match of ``structure.hands`` hands; one seat is asked at a time."""

    def __init__(self, seed: int, structure: Structure | None = None) -> None:
        self.seed = seed
        self.structure = structure or Structure()
        self.score = [0, 0]
        """Chips won so far, per seat (they add up to zero)."""
        self.hand = 0
        self.cards: list[list[str]] = [[], []]
        self.stakes = [0, 0]
        """Chips each seat has put in during the hand in play."""
        self.round = 0
        self.draw_no = 0
        self.drawing: int | None = None
        """The seat asked to draw, during a draw; ``None`` while betting."""
        self.betting = BettingRound(first=0, bet_size=1, cap=1)
        self.deck = Deck((), Rng(seed))
        self._over = False
        self._secret: list[set[str]] = [set(), set()]
        """Each seat's cards of the hand in play that the other seat has not been shown."""
        self._secret_before: list[set[str]] = [set(), set()]
        """The same of the hand before (its end is told in the step that deals the next)."""
        self._shown: list[set[str]] = [set(), set()]
        """The cards shown at the showdown of the hand before and of the hand in play (either seat's)."""
        self._first = self._deal()

    # Helpers ------------------------------------------------------------
    @property
    def button(self) -> int:
        """The seat with the button in the hand in play."""
        return self.structure.button(self.hand)

    @property
    def pot(self) -> int:
        """Chips in the pot."""
        return sum(self.stakes)

    def _deal(self) -> Step:
        """Deal the next hand and post the blinds."""
        self.hand += 1
        s = self.structure
        self.deck = Deck(DECK, Rng(derive_seed(self.seed, "badugi-hand", self.hand)))
        self.cards = [[], []]
        order = (1 - self.button, self.button)
        for _ in range(HAND_SIZE):
            for seat in order:
                self.cards[seat] += self.deck.deal(1)
        self._secret_before, self._secret = self._secret, [set(self.cards[0]), set(self.cards[1])]
        self._shown = [self._shown[1], set()]
        self.stakes = [s.blind(0, self.hand), s.blind(1, self.hand)]
        self.round = 1
        self.draw_no = 0
        self.drawing = None
        self.betting = BettingRound(
            first=self.button, bet_size=s.bet_size(1), cap=s.bet_cap, posted=self.stakes, bets=1
        )
        step = Step()
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    BadugiHandStart(
                        hand=self.hand,
                        hands=s.hands,
                        button=SEATS[self.button],
                        cards=list(self.cards[seat]),
                        blinds=[self.stakes[seat], self.stakes[1 - seat]],
                        score=[self.score[seat], self.score[1 - seat]],
                    ),
                )
            )
        step.narration.append(
            f"Hand {self.hand}/{s.hands}, button {SEATS[self.button]}: "
            f"A {_cards(self.cards[0])} ({describe(self.cards[0])}) | "
            f"B {_cards(self.cards[1])} ({describe(self.cards[1])})"
        )
        return step

    # MatchState ---------------------------------------------------------
    def start(self) -> Step:
        return self._first

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def to_act(self) -> int:
        """The seat that must answer now."""
        return self.betting.to_act if self.drawing is None else self.drawing

    def requests(self) -> dict[int, Any]:
        if self._over:
            return {}
        seat = self.to_act
        if self.drawing is not None:
            return {seat: BadugiDraw(hand=self.hand, draw=self.draw_no, cards=list(self.cards[seat]), pot=self.pot)}
        b = self.betting
        return {
            seat: BadugiAct(
                hand=self.hand,
                round=self.round,
                cards=list(self.cards[seat]),
                legal=b.legal(),
                to_call=b.to_call,
                bet_size=b.bet_size,
                bets=b.bets,
                bet_cap=b.cap,
                pot=self.pot,
                stakes=[self.stakes[seat], self.stakes[1 - seat]],
            )
        }

    def check(self, seat: int, action: Any) -> Any:
        if seat != self.to_act or self._over:
            raise IllegalAction(f"seat {SEATS[seat]} was not asked to act")
        if self.drawing is None:
            return self.betting.check(action)
        return check_discard(action)

    def legal_actions(self, seat: int) -> list[Any]:
        if seat != self.to_act or self._over:
            return []
        if self.drawing is None:
            return list(self.betting.legal())
        return [list(c) for size in range(HAND_SIZE + 1) for c in combinations(range(HAND_SIZE), size)]

    def apply(self, actions: Mapping[int, Any]) -> Step:
        seat = self.to_act
        action = self.check(seat, actions[seat])
        return self._bet(seat, action) if self.drawing is None else self._draw(seat, action)

    def _bet(self, seat: int, action: BettingAction) -> Step:
        step = Step()
        self.stakes[seat] += self.betting.act(action)
        step.notices.append(
            (1 - seat, BadugiOpponentAction(hand=self.hand, round=self.round, action=action, pot=self.pot))
        )
        if not self.betting.is_closed:
            return step
        said = ", ".join(f"{SEATS[s]} {_VERBS[a]}" for s, a in self.betting.actions)
        step.narration.append(f"  Round {self.round}: {said}; pot {self.pot}")
        if self.betting.folded is not None:
            self._end_hand(step, winner=1 - self.betting.folded, showdown=False)
        elif self.round == ROUNDS:
            self._showdown(step)
        else:
            self.draw_no = self.round
            self.drawing = 1 - self.button
        return step

    def _draw(self, seat: int, discard: tuple[int, ...]) -> Step:
        step = Step()
        thrown = self.deck.draw(self.cards[seat], discard)
        self._secret[seat] |= set(self.cards[seat])
        step.notices.append(
            (seat, BadugiDrawn(hand=self.hand, draw=self.draw_no, discarded=thrown, cards=list(self.cards[seat])))
        )
        step.notices.append((1 - seat, BadugiOpponentDraw(hand=self.hand, draw=self.draw_no, count=len(thrown))))
        step.narration.append(
            f"  Draw {self.draw_no}: {SEATS[seat]} "
            + (f"draws {len(thrown)} for {_cards(thrown)}" if thrown else "stands pat")
            + f" -> {_cards(self.cards[seat])} ({describe(self.cards[seat])})"
        )
        if seat != self.button:
            self.drawing = self.button
            return step
        self.drawing = None
        self.round += 1
        s = self.structure
        self.betting = BettingRound(first=1 - self.button, bet_size=s.bet_size(self.round), cap=s.bet_cap)
        return step

    def _showdown(self, step: Step) -> None:
        outcome = compare(self.cards[0], self.cards[1])
        winner = None if outcome == 0 else (0 if outcome > 0 else 1)
        played = [best_hand(self.cards[0]), best_hand(self.cards[1])]
        for seat in (0, 1):
            self._secret[seat] -= set(self.cards[seat])
            self._shown[1].update(self.cards[seat])
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    BadugiShowdown(
                        hand=self.hand,
                        cards=list(self.cards[seat]),
                        opponent_cards=list(self.cards[1 - seat]),
                        played=played[seat],
                        opponent_played=played[1 - seat],
                        winner=None if winner is None else SEATS[winner],
                    ),
                )
            )
        verdict = "ties" if winner is None else ("beats" if winner == 0 else "loses to")
        step.narration.append(f"  Showdown: A {describe(self.cards[0])} {verdict} B {describe(self.cards[1])}")
        self._end_hand(step, winner=winner, showdown=True)

    def _end_hand(self, step: Step, *, winner: int | None, showdown: bool) -> None:
        pot = self.pot
        if winner is None:
            big_blind = 1 - self.button
            received = [pot // 2, pot // 2]
            received[big_blind] += pot % 2
        else:
            received = [0, 0]
            received[winner] = pot
        won = [received[seat] - self.stakes[seat] for seat in (0, 1)]
        assert sum(won) == 0
        for seat in (0, 1):
            self.score[seat] += won[seat]
        for seat in (0, 1):
            step.notices.append(
                (
                    seat,
                    BadugiHandEnd(
                        hand=self.hand,
                        ended_by="showdown" if showdown else "fold",
                        winner=None if winner is None else SEATS[winner],
                        pot=pot,
                        won=won[seat],
                        score=[self.score[seat], self.score[1 - seat]],
                    ),
                )
            )
        taker = "split" if winner is None else f"{SEATS[winner]} wins {pot}"
        step.narration.append(f"  Pot {pot}: {taker}; score A {self.score[0]:+} B {self.score[1]:+}")
        self.stakes = [0, 0]
        if self.hand < self.structure.hands:
            following = self._deal()
            step.notices += following.notices
            step.narration += following.narration
        else:
            self._over = True

    def secrets(self, seat: int) -> set[str]:
        """Every card the seat held in this hand or the one before, discards and folded cards too, but those shown.

        A card shown at a showdown is left out for the hand after it too: its
        end and the next deal are told in one step, and the new hand may hold
        a card of that name again (as the hand before may have, unshown).
        """
        return (self._secret[seat] | self._secret_before[seat]) - self._shown[0] - self._shown[1]

    def result(self) -> Result:
        return points_result([float(chips) for chips in self.score])

    def forfeit(self, offenders: frozenset[int], reason: str) -> Result:
        points = list(self.score)
        if len(offenders) == 1:
            (offender,) = offenders
            other = 1 - offender
            lost = 0 if self._over else self.stakes[offender]
            for hand in range(self.hand + 1, self.structure.hands + 1):
                lost += self.structure.blind(offender, hand)
            points[offender] -= lost
            points[other] += lost
        return forfeit_result([float(p) for p in points], offenders, reason)


_VERBS: dict[BettingAction, str] = {
    "fold": "folds",
    "check": "checks",
    "call": "calls",
    "bet": "bets",
    "raise": "raises",
}


def check_discard(action: object) -> tuple[int, ...]:
    """A draw answer as the rules take it (sorted indices), or :class:`IllegalAction` saying why not."""
    if not isinstance(action, list | tuple):
        raise IllegalAction(f"answer a list of card indices 0..3 to discard, such as [0, 2], not {action!r}")
    for index in action:
        if type(index) is not int or not 0 <= index < HAND_SIZE:
            raise IllegalAction(f"discard index {index!r} is not an integer 0..3")
    if len(set(action)) != len(action):
        raise IllegalAction(f"discard indices repeat: {action}")
    return tuple(sorted(action))


class Badugi(Game):
    """Heads-up fixed-limit triple-draw Badugi."""

    id: ClassVar[str] = "badugi"
    version: ClassVar[int] = 1
    title: ClassVar[str] = "Badugi"
    summary: ClassVar[str] = (
        "Heads-up fixed-limit triple-draw low-ball: four cards, four betting rounds, three draws; "
        "the lowest hand of distinct suits and ranks wins. Score: chips won."
    )
    params_table = PARAMS
    points_name: ClassVar[str] = "chips won"
    messages: ClassVar[tuple[type[Message], ...]] = (
        BadugiHandStart,
        BadugiAct,
        BadugiOpponentAction,
        BadugiDraw,
        BadugiDrawn,
        BadugiOpponentDraw,
        BadugiShowdown,
        BadugiHandEnd,
    )
    view: ClassVar[str] = ".badugi_view:BadugiView"

    def __init__(self, params: Mapping[str, object] | None = None) -> None:
        super().__init__(params)
        structure = self.structure
        if structure.small_blind >= structure.big_blind:
            raise ParamError(
                f"small_blind ({structure.small_blind}) must be less than big_blind ({structure.big_blind})"
            )

    @property
    def structure(self) -> Structure:
        """The parameters as a :class:`Structure`."""
        return Structure(**{name: int(value) for name, value in self.params.items()})

    def new_match(self, seed: int) -> BadugiMatch:
        return BadugiMatch(seed, self.structure)

    def max_requests(self) -> int:
        # In a betting round a seat checks once, makes at most every other bet of the cap, and calls or folds
        # once: at most bet_cap + 2 actions (a bound, not tight); then a draw after each of the first three.
        structure = self.structure
        return structure.hands * (ROUNDS * (structure.bet_cap + 2) + DRAWS)
