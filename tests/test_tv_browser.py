"""The TV (/tv) and a match's public live page, in Chromium against a real ``arena serve``.

The TV's tables move while a match is played, with no page load; neither the
page's text nor its JSON holds a seed or a card (RPS Poker's cards, such as
``R3``, are all dealt in secret); the public live page shows the score and the
step as they grow; axe finds nothing; at 390 px nothing widens the page, even
with hostile names (HTML in a 60-character name stays text, cut with an
ellipsis).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browsertools import SIZES, axe_violations, sideways, site, updated
from .conftest import CHROMIUM, CHROMIUM_FLAGS, launched_chromium
from .servertools import PLAYS_ON, SLOW_BOT, server_process

CARD = re.compile(r"\b[RPS]\d{1,2}\b")
"""An RPS Poker card as the messages write it (``R3``, ``S12``)."""


def _steps(page: Any) -> tuple[str, ...]:
    return tuple(page.locator("#tv .tv-step").all_inner_texts())


@pytest.fixture
def own_chromium() -> Iterator[Any]:
    """A chromium of this test's own, not conftest's module-wide one: the plugin test below starts Playwright
    itself, which refuses to start while another sync Playwright of the module is open."""
    with launched_chromium() as launched:
        yield launched


def test_the_tv_follows_matches_in_play_and_shows_nothing_hidden(tmp_path: Path, own_chromium: Any) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    # (PLAYS_ON: the TV moves only while the ladder plays; with the defaults its pairs may settle first)
    with site(tmp_path, own_chromium, house=(str(SLOW_BOT), "random-python", "simple-py"), ladder=PLAYS_ON) as s:
        page = s.page()
        page.goto(s.server.url + "/tv")
        assert page.locator("header nav a[href='/tv']").count() == 1
        loads: list[str] = []
        page.on("load", lambda: loads.append(page.url))
        organiser = s.page(login=s.organiser)
        seeds: set[str] = set()
        texts: list[str] = []
        seen: set[tuple[str, ...]] = set()
        key = ""
        deadline = time.monotonic() + 180
        updates = 0
        while len(seen) < 4 or not seeds:  # the tables moved three times, and a seed of a match shown is known
            assert time.monotonic() < deadline, f"the TV never moved: {seen}"
            updates = updated(page, "#tv", updates, timeout=deadline - time.monotonic())  # (each time it draws)
            steps = _steps(page)
            if any(step.startswith("step ") for step in steps):
                seen.add(steps)
            texts.append(page.inner_text("body"))
            shots = os.environ.get("ARENA_SCREENSHOTS")
            if shots and page.locator("#tv .tv-points:not(.tv-none)").count() >= 2:  # (the docs' picture)
                page.screenshot(path=str(Path(shots) / "tv.png"), full_page=True)
            data = page.request.get(s.server.url + "/tv/data").json()
            texts.append(json.dumps(data))
            for match in data["matches"]:
                key = key or match["key"]
                whole = organiser.request.get(f"{s.server.url}/matches/{match['key']}/live/data")
                if whole.ok:  # (the organiser sees the seed and every card: what the TV must not show)
                    seeds.add(str(whole.json()["seed"]))
                    assert CARD.search(json.dumps(whole.json())), "the organiser's view holds the cards"
        assert loads == []
        assert int(page.locator("#tv").get_attribute("data-updates") or 0) >= 3
        assert page.locator("#tv-featured .tv-why").count() <= 1
        for text in texts:
            assert not CARD.search(text), CARD.search(text)
            assert not any(seed in text for seed in seeds)
        assert page.locator("#tv .tv-points").count() >= 1
        assert axe_violations(page) == []
        assert page.errors == []

        # A match's public live page: nothing of the table, but the score and the step, growing in place.
        public = s.page()
        # (a match the TV shows may end before its live page loads, which then goes on to the match's page: take
        # the TV's first match again until one is drawn with its score while in play, read in one step of the page)
        # (and with a step played: a match's first moment reads 'no score yet' and 'starting', no step: ci69)
        drawn = """() => !location.pathname.endsWith('/live') ? 'gone'
            : document.querySelector('#tv .tv-points:not(.tv-none)') !== null
            && /step \\d+/.test(document.getElementById('tv').innerText)
            && [document.querySelectorAll('#live-hidden').length, document.getElementById('tv').innerText]"""
        deadline = time.monotonic() + 120
        shown: Any = "gone"
        while shown == "gone":
            assert time.monotonic() < deadline, f"no match stayed in play while its live page opened: {public.url}"
            key = page.locator("#tv .tv-board").first.get_attribute("data-key") or key
            public.goto(f"{s.server.url}/matches/{key}/live")
            with contextlib.suppress(sync_api.Error):  # (the match ended as the page loaded: it went on)
                shown = public.wait_for_function(drawn, timeout=30_000).json_value()
        hidden, first = shown
        assert hidden == 1
        public_loads: list[str] = []
        public.on("load", lambda: public_loads.append(public.url))
        assert re.search(r"step \d+", first)
        moved = "(first) => !location.pathname.endsWith('/live') || document.getElementById('tv').innerText !== first"
        try:
            public.wait_for_function(moved, arg=first, timeout=60_000)
        except sync_api.TimeoutError:
            raise AssertionError("the public live page never moved") from None
        except sync_api.Error:  # the match ended: the page went on to the match's page while it was looked at
            public.wait_for_load_state()
        if public.url.endswith("/live"):  # (else the match ended meanwhile, and the page became the match's)
            assert public_loads == []
            try:
                # (the address and the text in one step of the page: the match may end between two steps, and its
                # own page, which shows every card once it ended, come in)
                where, text = public.evaluate("() => [location.pathname, document.body.innerText]")
                if where.endswith("/live"):
                    assert not CARD.search(text) and not any(seed in text for seed in seeds)
                assert axe_violations(public) == []
            except sync_api.Error:  # the match ended while they ran: the page goes on to the match's, as it must
                # (the error comes as the navigation starts; the page's address changes when it commits)
                public.wait_for_url(lambda url: not url.endswith("/live"), timeout=30_000)
            if os.environ.get("ARENA_SCREENSHOTS"):
                public.screenshot(path=str(Path(os.environ["ARENA_SCREENSHOTS"]) / "tv-live.png"), full_page=True)

        # Hostile names at 390 px: text, not HTML; cut with an ellipsis; nothing widens the page.
        phone = s.browser.new_context(viewport=SIZES["phone"]).new_page()
        long = "<img src=x onerror=alert(1)>" + "W" * 60
        fake = {
            "featured": "k1",
            "why": long + "'s first matches",
            "matches": [
                {
                    "key": f"k{i}",
                    "url": f"/matches/k{i}/live",
                    "a": long,
                    "b": "B" * 64,
                    "seconds": 3,
                    "step": 7,
                    "score": [2, 1.5],
                    "turn": ["A"],
                    "table": {"public": [["pot", "12"], ["board", ["Kh", "W" * 40]]], "seats": [[["won", 3]], []]},
                }
                for i in (1, 2)
            ],
        }
        phone.route("**/tv/data", lambda route: route.fulfill(json=fake))
        phone.goto(s.server.url + "/tv")
        phone.locator("#tv-featured .tv-board").wait_for()
        assert phone.locator("#tv img").count() == 0
        assert long in phone.inner_text("#tv")
        name = phone.locator("#tv-featured .tv-name").first
        assert name.get_attribute("title") == long
        assert name.evaluate("e => e.scrollWidth > e.clientWidth")  # cut (ellipsis), whole in its title
        assert sideways(phone) == 0
        assert axe_violations(phone) == []
        if os.environ.get("ARENA_SCREENSHOTS"):
            phone.screenshot(path=str(Path(os.environ["ARENA_SCREENSHOTS"]) / "tv-phone.png"), full_page=True)


SLOW_HIGH_CARD = """import json
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg:
        time.sleep(0.5)
        print(json.dumps({"id": msg["id"], "action": min(msg["hand"])}), flush=True)
    elif msg.get("type") == "quit":
        break
"""


def test_the_tv_draws_a_plugin_game_s_public_table_and_no_hand(tmp_path: Path) -> None:
    """High Card declares its table (``shown``): the pile and each seat's points are public, each hand private."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    example = Path(__file__).resolve().parents[1] / "examples" / "high-card"
    (tmp_path / "game").mkdir()
    shutil.copy(example / "high_card.py", tmp_path / "game" / "high_card.py")
    for name in ("slow-one", "slow-two"):
        bot = tmp_path / name
        bot.mkdir()
        (bot / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\ngame = "high-card"\nreuse = true\n')
        (bot / "bot.py").write_text(SLOW_HIGH_CARD)
    config = tmp_path / "server.toml"
    config.write_text(
        f'name = "High card"\ngame = "high-card"\ngame_module = "game/high_card.py"\n'
        f'house_bots = ["{tmp_path / "slow-one"}", "{tmp_path / "slow-two"}"]\n[uploads]\ncheck_matches = 2\n'
        # (the one pair never settles or spends its budget: with the defaults the ladder may go idle, rightly,
        # after a dozen pairs, before the TV has drawn a card on a loaded machine)
        "[ladder]\nplacement_pairs = 100000\npair_budget = 100000\n"
        f'[server]\ndata_dir = "{tmp_path / "data"}"\nport = 0\n'
    )
    with server_process(config) as server, sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport=SIZES["phone"]).new_page()
            page.goto(server.url + "/tv")
            labels: set[str] = set()
            cards: set[str] = set()
            deadline = time.monotonic() + 120
            data: dict[str, Any] = {}
            updates = 0
            while not cards:
                assert time.monotonic() < deadline, f"the TV never drew a card (last /tv/data: {data})"
                try:  # (each time it draws)
                    updates = updated(page, "#tv", updates, timeout=deadline - time.monotonic())
                except AssertionError as error:
                    raise AssertionError(f"the TV never drew a card (last /tv/data: {data})") from error
                data = page.request.get(server.url + "/tv/data").json()
                for match in data["matches"]:
                    table = match["table"] or {"public": [], "seats": []}
                    for label, _value in [*table["public"], *(item for seat in table["seats"] for item in seat)]:
                        labels.add(label)
                cards |= set(page.locator("#tv .tv-card").all_inner_texts())
            assert labels <= {"turns played", "pile", "points", "cards held"}, labels  # never a "hand"
            if os.environ.get("ARENA_SCREENSHOTS"):
                page.screenshot(path=str(Path(os.environ["ARENA_SCREENSHOTS"]) / "tv-cards-phone.png"), full_page=True)
            assert sideways(page) == 0
            assert axe_violations(page) == []
        finally:
            browser.close()
