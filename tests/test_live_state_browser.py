"""The live leaderboard's status line while the ladder starts, in Chromium against a scripted event stream (no
server): a board event of a ladder yet to begin says "starting", and the state event that tells it began puts
the ladder's real state in its place."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.server.web import STATIC

from .conftest import CHROMIUM, CHROMIUM_FLAGS

ORIGIN = "http://arena.test"
BOARD = (
    '<div class="scroll"><table id="board"><tbody>'
    '<tr data-bot="alpha" data-rank="1"><td class="rank">1</td><td class="bot">alpha</td></tr>'
    '<tr data-bot="beta" data-rank="2"><td class="rank">2</td><td class="bot">beta</td></tr>'
    "</tbody></table></div>"
)


def shows(events: list[tuple[str, dict[str, object]]], expected: str) -> None:
    """The status line comes to say ``expected`` once the page's script reads ``events`` (kind, data)."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    page_html = (
        '<!doctype html><html><head><meta charset="utf-8"></head><body><main>'
        f'<span id="ladder-state"></span><span id="last-update"></span><div id="live-board">{BOARD}</div></main>'
        '<script src="/live.js"></script></body></html>'
    )
    stream = "retry: 600000\n" + "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in events)
    routes = {
        "/": ("text/html", page_html),
        "/live.js": ("text/javascript", (STATIC / "live.js").read_text()),
        "/events": ("text/event-stream", stream),
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
            page.add_init_script(
                "window.seen = []; document.addEventListener('DOMContentLoaded', () => {"
                " const line = document.getElementById('ladder-state');"
                " new MutationObserver(() => window.seen.push(line.textContent))"
                ".observe(line, {childList: true, characterData: true, subtree: true}); });"
            )
            page.goto(f"{ORIGIN}/")
            # The scripted stream ends after its events: the script then says it is not connected.
            page.wait_for_function("() => window.seen.some(text => text.startsWith('not connected'))")
            seen: list[str] = page.evaluate("window.seen")
            said = [text for text in seen if not text.startswith("not connected")]
            assert said and said[-1] == expected, seen
            assert errors == []
        finally:
            browser.close()


def test_the_status_line_says_starting_until_the_ladder_begins() -> None:
    board = {"html": BOARD, "as_of": 0, "in_play": 0}
    shows([("board", {**board, "starting": True})], "starting: the ladder begins once its match worker is up")
    shows(
        [("board", {**board, "starting": True}), ("state", {"in_play": 0, "starting": False})],
        "idle: every pair is settled",
    )
