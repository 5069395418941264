"""Pages at a phone's width (390 px) and a laptop's (1366 px) with a bot whose name is 32 characters and no space.

The leaderboard keeps what matters in view (rank, name, rating and its interval, W-D-L) and drops details at a
phone's width; a long name is cut with an ellipsis, whole on hover (its title) and in the bot page's title; no page
scrolls sideways.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from arena.cli import main

from .conftest import CHROMIUM, CHROMIUM_FLAGS, SAMPLE_BOTS
from .servertools import HTTP, server_process, write_config

LONG = "abcdefghijklmnopqrstuvwxyz012345"  # 32 characters, the longest name, no place to break
assert len(LONG) == 32


def _long_bot(folder: Path) -> Path:
    bot = folder / "long-bot"
    shutil.copytree(SAMPLE_BOTS / "rps-poker" / "random-python", bot)
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "random-python"', f'name = "{LONG}"'))
    return bot


@pytest.mark.slow
def test_the_leaderboard_keeps_rating_and_record_in_view_on_a_phone_and_a_long_name_widens_no_page(
    tmp_path: Path,
) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    config = write_config(tmp_path, house=(str(_long_bot(tmp_path)), "simple-py"))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["serve", str(config), "--add", "alice"]) == 0
    with server_process(config) as server, sync_api.sync_playwright() as driver:
        url = server.url
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(url + "/")
            page.wait_for_selector(f"#board tr[data-bot='{LONG}']", timeout=120_000)
            page.wait_for_selector("#board tbody tr:nth-child(2)", timeout=120_000)
            key = HTTP.get(f"{url}/api/matches", timeout=30).json()["matches"][0]["key"]
            organiser = next(line for line in server.output if "/login/" in line).split("/login/")[1].split()[0]
            page.goto(f"{url}/login/{organiser}")  # (the organiser sees every replay, and the admin page)
            page.click("#login")
            page.wait_for_load_state()
            for size in (390, 1366):
                page.set_viewport_size({"width": size, "height": 844})
                pages = ("/", f"/bots/{LONG}", "/live", "/tv", "/admin", f"/matches/{key}", f"/matches/{key}/replay")
                for address in pages:
                    page.goto(url + address)
                    page.wait_for_load_state("load")
                    wide = page.evaluate(
                        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
                        "document.documentElement.clientWidth + 1 && !e.parentElement.closest('.scroll, .chart-box'))"
                        ".slice(0, 4).map(e => e.tagName + '.' + e.className"
                        " + ' ' + (e.textContent || '').slice(0, 60))"
                    )
                    assert page.evaluate("document.documentElement.scrollWidth") <= size, f"{address} at {size}: {wide}"
                page.goto(url + "/")
                page.wait_for_selector("#board tbody tr")
                for header in ("rating", "W-D-L"):
                    box = page.locator("#board thead th", has_text=header).first.bounding_box()
                    assert box is not None and box["x"] + box["width"] <= size, f"{header} at {size}: {box}"
                page.screenshot(path=str(tmp_path / f"board-{size}.png"))
                name = page.locator(f"#board tr[data-bot='{LONG}'] a.name")
                assert name.get_attribute("title") == LONG  # the whole name on hover
            page.goto(f"{url}/bots/{LONG}")
            assert LONG in page.title()
        finally:
            browser.close()
