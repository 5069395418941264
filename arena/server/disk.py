"""The disk a competition's logs take, per version and per participant, against the config's caps.

What a bot writes reaches the server's disk two ways: its stderr, kept in a
file per process (``logs/stderr/LABEL.STAMP-N.log``, up to ``stderr_bytes``
each), and the match logs of its matches (its answers, as the protocol
defines them, and up to 64 KiB of its stderr a match). A version is charged
its stderr files and half of each of its match logs (the other half is its
opponent's); a participant, the sum over its versions. A version over
``log_bytes_per_version``, or any version of a participant over
``log_bytes_per_participant``, plays no more (the standings say why), and the
participant over its cap may upload no more: the organiser decides (deleting
old logs, or raising the cap).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..competition.store import PlayedMatch

STDERR_NAME = re.compile(r"^(?P<label>.+)\.\d{14}-\d+\.log$")
"""A stderr log's name: the version's label, the server's start, the process's number."""


@dataclass(frozen=True)
class Owned:
    """A version as the quota sees it."""

    version_id: int
    label: str
    participant_id: int


class LogQuota:
    """Bytes of logs per version, kept up to date: match logs as they are recorded, stderr files by :meth:`scan`."""

    def __init__(self, stderr_dir: Path, *, per_version: int, per_participant: int) -> None:
        self.stderr_dir = stderr_dir
        self.per_version = per_version
        self.per_participant = per_participant
        self.match_bytes: dict[int, int] = {}
        """Half of each match log, by version id."""
        self.stderr_bytes: dict[str, int] = {}
        """Stderr files' bytes by version label, as the last :meth:`scan` found them."""

    def charge(self, match: PlayedMatch) -> None:
        """Count ``match``'s log, half to each of its versions (a log that is not there counts nothing)."""
        if not match.log_path:
            return
        try:
            size = os.stat(match.log_path).st_size
        except OSError:
            return
        for version_id in match.versions:
            if version_id is not None:
                self.match_bytes[version_id] = self.match_bytes.get(version_id, 0) + (size + 1) // 2

    def scan(self) -> None:
        """Measure the stderr files again (one listing of their folder: run it in a thread)."""
        found: dict[str, int] = {}
        try:
            with os.scandir(self.stderr_dir) as entries:
                for entry in entries:
                    named = STDERR_NAME.match(entry.name)
                    if named is None:
                        continue
                    try:
                        size = entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
                    found[named["label"]] = found.get(named["label"], 0) + size
        except FileNotFoundError:
            pass
        self.stderr_bytes = found

    def used(self, version: Owned) -> int:
        """Bytes charged to ``version``."""
        return self.match_bytes.get(version.version_id, 0) + self.stderr_bytes.get(version.label, 0)

    def over(self, versions: Iterable[Owned]) -> dict[int, str]:
        """The versions (by id) that may play no more for their logs, with the reason their owner sees."""
        versions = list(versions)
        by_participant: dict[int, int] = {}
        for version in versions:
            by_participant[version.participant_id] = by_participant.get(version.participant_id, 0) + self.used(version)
        reasons = {}
        for version in versions:
            used = self.used(version)
            if used > self.per_version:
                reasons[version.version_id] = (
                    f"its logs take {_size(used)}, over the {_size(self.per_version)} the server keeps per version"
                    " (write less to stderr)"
                )
            elif (total := by_participant[version.participant_id]) > self.per_participant:
                reasons[version.version_id] = self.participant_reason(total)
        return reasons

    def participant_over(self, participant_id: int, versions: Iterable[Owned]) -> str:
        """Why ``participant_id`` may upload no more for its logs, or ``""``."""
        total = sum(self.used(v) for v in versions if v.participant_id == participant_id)
        return self.participant_reason(total) if total > self.per_participant else ""

    def participant_reason(self, total: int) -> str:
        """What a participant over its cap is told."""
        return (
            f"your bots' logs take {_size(total)}, over the {_size(self.per_participant)} the server keeps per"
            " participant (write less to stderr; the organiser may clear old logs)"
        )


def _size(count: int) -> str:
    return f"{count / (1 << 20):.1f} MiB" if count >= 1 << 20 else f"{count / 1024:.0f} KiB"
