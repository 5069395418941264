"""The running competition's match logs: the disk they take against the config's caps, and their retention.

:class:`LogUpkeep` is one part of :class:`~arena.server.service.Competition`:
it charges each recorded match's log to its versions, measures the bots'
stderr files every ``DISK_EVERY_S``, says which versions (and participants)
are over their caps, prunes old logs by the config's ``[retention]`` and keeps
the deals participants pin. How much each version is charged is
:mod:`arena.server.disk`; which logs are kept, :mod:`arena.server.retention`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import trio

from .._errors import ConfigError, UploadRefused
from ..competition.store import PlayedMatch, Store
from . import retention
from .config import ServerConfig
from .disk import LogQuota, Owned
from .state import Participant

DISK_EVERY_S = 10.0
"""How often the stderr logs' sizes are measured for the log quota (a listing of their folder, in a thread)."""


class LogUpkeep:
    """The logs' disk and retention of competition ``tid``, whose logs are under ``logs``.

    ``owned`` lists the competition's versions as the quota sees them;
    ``changed`` is called when a version goes over its cap or back under it
    (the standings show it, and its idle processes stop).
    """

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        tid: int,
        *,
        owned: Callable[[], list[Owned]],
        changed: Callable[[], None],
    ) -> None:
        self.config = config
        self.store = store
        self.tid = tid
        self.owned = owned
        self.changed = changed
        self.disk = LogQuota(
            config.data_dir / "logs" / "stderr", per_version=config.log_bytes_per_version,
            per_participant=config.log_bytes_per_participant,
        )  # fmt: skip
        self.disk.match_bytes = store.log_bytes(tid)
        self.over_quota: dict[int, str] = {}
        """Versions (by id) whose logs, or whose owner's, take more disk than the config allows, with why."""

    def charge(self, match: PlayedMatch) -> None:
        """Count a recorded match's log against its versions."""
        self.disk.charge(match)

    def over(self, version_id: int) -> str:
        """Why version ``version_id`` plays no more for its logs' disk (or its owner's), or ``""``."""
        return self.over_quota.get(version_id, "")

    def participant_over(self, participant_id: int) -> str:
        """Why the participant may upload no more for its logs' disk, or ``""``."""
        return self.disk.participant_over(participant_id, self.owned())

    async def watch_disk(self) -> None:
        """Measure the logs' disk every ``DISK_EVERY_S``; a version over its quota (or its owner's) plays no more."""
        while True:
            await trio.to_thread.run_sync(self.disk.scan)
            over = self.disk.over(self.owned())
            if over != self.over_quota:
                self.over_quota = over
                self.changed()
            await trio.sleep(DISK_EVERY_S)

    async def prune_every(self) -> None:
        """Prune the match logs by the config's retention, every ``prune_every_s``, in a thread of its own."""
        while True:
            await trio.sleep(self.config.retention.prune_every_s)
            stop = threading.Event()
            try:
                # Abandoned on cancel (a server stopping): the run stops at its next batch, not its end.
                pruned = await trio.to_thread.run_sync(self.prune, stop, abandon_on_cancel=True)
            except trio.Cancelled:
                stop.set()
                raise
            if pruned.logs:
                self.disk.match_bytes = self.store.log_bytes(self.tid)  # the pruned logs' bytes are the owners' again

    def prune(self, stop: threading.Event | None = None) -> retention.Pruned:
        """One run of the pruner, on a connection of its own (call it in a thread: it reads and deletes files)."""
        with contextlib.closing(retention.connect(self.store.path)) as db:
            return retention.prune(db, self.tid, self.config.retention, stop=stop)

    async def state_of(self, match: PlayedMatch) -> retention.LogState | None:
        """What the retention did with ``match``'s log (read in a thread)."""

        def read() -> retention.LogState | None:
            with contextlib.closing(retention.connect(self.store.path)) as db:
                return retention.state_of(db, match.row_id)

        return await trio.to_thread.run_sync(read)

    async def pin(self, match: PlayedMatch, participant: Participant, *, pinned: bool) -> None:
        """Pin (or unpin) ``match``'s deal for ``participant``: its logs are kept whatever the retention says.

        A participant pins only its own bots' matches, at most
        ``pins_per_participant`` deals; the organiser pins any, and its unpin
        takes every pin off the deal.
        """
        admin = participant.is_admin
        if not admin and participant.name not in (match.bot_a, match.bot_b):
            raise UploadRefused("you may pin only your own bots' matches")
        cap = None if admin else self.config.retention.pins_per_participant

        def change() -> None:
            with contextlib.closing(retention.connect(self.store.path)) as db:
                if pinned:
                    retention.pin(db, self.tid, match.row_id, participant.id, cap=cap)
                else:
                    retention.unpin(db, match.row_id, None if admin else participant.id)

        try:
            await trio.to_thread.run_sync(change)
        except ConfigError as exc:
            raise UploadRefused(str(exc)) from None
