"""The schedule: who meets whom, in which seats, on which deal, in what order.

Round-robin (every pair of bots) or gauntlet (each challenger against every
bot that is not one: one challenger and a field, or a class's students and the
reference bots), repeated ``cycles`` times. With **duplicate deals** (on by default for
card games) each deal is played twice with the seats swapped, and the two
matches share a ``deal`` id, so the luck of the cards cancels. Every match
seed derives from the tournament seed (:func:`arena.games.derive_seed`) and is
recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import ConfigError
from ..games import derive_seed


# The schedule ------------------------------------------------------------------
@dataclass(frozen=True)
class Scheduled:
    """One match of the schedule: who sits where, and its seed."""

    key: str
    """Unique in the tournament; also the ``match_id`` the bots are told."""
    cycle: int
    deal: str
    leg: int
    bot_a: str
    bot_b: str
    seed: int

    def bot(self, seat: str) -> str:
        """The bot in ``seat``."""
        return self.bot_a if seat == "A" else self.bot_b


def pairs(names: Sequence[str], fmt: str, challenger: str | Sequence[str] = "") -> list[tuple[str, str]]:
    """The pairs that meet once per cycle: every pair (round-robin), or each challenger against each other bot.

    Round-robin pairs come in rounds by the circle method, so every bot plays
    once per round and a tournament stopped half-way has been fair to all. A
    gauntlet's ``challenger`` is one name (default: the first bot) or several;
    challengers never meet one another.
    """
    if fmt == "gauntlet":
        challengers = [challenger or names[0]] if isinstance(challenger, str) else list(challenger) or [names[0]]
        for first in challengers:
            if first not in names:
                raise ConfigError(f"gauntlet challenger {first!r} is not one of the bots: {', '.join(names)}")
        return [(first, other) for first in challengers for other in names if other not in challengers]
    players: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    out: list[tuple[str, str]] = []
    for _ in range(len(players) - 1):
        half = len(players) // 2
        for a, b in zip(players[:half], reversed(players[half:]), strict=True):
            if a is not None and b is not None:
                first, second = (a, b) if names.index(a) < names.index(b) else (b, a)
                out.append((first, second))
        players = [players[0], players[-1], *players[1:-1]]
    return out


def make_schedule(
    names: Sequence[str],
    *,
    seed: int,
    cycles: int,
    duplicate: bool,
    fmt: str = "round-robin",
    challenger: str | Sequence[str] = "",
) -> list[Scheduled]:
    """Every match of the tournament, in the order they are started.

    A deal's seed is ``derive_seed(seed, "deal", cycle, first, second)``, so
    it depends on the bots' names and not on their order on the command line
    or on how many cycles are asked for. With ``duplicate`` both legs share
    the deal's seed with the seats swapped; without, the seats alternate from
    one cycle to the next.
    """
    out: list[Scheduled] = []
    for cycle in range(1, cycles + 1):
        for first, second in pairs(names, fmt, challenger):
            deal = f"c{cycle}-{first}-vs-{second}"
            deal_seed = derive_seed(seed, "deal", cycle, *sorted((first, second)))
            if duplicate:
                seatings = [(first, second), (second, first)]
            else:
                seatings = [(first, second) if cycle % 2 else (second, first)]
            for leg, (a, b) in enumerate(seatings):
                out.append(Scheduled(f"{deal}-{'ab'[leg]}", cycle, deal, leg, a, b, deal_seed))
    keys = {m.key for m in out}
    if len(keys) != len(out):
        raise ConfigError('two bots\' names make the same match key; rename one (name = "..." in its bot.toml)')
    return out
