"""A match log read while it is written (the server's live pages), and the rule that hides a match in play."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arena.competition.schedule import Scheduled
from arena.server.live import GrowingLog, shown_count
from arena.supervisor.matchlog import LIVE_ENV, MatchLog, read_log

from .servertools import running, write_config


def _step(log: MatchLog, n: int) -> None:
    log.write({"type": "send", "seat": "A", "msg": {"type": "main_play", "id": n}})
    log.write({"type": "send", "seat": "B", "msg": {"type": "main_play", "id": n}})
    log.step()
    log.write({"type": "recv", "seat": "A", "msg": {"id": n, "action": 0}})
    log.write({"type": "recv", "seat": "B", "msg": {"id": n, "action": 1}})


@pytest.mark.parametrize("name", ["m.jsonl.gz", "m.jsonl"])
def test_a_live_log_is_read_whole_records_at_a_time_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(LIVE_ENV, "1")
    path = tmp_path / name
    log = MatchLog(path)
    reader = GrowingLog(path)
    log.write({"type": "header", "seed": 1})
    _step(log, 1)
    _step(log, 2)  # the records of step 1 and step 2's requests are out; step 2's answers are held
    reader.read_at = -1e9
    records = reader.refresh()
    assert [r["type"] for r in records] == ["header", "send", "send", "recv", "recv", "send", "send"]
    assert shown_count(records, "A") == 3 and shown_count(records, "B") == 3 and shown_count(records, None) == 7
    log.close()
    reader.read_at = -1e9
    assert reader.refresh() == read_log(path)


def test_a_log_not_live_is_written_out_only_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LIVE_ENV, raising=False)
    path = tmp_path / "m.jsonl.gz"
    log = MatchLog(path)
    log.write({"type": "header", "seed": 1})
    _step(log, 1)
    reader = GrowingLog(path)
    assert reader.refresh() == []  # no write per step off a server (the arena's own speed)
    log.close()


@pytest.mark.slow
async def test_a_match_in_play_is_not_over_whatever_its_key(tmp_path: Path) -> None:
    async with running(write_config(tmp_path), jobs=1, paused=True) as kit:
        alone = Scheduled("not-a-pair", 0, "not-a-pair", 0, "minimal-python", "random-python", 1)
        assert not kit.competition.catalogue.deal_over(alone)  # its deal is secret while it is played
        await trio.sleep(0)
