"""The running competition: its records, the ladder, submissions and their checks, live updates.

One :class:`Competition` lives in the server's trio run. The web app
(:mod:`arena.server.web`) calls it; its :meth:`Competition.run` runs the
ladder and checks submissions in the same nursery as the web server. The
ladder's matches are played in a match worker, a child process of the
server's own (:mod:`arena.competition.worker`), so pages never wait behind
match work (or here, with ``workers = 0``, or on a Dask cluster); this
process decides the pairs and records the results. A ``kill -9`` of the
server (its worker and bots die with it) loses only work in flight: uploads,
versions, results and sessions are in SQLite before they are acknowledged, a
half-played pair is finished on restart, and a submission whose check was
interrupted is checked again.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import sqlite3
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import trio

from .._errors import ConfigError, StoreError
from ..bots.spec import BotSpec, resolve
from ..competition.board import disqualification
from ..competition.config import TournamentConfig
from ..competition.ladder import (
    TABLES,
    Player,
    RatingView,
)
from ..competition.plan import Plan, enter_version, open_competition
from ..competition.store import PlayedMatch, Store
from ..games import Game, get_game
from ..supervisor.matchlog import LIVE_ENV
from . import checkpoints
from .catalogue import Catalogue, owned
from .config import ServerConfig
from .disk import Owned
from .drawing import DrawingProcess
from .files import private_folder
from .ladder_host import LadderHost, keep_running
from .log_upkeep import LogUpkeep
from .participants import Participants
from .retention import relocate_logs
from .standings import Board, Standings
from .state import Participant, State, check_name
from .submissions import CHECKS_UNDER_WAY, Submissions
from .versions import Version

DB_NAME = "server.sqlite"
LOCK_NAME = "server.lock"
SECRET_SEED = "secret_seed"
"""Marks, in the stored config, a competition whose seed the server made (one begun earlier may have had its
config's, which participants may know)."""
OLD_SEED_WARNING = (
    "warning: this competition was begun by an arena that took its seed from the config (seed = ...): if its config"
    " had one, participants may know every deal; `arena serve CONFIG --fresh` begins one with a secret seed"
)


class Competition:
    """A competition server's state and work, opened on its data folder.

    The competition itself (its identity, bot versions, their admission,
    matches) is a living competition of the results store
    (:func:`~arena.competition.plan.open_competition`), named by the config's
    ``name``; each upload that unpacks to a bot becomes a new version of its
    owner's bot, admitted if it passes ``arena check``'s checks.

    It opens the data folder and wires its parts: the :attr:`catalogue` of
    versions and matches (:class:`~arena.server.catalogue.Catalogue`), the
    :attr:`submissions` pipeline (:class:`~arena.server.submissions.Submissions`),
    the :attr:`log_upkeep` (:class:`~arena.server.log_upkeep.LogUpkeep`)
    and the ladder's :attr:`host` (:class:`~arena.server.ladder_host.LadderHost`:
    where it plays, here, in a match worker or on a cluster); :meth:`run`
    starts the ladder, the checks and the upkeep. The standings are the
    :attr:`standings` part (:class:`~arena.server.standings.Standings`;
    ``field``, ``board`` and ``ratings`` here are its names).
    """

    def __init__(self, config: ServerConfig, *, fresh: bool = False, drawing: DrawingProcess | None = None) -> None:
        self.config = config
        self.data_dir = config.data_dir
        self.game: Game = get_game(config.game, config.params)
        private_folder(self.data_dir)
        private_database(self.data_dir / DB_NAME)
        self.store = Store.open(self.data_dir / DB_NAME)  # first: it refuses another program's database
        checkpoints.hand_off(self.store.db)  # (checkpoints in a thread while the competition runs: see there)
        try:
            self.state = State(self.store)  # the same connection: one database, one writer in this process
            self.plan = self._plan()
            opened = open_competition(self.plan, self.store, fresh=fresh, field=False, secret_seed=True)
        except BaseException:
            self.store.close()
            raise
        self.tid = opened.id
        self.catalogue = Catalogue(self.store, self.state, self.tid, self.data_dir)
        """The bot versions and the recorded matches, as pages read them."""
        self.seed = opened.seed
        """The secret every deal of the ladder follows from (see :mod:`arena.server.config`): never shown."""
        stored = self.store.tournament(self.tid)
        secret = opened.created or bool(stored and stored.config.get(SECRET_SEED))
        self.store.update_config(self.tid, {**self.plan.stored_config(cycles=1, scheduled=None), SECRET_SEED: secret})
        self.opening = opened.changes
        """What opening the competition found (created, or a change of the fault policy)."""
        if not secret:
            self.opening.append(OLD_SEED_WARNING)
        self.participants = Participants(self.state, config, self.game, self.data_dir)
        """Participants, sessions, login codes, invitations and approvals; the organiser's token."""
        self.logs = self.data_dir / "logs"
        relocate_logs(self.store.path, self.logs)  # a data folder restored elsewhere finds its own logs
        self.bots_dir = self.data_dir / "bots"
        self.checks_dir = self.data_dir / "checks"
        self.incoming = self.data_dir / "incoming"
        for folder in (self.logs, self.logs / "stderr", self.bots_dir, self.checks_dir, self.incoming):
            private_folder(folder)
        self.played = self.store.count_matches(self.tid)
        """Matches the ladder has recorded (nothing per match is held here: pages read the store's indexes)."""
        self.faults: dict[int, Counter[str]] = self.store.fault_totals(self.tid)
        """Faults by kind of each version (by id): a version with too many plays no more."""
        self.log_upkeep = LogUpkeep(config, self.store, self.tid, owned=self._owned, changed=self._quota_changed)
        """The logs' disk against the config's caps, and their retention."""
        self.changed = trio.Event()
        self.stamp = 0
        self._switches: dict[str, bool] = {}
        """The organiser's switches as last read or set (``paused``, ``frozen``)."""
        self.standings = Standings(self, drawing)
        """The field, its leaderboard and ratings (:mod:`arena.server.standings`)."""
        self.host = LadderHost(self)
        """The ladder and where it plays: its pool, match worker or cluster (:mod:`arena.server.ladder_host`)."""
        self.submissions = Submissions(
            config, self.game, self.store, self.state, self.tid, self.catalogue, frozen=lambda: self.frozen,
            field=self.field, over_quota=self.log_upkeep.participant_over, warmer=lambda: self.host.warmer,
            retired=self.host.retired, changed=self.field_changed,
        )  # fmt: skip
        """Uploads, their checks, and the versions they enter."""
        self.catalogue.load_specs()

    # Opening -------------------------------------------------------------------
    def _plan(self) -> Plan:
        """The competition as the results store knows it: its game, parameters, limits, fault policy."""
        config = self.config
        tournament = TournamentConfig(
            game=config.game,
            bots=[],
            name=config.title,
            format="ladder",
            seed=None,  # a new competition's is made at random, kept in the database and never shown
            max_faults=config.max_faults,
            params=dict(config.params),
            limits=config.limits,
            source=config.source,
        )
        return Plan(config=tournament, game=self.game, specs={}, duplicate=True)

    def add_house_bots(self) -> list[str]:
        """Enter the config's house bots (a changed one becomes a new version, admitted when the ladder starts).

        Returns a line per change.
        """
        said = []
        for text, base in self.config.house_bots:
            spec = resolve(text, base=base)
            try:
                check_name(spec.name)
            except ConfigError as exc:
                raise ConfigError(f"house bot {text!r}: {exc}; rename it in its bot.toml") from None
            owner = self.state.ensure_house(spec.name)
            if not owner.is_house:
                raise ConfigError(
                    f"house bot {text!r} is named {spec.name!r}, which is a participant's name: rename it in its"
                    " bot.toml"
                )
            current = [v for v in self.versions(owner.id) if v.row.current]
            if any((v.row.digest, v.row.command) == (spec.digest, spec.command) for v in current):
                continue
            with self.store.transaction():
                row = enter_version(self.store, self.tid, spec.name, spec)
                for old in current:
                    self.store.retire(old.id, "changed")
            self.state.add_entry(row.id, owner.id, submission_id=None, folder=str(spec.cwd))
            self.catalogue.forget()
            self.specs[row.id] = owned(spec, owner.id).with_name(row.label)
            line = f"house bot {spec.name}: version {row.version}" + (" (changed)" if current else "")
            self.store.log_change(self.tid, "changed" if current else "added", line, spec.name)
            said.append(line)
        self.field_changed()
        return said

    # The field and the standings -------------------------------------------------
    # The catalogue's (the names other parts and pages call) ------------------------
    @property
    def specs(self) -> dict[int, BotSpec]:
        """Each current version's spec, by version id (:attr:`Catalogue.specs`)."""
        return self.catalogue.specs

    def versions(self, pid: int | None = None) -> list[Version]:
        """Every version (of participant ``pid``), oldest first: :meth:`Catalogue.versions`."""
        return self.catalogue.versions(pid)

    def scheme(self) -> str:
        """How the ladder plays its deals now, as the leaderboard says it."""
        if self.config.ladder.duplicate != TABLES:
            return "duplicate pairs, seats swapped (each bot plays both seats of a deal)"
        owners = {v.participant_id for v in self.versions() if v.playing}
        if len(owners) < 4:
            return f"single deals: fewer than four participants ({len(owners)}) for two tables"
        return "duplicate at two tables (four participants a deal, seats kept; no bot plays both seats of a deal)"

    def field_changed(self) -> None:
        """Something but a result changed (a version, a switch, a disqualification): the field and the standings
        are drawn anew at once; the live pages are told."""
        self.catalogue.forget()
        self.standings.forget()
        self._announce()

    def results_changed(self) -> None:
        """A result was recorded, or the standings' table drawn anew: the live pages are told (the board of a
        result alone is reused for up to ``BOARD_EVERY_S``)."""
        self._announce()

    def ladder_changed(self) -> None:
        """What the ladder is doing changed (it began, its match worker up): the live pages are told, in a state
        event (the standings are the same)."""
        self.changed.set()
        self.changed = trio.Event()

    def _announce(self) -> None:
        self.stamp += 1
        self.changed.set()
        self.changed = trio.Event()
        if self.host.ladder is not None:
            self.host.ladder.wake()

    @property
    def paused(self) -> bool:
        """Whether the organiser paused the ladder."""
        return self._switch("paused")

    @property
    def frozen(self) -> bool:
        """Whether the organiser froze the competition (no uploads, no matches: final standings)."""
        return self._switch("frozen")

    def _switch(self, key: str) -> bool:
        """A stored switch, read once: only :meth:`set_paused` and :meth:`set_frozen` change them (a page of 100
        matches asked ``frozen`` of the database once per match, for its seed)."""
        if key not in self._switches:
            self._switches[key] = self.state.setting(key) == "1"
        return self._switches[key]

    def banned(self, version: Version) -> str:
        """Why ``version`` is disqualified by its faults or its logs' disk, or ``""``."""
        faults = disqualification(self.faults.get(version.id, Counter()), self.config.max_faults)
        return faults or self.log_upkeep.over(version.id)

    def _owned(self) -> list[Owned]:
        return [Owned(v.id, v.label, v.participant_id) for v in self.versions()]

    def _quota_changed(self) -> None:
        self.field_changed()
        self.host.drop_processes()

    def field(self) -> dict[str, Player]:
        """The versions that may play now, by label (:meth:`Standings.field`)."""
        return self.standings.field()

    def board(self) -> Board:
        """The leaderboard of the current field (:meth:`Standings.board`)."""
        return self.standings.board()

    def ratings(self) -> dict[str, RatingView]:
        """Current ratings of every playing version, by label, for the ladder's choice of pairs."""
        return self.standings.ratings()

    def _count_faults(self, match: PlayedMatch) -> bool:
        """Count ``match``'s faults against their versions; whether one of them is disqualified by it."""
        banned = False
        for fault in match.faults:
            vid = match.versions[0 if fault.seat == "A" else 1]
            if vid is not None:
                kinds = self.faults.setdefault(vid, Counter())
                before = disqualification(kinds, self.config.max_faults)
                kinds[fault.kind] += 1
                banned = banned or (not before and bool(disqualification(kinds, self.config.max_faults)))
        return banned

    def _recorded(self, match: PlayedMatch) -> None:
        self.played += 1
        self.standings.recorded(self.played)
        self.log_upkeep.charge(match)
        if self._count_faults(match):  # a disqualification shows at once (its row's status), the table follows
            self.field_changed()
            self.host.drop_processes()
        else:
            self.results_changed()

    # The organiser's switches ----------------------------------------------------
    def set_paused(self, paused: bool) -> None:
        """Pause or resume the ladder (pairs in play finish)."""
        self.state.set_setting("paused", "1" if paused else "0")
        self._switches["paused"] = paused
        self.field_changed()

    def set_frozen(self, frozen: bool) -> None:
        """Freeze the competition (no uploads, no new matches) or thaw it; freezing ends the pairs in play unplayed."""
        self.state.set_setting("frozen", "1" if frozen else "0")
        self._switches["frozen"] = frozen
        if frozen and self.host.ladder is not None:
            self.host.ladder.abort(None, "the organiser froze the competition")
        self.field_changed()

    def disqualify(self, participant: Participant, reason: str) -> None:
        """Take ``participant``'s bot out of the ladder, with ``reason`` shown; ``""`` readmits it.

        Its pairs in play end at once, unplayed: nothing of them counts, for
        its opponents or against them.
        """
        self.state.set_disqualified(participant.id, reason)
        if reason and self.host.ladder is not None:
            labels = [v.label for v in self.versions(participant.id)]
            self.host.ladder.abort(labels, f"{participant.name} was disqualified by the organiser")
        self.field_changed()
        self.host.drop_processes()

    # Running ---------------------------------------------------------------------
    async def run(
        self,
        *,
        jobs: int,
        cluster: str = "",
        say: Callable[[str], None] = lambda _text: None,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Admit the field, then play the ladder and check submissions until cancelled.

        ``jobs`` matches at once, in a match worker, here or on ``cluster``
        (:meth:`LadderHost.opened <arena.server.ladder_host.LadderHost.opened>`);
        checks always run here.
        """
        self.standings.start()  # (its process imports the arena meanwhile)
        self.submissions.requeue_unfinished()
        await self.host.admit_field(say)
        os.environ[LIVE_ENV] = "1"  # the ladder's logs are written step by step (the worker inherits it): live pages
        await self.standings.draw_first()
        async with self.host.opened(jobs=jobs, cluster=cluster, say=say) as nursery:
            for _ in range(CHECKS_UNDER_WAY * self.config.check_jobs):  # they share config.check_jobs slots
                nursery.start_soon(self.submissions.checker)
            nursery.start_soon(keep_running, "the standings", self.standings.keep_drawn, say)
            checkpointed = functools.partial(checkpoints.keep_checkpointed, self.store.path)
            nursery.start_soon(keep_running, "the database's checkpoints", checkpointed, say)
            nursery.start_soon(keep_running, "the logs' disk watch", self.log_upkeep.watch_disk, say)
            nursery.start_soon(keep_running, "the log pruner", self.log_upkeep.prune_every, say)
            task_status.started()
            await trio.sleep_forever()

    def close(self) -> None:
        """Keep the standings' arrays for the next start, stop their drawing process, and close the database."""
        try:
            with contextlib.suppress(StoreError, sqlite3.Error, ConnectionError):  # (a database not writable now,
                self.standings.save()  # or no drawing process: the next start reads every row, as without them)
        finally:
            self.standings.close()
        self.state.close()
        self.store.close()


def private_database(path: Path) -> None:
    """Make SQLite's file ``path`` (and its journals, which SQLite creates with the file's mode) ``0600``."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(name.stat().st_mode) != 0o600:
                name.chmod(0o600)


@contextlib.contextmanager
def locked(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's lock: one server per competition (the lock dies with the process, kill -9 too)."""
    private_folder(data_dir)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
            raise ConfigError(
                f"{data_dir} is in use by a running server (pid {holder}); stop it first, or give another data_dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)
