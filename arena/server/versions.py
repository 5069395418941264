"""A version of a participant's bot as the server sees it: the results store's row, with its owner and folder."""

from __future__ import annotations

from dataclasses import dataclass

from ..competition.store import VersionRow
from .state import Entry


@dataclass(frozen=True)
class Version:
    """A version of a participant's bot: the results store's row, with its owner and folder."""

    row: VersionRow
    entry: Entry

    @property
    def id(self) -> int:
        """The store's id of the version."""
        return self.row.id

    @property
    def number(self) -> int:
        """1, 2, ... for each version of the bot."""
        return self.row.version

    @property
    def label(self) -> str:
        """Its name in the history and in ladder pairs: ``alice``, then ``alice.v2``..."""
        return self.row.label

    @property
    def participant_id(self) -> int:
        """The owner's id."""
        return self.entry.participant_id

    @property
    def folder(self) -> str:
        """Where its files are."""
        return self.entry.folder

    @property
    def created_at(self) -> str:
        """When it entered."""
        return self.row.added_at

    @property
    def retired_at(self) -> str | None:
        """When a later version (or the organiser) took it out, if it is out."""
        return self.row.retired_at

    @property
    def admission(self) -> str:
        """``pending`` (being checked), ``admitted`` or ``not_admitted``."""
        return self.row.admission

    @property
    def reason(self) -> str:
        """Why it was not admitted, whole (the failed checks' details, a build's last lines): for its owner."""
        return self.row.reason

    @property
    def summary(self) -> str:
        """The first line of :attr:`reason`, which everyone sees (the rest may quote its build output)."""
        return self.row.reason.split("\n", 1)[0]

    @property
    def playing(self) -> bool:
        """Whether it is the bot's current version and was admitted."""
        return self.row.current and self.row.admission == "admitted"
