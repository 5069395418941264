"""The running competition: its records, the ladder, submissions and their checks, live updates.

One :class:`Competition` lives in the server's trio run. The web app
(:mod:`arena.server.web`) calls it; its :meth:`Competition.run` plays the
ladder and checks submissions in the same nursery as the web server, so one
process does everything and a ``kill -9`` of it loses only work in flight:
uploads, versions, results and sessions are in SQLite before they are
acknowledged, a half-played pair is finished on restart, and a submission whose
check was interrupted is checked again.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import trio

from .._errors import ArenaError, BuildError, ConfigError, UploadRefused
from ..bots.spec import MANIFEST, BotSpec, hash_path, load_folder, resolve
from ..checks.bot import check_bot, default_references
from ..competition.config import TournamentConfig
from ..competition.ladder import Ladder, Policy, RatingView, RemotePlay
from ..competition.plan import Plan
from ..competition.results import Leaderboard, Standing, disqualifications, leaderboard
from ..competition.schedule import Scheduled
from ..competition.store import BotRow, PlayedMatch, Store
from ..games import Game, get_game
from ..sandbox import build_key, build_root, current_policy
from ..supervisor._pool import BotPool, open_pool
from ..supervisor.build import ensure_built
from .archive import unpack
from .config import ServerConfig
from .state import Participant, State, Submission, Version, check_name

DB_NAME = "server.sqlite"
SECRET_NAME = "session.key"
LOCK_NAME = "server.lock"
BOARD_EVERY_S = 1.0
"""While matches finish, the standings are computed at most this often (readers may see them a second late)."""
HISTORY_EVERY = 10
"""A rating snapshot is kept every this many matches, for each bot's chart."""
ADMIN_NAME = "organiser"


@dataclass
class Row:
    """One leaderboard row as the pages show it: a version's standing and who owns it."""

    standing: Standing
    participant: Participant
    version: Version
    status: str
    """``""`` (playing), ``"disqualified"`` (faults or the organiser), or ``"retired"``."""
    reason: str = ""


@dataclass
class Board:
    """The current field's standings, computed once per change."""

    rows: list[Row]
    board: Leaderboard
    matches: int
    stamp: int
    paused: bool
    frozen: bool

    def to_json(self) -> dict[str, Any]:
        """The standings as the API and the live page send them."""
        return {
            "matches": self.matches,
            "paused": self.paused,
            "frozen": self.frozen,
            "points_name": self.board.points_name,
            "standings": [
                {
                    "rank": rank,
                    "participant": row.participant.name,
                    "bot": row.version.bot,
                    "version": row.version.number,
                    "status": row.status,
                    "reason": row.reason,
                    **_standing_json(row.standing),
                }
                for rank, row in enumerate(self.rows, start=1)
            ],
        }


def _standing_json(standing: Standing) -> dict[str, Any]:
    data = msgspec.to_builtins(standing)
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in data.items() if k not in ("bot", "rank")}


class Busy(ArenaError):
    """The participant must wait (rate limit, or a check still running)."""


class Competition:
    """A competition server's state and work, opened on its data folder."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.data_dir = config.data_dir
        self.game: Game = get_game(config.game, config.params)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.state = State(self.data_dir / DB_NAME)
        self.store = Store.open(self.data_dir / DB_NAME)
        self.tid = self._tournament()
        self.secret_key = self._secret_key()
        self.logs = self.data_dir / "logs"
        self.bots_dir = self.data_dir / "bots"
        self.checks_dir = self.data_dir / "checks"
        self.incoming = self.data_dir / "incoming"
        for folder in (self.logs, self.bots_dir, self.checks_dir, self.incoming):
            folder.mkdir(exist_ok=True)
        self.matches: list[PlayedMatch] = self.store.matches(self.tid)
        self.specs: dict[str, BotSpec] = {}
        self.changed = trio.Event()
        self.stamp = 0
        self._board: Board | None = None
        self._board_at = 0.0
        self._checks = trio.CapacityLimiter(1)
        self._pending: trio.MemorySendChannel[int] | None = None
        self.ladder: Ladder | None = None
        self.pool: BotPool | None = None
        self._nursery: trio.Nursery | None = None
        self.build_failures: dict[str, str] = {}
        """Versions whose build failed when the server started again (they sit out until fixed)."""
        self._load_specs()

    # Opening -------------------------------------------------------------------
    def _tournament(self) -> int:
        identity = {
            "game": self.game.game_id,
            "params": self.game.params,
            "limits": msgspec.to_builtins(self.config.limits),
            "max_faults": self.config.max_faults,
        }
        fingerprint = "server-" + hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
        existing = self.store.tournaments()
        if existing and all(t.fingerprint != fingerprint for t in existing):
            old = existing[-1]
            raise ConfigError(
                f"{self.data_dir} holds a competition of {old.game} {old.config.get('params', {})} with other"
                " limits or fault policy; the game, its parameters, limits and max_faults cannot change while it"
                " runs: give this config another [server] data_dir to start a new competition"
            )
        row = self.store.create_tournament(
            fingerprint=fingerprint,
            seed=self.config.seed,
            name=self.config.title,
            game=self.game.game_id,
            config={
                "name": self.config.title,
                "game": self.game.game_id,
                "params": self.game.params,
                "format": "ladder",
                "duplicate_deals": True,
                "max_faults": self.config.max_faults,
                "limits": msgspec.to_builtins(self.config.limits),
                "points_name": self.game.points_name,
                "source": self.config.source,
            },
            bots=[],
        )
        return row.id

    def _secret_key(self) -> str:
        """The key that signs session cookies: made once, kept beside the database (not in it)."""
        path = self.data_dir / SECRET_NAME
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            pass
        key = secrets.token_urlsafe(48)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(key)
        return key

    def _load_specs(self) -> None:
        for version in self.state.versions(active=True):
            with contextlib.suppress(ArenaError):
                self.specs[version.bot] = self._spec(version)

    def _spec(self, version: Version) -> BotSpec:
        folder = Path(version.folder)
        if (folder / MANIFEST).is_file():
            spec = load_folder(folder, source=version.source)
        else:  # a house bot given as a command line, resolved where the config is
            spec = resolve(version.source, base=folder)
        return spec.with_name(version.bot)

    def admin_token(self, *, renew: bool = False) -> str | None:
        """A new organiser token when there is none yet (or ``renew``); ``None`` when one exists."""
        if self.state.admin_exists() and not renew:
            return None
        _, token = self.state.add_participant(ADMIN_NAME, admin=True)
        return token

    async def add_house_bots(self) -> list[str]:
        """Enter the config's house bots (a changed one becomes a new version); returns what changed."""
        said = []
        for text, base in self.config.house_bots:
            spec = resolve(text, base=base)
            try:
                check_name(spec.name)
            except ConfigError as exc:
                raise ConfigError(f"house bot {text!r}: {exc}; rename it in its bot.toml") from None
            owner = self.state.ensure_house(spec.name)
            current = self.state.versions(owner.id, active=True)
            if current and current[0].digest == spec.digest:
                continue
            await ensure_built(spec)
            version, retired = self.state.add_version(
                owner.id, submission_id=None, folder=str(spec.cwd), source=text, digest=spec.digest
            )
            self._enter(version, spec, retired)
            said.append(f"house bot {spec.name}: version {version.number}")
        return said

    # The field and the standings -------------------------------------------------
    def _enter(self, version: Version, spec: BotSpec, retired: Version | None = None) -> None:
        spec = spec.with_name(version.bot)
        self.store.create_tournament(
            fingerprint=self.store.tournament(self.tid).fingerprint,  # type: ignore[union-attr]
            seed=self.config.seed,
            name=self.config.title,
            game=self.game.game_id,
            config={},
            bots=[BotRow(version.bot, spec.command, version.source, spec.digest, spec.reuse)],
        )
        self.specs[version.bot] = spec
        if retired is not None:
            self.specs.pop(retired.bot, None)
            if self.pool is not None:
                self.pool.drop(retired.bot)
        self.touch()

    def touch(self, *, results_only: bool = False) -> None:
        """Something shown changed: the standings are stale; tell the live pages.

        A new result (``results_only``) lets the standings be reused for up to
        ``BOARD_EVERY_S``; any other change (a version, a switch) recomputes them
        at once.
        """
        self.stamp += 1
        if not results_only:
            self._board = None
        self.changed.set()
        self.changed = trio.Event()
        if self.ladder is not None:
            self.ladder.wake()

    @property
    def paused(self) -> bool:
        """Whether the organiser paused the ladder."""
        return self.state.setting("paused") == "1"

    @property
    def frozen(self) -> bool:
        """Whether the organiser froze the competition (no uploads, no matches: final standings)."""
        return self.state.setting("frozen") == "1"

    def field(self) -> dict[str, BotSpec]:
        """The versions that may play now."""
        if self.paused or self.frozen:
            return {}
        banned = disqualifications(self.matches, self.config.max_faults)
        out = {}
        for version in self.state.versions(active=True):
            owner = self.state.participant(version.participant_id)
            spec = self.specs.get(version.bot)
            if owner and not owner.disqualified and version.bot not in banned and spec is not None:
                out[version.bot] = spec
        return out

    def board(self) -> Board:
        """The leaderboard of the current field (cached until something changes; see :meth:`touch`)."""
        cached = self._board
        if cached is not None and (cached.stamp == self.stamp or time.monotonic() - self._board_at < BOARD_EVERY_S):
            return cached
        versions = self.state.versions()
        owners = {p.id: p for p in self.state.participants()}
        names = [v.bot for v in versions]
        known = set(names)
        matches = [m for m in self.matches if m.bot_a in known and m.bot_b in known]
        full = leaderboard(names, matches, max_faults=self.config.max_faults, points_name=self.game.points_name)
        by_bot = {row.bot: row for row in full.standings}
        rows = []
        for version in versions:
            owner = owners[version.participant_id]
            standing = by_bot[version.bot]
            if version.retired_at is not None:
                continue
            reason = owner.disqualified and f"disqualified by the organiser: {owner.disqualified}"
            reason = reason or (standing.disqualified and f"disqualified: {standing.disqualified}")
            rows.append(Row(standing, owner, version, "disqualified" if reason else "", reason))
        order = {row.bot: index for index, row in enumerate(full.standings)}
        rows.sort(key=lambda r: (bool(r.status), order[r.version.bot]))
        self._board = Board(rows, full, len(matches), self.stamp, self.paused, self.frozen)
        self._board_at = time.monotonic()
        return self._board

    def ratings(self) -> dict[str, RatingView]:
        """Current ratings of every version, for the ladder's choice of pairs."""
        return {
            row.standing.bot: RatingView(row.standing.rating, row.standing.rating_error) for row in self.board().rows
        }

    def _recorded(self, match: PlayedMatch) -> None:
        self.matches.append(match)
        self.touch(results_only=True)
        if len(self.matches) % HISTORY_EVERY == 0:
            board = self.board()
            self.state.add_ratings(
                len(self.matches), [(r.version.bot, r.standing.rating, r.standing.rating_error) for r in board.rows]
            )

    # Submissions -------------------------------------------------------------------
    def may_upload(self, participant: Participant) -> None:
        """Raise :class:`Busy` or :class:`UploadRefused` when ``participant`` may not upload now."""
        if self.frozen:
            raise UploadRefused("the competition is frozen: it takes no more uploads")
        if participant.is_house:
            raise UploadRefused("house bots are updated by the organiser's config")
        if self.state.recent_uploads(participant.id, within_s=3600) >= self.config.uploads_per_hour:
            raise Busy(f"at most {self.config.uploads_per_hour} uploads an hour; try again later")
        running = [s for s in self.state.submissions(participant.id, limit=5) if not s.done]
        if running:
            raise Busy(f"submission {running[0].id} is still being checked; wait for its result")

    async def take_upload(self, participant: Participant, upload: Path, *, filename: str, language: str) -> int:
        """Record an upload (already on disk at ``upload``), unpack it, and queue its check; returns its id.

        The limits of :meth:`may_upload` are checked again here, with no pause
        between the check and the record: uploads streamed in parallel cannot
        slip past them.
        """
        self.may_upload(participant)
        size = upload.stat().st_size
        sid = self.state.add_submission(participant.id, filename=filename[:200], language=language, size=size)
        dest = self.bots_dir / participant.name / f"s{sid}"
        dest.parent.mkdir(exist_ok=True)
        try:
            folder = await trio.to_thread.run_sync(lambda: unpack(upload, dest, self.config.uploads, language=language))
        except UploadRefused as exc:
            shutil.rmtree(dest, ignore_errors=True)
            self.state.update_submission(sid, status="refused", message=str(exc))
            return sid
        finally:
            upload.unlink(missing_ok=True)
        self.state.update_submission(sid, folder=str(folder), digest=hash_path(folder))
        self._queue(sid)
        self.touch()
        return sid

    def _queue(self, sid: int) -> None:
        assert self._pending is not None, "the competition is not running"
        self._pending.send_nowait(sid)

    async def _checker(self, receive: trio.MemoryReceiveChannel[int]) -> None:
        async for sid in receive:
            await self.check_submission(sid)

    async def check_submission(self, sid: int) -> Submission:
        """Build and check submission ``sid`` as ``arena check`` does; a pass makes a new version."""
        submission = self.state.submission(sid)
        assert submission is not None
        owner = self.state.participant(submission.participant_id)
        assert owner is not None
        if not submission.folder:
            self.state.update_submission(sid, status="refused", message="the server stopped while unpacking it")
            return self._done(sid)
        self.state.update_submission(sid, status="checking")
        self.touch()
        folder = Path(submission.folder)
        try:
            spec = load_folder(folder, source=submission.filename).with_name(owner.name)
        except ConfigError as exc:
            self.state.update_submission(sid, status="failed", message=relative_paths(str(exc), folder, self.data_dir))
            return self._done(sid)
        log_dir = self.checks_dir / f"s{sid}"
        shutil.rmtree(log_dir, ignore_errors=True)
        log_dir.mkdir(parents=True)
        references = default_references(self.game, spec)
        async with self._checks:
            report = await check_bot(
                spec, self.game, references=references, limits=self.config.limits, log_dir=log_dir,
                matches=self.config.check_matches, seed=sid,
            )  # fmt: skip
        checks = [
            {"name": c.name, "passed": c.passed, "detail": relative_paths(c.detail, folder, self.data_dir), "where": [
                relative_paths(line, folder, self.data_dir) for line in c.where
            ]}
            for c in report.checks
        ]  # fmt: skip
        if not report.ok:
            failed = [c.name for c in report.checks if c.passed is False]
            self.state.update_submission(sid, status="failed", report=checks, message="failed: " + ", ".join(failed))
            return self._done(sid)
        version, retired = self.state.add_version(
            owner.id, submission_id=sid, folder=str(folder), source=submission.filename, digest=submission.digest
        )
        self.state.update_submission(sid, status="passed", report=checks, message=f"version {version.number}")
        self._enter(version, spec, retired)
        return self._done(sid)

    def _done(self, sid: int) -> Submission:
        self.touch()
        found = self.state.submission(sid)
        assert found is not None
        return found

    # The organiser's switches ----------------------------------------------------
    def set_paused(self, paused: bool) -> None:
        """Pause or resume the ladder (pairs in play finish)."""
        self.state.set_setting("paused", "1" if paused else "0")
        self.touch()

    def set_frozen(self, frozen: bool) -> None:
        """Freeze the competition (no uploads, no new matches) or thaw it."""
        self.state.set_setting("frozen", "1" if frozen else "0")
        self.touch()

    def disqualify(self, participant: Participant, reason: str) -> None:
        """Take ``participant``'s bot out of the ladder, with ``reason`` shown; ``""`` readmits it."""
        self.state.set_disqualified(participant.id, reason)
        self.touch()

    # Running ---------------------------------------------------------------------
    async def run(
        self, *, jobs: int, cluster: str = "", task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Play the ladder and check submissions until cancelled.

        ``jobs`` matches at once (two per duplicate pair), here or, with
        ``cluster`` (a Dask scheduler's address), on the cluster's workers
        (``jobs`` 0: as many as their threads); checks always run here.
        """
        send, receive = trio.open_memory_channel[int](10_000)
        self._pending = send
        for submission in self.state.unfinished_submissions():
            send.send_nowait(submission.id)

        def stderr_path(spec: BotSpec, number: int) -> Path:
            return self.logs / "stderr" / f"{spec.name}.{number}.log"

        for name, spec in list(self.specs.items()):  # builds live in a temporary cache: a reboot empties it
            try:
                await ensure_built(spec)
            except BuildError as exc:  # it built when it was checked; say so and leave it out
                self.specs.pop(name)
                self.build_failures[name] = str(exc)
        async with contextlib.AsyncExitStack() as stack:
            nursery = await stack.enter_async_context(trio.open_nursery())
            pool = await stack.enter_async_context(open_pool(stderr_path=stderr_path))
            remote = None
            if cluster:
                remote, slots = await self._on_cluster(stack, cluster)
                jobs = jobs or slots
            self._nursery = nursery
            self.pool = pool
            self.ladder = Ladder(
                self.store, self.tid, self.game, self.config.limits, seed=self.config.seed,
                policy=Policy(self.config.ladder.placement_pairs, self.config.ladder.pair_budget),
                field=self.field, ratings=self.ratings, recorded=self._recorded, log_dir=self.logs,
                slots=max(1, jobs // 2), remote=remote,
            )  # fmt: skip
            nursery.start_soon(self._checker, receive)
            nursery.start_soon(self.ladder.run, pool)
            task_status.started()
            await trio.sleep_forever()

    async def _on_cluster(self, stack: contextlib.AsyncExitStack, address: str) -> tuple[RemotePlay, int]:
        """Open a Dask executor at ``address``; a way to play a match there, and its slots.

        The executor starts with the current field; a version that enters
        later has its bundle sent to the workers before its first match.
        """
        from ..competition.cluster import BundlePlugin, open_executor, plugin_name, remote_bots  # Dask is optional

        plan = Plan(
            config=TournamentConfig(
                game=self.config.game, bots=[], params=dict(self.config.params), limits=self.config.limits
            ),
            game=self.game,
            specs=dict(self.specs),
            duplicate=True,
        )
        executor = await stack.enter_async_context(open_executor(address, plan, self.tid))
        sharing = trio.Lock()

        async def play(scheduled: Scheduled, specs: Mapping[str, BotSpec], log_path: Path | None) -> PlayedMatch:
            async with sharing:
                missing = {n: specs[n] for n in (scheduled.bot_a, scheduled.bot_b) if n not in executor.bots}
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
            return await executor(scheduled, log_path)

        return play, executor.slots

    def spawn(self, task: Callable[[], Awaitable[None]]) -> None:
        """Run ``task`` in the competition's nursery (the web app's background work), if it is running."""
        if self._nursery is not None:
            self._nursery.start_soon(task)

    def build_log(self, version: Version) -> Path | None:
        """Where the last build of ``version`` wrote its whole output, if it has a build."""
        spec = self.specs.get(version.bot) or self._spec(version)
        if not spec.build:
            return None
        return build_root(current_policy().build_root) / f"{build_key(spec)}.log"

    def close(self) -> None:
        """Close the databases."""
        self.state.close()
        self.store.close()


@contextlib.contextmanager
def locked(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's lock: one server per competition (the lock dies with the process, kill -9 too)."""
    data_dir.mkdir(parents=True, exist_ok=True)
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


def relative_paths(text: str, *folders: Path) -> str:
    """``text`` with the server's own paths cut out (a participant sees paths inside its bot folder)."""
    for folder in folders:
        text = text.replace(str(folder) + "/", "").replace(str(folder), ".")
    return text
