"""The queue of uploads waiting for their check: participants served in turn, one check each at a time."""

from __future__ import annotations

from collections import deque

import trio


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
