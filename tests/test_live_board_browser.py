"""The live leaderboard's "changed" mark, in Chromium against a scripted event stream (no server): only a row
whose figures changed flashes, and the flash fades and goes."""

from __future__ import annotations

from typing import Any

from .browsertools import live_page


def row(bot: str, rank: int, rating: str, record: str, extra: str = "") -> str:
    return (
        f'<tr data-bot="{bot}" data-rank="{rank}"><td class="rank">{rank}{extra}</td><td class="bot">{bot}</td>'
        f'<td class="num">{rating}</td><td class="num">{record}</td></tr>'
    )


def board(*rows: str) -> str:
    return f'<div class="scroll"><table id="board"><tbody>{"".join(rows)}</tbody></table></div>'


def test_only_a_row_whose_figures_changed_flashes_and_the_flash_goes(browser: Any) -> None:
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
    page, errors = live_page(browser, before, [("board", {"html": after, "in_play": 1, "as_of": 0})], styled=True)
    page.wait_for_function("() => document.body.dataset.liveEvents === '1'")
    flashed = page.eval_on_selector_all("#board tr.changed", "rows => rows.map(r => r.dataset.bot)")
    assert flashed == ["beta"], flashed
    # The flash fades (1.6 s), then the mark goes.
    page.wait_for_function("() => document.querySelectorAll('#board tr.changed').length === 0", timeout=10_000)
    assert errors == []
