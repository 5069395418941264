"""Playing against a bot on the competition server: the owner's switch, a whole game in Chromium, the bounds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.server import human

from .browsertools import play_out, served
from .servertools import running, write_config


@pytest.mark.slow
def test_a_person_plays_a_bot_whose_owner_allows_it_to_the_end_in_the_browser(tmp_path: Path, browser: Any) -> None:
    with served(write_config(tmp_path), browser) as s:
        alice = s.page(login=s.alice)
        alice.goto(f"{s.server.url}/bots/random-python/play")
        assert alice.locator("#not-allowed").is_visible()  # not until its owner (the organiser) allows it
        assert alice.locator("#allow").count() == 0  # and alice may not switch it

        organiser = s.allow_play("random-python")
        alice.goto(f"{s.server.url}/bots/random-python")
        alice.click("#play-link")
        alice.click("#play-a")
        alice.wait_for_url(re.compile(r".*/play/[^/]+$"))
        moves = play_out(alice, lambda page: page.locator("#move-buttons button:enabled").first.click(), timeout=30_000)
        alice.set_viewport_size({"width": 390, "height": 844})
        assert alice.evaluate("document.documentElement.scrollWidth") <= 390  # a phone: no sideways scroll
        transcript = alice.locator("#transcript").text_content()
        assert moves == 15  # RPS Poker: 5 draft picks and 10 turns
        assert "You play seat A against random-python" in transcript
        assert "The match is over" in transcript
        assert "Fault" not in transcript
        alice.click("text=Its replay")
        assert "random-python" in alice.locator("body").inner_text()
        assert alice.errors == [] and organiser.errors == [], (alice.errors, organiser.errors)
    logs = list((tmp_path / "data" / "logs" / "human").glob("*.jsonl"))
    assert len(logs) == 1  # recorded, in a folder of its own


@pytest.mark.slow
async def test_one_game_a_person_and_an_abandoned_game_ends_and_frees_its_slot(tmp_path: Path) -> None:
    config = write_config(tmp_path, server="human_idle_s = 1")
    async with running(config, jobs=1, paused=True) as kit:
        token = kit.participant("bob")
        await kit.login(token)
        house = kit.competition.state.participant_named("random-python")
        assert house is not None
        csrf = await kit.csrf()
        refused = await kit.client.post("/bots/random-python/play", data={"csrf": csrf, "seat": "A"})
        assert refused.status_code == 403  # its owner has not allowed it
        switched = await kit.client.post("/bots/random-python/play", data={"csrf": csrf, "allow": "1"})
        assert switched.status_code == 403  # only its owner (here the organiser) may allow it
        kit.competition.state.set_setting(human.ALLOWED.format(house.id), "1")
        first = await kit.client.post("/bots/random-python/play", data={"csrf": csrf, "seat": "A"})
        assert first.status_code == 303
        again = await kit.client.post("/bots/random-python/play", data={"csrf": csrf, "seat": "B"})
        assert again.headers["location"] == first.headers["location"]  # one game at a time: the same one
        game = first.headers["location"]
        with trio.fail_after(60):
            while "game-over" not in (page := (await kit.client.get(game)).text):
                await trio.sleep(0.2)  # nobody answers: the person's clock runs out
        assert "timeout" in page
        with trio.fail_after(60):
            while True:
                page = (await kit.client.get("/bots/random-python/play")).text
                if 'id="play-a"' in page:
                    break  # the slot is free again
                await trio.sleep(0.1)
        assert kit.competition.played == 0 and kit.matches == []  # never a result of the competition
