"""Every page of the competition server at desktop (1280x800) and phone (390x844) sizes, in a real browser.

Against a real ``arena serve``: no page scrolls sideways on a phone, axe-core
finds no accessibility violation, the leaderboard updates in place (focus
kept, rank changes shown, the ladder's state in words), the match page fits
its replay and keeps the step in its address, the bot page's chart has axes
and its match list filters and pages, the organiser confirms freezing. With
``ARENA_SCREENSHOTS=DIR`` every page is saved there at both sizes (the docs'
pictures are made so: ``NAME.png`` and ``NAME-phone.png``).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from arena.server.bots import BOT_PAGE_MATCHES

from .browsertools import (
    HOUSE,
    SIZES,
    axe_violations,
    frame_fits,
    picture,
    played_out,
    settled,
    sideways,
    site,
    wait_matches,
    wait_move_taken,
)
from .servertools import HTTP, PLAYS_ON, SLOW_BOT, in_play, minimal_bot, running, write_config

pytestmark = pytest.mark.slow

ONE_AT_A_TIME = f"jobs = 1\nworkers = {int(os.environ.get('ARENA_TEST_SERVER_WORKERS', '1'))}"
"""A ladder that plays one match at a time, in its match worker (unless ``ARENA_TEST_SERVER_WORKERS=0``,
:func:`~servertools.write_config`); the default plays a match per CPU."""


def look(page: Any, name: str, size: str) -> list[str]:
    """What is wrong with ``page`` as shown now (sideways scroll, axe's violations); pictured as ``NAME[-phone].png``
    (:func:`~browsertools.picture`: with ``ARENA_SCREENSHOTS``)."""
    problems = [f"{name} at {size}: scrolls {over} px sideways"] if (over := sideways(page)) else []
    problems += [f"{name} at {size}: {v}" for v in axe_violations(page)]
    if os.environ.get("ARENA_SCREENSHOTS"):
        # Pictured in a window as tall as the page: a full-page picture taken in a shorter one leaves a framed
        # replay blank below a certain height (Chromium paints a sandboxed frame for the window it was laid out in).
        height = int(page.evaluate("document.documentElement.scrollHeight"))
        page.set_viewport_size({**SIZES[size], "height": max(height, SIZES[size]["height"])})
        settled(page)
        picture(page, f"{name}{'' if size == 'desktop' else '-phone'}.png")
        page.set_viewport_size(SIZES[size])
    return problems


def test_every_page_fits_a_phone_and_axe_finds_no_violation(tmp_path: Path, browser: Any) -> None:
    bot = tmp_path / "alice-bot.tar.gz"
    bot.write_bytes(minimal_bot())
    # (PLAYS_ON: three bots' pairs may settle before 30 matches. One match at a time, in the match worker: the pages
    # are seen while the ladder plays, as with two, and the ladder does not play on at full speed for a minute.)
    with site(tmp_path, browser, ladder=PLAYS_ON, extra=ONE_AT_A_TIME) as s:
        url = s.server.url
        alice = s.page(login=s.alice)
        alice.set_input_files("input[name=file]", str(bot))
        alice.click("#upload")
        alice.wait_for_url(f"{url}/submissions/*")
        submission = alice.url.removeprefix(url)
        alice.wait_for_selector("#status.passed, #status.failed, #status.refused", timeout=480_000)
        match = played_out(wait_matches(url, 30))
        house = HOUSE[0]
        pages = {  # name: (address, who)
            "leaderboard": ("/", ""),
            "bot": (f"/bots/{house}", ""),
            "bot-own": ("/bots/alice", s.alice),
            "me": ("/me", s.alice),
            "submission": (submission, s.alice),
            "files": ("/bots/alice/v1/files", s.alice),
            "match": (f"/matches/{match}", ""),
            "login": ("/login", ""),
            "error": ("/bots/nobody", ""),
            "admin": ("/admin", s.organiser),
        }
        problems: list[str] = []
        logged: dict[str, Any] = {}  # (a login link logs in once: one page per login, resized)
        for size in SIZES:
            for name, (address, who) in pages.items():
                if who not in logged:
                    logged[who] = alice if who == s.alice else s.page(size, login=who)
                page = logged[who]
                page.set_viewport_size(SIZES[size])
                page.goto(url + address)  # (each page is whole once loaded: none fetches more, but the match's frame)
                if name == "match":
                    page.frame_locator("iframe.replay").locator("body[data-ready='1']").wait_for()
                    frame_fits(page, "iframe.replay")
                problems += look(page, name, size)
        for page in logged.values():
            assert page.errors == [], page.errors
    assert problems == [], "\n".join(problems)


def look_in_play(page: Any, url: str, name: str, size: str) -> list[str]:
    """:func:`look` at a page of a match in play: one that has just begun (a page seen after its match ended is
    seen again, on the next match: the live page becomes the match's page at the end)."""
    from playwright.sync_api import Error

    for _ in range(5):
        key = in_play(url, "slow-python", "random-python")
        address = {"now-playing": "/live", "tv": "/tv"}.get(name, f"/matches/{key}/live")
        try:
            page.goto(url + address)
            page.wait_for_load_state("load")
            if name in ("tv", "live-public"):  # the small live tables (tv.js), drawn once the page's data comes
                page.locator("#tv .tv-step").first.wait_for()
            if name == "live":  # the organiser's: the whole table so far, shown once a message has been played
                page.wait_for_function("() => Number(document.getElementById('live-match').dataset.shown) > 0")
                page.frame_locator("#live-frames iframe:not([hidden])").locator("body[data-ready='1']").wait_for()
                page.wait_for_function(  # the frame takes its table's height (a fixed one cuts it on a phone)
                    "() => Math.abs(document.querySelector('#live-frames iframe:not([hidden])')"
                    ".getBoundingClientRect().height - 640) > 8",
                    timeout=5_000,  # (told as the frame loads: within a match's time, so that a failure says this)
                )
                hidden = "(() => { const f = document.createElement('iframe'); f.className = 'replay'; f.hidden = true;"
                hidden += " document.body.append(f); const shown = f.offsetHeight; f.remove(); return shown; })()"
                assert page.evaluate(hidden) == 0, "a live page's next frame shows (blank) while it loads"
                frame_fits(page, "#live-frames iframe:not([hidden])")  # (as on the match page)
            problems = look(page, name, size)
        except Error as error:
            # The match ended while the page was looked at: the live page went to the match's page. A step of the
            # look in the page when it went fails with "Execution context was destroyed" while page.url may still
            # be the live page's (the new one not yet committed: idle run ci27), so wait for where it goes.
            with contextlib.suppress(Error):
                page.wait_for_load_state("load", timeout=10_000)
            if page.url == url + address and "Execution context was destroyed" not in str(error):
                raise
            continue
        if page.url == url + address and key in page.content():
            return problems
    raise AssertionError(f"{name} at {size}: no match stayed in play while its page was looked at")


def goto_after_live(page: Any, address: str) -> None:
    """``page.goto(address)`` from a page that may have been a live match's: one whose match ends as it is left
    goes to the match's page by itself, and that navigation can abort ours (net::ERR_ABORTED, or "interrupted by
    another navigation"): go again."""
    from playwright.sync_api import Error

    for attempt in range(3):
        try:
            page.goto(address)
            return
        except Error as error:
            if not ("ERR_ABORTED" in str(error) or "interrupted by another navigation" in str(error)) or attempt == 2:
                raise


def test_every_page_in_play_fits_a_phone_and_axe_finds_no_violation(tmp_path: Path, browser: Any) -> None:
    """The pages of matches in play (now playing, a live match) and of a person playing a bot, as the first test."""
    # (PLAYS_ON: the pair's matches are looked at in play until the end; with the defaults it may settle before)
    with site(tmp_path, browser, house=(str(SLOW_BOT), "random-python"), ladder=PLAYS_ON) as s:
        url = s.server.url
        organiser = s.allow_play("random-python")
        alice = s.play("random-python")
        for _ in range(6):  # the draft's 5 picks and a turn: the table has a turn played in it
            alice.wait_for_selector("#move-buttons button:enabled")
            asks = alice.locator("#play").get_attribute("data-asks")
            alice.locator("#move-buttons button:enabled").first.click()
            wait_move_taken(alice, asks)
        alice.wait_for_selector("#move-buttons button:enabled")
        game = alice.url.removeprefix(url)
        public = s.page()
        problems: list[str] = []
        for size in SIZES:
            for name, page in (("now-playing", public), ("tv", public), ("live", organiser), ("live-public", public)):
                page.set_viewport_size(SIZES[size])
                problems += look_in_play(page, url, name, size)
            for name, page, address in (("play-bot", organiser, "/bots/random-python/play"), ("play", alice, game)):
                page.set_viewport_size(SIZES[size])
                goto_after_live(page, url + address)  # (play-bot: whole once loaded)
                if name == "play":
                    page.wait_for_selector("#move-buttons button:enabled")
                    page.frame_locator("#play-table").locator("#seat-A .card.playable").first.wait_for()
                    frame_fits(page, "#play-table")
                problems += look(page, name, size)
        for page in (organiser, alice, public):
            assert page.errors == [], page.errors
    assert problems == [], "\n".join(problems)


def test_the_leaderboard_updates_in_place_keeping_focus_and_says_what_the_ladder_does(
    tmp_path: Path, browser: Any
) -> None:
    # Two bots that always draw never settle their pair, and its budget is large: the ladder plays on, so the
    # standings are still updated when the page looks (quick bots settle an ordinary ladder in seconds).
    ladder = "placement_pairs = 1\npair_budget = 100000"
    with site(tmp_path, browser, ladder=ladder, house=("minimal-python", "minimal-valid-py", "random-python")) as s:
        page = s.page()
        page.goto(s.server.url + "/")
        assert page.locator("#live").count() == 0, "the permanent 'live' badge is back"
        state = page.locator("#ladder-state")
        page.wait_for_function("() => Number(document.body.dataset.liveEvents || 0) >= 1", timeout=60_000)
        assert re.fullmatch(r"\d+ match(es)? in play|idle: every pair is settled", state.inner_text()), (
            state.inner_text()
        )
        assert page.locator("#last-update").inner_text() not in ("", "-")
        # Focus a link in the table (as a keyboard user tabbing through it would), then let the standings change.
        # Rank changes are shown, in words too: the next update finds the page's two first rows swapped, and
        # ranked where no order of the ladder's can leave them (the first below the last, the second above the
        # first: the update's own results may swap the two back, as they did here 2 runs in 6). (One update for
        # both checks: with three bots the ladder may settle every pair soon, and then sends no more.) The focus,
        # the swap, the marks' watch and the line the update changes are all taken in one step of the page: an
        # update between two steps of the test (a loaded machine's) met the swap, and the next one, without a
        # rank changed, took the marks away (ci42); or it moved the focused row second, and the test's own swap
        # then moved that row and blurred its link (ci48 and the official CI on 8cf15d0: the focusout's stack was
        # the swap's insertBefore).
        played = page.evaluate(
            """() => {
                const rows = [...document.querySelectorAll('#board tbody tr[data-bot]')];
                rows[0].querySelector('a.name').focus();
                window.before = {board: document.getElementById('board'), focused: document.activeElement};
                window.swapped = [rows[0].dataset.bot, rows[1].dataset.bot];
                rows[0].dataset.rank = String(rows.length + 1); rows[1].dataset.rank = '0';
                rows[1].parentNode.insertBefore(rows[1], rows[0]);
                // The focused link's cell loses a line in the update (as a bot's does when its disqualification
                // is lifted): the cell changes, its link stays.
                const line = document.createElement('div');
                line.className = 'reason';
                line.textContent = 'a line the update takes away';
                rows[0].querySelector('td.bot').appendChild(line);
                window.moves = [];
                new MutationObserver(() => {
                    document.querySelectorAll('#board .move').forEach((m) => window.moves.push(m.textContent));
                }).observe(document.getElementById('board'), {childList: true, subtree: true});
                return document.querySelector('#board-meta').innerText;
            }"""
        )
        page.wait_for_function(
            "() => document.querySelector('#board-meta').innerText !== " + json.dumps(played), timeout=120_000
        )  # (live.js patches the whole table in the one handler that changes this line: the update is done)
        assert page.evaluate("window.before.focused.matches('#board a.name')"), "no link in the table was focused"
        assert page.evaluate("document.getElementById('board') === window.before.board"), "the table was replaced"
        assert page.evaluate("document.activeElement === window.before.focused"), "keyboard focus was lost"
        assert page.evaluate("document.activeElement.closest('#board') !== null")
        assert "a line the update takes away" not in page.locator("#board").inner_text()
        assert page.errors == []
        moved = page.evaluate("window.moves")
        # (the ladder's own results may move the ranks in the same update: by how much is theirs)
        shown = (moved, page.evaluate("window.swapped"), page.locator("#board tbody").inner_text())
        assert any(re.search(r"up \d+ since", t) for t in moved), shown
        assert any(re.search(r"down \d+ since", t) for t in moved), shown


def test_the_status_says_idle_once_every_pair_is_settled(tmp_path: Path, browser: Any) -> None:
    with site(tmp_path, browser, ladder="placement_pairs = 1\npair_budget = 1") as s:
        wait_matches(s.server.url, 6)  # 3 bots, 3 pairs of 2 legs: then the ladder has nothing left to play
        page = s.page()
        page.goto(s.server.url + "/")
        idle = "() => document.getElementById('ladder-state').innerText.startsWith('idle')"
        page.wait_for_function(idle, timeout=60_000)
        assert page.locator("#ladder-state").inner_text() == "idle: every pair is settled"


def test_the_match_page_fits_its_replay_keeps_the_step_and_offers_the_log(tmp_path: Path, browser: Any) -> None:
    with site(tmp_path, browser) as s:
        key = played_out(wait_matches(s.server.url, 6))
        for size in SIZES:
            page = s.page(size)
            page.goto(f"{s.server.url}/matches/{key}#step=3")
            frame = page.frame_locator("#replay-frame")
            frame.locator("body[data-ready='1']").wait_for()
            inner = page.frames[1]
            assert inner.url.endswith("/replay#step=3"), inner.url
            page.wait_for_function(
                "() => Math.abs(document.getElementById('replay-frame').getBoundingClientRect().height - 640) > 8"
            )
            content = inner.evaluate("Math.max(document.body.scrollHeight, document.body.offsetHeight)")
            box = page.locator("#replay-frame").bounding_box()
            assert box is not None and abs(box["height"] - content) <= 8, (box, content)
            # One id for the match, one name per bot: the replay shows the page's.
            assert f"match {key}" in frame.locator("header.top").inner_text()
            names = page.locator(".stats a").all_inner_texts()
            assert all(name in frame.locator("body").inner_text() for name in names), names
            with page.expect_download() as download:
                page.eval_on_selector("#log-link", "a => a.click()")  # (not by position: the frame may still grow)
            path = download.value.path()
            lines = Path(path).read_bytes().splitlines()
            assert json.loads(lines[0]).get("format") is not None
            page.context.close()
        # The log served is the recorded one, byte for byte (no bot's stderr: the public sees none).
        data_dir = tmp_path / "data"
        logged = next(data_dir.rglob(f"{key}.jsonl.gz"))
        raw = [line for line in gzip.decompress(logged.read_bytes()).splitlines(keepends=True)]
        public = [line for line in raw if json.loads(line).get("type") != "stderr"]
        served = HTTP.get(f"{s.server.url}/matches/{key}/log", timeout=30)
        assert served.status_code == 200 and served.content == b"".join(public)


def test_the_bot_page_charts_filters_and_pages_its_matches(tmp_path: Path, browser: Any) -> None:
    # Two bots that always draw never settle their pair, and PLAYS_ON spends no budget: the ladder plays on (80
    # matches, and the chart's points as the standings are drawn), and the third one wins and loses.
    house = ("minimal-python", "minimal-valid-py", "random-python")
    with site(tmp_path, browser, house=house, ladder=PLAYS_ON) as s:
        wait_matches(s.server.url, 80)
        bot = "minimal-python"
        # The chart's points are taken as the standings are drawn (about once a second): wait for two.
        deadline = time.monotonic() + 120
        while len(HTTP.get(f"{s.server.url}/api/bots/{bot}", timeout=30).json()["rating_history"]) < 2:
            assert time.monotonic() < deadline, "the rating chart has fewer than two points"
            time.sleep(0.5)
        page = s.page("phone")
        page.goto(f"{s.server.url}/bots/{bot}")
        chart = page.locator("#rating-chart")
        assert "Rating of version" in (chart.locator("title").text_content() or "")
        ticks = chart.locator("text").all_text_contents()
        assert any(re.fullmatch(r"[+\u2212]?\d+", t) for t in ticks), ticks  # the rating axis
        assert any(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", t) for t in ticks), ticks  # dates under the matches
        assert page.locator("table.matches time").count() > 0, "the match list is not dated"
        versions = page.locator("#versions tbody tr td.num").all_inner_texts()
        assert re.fullmatch(r"\d+-\d+-\d+", versions[0]), versions
        # Coloured by result (and said in words), and filterable.
        classes = page.eval_on_selector_all("table.matches tbody tr", "rs => rs.map(r => r.className)")
        assert set(classes) <= {"won", "drew", "lost"} and "drew" in classes, classes
        page.select_option("select[name=result]", "drew")
        page.click("#match-filter button")
        page.wait_for_load_state()
        assert "result=drew" in page.url
        rows = page.locator("table.matches tbody tr")
        assert rows.count() > 0
        assert set(page.eval_on_selector_all("table.matches tbody tr", "rs => rs.map(r => r.className)")) == {"drew"}
        assert all(t.endswith("drew") for t in page.locator("table.matches td.result").all_inner_texts())
        colour = page.eval_on_selector("table.matches tbody tr", "r => getComputedStyle(r).boxShadow")
        assert "rgb(93, 103, 120)" in colour, colour
        # Paged: BOT_PAGE_MATCHES a page, "Older matches" (keyset: before the last one shown), "Newest" to come back.
        page.goto(f"{s.server.url}/bots/{bot}")
        assert page.locator("table.matches tbody tr").count() == BOT_PAGE_MATCHES
        first = page.locator("table.matches tbody tr a").first.inner_text()
        page.click("a[rel=next]")
        page.wait_for_load_state()
        assert "before=" in page.url
        assert page.locator("table.matches tbody tr a").first.inner_text() != first
        page.click("a[rel=prev]")
        page.wait_for_load_state()
        assert "before=" not in page.url
        assert sideways(page) == 0


def test_the_organiser_confirms_a_freeze_and_sees_whose_submission_each_is(tmp_path: Path, browser: Any) -> None:
    bot = tmp_path / "alice-bot.tar.gz"
    bot.write_bytes(minimal_bot())
    with site(tmp_path, browser) as s:
        alice = s.page(login=s.alice)
        alice.set_input_files("input[name=file]", str(bot))
        alice.click("#upload")
        alice.wait_for_url(f"{s.server.url}/submissions/*")
        admin = s.page(login=s.organiser)
        admin.goto(s.server.url + "/admin")
        assert "alice" in admin.locator("table.subs tbody tr").first.inner_text()
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", admin.locator("#participants").inner_text())
        asked: list[str] = []
        admin.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        admin.click("#freeze")  # (a click returns once the dialog it opened is handled)
        assert asked and "Freeze" in asked[0]
        assert not HTTP.get(s.server.url + "/api/standings", timeout=30).json()["frozen"]
        admin.once("dialog", lambda d: d.accept())
        admin.click("#freeze")
        admin.wait_for_selector("text=The competition is frozen")
        assert HTTP.get(s.server.url + "/api/standings", timeout=30).json()["frozen"]
        # The favicon is served.
        icon = admin.eval_on_selector("link[rel=icon]", "l => l.href")
        got = HTTP.get(icon, timeout=30)
        assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")


@pytest.mark.parametrize("rule", ["public", "owners", "after-end"])
async def test_the_match_log_is_downloaded_by_who_sees_the_whole_replay(tmp_path: Path, rule: str) -> None:
    async with running(write_config(tmp_path, access=f'replays = "{rule}"')) as kit:
        owner = kit.participant("minimal-python")  # the house bot's owner, given a token for this test
        key = await kit.played_out("minimal-python")
        anonymous = await kit.client.get(f"/matches/{key}/log")
        assert anonymous.status_code == (200 if rule == "public" else 403)
        await kit.login(owner)
        mine = await kit.client.get(f"/matches/{key}/log")
        page = (await kit.client.get(f"/matches/{key}")).text
        # With after-end, until the end an owner sees its own seat only: not the log, which holds both.
        assert mine.status_code == (403 if rule == "after-end" else 200)
        assert ('id="log-link"' in page) == (mine.status_code == 200)
        if mine.status_code == 200:
            records = [json.loads(line) for line in mine.content.splitlines()]
            match = kit.competition.catalogue.match(key)
            assert match is not None
            own = "A" if match.bot_a == "minimal-python" else "B"
            assert all(r["seat"] == own for r in records if r.get("type") == "stderr")
            assert any(r.get("type") == "result" for r in records)


async def test_a_ladder_of_one_bot_says_it_waits_for_a_second_not_that_every_pair_is_settled(tmp_path: Path) -> None:
    async with running(write_config(tmp_path, house=("minimal-python",))) as kit:
        page = (await kit.client.get("/")).text
        assert "idle: waiting for a second bot" in page and "every pair is settled" not in page
