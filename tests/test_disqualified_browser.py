"""A disqualified bot, in Chromium against a real ``arena serve``: disqualified by its faults, it is said to be so
in the leaderboard's words on its bot page's versions and the organiser's page (both said "v1 playing"), and on
a phone the organiser's actions are in view (they were a fifth column, off the screen)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .browsertools import axe_violations, sideways, site
from .servertools import PLAYS_ON
from .test_match_frame_browser import faulty_bot

pytestmark = pytest.mark.slow


def test_a_bot_disqualified_by_its_faults_says_so_everywhere_and_the_organiser_reaches_every_action(
    tmp_path: Path,
    browser: Any,
) -> None:
    bot = faulty_bot(tmp_path)
    # (PLAYS_ON: more than 10 faults take 11 of its matches; with the defaults its pairs may settle first)
    with site(tmp_path, browser, house=("random-python", "simple-py", str(bot)), ladder=PLAYS_ON) as s:
        board = s.page()
        board.goto(s.server.url + "/")
        row = board.locator("#board tr.disqualified[data-bot='faulty-py']")
        row.wait_for(timeout=240_000)  # (more than 10 faults: the leaderboard updates itself)
        reason = row.locator(".reason").inner_text()
        assert reason.startswith("disqualified"), reason
        # (Its count may grow while a match under way when it was disqualified ends: the words are what is shared.)
        said = re.compile(r"disqualified: \d+ faults, more than the 10 allowed")
        assert said.search(reason), reason
        bot_page = s.page("phone")
        bot_page.goto(s.server.url + "/bots/faulty-py")
        versions = bot_page.locator("#versions tbody").inner_text()
        assert said.search(versions) and "playing" not in versions, versions
        admin = s.page("phone", s.organiser)
        admin.goto(s.server.url + "/admin")
        participants = admin.locator("#participants")
        line = participants.locator("tr", has_text="faulty-py").inner_text()
        assert said.search(line) and "playing" not in line, line
        # Every action of the organiser's is on the screen, without scrolling sideways.
        assert sideways(admin) == 0
        for button in admin.locator("#participants button").all():
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (button.inner_text(), box)
        assert axe_violations(admin) == []
        for page in (board, bot_page, admin):
            assert page.errors == []
