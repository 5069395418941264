"""A participant's whole path on the competition server, in a real browser (Debian's chromium via Playwright).

Log in with the link the organiser printed, upload a bot, see its check pass,
watch it appear on the leaderboard as its matches finish (without reloading),
open one of its replays. With ``ARENA_SCREENSHOTS=DIR`` the pages are also
saved there (the docs' pictures are made so).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from arena.cli import main

from .browsertools import picture
from .conftest import CHROMIUM, CHROMIUM_FLAGS
from .servertools import HTTP, minimal_bot, server_process, write_config

pytestmark = pytest.mark.slow


def test_a_participant_uploads_sees_the_check_the_live_leaderboard_and_a_replay(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    config = write_config(tmp_path, house=("random-python", "simple-py", "obvious-strats-py"))
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["serve", str(config), "--add", "alice"]) == 0
    link_path = printed.getvalue().split("/login/")[1].split()[0]
    bot = tmp_path / "alice-bot.tar.gz"
    bot.write_bytes(minimal_bot())
    requests: list[str] = []
    errors: list[str] = []
    with server_process(config) as server, sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 820})
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.url}/login/{link_path}")
            page.click("#login")
            page.wait_for_url(f"{server.url}/me")
            assert page.locator("h1").inner_text() == "alice"

            page.set_input_files("input[name=file]", str(bot))
            page.click("#upload")
            page.wait_for_url(f"{server.url}/submissions/*")
            page.wait_for_selector("#status.passed", timeout=180_000)  # the page reloads itself until the check ends
            assert "PASS  legal moves" in page.locator("#checks").inner_text()
            picture(page, "submission.png")

            page.goto(server.url + "/")
            page.evaluate("window.notReloaded = true")
            page.wait_for_function("() => Number(document.body.dataset.liveEvents || 0) >= 1", timeout=30_000)
            page.wait_for_function(
                """() => [...document.querySelectorAll('#board tbody tr')].some(
                       row => row.innerText.includes('alice') && Number(row.cells[7].innerText) >= 4)""",
                timeout=180_000,
            )
            assert page.evaluate("window.notReloaded") is True, "the leaderboard reloaded instead of updating live"
            picture(page, "leaderboard.png")

            page.goto(server.url + "/bots/alice")
            picture(page, "bot.png")
            page.goto(f"{server.url}/matches/{played_out(server.url, 'alice')}")  # (a replay shows a whole deal)
            replay = page.frame_locator("iframe.replay")
            replay.locator("body").wait_for()
            assert "alice" in replay.locator("body").inner_text()
            picture(page, "match.png")

            organiser = next(line for line in server.output if "/login/" in line).split("/login/")[1].split()[0]
            admin = browser.new_page(viewport={"width": 1200, "height": 820})
            admin.goto(f"{server.url}/login/{organiser}")
            admin.click("#login")
            admin.wait_for_url(f"{server.url}/admin")
            admin.click("#pause")
            admin.wait_for_selector("text=The ladder is paused by the organiser")
            picture(admin, "admin.png")
        finally:
            browser.close()
    assert errors == [], errors
    assert all(url.startswith(server.url) for url in requests), "the pages asked for something off this server"


def played_out(url: str, bot: str) -> str:
    """The key of a match of ``bot`` whose two legs are both played (its replay is public), from the API."""
    keys = {m["key"] for m in HTTP.get(f"{url}/api/matches", params={"bot": bot}, timeout=30).json()["matches"]}
    return next(key for key in sorted(keys) if f"{key[:-1]}{'ab'[key.endswith('a')]}" in keys)
