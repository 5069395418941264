"""Checks of uploads: which upload is checked next (:class:`FairQueue`), and who runs now (:class:`CheckSlots`).

The queue serves participants in turn, one check each at a time. The slots
share the machine: ``check_jobs`` checks run at once, and each participant
is charged the time its checks held a slot, its bots' builds included. A
check gives up its slot between its steps (its build, its start-up, each
match, each exit) whenever a participant who has been charged less is
waiting, so a participant's slow bots cost that participant: another
participant's check starts within one step of a running check (a step is
bounded by the match clock, or the build's), however many slow checks four
accounts queue. Time spent waiting for a slot is not counted against a
check's ``check_wall_s``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

CHARGE_HALF_LIFE_S = 3600.0
"""What a participant was charged for its checks halves every hour: yesterday's checks do not rank it last today."""


class FairQueue:
    """Submissions to check, taken round-robin by participant.

    Each participant has a queue of its own; :meth:`take` serves the
    participants with something waiting in turn (the one served goes to the
    back), and skips a participant whose previous check is still running
    (until :meth:`done`). However many uploads one participant has queued,
    and however slow its checks are, another participant's upload waits for
    no more than the checks already running.
    """

    def __init__(self) -> None:
        self._waiting: dict[int, deque[int]] = {}
        """Submission ids by participant id; the dict's order is the participants' turn."""
        self._running: set[int] = set()
        self._changed = trio.Event()

    def put(self, participant: int, submission: int) -> None:
        """Queue ``submission`` of ``participant`` (behind that participant's own, if any)."""
        self._waiting.setdefault(participant, deque()).append(submission)
        self._wake()

    async def take(self) -> tuple[int, int]:
        """The next ``(participant, submission)`` to check; the participant's checks wait until :meth:`done`."""
        while True:
            turn = next((p for p in self._waiting if p not in self._running), None)
            if turn is not None:
                queue = self._waiting.pop(turn)
                submission = queue.popleft()
                if queue:
                    self._waiting[turn] = queue  # to the back of the turn
                self._running.add(turn)
                return turn, submission
            changed = self._changed
            await changed.wait()

    def done(self, participant: int) -> None:
        """``participant``'s check has ended: its next upload may be taken."""
        self._running.discard(participant)
        self._wake()

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._waiting.values())

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


class CheckSlots:
    """``slots`` checks at once, shared by participant, each charged the time its checks hold a slot.

    A participant has one check at a time (the :class:`FairQueue` sees to
    it), so a participant holds at most one slot. Waiting participants are
    served least charged first (then first come); a check's holder yields its
    slot at :meth:`step` to a waiting participant charged less than itself.
    """

    def __init__(self, slots: int, *, half_life_s: float = CHARGE_HALF_LIFE_S) -> None:
        self.slots = slots
        self.half_life_s = half_life_s
        self._charged: dict[int, tuple[float, float]] = {}
        """Seconds charged to each participant, and when (trio's clock): it decays from then on."""
        self._holding: dict[int, float] = {}
        """The participants holding a slot, and since when."""
        self._waiting: dict[int, tuple[float, trio.Event]] = {}
        """The participants waiting for a slot: since when, and the event that says they have it."""

    def charged(self, participant: int, now: float | None = None) -> float:
        """The seconds of slot time charged to ``participant`` (decayed), its current hold included."""
        now = trio.current_time() if now is None else now
        seconds, at = self._charged.get(participant, (0.0, now))
        held = now - self._holding[participant] if participant in self._holding else 0.0
        return seconds * math.exp2(-(now - at) / self.half_life_s) + held

    @property
    def waiting(self) -> int:
        """How many participants wait for a slot."""
        return len(self._waiting)

    async def acquire(self, participant: int) -> float:
        """Wait for a slot for ``participant``; how long it waited (seconds)."""
        assert participant not in self._holding and participant not in self._waiting, participant
        started = trio.current_time()
        if len(self._holding) < self.slots and not self._waiting:
            self._holding[participant] = started
            await trio.lowlevel.checkpoint()
            return 0.0
        granted = trio.Event()
        self._waiting[participant] = (started, granted)
        try:
            await granted.wait()
        except BaseException:
            if self._waiting.pop(participant, None) is None and participant in self._holding:
                self.release(participant)  # granted as it was cancelled: passed on
            raise
        return trio.current_time() - started

    def release(self, participant: int) -> None:
        """``participant``'s check gives back its slot (charged for the time it held it)."""
        now = trio.current_time()
        self._charged[participant] = (self.charged(participant, now), now)
        del self._holding[participant]
        self._grant(now)

    async def step(self, participant: int) -> float:
        """Between two steps of ``participant``'s check: yield its slot to a waiting participant charged less,
        and wait for one again; how long it waited (seconds)."""
        now = trio.current_time()
        mine = self.charged(participant, now)
        if not any(self.charged(other, now) < mine for other in self._waiting):
            await trio.lowlevel.checkpoint()
            return 0.0
        self.release(participant)
        return await self.acquire(participant)

    @asynccontextmanager
    async def held(self, participant: int) -> AsyncIterator[float]:
        """Hold a slot for ``participant`` (:meth:`acquire`, then :meth:`release`); yields how long it waited."""
        waited = await self.acquire(participant)
        try:
            yield waited
        finally:
            if participant in self._holding:
                self.release(participant)

    def _grant(self, now: float) -> None:
        while len(self._holding) < self.slots and self._waiting:
            first = min(self._waiting, key=lambda p: (self.charged(p, now), self._waiting[p][0]))
            _, granted = self._waiting.pop(first)
            self._holding[first] = now
            granted.set()
