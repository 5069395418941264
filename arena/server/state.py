"""The server's own records, in the same SQLite file as the competition's results.

Participants (with their token's hash), browser sessions, submissions (with
their check reports), each bot version's owner and folder (the versions
themselves, their admission and retirement are the results store's:
:mod:`arena.competition.store`), rating snapshots for the charts, and the
organiser's switches (paused, frozen). The tables grow by migrations
appended to :data:`MIGRATIONS`, tracked in ``server_migrations`` so that they
never collide with the results store's own schema. Every change is one
transaction, so a ``kill -9`` loses nothing that was acknowledged.

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

import contextlib
import hashlib
import hmac
import json
import re
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .._errors import ConfigError, StoreError
from ..competition import schema
from ..competition.schema import SERVER_MIGRATIONS as MIGRATIONS
from ..competition.store import Store

LOGIN_LINK_DAYS = 7
"""How long a printed login link may be used (once)."""
INVITE_DAYS = 30
"""How long an invitation (``registration = "invite"``) may be used (once)."""
_INVITE = "invite:"
"""Settings keyed by an invitation code's hash (the code itself is never stored); the value: when it expires."""
_AWAITING = "awaiting_approval:"
"""Settings keyed by a participant id: ``1`` while the organiser has not approved the account."""
_BY_NAME = "WHERE name = ? COLLATE NOCASE ORDER BY name = ? DESC, id LIMIT 1"
"""A participant by name, whatever its case (the exact spelling first, in a database from before the rule)."""
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
NAME_RULE = "1 to 32 letters, digits, '-' or '_', starting with a letter or digit"
STATUSES = ("queued", "checking", "passed", "failed", "refused")


@dataclass(frozen=True)
class Participant:
    """Someone who may submit bots (or the organiser, or a house bot's owner)."""

    id: int
    name: str
    is_admin: bool
    is_house: bool
    disqualified: str
    created_at: str


@dataclass(frozen=True)
class Submission:
    """One upload and what its check found."""

    id: int
    participant_id: int
    created_at: str
    filename: str
    language: str
    size: int
    status: str
    message: str
    report: list[dict[str, Any]]
    folder: str
    digest: str
    finished_at: str | None

    @property
    def done(self) -> bool:
        """Whether its check has finished (or it was refused before one)."""
        return self.status in ("passed", "failed", "refused")


@dataclass(frozen=True)
class Entry:
    """Whose a version of the results store is, and where its files are."""

    version_id: int
    participant_id: int
    submission_id: int | None
    """The upload it came from (``None`` for a house bot)."""
    folder: str


def hash_secret(secret: str) -> str:
    """The stored form of a token's secret or a session id."""
    return hashlib.sha256(secret.encode()).hexdigest()


def check_name(name: str) -> str:
    """``name`` if it may name a participant, else :class:`ConfigError`."""
    if not NAME_RE.match(name):
        raise ConfigError(f"a participant's name must be {NAME_RULE}, not {name!r}")
    return name


class State:
    """The server's records, open on one SQLite file."""

    def __init__(self, where: Path | Store) -> None:
        """The server's records in the database ``where`` (a path: opened here; a store: on its connection).

        On a store's connection, the server's changes and the store's share
        its transactions: :meth:`Store.transaction` makes both one.
        """
        self._own = not isinstance(where, Store)
        self.store = Store.open(where) if not isinstance(where, Store) else where  # an Arena database first
        self.path = self.store.path
        self._db = self.store._db
        try:
            schema.migrate(self._db, self.path, table="server_migrations", migrations=MIGRATIONS, what="server schema")
        except sqlite3.DatabaseError as exc:
            if self._own:
                self.store.close()
            raise StoreError(f"{self.path} is not a usable server database: {exc}") from None

    def close(self) -> None:
        """Close the database (when it was opened here; a store's connection is its owner's to close)."""
        if self._own:
            self.store.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.store.transaction():
            yield self._db

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
        with self._transaction() as db:
            row = db.execute(f"SELECT id FROM participants {_BY_NAME}", (name, name)).fetchone()
            if row and new:
                raise ConfigError("that name is taken")
            if row:
                db.execute("UPDATE participants SET token_hash = ? WHERE id = ?", (hash_secret(secret), row[0]))
                db.execute("DELETE FROM login_codes WHERE participant_id = ?", (row[0],))
                pid = row[0]
            else:
                pid = db.execute(
                    "INSERT INTO participants (name, token_hash, is_admin, is_house, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (name, hash_secret(secret), int(admin), int(house), now()),
                ).lastrowid
            db.execute("DELETE FROM sessions WHERE participant_id = ?", (pid,))  # a new token ends old sessions
        found = self.participant(pid)
        assert found is not None
        return found, f"{pid}.{secret}"

    def ensure_house(self, name: str) -> Participant:
        """The participant owning a house bot (no token can log in as it)."""
        row = self._db.execute(f"SELECT id FROM participants {_BY_NAME}", (name, name)).fetchone()
        if row:
            found = self.participant(row[0])
            assert found is not None
            return found
        with self._transaction() as db:
            pid = db.execute(
                "INSERT INTO participants (name, token_hash, is_house, created_at) VALUES (?, '', 1, ?)", (name, now())
            ).lastrowid
        found = self.participant(pid or 0)
        assert found is not None
        return found

    def admin_exists(self) -> bool:
        """Whether the organiser has a token yet."""
        return self._db.execute("SELECT 1 FROM participants WHERE is_admin = 1").fetchone() is not None

    def by_token(self, token: str) -> Participant | None:
        """The participant whose token this is, compared in constant time; ``None`` if none."""
        pid, dot, secret = token.strip().partition(".")
        if not dot or not pid.isdigit() or not secret or len(token) > 200:
            return None
        row = self._db.execute("SELECT token_hash FROM participants WHERE id = ?", (int(pid),)).fetchone()
        stored = row[0] if row else hash_secret("no such participant")
        if not hmac.compare_digest(stored, hash_secret(secret)) or not row or not stored:
            return None
        return self.participant(int(pid))

    def participant(self, pid: int) -> Participant | None:
        """The participant with id ``pid``."""
        row = self._db.execute(
            "SELECT id, name, is_admin, is_house, disqualified, created_at FROM participants WHERE id = ?", (pid,)
        ).fetchone()
        return _participant(row) if row else None

    def participant_named(self, name: str) -> Participant | None:
        """The participant called ``name`` (whatever its case)."""
        row = self._db.execute(
            f"SELECT id, name, is_admin, is_house, disqualified, created_at FROM participants {_BY_NAME}", (name, name)
        ).fetchone()
        return _participant(row) if row else None

    def participants(self) -> list[Participant]:
        """Everyone, in the order they joined."""
        rows = self._db.execute(
            "SELECT id, name, is_admin, is_house, disqualified, created_at FROM participants ORDER BY id"
        )
        return [_participant(row) for row in rows]

    def set_disqualified(self, pid: int, reason: str) -> None:
        """Disqualify a participant's bot (``reason``) or readmit it (``""``)."""
        with self._transaction() as db:
            db.execute("UPDATE participants SET disqualified = ? WHERE id = ?", (reason, pid))

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
        with self._transaction() as db:
            if not self.invite_valid(code):
                raise ConfigError("that invitation is spent or expired: ask the organiser for another")
            db.execute("DELETE FROM settings WHERE key = ?", (_INVITE + hash_secret(code),))
            return self.add_participant(name, new=True)

    def set_awaiting(self, pid: int, awaiting: bool) -> None:
        """Mark participant ``pid``'s account as awaiting the organiser's approval (or approve it)."""
        self.set_setting(f"{_AWAITING}{pid}", "1" if awaiting else "0")

    def awaiting(self, pid: int) -> bool:
        """Whether participant ``pid``'s account awaits the organiser's approval."""
        return self.setting(f"{_AWAITING}{pid}") == "1"

    def awaiting_ids(self) -> set[int]:
        """The participants whose accounts await the organiser's approval."""
        rows = self._db.execute("SELECT key FROM settings WHERE key LIKE ? AND value = '1'", (_AWAITING + "%",))
        return {int(key.removeprefix(_AWAITING)) for (key,) in rows}

    # Login links ---------------------------------------------------------------
    def new_login_code(self, pid: int) -> str:
        """A code for a login link of participant ``pid``: it logs in once, within ``LOGIN_LINK_DAYS``."""
        code = secrets.token_urlsafe(24)
        expires = (datetime.now(UTC) + timedelta(days=LOGIN_LINK_DAYS)).isoformat(timespec="seconds")
        with self._transaction() as db:
            db.execute("DELETE FROM login_codes WHERE expires_at < ?", (now(),))
            db.execute("INSERT INTO login_codes VALUES (?, ?, ?)", (hash_secret(code), pid, expires))
        return code

    def by_login_code(self, code: str, *, use: bool) -> Participant | None:
        """The participant whose unexpired login code this is (``use``: the code is spent); ``None`` if none."""
        if not code or len(code) > 200:
            return None
        with self._transaction() as db:
            row = db.execute(
                "SELECT participant_id FROM login_codes WHERE code_hash = ? AND expires_at >= ?",
                (hash_secret(code), now()),
            ).fetchone()
            if row and use:
                db.execute("DELETE FROM login_codes WHERE code_hash = ?", (hash_secret(code),))
        return self.participant(row[0]) if row else None

    # Sessions ------------------------------------------------------------------
    def new_session(self, pid: int) -> str:
        """A new session id for participant ``pid`` (only its hash is kept)."""
        sid = secrets.token_urlsafe(24)
        with self._transaction() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (hash_secret(sid), pid, now()))
        return sid

    def session(self, sid: str, *, max_age_s: float) -> Participant | None:
        """The participant of session ``sid``, if it exists and is younger than ``max_age_s``."""
        row = self._db.execute(
            "SELECT participant_id, created_at FROM sessions WHERE id_hash = ?", (hash_secret(sid),)
        ).fetchone()
        if not row or datetime.fromisoformat(row[1]) < datetime.now(UTC) - timedelta(seconds=max_age_s):
            return None
        return self.participant(row[0])

    def end_session(self, sid: str) -> None:
        """Forget session ``sid`` (logging out)."""
        with self._transaction() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (hash_secret(sid),))

    # Submissions ----------------------------------------------------------------
    def add_submission(self, pid: int, *, filename: str, language: str, size: int) -> int:
        """Record a new upload, queued for its check; returns its id."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO submissions (participant_id, created_at, filename, language, size, status)"
                " VALUES (?, ?, ?, ?, ?, 'queued')",
                (pid, now(), filename, language, size),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def update_submission(self, sid: int, **fields: Any) -> None:
        """Set some of a submission's fields (``status``, ``message``, ``report``, ``folder``, ``digest``)."""
        allowed = {"status", "message", "report", "folder", "digest", "finished_at"}
        assert set(fields) <= allowed, fields
        if "report" in fields:
            fields["report"] = json.dumps(fields["report"])
        if fields.get("status") in ("passed", "failed", "refused"):
            fields.setdefault("finished_at", now())
        sets = ", ".join(f"{key} = ?" for key in fields)
        with self._transaction() as db:
            db.execute(f"UPDATE submissions SET {sets} WHERE id = ?", (*fields.values(), sid))

    def submission(self, sid: int) -> Submission | None:
        """The submission with id ``sid``."""
        row = self._db.execute(f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE id = ?", (sid,)).fetchone()
        return _submission(row) if row else None

    def submissions(self, pid: int | None = None, *, limit: int = 100) -> list[Submission]:
        """The latest submissions (of participant ``pid``), newest first."""
        where, args = ("WHERE participant_id = ?", (pid,)) if pid is not None else ("", ())
        rows = self._db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions {where} ORDER BY id DESC LIMIT ?", (*args, limit)
        )
        return [_submission(row) for row in rows]

    def recent_uploads(self, pid: int, *, within_s: float) -> int:
        """How many uploads participant ``pid`` made in the last ``within_s`` seconds."""
        since = (datetime.now(UTC) - timedelta(seconds=within_s)).isoformat(timespec="seconds")
        (count,) = self._db.execute(
            "SELECT COUNT(*) FROM submissions WHERE participant_id = ? AND created_at >= ?", (pid, since)
        ).fetchone()
        return int(count)

    def unfinished_submissions(self) -> list[Submission]:
        """Submissions whose check had not finished (a restart checks them again)."""
        rows = self._db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE status IN ('queued', 'checking') ORDER BY id"
        )
        return [_submission(row) for row in rows]

    # Versions' owners and folders ------------------------------------------------
    def add_entry(self, version_id: int, pid: int, *, submission_id: int | None, folder: str) -> Entry:
        """Say that version ``version_id`` of the results store is ``pid``'s, with its files in ``folder``."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", (version_id, pid, submission_id, folder))
        return Entry(version_id, pid, submission_id, folder)

    def entries(self) -> dict[int, Entry]:
        """Every version's entry, by version id."""
        rows = self._db.execute("SELECT version_id, participant_id, submission_id, folder FROM entries")
        return {row[0]: Entry(*row) for row in rows}

    # Ratings over time -----------------------------------------------------------
    def add_ratings(self, matches: int, rows: list[tuple[int, float, float]]) -> None:
        """Keep a snapshot of ratings (version id, elo, 95% error) after ``matches`` matches, for the charts."""
        stamp = now()
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO rating_history VALUES (?, ?, ?, ?, ?)",
                [(matches, bot, elo, None if error != error else error, stamp) for bot, elo, error in rows],
            )

    def rating_history(self, version_id: int) -> list[tuple[int, float, float | None]]:
        """``(matches, elo, error95)`` snapshots of version ``version_id``, oldest first."""
        rows = self._db.execute(
            "SELECT matches, elo, error95 FROM rating_history WHERE version_id = ? ORDER BY matches", (version_id,)
        )
        return [(int(r[0]), float(r[1]), r[2]) for r in rows]

    def rating_dates(self, version_id: int) -> dict[int, str]:
        """When each snapshot of version ``version_id`` was taken (ISO 8601, UTC), by the ladder's match count."""
        rows = self._db.execute("SELECT matches, at FROM rating_history WHERE version_id = ?", (version_id,))
        return {int(n): str(at) for n, at in rows}

    # Switches -------------------------------------------------------------------
    def setting(self, key: str, default: str = "") -> str:
        """A stored switch (``paused``, ``frozen``)."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_setting(self, key: str, value: str) -> None:
        """Set a stored switch."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?", (key, value, value)
            )


_SUBMISSION_COLUMNS = (
    "id, participant_id, created_at, filename, language, size, status, message, report, folder, digest, finished_at"
)


def _participant(row: tuple[Any, ...]) -> Participant:
    return Participant(row[0], row[1], bool(row[2]), bool(row[3]), row[4], row[5])


def _submission(row: tuple[Any, ...]) -> Submission:
    sid, pid, created, filename, language, size, status, message, report, folder, digest, finished = row
    return Submission(
        sid, pid, created, filename, language, size, status, message, json.loads(report), folder, digest, finished
    )


def now() -> str:
    """The time now, as the records keep it."""
    return datetime.now(UTC).isoformat(timespec="seconds")
