"""The competition's log upkeep part on its own: a store, a config, no server running."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena._errors import UploadRefused
from arena.competition.store import PlayedMatch, Store
from arena.server import log_upkeep
from arena.server.config import load
from arena.server.disk import Owned
from arena.server.log_upkeep import LogUpkeep
from arena.server.state import Participant

from .servertools import write_config

ALICE = Participant(2, "alice", False, False, "", "2026-01-01T00:00:00Z")


def played(key: str, log: Path, versions: tuple[int, int]) -> PlayedMatch:
    return PlayedMatch(
        key=key, cycle=0, deal=key[:-2], leg=0, bot_a="alice", bot_b="bob", seed=1, points=(1.0, 0.0), winner="A",
        log_path=str(log), versions=versions,
    )  # fmt: skip


@pytest.fixture
def upkeep(tmp_path: Path) -> Iterator[LogUpkeep]:
    config = load(write_config(tmp_path, server="log_bytes_per_version = 100_000\nlog_bytes_per_participant = 150_000"))
    (config.data_dir / "logs" / "stderr").mkdir(parents=True)
    store = Store.open(tmp_path / "results.sqlite")
    tid = store.create_competition(name="t", seed=1, game="rps-poker/1", config={}).id
    owned = [Owned(1, "alice", 2), Owned(2, "alice.v2", 2), Owned(3, "bob", 3)]
    changes: list[str] = []
    part = LogUpkeep(config, store, tid, owned=lambda: owned, changed=lambda: changes.append("changed"))
    part.changes = changes  # type: ignore[attr-defined]
    yield part
    store.close()


def test_a_match_log_is_charged_half_to_each_version(upkeep: LogUpkeep, tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"x" * 160_000)
    upkeep.charge(played("p1-a", log, (1, 3)))
    assert upkeep.disk.match_bytes == {1: 80_000, 3: 80_000}
    upkeep.charge(played("p1-b", tmp_path / "gone.jsonl", (1, 3)))  # a log that is not there counts nothing
    assert upkeep.disk.match_bytes == {1: 80_000, 3: 80_000}
    assert "your bots' logs take" not in upkeep.participant_over(2)
    upkeep.charge(played("p2-a", log, (2, 3)))
    assert "logs take" in upkeep.participant_over(2)  # 160,000 bytes over two versions: over the owner's 150,000


async def test_the_disk_watch_says_when_a_version_goes_over(
    upkeep: LogUpkeep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_upkeep, "DISK_EVERY_S", 0.01)
    assert upkeep.over(1) == ""
    (upkeep.disk.stderr_dir / "alice.20260101000000-1.log").write_bytes(b"e" * 120_000)
    with trio.move_on_after(0.5):
        await upkeep.watch_disk()
    assert "logs take" in upkeep.over(1) and upkeep.over(3) == ""
    assert upkeep.changes == ["changed"]  # type: ignore[attr-defined]  # once: not at every measure


async def test_a_participant_pins_only_its_own_bots_matches(upkeep: LogUpkeep, tmp_path: Path) -> None:
    other = PlayedMatch(
        key="p9-a", cycle=0, deal="p9", leg=0, bot_a="carol", bot_b="bob", seed=1, points=(1.0, 0.0), winner="A"
    )
    with pytest.raises(UploadRefused, match="only your own bots"):
        await upkeep.pin(other, ALICE, pinned=True)
