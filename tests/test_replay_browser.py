"""The ``--html`` page in a real headless browser (Debian's chromium driven by Playwright).

CI installs ``chromium`` (apt) and ``playwright`` (PyPI, no browser download):
the test skips, saying why, only where either is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import trio

from arena.bots.spec import resolve
from arena.cli import main
from arena.games import get_game
from arena.supervisor.play import play_match
from protocol import Limits

from .conftest import SAMPLE_BOTS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    rps = SAMPLE_BOTS / "rps-poker"
    specs = (resolve(str(rps / "random-python")), resolve(str(rps / "minimal-python")))
    record = trio.run(lambda: play_match(get_game("rps-poker"), specs, seed=7, limits=Limits(), log_dir=tmp_path))
    out = tmp_path / "match.html"
    assert main(["replay", str(record.log_path), "--html", str(out)]) == 0
    return out


def test_the_page_needs_no_network(page_file: Path) -> None:
    text = page_file.read_text()
    assert "http://" not in text and "https://" not in text and "<link" not in text
    assert "src=" not in text


def test_the_page_steps_through_the_match_in_chromium(page_file: Path, tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    requests: list[str] = []
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.on("request", lambda r: requests.append(r.url))
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_file.as_uri())
            assert page.text_content("#title") == "RPS Poker — random-python vs minimal-python"
            assert page.text_content("#counter") == "1 / 17"
            assert page.text_content("#frame-title") == "match start"
            page.keyboard.press("ArrowRight")
            assert page.text_content("#frame-title") == "draft_pick round 1"
            assert page.text_content("#counter") == "2 / 17"
            # Seat A was offered S5 and R1 (seed 7), drawn as cards in A's column.
            cards_a = page.eval_on_selector_all("#col-A .card", "els => els.map(e => e.dataset.card)")
            assert cards_a[:2] == ["S5", "R1"]
            assert "c-green" in (page.get_attribute("#col-A .card", "class") or "")
            assert "Draft 1: A keeps S5" in (page.text_content("#story") or "")
            for _ in range(5):
                page.click("#next")
            assert page.text_content("#frame-title") == "main_play turn 1"
            assert "turn 1" in (page.text_content("#col-B") or "")
            assert page.text_content("#score .pts") in ("1 \u2013 0", "0 \u2013 1")
            page.screenshot(path=str(tmp_path / "turn1.png"))
            page.keyboard.press("End")
            assert page.text_content("#counter") == "17 / 17"
            assert "random-python 5 - 5 minimal-python: draw" in (page.text_content("#story") or "")
            assert page.text_content("#score .pts") == "5 \u2013 5"
            page.click("#prev")
            assert page.text_content("#frame-title") == "main_play turn 10"
            page.keyboard.press("Home")
            assert page.text_content("#counter") == "1 / 17"
            page.screenshot(path=str(tmp_path / "start.png"))
            assert not errors
        finally:
            browser.close()
    assert all(url.startswith("file://") for url in requests), requests
    assert (tmp_path / "turn1.png").stat().st_size > 10_000
