"""The live leaderboard's "changed" mark, in Chromium against a scripted event stream (no server): only a row
whose figures changed flashes, and the flash fades and goes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.server.web import STATIC

from .conftest import CHROMIUM, CHROMIUM_FLAGS

ORIGIN = "http://arena.test"


def row(bot: str, rank: int, rating: str, record: str, extra: str = "") -> str:
    return (
        f'<tr data-bot="{bot}" data-rank="{rank}"><td class="rank">{rank}{extra}</td><td class="bot">{bot}</td>'
        f'<td class="num">{rating}</td><td class="num">{record}</td></tr>'
    )


def board(*rows: str) -> str:
    return f'<div class="scroll"><table id="board"><tbody>{"".join(rows)}</tbody></table></div>'


def test_only_a_row_whose_figures_changed_flashes_and_the_flash_goes() -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    # The page as a previous update left it: alpha's rank mark and flash are still there.
    moved = '<span class="move up"> ▲1</span>'
    before = board(
        f'<tr class="changed" data-bot="alpha" data-rank="1"><td class="rank">1{moved}</td><td class="bot">alpha</td>'
        '<td class="num">+10 ± 5</td><td class="num">3-0-1</td></tr>',
        row("beta", 2, "+0 ± 5", "2-0-2"),
        row("gamma", 3, "-10 ± 5", "1-0-3"),
    )
    after = board(
        row("alpha", 1, "+10 ± 5", "3-0-1"), row("beta", 2, "+2 ± 5", "3-0-2"), row("gamma", 3, "-10 ± 5", "1-0-3")
    )
    event = json.dumps({"html": after, "in_play": 1, "as_of": 0})
    page_html = (
        f'<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/style.css"></head><body><main>'
        f'<span id="ladder-state"></span><span id="last-update"></span><div id="live-board">{before}</div></main>'
        '<script src="/live.js"></script></body></html>'
    )
    routes: dict[str, tuple[str, str]] = {
        "/": ("text/html", page_html),
        "/live.js": ("text/javascript", (STATIC / "live.js").read_text()),
        "/style.css": ("text/css", (STATIC / "style.css").read_text()),
        "/events": ("text/event-stream", f"retry: 600000\nevent: board\ndata: {event}\n\n"),
    }

    def serve(route: Any) -> None:
        kind, body = routes[route.request.url.removeprefix(ORIGIN)]
        route.fulfill(status=200, content_type=kind, body=body)

    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route(f"{ORIGIN}/**", serve)
            page.goto(f"{ORIGIN}/")
            page.wait_for_function("() => document.body.dataset.liveEvents === '1'")
            flashed = page.eval_on_selector_all("#board tr.changed", "rows => rows.map(r => r.dataset.bot)")
            assert flashed == ["beta"], flashed
            # The flash fades (1.6 s), then the mark goes.
            page.wait_for_function("() => document.querySelectorAll('#board tr.changed').length === 0", timeout=10_000)
            assert errors == []
        finally:
            browser.close()
