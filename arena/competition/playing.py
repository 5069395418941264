"""Playing one scheduled match with processes from a pool, and the row the store keeps of it.

The tournament's runner, the ladder, a match worker process and a Dask worker
all play a match this one way; it sits apart from the runner so that the
runner may hand matches to worker processes (:mod:`arena.competition.worker`),
which play them here, without the two modules importing each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import trio

from protocol import SEATS, Limits, Result

from .._errors import ArenaError, BotFault
from ..bots.spec import BotSpec
from ..games import Game
from ..supervisor import BotPool, BotProcess
from ..supervisor.match import MatchRunner, Seat
from ..supervisor.matchlog import MatchLog
from ..supervisor.wires import wire_for
from .schedule import Scheduled
from .store import FaultRow, PlayedMatch


class MatchLost(ArenaError):
    """A match was lost with the process playing it: nothing of it is recorded, and it is played again.

    (Here, not in :mod:`.ladder`, which names it too: a match worker raises it, and importing the ladder would load
    numpy into every worker for one exception class.)"""


MAX_GAME_ERRORS = 3
"""Matches the game's own code may end (:attr:`PlayedMatch.game_error`) before a tournament starts no more and a
ladder pauses: a broken game would only fail again."""


async def play_scheduled(
    game: Game,
    specs: Mapping[str, BotSpec],
    limits: Limits,
    scheduled: Scheduled,
    pool: BotPool,
    *,
    log_path: Path | None,
    tournament_id: int,
    seated: Callable[[], None] = lambda: None,
) -> PlayedMatch:
    """Play ``scheduled`` with processes from ``pool`` and return it as the store records it.

    ``seated`` is called once both seats have their processes (the runner
    then starts those of the next matches). Where the seats' processes start
    for each match, the two are taken side by side: where both must start,
    they start at once (a reused process is mostly idle: taken in turn).

    Each seat's process has never played this match's deal (see
    :meth:`~arena.supervisor._pool.BotPool.acquire`), and the bots are told
    the match's opaque id, not its key.
    """
    names = (scheduled.bot_a, scheduled.bot_b)
    bots: list[BotProcess] = []
    spawn_faults: dict[int, BotFault] = {}

    async def take(index: int, name: str, got: dict[int, BotProcess]) -> None:
        try:
            got[index] = await pool.acquire(specs[name], limits, deal=scheduled.seed)
        except BotFault as fault:
            spawn_faults[index] = fault

    try:
        got: dict[int, BotProcess] = {}
        try:
            if pool.reuse and all(specs[name].reuse for name in names):  # mostly idle processes: no start to wait on
                for index, name in enumerate(names):
                    await take(index, name, got)
            else:
                async with trio.open_nursery() as seating:  # side by side: two starts take the time of one
                    for index, name in enumerate(names):
                        seating.start_soon(take, index, name, got)
        finally:
            bots = [got[index] for index in sorted(got)]
        if spawn_faults:
            for bot in bots:  # the seat that did start played nothing: back to the pool
                pool.release(bot, faulted=False)
            return _unplayed(game, scheduled, spawn_faults)
        seated()
        seats = [
            Seat(bot=bot, limits=limits, name=name, wire=wire_for(bot.spec.protocol, game))
            for bot, name in zip(bots, names, strict=True)
        ]
        log = MatchLog(log_path)
        try:
            runner = MatchRunner(
                game,
                scheduled.seed,
                seats,
                match_id=scheduled.match_id,
                log=log,
                header_extra={
                    "tournament": tournament_id,
                    "key": scheduled.key,
                    "cycle": scheduled.cycle,
                    "deal": scheduled.deal,
                    "leg": scheduled.leg,
                },
            )
            record = await runner.run()
        finally:
            log.close()
    except BaseException:
        for bot in bots:  # abandoned mid-match (Ctrl-C): never reuse these
            pool.release(bot, faulted=True)
        raise
    offenders = {f.seat for f in record.faults}
    for seat, bot in zip(SEATS, bots, strict=True):  # after a game error a bot may still be awaited: not reused
        pool.release(bot, faulted=seat in offenders or bool(record.game_error))
    return _played(
        scheduled,
        record.result,
        tuple(
            FaultRow(f.seat, scheduled.bot(f.seat), f.kind, f.reason, f.request_id, f.request_type)
            for f in record.faults
        ),
        duration_s=record.duration_s,
        peak_rss=(record.stats[0].peak_rss or None, record.stats[1].peak_rss or None),
        log_path=str(record.log_path) if record.log_path else None,
        game_error=record.game_error,
        think_s=(record.stats[0].think_s, record.stats[1].think_s),
    )


def _unplayed(game: Game, scheduled: Scheduled, faults: dict[int, BotFault]) -> PlayedMatch:
    """A bot that could not even start forfeits the match before it begins."""
    reason = "; ".join(f"{SEATS[s]} {f.kind}: {f.reason}" for s, f in sorted(faults.items()))
    result = game.new_match(scheduled.seed).forfeit(frozenset(faults), reason)
    rows = tuple(FaultRow(SEATS[s], scheduled.bot(SEATS[s]), f.kind, f.reason) for s, f in sorted(faults.items()))
    return _played(scheduled, result, rows)


def _played(
    scheduled: Scheduled,
    result: Result,
    faults: tuple[FaultRow, ...],
    *,
    duration_s: float = 0.0,
    peak_rss: tuple[int | None, int | None] = (None, None),
    log_path: str | None = None,
    game_error: str = "",
    think_s: tuple[float, float] = (0.0, 0.0),
) -> PlayedMatch:
    """``scheduled`` as the store records it, once it ended with ``result``."""
    return PlayedMatch(
        key=scheduled.key,
        cycle=scheduled.cycle,
        deal=scheduled.deal,
        leg=scheduled.leg,
        bot_a=scheduled.bot_a,
        bot_b=scheduled.bot_b,
        seed=scheduled.seed,
        points=(float(result.points[0]), float(result.points[1])),
        winner=result.winner,
        forfeit=tuple(result.forfeit),
        reason=result.reason,
        faults=faults,
        duration_s=duration_s,
        peak_rss=peak_rss,
        log_path=log_path,
        versions=scheduled.versions,
        game_error=game_error,
        think_s=think_s,
    )


# Admission ----------------------------------------------------------------------------
