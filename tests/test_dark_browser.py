"""Every kind of page in the reader's dark scheme (``prefers-color-scheme: dark``): dark, and axe finds nothing.

The server's pages, a match's replay (in its frame and alone) and the tournament report.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main

from .browsertools import axe_violations, frame_fits, played_out, settled, updated, wait_matches
from .conftest import CHROMIUM, CHROMIUM_FLAGS
from .servertools import server_process, write_config
from .test_report_wide_browser import NAMES, _report

BACKGROUND = """() => {
  const rgb = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);
  const [r, g, b] = rgb.map((c) => c / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""


def shot(page: Any, name: str) -> None:
    """A picture of ``page`` for the docs, when ``ARENA_SCREENSHOTS`` names their folder."""
    if os.environ.get("ARENA_SCREENSHOTS"):
        if page.locator("iframe.replay").count():
            frame_fits(page, "iframe.replay")
        settled(page)
        page.screenshot(path=str(Path(os.environ["ARENA_SCREENSHOTS"]) / name))


def _dark(page: Any, name: str) -> list[str]:
    problems = [] if page.evaluate(BACKGROUND) < 0.15 else [f"{name}: its background is not dark"]
    return problems + [f"{name}: {v}" for v in axe_violations(page)]


@pytest.mark.slow
def test_every_kind_of_page_follows_the_dark_scheme_and_axe_finds_nothing(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    config = write_config(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["serve", str(config), "--add", "alice"]) == 0
    # The report of 5 bots: every kind of element the 22 bots' has (axe's colour contrast takes 20 s on that one's
    # crosstable; its own test checks it at full size).
    report = _report(tmp_path, NAMES[:5])
    problems: list[str] = []
    with server_process(config) as server, sync_api.sync_playwright() as driver:
        url = server.url
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 800}).new_page()
            key = played_out(wait_matches(url, 4))  # (both legs played: its replay is public)
            for address in ("/", "/login", "/live", "/tv", "/bots/random-python", f"/matches/{key}"):
                page.goto(url + address)  # (whole once loaded, but the TV's boards and the match's replay)
                if address == "/tv":
                    updated(page, "#tv", 0, timeout=60)
                if address.startswith("/matches/"):
                    page.frame_locator("iframe.replay").locator("body[data-ready='1']").wait_for()
                problems += _dark(page, address)
            shot(page, "match-dark.png")
            page.goto(url + "/")
            shot(page, "leaderboard-dark.png")
            phone = browser.new_context(color_scheme="dark", viewport={"width": 390, "height": 844}).new_page()
            for address, name in (("/", "leaderboard-dark-phone.png"), (f"/matches/{key}", "match-dark-phone.png")):
                phone.goto(url + address)
                if address != "/":
                    phone.frame_locator("iframe.replay").locator("body[data-ready='1']").wait_for()
                problems += _dark(phone, f"{address} at 390 px")
                shot(phone, name)
            page.goto(f"{url}/matches/{key}/replay")
            page.wait_for_selector("body[data-ready='1']")
            problems += _dark(page, "a replay")
            page.goto(report.as_uri())
            page.wait_for_selector("#crosstable")
            problems += _dark(page, "the report")
        finally:
            browser.close()
    assert problems == [], "\n".join(problems)
