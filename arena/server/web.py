"""The web app: pages and a JSON API over a :class:`~arena.server.service.Competition`.

Starlette routes, Jinja2 templates (autoescaped: a bot author's names, file
names and stderr are text, never markup), python-multipart for uploads (read
through a byte counter, so an upload over the limit is refused while it
streams), and Starlette's signed-cookie sessions (HttpOnly, SameSite=Lax).

Who sees what:

* everyone: the leaderboard, bot pages (versions, ratings, results, faults),
  match results, and replays as the config's ``access.replays`` allows;
* a participant, also: its own submissions with their check reports, its
  versions' files and build log, its processes' stderr;
* the organiser: everything, and the switches on ``/admin``.

Every form carries a CSRF token tied to the session; the API takes a
``Authorization: Bearer TOKEN`` header instead (a cookie-authenticated API
write must send the same token in ``X-CSRF-Token``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import mimetypes
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..competition.schedule import Scheduled
from ..competition.store import PlayedMatch
from . import access
from ._clients import client_address
from ._text import JSONResponse, num
from .accounts import FORM_OVERHEAD, AccountPages
from .admin import AdminPages
from .api import Api, _nan
from .bots import BotPages
from .human import HumanPages
from .live import LivePages
from .matches import MatchPages
from .service import Competition
from .state import Participant
from .tv import TVPages

SESSION_COOKIE = "arena_session"
SESSION_MAX_AGE_S = 30 * 24 * 3600
SSE_MIN_INTERVAL_S = 1.0
"""A live page gets at most one update a second, however fast matches finish."""
SSE_KEEPALIVE_S = 15.0
BOARD_READY_FOR_S = 60.0
"""After the leaderboard was asked for, each new table is put into HTML as it comes, this long: see
:meth:`Pages.keep_board_ready`."""
DRAIN_S = 30.0
STATIC = Path(__file__).parent / "static"
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self';"
    " frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
)
REPLAY_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'self';"
    " sandbox allow-scripts"
)
"""The replay page (inline script and style, no network) is sandboxed, framed or opened alone: an origin of its own."""


# Middleware -------------------------------------------------------------------------
class SecurityHeaders:
    """Headers every response carries: no sniffing, no referrer (tokens may be in login links), a CSP."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                if b"content-security-policy" not in headers:
                    extra.append((b"content-security-policy", PAGE_CSP.encode()))
                if b"x-frame-options" not in headers and not scope["path"].endswith("/replay"):
                    extra.append((b"x-frame-options", b"DENY"))
                if b"cache-control" not in headers:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class DrainRefusedBodies:
    """When a response starts before the request body was read (413, 401...), read and drop the rest meanwhile.

    Hypercorn hands the body to the app through a bounded queue, and once the
    response is sent it puts ``http.disconnect`` on that same queue, inside
    the app's ``send``: with the queue full of unread body, that waits forever
    and the client hangs. So as the response starts, a task of the
    competition's nursery takes over the body and drops it (for at most
    ``DRAIN_S`` seconds); Hypercorn then closes the connection, and the
    client sees the response and a closed socket, never an upload read in
    full. Requests without a body (GET, server-sent events) are left alone.
    """

    def __init__(self, app: ASGIApp, spawn: Callable[[Callable[[], Awaitable[None]]], object] | None) -> None:
        self.app = app
        self.spawn = spawn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        length = headers.get(b"content-length", b"0")
        has_body = (length.isdigit() and int(length) > 0) or b"chunked" in headers.get(b"transfer-encoding", b"")
        if not has_body or self.spawn is None:
            await self.app(scope, receive, send)
            return
        spawn = self.spawn
        finished = False

        async def watched() -> Message:
            nonlocal finished
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                finished = True
            return message

        async def drain() -> None:
            with trio.move_on_after(DRAIN_S):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect" or not message.get("more_body", False):
                        return

        async def sending(message: Message) -> None:
            nonlocal finished
            if message["type"] == "http.response.start" and not finished:
                finished = True  # from now on the body is the drain's
                spawn(drain)
            await send(message)

        await self.app(scope, watched, sending)


class StaticAssets:
    """The pages' own stylesheet and script, read once and served from memory (no file I/O per request).

    Pages link each with its content hash (``/static/style.css?v=HASH``, the
    ``static`` template function), so a browser keeps it for good and an
    upgrade changes the link; a request without the current hash is told to
    check again (``no-cache``), and one whose copy is current gets a 304.
    """

    def __init__(self, folder: Path) -> None:
        self.files: dict[str, tuple[bytes, str, str]] = {}
        for path in sorted(folder.iterdir()):
            if path.is_file():
                data = path.read_bytes()
                media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                self.files[path.name] = (data, hashlib.sha256(data).hexdigest()[:16], media)

    def url(self, name: str) -> str:
        """The link to asset ``name``, with its content hash."""
        return f"/static/{name}?v={self.files[name][1]}"

    def response(self, request: Request) -> Response:
        found = self.files.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404, "no such file")
        data, digest, media = found
        current = request.query_params.get("v") == digest
        headers = {"etag": f'"{digest}"', "cache-control": IMMUTABLE if current else "no-cache"}
        if f'"{digest}"' in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=media, headers=headers)


IMMUTABLE = "public, max-age=31536000, immutable"
"""How long a browser keeps an asset whose link carries its content hash: for good (a new hash is a new link)."""


# The app ---------------------------------------------------------------------------
def create_app(competition: Competition, *, https_only: bool = False) -> Starlette:
    """The Starlette app serving ``competition``."""
    pages = Pages(competition)
    live = LivePages(pages, REPLAY_CSP, framed)
    tv = TVPages(live)
    human = HumanPages(pages, REPLAY_CSP, _small_form, _replay_page)
    admin = AdminPages(pages, _small_form)
    accounts = AccountPages(pages, _small_form, _replay_page, REPLAY_CSP)
    bots = BotPages(pages)
    matches = MatchPages(pages, _small_form, _replay_page, REPLAY_CSP)
    routes = [
        Route("/bots/{name}/play", human.bot, methods=["GET", "POST"]),
        Route("/play/{gid}", human.play, methods=["GET", "POST"]),
        Route("/play/{gid}/replay", human.replay),
        Route("/play/{gid}/table", human.table),
        Route("/play/{gid}/events", human.events),
        Route("/live", live.now_playing),
        Route("/tv", tv.page),
        Route("/tv/data", tv.data),
        Route("/matches/{key}/live", live.match),
        Route("/matches/{key}/live/replay", live.replay),
        Route("/matches/{key}/live/data", live.data),
        Route("/matches/{key}/live/events", live.events),
        Route("/", pages.leaderboard),
        Route("/events", pages.events),
        *accounts.routes(),
        *bots.routes(),
        *matches.routes(),
        *admin.routes(),
        Mount("/api", routes=Api(pages, admin, bots, matches, accounts).routes()),
        Route("/static/{name}", pages.assets),
    ]
    middleware = [
        Middleware(DrainRefusedBodies, spawn=competition.host.spawn),
        Middleware(SecurityHeaders),
        Middleware(
            SessionMiddleware,
            secret_key=competition.participants.secret_key,
            session_cookie=SESSION_COOKIE,
            max_age=SESSION_MAX_AGE_S,
            same_site="lax",
            https_only=https_only,
        ),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: pages.error},  # type: ignore[dict-item]
    )
    app.state.human = human  # (the games against people are held here: tests reach them)
    app.state.pages = pages
    return app


def _environment(assets: StaticAssets) -> Environment:
    env = Environment(
        loader=PackageLoader("arena.server", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # the templates ship with the package: no stat of each file at every page (3% of the
        # server's main thread under bench_scale at 100k matches)
    )
    env.filters["num"] = num
    env.globals["static"] = assets.url
    env.filters["signed"] = _signed
    env.filters["when"] = _when
    env.filters["outcome"] = _outcome
    env.globals["match_rows"] = _match_rows
    return env


def _signed(value: float | None) -> str:
    """A rating with its sign, rounded first: -0.3, or -1e-15 where a fit's last bits fall so, is "+0", never "-0"."""
    if value is None or _nan(value):
        return "-"
    return f"{round(value):+d}" if math.isfinite(value) else f"{value:+}"


def _when(stamp: str | float | None) -> Markup:
    """A stored time (ISO 8601, or Unix time; UTC) as people read it, in a ``<time>`` that keeps the exact one."""
    if not stamp:
        return Markup("-")
    try:
        if isinstance(stamp, float):
            stamp = datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")
        moment = datetime.fromisoformat(stamp).astimezone(UTC)
    except ValueError:
        return Markup("{}").format(stamp)
    # (an f-string of escaped parts: Markup.format's formatter took most of a page of 40 matches' dates)
    return Markup(f'<time datetime="{escape(stamp)}">{moment:%Y-%m-%d %H:%M} UTC</time>')


class Pages:
    """The pages' helpers (who asks, sessions and CSRF, rendering, errors, access to a match) and the
    leaderboard with its live events.

    Every other resource has a module and routes of its own, over these helpers: :mod:`arena.server.accounts`,
    :mod:`arena.server.bots`, :mod:`arena.server.matches`, :mod:`arena.server.admin`, the JSON API
    (:mod:`arena.server.api`, mounted at ``/api``), :mod:`arena.server.live`, :mod:`arena.server.tv` and
    :mod:`arena.server.human`; who may see or do what is :mod:`arena.server.access`.
    """

    def __init__(self, competition: Competition) -> None:
        self.c = competition
        self.static = StaticAssets(STATIC)
        self.env = _environment(self.static)
        self._fragment: tuple[int, str, str] | None = None
        self._anonymous: tuple[tuple[int, bool], bytes] | None = None
        self._board_asked = -math.inf
        """When the leaderboard was last asked for (monotonic)."""
        self._readying = False
        """Whether :meth:`keep_board_ready` runs."""

    # Helpers -------------------------------------------------------------------
    def who(self, request: Request) -> Participant | None:
        """The participant making the request: by bearer token, else by session cookie."""
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer":
                return None
            return self.c.participants.by_token(token)
        sid = request.session.get("sid")
        if not isinstance(sid, str):
            return None
        return self.c.participants.session(sid, max_age_s=SESSION_MAX_AGE_S)

    def need(self, request: Request) -> Participant:
        """The participant, or 401."""
        found = self.who(request)
        if found is None:
            raise HTTPException(401, "log in first: this page needs your token")
        return found

    def need_admin(self, request: Request) -> Participant:
        """The organiser, or 401/403."""
        found = self.need(request)
        if not found.is_admin:
            raise HTTPException(403, "only the organiser may do this")
        return found

    def csrf(self, request: Request) -> str:
        """The session's CSRF token (made on first use)."""
        token = request.session.get("csrf")
        if not isinstance(token, str):
            token = secrets.token_urlsafe(24)
            request.session["csrf"] = token
        return token

    def check_csrf(self, request: Request, sent: Any) -> None:
        """403 unless ``sent`` is the session's CSRF token."""
        expected = request.session.get("csrf")
        if not isinstance(expected, str) or not isinstance(sent, str) or not hmac.compare_digest(expected, sent):
            raise HTTPException(403, "the form's security token is missing or stale: reload the page and try again")

    def check_api_write(self, request: Request) -> None:
        """A cookie-authenticated API write must carry the CSRF token in a header; a bearer token needs none."""
        if not request.headers.get("authorization"):
            self.check_csrf(request, request.headers.get("x-csrf-token"))

    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        """Render ``template`` with the common context."""
        me = self.who(request) if "me" not in context else context.pop("me")
        body = self.env.get_template(template).render(
            title=self.c.config.title,
            me=me,
            csrf=_LazyCsrf(self, request),
            game=self.c.game,
            paused=self.c.paused,
            frozen=self.c.frozen,
            registration=self.c.config.registration,
            **context,
        )
        return HTMLResponse(body, status_code=status_code)

    async def error(self, request: Request, exc: HTTPException) -> Response:
        """Errors as JSON under /api, else as a page (401 shows the login form)."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        template = "login.html" if exc.status_code == 401 else "error.html"
        return self.page(request, template, exc.status_code, message=exc.detail, status=exc.status_code)

    def participant(self, name: str) -> Participant:
        found = self.c.participants.named(name)
        if found is None or found.is_admin:
            raise HTTPException(404, "no such bot")
        return found

    def may_see_private(self, viewer: Participant | None, owner: Participant) -> bool:
        return access.may_see_private(viewer, owner)

    def match_by_key(self, key: str) -> PlayedMatch:
        match = self.c.catalogue.match(key)
        if match is None:
            raise HTTPException(404, "no such match")
        return match

    def owners_of(self, match: PlayedMatch | Scheduled) -> list[Participant | None]:
        """The owners of the bots in seats A and B (a bot's name is its owner's)."""
        return [self.c.participants.named(bot) for bot in (match.bot_a, match.bot_b)]

    def replay_access(self, viewer: Participant | None, match: PlayedMatch | Scheduled) -> tuple[bool, str | None]:
        """Whether ``viewer`` may see the replay, and the seat it is limited to (``None``: both seats): see
        :func:`arena.server.access.replay_access`."""
        return access.replay_access(
            viewer, lambda: self.owners_of(match), rule=self.c.config.replays,
            deal_over=self.c.catalogue.deal_over(match), frozen=self.c.frozen,
        )  # fmt: skip

    def seed_shown(self, viewer: Participant | None, match: PlayedMatch) -> bool:
        """Whether ``viewer`` may see ``match``'s seed: only who may see both seats' cards (the deal is over)."""
        return access.seed_shown(self.replay_access(viewer, match))

    def address(self, request: Request) -> str:
        """Who ``request`` comes from, for the limits counted by address (a trusted proxy's forwarded address)."""
        peer = request.client.host if request.client else ""
        forwarded = ",".join(request.headers.getlist("x-forwarded-for"))
        return client_address(peer, forwarded, self.c.config.trusted_proxies)

    # Leaderboard and live updates ------------------------------------------------
    def board_context(self) -> dict[str, Any]:
        board = self.c.board()
        return {
            "board": board,
            # The field's rows written in one pass, not by the template (its expressions per row, for a few hundred
            # rows, were most of drawing the board, once per new board: about once a second).
            "board_rows": _board_rows(board.rows, _error_bars(board.rows)),
            "recent": self.c.catalogue.labelled(self.c.catalogue.latest_matches(15)),
        }

    async def assets(self, request: Request) -> Response:
        """The pages' stylesheet and script (:class:`StaticAssets`)."""
        return self.static.response(request)

    async def leaderboard(self, request: Request) -> Response:
        self._board_asked = time.monotonic()
        if not self._readying:
            self._readying = self.c.host.spawn(self.keep_board_ready)
        stamp, html, _ = self.board_html()
        if request.headers.get("authorization") or request.session:  # someone: their name in the page
            return self.page(
                request, "leaderboard.html", board_html=Markup(html), scheme=self.c.scheme(), **self.live_state()
            )
        # Anyone else gets the same page, made once per change of the standings (it sets no cookie), or of whether
        # the ladder has begun (its status line).
        key = (stamp, self.c.host.starting)
        if self._anonymous is None or self._anonymous[0] != key:
            self._anonymous = (
                key,
                bytes(
                    self.page(
                        request,
                        "leaderboard.html",
                        me=None,
                        board_html=Markup(html),
                        scheme=self.c.scheme(),
                        **self.live_state(),
                    ).body
                ),
            )
        return HTMLResponse(self._anonymous[1])

    async def keep_board_ready(self) -> None:
        """Put each new table into HTML as it comes, while the leaderboard is asked for (until
        ``BOARD_READY_FOR_S`` after it last was): the first reader after each new table waited for it (12 ms of
        CPU at 300 bots, and up to four times that while the ladder kept the CPUs busy), one reader of the
        leaderboard in six at a million matches; now a step of the server's loop of its own does it."""
        try:
            while time.monotonic() - self._board_asked < BOARD_READY_FOR_S:
                changed = self.c.changed
                stamp, _, _ = self.board_html()
                if stamp != self.c.stamp:  # (a board is reused for up to a second after a result: then again)
                    await trio.sleep(SSE_MIN_INTERVAL_S)
                    continue
                with trio.move_on_after(SSE_KEEPALIVE_S):
                    await changed.wait()
                await trio.sleep(0)  # (what woke on the same change goes first: the standings' task, say)
        finally:
            self._readying = False

    def board_html(self) -> tuple[int, str, str]:
        """The leaderboard's table (rendered once per change of the standings): its stamp, HTML and live event."""
        board = self.c.board()
        if self._fragment is None or self._fragment[0] != board.stamp:
            html = self.env.get_template("_board.html").render(**self.board_context())
            event = json.dumps(
                {
                    "html": html,
                    "matches": board.matches,
                    "paused": board.paused,
                    "frozen": board.frozen,
                    "as_of": round(board.as_of, 3),
                }
            )
            self._fragment = (board.stamp, html, event)
        return self._fragment

    def live_state(self) -> dict[str, Any]:
        """What the leaderboard's status line shows: matches in play (or the ladder starting), and when the
        standings were taken."""
        board = self.c.board()
        return {
            "in_play": self.in_play(),
            "starting": self.c.host.starting,
            "as_of": board.as_of,
            "bots": len(board.rows),
        }

    def _playing(self) -> str:
        """The end of an event's JSON: the matches in play, and whether the ladder is yet to begin."""
        return f'"in_play": {self.in_play()}, "starting": {json.dumps(self.c.host.starting)}}}'

    def in_play(self) -> int:
        """Matches the ladder is playing now (the legs of its pairs in play)."""
        ladder = self.c.host.ladder
        return sum(len(deal.matches(0)) for deal in ladder.state.busy) if ladder is not None else 0

    async def events(self, request: Request) -> Response:
        """Server-sent events: the leaderboard each time it changes (at most once a second).

        Each ``board`` event carries the table's HTML, the matches played, the
        switches and ``as_of``: the table holds every result recorded before it (Unix time).
        """

        async def stream() -> AsyncIterator[str]:
            last = -1
            told = self.c.host.starting  # what the reader was last told of the ladder's start
            while True:
                stamp, _, event = self.board_html()
                if stamp != last:
                    last = stamp
                    told = self.c.host.starting
                    yield f"event: board\ndata: {event[:-1]}, {self._playing()}\n\n"
                    await trio.sleep(SSE_MIN_INTERVAL_S)
                    continue
                if stamp != self.c.stamp:  # the standings lag the results by at most a second: look again
                    await trio.sleep(SSE_MIN_INTERVAL_S)
                    continue
                if self.c.host.starting != told:  # the ladder began while this stream slept: say so now, not at
                    told = self.c.host.starting  # the next result or keep-alive (15 s, or never a result)
                    yield f"event: state\ndata: {{{self._playing()}\n\n"
                    continue
                changed = self.c.changed
                with trio.move_on_after(SSE_KEEPALIVE_S) as waited:
                    await changed.wait()
                if waited.cancelled_caught or stamp == self.c.stamp:  # (a keep-alive, or the ladder began)
                    told = self.c.host.starting
                    yield f"event: state\ndata: {{{self._playing()}\n\n"

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"}
        )


class _LazyCsrf:
    """The session's CSRF token, made only when a page shows a form (a page without one sets no cookie)."""

    def __init__(self, pages: Pages, request: Request) -> None:
        self.pages = pages
        self.request = request

    def __str__(self) -> str:
        return self.pages.csrf(self.request)

    def __html__(self) -> str:
        return str(self)


# Uploads -------------------------------------------------------------------------------
async def _small_form(request: Request) -> FormData:
    """A form of a few short fields (login, switches): bounded like everything else."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > FORM_OVERHEAD:
        raise HTTPException(413, "the form is too large")
    try:
        return await request.form(max_files=0, max_fields=20, max_part_size=8 << 10)
    except MultiPartException as exc:
        raise HTTPException(400, exc.message) from None


# Replays, downloads ---------------------------------------------------------------------
def _replay_page(
    path: Path,
    seat: str | None,
    stderr_of: frozenset[str],
    seed_shown: bool,
    key: str = "",
    back: tuple[str, str] | None = None,
) -> str:
    """The replay page of the match logged at ``path`` (the replay package's), as ``seat`` saw it or whole.

    A bot's stderr is private to its owner: only the seats in ``stderr_of`` keep theirs in the page. The seed
    is in it only when ``seed_shown`` (a viewer who sees one seat must not deal the other's cards from it).
    The replay names the match by its ``key``, as the server's pages do (the log's own id is what the bots
    were told). Opened alone, it links ``back`` (an address and its name; by default the match's page).
    """
    from ..replay import load_log, match_page, timeline_of

    log = load_log(path)
    log.stderr = [record for record in log.stderr if record.get("seat") in stderr_of]
    timeline = timeline_of(log)  # (before the id is changed: the rules re-run the match as the bots were told it)
    if key:
        log.header = {**log.header, "match_id": key}
    back = back or ((f"/matches/{quote(key)}", "the match's page") if key else None)
    return framed(match_page(log, seat=seat, seed_shown=seed_shown, timeline=timeline, back=back))


def framed(html: str) -> str:
    """The replay page ``html`` with :data:`FRAME_SCRIPT`, to be shown in a frame of a server page."""
    at = html.rfind("</body>")
    return html[:at] + FRAME_SCRIPT + html[at:] if at >= 0 else html


FRAME_SCRIPT = """<script>/* arena serve: tell the match page that frames this replay its height and step */
(function () {
  var parent = window.parent, last = "";
  if (parent === window) return;
  function send() {
    var height = Math.max(document.body.scrollHeight, document.body.offsetHeight);
    var now = height + location.hash;
    if (now === last) return;
    last = now;
    parent.postMessage({ arenaReplay: { height: height, hash: location.hash } }, "*");
  }
  // A match in play: its page sends the match as it has grown (its own view of it, from the server), and the
  // replay takes it in place (a viewer at the last step follows; one who stepped back stays).
  addEventListener("message", function (event) {
    if (event.source === parent && event.data && event.data.arenaData && window.arenaReplay) {
      window.arenaReplay.update(event.data.arenaData);
    }
  });
  addEventListener("load", send);
  addEventListener("hashchange", send);
  if (window.ResizeObserver) new ResizeObserver(send).observe(document.body);
  setInterval(send, 500);
})();
</script>
"""
"""Added to a replay served to be framed: the match page sizes the frame to the replay, and keeps its step in the
page's address. It sends only the height and the ``#step=`` part (the frame is sandboxed: the page sees no more)."""


# Shapes -------------------------------------------------------------------------------------
def _board_rows(rows: list[Any], bars: dict[str, dict[str, float]]) -> Markup:
    """The leaderboard's rows (``rows``: the board's, ranked; ``bars``: :func:`_error_bars`). Its names, reasons
    and kinds of fault are escaped; its numbers are written as they are (digits, signs, ``-`` for none)."""
    if not rows:
        return Markup('<tr><td colspan="9" class="empty">No bots yet.</td></tr>\n')
    out = []
    for rank, row in enumerate(rows, 1):
        s, who, bar = row.standing, row.participant, bars[row.version.label]
        name = escape(who.name)
        house = ' <span class="tag">house</span>' if who.is_house else ""
        reason = f'<div class="reason">{escape(row.reason)}</div>' if row.reason else ""
        faults = "".join(f"{escape(kind)}&nbsp;&times;{n} " for kind, n in s.faults.items())
        out.append(
            f'<tr class="{escape(row.status)}" data-bot="{name}" data-rank="{rank}">\n'
            f'  <td class="rank">{rank}</td>\n'
            f'  <td class="bot"><a class="name" href="/bots/{name}" title="{name}">{name}</a>{house}{reason}</td>\n'
            f'  <td class="detail">v{row.version.number}</td>\n'
            f'  <td class="num">{_signed(s.rating)} &plusmn; {num(s.rating_error, 0)}</td>\n'
            f'  <td class="bars"><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">'
            f'<rect class="interval" x="{bar["left"]}" y="2" width="{bar["width"]}" height="6"></rect>'
            f'<rect class="mid" x="{bar["mid"] - 0.4}" y="0" width="0.8" height="10"></rect></svg></td>\n'
            f'  <td class="num detail">{num(s.mean, 2)}</td>\n'
            f'  <td class="num">{s.wins}-{s.draws}-{s.losses}</td>\n'
            f'  <td class="num detail">{s.matches}</td>\n'
            f'  <td class="detail">{faults}</td>\n'
            "</tr>\n"
        )
    return Markup("".join(out))


def _error_bars(rows: list[Any]) -> dict[str, dict[str, float]]:
    """Each row's rating and 95% interval as percentages of a common scale, for the bars."""
    spans = []
    for row in rows:
        r, e = row.standing.rating, row.standing.rating_error
        e = 0.0 if _nan(e) or math.isinf(e) else e
        spans.append((row.version.label, r - e, r, r + e))
    if not spans:
        return {}
    low = min(s[1] for s in spans)
    high = max(s[3] for s in spans)
    width = max(high - low, 1.0)
    return {
        bot: {
            "left": round(100 * (lo - low) / width, 2),
            "width": round(max(0.5, 100 * (hi - lo) / width), 2),
            "mid": round(100 * (mid - low) / width, 2),
        }
        for bot, lo, mid, hi in spans
    }


def _match_rows(matches: list[PlayedMatch], bot: Any, tables: Any, dated: Any, filtered: Any) -> Markup:
    """The rows of a table of matches (``_matches.html``), written in one pass (a page of 40 took its template a
    few hundred expressions). ``bot``: a bot's name, whose result colours each row; ``tables``: the other table's
    match of each, by key; ``dated``: when each finished, by key (a column of its own); ``filtered``: whether the
    list is filtered (what an empty one says). Each may be left out (a template's undefined: false)."""
    if not matches:
        empty = " match the filter" if filtered else " yet"
        return Markup(f'<tr><td colspan="{6 if dated else 5}" class="empty">No matches{empty}.</td></tr>\n')
    named = escape(bot) if bot else ""
    out = []
    for m in matches:
        key, a, b = escape(m.key), escape(m.bot_a), escape(m.bot_b)
        outcome = _outcome(m, bot) if bot else ""
        first = f'<td><a href="/matches/{key}">{key}</a>'
        other = tables.get(m.key) if tables else None
        if other:
            first += (
                f'<br><span class="meta other-table">other table: <a href="/matches/{escape(other.key)}">'
                f"{escape(other.bot_a)} {num(other.points[0], 0)} - {num(other.points[1], 0)} {escape(other.bot_b)}"
                "</a></span>"
            )
        first += "</td>"
        if dated:
            first += f"<td>{_when(dated.get(m.key))}</td>"
        result = f"{named} {outcome}{': ' if m.faults else ''}" if outcome else ""
        if m.faults:
            result += "".join(
                f'<a class="fault" href="/matches/{key}#fault={escape(f.seat)}">{escape(f.bot)}: {escape(f.kind)}</a> '
                for f in m.faults
            )
        elif not outcome:
            result += f"{a if m.winner == 'A' else b} wins" if m.winner else "draw"
        shade = f' class="{outcome}"' if outcome else ""
        out.append(
            f"<tr{shade}>{first}<td>{a}</td>"
            f'<td class="num">{num(m.points[0], 0)} - {num(m.points[1], 0)}</td><td>{b}</td>\n'
            f'<td class="result">{result}</td></tr>\n'
        )
    return Markup("".join(out))


def _outcome(match: PlayedMatch, bot: str) -> str:
    """``won``, ``lost`` or ``drew``: how ``bot`` (a bot's name; its versions are ``bot.vN``) did in ``match``."""
    seat = "A" if match.bot_a.split(".")[0] == bot else "B"
    if match.winner is None:
        return "lost" if seat in match.forfeit else "drew"
    return "won" if match.winner == seat else "lost"
