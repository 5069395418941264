"""The competition's submission pipeline part on its own: a store, a config, no server and no ladder running."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena._errors import UploadRefused
from arena.competition.store import Store
from arena.games import get_game
from arena.server.catalogue import Catalogue
from arena.server.config import load
from arena.server.state import State
from arena.server.submissions import Busy, Submissions

from .servertools import minimal_bot, write_config


class World:
    """What the pipeline asks of the rest of the competition, as switches a test sets."""

    def __init__(self) -> None:
        self.frozen = False
        self.over = ""
        self.changes = 0


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Submissions, World]]:
    config = load(write_config(tmp_path, uploads="check_matches = 2\nper_hour = 2"))
    store = Store.open(tmp_path / "server.sqlite")
    state = State(store)
    tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
    world = World()

    def changed() -> None:
        world.changes += 1

    submissions = Submissions(
        config, get_game("rps-poker"), store, state, tid, Catalogue(store, state, tid, config.data_dir),
        frozen=lambda: world.frozen, field=dict, over_quota=lambda _pid: world.over, warmer=lambda: None,
        retired=lambda _label: None, changed=changed,
    )  # fmt: skip
    yield submissions, world
    state.close()
    store.close()


def test_who_may_upload_and_when(parts: tuple[Submissions, World]) -> None:
    submissions, world = parts
    state = submissions.state
    alice, _ = state.add_participant("alice")
    submissions.may_upload(alice)
    world.frozen = True
    with pytest.raises(UploadRefused, match="frozen"):
        submissions.may_upload(alice)
    world.frozen = False
    with pytest.raises(UploadRefused, match="house bots"):
        submissions.may_upload(state.ensure_house("minimal-python"))
    admin, _ = state.add_participant("organiser", admin=True)
    with pytest.raises(UploadRefused, match="organiser enters bots"):
        submissions.may_upload(admin)
    state.set_awaiting(alice.id, True)
    with pytest.raises(UploadRefused, match="not approved"):
        submissions.may_upload(alice)
    assert "not approved" in submissions.may_play(alice)
    state.set_awaiting(alice.id, False)
    world.over = "your bots' logs take too much"
    with pytest.raises(UploadRefused, match="logs take"):
        submissions.may_upload(alice)
    world.over = ""
    first = state.add_submission(alice.id, filename="a.tar.gz", language="", size=1)
    with pytest.raises(Busy, match="still being checked"):
        submissions.may_upload(alice)
    state.update_submission(first, status="failed", message="handshake")
    submissions.may_upload(alice)
    second = state.add_submission(alice.id, filename="b.tar.gz", language="", size=1)
    state.update_submission(second, status="failed", message="handshake")
    with pytest.raises(Busy, match="at most 2 uploads an hour"):
        submissions.may_upload(alice)


async def test_an_upload_that_does_not_unpack_is_refused_and_not_queued(
    parts: tuple[Submissions, World], tmp_path: Path
) -> None:
    submissions, world = parts
    alice, _ = submissions.state.add_participant("alice")
    upload = tmp_path / "junk.tar.gz"
    upload.write_bytes(b"not an archive")
    sid = await submissions.take_upload(alice, upload, filename="junk.tar.gz", language="")
    found = submissions.state.submission(sid)
    assert found is not None and found.status == "refused" and found.message
    assert not upload.exists() and world.changes == 1
    assert not (submissions.bots_dir / "alice" / f"s{sid}").exists()


async def test_an_upload_unpacks_into_its_owners_folder_and_waits_for_its_check(
    parts: tuple[Submissions, World], tmp_path: Path
) -> None:
    submissions, _ = parts
    alice, _ = submissions.state.add_participant("alice")
    upload = tmp_path / "bot.tar.gz"
    upload.write_bytes(minimal_bot())
    sid = await submissions.take_upload(alice, upload, filename="bot\x1b[31m.tar.gz", language="")
    found = submissions.state.submission(sid)
    assert found is not None and found.status != "refused" and found.digest and not found.done
    assert Path(found.folder).is_relative_to(submissions.bots_dir / "alice" / f"s{sid}")
    assert "\x1b" not in found.filename  # the uploader's words, shown in pages: no control characters
    with pytest.raises(Busy, match="still being checked"):
        submissions.may_upload(alice)  # one check at a time
