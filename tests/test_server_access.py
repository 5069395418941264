"""The server's access policy, as plain tables: no server, no database (see arena/server/access.py)."""

from __future__ import annotations

import pytest

from arena.server.access import may_pin, may_see_private, may_switch_play, replay_access, seed_shown, stderr_seats
from arena.server.state import Participant


def person(pid: int, name: str, *, admin: bool = False, house: bool = False) -> Participant:
    return Participant(pid, name, admin, house, "", "2026-01-01T00:00:00Z")


ADMIN = person(1, "admin", admin=True)
ALICE = person(2, "alice")
BOB = person(3, "bob")
HOUSE = person(4, "random-python", house=True)
OWNERS = (ALICE, BOB)


def no_look_up() -> tuple[Participant | None, ...]:
    raise AssertionError("the owners were looked up for an answer that does not depend on them")


@pytest.mark.parametrize(
    ("viewer", "rule", "over", "frozen", "expected"),
    [
        (ADMIN, "owners", False, False, (True, None)),  # the organiser sees everything, always
        (None, "public", True, False, (True, None)),
        (None, "public", False, False, (False, None)),  # the deal's other leg is still to come
        (ALICE, "public", False, False, (True, "A")),  # an owner sees its own bot's view meanwhile
        (BOB, "public", False, False, (True, "B")),
        (HOUSE, "public", False, False, (False, None)),
        (None, "after-end", True, False, (False, None)),
        (None, "after-end", True, True, (True, None)),
        (ALICE, "after-end", True, False, (True, "A")),
        (ALICE, "owners", True, False, (True, None)),
        (ALICE, "owners", False, False, (True, "A")),
        (HOUSE, "owners", True, False, (False, None)),
        (None, "owners", True, True, (False, None)),
    ],
)
def test_replay_access(
    viewer: Participant | None, rule: str, over: bool, frozen: bool, expected: tuple[bool, str | None]
) -> None:
    assert replay_access(viewer, lambda: OWNERS, rule=rule, deal_over=over, frozen=frozen) == expected


def test_the_public_and_the_organiser_need_no_look_up_of_owners() -> None:
    assert replay_access(None, no_look_up, rule="owners", deal_over=True, frozen=False) == (False, None)
    assert replay_access(ADMIN, no_look_up, rule="owners", deal_over=False, frozen=False) == (True, None)
    assert replay_access(None, no_look_up, rule="public", deal_over=True, frozen=False) == (True, None)


def test_the_seed_only_for_who_sees_both_seats() -> None:
    assert seed_shown((True, None))
    assert not seed_shown((True, "A")) and not seed_shown((False, None))


def test_private_pages_stderr_and_pins() -> None:
    assert may_see_private(ALICE, ALICE) and may_see_private(ADMIN, ALICE)
    assert not may_see_private(BOB, ALICE) and not may_see_private(None, ALICE)
    assert stderr_seats(ADMIN, OWNERS) == {"A", "B"}
    assert stderr_seats(ALICE, OWNERS) == {"A"} and stderr_seats(BOB, (ALICE, BOB)) == {"B"}
    assert stderr_seats(None, OWNERS) == frozenset() and stderr_seats(HOUSE, (None, BOB)) == frozenset()
    assert stderr_seats(ALICE, (ALICE, ALICE)) == {"A", "B"}
    assert may_pin(ALICE, ("alice", "bob")) and may_pin(ADMIN, ("x", "y"))
    assert not may_pin(BOB, ("alice", "carol")) and not may_pin(None, ("alice", "bob"))


def test_who_switches_play_against_a_bot() -> None:
    assert may_switch_play(ALICE, ALICE) and may_switch_play(ADMIN, HOUSE)
    assert not may_switch_play(ADMIN, ALICE)  # a participant's bot is its owner's to offer
    assert not may_switch_play(BOB, ALICE) and not may_switch_play(None, HOUSE)
