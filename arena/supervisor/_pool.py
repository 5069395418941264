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
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocol import Limits

from ..bots.spec import BotSpec
from ._process import BotProcess, SpawnOptions, open_bot
from .play import goodbye_line, spawn_options


@dataclass
class _Held:
    """A process held open by its task, and how it should stop."""

    bot: BotProcess
    stop: trio.Event = field(default_factory=trio.Event)
    polite: bool = True


@dataclass
class PoolStats:
    """How many processes the pool started and how many matches reused one."""

    started: int = 0
    reused: int = 0
    discarded_after_fault: int = 0


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
        self.stats = PoolStats()

    async def acquire(self, spec: BotSpec, limits: Limits) -> BotProcess:
        """A process of ``spec`` ready for a new match (raises ``Crash`` when it cannot start)."""
        idle = self._idle.get(spec.name, [])
        while idle:
            held = idle.pop()
            if held.bot.process.poll() is None and not held.bot.closed:
                self.stats.reused += 1
                return held.bot
            held.polite = False  # it exited while idle: reap it and start another
            held.stop.set()
        number = self._counter.get(spec.name, 0) + 1
        self._counter[spec.name] = number
        options = spawn_options(spec, limits, self._stderr_path(spec, number))
        bot: BotProcess = await self._nursery.start(self._hold, spec, options)
        self.stats.started += 1
        return bot

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

    def close(self) -> None:
        """Stop every idle process (politely); busy ones stop when released."""
        for idle in self._idle.values():
            for held in idle:
                held.stop.set()
        self._idle.clear()
        self.reuse = False

    async def _hold(self, spec: BotSpec, options: SpawnOptions, *, task_status: trio.TaskStatus[BotProcess]) -> None:
        async with open_bot(spec, options) as bot:
            held = _Held(bot)
            self._held[id(bot)] = held
            try:
                task_status.started(bot)
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
        try:
            yield pool
        finally:
            pool.close()
