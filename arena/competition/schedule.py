"""The schedule: who meets whom, in which seats, on which deal, in what order.

Round-robin (every pair of bots) or gauntlet (each challenger against every
bot that is not one: one challenger and a field, or a class's students and the
reference bots), repeated ``cycles`` times. With **duplicate deals** (on by default for
card games) each deal is played twice with the seats swapped, and the two
matches share a ``deal`` id, so the luck of the cards cancels.

**Deals come from the match's place, not from the bots' names.** Each bot has
a *slot*: its place in the competition (the order the bots joined it, the
config's order at first). A pair of slots has a fixed *pairing* number, and a
match's deal seed is derived from the competition seed, the cycle and the
pairing (:func:`deal_seed`). So two competitions with the same seed and the
bots in the same order play the same deals whatever the bots are called (the
challenge's bots against their ports, say); a new version of a bot keeps its
slot and replays its pairings on the deals its previous version had; and a
bot added later gets new pairings without moving anyone else's deals. A
fixed list of deal seeds (``--deals FILE``, like a chess tournament's opening
book) deals the file's deal number ``cycle`` to every pairing of that cycle.

**No bot process sees a deal twice where memory would tell it hidden cards.**
The two legs of a duplicate pair share a deal, so they are never played by
one process of a bot that could remember the first leg: the process pool
keeps track of that for reused processes (:mod:`arena.supervisor._pool`), and
a pairing with a *persistent* bot (one process for the whole competition)
plays its two legs on two different deals. The two legs are never played at
once either (:mod:`arena.competition.runner`, :mod:`arena.competition.ladder`),
so two processes of a bot are never in one deal together. The id a bot is
told (:attr:`Scheduled.match_id`) is a hash of the match's deal seed and key,
so it gives away neither the leg nor the pairing, nor, where the competition's
seed is secret (a server's), anything a bot could compute.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .._errors import ConfigError
from ..games import derive_seed
from ..supervisor.play import opaque_match_id
from .store import version_label

SCHEMES = ("place", "names")
"""How deal seeds are derived: from the match's place (now), or from the bots' names (schema 1 tournaments)."""


@dataclass(frozen=True)
class Entrant:
    """A bot as the schedule sees it: its name, its slot in the competition, and how it keeps processes."""

    name: str
    slot: int
    version: int = 1
    """Its version number: later versions are named ``name.vN`` in match keys."""
    version_id: int | None = None
    """The store's id of this version (carried into each match, for the record)."""
    persistent: bool = False
    """One process plays every match of the bot, in schedule order: it must never meet a deal twice."""

    @property
    def label(self) -> str:
        """How the bot is named in match keys."""
        return version_label(self.name, self.version)


# The schedule ------------------------------------------------------------------
@dataclass(frozen=True)
class Scheduled:
    """One match of the schedule: who sits where, and its seed."""

    key: str
    """Unique in the competition, readable (``c1-x-vs-y-a``); matches are recorded and replayed by it."""
    cycle: int
    deal: str
    leg: int
    bot_a: str
    bot_b: str
    seed: int
    pairing: int = 0
    """The pairing's number, from the two bots' slots (:func:`pairing_number`)."""
    shares_deal: bool = False
    """Whether the other leg of this pairing and cycle plays the same deal (a duplicate pair)."""
    versions: tuple[int | None, int | None] = (None, None)
    """The store's ids of the bot versions in seats A and B."""
    persistent: tuple[str, ...] = ()
    """The bots of this match that are persistent (their matches must be played in schedule order)."""
    last: bool | None = None
    """Whether no later match of the schedule plays this deal; ``None``: the pairing's second leg is the last.

    Set by schedules whose deals are played by more than one pairing (``arena
    compare`` deals each of NEW's boards to BASE too).
    """

    def bot(self, seat: str) -> str:
        """The bot in ``seat``."""
        return self.bot_a if seat == "A" else self.bot_b

    @property
    def match_id(self) -> str:
        """The id the bots are told: stable, unique, and opaque (it tells neither the leg nor the bots)."""
        return opaque_match_id(self.seed, self.key)

    @property
    def last_of_deal(self) -> bool:
        """Whether no later match of the schedule plays this match's deal (its processes may forget it)."""
        if self.last is not None:
            return self.last
        return not self.shares_deal or self.leg == 1


def pairs(names: Sequence[str], fmt: str, challenger: str | Sequence[str] = "") -> list[tuple[str, str]]:
    """The pairs that meet once per cycle: every pair (round-robin), or each challenger against each other bot.

    Round-robin pairs come in rounds by the circle method, so every bot plays
    once per round and a tournament stopped half-way has been fair to all.
    Each pair is ordered as the bots are in ``names``. A gauntlet's
    ``challenger`` is one name (default: the first bot) or several;
    challengers never meet one another.
    """
    if fmt == "gauntlet":
        challengers = [challenger or names[0]] if isinstance(challenger, str) else list(challenger) or [names[0]]
        for first in challengers:
            if first not in names:
                raise ConfigError(f"gauntlet challenger {first!r} is not one of the bots: {', '.join(names)}")
        return [(first, other) for first in challengers for other in names if other not in challengers]
    players: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    index = {name: i for i, name in enumerate(names)}
    out: list[tuple[str, str]] = []
    for _ in range(len(players) - 1):
        half = len(players) // 2
        for a, b in zip(players[:half], reversed(players[half:]), strict=True):
            if a is not None and b is not None:
                out.append((a, b) if index[a] < index[b] else (b, a))
        players = [players[0], players[-1], *players[1:-1]]
    return out


def pairing_number(slot_one: int, slot_two: int) -> int:
    """The number of the pairing of two slots: (0,1) is 0, (0,2) 1, (1,2) 2, (0,3) 3, ...

    A bot joining later takes the next slot, so its pairings get new numbers
    and every existing pairing keeps its own.
    """
    low, high = sorted((slot_one, slot_two))
    if low == high or low < 0:
        raise ValueError(f"no pairing of slots {slot_one} and {slot_two}")
    return high * (high - 1) // 2 + low


def deal_seed(
    seed: int,
    cycle: int,
    pairing: int,
    leg: int | None = None,
    *,
    deals: Sequence[int] = (),
) -> int:
    """The seed of the deal a pairing plays in ``cycle`` (for one ``leg`` when the legs do not share a deal).

    With a list of ``deals``, cycle ``c`` plays the list's deal ``c`` (from 1;
    it wraps around) in every pairing.
    """
    if deals:
        return deals[(cycle - 1) % len(deals)]
    if leg is None:
        return derive_seed(seed, "deal", cycle, pairing)
    return derive_seed(seed, "deal", cycle, pairing, leg)


def iter_schedule(
    field: Sequence[Entrant | str],
    *,
    seed: int,
    cycles: int,
    duplicate: bool,
    fmt: str = "round-robin",
    challenger: str | Sequence[str] = "",
    deals: Sequence[int] = (),
    scheme: str = "place",
) -> Iterator[Scheduled]:
    """Every match of the schedule, in the order they are started, made one at a time.

    ``field`` is the bots in slot order (a plain name is an entrant in the
    next slot). With ``duplicate`` both legs of a pairing share its deal,
    seats swapped, unless one of the bots is persistent (then each leg has a
    deal of its own); without, the pairing plays once a cycle and the seats
    alternate from one cycle to the next. ``scheme="names"`` derives deals as
    schema-1 tournaments did (from the bots' names), so they resume unchanged.
    """
    entrants = [e if isinstance(e, Entrant) else Entrant(e, slot) for slot, e in enumerate(field)]
    if len(entrants) < 2:
        return
    by_name = {e.name: e for e in entrants}
    if len(by_name) != len(entrants):
        raise ConfigError("two bots of the field have the same name")
    order = pairs([e.name for e in sorted(entrants, key=lambda e: e.slot)], fmt, challenger)
    check_keys(entrants, order)
    for cycle in range(1, cycles + 1):
        for first_name, second_name in order:
            first, second = by_name[first_name], by_name[second_name]
            pairing = pairing_number(first.slot, second.slot)
            persistent = tuple(e.name for e in (first, second) if e.persistent)
            separate = duplicate and bool(persistent) and not deals
            if duplicate:
                seatings = [(first, second), (second, first)]
            else:
                seatings = [(first, second) if cycle % 2 else (second, first)]
            deal = f"c{cycle}-{first.label}-vs-{second.label}"
            for leg, (a, b) in enumerate(seatings):
                if scheme == "names":
                    match_seed = derive_seed(seed, "deal", cycle, *sorted((first.name, second.name)))
                else:
                    match_seed = deal_seed(seed, cycle, pairing, leg if separate else None, deals=deals)
                yield Scheduled(
                    key=f"{deal}-{'ab'[leg]}",
                    cycle=cycle,
                    deal=f"{deal}-{'ab'[leg]}" if separate else deal,
                    leg=leg,
                    bot_a=a.name,
                    bot_b=b.name,
                    seed=match_seed,
                    pairing=pairing,
                    shares_deal=duplicate and not separate,
                    versions=(a.version_id, b.version_id),
                    persistent=persistent,
                )


def check_keys(entrants: Sequence[Entrant], order: Sequence[tuple[str, str]]) -> None:
    """Refuse a field whose names would make two matches' keys the same (they must tell matches apart)."""
    labels = {e.name: e.label for e in entrants}
    keys = {f"{labels[a]}-vs-{labels[b]}" for a, b in order}
    if len(keys) != len(order) or len(set(labels.values())) != len(labels):
        raise ConfigError('two bots\' names make the same match key; rename one (name = "..." in its bot.toml)')


def count_schedule(
    field: Sequence[Entrant | str], *, cycles: int, duplicate: bool, fmt: str = "round-robin", challengers: int = 1
) -> int:
    """How many matches :func:`iter_schedule` makes, without making them (a gauntlet's with ``challengers`` of them)."""
    n = len(field)
    if n < 2:
        return 0
    per_cycle = challengers * (n - challengers) if fmt == "gauntlet" else n * (n - 1) // 2
    return max(0, per_cycle) * cycles * (2 if duplicate else 1)


def make_schedule(
    field: Sequence[Entrant | str],
    *,
    seed: int,
    cycles: int,
    duplicate: bool,
    fmt: str = "round-robin",
    challenger: str | Sequence[str] = "",
    deals: Sequence[int] = (),
    scheme: str = "place",
) -> list[Scheduled]:
    """Every match of the schedule as a list (see :func:`iter_schedule`)."""
    return list(
        iter_schedule(
            field,
            seed=seed,
            cycles=cycles,
            duplicate=duplicate,
            fmt=fmt,
            challenger=challenger,
            deals=deals,
            scheme=scheme,
        )
    )
