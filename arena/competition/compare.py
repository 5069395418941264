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
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .._errors import ConfigError
from ..checks.hints import printable
from ..games import derive_seed
from .board import MIN_DEALS, disqualification
from .records import Record, outcome_for
from .schedule import Entrant, Scheduled, deal_seed, pairing_number
from .sprt import Sprt, estimate
from .store import PlayedMatch

_SCORE = {"W": 1.0, "D": 0.5, "L": 0.0}


# The schedule ----------------------------------------------------------------------
@dataclass(frozen=True)
class Roles:
    """Who is compared with whom, and against which field (none: head to head)."""

    new: Entrant
    base: Entrant
    opponents: tuple[Entrant, ...] = ()

    @classmethod
    def named(cls, new: str, base: str, *opponents: str) -> Roles:
        """Roles from plain names, in slots 0, 1, 2, ... (as a new comparison enters them)."""
        return cls(Entrant(new, 0), Entrant(base, 1), tuple(Entrant(o, 2 + i) for i, o in enumerate(opponents)))

    @property
    def names(self) -> list[str]:
        """NEW's, BASE's and the opponents' names."""
        return [e.name for e in (self.new, self.base, *self.opponents)]

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
    """One deal pair of a comparison: its matches, in schedule order."""

    number: int
    """1, 2, ... in schedule order."""
    deal: str
    opponent: str | None
    matches: tuple[Scheduled, ...]
    """NEW in seat A, then in seat B; against a field, then BASE in seat A and in seat B."""

    @property
    def keys(self) -> tuple[str, ...]:
        """Every match of the pair."""
        return tuple(m.key for m in self.matches)


def rounds_for(roles: Roles, max_matches: int) -> int:
    """How many rounds fit in ``max_matches`` (at least one)."""
    return max(1, max_matches // roles.matches_per_round)


def iter_pairs(roles: Roles, *, seed: int, rounds: int) -> Iterator[Pair]:
    """The comparison's deal pairs, in schedule order, made one at a time.

    Deals come from places, as a tournament's do (:mod:`arena.competition.schedule`):
    head to head, round ``r`` plays the deal a tournament of the two slots
    plays in cycle ``r``; against a field, NEW and BASE meet the opponent in
    slot ``s`` on deal ``derive_seed(seed, "compare", r, s)``, seat for seat.
    So a new version of NEW replays its previous version's deals, and BASE's
    matches, unchanged, need not be played again. The deal's last match tells
    the process pool that processes which played it may forget it: no reused
    process is handed one deal twice, NEW's boards and BASE's alike.
    """
    new, base = roles.new, roles.base
    number = 0
    for cycle in range(1, rounds + 1):
        if not roles.opponents:
            number += 1
            pairing = pairing_number(new.slot, base.slot)
            deal, deal_seed_ = f"c{cycle}-{new.label}-vs-{base.label}", deal_seed(seed, cycle, pairing)
            yield Pair(
                number,
                deal,
                None,
                (
                    _match(f"{deal}-a", cycle, deal, 0, new, base, deal_seed_, pairing, last=False),
                    _match(f"{deal}-b", cycle, deal, 1, base, new, deal_seed_, pairing, last=True),
                ),
            )
            continue
        for opponent in roles.opponents:
            number += 1
            deal, deal_seed_ = f"c{cycle}-vs-{opponent.label}", derive_seed(seed, "compare", cycle, opponent.slot)
            matches: list[Scheduled] = []
            for bot in (new, base):
                pairing = pairing_number(bot.slot, opponent.slot)
                head = f"c{cycle}-{bot.label}-vs-{opponent.label}"
                matches.append(_match(f"{head}-a", cycle, deal, 0, bot, opponent, deal_seed_, pairing, last=False))
                last = bot is base
                matches.append(_match(f"{head}-b", cycle, deal, 1, opponent, bot, deal_seed_, pairing, last=last))
            yield Pair(number, deal, opponent.name, tuple(matches))


def _match(
    key: str, cycle: int, deal: str, leg: int, a: Entrant, b: Entrant, seed: int, pairing: int, *, last: bool
) -> Scheduled:
    return Scheduled(
        key=key,
        cycle=cycle,
        deal=deal,
        leg=leg,
        bot_a=a.name,
        bot_b=b.name,
        seed=seed,
        pairing=pairing,
        shares_deal=True,
        versions=(a.version_id, b.version_id),
        last=last,
    )


def iter_compare_schedule(roles: Roles, *, seed: int, rounds: int) -> Iterator[Scheduled]:
    """Every match of the comparison, in the order they are started: pair by pair (see :func:`iter_pairs`).

    ``leg`` is 0 when the compared bot sits in seat A, 1 in seat B.
    """
    for pair in iter_pairs(roles, seed=seed, rounds=rounds):
        yield from pair.matches


def check_roles(roles: Roles) -> None:
    """Refuse a comparison whose bots are not different, or whose names make two matches share a key."""
    names = roles.names
    if len(set(names)) != len(names):
        raise ConfigError("compare: NEW, BASE and the opponents must be different bots")
    keys = [key for pair in iter_pairs(roles, seed=0, rounds=2) for key in pair.keys]
    deals = {pair.deal for pair in iter_pairs(roles, seed=0, rounds=2)}
    if len(set(keys)) != len(keys) or len(deals) != 2 * roles.pairs_per_round:
        raise ConfigError('two bots\' names make the same match key; rename one (name = "..." in its bot.toml)')


# Following the test ----------------------------------------------------------------
def board_score(new: str, base: str) -> float:
    """NEW's score on a board: 1 if its result (W, D or L) beat BASE's, ½ if equal, 0 if worse."""
    if new == base:
        return 0.5
    return 1.0 if _SCORE[new] > _SCORE[base] else 0.0


@dataclass
class Comparison:
    """The comparison's pairs as their results come, and the SPRT over the complete ones in schedule order.

    Everything is decided in schedule order, so that the same recorded
    matches give the same lines and the same verdict however many ran at
    once, and after a resume: the SPRT takes a pair when all of it and
    everything before it is recorded, and faults are counted match by match
    in that order, so a bot is disqualified (``max_faults``) at the same
    place of the schedule whatever order matches finished in. A pair in
    which an opponent is disqualified, and every later pair with it, is
    skipped; a disqualified NEW or BASE ends the test without a verdict.
    """

    roles: Roles
    sprt: Sprt
    rounds: int
    seed: int = 0
    every: int = 10
    """A running report every this many pairs (and at the end)."""
    max_faults: int | None = None
    """Disqualify a bot with more faults than this (as the tournament does); ``None``: never."""
    counts: Record = field(default_factory=Record)
    llr: float = 0.0
    verdict: str | None = None
    """``"H1"``, ``"H0"``, or ``None`` while undecided."""
    stopped: str = ""
    """Why the test cannot go on (a compared bot was disqualified), else empty."""
    pairs_done: int = 0
    pairs_skipped: int = 0
    matches_counted: int = 0
    banned: dict[str, str] = field(default_factory=dict)
    """Bots disqualified so far in schedule order, with why."""
    recorded: int = 0
    """The comparison's matches in its database, counted or not (the CLI sets it from its store): matches of later
    pairs still in play when the test ended are recorded too, and the verdict says how many it did not count."""

    def __post_init__(self) -> None:
        self._pairs = iter_pairs(self.roles, seed=self.seed, rounds=self.rounds)
        self._next: Pair | None = next(self._pairs, None)
        self._seen = 0
        """Matches of the next pair whose faults are counted."""
        self._results: dict[str, PlayedMatch] = {}
        self._faults: dict[str, Counter[str]] = {}
        self._announced: set[str] = set()

    @property
    def total_pairs(self) -> int:
        """Pairs in the whole schedule."""
        return self.rounds * self.roles.pairs_per_round

    @property
    def finished(self) -> bool:
        """Whether the test has ended (a verdict, no pairs left, or a compared bot disqualified)."""
        return self.verdict is not None or self._next is None or bool(self.stopped)

    def add(self, match: PlayedMatch) -> list[str]:
        """Take a recorded match; return the lines to print (pairs completed in order, reports, the verdict)."""
        if self.finished:
            return []
        self._results[match.key] = match
        return self._advance()

    def disqualify(self, bot: str, why: str) -> list[str]:
        """Take ``bot`` as disqualified (a run did, counting its faults as its matches ended, so a pair this test
        waits for may never be played); the lines to print, as :meth:`add`."""
        if self.finished or bot in self.banned:
            return []
        self.banned[bot] = why
        return self._advance()

    def _advance(self) -> list[str]:
        lines: list[str] = []
        while (pair := self._next) is not None and not self.finished:
            if not self._follow(pair):
                break
            played = [self._results.pop(key, None) for key in pair.keys]
            self._next, self._seen = next(self._pairs, None), 0
            compared = [name for name in (self.roles.new.name, self.roles.base.name) if name in self.banned]
            if compared:
                self.stopped = f"{printable(compared[0])} was disqualified: {self.banned[compared[0]]}"
            elif pair.opponent is not None and pair.opponent in self.banned:
                self.pairs_skipped += 1
                if pair.opponent not in self._announced:
                    self._announced.add(pair.opponent)
                    lines.append(
                        f"{printable(pair.opponent)} was disqualified ({self.banned[pair.opponent]}):"
                        f" its pairs from pair {pair.number} on are not counted"
                    )
                if all(o.name in self.banned for o in self.roles.opponents):
                    self.stopped = "every opponent was disqualified"
            else:
                results = [m for m in played if m is not None]
                first, second = self._count(pair, results)
                lines.append(self.pair_line(pair, results, first, second))
                self.llr = self.sprt.llr(self.counts.pentanomial())
                self.verdict = self.sprt.verdict(self.llr)
                if self.verdict or self.pairs_done % self.every == 0:
                    lines += self.report_lines()
                    continue
            if self.finished and self.pairs_done:
                lines += self.report_lines()
        return lines

    def _follow(self, pair: Pair) -> bool:
        """Count the faults of ``pair``'s recorded matches in order; whether it is over (all in, or doomed)."""
        compared = (self.roles.new.name, self.roles.base.name)
        while self._seen < len(pair.matches):
            scheduled = pair.matches[self._seen]
            if {scheduled.bot_a, scheduled.bot_b, *compared} & self.banned.keys():
                return True  # the rest of the pair will not be played, or the test is over
            played = self._results.get(scheduled.key)
            if played is None:
                return False
            self._seen += 1
            for fault in played.faults:
                kinds = self._faults.setdefault(fault.bot, Counter())
                kinds[fault.kind] += 1
                if self.max_faults is not None and fault.bot not in self.banned:
                    why = disqualification(kinds, self.max_faults)
                    if why:
                        self.banned[fault.bot] = why
        return True

    def _count(self, pair: Pair, played: list[PlayedMatch]) -> tuple[float, float]:
        if pair.opponent is None:
            first = _SCORE[outcome_for(played[0], "A")]
            second = _SCORE[outcome_for(played[1], "B")]
        else:
            new_a, new_b, base_a, base_b = played
            first = board_score(outcome_for(new_a, "A"), outcome_for(base_a, "A"))
            second = board_score(outcome_for(new_b, "B"), outcome_for(base_b, "B"))
        self.counts.add_pair(first, second)
        self.pairs_done += 1
        self.matches_counted += len(played)
        return first, second

    # What to print -----------------------------------------------------------------
    def pair_line(self, pair: Pair, played: Sequence[PlayedMatch], first: float, second: float) -> str:
        """``Pair 12 (c12): new W D against base: 1.5 of 2``, or with the boards against an opponent."""
        new, base = printable(self.roles.new.name), printable(self.roles.base.name)
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
            elo = f"Elo n too small ({plural(c.pairs, 'pair')})"
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
        new, base = printable(self.roles.new.name), printable(self.roles.base.name)
        unit = "nElo" if self.sprt.model == "normalized" else "Elo"
        extra = self.recorded - self.matches_counted
        beyond = f"; {extra} more recorded, in pairs it did not count" if extra > 0 else ""  # see `recorded`
        after = f"after {plural(self.pairs_done, 'pair')} ({plural(self.matches_counted, 'match')}{beyond})"
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


def plural(count: int, noun: str) -> str:
    """``1 pair``, ``2 pairs``, ``1 match``, ``2 matches``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}{'es' if noun.endswith('ch') else 's'}"


def _half(value: float) -> str:
    return f"{value:g}"


def _signed(value: float) -> str:
    return f"{value + 0.0:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf" if value < 0 else "-")
