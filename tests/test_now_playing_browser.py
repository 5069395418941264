"""The "now playing" list updates in place: matches that begin show up and ended ones go, with no page load."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .browsertools import site, updated
from .servertools import PLAYS_ON, SLOW_BOT


def test_the_now_playing_list_follows_the_ladder_without_a_reload(tmp_path: Path, browser: Any) -> None:
    # (PLAYS_ON: the list changes only while the ladder plays; with the defaults the pair may settle first)
    with site(tmp_path, browser, house=(str(SLOW_BOT), "random-python"), ladder=PLAYS_ON) as s:
        page = s.page()
        page.goto(s.server.url + "/live")
        loads: list[str] = []
        page.on("load", lambda: loads.append(page.url))
        keys = lambda: tuple(page.locator("#live-list a").all_inner_texts())  # noqa: E731
        first = keys()
        deadline = time.monotonic() + 120
        seen, updates = {first}, 0
        while len(seen) < 3:  # the list changed twice: a match came or went, then another
            updates = updated(page, "#live-list", updates, timeout=deadline - time.monotonic())
            seen.add(keys())
        assert loads == []
        assert int(page.locator("#live-list").get_attribute("data-updates") or 0) >= 2
        assert page.errors == []
