"""``arena compare``: is the new version better than the old one? Paired deals and a sequential test.

NEW and BASE play the **same deals**, both seatings of each (a deal pair):

* **head to head** (no opponents named): NEW meets BASE on each deal twice,
  once in each seat. NEW's two results (0, ½ or 1 each) make the pair.
* **against a field** (opponents named): on each deal NEW meets an opponent
  in both seats, and BASE meets the same opponent on the same deal in the
  same seats. Each seating is a *board*, as in duplicate bridge: NEW wins the
  board when its result there beat BASE's (a win beats a draw beats a loss),
  draws it when the results were equal. The two boards of a deal make the pair.

Pairs feed the pentanomial statistics and the SPRT of
:mod:`arena.competition.sprt`, in schedule order: the test looks at the
pairs from the first on, as far as all are complete, so its verdict and the
lines it prints do not depend on how many matches ran at once (``--jobs``).
It stops at H1 (NEW is better by ``elo1``), at H0 (not better than ``elo0``),
or when the schedule (``--max-matches``) runs out.

This module is pure: the schedule of a comparison and :class:`Comparison`,
which follows its pairs as results come and says what to print.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .._errors import ConfigError
from ..checks.hints import printable
from ..games import derive_seed
from .results import MIN_DEALS, outcome_for
from .schedule import Scheduled
from .sprt import PairCounts, Sprt, estimate
from .store import PlayedMatch

_SCORE = {"W": 1.0, "D": 0.5, "L": 0.0}


# The schedule ----------------------------------------------------------------------
@dataclass(frozen=True)
class Roles:
    """Who is compared with whom, and against which field (none: head to head)."""

    new: str
    base: str
    opponents: tuple[str, ...] = ()

    @property
    def matches_per_round(self) -> int:
        """Matches of one round: a deal pair head to head, or one per opponent for each of NEW and BASE."""
        return 2 if not self.opponents else 4 * len(self.opponents)

    @property
    def pairs_per_round(self) -> int:
        """Deal pairs of one round."""
        return max(1, len(self.opponents))


@dataclass(frozen=True)
class Pair:
    """One deal pair of a comparison and the keys of its matches."""

    number: int
    """1, 2, ... in schedule order."""
    deal: str
    opponent: str | None
    new_keys: tuple[str, str]
    """NEW's matches, NEW in seat A then in seat B."""
    base_keys: tuple[str, str] | None
    """BASE's matches against the same opponent in the same seats (``None`` head to head)."""

    @property
    def keys(self) -> tuple[str, ...]:
        """Every match of the pair."""
        return self.new_keys + (self.base_keys or ())


def rounds_for(roles: Roles, max_matches: int) -> int:
    """How many rounds fit in ``max_matches`` (at least one)."""
    return max(1, max_matches // roles.matches_per_round)


def iter_pairs(roles: Roles, rounds: int) -> Iterator[Pair]:
    """The comparison's deal pairs, in schedule order."""
    number = 0
    for cycle in range(1, rounds + 1):
        if not roles.opponents:
            number += 1
            deal = f"c{cycle}-{roles.new}-vs-{roles.base}"
            yield Pair(number, deal, None, (f"{deal}-a", f"{deal}-b"), None)
            continue
        for opponent in roles.opponents:
            number += 1
            deal = f"c{cycle}-vs-{opponent}"
            yield Pair(
                number,
                deal,
                opponent,
                (f"{deal}-{roles.new}-a", f"{deal}-{roles.new}-b"),
                (f"{deal}-{roles.base}-a", f"{deal}-{roles.base}-b"),
            )


def iter_compare_schedule(roles: Roles, *, seed: int, rounds: int) -> Iterator[Scheduled]:
    """Every match of the comparison, in the order they are started.

    A deal's seed is ``derive_seed(seed, "compare", round)`` head to head and
    ``derive_seed(seed, "compare", round, opponent)`` against a field; NEW's
    and BASE's matches of a deal share it, seat for seat. ``leg`` is 0 when the
    compared bot sits in seat A, 1 in seat B.
    """
    for pair in iter_pairs(roles, rounds):
        cycle = (pair.number - 1) // roles.pairs_per_round + 1
        if pair.opponent is None:
            deal_seed = derive_seed(seed, "compare", cycle)
            a, b = pair.new_keys
            yield Scheduled(a, cycle, pair.deal, 0, roles.new, roles.base, deal_seed)
            yield Scheduled(b, cycle, pair.deal, 1, roles.base, roles.new, deal_seed)
            continue
        deal_seed = derive_seed(seed, "compare", cycle, pair.opponent)
        assert pair.base_keys is not None
        for bot, keys in ((roles.new, pair.new_keys), (roles.base, pair.base_keys)):
            yield Scheduled(keys[0], cycle, pair.deal, 0, bot, pair.opponent, deal_seed)
            yield Scheduled(keys[1], cycle, pair.deal, 1, pair.opponent, bot, deal_seed)


def check_roles(roles: Roles) -> None:
    """Refuse a comparison whose bots' names make two matches share a key."""
    names = [roles.new, roles.base, *roles.opponents]
    if len(set(names)) != len(names):
        raise ConfigError("compare: NEW, BASE and the opponents must be different bots")
    keys = [key for pair in iter_pairs(roles, 2) for key in pair.keys]
    if len(set(keys)) != len(keys):
        raise ConfigError('two bots\' names make the same match key; rename one (name = "..." in its bot.toml)')


# Following the test ----------------------------------------------------------------
def board_score(new: str, base: str) -> float:
    """NEW's score on a board: 1 if its result (W, D or L) beat BASE's, ½ if equal, 0 if worse."""
    if new == base:
        return 0.5
    return 1.0 if _SCORE[new] > _SCORE[base] else 0.0


@dataclass
class Comparison:
    """The comparison's pairs as their results come, and the SPRT over the complete ones in schedule order."""

    roles: Roles
    sprt: Sprt
    rounds: int
    every: int = 10
    """A running report every this many pairs (and at the end)."""
    counts: PairCounts = field(default_factory=PairCounts)
    llr: float = 0.0
    verdict: str | None = None
    """``"H1"``, ``"H0"``, or ``None`` while undecided."""
    stopped: str = ""
    """Why the test cannot go on (a compared bot was disqualified), else empty."""
    pairs_done: int = 0
    pairs_skipped: int = 0
    matches_counted: int = 0

    def __post_init__(self) -> None:
        self._pairs = iter_pairs(self.roles, self.rounds)
        self._next: Pair | None = next(self._pairs, None)
        self._results: dict[str, PlayedMatch] = {}

    @property
    def total_pairs(self) -> int:
        """Pairs in the whole schedule."""
        return self.rounds * self.roles.pairs_per_round

    @property
    def finished(self) -> bool:
        """Whether the test has ended (a verdict, no pairs left, or a compared bot disqualified)."""
        return self.verdict is not None or self._next is None or bool(self.stopped)

    def add(self, match: PlayedMatch, banned: dict[str, str] | None = None) -> list[str]:
        """Take a recorded match; return the lines to print (pairs completed in order, reports, the verdict).

        ``banned`` are the disqualified bots (with why): a pair one of them
        can no longer complete is skipped; a disqualified NEW or BASE stops the test.
        """
        banned = banned or {}
        if self.finished:
            return []
        self._results[match.key] = match
        lines: list[str] = []
        for role in (self.roles.new, self.roles.base):
            if role in banned and not self.stopped:
                self.stopped = f"{printable(role)} was disqualified: {banned[role]}"
        while self._next is not None and not self.verdict and not self.stopped:
            pair = self._next
            results = [self._results.get(key) for key in pair.keys]
            if any(r is None for r in results):
                if pair.opponent is not None and pair.opponent in banned:
                    self.pairs_skipped += 1
                    for key in pair.keys:
                        self._results.pop(key, None)
                    self._next = next(self._pairs, None)
                    continue
                break
            played = [r for r in results if r is not None]
            first, second = self._count(pair, played)
            lines.append(self.pair_line(pair, played, first, second))
            self._next = next(self._pairs, None)
            self.llr = self.sprt.llr(self.counts.pentanomial())
            self.verdict = self.sprt.verdict(self.llr)
            if self.verdict or self.pairs_done % self.every == 0 or self._next is None:
                lines += self.report_lines()
        return lines

    def _count(self, pair: Pair, played: list[PlayedMatch]) -> tuple[float, float]:
        for key in pair.keys:
            del self._results[key]
        if pair.opponent is None:
            first = _SCORE[outcome_for(played[0], "A")]
            second = _SCORE[outcome_for(played[1], "B")]
        else:
            new_a, new_b, base_a, base_b = played
            first = board_score(outcome_for(new_a, "A"), outcome_for(base_a, "A"))
            second = board_score(outcome_for(new_b, "B"), outcome_for(base_b, "B"))
        self.counts.add(first, second)
        self.pairs_done += 1
        self.matches_counted += len(played)
        return first, second

    # What to print -----------------------------------------------------------------
    def pair_line(self, pair: Pair, played: Sequence[PlayedMatch], first: float, second: float) -> str:
        """``Pair 12 (c12): new W D against base: 1.5 of 2``, or with the boards against an opponent."""
        new, base = printable(self.roles.new), printable(self.roles.base)
        head = f"Pair {pair.number} of {self.total_pairs} ({printable(pair.deal)}):"
        score = f"{_half(first + second)} of 2"
        if pair.opponent is None:
            results = f"{outcome_for(played[0], 'A')} {outcome_for(played[1], 'B')}"
            return f"{head} {new} {results} against {base}: {score}"
        new_a, new_b, base_a, base_b = played
        mine = f"{outcome_for(new_a, 'A')} {outcome_for(new_b, 'B')}"
        theirs = f"{outcome_for(base_a, 'A')} {outcome_for(base_b, 'B')}"
        return f"{head} {new} {mine}, {base} {theirs} against {printable(pair.opponent)}: {new} {score}"

    def report_lines(self) -> list[str]:
        """The running report: matches, W-D-L, pentanomial counts, Elo and nElo with 95% errors, LOS, LLR."""
        c = self.counts
        found = estimate(c.pentanomial())
        games = "boards" if self.roles.opponents else "games"
        first = (
            f"  {games.capitalize()} {2 * c.pairs}: W-D-L {c.wins}-{c.draws}-{c.losses}"
            f"  Ptnml(0-2) [{c.ll}, {c.ld}, {c.wl + c.dd}, {c.wd}, {c.ww}] (WL {c.wl}, DD {c.dd})"
        )
        if c.pairs < MIN_DEALS:
            elo = f"Elo n too small ({c.pairs} pairs)"
        elif math.isnan(found.elo_error95):
            elo = f"Elo {_signed(found.elo)} (every pair alike: no spread to measure)"
        else:
            elo = (
                f"Elo {_signed(found.elo)} ± {found.elo_error95:.1f},"
                f" nElo {_signed(found.nelo)} ± {found.nelo_error95:.1f}"
            )
        los = "-" if math.isnan(found.los) else f"{100 * found.los:.1f}%"
        s = self.sprt
        second = (
            f"  {elo}, LOS {los}, LLR {self.llr:.2f} ({s.lower:.2f}, {s.upper:.2f})"
            f" [{s.elo0:g}, {s.elo1:g}] {'nElo' if s.model == 'normalized' else 'Elo'}"
        )
        return [first, second]

    def verdict_line(self) -> str:
        """The ending: which hypothesis was accepted, or why there is none."""
        new, base = printable(self.roles.new), printable(self.roles.base)
        unit = "nElo" if self.sprt.model == "normalized" else "Elo"
        after = f"after {self.pairs_done} pairs ({self.matches_counted} matches)"
        if self.verdict == "H1":
            return (
                f"H1 accepted {after}: {new} is better than {base} "
                f"(by {self.sprt.elo1:g} {unit} rather than {self.sprt.elo0:g})."
            )
        if self.verdict == "H0":
            return (
                f"H0 accepted {after}: {new} is not better than {base} by {self.sprt.elo1:g} {unit} "
                f"(its gain is nearer {self.sprt.elo0:g})."
            )
        if self.stopped:
            return f"No verdict {after}: {self.stopped}."
        return (
            f"No verdict {after}: the LLR {self.llr:.2f} is still between {self.sprt.lower:.2f} and "
            f"{self.sprt.upper:.2f}. Run again with a larger --max-matches to go on."
        )

    @property
    def exit_code(self) -> int:
        """0 when H1 was accepted, 1 for H0, 2 without a verdict."""
        return {"H1": 0, "H0": 1}.get(self.verdict or "", 2)


def _half(value: float) -> str:
    return f"{value:g}"


def _signed(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf" if value < 0 else "-")
