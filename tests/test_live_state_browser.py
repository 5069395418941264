"""The live leaderboard's status line while the ladder starts, in Chromium against a scripted event stream (no
server): a board event of a ladder yet to begin says "starting", and the state event that tells it began puts
the ladder's real state in its place."""

from __future__ import annotations

from typing import Any

from .browsertools import live_page

BOARD = (
    '<div class="scroll"><table id="board"><tbody>'
    '<tr data-bot="alpha" data-rank="1"><td class="rank">1</td><td class="bot">alpha</td></tr>'
    '<tr data-bot="beta" data-rank="2"><td class="rank">2</td><td class="bot">beta</td></tr>'
    "</tbody></table></div>"
)


def shows(browser: Any, events: list[tuple[str, dict[str, object]]], expected: str) -> None:
    """The status line comes to say ``expected`` once the page's script reads ``events`` (kind, data)."""
    page, errors = live_page(
        browser,
        BOARD,
        events,
        init_script="window.seen = []; document.addEventListener('DOMContentLoaded', () => {"
        " const line = document.getElementById('ladder-state');"
        " new MutationObserver(() => window.seen.push(line.textContent))"
        ".observe(line, {childList: true, characterData: true, subtree: true}); });",
    )
    # The scripted stream ends after its events: the script then says it is not connected.
    page.wait_for_function("() => window.seen.some(text => text.startsWith('not connected'))")
    seen: list[str] = page.evaluate("window.seen")
    said = [text for text in seen if not text.startswith("not connected")]
    assert said and said[-1] == expected, seen
    assert errors == []
    page.context.close()


def test_the_status_line_says_starting_until_the_ladder_begins(browser: Any) -> None:
    board = {"html": BOARD, "as_of": 0, "in_play": 0}
    shows(browser, [("board", {**board, "starting": True})], "starting: the ladder begins once its match worker is up")
    shows(
        browser,
        [("board", {**board, "starting": True}), ("state", {"in_play": 0, "starting": False})],
        "idle: every pair is settled",
    )
