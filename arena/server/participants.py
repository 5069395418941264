"""Who takes part: participants, their sessions and login codes, invitations, approvals, the organiser's token.

:class:`Participants` is the service's part the pages, ``arena serve`` and
its commands go through for accounts (:class:`~arena.server.service.Competition`'s
:attr:`participants`): the rules over the records (secrets hashed, names
unique whatever their case, one-time codes) are :class:`~arena.server.state.State`'s,
whose accounts' methods it passes on; its own are the organiser's token and
login link, the names no participant may take, and the key that signs
session cookies.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from .._errors import ArenaError
from ..bots.samples import samples_of
from ..bots.spec import resolve
from ..games import Game
from .config import ServerConfig
from .state import Participant, State

SECRET_NAME = "session.key"
ADMIN_NAME = "organiser"
RESERVED_NAMES = (ADMIN_NAME, "organizer", "admin", "administrator", "arena", "house", "root", "server", "check")
"""Names no participant may take (whatever their case), besides the house bots' and the game's sample bots'."""


class Participants:
    """The competition's participants, sessions, login codes, invitations, approvals and settings."""

    def __init__(self, state: State, config: ServerConfig, game: Game, data_dir: Path) -> None:
        self.state = state
        self.config = config
        self.game = game
        self.secret_key = secret_key(data_dir / SECRET_NAME)
        """The key that signs session cookies: made once, kept beside the database (not in it)."""
        self._reserved: frozenset[str] | None = None

    # The organiser -----------------------------------------------------------------
    def admin_token(self, *, renew: bool = False) -> str | None:
        """A new organiser token when there is none yet (or ``renew``); ``None`` when one exists."""
        if self.state.admin_exists() and not renew:
            return None
        _, token = self.state.add_participant(ADMIN_NAME, admin=True)
        return token

    def admin_link_code(self, *, renew: bool = False) -> str | None:
        """A login link's code for the organiser (a new token made first), or ``None`` (see :meth:`admin_token`)."""
        token = self.admin_token(renew=renew)
        admin = self.state.by_token(token) if token else None
        return self.state.new_login_code(admin.id) if admin else None

    def name_refused(self, name: str) -> str:
        """Why a new participant may not be called ``name`` (``""``: it may).

        The organiser's and house bots' names are reserved, whatever their
        case: those of the config's house bots, and of the game's sample bots,
        which the organiser may make house bots later (a participant holding
        such a name would stop the server from starting with it).
        """
        if name.casefold() in self._reserved_names():
            return "is reserved for the organiser or a house bot"
        return ""

    def _reserved_names(self) -> frozenset[str]:
        if self._reserved is None:
            names = set(RESERVED_NAMES)
            for text, base in self.config.house_bots:
                with contextlib.suppress(ArenaError):
                    names.add(resolve(text, base=base).name)
            samples = samples_of(self.game)
            if samples is not None and samples.is_dir():
                names.update(path.name for path in samples.iterdir() if path.is_dir())
            self._reserved = frozenset(name.casefold() for name in names)
        return self._reserved

    # Accounts (the rules are State's) ----------------------------------------------
    def add(self, name: str, *, new: bool = False) -> tuple[Participant, str]:
        """Add ``name`` (or give an existing one a new token): :meth:`State.add_participant`."""
        return self.state.add_participant(name, new=new)

    def get(self, pid: int) -> Participant | None:
        """The participant with id ``pid``."""
        return self.state.participant(pid)

    def named(self, name: str) -> Participant | None:
        """The participant called ``name`` (whatever its case)."""
        return self.state.participant_named(name)

    def all(self) -> list[Participant]:
        """Everyone, in the order they joined."""
        return self.state.participants()

    def by_token(self, token: str) -> Participant | None:
        """The participant whose token this is (:meth:`State.by_token`)."""
        return self.state.by_token(token)

    def new_invite(self) -> str:
        """A one-time code that lets someone register a name (:meth:`State.new_invite`)."""
        return self.state.new_invite()

    def invite_valid(self, code: str) -> bool:
        """Whether ``code`` is an unspent, unexpired invitation."""
        return self.state.invite_valid(code)

    def register_invited(self, code: str, name: str) -> tuple[Participant, str]:
        """Register ``name`` with invitation ``code``, spending it (:meth:`State.register_invited`)."""
        return self.state.register_invited(code, name)

    def set_awaiting(self, pid: int, awaiting: bool) -> None:
        """Mark participant ``pid``'s account as awaiting the organiser's approval (or approve it)."""
        self.state.set_awaiting(pid, awaiting)

    def awaiting_ids(self) -> set[int]:
        """The participants whose accounts await the organiser's approval."""
        return self.state.awaiting_ids()

    def new_login_code(self, pid: int) -> str:
        """A code for a login link of participant ``pid`` (:meth:`State.new_login_code`)."""
        return self.state.new_login_code(pid)

    def by_login_code(self, code: str, *, use: bool) -> Participant | None:
        """The participant whose unexpired login code this is (``use``: the code is spent)."""
        return self.state.by_login_code(code, use=use)

    def new_session(self, pid: int) -> str:
        """A new session id for participant ``pid`` (only its hash is kept)."""
        return self.state.new_session(pid)

    def session(self, sid: str, *, max_age_s: float) -> Participant | None:
        """The participant of session ``sid``, if it exists and is younger than ``max_age_s``."""
        return self.state.session(sid, max_age_s=max_age_s)

    def end_session(self, sid: str) -> None:
        """Forget session ``sid`` (logging out)."""
        self.state.end_session(sid)

    def setting(self, key: str, default: str = "") -> str:
        """A stored setting (a participant's choices, the login links' base address)."""
        return self.state.setting(key, default)

    def set_setting(self, key: str, value: str) -> None:
        """Set a stored setting."""
        self.state.set_setting(key, value)


def secret_key(path: Path) -> str:
    """The key at ``path``, made (``0600``) when there is none."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(key)
    return key
