"""The server's own records, in the same SQLite file as the competition's results.

Participants (with their token's hash), browser sessions, submissions (with
their check reports), each bot version's owner and folder (the versions
themselves, their admission and retirement are the results store's:
:mod:`arena.competition.store`), rating snapshots for the charts, and the
organiser's switches (paused, frozen). The SQL is the database layer's
(:mod:`arena.competition.database`: the tables' migrations are its schema's
``server`` track, counted in ``server_migrations``); this module is the
rules over it. Every change is one transaction, so a ``kill -9`` loses
nothing that was acknowledged.

Secrets are never stored: a token is ``<participant id>.<secret>`` and only
the SHA-256 of the secret is kept, compared in constant time; a session is a
random id whose hash is kept, and so is a login link's code. A login link
(printed by ``arena serve``, where logs may keep it) carries a code, not the
token: it logs in once, within :data:`LOGIN_LINK_DAYS`, and the session it
starts lasts as any other.

Names are unique regardless of case (``Victim2`` is ``victim2``'s name): a
name is looked up without regard to case, inside the transaction that adds it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .._errors import ConfigError, StoreError
from ..competition.database.accounts import Participant as Participant
from ..competition.database.schema import SERVER_MIGRATIONS as MIGRATIONS
from ..competition.database.submissions import Entry as Entry
from ..competition.database.submissions import Submission as Submission
from ..competition.store import Store

LOGIN_LINK_DAYS = 7
"""How long a printed login link may be used (once)."""
INVITE_DAYS = 30
"""How long an invitation (``registration = "invite"``) may be used (once)."""
_INVITE = "invite:"
"""Settings keyed by an invitation code's hash (the code itself is never stored); the value: when it expires."""
_AWAITING = "awaiting_approval:"
"""Settings keyed by a participant id: ``1`` while the organiser has not approved the account."""
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
NAME_RULE = "1 to 32 letters, digits, '-' or '_', starting with a letter or digit"
STATUSES = ("queued", "checking", "passed", "failed", "refused")
__all__ = ["MIGRATIONS", "Entry", "Participant", "State", "Submission"]


def hash_secret(secret: str) -> str:
    """The stored form of a token's secret or a session id."""
    return hashlib.sha256(secret.encode()).hexdigest()


def check_name(name: str) -> str:
    """``name`` if it may name a participant, else :class:`ConfigError`."""
    if not NAME_RE.match(name):
        raise ConfigError(f"a participant's name must be {NAME_RULE}, not {name!r}")
    return name


class State:
    """The server's records, open on one SQLite file: its rules (secrets hashed, names unique whatever their case,
    one-time codes) over the database layer's repositories (``self.repos``, the store's).

    Its 30-odd methods are the names the service and the pages call (kept while issue 37 moves the callers); the
    accounts' rules (tokens, invitations, approvals, login links, sessions) are its own, the rest one line each
    on a repository.
    """

    def __init__(self, where: Path | Store) -> None:
        """The server's records in the database ``where`` (a path: opened here; a store: on its connection).

        On a store's connection, the server's changes and the store's share
        its transactions: :meth:`Store.transaction` makes both one.
        """
        self._own = not isinstance(where, Store)
        self.store = Store.open(where) if not isinstance(where, Store) else where  # an Arena database first
        self.path = self.store.path
        self.repos = self.store.repos
        try:
            self.store.db.upgrade(server=True)
        except StoreError:
            if self._own:
                self.store.close()
            raise
        self.ratings_kept = 0
        """How many snapshots of ratings were kept since this opened (what is read of them stays valid until the
        next)."""

    def close(self) -> None:
        """Close the database (when it was opened here; a store's connection is its owner's to close)."""
        if self._own:
            self.store.close()

    # Participants and tokens ----------------------------------------------------
    def add_participant(
        self, name: str, *, admin: bool = False, house: bool = False, new: bool = False
    ) -> tuple[Participant, str]:
        """Add ``name`` (or give an existing one a new token); returns it and its new token.

        ``name`` is the existing participant's whatever its case. With ``new``
        an existing one is refused (:class:`ConfigError`), in the same
        transaction: someone registering ``Victim2`` never gets ``victim2``'s token.
        """
        check_name(name)
        secret = secrets.token_urlsafe(24)
        people = self.repos.participants
        with self.store.db.transaction():
            pid = people.id_named(name)
            if pid is not None and new:
                raise ConfigError("that name is taken")
            if pid is not None:
                people.set_token(pid, hash_secret(secret))
            else:
                pid = people.add(name, hash_secret(secret), admin=admin, house=house)
            people.end_sessions(pid)  # a new token ends old sessions
        found = self.participant(pid)
        assert found is not None
        return found, f"{pid}.{secret}"

    def ensure_house(self, name: str) -> Participant:
        """The participant owning a house bot (no token can log in as it)."""
        pid = self.repos.participants.id_named(name)
        if pid is None:
            pid = self.repos.participants.add(name, "", admin=False, house=True)
        found = self.participant(pid)
        assert found is not None
        return found

    def admin_exists(self) -> bool:
        """Whether the organiser has a token yet."""
        return self.repos.participants.admin_exists()

    def by_token(self, token: str) -> Participant | None:
        """The participant whose token this is, compared in constant time; ``None`` if none."""
        pid, dot, secret = token.strip().partition(".")
        if not dot or not pid.isdigit() or not secret or len(token) > 200:
            return None
        found = self.repos.participants.token_hash(int(pid))
        stored = found if found is not None else hash_secret("no such participant")
        if not hmac.compare_digest(stored, hash_secret(secret)) or found is None or not stored:
            return None
        return self.participant(int(pid))

    def participant(self, pid: int) -> Participant | None:
        """The participant with id ``pid``."""
        return self.repos.participants.get(pid)

    def participant_named(self, name: str) -> Participant | None:
        """The participant called ``name`` (whatever its case)."""
        return self.repos.participants.named(name)

    def participants(self) -> list[Participant]:
        """Everyone, in the order they joined."""
        return self.repos.participants.all()

    def set_disqualified(self, pid: int, reason: str) -> None:
        """Disqualify a participant's bot (``reason``) or readmit it (``""``)."""
        self.repos.participants.set_disqualified(pid, reason)

    # Invitations and approval ------------------------------------------------------
    def new_invite(self) -> str:
        """A one-time code that lets someone register a name (``registration = "invite"``), for ``INVITE_DAYS``."""
        code = secrets.token_urlsafe(18)
        expires = (datetime.now(UTC) + timedelta(days=INVITE_DAYS)).isoformat(timespec="seconds")
        self.set_setting(_INVITE + hash_secret(code), expires)
        return code

    def invite_valid(self, code: str) -> bool:
        """Whether ``code`` is an unspent, unexpired invitation."""
        if not code or len(code) > 200:
            return False
        expires = self.setting(_INVITE + hash_secret(code))
        return bool(expires) and expires >= now()

    def register_invited(self, code: str, name: str) -> tuple[Participant, str]:
        """Register ``name`` with invitation ``code``, spending it, in one transaction; :class:`ConfigError` if the
        code is not valid or the name is taken (the code is then left unspent)."""
        with self.store.db.transaction():
            if not self.invite_valid(code):
                raise ConfigError("that invitation is spent or expired: ask the organiser for another")
            self.repos.settings.delete(_INVITE + hash_secret(code))
            return self.add_participant(name, new=True)

    def set_awaiting(self, pid: int, awaiting: bool) -> None:
        """Mark participant ``pid``'s account as awaiting the organiser's approval (or approve it)."""
        self.set_setting(f"{_AWAITING}{pid}", "1" if awaiting else "0")

    def awaiting(self, pid: int) -> bool:
        """Whether participant ``pid``'s account awaits the organiser's approval."""
        return self.setting(f"{_AWAITING}{pid}") == "1"

    def awaiting_ids(self) -> set[int]:
        """The participants whose accounts await the organiser's approval."""
        return {int(key.removeprefix(_AWAITING)) for key in self.repos.settings.keys_set(_AWAITING)}

    # Login links ---------------------------------------------------------------
    def new_login_code(self, pid: int) -> str:
        """A code for a login link of participant ``pid``: it logs in once, within ``LOGIN_LINK_DAYS``."""
        code = secrets.token_urlsafe(24)
        expires = (datetime.now(UTC) + timedelta(days=LOGIN_LINK_DAYS)).isoformat(timespec="seconds")
        self.repos.participants.add_login_code(hash_secret(code), pid, expires)
        return code

    def by_login_code(self, code: str, *, use: bool) -> Participant | None:
        """The participant whose unexpired login code this is (``use``: the code is spent); ``None`` if none."""
        if not code or len(code) > 200:
            return None
        pid = self.repos.participants.use_login_code(hash_secret(code), use=use)
        return self.participant(pid) if pid is not None else None

    # Sessions ------------------------------------------------------------------
    def new_session(self, pid: int) -> str:
        """A new session id for participant ``pid`` (only its hash is kept)."""
        sid = secrets.token_urlsafe(24)
        self.repos.participants.add_session(hash_secret(sid), pid)
        return sid

    def session(self, sid: str, *, max_age_s: float) -> Participant | None:
        """The participant of session ``sid``, if it exists and is younger than ``max_age_s``."""
        found = self.repos.participants.session(hash_secret(sid))
        if not found or datetime.fromisoformat(found[1]) < datetime.now(UTC) - timedelta(seconds=max_age_s):
            return None
        return self.participant(found[0])

    def end_session(self, sid: str) -> None:
        """Forget session ``sid`` (logging out)."""
        self.repos.participants.end_session(hash_secret(sid))

    # Submissions ----------------------------------------------------------------
    def add_submission(self, pid: int, *, filename: str, language: str, size: int) -> int:
        """Record a new upload, queued for its check; returns its id."""
        return self.repos.submissions.add(pid, filename=filename, language=language, size=size)

    def update_submission(self, sid: int, **fields: Any) -> None:
        """Set some of a submission's fields (``status``, ``message``, ``report``, ``folder``, ``digest``)."""
        if fields.get("status") in ("passed", "failed", "refused"):
            fields.setdefault("finished_at", now())
        self.repos.submissions.update(sid, fields)

    def submission(self, sid: int) -> Submission | None:
        """The submission with id ``sid``."""
        return self.repos.submissions.get(sid)

    def submissions(self, pid: int | None = None, *, limit: int = 100) -> list[Submission]:
        """The latest submissions (of participant ``pid``), newest first."""
        return self.repos.submissions.latest(pid, limit=limit)

    def recent_uploads(self, pid: int, *, within_s: float) -> int:
        """How many uploads participant ``pid`` made in the last ``within_s`` seconds."""
        since = (datetime.now(UTC) - timedelta(seconds=within_s)).isoformat(timespec="seconds")
        return self.repos.submissions.count_since(pid, since)

    def unfinished_submissions(self) -> list[Submission]:
        """Submissions whose check had not finished (a restart checks them again)."""
        return self.repos.submissions.unfinished()

    # Versions' owners and folders ------------------------------------------------
    def add_entry(self, version_id: int, pid: int, *, submission_id: int | None, folder: str) -> Entry:
        """Say that version ``version_id`` of the results store is ``pid``'s, with its files in ``folder``."""
        entry = Entry(version_id, pid, submission_id, folder)
        self.repos.submissions.add_entry(entry)
        return entry

    def entries(self) -> dict[int, Entry]:
        """Every version's entry, by version id."""
        return self.repos.submissions.entries()

    # Ratings over time -----------------------------------------------------------
    def add_ratings(self, matches: int, rows: list[tuple[int, float, float]]) -> None:
        """Keep a snapshot of ratings (version id, elo, 95% error) after ``matches`` matches, for the charts."""
        self.repos.ratings.add(matches, rows)
        self.ratings_kept += 1

    def rating_history(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first."""
        return self.repos.ratings.of(version_id)

    def latest_ratings(self, version_ids: list[int]) -> dict[int, float]:
        """The newest snapshot's elo of each of ``version_ids`` that has one."""
        return self.repos.ratings.latest(version_ids)

    def rating_dates(self, version_id: int, at: Iterable[int] | None = None) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count: only
        those at the match counts ``at``, when given."""
        return self.repos.ratings.dates(version_id, at)

    # Switches -------------------------------------------------------------------
    def setting(self, key: str, default: str = "") -> str:
        """A stored switch (``paused``, ``frozen``)."""
        return self.repos.settings.get(key, default)

    def set_setting(self, key: str, value: str) -> None:
        """Set a stored switch."""
        self.repos.settings.set(key, value)


def now() -> str:
    """The time now, as the records keep it."""
    return datetime.now(UTC).isoformat(timespec="seconds")
