"""Who may see and do what on a competition server, as pure functions of the viewer and what is asked about.

Nothing here reads a request, the database or a clock: the pages look the
facts up (the viewer, a bot's owner, a match's owners, whether its deal is
over) and ask these, so the rules are tested as plain tables
(``tests/test_server_access.py``). A viewer of ``None`` is the public.

A match's two seats' cards are its deal: while a match on the deal is still
to be played (the other leg of a duplicate pair, the other table), no one but
the organiser sees both, and its seed (from which the cards follow) is shown
only to who sees both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import SEATS

from .state import Participant

Owners = Sequence[Participant | None]
"""The owners of the bots in seats A and B (``None``: a bot no participant owns)."""


def may_see_private(viewer: Participant | None, owner: Participant) -> bool:
    """Whether ``viewer`` sees ``owner``'s private pages (its files, build logs, stderr, submissions)."""
    return viewer is not None and (viewer.is_admin or viewer.id == owner.id)


def replay_access(
    viewer: Participant | None, owners: Callable[[], Owners], *, rule: str, deal_over: bool, frozen: bool
) -> tuple[bool, str | None]:
    """Whether ``viewer`` may see a match's replay, and the seat it is limited to (``None``: both seats).

    ``owners`` is called only when the answer depends on them (a page of a
    thousand matches asks this of each for the public: no owner is looked up).
    ``rule`` is the config's ``replays`` (:data:`arena.server.config.REPLAYS`).
    Before the deal (or, under ``after-end``, the competition) is over an owner
    sees what its own bot saw.
    """
    if viewer is not None and viewer.is_admin:
        return True, None
    if deal_over and (rule == "public" or (rule == "after-end" and frozen)):
        return True, None
    if viewer is None:
        return False, None
    mine = own_seats(viewer, owners())
    if not mine:
        return False, None
    if rule == "owners" and deal_over:
        return True, None
    return True, mine[0]


def seed_shown(access: tuple[bool, str | None]) -> bool:
    """Whether a viewer with replay ``access`` (from :func:`replay_access`) may see the match's seed."""
    return access == (True, None)


def own_seats(viewer: Participant | None, owners: Owners) -> list[str]:
    """The seats (``"A"``, ``"B"``) whose bot ``viewer`` owns."""
    return [seat for seat, owner in zip(SEATS, owners, strict=True) if viewer and owner and owner.id == viewer.id]


def stderr_seats(viewer: Participant | None, owners: Owners) -> frozenset[str]:
    """The seats whose stderr ``viewer`` may read in a match's log: its own bot's (the organiser: both)."""
    if viewer is not None and viewer.is_admin:
        return frozenset(SEATS)
    return frozenset(own_seats(viewer, owners))


def may_pin(viewer: Participant | None, bots: tuple[str, str]) -> bool:
    """Whether ``viewer`` may pin the deal of a match between ``bots``: the organiser, or one of the bots' owner."""
    return viewer is not None and (viewer.is_admin or viewer.name in bots)


def may_switch_play(viewer: Participant | None, owner: Participant) -> bool:
    """Whether ``viewer`` may let people play against ``owner``'s bot, or stop it: its owner (the organiser, for a
    house bot)."""
    return viewer is not None and (viewer.id == owner.id or (viewer.is_admin and owner.is_house))
