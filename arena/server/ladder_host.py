"""Where the server's ladder plays: its bot processes here, in a match worker, or on a Dask cluster.

:class:`LadderHost` is the ladder's part of :class:`~arena.server.service.Competition`:
it admits the field when the server starts (:meth:`LadderHost.admit_field`),
opens the pool, the match worker (:mod:`arena.competition.worker`) or the
cluster's executor the ladder plays in, starts the ladder in the
competition's nursery (:meth:`LadderHost.opened`), runs the web app's
background work there (:meth:`LadderHost.spawn`), and stops the idle
processes of versions that may no longer play. It reads the competition's
config, versions and standings through the competition it belongs to.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Protocol

import trio

from ..bots.spec import BotSpec
from ..competition.ladder import InPlay, Ladder, PairBook, Player, Policy, Pool, RatingView, RemotePlay
from ..competition.plan import OpenedCompetition, Plan
from ..competition.runner import admit
from ..competition.schedule import Scheduled
from ..competition.store import PlayedMatch, Store
from ..competition.worker import MatchWorker, open_match_worker
from ..games import Game
from ..supervisor import BotPool, open_pool
from .config import ServerConfig
from .versions import Version

PAIRS_AHEAD = 4
"""Pairs handed to the match worker beyond those it plays: they wait there, so it does not idle while this
process is busy (an upload, a check, a board). With one, the worker waited for its next pair 10-15% of the
time during 20 uploads in 30 s; with four, under 5% (measured by the worker, in one session)."""
RETRY_LEAST_S = 0.5
RETRY_MAX_S = 30.0
"""A background task that failed (:func:`keep_running`) starts again after 0.5 s, then 1 s, 2 s... up to this."""


class Owner(Protocol):
    """What :class:`LadderHost` reads of the competition it belongs to (:class:`arena.server.service.Competition`)."""

    config: ServerConfig
    game: Game
    plan: Plan
    tid: int
    seed: int
    store: Store
    logs: Path
    checks_dir: Path

    @property
    def specs(self) -> dict[int, BotSpec]: ...

    @property
    def paused(self) -> bool: ...

    @property
    def frozen(self) -> bool: ...

    def versions(self, pid: int | None = None) -> list[Version]: ...

    def field(self) -> dict[str, Player]: ...

    def ratings(self) -> dict[str, RatingView]: ...

    def _recorded(self, match: PlayedMatch) -> None: ...

    def field_changed(self) -> None: ...

    def ladder_changed(self) -> None: ...


class LadderHost:
    """The ladder of a :class:`~arena.server.service.Competition` and where its matches are played."""

    def __init__(self, competition: Owner) -> None:
        self.c = competition
        self.ladder: Ladder | None = None
        self.pool: Pool | None = None
        """Where the ladder's bot processes are kept: a pool here, or the match worker's."""
        self.worker: MatchWorker | None = None
        """The process that plays the ladder's matches, unless they are played here or on a cluster."""
        self.warmer: BotPool | MatchWorker | None = None
        """Where a new version's first processes are started before it enters (none on a cluster)."""
        self._nursery: trio.Nursery | None = None
        self._run_stamp = time.strftime("%Y%m%d%H%M%S")
        self.begun = trio.Event()
        """Set when the ladder begins to play: at once, or once the match worker is up (pages are served meanwhile)."""

    async def admit_field(self, say: Callable[[str], None] = lambda _text: None) -> dict[str, str]:
        """Build the current versions again, and admit the house bots' new ones (build and handshake).

        Builds live in a temporary cache that a reboot empties. A version
        whose build now fails is not admitted, with the reason (as a
        tournament does: :func:`~arena.competition.runner.admit`). A
        participant's version whose check was interrupted is left to its
        submission's check.
        """
        c = self.c
        unchecked = {v.id for v in c.versions() if v.entry.submission_id is not None and v.admission == "pending"}
        field = [v for v in c.versions() if v.row.current and v.id in c.specs and v.id not in unchecked]
        if not field:
            return {}
        plan = Plan(config=c.plan.config, game=c.game, specs={v.row.name: c.specs[v.id] for v in field}, duplicate=True)
        opened = OpenedCompetition(c.tid, c.plan.name, c.seed, 1, "place", [v.row for v in field])
        refused = await admit(plan, c.store, opened, log_dir=c.checks_dir / "admission", jobs=1, say=say)
        c.field_changed()
        for version in c.versions():
            if version.admission == "not_admitted":
                c.specs.pop(version.id, None)
        return refused

    @contextlib.asynccontextmanager
    async def opened(self, *, jobs: int, cluster: str, say: Callable[[str], None]) -> AsyncIterator[trio.Nursery]:
        """Open where the ladder plays and start it; the nursery it runs in, for the competition's other tasks.

        ``jobs`` matches at once (two per duplicate pair), in a match worker
        process of the server's own (with ``jobs`` of 2 or more, unless the
        config's ``workers`` is 0), in this process, or, with ``cluster`` (a
        Dask scheduler's address), on the cluster's workers (``jobs`` 0: as
        many as their threads). The block begins while a match worker is
        still starting (a Python start: half a second or more, which pages
        need not wait for); the ladder begins once it is up (:attr:`begun`).
        """
        c = self.c

        def stderr_path(spec: BotSpec, number: int) -> Path:
            return c.logs / "stderr" / f"{spec.name}.{self._run_stamp}-{number}.log"

        async with contextlib.AsyncExitStack() as stack:
            # Left in reverse: the ladder's and checker's tasks end before the pool and the cluster they use.
            pool: Pool
            remote: RemotePlay | None = None
            ahead = 0
            if cluster:
                pool = await stack.enter_async_context(open_pool(stderr_path=stderr_path))
                remote, slots = await self._on_cluster(stack, cluster)
                jobs = jobs or slots
            elif self._in_worker(jobs):
                self.worker = await stack.enter_async_context(
                    open_match_worker(
                        c.config.game, c.config.params, c.config.limits, tournament_id=c.tid, jobs=jobs,
                        stderr_dir=c.logs / "stderr", stamp=self._run_stamp, say=say, wait=False,
                    )
                )  # fmt: skip
                pool, remote = self.worker, self.worker.play
                self.warmer = self.worker
                ahead = PAIRS_AHEAD
            else:
                pool = self.warmer = await stack.enter_async_context(open_pool(stderr_path=stderr_path))
            nursery = await stack.enter_async_context(trio.open_nursery())
            self._nursery = nursery
            self.pool = pool
            ladder = c.config.ladder
            self.ladder = Ladder(
                c.store, c.tid, c.game, c.config.limits, seed=c.seed,
                policy=Policy(ladder.placement_pairs, ladder.pair_budget, ladder.version_slots, rest_s=ladder.rest_s),
                field=c.field, ratings=c.ratings, recorded=c._recorded, log_dir=c.logs,
                slots=max(1, jobs) + ahead, remote=remote, book=PairBook(),  # (read by _play); a slot per job
                scheme=ladder.duplicate, say=say,
            )  # fmt: skip
            nursery.start_soon(self._play, self.ladder, pool)
            yield nursery

    async def _play(self, ladder: Ladder, pool: Pool) -> None:
        """Play the ladder once its book is read and its match worker (if any) is up (pages are served
        meanwhile: neither grows the start)."""
        ladder.use_book(await trio.to_thread.run_sync(self._book))
        if self.worker is not None:
            await self.worker.wait_ready()
        self.begun.set()
        self.c.ladder_changed()  # the live pages say "starting" no more
        await ladder.run(pool)

    @property
    def starting(self) -> bool:
        """Whether the ladder is made but yet to begin (its match worker starting)."""
        return self.ladder is not None and not self.begun.is_set()

    def _book(self) -> PairBook:
        """The ladder's book of pairs begun, from the field's totals (in a thread: its own connection)."""
        with self.c.store.reader() as store:
            return PairBook.of_store(store, self.c.tid)

    def _in_worker(self, jobs: int) -> bool:
        """Whether the ladder's matches (off a cluster) are played in a match worker rather than here."""
        workers = self.c.config.workers
        return bool(workers) if workers is not None else jobs >= 2

    async def _on_cluster(self, stack: contextlib.AsyncExitStack, address: str) -> tuple[RemotePlay, int]:
        """Open a Dask executor at ``address``; a way to play a match there, and its slots.

        The executor starts with the current field; a version that enters
        later has its bundle sent to the workers before its first match. A
        worker names a bot's processes by its bundle, so two versions of one
        bot never share one.
        """
        from ..competition.cluster import BundlePlugin, open_executor, plugin_name, remote_bots  # Dask is optional

        c = self.c
        playing = {v.row.name: c.specs[v.id].with_name(v.row.name) for v in c.versions() if v.id in c.specs}
        plan = Plan(config=c.plan.config, game=c.game, specs=playing, duplicate=True)
        executor = await stack.enter_async_context(open_executor(address, plan, c.tid, sync_waits=False))
        sharing = trio.Lock()

        async def play(scheduled: Scheduled, specs: Mapping[str, BotSpec], log_path: Path | None) -> PlayedMatch:
            async with sharing:
                named = {name: specs[name].with_name(name) for name in (scheduled.bot_a, scheduled.bot_b)}
                missing = {
                    name: spec
                    for name, spec in named.items()
                    if name not in executor.bots or executor.bots[name].spec.digest != spec.digest
                }
                if missing:
                    bots, bundles = remote_bots(missing)
                    for digest, bundle in bundles.items():
                        if digest not in executor.bundles:  # the scheduler keeps it for workers that join later
                            plugin = BundlePlugin(bundle)
                            await trio.to_thread.run_sync(
                                functools.partial(executor.client.register_plugin, plugin, name=plugin_name(digest))
                            )
                    executor.bots.update(bots)
                    executor.bundles.update(bundles)
            # No checkpoint between here and the executor making the match's order from executor.bots.
            return await executor(scheduled, log_path)

        return play, executor.slots

    def in_play(self) -> list[InPlay]:
        """The ladder's matches being played now, oldest first (none on a cluster: its logs are written there)."""
        if self.ladder is None or self.warmer is None:  # (no warmer: a cluster)
            return []
        return sorted(self.ladder.in_play.values(), key=lambda playing: playing.started)

    async def idle_processes(self) -> dict[str, int]:
        """Idle bot processes the ladder keeps, by version label (in the worker's pool, or here)."""
        if self.worker is not None:
            return (await self.worker.pool_state()).idle
        return self.pool.idle_counts() if isinstance(self.pool, BotPool) else {}

    def retired(self, label: str) -> None:
        """Version ``label`` retired: its idle processes stop."""
        if self.pool is not None:
            self.pool.drop(label)

    def drop_processes(self) -> None:
        """Stop the idle processes of versions that may no longer play (disqualified: they would wait forever)."""
        if self.pool is None:
            return
        c = self.c
        playing = c.field() if not (c.paused or c.frozen) else None
        for version in c.versions():
            if version.playing and playing is not None and version.label not in playing:
                self.pool.drop(version.label)

    def spawn(self, task: Callable[[], Awaitable[None]]) -> bool:
        """Run ``task`` in the competition's nursery (the web app's background work), if it is running; whether."""
        if self._nursery is not None:
            self._nursery.start_soon(task)
            return True
        return False


async def keep_running(what: str, task: Callable[[], Awaitable[None]], say: Callable[[str], None]) -> None:
    """Run the background ``task`` for good: when it fails (out of file descriptors, a full disk), say so and
    start it again after a pause that doubles each time, up to ``RETRY_MAX_S`` (back to the least once it
    has run a while). A server that ran out of descriptors under a flood of connections died here."""
    pause = RETRY_LEAST_S
    while True:
        started = trio.current_time()
        try:
            await task()
        except Exception as exc:
            if not isinstance(exc, OSError | sqlite3.OperationalError):  # a bug: the whole story for the organiser
                traceback.print_exc()
            if trio.current_time() - started > RETRY_MAX_S:
                pause = RETRY_LEAST_S
            say(f"{what} failed ({type(exc).__name__}: {exc}); it starts again in {pause:g} s")
            await trio.sleep(pause)
            pause = min(2 * pause, RETRY_MAX_S)
