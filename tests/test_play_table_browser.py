"""A person plays a whole game of each built-in game against a bot at the server's table, in Chromium, by clicking.

The game's page is loaded once: the table (the replay page in the seat's view) and the moves are updated in place
from the game's event stream, a card of the seat's is clicked where the move is a card, a button otherwise.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.replay import load_log

from .browsertools import frame_fits, play_out, served, settled, wait_move_taken
from .conftest import SAMPLE_BOTS

GAMES = {
    # game: (a house bot, parameters short enough for a test, moves of the person's at least)
    "rps-poker": ("rps-poker/random-python", "", 15),
    "gops": ("gops/random-python", "cards = 4", 4),
    "card-jitsu": ("card-jitsu/random-python", "max_rounds = 4", 1),
    "badugi": ("badugi/calling-station-python", "hands = 2", 2),
    "six-card-poker": ("six-card-poker/sorted-python", "deals = 2", 2),
}


def _config(folder: Path, game: str) -> Path:
    bot, params, _ = GAMES[game]
    path = folder / "server.toml"
    path.write_text(
        f'name = "Table test"\ngame = "{game}"\nhouse_bots = ["{SAMPLE_BOTS / bot}"]\n'
        f"[params]\n{params}\n[uploads]\ncheck_matches = 2\n"
        f'[server]\ndata_dir = "{folder / "data"}"\nport = 0\n'
    )
    return path


def click_until_sent(page: Any, move: Any, asks: str | None) -> None:
    """Click ``move`` until the page has sent it ("Sent.") or taken it, as a person clicks again a click that did
    nothing: the table is drawn again at each event of the game, and a click at the moment a card is redrawn can
    land on none (a loaded machine's run waited 60 s for a move never sent). A move sent is never sent twice."""
    from playwright.sync_api import TimeoutError as Timeout

    for _ in range(3):
        move.click()
        try:
            page.wait_for_function(
                "(asks) => { const p = document.getElementById('play');"
                " return document.getElementById('game-over') || !p.dataset.waiting || p.dataset.asks !== asks"
                " || document.getElementById('play-state').textContent === 'Sent.'; }",
                arg=asks,
                timeout=10_000,
            )
            return
        except Timeout:
            continue
    raise AssertionError("three clicks on a move sent nothing")


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_person_plays_a_whole_game_at_the_table_by_clicking_with_no_page_load(
    tmp_path: Path, browser: Any, game: str
) -> None:
    house = Path(GAMES[game][0]).name
    with served(_config(tmp_path, game), browser) as s:
        url = s.server.url
        s.allow_play(house)
        alice = s.play(house, "a", viewport={"width": 1366, "height": 900})
        errors = alice.errors
        loads: list[str] = []
        alice.on("load", lambda: loads.append(alice.url))
        table = alice.frame_locator("#play-table")
        clicked_cards = buttons = 0
        shot = False
        seen = ""
        while True:
            alice.wait_for_selector("#move-buttons button:enabled, #game-over", timeout=60_000)
            if alice.locator("#game-over").count():
                break
            if not shot and game == "rps-poker" and clicked_cards >= 5:
                table.locator("#seat-A .card.playable").first.wait_for(timeout=10_000)
                alice.screenshot(path=str(tmp_path / "play.png"))
                alice.set_viewport_size({"width": 390, "height": 844})
                frame_fits(alice, "#play-table")  # (the frame tells its new height)
                settled(alice)
                assert alice.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
                assert alice.locator("#move-buttons button").first.is_visible()  # the moves stay in view
                alice.screenshot(path=str(tmp_path / "play-phone.png"))
                alice.set_viewport_size({"width": 1366, "height": 900})
                shot = True
            asks = alice.locator("#play").get_attribute("data-asks")
            seen = table.locator("body").inner_text()
            playable = table.locator("#seat-A .card.playable")
            if game in ("rps-poker", "gops", "card-jitsu"):  # each move is a card: the table shows it at once
                playable.first.wait_for(timeout=30_000)
            if playable.count():
                click_until_sent(alice, playable.first, asks)
                clicked_cards += 1
            else:
                click_until_sent(alice, alice.locator("#move-buttons button:enabled").first, asks)
                buttons += 1
            wait_move_taken(alice, asks)
        assert clicked_cards + buttons >= GAMES[game][2]
        if game in ("rps-poker", "gops", "card-jitsu"):
            assert clicked_cards >= GAMES[game][2] and buttons == 0  # every move was a card of the hand
        assert loads == []  # no page was loaded after the first
        assert table.locator("#seed").inner_text() == "secret"  # the seed deals both seats: never shown in play
        assert table.locator("#seat-A").count() == 1
        assert "You play seat A" in alice.locator("#transcript").text_content()
        assert "The match is over" in alice.locator("#transcript").text_content()
        replay = alice.locator("#game-over a").get_attribute("href")
        assert replay is not None and replay.endswith("/replay")
        alice.goto(url + replay)  # the whole table, both seats' cards, once the game is over
        assert house in alice.locator("#title").inner_text()
        # ... and a way back to the game's page (the replay had none).
        alice.locator("#back").click()
        alice.wait_for_url(url + replay.removesuffix("/replay"))
        alice.locator("#game-over").wait_for()
    assert errors == [], errors
    (log,) = (tmp_path / "data" / "logs" / "human").glob("*.jsonl")
    assert str(load_log(log).seed) not in seen  # nor in the match's id: the seed would deal the bot's cards


@pytest.mark.slow
def test_a_person_plays_a_plugin_game_at_its_generic_table_answering_in_json(tmp_path: Path, browser: Any) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "high-card"
    (tmp_path / "game").mkdir()
    shutil.copy(example / "high_card.py", tmp_path / "game" / "high_card.py")
    config = tmp_path / "server.toml"
    config.write_text(
        f'name = "High card"\ngame = "high-card"\ngame_module = "game/high_card.py"\n'
        f'house_bots = ["{example / "bots" / "high"}"]\n[uploads]\ncheck_matches = 2\n'
        f'[server]\ndata_dir = "{tmp_path / "data"}"\nport = 0\n'
    )
    with served(config, browser) as s:
        s.allow_play("high")
        alice = s.play("high", "b")
        errors = alice.errors
        loads: list[str] = []
        alice.on("load", lambda: loads.append(alice.url))
        table = alice.frame_locator("#play-table")

        def answer(page: Any) -> None:
            told = page.locator("#transcript").text_content() or ""
            hand = re.findall(r"hand \[([\d,]+)\]", told)[-1].split(",")
            table.locator("#seat-B").wait_for()  # the generic table, the person's seat at the bottom
            page.fill("#json-input", hand[0])
            page.press("#json-input", "Enter")

        moves = play_out(alice, answer, ready="#json-input:enabled")
        assert moves >= 3 and loads == []
        assert table.locator("#seed").inner_text() == "secret"
        told = alice.locator("#transcript").text_content() or ""
        assert "The match is over" in told and "fault" not in told.lower()
    assert errors == [], errors
