"""Helpers of the tests that drive a browser (Playwright on the system chromium): a served competition with a
browser and login links (:func:`site`), a replay page opened from a file (:func:`open_page`), axe-core's
violations, sideways scrolling, waiting for the ladder's matches, and the live leaderboard's script against a
scripted event stream (:func:`live_page`). The ``browser`` fixture is conftest's (one chromium a module)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bots.spec import resolve
from arena.cli import main
from arena.games import get_game
from arena.server.web import STATIC
from arena.supervisor.play import play_match
from protocol import Limits

from .conftest import SAMPLE_BOTS
from .servertools import HTTP, ServerProcess, server_process, write_config

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
HOUSE = ("random-python", "simple-py", "obvious-strats-py")

SCRIPTED = "http://arena.test"
"""The origin of a :func:`live_page`: no server behind it, the page answers each request itself."""


def live_page(
    browser: Any,
    board: str,
    events: list[tuple[str, dict[str, object]]],
    *,
    styled: bool = False,
    init_script: str = "",
) -> tuple[Any, list[str]]:
    """The leaderboard's live part (``board``, the status line, the server's ``live.js``) opened in ``browser``, its
    event stream the scripted ``events`` (kind, data) and then its end; with the list its script errors go to.

    ``styled``: with the server's stylesheet. ``init_script``: run before the page's own scripts.
    """
    stylesheet = '<link rel="stylesheet" href="/style.css">' if styled else ""
    page_html = (
        f'<!doctype html><html><head><meta charset="utf-8">{stylesheet}</head><body><main>'
        f'<span id="ladder-state"></span><span id="last-update"></span><div id="live-board">{board}</div></main>'
        '<script src="/live.js"></script></body></html>'
    )
    stream = "retry: 600000\n" + "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in events)
    routes = {
        "/": ("text/html", page_html),
        "/live.js": ("text/javascript", (STATIC / "live.js").read_text()),
        "/style.css": ("text/css", (STATIC / "style.css").read_text()),
        "/events": ("text/event-stream", stream),
    }

    def serve(route: Any) -> None:
        kind, body = routes[route.request.url.removeprefix(SCRIPTED)]
        route.fulfill(status=200, content_type=kind, body=body)

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route(f"{SCRIPTED}/**", serve)
    if init_script:
        page.add_init_script(init_script)
    page.goto(f"{SCRIPTED}/")
    return page, errors


@dataclass
class Site:
    """A served competition, a browser, and the login links of a participant (alice) and the organiser."""

    server: ServerProcess
    browser: Any
    alice: str
    organiser: str

    def page(self, size: str = "desktop", login: str = "", *, viewport: dict[str, int] | None = None) -> Any:
        """A new page (in its own context: its own cookies) at ``size`` (or ``viewport``), logged in with link
        ``login`` if given; its script errors gather in ``page.errors``."""
        context = self.browser.new_context(viewport=viewport or SIZES[size])
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        if login:
            page.goto(f"{self.server.url}/login/{login}")
            page.click("#login")
            page.wait_for_url(lambda address: "/login/" not in address)
        return page

    def allow_play(self, bot: str) -> Any:
        """The organiser's page, once it has allowed people to play the house bot ``bot``."""
        organiser = self.page(login=self.organiser)
        organiser.goto(f"{self.server.url}/bots/{bot}/play")
        organiser.click("#allow")
        organiser.wait_for_selector("text=Stop allowing games against it")
        return organiser

    def play(self, bot: str, seat: str = "a", *, viewport: dict[str, int] | None = None) -> Any:
        """Alice's page at a new game against ``bot`` (allowed), in seat ``seat`` (``a`` or ``b``)."""
        alice = self.page(login=self.alice, viewport=viewport)
        alice.goto(f"{self.server.url}/bots/{bot}/play")
        alice.click(f"#play-{seat}")
        alice.wait_for_url(re.compile(r".*/play/[^/]+$"))
        return alice


def play_out(
    page: Any, move: Callable[[Any], None], *, ready: str = "#move-buttons button:enabled", timeout: float = 60_000
) -> int:
    """Play ``page``'s game to its end: at each request (``ready`` shows), ``move(page)``, then wait until the move
    is taken. The number of moves made."""
    moves = 0
    while True:
        page.wait_for_selector(f"{ready}, #game-over", timeout=timeout)
        if page.locator("#game-over").count():
            return moves
        asks = page.locator("#play").get_attribute("data-asks")
        move(page)
        wait_move_taken(page, asks, timeout)
        moves += 1


def wait_move_taken(page: Any, asks: str | None, timeout: float = 60_000) -> None:
    """Until the move just made at ``page``'s game (which asked ``asks``, its ``data-asks``) is taken: the next
    request (another count), or the bot's turn, or the end."""
    page.wait_for_function(
        "(asks) => { const p = document.getElementById('play');"
        " return document.getElementById('game-over') || !p.dataset.waiting || p.dataset.asks !== asks; }",
        arg=asks,
        timeout=timeout,
    )


@contextlib.contextmanager
def site(
    tmp_path: Path,
    browser: Any,
    *,
    ladder: str = "placement_pairs = 1\npair_budget = 50",
    house: tuple[str, ...] = HOUSE,
    extra: str = "",
) -> Iterator[Site]:
    """A competition served from ``tmp_path``, seen in ``browser`` (conftest's fixture: the module's chromium);
    ``extra``: the config's top-level keys (:func:`~servertools.write_config`)."""
    with served(write_config(tmp_path, house=house, ladder=ladder, extra=extra), browser) as s:
        yield s


@contextlib.contextmanager
def served(config: Path, browser: Any) -> Iterator[Site]:
    """``arena serve CONFIG`` with a participant, alice, added; seen in ``browser``, whose pages are closed before
    the server stops."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["serve", str(config), "--add", "alice"]) == 0
    alice = printed.getvalue().split("/login/")[1].split()[0]
    with server_process(config) as server:
        organiser = next(line for line in server.output if "/login/" in line).split("/login/")[1].split()[0]
        try:
            yield Site(server, browser, alice, organiser)
        finally:
            close_pages(browser)


def close_pages(browser: Any) -> None:
    """Close every page (every context) open in ``browser``: before its server stops, as a closed browser was."""
    for context in browser.contexts:
        context.close()


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations on ``page``, one line each (rule, impact, the first nodes)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: {[n['target'] for n in v['nodes'][:3]]}"
        for v in results.response["violations"]
    ]


def sideways(page: Any) -> int:
    """How many pixels the page scrolls sideways (0: it fits its viewport). A page that navigates meanwhile (a live
    match's page goes to its replay when the match ends: ci67 lost the in-play pages' test to it) is measured as
    it lands."""
    for attempt in range(3):
        try:
            return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
        except Exception as error:  # (playwright's Error: the page navigated while it was asked)
            if "Execution context was destroyed" not in str(error) or attempt == 2:
                raise
            page.wait_for_load_state()
    raise AssertionError("unreachable")


def picture(page: Any, name: str) -> None:
    """Save a full-page picture of ``page`` as ``NAME`` in the folder ``ARENA_SCREENSHOTS`` names (where people look
    at them: the docs' pictures are made so); nothing without it. A long page's full-page picture costs chromium up to
    a CPU-second (0.67 s measured for a 300-row table), and no one looks at those left in a test's temporary folder.
    """
    shots = os.environ.get("ARENA_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / name), full_page=True)


def settled(page: Any) -> None:
    """Wait until ``page`` and each of its frames have their fonts and have drawn twice since: a resize or a change
    of content is laid out and painted (what a picture or a measure taken after one stands on)."""
    for frame in page.frames:
        frame.evaluate(
            "() => document.fonts.ready.then(() => new Promise((drawn) =>"
            " requestAnimationFrame(() => requestAnimationFrame(drawn))))"
        )


def frame_fits(page: Any, selector: str, timeout: float = 60) -> None:
    """Wait until the frame ``selector`` of ``page`` is as tall as its document (within 8 px): the page sets a
    frame's height from the one its document tells it (match.js, live-match.js, play.js: at least 320 px)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    frame = page.locator(selector).element_handle().content_frame()
    assert frame is not None, f"{selector} is not a frame"
    deadline = time.monotonic() + timeout
    while True:  # (its document's height may change meanwhile: read it again until the frame has it)
        content = frame.evaluate("Math.max(document.body.scrollHeight, document.body.offsetHeight)")
        try:
            page.wait_for_function(
                "([selector, want]) => Math.abs(document.querySelector(selector).getBoundingClientRect().height"
                " - want) <= 8",
                arg=[selector, min(max(content + 4, 320), 6000)],
                timeout=2_000,
            )
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, f"the frame {selector} never took its document's height ({content})"


def updated(page: Any, selector: str, seen: int, timeout: float) -> int:
    """Wait until the element ``selector``'s ``data-updates`` passes ``seen`` (its script redrew it: tv.js,
    now-playing.js); the new count. Fails after ``timeout`` seconds."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    count = f"Number(document.querySelector({json.dumps(selector)})?.dataset.updates || 0)"
    try:
        page.wait_for_function(f"(seen) => {count} > seen", arg=seen, timeout=max(timeout, 0.001) * 1000)
    except PlaywrightTimeout:
        raise AssertionError(f"{selector} was not redrawn in {timeout:.0f} s (updates: {seen})") from None
    return int(page.evaluate(count))


def wait_matches(url: str, count: int, timeout: float = 180) -> list[dict[str, Any]]:
    """The matches recorded (``/api/matches``) once there are ``count``; fails after ``timeout`` seconds (a ladder
    of two or three quick bots that is not :data:`~servertools.PLAYS_ON` may have gone idle, rightly, before)."""
    deadline = time.monotonic() + timeout
    while True:
        matches: list[dict[str, Any]] = HTTP.get(f"{url}/api/matches", timeout=30).json()["matches"]
        if len(matches) >= count:
            return matches
        assert time.monotonic() < deadline, f"the ladder recorded {len(matches)} matches of {count} in {timeout} s"
        time.sleep(0.5)


def played_out(matches: list[dict[str, Any]]) -> str:
    """A match whose two legs are both played (its replay is public)."""
    keys = {m["key"] for m in matches}
    return next(key for key in sorted(keys) if f"{key[:-1]}{'ab'[key.endswith('a')]}" in keys)


BIG_SEED = 2**63 + 12345
"""Past 2**53: a page that read the seed as a JavaScript number would show another one."""

# game, bots, params, whether a seat's cards are still hidden from the other seat at the end of the first step
# (six-card poker shows both splits down in the step that sets them)
GAMES: dict[str, tuple[tuple[str, str], dict[str, Any], bool]] = {
    "rps-poker": (("simple-py", "random-python"), {}, True),
    "gops": (("planner-python", "random-python"), {}, False),
    "card-jitsu": (("random-python", "set-seeker-js"), {}, True),
    "six-card-poker": (("sorted-python", "fictitious-play-js"), {"deals": 4}, False),
    "badugi": (("rule-based-python", "calling-station-python"), {"hands": 4}, True),
}


def play(game_id: str, log_dir: Path, seed: int = BIG_SEED) -> Path:
    names, params, _ = GAMES[game_id]
    if game_id == "card-jitsu" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    if game_id == "six-card-poker" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    specs = (resolve(str(SAMPLE_BOTS / game_id / names[0])), resolve(str(SAMPLE_BOTS / game_id / names[1])))
    game = get_game(game_id, params)
    record = trio.run(lambda: play_match(game, specs, seed=seed, limits=Limits(), log_dir=log_dir))
    assert record.log_path is not None
    return record.log_path


def open_page(browser: Any, path: Path, fragment: str = "", *, wait: bool = True) -> Any:
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.errors = []
    page.requested = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requested.append(r.url))
    page.goto(path.as_uri() + fragment)
    if wait:
        page.wait_for_selector("body[data-ready='1']")
    return page


def faces(page: Any, selector: str) -> list[str]:
    return list(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)"))
