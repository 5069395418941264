"""A pool of bot processes, so a bot that declares ``reuse = true`` plays many matches per process.

Each process lives in a task of the pool's nursery that holds
:func:`arena.supervisor._process.open_bot` open (so the spawning, stderr draining and
tree-kill guarantees of ``open_bot`` are kept), hands the
:class:`~arena.supervisor._process.BotProcess` out, and waits to be told to stop.

* ``acquire`` gives an idle process of the bot if there is one, else starts one;
* ``release`` puts a healthy process of a reusable bot back (the protocol's
  ``match_start`` / ``match_end`` framing tells it where one match ends); any
  other process is stopped: politely (``quit``) when it did nothing wrong,
  killed at once when it faulted, so a faulted bot always restarts fresh;
* leaving the pool sends ``quit`` to every idle process and reaps them all;
  a cancel (Ctrl-C) kills them instead.

**No CPU is free while idle.** A process's CPU since its last answer is
charged to its next move (see :mod:`.match`) and bounded by a background
allowance; while it waits in the pool (:meth:`BotPool.watch_idle`), one
whose processes have used more than that allowance, or than its next move
could, is ended at once, and its next match records the fault.

**No process plays a deal twice.** ``acquire`` is told the match's deal
(its seed); a reused process remembers the deals it has played and is never
handed a match on one of them, so the two legs of a duplicate pair (the same
cards, seats swapped) are never played by one process that could remember
the first leg and know its opponent's hand in the second. The caller says
when a deal has no matches left (``forget``); a process that remembers
``MAX_DEALS_REMEMBERED`` deals is retired and a fresh one takes its place, so
memory stays bounded however long the run. Persistent bots are exempt: the
schedule gives them a deal of their own for every match.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocol import Limits

from .._errors import BotFault
from ..bots.spec import BotSpec
from ._process import BotProcess, SpawnOptions, open_bot
from .play import goodbye_line, spawn_options

IDLE_CHECK_S = 0.5
"""How often the CPU of the processes idle in a pool is read (or ten times as long as reading took)."""
STARTS_AHEAD = 2
"""How many matches waiting their turn in a supervisor process have their fresh processes started ahead
(:meth:`BotPool.prepare_for`): a sandboxed start takes longer than a quick match, so with one match ahead the
next match still waited for its processes; with two, two matches' starts run side by side."""
MAX_DEALS_REMEMBERED = 1024
"""A reused process that has played this many deals still to be played again is retired (bounded memory)."""


@dataclass(eq=False)
class _Held:
    """A process held open by its task, and how it should stop."""

    bot: BotProcess
    stop: trio.Event = field(default_factory=trio.Event)
    polite: bool = True
    deals: set[int] = field(default_factory=set)
    """Deals this process has played that may still come again (it must not be given them)."""


@dataclass(eq=False)
class _Spare:
    """A fresh process started ahead of the match that will take it (see :meth:`BotPool.prepare`)."""

    ready: trio.Event = field(default_factory=trio.Event)
    held: _Held | None = None
    fault: BotFault | None = None
    """Why it could not start: the match that takes it forfeits, as if it had started it itself."""
    dropped: bool = False
    """Its bot was dropped (:meth:`BotPool.drop`) while it started: it stops once it has."""


@dataclass
class PoolStats:
    """How many processes the pool started and how many matches reused one."""

    started: int = 0
    reused: int = 0
    discarded_after_fault: int = 0
    kept_from_a_deal: int = 0
    """Times an idle process was passed over because it had played the match's deal."""
    prepared: int = 0
    """Processes started ahead of their match (:meth:`BotPool.prepare`, :meth:`BotPool.warm`), of ``started``."""


class BotPool:
    """Bot processes kept between matches (use :func:`open_pool`)."""

    def __init__(
        self,
        nursery: trio.Nursery,
        *,
        reuse: bool = True,
        stderr_path: Callable[[BotSpec, int], Path | None] | None = None,
    ) -> None:
        self._nursery = nursery
        self.reuse = reuse
        """``False`` turns reuse off for every bot (each match gets fresh processes)."""
        self._stderr_path = stderr_path or (lambda spec, n: None)
        self._idle: dict[str, list[_Held]] = {}
        self._held: dict[int, _Held] = {}
        self._counter: dict[str, int] = {}
        self._spares: dict[str, list[_Spare]] = {}
        self._closed = False
        self._watching = trio.CancelScope()
        self.stats = PoolStats()

    def prepare(self, spec: BotSpec, limits: Limits, count: int = 1) -> None:
        """Have ``count`` fresh processes of ``spec`` started ahead, in the background, for matches soon to come.

        The next :meth:`acquire` of ``spec`` takes the oldest: a bot that
        starts a process for every match then starts it while the matches
        before play, on a CPU the arena and those matches leave idle. Only for
        such bots (a reused bot keeps its processes; a persistent one has its
        one). Those already started ahead and not yet taken count: as many
        start now as ``count`` lacks. A fresh process has played nothing, so
        any match may take any of them: which one a match gets changes
        nothing it can see.
        """
        if self._closed or (self.reuse and spec.reuse):
            return
        spares = self._spares.setdefault(spec.name, [])
        while len(spares) < count:
            spare = _Spare()
            spares.append(spare)
            self._nursery.start_soon(self._start_spare, spec, self._options(spec, limits), spare)

    def prepare_for(self, seats: Iterable[BotSpec], limits: Limits) -> None:
        """Have a process started ahead for each of ``seats`` (the seats of the matches to come, in order; a bot
        seated twice gets two): :meth:`prepare` for each bot, the matches' fresh processes starting side by side."""
        specs: dict[str, BotSpec] = {}
        wanted: Counter[str] = Counter()
        for spec in seats:
            specs.setdefault(spec.name, spec)
            wanted[spec.name] += 1
        for name, count in wanted.items():
            self.prepare(specs[name], limits, count)

    async def warm(self, spec: BotSpec, limits: Limits, count: int) -> None:
        """Start ``count`` processes of ``spec`` and keep them idle for its first matches; return once they are up.

        For a bot about to enter a ladder: its first pair then takes processes
        that are ready rather than waiting, holding the ladder's slots, for
        them to start. A fresh process has played no deal, so any match may
        take it. One that cannot start is left to the match that needs it
        (which starts its own, and faults as it would have).
        """

        async def start() -> None:
            with contextlib.suppress(BotFault):
                held: _Held = await self._nursery.start(self._hold, spec, self._options(spec, limits))
                self.stats.started += 1
                self.stats.prepared += 1
                if self._closed:
                    held.stop.set()
                else:
                    self._idle.setdefault(spec.name, []).append(held)

        if self._closed:
            return
        async with trio.open_nursery() as starting:
            for _ in range(count):
                starting.start_soon(start)

    async def _start_spare(self, spec: BotSpec, options: SpawnOptions, spare: _Spare) -> None:
        try:
            spare.held = await self._nursery.start(self._hold, spec, options)
            self.stats.started += 1
            self.stats.prepared += 1
        except BotFault as fault:
            spare.fault = fault
        finally:
            spare.ready.set()
        if spare.dropped and spare.held is not None:  # its bot will play no more (and it is in no list)
            spare.held.stop.set()
        if self._closed:  # no match will take it
            self._discard_spares(spec.name)

    def _options(self, spec: BotSpec, limits: Limits) -> SpawnOptions:
        number = self._counter.get(spec.name, 0) + 1
        self._counter[spec.name] = number
        return spawn_options(spec, limits, self._stderr_path(spec, number))

    async def _take_spare(self, spec: BotSpec) -> BotProcess | None:
        """The process :meth:`prepare` started for ``spec``, once it has started (``None``: none, or it died)."""
        spares = self._spares.get(spec.name)
        if not spares:
            return None
        spare = spares.pop(0)  # this acquire's alone, though it may still be starting
        try:
            await spare.ready.wait()
        except BaseException:  # cancelled: left for the next acquire, or for close
            spares.insert(0, spare)
            raise
        if spare.fault is not None:
            raise spare.fault
        assert spare.held is not None
        bot = spare.held.bot
        if bot.breach is None and (bot.process.poll() is not None or bot.closed):  # it exited: start another
            spare.held.polite = False
            spare.held.stop.set()
            return None
        return bot

    async def acquire(self, spec: BotSpec, limits: Limits, *, deal: int | None = None) -> BotProcess:
        """A process of ``spec`` ready for a new match on ``deal`` (raises ``Crash`` when it cannot start).

        A reused process that has played ``deal`` is never given it again
        (persistent bots excepted: their schedule never repeats a deal).
        """
        idle = self._idle.get(spec.name, [])
        for held in reversed(list(idle)):
            if held.bot.breach is not None:  # ended while idle: the match it is given records why
                idle.remove(held)
                self._remember(held, deal, spec)
                return held.bot
            if held.bot.process.poll() is not None or held.bot.closed:
                idle.remove(held)
                held.polite = False  # it exited while idle: reap it and start another
                held.stop.set()
                continue
            if deal is not None and deal in held.deals and not spec.persistent:
                self.stats.kept_from_a_deal += 1
                continue
            idle.remove(held)
            if len(held.deals) >= MAX_DEALS_REMEMBERED:
                held.stop.set()  # it has seen enough deals that may come again: retire it, politely
                continue
            self.stats.reused += 1
            self._remember(held, deal, spec)
            return held.bot
        prepared = await self._take_spare(spec)
        if prepared is not None:
            return prepared
        started: _Held = await self._nursery.start(self._hold, spec, self._options(spec, limits))
        self.stats.started += 1
        self._remember(started, deal, spec)
        return started.bot

    def _remember(self, held: _Held, deal: int | None, spec: BotSpec) -> None:
        if deal is not None and self.reuse and spec.reuse and not spec.persistent:
            held.deals.add(deal)

    def forget(self, deal: int) -> None:
        """No match on ``deal`` is left to play: processes that played it may play anything again."""
        for held in self._held.values():
            held.deals.discard(deal)

    def release(self, bot: BotProcess, *, faulted: bool) -> None:
        """Give ``bot`` back after a match; ``faulted`` processes are killed, never reused."""
        held = self._held.get(id(bot))
        if held is None:
            return
        if faulted:
            self.stats.discarded_after_fault += 1
        if not faulted and self.reuse and bot.spec.reuse and bot.process.poll() is None:
            self._idle.setdefault(bot.spec.name, []).append(held)
            return
        held.polite = not faulted
        held.stop.set()

    def drop(self, name: str) -> None:
        """Stop the idle processes of bot ``name`` (it will play no more: a retired version), and those started
        ahead for it (once started, if still starting) that no match has taken."""
        for held in self._idle.pop(name, []):
            held.stop.set()
        spares = self._spares.get(name, [])
        for spare in spares:
            spare.dropped = True
            if spare.held is not None:
                spare.held.stop.set()
        spares.clear()  # (in place: a cancelled acquire puts its spare back in this list, where close finds it)

    def idle_counts(self) -> dict[str, int]:
        """Idle processes kept, by bot name (bots with none left out)."""
        return {name: len(idle) for name, idle in self._idle.items() if idle}

    async def watch_idle(self) -> None:
        """Until the pool closes: end each process not in a match whose CPU since its last answer is over its allowance.

        See :meth:`BotProcess.idle_cpu_fault`. Read every ``IDLE_CHECK_S``,
        or ten times as long as a reading of every such process took (reading
        a tree from ``/proc``, where no cgroup counts it, costs a walk of
        ``/proc``): the arena never spends more than a tenth of a CPU on it.
        """
        with self._watching:
            while not self._closed:
                started = trio.current_time()
                for bot in self._waiting():
                    fault = bot.idle_cpu_fault()
                    if fault is not None:
                        bot.end_for(fault)
                took = trio.current_time() - started
                await trio.sleep(max(IDLE_CHECK_S, 10 * took))

    def _waiting(self) -> list[BotProcess]:
        """The live processes not in a match: idle ones, and those started ahead of theirs."""
        found = [held.bot for idle in self._idle.values() for held in idle]
        found += [s.held.bot for spares in self._spares.values() for s in spares if s.held is not None]
        return [bot for bot in found if bot.breach is None and not bot.closed and bot.process.poll() is None]

    def close(self) -> None:
        """Stop every idle process and every one started ahead (politely); busy ones stop when released."""
        self._watching.cancel()
        for idle in self._idle.values():
            for held in idle:
                held.stop.set()
        self._idle.clear()
        self.reuse = False
        self._closed = True
        for name in list(self._spares):
            self._discard_spares(name)

    def _discard_spares(self, name: str) -> None:
        """Stop the processes started ahead for ``name`` that have started (those still starting stop then)."""
        for spare in list(self._spares.get(name, [])):
            if spare.ready.is_set():
                self._spares[name].remove(spare)
                if spare.held is not None:
                    spare.held.stop.set()

    async def _hold(self, spec: BotSpec, options: SpawnOptions, *, task_status: trio.TaskStatus[_Held]) -> None:
        async with open_bot(spec, options) as bot:
            held = _Held(bot)
            self._held[id(bot)] = held
            try:
                task_status.started(held)
                await held.stop.wait()
                await bot.shutdown(polite=goodbye_line(spec.protocol) if held.polite else None)
            finally:
                self._held.pop(id(bot), None)


@contextlib.asynccontextmanager
async def open_pool(
    *, reuse: bool = True, stderr_path: Callable[[BotSpec, int], Path | None] | None = None
) -> AsyncIterator[BotPool]:
    """A :class:`BotPool`; on leaving, every process it started is stopped and reaped."""
    async with trio.open_nursery() as nursery:
        pool = BotPool(nursery, reuse=reuse, stderr_path=stderr_path)
        nursery.start_soon(pool.watch_idle)
        try:
            yield pool
        finally:
            pool.close()
