"""The submission pipeline: an upload taken, unpacked, checked as ``arena check`` does, and admitted or not.

:class:`Submissions` is one part of :class:`~arena.server.service.Competition`.
An upload is recorded and unpacked (:mod:`arena.server.archive`) into a new
folder of its owner's; an upload that unpacks to a bot waits in a
:class:`~arena.server._queue.FairQueue` (participants in turn) for its check,
which runs in one of ``check_jobs`` slots shared by participant
(:class:`~arena.server._queue.CheckSlots`). A version that passes is admitted
and its owner's previous version retires; one that fails is not admitted, with
the failed checks as the reason, and the previous version plays on.
"""

from __future__ import annotations

import contextlib
import shutil
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

import trio

from protocol import Limits

from .._errors import ArenaError, ConfigError, UploadRefused
from ..bots.spec import BotSpec, game_of, hash_path, load_folder
from ..checks.bot import CHECKS, Check, Report, check_bot, default_references
from ..checks.hints import printable
from ..competition.ladder import Player
from ..competition.plan import enter_version
from ..competition.playing import MatchLost
from ..competition.store import Store
from ..competition.worker import WorkerError
from ..games import Game
from ..sandbox import background
from ..supervisor import new_seed
from ._queue import CheckSlots, FairQueue
from .archive import unpack
from .catalogue import Catalogue, owned, relative_paths
from .config import ServerConfig
from .files import private_folder
from .state import Participant, State, Submission
from .versions import Version

WARM_PROCESSES = 2
"""Processes started for a version before it enters: one for each leg of its first pair."""
WARM_BOOT_MAX_S = 2.0
"""The longest a version waits, once its processes are started, for them to boot (its check's first answer)."""
CHECK_BROKE = "the arena could not check this upload (an error of its own: the organiser has the details)"
"""What an upload whose check raised shows its owner (the traceback goes to the server's output)."""
UNPACK_BROKE = "the arena could not unpack this upload (an error of its own: the organiser has the details)"
"""What an upload whose unpacking raised anything but a refusal shows its owner (the traceback goes to the output)."""
CHECK_TIME = "finishes within the check's time"
"""The check an upload fails when its whole check ran over ``uploads.check_wall_s``."""
CHECKS_UNDER_WAY = 4
"""Checks under way at once, for each of ``check_jobs`` slots: a check waiting between its steps holds its bot's
process (frozen), so their number is bounded; past it an upload waits for a check to end."""
NOT_ADMITTED = "not admitted"
"""Why a version that failed its check was retired at once: its owner's previous version plays on."""


class Busy(ArenaError):
    """The participant must wait (rate limit, or a check still running)."""


class Warmer(Protocol):
    """Where a new version's first processes are started before it enters (a pool, or the match worker)."""

    def warm(self, spec: BotSpec, limits: Limits, count: int) -> Awaitable[None]: ...


class Submissions:
    """The uploads of competition ``tid`` and their checks.

    Besides the store and the server's records it is given what it asks of
    the rest of the competition: whether it is ``frozen``, the ``field`` a
    check names to the bot (the standings'), why a participant's logs are
    over their quota (``over_quota``), where to ``warm`` a passing version
    (``warmer``: none on a cluster, or before the ladder runs), what to do
    when a version ``retired`` (its idle processes stop), and ``changed``,
    called when anything shown changed.
    """

    def __init__(
        self,
        config: ServerConfig,
        game: Game,
        store: Store,
        state: State,
        tid: int,
        catalogue: Catalogue,
        *,
        frozen: Callable[[], bool],
        field: Callable[[], dict[str, Player]],
        over_quota: Callable[[int], str],
        warmer: Callable[[], Warmer | None],
        retired: Callable[[str], None],
        changed: Callable[[], None],
    ) -> None:
        self.config = config
        self.game = game
        self.store = store
        self.state = state
        self.tid = tid
        self.catalogue = catalogue
        self.data_dir = config.data_dir
        self.bots_dir = config.data_dir / "bots"
        self.checks_dir = config.data_dir / "checks"
        self.frozen = frozen
        self.field = field
        self.over_quota = over_quota
        self.warmer = warmer
        self.retired = retired
        self.changed = changed
        self._checks = FairQueue()
        """Uploads waiting for their check (participants in turn, one check each at a time)."""
        self._slots = CheckSlots(config.check_jobs)
        """The ``config.check_jobs`` slots the checks under way share, by participant (see :class:`CheckSlots`)."""

    def requeue_unfinished(self) -> None:
        """Queue again the checks a stop interrupted (each is done again on the same version)."""
        for submission in self.state.unfinished_submissions():
            self._checks.put(submission.participant_id, submission.id)

    def get(self, sid: int) -> Submission | None:
        """The submission with id ``sid``."""
        return self.state.submission(sid)

    def latest(self, pid: int | None = None, *, limit: int = 100) -> list[Submission]:
        """The latest submissions (of participant ``pid``), newest first."""
        return self.state.submissions(pid, limit=limit)

    def may_upload(self, participant: Participant) -> None:
        """Raise :class:`Busy` or :class:`UploadRefused` when ``participant`` may not upload now."""
        if self.frozen():
            raise UploadRefused("the competition is frozen: it takes no more uploads")
        if participant.is_house:
            raise UploadRefused("house bots are updated by the organiser's config")
        if participant.is_admin:
            raise UploadRefused("the organiser enters bots as house bots (house_bots in the config)")
        awaiting = self.may_play(participant)
        if awaiting:
            raise UploadRefused(awaiting)
        over = self.over_quota(participant.id)
        if over:
            raise UploadRefused(over)
        if self.state.recent_uploads(participant.id, within_s=3600) >= self.config.uploads_per_hour:
            raise Busy(f"at most {self.config.uploads_per_hour} uploads an hour; try again later")
        running = [s for s in self.state.submissions(participant.id, limit=5) if not s.done]
        if running:
            raise Busy(f"submission {running[0].id} is still being checked; wait for its result")

    def may_play(self, participant: Participant) -> str:
        """Why ``participant`` may not upload nor play a game against a bot yet (``""``: it may)."""
        if self.state.awaiting(participant.id):
            return "the organiser has not approved your account yet: you may upload once it is approved"
        return ""

    async def take_upload(self, participant: Participant, upload: Path, *, filename: str, language: str) -> int:
        """Record an upload (already on disk at ``upload``), unpack it, and queue its check; returns its id.

        The limits of :meth:`may_upload` are checked again here, with no pause
        between the check and the record: uploads streamed in parallel cannot
        slip past them.
        """
        self.may_upload(participant)
        size = upload.stat().st_size
        shown = printable(filename, 200)  # the uploader's words, shown in pages and terminals: no control characters
        sid = self.state.add_submission(participant.id, filename=shown, language=language, size=size)
        dest = self.bots_dir / participant.name / f"s{sid}"

        def unpacked() -> tuple[Path, str]:
            # The bot's folder is readable by others (a bot runs as a UID of its own and must read its files), but
            # its parents are 0700: its jail reaches it through the bind it makes, nothing else reaches it at all.
            private_folder(dest.parent)
            folder = unpack(upload, dest, self.config.uploads, language=language)
            return folder, hash_path(folder)

        try:
            folder, digest = await trio.to_thread.run_sync(unpacked)
        except Exception as exc:  # no failure may leave the submission queued: its owner would wait for ever
            if not isinstance(exc, UploadRefused):
                traceback.print_exc()
            shutil.rmtree(dest, ignore_errors=True)
            message = str(exc) if isinstance(exc, UploadRefused) else UNPACK_BROKE
            self.state.update_submission(sid, status="refused", message=message)
            self.changed()
            return sid
        finally:
            upload.unlink(missing_ok=True)
        self.state.update_submission(sid, folder=str(folder), digest=digest)
        self._checks.put(participant.id, sid)
        self.changed()
        return sid

    async def checker(self) -> None:
        """Check the queued uploads, one at a time (``config.check_jobs`` of these run at once)."""
        while True:
            participant, sid = await self._checks.take()
            try:
                await self.check_submission(sid)
            except Exception:  # a bug of the arena's must not stop the server: this upload says so, the next goes on
                traceback.print_exc()
                self.state.update_submission(sid, status="failed", message=CHECK_BROKE)
                version = next((v for v in self.catalogue.versions() if v.entry.submission_id == sid), None)
                owner = self.state.participant(version.participant_id) if version is not None else None
                if version is not None and owner is not None and version.admission == "pending":
                    self._refuse(version, owner, CHECK_BROKE)
                self.changed()
            finally:
                self._checks.done(participant)

    async def check_submission(self, sid: int) -> Submission:
        """Build and check submission ``sid`` as ``arena check`` does.

        An upload that unpacked to a bot folder is a new version of its
        owner's bot, pending until checked. If it passes it is admitted and
        the previous version retires; if not, it is not admitted, with the
        failed checks as the reason, and the previous version (if any) plays
        on. A check interrupted by a restart is done again on the same version.
        """
        submission = self.state.submission(sid)
        assert submission is not None
        owner = self.state.participant(submission.participant_id)
        assert owner is not None
        if not submission.folder:
            self.state.update_submission(sid, status="refused", message="the server stopped while unpacking it")
            return self._done(sid)
        self.state.update_submission(sid, status="checking")
        self.changed()
        folder = Path(submission.folder)
        try:
            spec = owned(load_folder(folder, source=submission.filename), owner.id).with_name(owner.name)
            game_of(self.game.id, [spec])  # a bot.toml that names another game: refused, saying so
        except ConfigError as exc:
            self.state.update_submission(sid, status="failed", message=relative_paths(str(exc), folder, self.data_dir))
            return self._done(sid)
        version = next((v for v in self.catalogue.versions(owner.id) if v.entry.submission_id == sid), None)
        if version is None:
            known = {v.id for v in self.catalogue.versions()}
            orphans = [  # entered in the store just before a kill, before the server noted whose it is
                r for r in self.store.versions(self.tid, current=True)
                if r.name == owner.name and r.admission == "pending" and r.id not in known
            ]  # fmt: skip
            if orphans and orphans[-1].digest == spec.digest:
                row = orphans[-1]
            else:
                row = enter_version(self.store, self.tid, owner.name, spec)
            self.state.add_entry(row.id, owner.id, submission_id=sid, folder=str(folder))
            self.catalogue.forget()
            version = next(v for v in self.catalogue.versions(owner.id) if v.id == row.id)
        spec = spec.with_name(version.label)
        log_dir = self.checks_dir / f"s{sid}"
        references = default_references(self.game, spec)

        # A secret deal, as the ladder's: one that followed from the submission's number would tell the bot
        # that it is being checked (it could deal the cards itself and compare).
        check_seed = new_seed() >> 1
        # Nor may its opponents' names: the bot is told names of the field it will meet on the ladder (a reference
        # bot that is no house bot would say "check"). An empty field (the first upload, a paused ladder) names none.
        field = sorted(label for label, player in self.field().items() if player.entrant.name != owner.name)

        # The cap counts the time the check holds a slot: the time it waits for one (another participant's turn)
        # moves the deadline on.
        capped = trio.CancelScope()

        async def pace() -> None:
            capped.deadline += await self._slots.step(owner.id)

        async def check() -> Report:
            shutil.rmtree(log_dir, ignore_errors=True)
            log_dir.mkdir(mode=0o700, parents=True)
            return await check_bot(
                spec, self.game, references=references, limits=self.config.limits, log_dir=log_dir,
                matches=self.config.check_matches, seed=check_seed, opaque_ids=True, opponent_names=field, pace=pace,
            )  # fmt: skip

        async with self._slots.held(owner.id):  # its build is its first step: charged to its owner, as the rest
            capped.deadline = trio.current_time() + self.config.check_wall_s
            with capped:
                with background():  # beside the ladder, the check takes the CPU its bots leave
                    report = await check()
                if report.machine_may_explain:
                    # A busy ladder may have kept a background bot waiting past a wall-clock cap (it was runnable
                    # when the cap struck): the verdict that stands is the one at an ordinary bot's weight. A crash,
                    # a protocol error, an illegal move, CPU time over, or a bot that slept is not judged again.
                    report = await check()
        if capped.cancelled_caught:
            report = Report(spec.name, [Check(CHECK_TIME, False, self._over_time())])
        checks = [
            {"name": c.name, "passed": c.passed, "detail": relative_paths(c.detail, folder, self.data_dir), "where": [
                relative_paths(line, folder, self.data_dir) for line in for_participant(c.where, log_dir)
            ]}
            for c in report.checks
        ]  # fmt: skip
        others = [v for v in self.catalogue.versions(owner.id) if v.row.current and v.id != version.id]
        if report.ok:
            await self._warm(spec, report.get(CHECKS[1]).took_s or 0.0)
            with self.store.transaction():
                self.store.set_admission(version.id, "admitted")
                for old in others:
                    self.store.retire(old.id, "changed")
                self.store.log_change(
                    self.tid, "changed" if others else "added", f"{owner.name}: version {version.number} entered",
                    owner.name,
                )  # fmt: skip
            self.catalogue.specs[version.id] = spec
            for old in others:
                self.catalogue.specs.pop(old.id, None)
                self.retired(old.label)
            self.state.update_submission(sid, status="passed", report=checks, message=f"version {version.number}")
            return self._done(sid)
        failed = [c for c in report.checks if c.passed is False]
        message = ", ".join(c.name for c in failed)
        reason = "\n".join(
            [
                f"did not pass arena check: {message}",
                *(f"{c.name}: {relative_paths(c.detail, folder, self.data_dir)}" for c in failed),
            ]
        )
        self._refuse(version, owner, reason)
        self.state.update_submission(sid, status="failed", report=checks, message=message)
        return self._done(sid)

    def _over_time(self) -> str:
        return (
            f"the check ran over {self.config.check_wall_s:g} s, the most a whole check may take here: answer"
            " faster (arena check on your own machine shows your slowest answer)"
        )

    def _refuse(self, version: Version, owner: Participant, reason: str) -> None:
        """``version`` is not admitted, for ``reason``; its owner's version that passed (if any) plays on."""
        others = [v for v in self.catalogue.versions(owner.id) if v.row.current and v.id != version.id]
        with self.store.transaction():
            self.store.set_admission(version.id, "not_admitted", reason)
            self.store.log_change(self.tid, "not_admitted", f"not admitted: {version.label}: {reason}", owner.name)
            if any(v.playing for v in others):
                self.store.retire(version.id, NOT_ADMITTED)  # the version that passed plays on

    async def _warm(self, spec: BotSpec, boot_s: float) -> None:
        """Start a version's processes before it enters the field, and give them the time its check took to boot.

        Its first pair then takes processes that are up, rather than holding
        the ladder's slots while they start (with 20 uploads in 30 s, that
        wait was a third of the ladder's time).
        """
        warmer = self.warmer()
        if warmer is None:
            return
        with trio.move_on_after(self.config.limits.startup_s), contextlib.suppress(MatchLost, WorkerError):
            await warmer.warm(spec, self.config.limits, 1 if spec.persistent else WARM_PROCESSES)
            await trio.sleep(min(boot_s, WARM_BOOT_MAX_S))

    def _done(self, sid: int) -> Submission:
        self.changed()
        found = self.state.submission(sid)
        assert found is not None
        return found


def for_participant(where: list[str], log_dir: Path) -> list[str]:
    """A check's lines without the paths of its logs, which stay in the server's data folder, out of a participant's
    reach: a stderr tail is headed as the bot's, and the lines that name a match log go."""
    shown = []
    for line in where:
        if str(log_dir) not in line:
            shown.append(line)
        elif line.startswith("stderr, last lines ("):
            shown.append("stderr, last lines (your bot's):")
        elif not line.startswith("log: "):
            shown.append(line)
    return shown
