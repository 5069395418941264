"""``arena results DB --html``: the tournament report, in a real browser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import SAMPLE_BOTS
from .test_replay_browser import browser, open_page  # noqa: F401  (the fixture)

RPS = SAMPLE_BOTS / "rps-poker"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture
def report(tmp_path: Path) -> Path:
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


def test_the_report_draws_its_charts_and_every_replay_link_opens(browser: Any, report: Path) -> None:  # noqa: F811
    text = report.read_text()
    assert "https://" not in text and "<script" not in text and "src=" not in text
    page = open_page(browser, report, wait=False)
    assert page.text_content("#seed") == "9"
    assert page.eval_on_selector_all("#standings tbody tr", "rows => rows.length") == 3
    # The charts are drawn: points with error bars, a 3 x 3 heatmap, lines per cycle.
    assert page.locator("#ratings-chart svg path").count() >= 6
    box = page.locator("#heatmap svg").bounding_box()
    assert box is not None and box["width"] > 200
    heat = page.locator("#heatmap svg text").all_text_contents()
    assert sum(1 for t in heat if t.count("-") == 2) == 6, heat
    assert page.locator("#cycles-chart svg").count() == 1
    # Faults per bot with their reasons, linked to the match.
    faults = page.text_content("#faults")
    assert "illegal_move" in faults and "index 7 is out of range" in faults
    links = page.eval_on_selector_all("a.replay", "els => els.map(e => e.href)")
    assert len(links) == 12
    for link in links:
        replay = browser.new_page()
        replay.goto(link)
        replay.wait_for_selector("body[data-ready='1']")
        assert replay.text_content("#counter").startswith("step 1 / ")
        replay.close()
    page.close()
