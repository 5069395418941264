"""Availability on the server: one slow participant cannot take the others' time (issue 27, items 6 and 7).

Real bots that answer legally but slowly, against a real competition with
its ladder, match worker and checks running, driven through its HTTP API.
The limits are small, so each test takes seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arena._errors import ConfigError
from arena.checks.bot import Report, check_bot
from arena.competition.ladder import Ladder
from arena.server._queue import CheckSlots, FairQueue
from arena.server.config import load

from .servertools import PLAYS_ON, Kit, bot_archive, minimal_bot, running, write_config

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


async def until_playing(ladder: Ladder, name: str) -> None:
    """Until a match of ``name`` has begun (its bots are being started or play), not only its pair handed over."""
    with trio.fail_after(60):
        while not any(name in (m.scheduled.bot_a, m.scheduled.bot_b) for m in ladder.in_play.values()):
            await trio.sleep(0.02)


async def until_in_play(kit: Kit, label: str) -> Ladder:
    ladder = kit.competition.host.ladder
    assert ladder is not None
    with trio.fail_after(30):
        while not held(ladder, label):
            await trio.sleep(0.02)
    return ladder


@pytest.mark.slow
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
        most = 0
        with trio.move_on_after(8):
            while True:
                most = max(most, held(ladder, "slowpoke"))
                await trio.sleep(0.01)
        others = sum("slowpoke" not in (m.bot_a, m.bot_b) for m in kit.matches)  # (read once: the store's whole list)
        assert 1 <= most <= share
        assert others >= 4, others  # the fast pairs kept playing beside it


@pytest.mark.slow
async def test_the_organisers_disqualify_and_freeze_end_the_pairs_in_play_unplayed(tmp_path: Path) -> None:
    # Answers of 1 s: a pair would hold its slot for 15 s.
    slow = slow_folder(tmp_path, 1.0)
    config = write_config(tmp_path, house=("minimal-python", "random-python", str(slow)))
    async with running(config, jobs=4) as kit:
        organiser = kit.competition.participants.admin_token()
        assert organiser
        ladder = await until_in_play(kit, "slowpoke")
        pairs = [pair for pair in ladder.state.busy if "slowpoke" in (pair.first, pair.second)]
        await until_playing(ladder, "slowpoke")  # into its matches, not only handed over
        before = len(kit.matches)
        answer = await kit.client.post(
            "/api/admin/disqualify", headers=bearer(organiser), json={"name": "slowpoke", "reason": "stalling"}
        )
        assert answer.status_code == 200
        with trio.fail_after(60):  # generous: that they ended unplayed, not after their 15 s, is asserted below
            while held(ladder, "slowpoke"):
                await trio.sleep(0.02)
        played = kit.matches[before:]
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
        with trio.fail_after(10):  # (well within the 15 s a pair of slowpoke holds its slot)
            while ladder.state.busy:
                await trio.sleep(0.02)
        lines = [c.line for c in kit.competition.store.changes(kit.competition.tid) if c.kind == "aborted"]
        assert any(line.endswith("ended unplayed: the organiser froze the competition") for line in lines)


@pytest.mark.slow
async def test_disqualify_ends_a_pair_played_in_the_servers_own_process(tmp_path: Path) -> None:
    slow = slow_folder(tmp_path, 1.0)
    config = write_config(tmp_path, house=("minimal-python", str(slow)), extra="workers = 0")
    async with running(config, jobs=2) as kit:
        ladder = await until_in_play(kit, "slowpoke")
        await until_playing(ladder, "slowpoke")
        owner = kit.competition.state.participant_named("slowpoke")
        assert owner is not None
        kit.competition.disqualify(owner, "stalling")
        with trio.fail_after(60):  # generous: that it ended unplayed is asserted below
            while held(ladder, "slowpoke"):
                await trio.sleep(0.02)
        assert not [m for m in kit.matches if "slowpoke" in (m.bot_a, m.bot_b)]


@pytest.mark.slow
async def test_a_ladder_whose_slots_rest_plays_no_faster_than_its_rest_allows(tmp_path: Path) -> None:
    config = write_config(tmp_path, ladder=PLAYS_ON.replace("rest_s = 0.2", "rest_s = 0.5"), extra="workers = 0")
    assert load(config).ladder.rest_s == 0.5
    async with running(config, jobs=1) as kit:
        await kit.wait_matches(2)
        start, before = trio.current_time(), kit.competition.played
        await trio.sleep(2.0)
        played, elapsed = kit.competition.played - before, trio.current_time() - start
    # One slot: a pair (two matches) and half a second's rest, over and over (without the rest: hundreds).
    assert played <= 2 * (elapsed / 0.5 + 1), played
    for value, error in (("-1", "must be from 0 to 60 seconds, not -1"), ('"1s"', "rest_s")):
        with pytest.raises(ConfigError, match=error):
            load(write_config(tmp_path, ladder=f"rest_s = {value}"))


# Checks ------------------------------------------------------------------------------------------------
MISBEHAVING = """\
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["type"] == "main_play":
        {misbehave}
    print(json.dumps({{"id": message["id"], "action": 0}}), flush=True)
"""
MISBEHAVIOURS = {
    "sleeps": ("time.sleep(60)", 1),  # past the move's wall cap, asleep: a busy machine does not explain it
    "crashes": ("sys.exit(3)", 1),
    "moves illegally": ('print(json.dumps({"id": message["id"], "action": 99}), flush=True); continue', 1),
    "spins": ("while True: pass", 2),  # runnable when the wall cap struck (its CPU budget is larger): judged again
}


def bot_upload(code: str, name: str = "bot") -> bytes:
    return bot_archive({"bot.toml": f'name = "{name}"\nrun = "python3 bot.py"\nreuse = true\n', "bot.py": code})


@pytest.mark.parametrize("misbehaviour", sorted(MISBEHAVIOURS))
@pytest.mark.slow
async def test_a_failed_check_is_judged_again_only_when_a_busy_machine_could_explain_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, misbehaviour: str
) -> None:
    runs = []

    async def counted(*args: Any, **kwargs: Any) -> Report:
        runs.append(trio.current_time())
        return await check_bot(*args, **kwargs)

    monkeypatch.setattr("arena.server.submissions.check_bot", counted)
    code, expected_runs = MISBEHAVIOURS[misbehaviour]
    limits = "[limits]\nmove_s = 30.0\ntime_bank_s = 1.0\nmove_wall_s = 1.0\n"  # a spin meets the wall cap first
    config = write_config(tmp_path, extra=limits, uploads="check_matches = 1\ncheck_wall_s = 60")
    async with running(config, paused=True) as kit:
        token = kit.participant("alice")
        response = await kit.upload(token, bot_upload(MISBEHAVING.format(misbehave=code)))
        assert response.status_code == 201, response.text
        result = await kit.wait_submission(token, response.json()["id"], timeout=60)
        assert result["status"] == "failed"
        assert len(runs) == expected_runs


@pytest.mark.slow
async def test_a_slow_check_is_capped_and_delays_no_other_participants_check(tmp_path: Path) -> None:
    # Alice's bot answers in 2 s: its check would take a minute; the cap is 15 s. Bob's bot answers at once (its
    # check takes 1-2 s on an idle machine: the cap leaves it ample time on a busy one).
    config = write_config(
        tmp_path, extra="[limits]\nmove_wall_s = 3.0\n", uploads="check_matches = 1\ncheck_wall_s = 15\ncheck_jobs = 2"
    )
    async with running(config, paused=True) as kit:
        alice, bob = kit.participant("alice"), kit.participant("bob")
        slow = await kit.upload(alice, bot_upload(SLOW_BOT.format(seconds=2.0), "alice"))
        fast = await kit.upload(bob, minimal_bot())
        passed = await kit.wait_submission(bob, fast.json()["id"], timeout=60)
        assert passed["status"] == "passed", (passed["message"], passed.get("report"))
        waiting = await kit.client.get(f"/api/submissions/{slow.json()['id']}", headers=bearer(alice))
        assert not waiting.json()["done"]  # Bob's check did not wait for Alice's
        failed = await kit.wait_submission(alice, slow.json()["id"], timeout=60)
        assert failed["status"] == "failed"
        text = str(failed)
        assert "the check ran over 15 s, the most a whole check may take here" in text


async def test_the_check_queue_serves_participants_in_turn_one_check_each_at_a_time() -> None:
    queue = FairQueue()
    for participant, submission in [(1, 10), (1, 11), (1, 12), (2, 20), (3, 30), (2, 21)]:
        queue.put(participant, submission)
    taken = [await queue.take() for _ in range(3)]
    assert taken == [(1, 10), (2, 20), (3, 30)]  # the first of each, in turn
    with trio.move_on_after(0.1) as waited:
        await queue.take()  # every participant with uploads left has a check running
    assert waited.cancelled_caught
    queue.done(2)
    assert await queue.take() == (2, 21)
    queue.done(1)
    queue.done(3)
    assert await queue.take() == (1, 11)
    assert len(queue) == 1


async def test_check_slots_go_to_the_participant_charged_least_at_the_next_step(autojump_clock: object) -> None:
    slots = CheckSlots(2)
    order: list[str] = []

    async def slow_check(participant: int, steps: int) -> None:
        async with slots.held(participant):
            for _ in range(steps):
                await trio.sleep(10)  # a slow bot's match
                await slots.step(participant)
        order.append(f"{participant} done")

    async def newcomer(started: float) -> None:
        async with slots.held(3) as waited:
            order.append(f"3 started after {trio.current_time() - started:g} s (waited {waited:g})")
            await trio.sleep(1)
        order.append("3 done")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow_check, 1, 6)
        nursery.start_soon(slow_check, 2, 6)
        await trio.sleep(5)
        nursery.start_soon(newcomer, trio.current_time())
    # The newcomer waits for the next step of a slow check (5 s), not for a whole check (60 s).
    assert order[0] == "3 started after 5 s (waited 5)"
    assert order[1] == "3 done"
    assert slots.charged(1) > slots.charged(3) > 0


@pytest.mark.slow
async def test_four_accounts_with_slow_checks_delay_another_participants_check_by_one_step(tmp_path: Path) -> None:
    # Four accounts upload bots that answer in 0.5 s: each check would hold a slot for a minute (4 matches of 15
    # requests). They hold the four slots; a fifth participant's upload, checked at once, needs none of them long.
    config = write_config(tmp_path, uploads="check_matches = 4\ncheck_wall_s = 300\ncheck_jobs = 4")
    async with running(config, paused=True) as kit:
        slow = []
        for n in range(4):
            token = kit.participant(f"slow{n}")
            response = await kit.upload(token, bot_upload(SLOW_BOT.format(seconds=0.5), f"slow{n}"))
            assert response.status_code == 201, response.text
            slow.append((token, response.json()["id"]))
        with trio.fail_after(60):
            for token, sid in slow:  # the four slots are taken by the slow checks
                while (await kit.client.get(f"/api/submissions/{sid}", headers=bearer(token))).json()["status"] != (
                    "checking"
                ):
                    await trio.sleep(0.1)
        fast = kit.participant("fast")
        started = trio.current_time()
        upload = await kit.upload(fast, minimal_bot())
        passed = await kit.wait_submission(fast, upload.json()["id"], timeout=120)
        took = trio.current_time() - started
        # (Its verdict is its bot's: on a machine loaded past its CPUs, a 2 s exit of a background bot may fail.)
        assert passed["status"] in ("passed", "failed") and passed["checks"], passed
        states = [
            (await kit.client.get(f"/api/submissions/{sid}", headers=bearer(token))).json()["done"]
            for token, sid in slow
        ]
        assert states == [False] * 4, took  # it waited for none of the slow checks to end (the old queue: one)
