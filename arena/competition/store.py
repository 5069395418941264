"""Competition results in SQLite: append-only, resumable, safe to kill, shared by cooperating arenas.

The model, as the tables hold it:

* **competitions** (table ``tournaments``): one row per competition, found by
  its ``name``; ``--fresh`` starts another row under the same name, and the
  latest one is the current one. ``config`` holds what the competition is
  (game, parameters, limits, format: a change of these is refused) and what
  may grow (cycles, the schedule's size).
* **versions**: every version of every bot that ever entered a competition:
  its name, version number (1, 2, ...), slot (the bot's place in the
  competition, which fixes its pairings' deals), command, content hash and
  process mode. A version is *current* until it is retired (``changed``: its
  files changed and a new version took its place; ``removed``: it left the
  field). Its *admission* is ``pending`` until it has been built and has
  answered a first request, then ``admitted`` or ``not_admitted`` (with the
  reason: the build's last lines, or why it did not start).
* **matches** and their **faults**: every finished match, with the versions
  in its seats. The current standings are the matches whose two versions are
  both current and admitted; the history is all of them.
* **pair_totals**: the standings' running totals per ordered pair of
  versions (:mod:`arena.competition.totals`), added to in the same
  transaction as each match, so that standings are read from a row per pair
  met, never recounted from the matches.
* **changes**: one line per change a run found (a bot added, changed,
  removed, not admitted; more cycles), for ``arena results --history``.
* **arenas** and **claims**: the arena processes working on this database,
  and the matches (``match:<key>``) and persistent bots (``bot:<version id>``)
  each has claimed, so that several arenas cooperate without playing a match
  twice. A claim whose arena died (even by ``kill -9``) is taken over.

Every finished match is written in one transaction, with its faults, under a
``UNIQUE (tournament_id, match_key)`` constraint, and its claim is dropped in
the same transaction: a match is either recorded completely or not at all,
and never twice. While an arena writes, the database runs in WAL mode, so
``arena results`` can read it meanwhile; when the last writer closes it goes
back to a plain rollback journal, so a database at rest is one file and
reading it leaves no ``-wal``/``-shm`` files beside it.

The SQL is the database layer's (:mod:`arena.competition.database`): the
connection and its transactions (:class:`~arena.competition.database.Database`),
the schema, which grows by migrations only ever appended to one list
(:mod:`arena.competition.database.schema`), each run in the same transaction
as the row that says it ran, and a repository per kind of row. A
:class:`Store` is that layer as the competition's code calls it. An Arena database says so in its
header (``PRAGMA application_id``); a file that is neither empty nor Arena's
is refused, never written to.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .database import Database, Repositories
from .database.claims import HEARTBEAT_S as HEARTBEAT_S
from .database.claims import STALE_AFTER_S as STALE_AFTER_S
from .database.claims import Holder as Holder
from .database.competitions import ChangeRow as ChangeRow
from .database.competitions import TournamentRow as TournamentRow
from .database.schema import APPLICATION_ID as APPLICATION_ID
from .database.schema import MIGRATIONS as MIGRATIONS
from .database.versions import ADMISSIONS as ADMISSIONS
from .database.versions import PROCESS_MODES as PROCESS_MODES
from .database.versions import VersionRow as VersionRow
from .database.versions import version_label as version_label
from .records import FaultRow as FaultRow
from .records import PlayedMatch as PlayedMatch
from .totals import Pair, PairTotals, Quad


@dataclass(frozen=True)
class BotRow:
    """A bot of a tournament: its name, command, what the user wrote, and content hash."""

    name: str
    command: tuple[str, ...]
    source: str
    digest: str
    reuse: bool


class Store:
    """An open results database: the competition's calls on the database layer's repositories (``self.repos``).

    Its methods are one line each, the names the runner, the ladder, the
    server and ``arena results`` have always called (issue 37 keeps them while
    the callers move to the repositories); what each does is the repository's.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.repos = Repositories(db)
        self.path = db.path
        self.readonly = db.readonly

    # Opening ------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Store:
        """Open (or, unless ``readonly``, create) the database at ``path`` and bring its schema up to date.

        A file that is neither empty nor an Arena database is refused. Read
        only, nothing is written beside the file.
        """
        return cls(Database.open(path, readonly=readonly))

    def reader(self) -> Store:
        """Another connection on this store's database, read only, for a thread of this process
        (:meth:`Database.reader`)."""
        return Store(self.db.reader())

    def close(self) -> None:
        """Close the database; the last writer to leave puts it back to one file (no ``-wal``, no ``-shm``)."""
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection (tests look at it; nothing in arena/ does)."""
        return self.db.connection

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Make the store calls inside one transaction (another arena waits for it, then sees all of it)."""
        with self.db.transaction():
            yield

    def schema_version(self) -> int:
        """How many migrations have run (0 for a new database)."""
        return self.db.schema_version()

    # Competitions -------------------------------------------------------
    def latest(self, name: str) -> TournamentRow | None:
        """The current competition called ``name`` (the latest started under that name), if any."""
        return self.repos.competitions.latest(name)

    def create_competition(self, *, name: str, seed: int, game: str, config: dict[str, Any]) -> TournamentRow:
        """Start a new competition called ``name`` (an older one of that name stays, in the history)."""
        found = self.tournament(self.repos.competitions.create(name=name, seed=seed, game=game, config=config))
        assert found is not None
        return found

    def update_config(self, tid: int, config: dict[str, Any]) -> None:
        """Replace the stored config of ``tid`` (a rerun may ask for more cycles)."""
        self.repos.competitions.update_config(tid, config)

    def tournament(self, tid: int | None = None) -> TournamentRow | None:
        """The competition with id ``tid``, or the latest one."""
        return self.repos.competitions.get(tid)

    def tournaments(self) -> list[TournamentRow]:
        """Every competition in the database, oldest first."""
        return self.repos.competitions.all()

    def bots(self, tid: int) -> list[BotRow]:
        """The current bots of competition ``tid`` (its field), by name."""
        return [
            BotRow(v.name, v.command, v.source, v.digest, v.process != "fresh")
            for v in sorted(self.versions(tid, current=True), key=lambda v: v.name)
        ]

    def log_change(self, tid: int, kind: str, line: str, bot: str = "") -> None:
        """Keep one line a run printed about a change it found."""
        self.repos.competitions.log_change(tid, kind, line, bot)

    def changes(self, tid: int) -> list[ChangeRow]:
        """Every change recorded for ``tid``, oldest first."""
        return self.repos.competitions.changes(tid)

    # Versions -----------------------------------------------------------
    def versions(self, tid: int, *, current: bool = False) -> list[VersionRow]:
        """Every version of every bot of ``tid`` (only the current field with ``current``), by slot and version."""
        return self.repos.versions.of(tid, current=current)

    def add_version(
        self, tid: int, *, name: str, slot: int, command: Sequence[str], source: str, digest: str, process: str
    ) -> VersionRow:
        """Enter a new version of ``name`` (its first, or the next one), pending admission."""
        vid = self.repos.versions.add(
            tid, name=name, slot=slot, command=command, source=source, digest=digest, process=process
        )
        return self.version(vid)

    def version(self, vid: int) -> VersionRow:
        """The version with id ``vid``."""
        return self.repos.versions.get(vid)

    def retire(self, vid: int, because: str) -> None:
        """Take version ``vid`` out of the current field (``changed`` or ``removed``); its matches stay."""
        self.repos.versions.retire(vid, because)

    def reinstate(self, vid: int) -> None:
        """Bring a retired version back into the field (the same bot, unchanged, entered again)."""
        self.repos.versions.reinstate(vid)

    def set_admission(self, vid: int, admission: str, reason: str = "") -> None:
        """Record whether version ``vid`` was admitted, and if not, why."""
        self.repos.versions.set_admission(vid, admission, reason)

    # Matches ------------------------------------------------------------
    def record_match(self, tid: int, match: PlayedMatch, *, arena: int | None = None) -> bool:
        """Record a finished match and its faults in one transaction; ``False`` if it was already there.

        The match's claim (by ``arena``, or by anyone) goes in the same transaction.
        """
        return self.repos.matches.record(tid, match)

    def record_matches(self, tid: int, matches: Sequence[PlayedMatch]) -> None:
        """Record many finished matches, of deals the store has none of yet, in one transaction (an import, a
        benchmark's history of a million matches): what :meth:`record_match` does for each, in bulk."""
        self.repos.matches.record_many(tid, matches)

    def finished_keys(self, tid: int) -> set[str]:
        """The keys of the matches of ``tid`` already recorded."""
        return set(self.repos.matches.keys(tid))

    def match_keys(self, tid: int) -> Iterator[str]:
        """The keys of the matches of ``tid``, one at a time (a million of them are never held at once)."""
        return self.repos.matches.keys(tid)

    def count_matches(self, tid: int, *, current: bool = False) -> int:
        """How many matches of ``tid`` are recorded (only between current, admitted versions with ``current``)."""
        return self.repos.matches.count(tid, current=current)

    def points(self, tid: int) -> dict[str, float]:
        """Each current, admitted bot's total points over the current standings' matches."""
        return self.repos.matches.points(tid)

    def count_matches_of(self, tid: int, vid: int) -> int:
        """How many matches of ``tid`` version ``vid`` has played."""
        return self.repos.matches.count_of(tid, vid)

    def fault_counts(self, tid: int) -> dict[str, Counter[str]]:
        """Faults by kind of each current, admitted bot, over the current standings' matches."""
        return self.repos.matches.fault_counts(tid)

    def all_versioned(self, tid: int) -> bool:
        """Whether every match of ``tid`` is tied to two versions (so the pair totals count all of them)."""
        return self.repos.matches.all_versioned(tid)

    def latest_faults(self, tid: int, versions: Iterable[int], limit: int) -> list[tuple[PlayedMatch, FaultRow]]:
        """The last ``limit`` faults of ``versions``, newest first, each with its match (by the faults' index)."""
        return self.repos.matches.latest_faults(tid, versions, limit)

    def match(self, tid: int, key: str) -> PlayedMatch | None:
        """The recorded match ``key`` of ``tid`` (by the unique index on keys)."""
        return self.repos.matches.get(tid, key)

    def has_match(self, tid: int, key: str) -> bool:
        """Whether match ``key`` of ``tid`` is recorded."""
        return self.repos.matches.has(tid, key)

    def matches_of_keys(self, tid: int, keys: Sequence[str]) -> list[PlayedMatch]:
        """The recorded matches of ``tid`` among ``keys``, in the order recorded (one read however many)."""
        return self.repos.matches.of_keys(tid, keys)

    def recorded_keys(self, tid: int, keys: Sequence[str]) -> set[str]:
        """Which of ``keys`` are recorded matches of ``tid`` (one read however many)."""
        return self.repos.matches.recorded(tid, keys)

    def latest_matches(
        self,
        tid: int,
        limit: int,
        *,
        before: int | None = None,
        versions: Iterable[int] | None = None,
        opponents: Iterable[int] | None = None,
        result: str | None = None,
    ) -> list[PlayedMatch]:
        """The last ``limit`` matches of ``tid``, newest first (see
        :meth:`arena.competition.database.matches.Matches.latest`)."""
        return self.repos.matches.latest(
            tid, limit, before=before, versions=versions, opponents=opponents, result=result
        )

    def matches(self, tid: int, *, current: bool = False) -> list[PlayedMatch]:
        """The recorded matches of ``tid`` in the order they finished (only the current standings' with ``current``)."""
        return self.repos.matches.of(tid, current=current)

    def finished_times(self, tid: int, matches: Sequence[PlayedMatch]) -> dict[str, str]:
        """When each of ``matches`` (as read from ``tid``) finished (ISO 8601, UTC), by key (for the pages' dates)."""
        return self.repos.matches.finished_times(tid, [m.row_id for m in matches])

    # Totals -------------------------------------------------------------
    def pair_totals(self, tid: int, *, among: Iterable[int] | None = None) -> dict[Pair, PairTotals]:
        """The standings' running totals of ``tid``, by ordered pair of versions (those that met; of two of ``among``).

        The standings of a field read these rows, never the matches (see
        :mod:`arena.competition.standings`).
        """
        return self.repos.pairs.of_competition(tid, among=among)

    def pair_totals_of(self, pairs: Iterable[Pair]) -> dict[Pair, PairTotals]:
        """The stored totals of ``pairs`` (those that met)."""
        return self.repos.pairs.of_pairs(pairs)

    def pair_totals_since(
        self, tid: int, touched: int, *, among: Iterable[int] | None = None
    ) -> tuple[dict[Pair, PairTotals], int]:
        """The pair totals of ``tid`` that matches after match id ``touched`` changed (of two of ``among`` only,
        by the primary key), and the id to ask from next."""
        return self.repos.pairs.since(tid, touched, among=among)

    def pair_totals_touching(self, tid: int, versions: Iterable[int], among: Iterable[int]) -> dict[Pair, PairTotals]:
        """The pair totals of ``tid`` between one of ``versions`` and one of ``among`` (either way round), by the
        primary key."""
        return self.repos.pairs.touching(tid, versions, among)

    def opponents(self, version: int) -> dict[int, PairTotals]:
        """What ``version`` did against each opponent it met, by the opponent's id (by the totals' primary key)."""
        return self.repos.pairs.opponents(version)

    def records(
        self, versions: Iterable[int], among: Iterable[int] | None = None
    ) -> dict[int, dict[int, tuple[int, int, int, int, float, float]]]:
        """``(matches, wins, draws, losses, points for, points against)`` of each of ``versions`` against each
        opponent it met (of ``among`` only, when given), by version and opponent id (a bot page's columns of the
        pair totals)."""
        return self.repos.pairs.records(versions, among)

    def record_sums(self, versions: Iterable[int]) -> dict[int, tuple[int, int, int, int]]:
        """``(matches, wins, draws, losses)`` of each of ``versions`` against everyone, by version id."""
        return self.repos.pairs.record_sums(versions)

    def fault_totals(self, tid: int) -> dict[int, Counter[str]]:
        """Every fault of each version of ``tid`` (against anyone), by kind, by version id (from the pair totals)."""
        return self.repos.pairs.faults(tid)

    def log_bytes(self, tid: int) -> dict[int, int]:
        """Each version's half of the match logs it played (as they were when recorded), by version id."""
        return self.repos.pairs.log_bytes(tid)

    def table_totals(self, tid: int) -> dict[Quad, tuple[int, ...]]:
        """The deals at two tables of ``tid`` by their four versions ``(a1, b1, a2, b2)``: how many had team ONE
        ({``a1``, ``b2``}) total 0, 0.5, 1, 1.5 and 2 (see :func:`~arena.competition.totals.table_result`)."""
        return self.repos.tables.since(tid, -1)[0]

    def table_totals_since(self, tid: int, touched: int) -> tuple[dict[Quad, tuple[int, ...]], int]:
        """The table totals that matches after match id ``touched`` changed, and the last such id."""
        return self.repos.tables.since(tid, touched)

    # Arenas and claims --------------------------------------------------
    def register_arena(self) -> int:
        """Enter this process as an arena working on the database; forget arenas that died."""
        return self.repos.claims.register_arena()

    def heartbeat(self, arena: int) -> None:
        """Say that ``arena`` is still alive."""
        self.repos.claims.heartbeat(arena)

    def unregister_arena(self, arena: int) -> None:
        """``arena`` is leaving: drop it and every claim it still holds."""
        self.repos.claims.unregister_arena(arena)

    def claim_match(self, tid: int, key: str, arena: int) -> Holder | bool:
        """Claim match ``key`` for ``arena``: ``True``, ``False`` if it is recorded already, or its live holder."""
        return self.repos.claims.claim_match(tid, key, arena)

    def claim_bot(self, tid: int, vid: int, arena: int) -> Holder | bool:
        """Claim every match of the persistent version ``vid`` for ``arena``: ``True``, or its live holder."""
        return self.repos.claims.claim_bot(tid, vid, arena)

    def holders(self, tid: int) -> dict[str, Holder]:
        """The claims on ``tid`` held by live arenas, by item (``match:<key>``, ``bot:<version id>``)."""
        return self.repos.claims.holders(tid)
