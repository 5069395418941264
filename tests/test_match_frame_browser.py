"""A replay framed in the match page, in Chromium against a real ``arena serve``: it opens at a step with
something to tell, takes the keyboard at once, holds its toolbar at the top of the window as the page scrolls,
and a fault's links (match page, bot page, match lists) open the fault's step; a failed check's matches are
replayed from its report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .browsertools import site, wait_matches
from .servertools import HTTP, minimal_bot

pytestmark = pytest.mark.slow

ILLEGAL = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        print(json.dumps({"id": message["id"], "action": 0 if message.get("type") != "main_play" else 999}), flush=True)
    elif message["type"] == "quit":
        break
"""


def faulty_bot(folder: Path) -> Path:
    """A bot (``faulty-py``) that answers every play with an illegal move."""
    bot = folder / "faulty-py"
    bot.mkdir()
    (bot / "bot.py").write_text(ILLEGAL)
    (bot / "bot.toml").write_text('name = "faulty-py"\nrun = "python3 bot.py"\nreuse = true\n')
    return bot


def test_a_framed_replay_opens_told_takes_the_keys_keeps_its_toolbar_and_opens_faults(
    tmp_path: Path, browser: Any
) -> None:
    bot = faulty_bot(tmp_path)
    with site(tmp_path, browser, house=("random-python", "simple-py", str(bot))) as s:
        matches = wait_matches(s.server.url, 12)
        keys = {m["key"] for m in matches}
        faulty = next(
            m for m in sorted(matches, key=lambda m: m["key"])
            if m["faults"] and f"{m['key'][:-1]}{'ab'[m['key'].endswith('a')]}" in keys
        )  # fmt: skip
        page = s.page("phone")
        page.goto(f"{s.server.url}/matches/{faulty['key']}")
        frame = page.frame_locator("#replay-frame")
        frame.locator("body[data-ready='1']").wait_for()
        # It opens where there is something to tell, not at the empty start.
        assert "Nothing to tell" not in frame.locator("#story").inner_text()
        opened = frame.locator("#counter").inner_text()
        # The keyboard is the replay's from the start: no Tab through the page's links first.
        page.keyboard.press("ArrowRight")
        frame.locator("#counter").filter(has_not_text=opened).wait_for(timeout=30_000)
        # Scrolled down the page, the replay's toolbar stays at the window's top.
        page.wait_for_function("() => document.getElementById('replay-frame').getBoundingClientRect().height > 1200")
        page.evaluate("window.scrollTo(0, document.getElementById('replay-frame').offsetTop + 600)")
        page.wait_for_function(
            "() => Number(document.getElementById('replay-frame').dataset.above) > 500", timeout=30_000
        )
        above = int(page.locator("#replay-frame").get_attribute("data-above") or 0)
        inner = page.locator("#replay-frame").element_handle().content_frame()
        inner.wait_for_function(  # (the bar is held as far down its frame as the frame's top is above the window)
            "(above) => Math.abs(document.getElementById('bar').getBoundingClientRect().top - above) <= 2",
            arg=above,
            timeout=10_000,
        )
        bar = frame.locator("#bar").bounding_box()  # (in the page's coordinates)
        assert bar is not None and abs(bar["y"]) <= 2, bar
        # Framed, the replay has no link back to the page it is in; opened alone, it has.
        assert frame.locator("#back").count() == 0
        alone = s.page()
        alone.goto(s.server.url + page.locator("#replay-alone").get_attribute("href"))
        alone.click("#back")
        alone.wait_for_url(f"{s.server.url}/matches/{faulty['key']}")
        # The fault's link on the match page opens the replay at the fault.
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("p.fault a.fault-link").first.click()
        frame.locator("#story .fault-line").wait_for(timeout=10_000)
        assert "illegal" in frame.locator("#story").inner_text()
        # The bot page's list of faults and the match lists link to the fault's step.
        page.goto(f"{s.server.url}/bots/faulty-py")
        hrefs = page.eval_on_selector_all("a.fault-link, a.fault", "links => links.map(a => a.getAttribute('href'))")
        assert hrefs and all(h.startswith("/matches/") and h.endswith(("#fault=A", "#fault=B")) for h in hrefs), hrefs
        assert page.errors == []


def test_a_failed_check_s_matches_are_replayed_from_its_report_for_its_owner_only(tmp_path: Path, browser: Any) -> None:
    archive = tmp_path / "alice-bot.tar.gz"
    archive.write_bytes(minimal_bot(**{"bot.py": ILLEGAL}))
    with site(tmp_path, browser) as s:
        url = s.server.url
        alice = s.page(login=s.alice)
        alice.set_input_files("input[name=file]", str(archive))
        alice.click("#upload")
        alice.wait_for_url(f"{url}/submissions/*")
        submission = alice.url.removeprefix(url)
        alice.wait_for_selector("#status.failed, #status.refused", timeout=480_000)
        assert "FAIL" in alice.locator("#checks").inner_text()
        links = alice.locator("#check-replays a")
        assert links.count() >= 1
        replay = links.first.get_attribute("href")
        links.first.click()
        alice.wait_for_selector("body[data-ready='1']")
        alice.evaluate("location.hash = '#fault'")
        alice.locator("#story .fault-line").wait_for(timeout=10_000)
        assert "illegal" in alice.locator("#story").inner_text()
        alice.click("#back")  # back to the check's report
        alice.wait_for_url(url + submission)
        assert alice.errors == []
        # Nobody else sees it; nor a name that is not a check's match.
        assert HTTP.get(url + replay, timeout=30).status_code in (401, 403, 303, 404)
        assert alice.request.get(url + submission + "/replay/..%2Fserver").status == 404
