"""The competition's bot versions and recorded matches, as the server's pages and parts read them.

:class:`Catalogue` is one part of :class:`~arena.server.service.Competition`:
every version of every participant's bot (the results store's row, with whose
it is and where its files are, from :mod:`arena.server.state`), each current
version's :class:`~arena.bots.spec.BotSpec`, and the recorded matches by key
or page, named by version as pages show them. Whether a deal is over (so its
seed and both seats' cards may be shown) is asked here too. It reads; the
parts that enter, admit and retire versions write through the store and tell
it to :meth:`~Catalogue.forget` what it read.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable
from pathlib import Path

from .._errors import ArenaError
from ..bots.spec import MANIFEST, BotSpec, load_folder, resolve
from ..competition.ladder import other_table
from ..competition.results import labelled_by_version
from ..competition.schedule import Scheduled
from ..competition.store import PlayedMatch, Store
from ..sandbox import build_key, build_root, current_policy
from .state import Participant, State
from .versions import Version

DEALS_OVER_KEPT = 10_000
"""Matches whose deal is over a catalogue keeps in mind (pages of the latest matches find theirs there)."""


class Catalogue:
    """The versions and matches of competition ``tid`` (whose data folder is ``data_dir``)."""

    def __init__(self, store: Store, state: State, tid: int, data_dir: Path) -> None:
        self.store = store
        self.state = state
        self.tid = tid
        self.data_dir = data_dir
        self.cached: list[Version] | None = None
        """Every version, as last read (``None``: read again at the next question)."""
        self.specs: dict[int, BotSpec] = {}
        """Each current version's spec (by version id), named by its label."""
        self._labels: tuple[list[Version] | None, dict[int, str]] | None = None
        """Each version's label by id, and the reading of the versions it was made from."""
        self._by_owner: tuple[list[Version] | None, dict[int, list[Version]], dict[int, str]] | None = None
        """Each participant's versions and the playing versions' names by id, and the reading they were made
        from (a bot page asks six times: each went through every version of the competition)."""
        self._over: dict[str, None] = {}
        """Keys of matches whose deals are over, the latest :data:`DEALS_OVER_KEPT` found (in the order found)."""

    def forget(self) -> None:
        """A version was entered, admitted or retired: read them again at the next question."""
        self.cached = None

    def load_specs(self) -> None:
        """Read the spec of each current version that was not refused (a broken one is left out)."""
        for version in self.versions():
            if version.row.current and version.admission != "not_admitted":
                with contextlib.suppress(ArenaError):
                    self.specs[version.id] = self.spec_of(version)

    def spec_of(self, version: Version) -> BotSpec:
        """``version``'s spec, read from its folder (or its house bot's command line), named by its label."""
        folder = Path(version.folder)
        if (folder / MANIFEST).is_file():
            spec = load_folder(folder, source=version.row.source)
        else:  # a house bot given as a command line, resolved where the config is
            spec = resolve(version.row.source, base=folder)
        return owned(spec, version.participant_id).with_name(version.label)

    def versions(self, pid: int | None = None) -> list[Version]:
        """Every version of the competition (of participant ``pid``), oldest first."""
        if pid is None:
            return list(self._read())
        return list(self._owners()[1].get(pid, ()))

    def playing_names(self) -> dict[int, str]:
        """The name of each version playing now (its participant's), by version id."""
        return self._owners()[2]

    def _read(self) -> list[Version]:
        """Every version, as last read (read now if not since :meth:`forget`)."""
        if self.cached is None:
            entries = self.state.entries()
            rows = sorted(self.store.versions(self.tid), key=lambda v: v.id)
            builds = build_root(current_policy().build_root)
            self.cached = [
                Version(
                    dataclasses.replace(row, reason=relative_paths(row.reason, self.data_dir, builds)), entries[row.id]
                )
                for row in rows
                if row.id in entries
            ]  # the server's own paths are not shown
        return self.cached

    def _owners(self) -> tuple[list[Version] | None, dict[int, list[Version]], dict[int, str]]:
        every = self._read()
        if self._by_owner is None or self._by_owner[0] is not every:  # (once per reading of the versions)
            by_owner: dict[int, list[Version]] = {}
            for v in every:
                by_owner.setdefault(v.participant_id, []).append(v)
            self._by_owner = (every, by_owner, {v.id: v.row.name for v in every if v.playing})
        return self._by_owner

    def version(self, pid: int, number: int) -> Version | None:
        """Version ``number`` of participant ``pid``'s bot."""
        return next((v for v in self.versions(pid) if v.number == number), None)

    def rating_history(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``'s rating, oldest first (its chart)."""
        return self.state.rating_history(version_id)

    def rating_dates(self, version_id: int, at: Iterable[int] | None = None) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count: only
        those at the match counts ``at``, when given."""
        return self.state.rating_dates(version_id, at)

    def match(self, key: str) -> PlayedMatch | None:
        """The recorded match ``key``."""
        return self.store.match(self.tid, key)

    def latest_matches(
        self,
        limit: int,
        *,
        before: int | None = None,
        participant: Participant | None = None,
        opponent: Participant | None = None,
        result: str | None = None,
    ) -> list[PlayedMatch]:
        """The last ``limit`` matches (of ``participant``'s versions), newest first, before match id ``before``:
        against ``opponent``'s versions only, and ``result`` (``won``, ``drew``, ``lost``) for ``participant``."""
        versions = None if participant is None else [v.id for v in self.versions(participant.id)]
        against = None if opponent is None else [v.id for v in self.versions(opponent.id)]
        return self.store.latest_matches(
            self.tid, limit, before=before, versions=versions, opponents=against, result=result
        )

    def deal_over(self, match: PlayedMatch | Scheduled) -> bool:
        """Whether every match on ``match``'s deal has been played (both legs of its duplicate pair, or both tables
        of its deal at two tables, are recorded).

        Until then its deal is secret (its seed, and a replay showing both
        seats' cards, would tell the other leg's players what they are dealt,
        or the other table's); a deal left half-played keeps it secret until
        its other match is played. (A match in play, which a live page asks
        of, is not over whatever its deal: not recorded yet.) A deal once
        over stays over (matches are never deleted): the last ones found over
        are kept, so a page of matches asks the store once (see
        :meth:`deals_over`), not twice a match.
        """
        if match.key in self._over:
            return True
        needed = _deal_keys(match.key)
        if not all(self.store.has_match(self.tid, key) for key in needed):
            return False
        self._note_over(needed)
        return True

    def deals_over(self, matches: list[PlayedMatch]) -> set[str]:
        """The keys of ``matches`` whose deals are over (as :meth:`deal_over` says), in one read of the store."""
        unknown = {m.key: _deal_keys(m.key) for m in matches if m.key not in self._over}
        recorded = self.store.recorded_keys(self.tid, sorted({key for keys in unknown.values() for key in keys}))
        for keys in unknown.values():
            if all(key in recorded for key in keys):
                self._note_over(keys)
        return {m.key for m in matches if m.key in self._over}

    def _note_over(self, keys: tuple[str, ...]) -> None:
        if len(self._over) >= DEALS_OVER_KEPT:  # the oldest half goes (pages ask of the latest matches)
            for key in list(self._over)[: DEALS_OVER_KEPT // 2]:
                del self._over[key]
        for key in keys:
            self._over[key] = None

    def labelled(self, matches: list[PlayedMatch]) -> list[PlayedMatch]:
        """``matches`` with their bots named by version (``alice``, ``alice.v2``), as pages show them."""
        versions = self.versions()
        if self._labels is None or self._labels[0] is not self.cached:  # (once per reading of the versions)
            self._labels = (self.cached, {v.id: v.label for v in versions})
        label = self._labels[1]
        return [labelled_by_version(m, label) for m in matches]

    def build_log(self, version: Version) -> Path | None:
        """Where the last build of ``version`` wrote its whole output, if it has a build."""
        spec = self.specs.get(version.id) or self.spec_of(version)
        if not spec.build:
            return None
        return build_root(current_policy().build_root) / f"{build_key(spec)}.log"


def _deal_keys(key: str) -> tuple[str, ...]:
    """The keys of the matches that must be recorded for the deal of match ``key`` to be over: both tables, both
    legs, or the match itself (a single deal)."""
    other = other_table(key)
    if other is not None:
        return (key, other)
    pair, _, leg = key.rpartition("-")
    if leg in ("a", "b"):
        return (f"{pair}-a", f"{pair}-b")
    return (key,)


def owned(spec: BotSpec, participant_id: int) -> BotSpec:
    """``spec`` as participant ``participant_id``'s: its builds are its own, never shared with another's."""
    return dataclasses.replace(spec, owner=f"participant {participant_id}")


def relative_paths(text: str, *folders: Path) -> str:
    """``text`` with the server's own paths cut out (a participant sees paths inside its bot folder)."""
    for folder in folders:
        text = text.replace(str(folder) + "/", "").replace(str(folder), ".")
    return text
