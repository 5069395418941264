"""Availability on the server: one slow participant cannot take the others' time (issue 27, items 6 and 7).

Real bots that answer legally but slowly, against a real competition with
its ladder, match worker and checks running, driven through its HTTP API.
The limits are small, so each test takes seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arena.competition.ladder import Ladder

from .servertools import Kit, running, write_config

SLOW_BOT = """\
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:  # legal, after a sleep: under every per-move cap
        time.sleep({seconds})
        print(json.dumps({{"id": message["id"], "action": 0}}), flush=True)
    elif message["type"] == "quit":
        break
"""
FAST_HOUSE = ("minimal-python", "random-python", "minimal-valid-py", "simple-py")


def slow_folder(tmp_path: Path, seconds: float, name: str = "slowpoke") -> Path:
    """A bot folder whose bot answers every request with a legal action after ``seconds``."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\nreuse = true\n')
    (folder / "bot.py").write_text(SLOW_BOT.format(seconds=seconds))
    return folder


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def held(ladder: Ladder, label: str) -> int:
    """The ladder's slots ``label`` holds now (its pairs in play or handed over)."""
    return sum(label in (pair.first, pair.second) for pair in ladder.state.busy)


async def until_in_play(kit: Kit, label: str) -> Ladder:
    ladder = kit.competition.ladder
    assert ladder is not None
    with trio.fail_after(30):
        while not held(ladder, label):
            await trio.sleep(0.02)
    return ladder


async def test_a_slow_version_holds_no_more_than_its_share_of_the_ladder_and_the_others_play_on(
    tmp_path: Path,
) -> None:
    # Answers of 0.4 s: 6 s a match, under every cap. Five versions share the ladder's slots.
    slow = slow_folder(tmp_path, 0.4)
    config = write_config(tmp_path, house=(*FAST_HOUSE, str(slow)))
    async with running(config, jobs=4) as kit:
        ladder = await until_in_play(kit, "slowpoke")
        share = ladder.policy.share(ladder.slots, len(kit.competition.field()))
        assert share < 4  # the slow bot could take a pair against each of the four others
        most, others = 0, 0
        with trio.move_on_after(8):
            while True:
                most = max(most, held(ladder, "slowpoke"))
                others = sum("slowpoke" not in (m.bot_a, m.bot_b) for m in kit.competition.matches)
                await trio.sleep(0.01)
        assert 1 <= most <= share
        assert others >= 20  # the fast pairs kept playing beside it


async def test_the_organisers_disqualify_and_freeze_end_the_pairs_in_play_unplayed(tmp_path: Path) -> None:
    # Answers of 1 s: a pair would hold its slot for 15 s.
    slow = slow_folder(tmp_path, 1.0)
    config = write_config(tmp_path, house=("minimal-python", "random-python", str(slow)))
    async with running(config, jobs=4) as kit:
        organiser = kit.competition.admin_token()
        assert organiser
        ladder = await until_in_play(kit, "slowpoke")
        pairs = [pair for pair in ladder.state.busy if "slowpoke" in (pair.first, pair.second)]
        await trio.sleep(1.5)  # a move or two into its matches
        before = len(kit.competition.matches)
        answer = await kit.client.post(
            "/api/admin/disqualify", headers=bearer(organiser), json={"name": "slowpoke", "reason": "stalling"}
        )
        assert answer.status_code == 200
        with trio.fail_after(5):  # at once, not after the 15 s the pairs would take
            while held(ladder, "slowpoke"):
                await trio.sleep(0.02)
        played = kit.competition.matches[before:]
        assert not [
            m for m in played if "slowpoke" in (m.bot_a, m.bot_b)
        ]  # nothing recorded: the opponents lose nothing
        lines = [c.line for c in kit.competition.store.changes(kit.competition.tid) if c.kind == "aborted"]
        for pair in pairs:
            assert f"pair {pair.deal} ended unplayed: slowpoke was disqualified by the organiser" in lines

        await kit.client.post("/api/admin/readmit", headers=bearer(organiser), json={"name": "slowpoke"})
        await until_in_play(kit, "slowpoke")
        answer = await kit.client.post("/api/admin/freeze", headers=bearer(organiser))
        assert answer.json()["frozen"] is True
        with trio.fail_after(5):
            while ladder.state.busy:
                await trio.sleep(0.02)
        lines = [c.line for c in kit.competition.store.changes(kit.competition.tid) if c.kind == "aborted"]
        assert any(line.endswith("ended unplayed: the organiser froze the competition") for line in lines)


@pytest.mark.parametrize("workers", [0])
async def test_disqualify_ends_a_pair_played_in_the_servers_own_process(tmp_path: Path, workers: int) -> None:
    slow = slow_folder(tmp_path, 1.0)
    config = write_config(tmp_path, house=("minimal-python", str(slow)), extra=f"workers = {workers}")
    async with running(config, jobs=2) as kit:
        ladder = await until_in_play(kit, "slowpoke")
        await trio.sleep(1.5)
        owner = kit.competition.state.participant_named("slowpoke")
        assert owner is not None
        kit.competition.disqualify(owner, "stalling")
        with trio.fail_after(5):
            while held(ladder, "slowpoke"):
                await trio.sleep(0.02)
        assert not [m for m in kit.competition.matches if "slowpoke" in (m.bot_a, m.bot_b)]
