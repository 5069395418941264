"""``arena results DB --html``: the tournament report, in a real browser."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .browsertools import SIZES, axe_violations, open_page
from .conftest import SAMPLE_BOTS

RPS = SAMPLE_BOTS / "rps-poker"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a 3-bot tournament (made once: the tests only read it)."""
    tmp_path = tmp_path_factory.mktemp("report")
    faulty = Path(__file__).with_name("faulty") / "bot.py"
    bots = [str(RPS / "minimal-python"), str(RPS / "random-python"), f"{sys.executable} {faulty} bad_index"]
    run = arena("tournament", "rps-poker", *bots, "--seed", "9", "--cycles", "2", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # Written from another folder: the logs are found beside the database all the same.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = str(tmp_path / "arena-runs" / "results.sqlite")
    made = arena("results", db, "--html", "out/report.html", cwd=elsewhere)
    assert made.returncode == 0, made.stderr
    assert "12 replay pages" in made.stdout and "not found" not in made.stdout
    return elsewhere / "out" / "report.html"


def test_the_report_draws_its_charts_and_every_replay_link_opens(browser: Any, report: Path) -> None:
    text = report.read_text()
    assert "https://" not in text and "<script src" not in text and " src=" not in text
    page = open_page(browser, report, wait=False)
    assert page.text_content("#seed") == "9"
    assert page.eval_on_selector_all("#standings tbody tr", "rows => rows.length") == 3
    # The ratings chart is drawn: points with error bars.
    assert page.locator("#ratings-chart svg path").count() >= 6
    # Faults per bot with their reasons, linked to the replay at the fault.
    faults = page.text_content("#faults")
    assert "illegal_move" in faults and "index 7 is out of range" in faults
    fault_links = page.eval_on_selector_all("a.fault-link", "els => els.map(e => e.getAttribute('href'))")
    assert fault_links and all(re.search(r"/\d+\.html#fault=[AB]$", link) for link in fault_links), fault_links
    links = page.eval_on_selector_all("a.replay", "els => els.map(e => e.href)")
    assert len(links) == 12
    replay = browser.new_page()  # (one tab for them all: each new one costs chromium a third of a second)
    for link in links:
        replay.goto(link)
        replay.wait_for_selector("body[data-ready='1']")
        assert "Nothing to tell" not in replay.text_content("#story")
        replay.click("#back")  # each replay links back to its report
        replay.wait_for_url(page.url)
    replay.close()
    assert page.errors == []
    page.close()


def test_the_report_says_how_it_ranks_and_reads_on_a_phone(browser: Any, report: Path) -> None:
    page = open_page(browser, report, wait=False)
    # Ranked by rating, with the LOS column and what it means (as `arena results` prints it).
    assert "Ranked by rating" in page.text_content("#standings-note")
    assert "LOS" in page.locator("#standings thead").inner_text()
    assert "LOS: the chance that a bot is stronger than the next one down" in page.text_content("#standings-note")
    # 2 cycles of 3 bots: 4 deals a bot, too few for intervals, said so; no chart of 2 cycles.
    assert "No intervals" in page.text_content("#rating-note")
    assert "n too small" in page.locator("#standings").inner_text()
    assert page.locator("#cycles-chart").count() == 0
    assert "needs 3 or more" in page.text_content("#cycles-note")
    # A crosstable in readable text, each cell linked to the pair's matches.
    cells = page.locator("#crosstable td a")
    assert cells.count() == 6
    size = page.eval_on_selector("#crosstable td a", "a => parseFloat(getComputedStyle(a).fontSize)")
    assert size >= 12, size
    cells.first.click()
    shown = page.eval_on_selector_all("#matches tbody tr:not([hidden])", "rows => rows.map(r => r.dataset.pair)")
    assert len(shown) == 2 and len(set(shown)) == 1, shown  # the pair's two deals (one per cycle)
    assert page.evaluate("location.hash") == f"#{shown[0]}"
    page.click("#show-all")
    # The matches grouped by duplicate pair (both legs in a row) with the pair's score; sortable, filterable.
    rows = page.locator("#matches tbody tr")
    assert rows.count() == 6 and rows.first.locator("a.replay").count() == 2
    page.click("#matches thead button:text('pair score')")
    scores = page.eval_on_selector_all("#matches tbody tr", "rows => rows.map(r => Number(r.cells[5].dataset.sort))")
    assert scores == sorted(scores) and len(set(scores)) > 1, scores
    assert page.get_attribute("#matches thead th:nth-child(6)", "aria-sort") == "ascending"
    page.fill("#match-filter", "illegal_move")
    assert 0 < page.locator("#matches tbody tr:not([hidden])").count() < 6
    assert "of 6 pairs shown" in page.text_content("#match-count")
    page.fill("#match-filter", "")
    # A section per bot.
    assert page.locator("section.bot").count() == 3
    # Fits a phone, and axe-core finds nothing, at both sizes.
    shots = os.environ.get("ARENA_SCREENSHOTS")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, size
        assert axe_violations(page) == [], size
        if shots:
            page.screenshot(
                path=str(Path(shots) / f"report{'' if size == 'desktop' else '-phone'}.png"), full_page=True
            )
    assert page.errors == []
