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

import contextlib
import hashlib
import hmac
import json
import math
import mimetypes
import os
import secrets
import shutil
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._errors import ConfigError, UploadRefused
from ..competition.ladder import other_table
from ..competition.schedule import Scheduled
from ..competition.store import PlayedMatch
from . import access
from ._clients import client_address
from .admin import AdminPages
from .api import Api, _nan
from .archive import LANGUAGES
from .bots import BotPages
from .human import HumanPages
from .live import LivePages
from .service import Competition
from .state import NAME_RULE, Participant, Submission, check_name
from .submissions import Busy
from .tv import TVPages

SESSION_COOKIE = "arena_session"
SESSION_MAX_AGE_S = 30 * 24 * 3600
LINK_SPENT = (
    "that login link is spent or expired (a link logs in once, within a week): log in with your token,"
    " or ask the organiser for a new link"
)
FORM_OVERHEAD = 64 << 10
"""Bytes a multipart body may hold beyond the file itself (boundaries, the other fields)."""
SSE_MIN_INTERVAL_S = 1.0
"""A live page gets at most one update a second, however fast matches finish."""
SSE_KEEPALIVE_S = 15.0
DRAIN_S = 30.0
UPLOADS_IN_FLIGHT = 8
"""Uploads the server receives at once, from everyone: one more is refused (503) before its body is read.
With each participant's own bound of one, it keeps what uploads hold on disk while they stream to
``UPLOADS_IN_FLIGHT`` times ``[uploads] max_bytes`` (twice that while one is copied to its file)."""
UPLOAD_READ_S = 120.0
"""The longest an upload's body may take to arrive (408 after): a client sending a byte now and then holds its
slot no longer. 5 MB in 120 s is a 42 KB/s line."""
INVITE_ONLY = "registration is by invitation: ask the organiser for an invitation link"
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


class TooLarge(Exception):
    """The request body went over its limit while streaming."""


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
    bots = BotPages(pages)
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
        Route("/login", pages.login, methods=["GET", "POST"]),
        Route("/login/{code}", pages.login_link),
        Route("/logout", pages.logout, methods=["POST"]),
        Route("/register", pages.register, methods=["GET", "POST"]),
        Route("/me", pages.me),
        Route("/me/submit", pages.submit, methods=["POST"]),
        Route("/submissions/{sid:int}", pages.submission),
        *bots.routes(),
        Route("/matches/{key}", pages.match),
        Route("/matches/{key}/replay", pages.replay),
        Route("/matches/{key}/log", pages.match_log),
        Route("/matches/{key}/pin", pages.pin_log, methods=["POST"]),
        *admin.routes(),
        Mount("/api", routes=Api(pages, admin, bots).routes()),
        Route("/static/{name}", pages.assets),
    ]
    middleware = [
        Middleware(DrainRefusedBodies, spawn=competition.spawn),
        Middleware(SecurityHeaders),
        Middleware(
            SessionMiddleware,
            secret_key=competition.secret_key,
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
    return app


def _environment(assets: StaticAssets) -> Environment:
    env = Environment(
        loader=PackageLoader("arena.server", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _num
    env.globals["static"] = assets.url
    env.filters["signed"] = lambda v: "-" if v is None or _nan(v) else f"{v:+.0f}"
    env.filters["when"] = _when
    env.filters["outcome"] = _outcome
    return env


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
    return Markup('<time datetime="{}">{}</time>').format(stamp, moment.strftime("%Y-%m-%d %H:%M UTC"))


def _num(value: Any, digits: int = 1) -> str:
    if value is None or _nan(value):
        return "-"
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


class Pages:
    """The pages' helpers (who asks, sessions and CSRF, rendering, errors) and the pages not yet in a module of
    their own: the leaderboard and its events, logging in and registering, a participant's own page and uploads,
    and a match's pages.

    Over ~25 methods for now: the bots' pages (:mod:`arena.server.bots`), the organiser's
    (:mod:`arena.server.admin`) and the API (:mod:`arena.server.api`) have moved out; the rest follow by resource
    in the same way (issue 37).
    """

    def __init__(self, competition: Competition) -> None:
        self.c = competition
        self.static = StaticAssets(STATIC)
        self.env = _environment(self.static)
        self._fragment: tuple[int, str, str] | None = None
        self._anonymous: tuple[int, bytes] | None = None
        self._registrations: dict[str, list[float]] = {}
        self._uploading: set[int] = set()
        """The participants (by id) whose upload is being received or unpacked now."""

    # Helpers -------------------------------------------------------------------
    def who(self, request: Request) -> Participant | None:
        """The participant making the request: by bearer token, else by session cookie."""
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer":
                return None
            return self.c.state.by_token(token)
        sid = request.session.get("sid")
        if not isinstance(sid, str):
            return None
        return self.c.state.session(sid, max_age_s=SESSION_MAX_AGE_S)

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
        found = self.c.state.participant_named(name)
        if found is None or found.is_admin:
            raise HTTPException(404, "no such bot")
        return found

    def may_see_private(self, viewer: Participant | None, owner: Participant) -> bool:
        return access.may_see_private(viewer, owner)

    def match_by_key(self, key: str) -> PlayedMatch:
        match = self.c.match(key)
        if match is None:
            raise HTTPException(404, "no such match")
        return match

    def owners_of(self, match: PlayedMatch | Scheduled) -> list[Participant | None]:
        """The owners of the bots in seats A and B (a bot's name is its owner's)."""
        return [self.c.state.participant_named(bot) for bot in (match.bot_a, match.bot_b)]

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

    # Leaderboard and live updates ------------------------------------------------
    def board_context(self) -> dict[str, Any]:
        board = self.c.board()
        return {
            "board": board,
            "bars": _error_bars(board.rows),
            "recent": self.c.catalogue.labelled(self.c.latest_matches(15)),
        }

    async def assets(self, request: Request) -> Response:
        """The pages' stylesheet and script (:class:`StaticAssets`)."""
        return self.static.response(request)

    async def leaderboard(self, request: Request) -> Response:
        stamp, html, _ = self.board_html()
        if request.headers.get("authorization") or request.session:  # someone: their name in the page
            return self.page(
                request, "leaderboard.html", board_html=Markup(html), scheme=self.c.scheme(), **self.live_state()
            )
        # Anyone else gets the same page, made once per change of the standings (it sets no cookie).
        if self._anonymous is None or self._anonymous[0] != stamp:
            self._anonymous = (
                stamp,
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
        """What the leaderboard's status line shows: matches in play, and when the standings were taken."""
        board = self.c.board()
        return {"in_play": self.in_play(), "as_of": board.as_of, "bots": len(board.rows)}

    def in_play(self) -> int:
        """Matches the ladder is playing now (the legs of its pairs in play)."""
        ladder = self.c.ladder
        return sum(len(deal.matches(0)) for deal in ladder.state.busy) if ladder is not None else 0

    async def events(self, request: Request) -> Response:
        """Server-sent events: the leaderboard each time it changes (at most once a second).

        Each ``board`` event carries the table's HTML, the matches played, the
        switches and ``as_of``: when the results it shows were taken (Unix time).
        """

        async def stream() -> AsyncIterator[str]:
            last = -1
            while True:
                stamp, _, event = self.board_html()
                if stamp != last:
                    last = stamp
                    yield f'event: board\ndata: {event[:-1]}, "in_play": {self.in_play()}}}\n\n'
                    await trio.sleep(SSE_MIN_INTERVAL_S)
                    continue
                if stamp != self.c.stamp:  # the standings lag the results by at most a second: look again
                    await trio.sleep(SSE_MIN_INTERVAL_S)
                    continue
                changed = self.c.changed
                with trio.move_on_after(SSE_KEEPALIVE_S) as waited:
                    await changed.wait()
                if waited.cancelled_caught:  # (with what the ladder is doing: the page's "idle / in play")
                    yield f'event: state\ndata: {{"in_play": {self.in_play()}}}\n\n'

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"}
        )

    # Logging in ---------------------------------------------------------------------
    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            return self.page(request, "login.html")
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        code = str(form.get("code", ""))
        if code:  # from a login link: it logs in once
            participant = self.c.state.by_login_code(code, use=True)
            if participant is None:
                return self.page(request, "login.html", 401, message=LINK_SPENT)
        else:
            participant = self.c.state.by_token(str(form.get("token", "")))
            if participant is None:
                return self.page(request, "login.html", 401, message="that token is not valid")
        self._start_session(request, participant)
        return RedirectResponse("/admin" if participant.is_admin else "/me", status_code=303)

    async def login_link(self, request: Request) -> Response:
        """A login link: a page with one button (a link alone never logs anyone in: no login CSRF, and a preview
        of the link does not spend it); the button spends the link's code."""
        code = request.path_params["code"]
        participant = self.c.state.by_login_code(code, use=False)
        if participant is None:
            return self.page(request, "login.html", 401, message=LINK_SPENT)
        return self.page(request, "login_link.html", code=code, participant=participant)

    def _start_session(self, request: Request, participant: Participant) -> None:
        old = request.session.get("sid")
        if isinstance(old, str):
            self.c.state.end_session(old)
        request.session.clear()
        request.session["sid"] = self.c.state.new_session(participant.id)
        request.session["csrf"] = secrets.token_urlsafe(24)  # a new session, a new CSRF token

    async def logout(self, request: Request) -> Response:
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        sid = request.session.get("sid")
        if isinstance(sid, str):
            self.c.state.end_session(sid)
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    async def register(self, request: Request) -> Response:
        """Registering a name: anyone (``open``), anyone but approved before uploading (``approve``), or with an
        invitation the organiser made (``invite``: the code in the link, ``/register?code=...``)."""
        mode = self.c.config.registration
        code = str(request.query_params.get("code", ""))
        if request.method == "GET":
            if mode == "invite" and not self.c.state.invite_valid(code):
                raise HTTPException(403, INVITE_ONLY)
            return self.page(request, "register.html", rule=NAME_RULE, code=code, mode=mode)
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        code = str(form.get("code", ""))
        if mode == "invite" and not self.c.state.invite_valid(code):
            raise HTTPException(403, INVITE_ONLY)
        client = self.address(request)
        now = trio.current_time()
        recent = [t for t in self._registrations.get(client, []) if now - t < 3600]
        allowed = self.c.config.registrations_per_hour
        if len(recent) >= allowed:
            raise HTTPException(429, f"at most {allowed} registrations an hour from one address: try again later")
        name = str(form.get("name", "")).strip()

        def again(status: int, message: str) -> HTMLResponse:
            return self.page(request, "register.html", status, rule=NAME_RULE, message=message, name=name, code=code)

        try:
            check_name(name)
        except ConfigError as exc:
            return again(400, str(exc))
        if self.c.state.participant_named(name) is not None:  # whatever its case
            return again(409, "that name is taken")
        refused = self.c.name_refused(name)
        if refused:
            return again(409, f"that name {refused}")
        try:
            if mode == "invite":
                participant, token = self.c.state.register_invited(code, name)
            else:
                participant, token = self.c.state.add_participant(name, new=True)
        except ConfigError as exc:  # taken meanwhile, or the invitation spent meanwhile
            return again(409, str(exc))
        if mode == "approve":
            self.c.state.set_awaiting(participant.id, True)
        self._registrations[client] = [*recent, now]
        self._start_session(request, participant)
        return self.page(request, "registered.html", token=token, me=participant, awaiting=mode == "approve")

    def address(self, request: Request) -> str:
        """Who ``request`` comes from, for the limits counted by address (a trusted proxy's forwarded address)."""
        peer = request.client.host if request.client else ""
        forwarded = ",".join(request.headers.getlist("x-forwarded-for"))
        return client_address(peer, forwarded, self.c.config.trusted_proxies)

    # A participant's own pages ----------------------------------------------------
    async def me(self, request: Request) -> Response:
        me = self.need(request)
        if me.is_admin:
            return RedirectResponse("/admin", status_code=303)
        return self.page(
            request,
            "me.html",
            awaiting=self.c.submissions.may_play(me),
            submissions=self.c.state.submissions(me.id, limit=30),
            versions=self.c.versions(me.id)[::-1],
            private=True,
            submit_url=str(request.base_url).rstrip("/"),
            languages=LANGUAGES,
            limits=self.c.config.uploads,
        )

    async def submit(self, request: Request) -> Response:
        me = self.need(request)
        sid = await self.take_upload(request, me, form_csrf=True)
        return RedirectResponse(f"/submissions/{sid}", status_code=303)

    async def take_upload(self, request: Request, me: Participant, *, form_csrf: bool) -> int:
        try:
            self.c.submissions.may_upload(me)
        except Busy as exc:
            raise HTTPException(429, str(exc)) from None
        except UploadRefused as exc:
            raise HTTPException(409, str(exc)) from None
        with self._in_flight(me):
            return await self._receive_upload(request, me, form_csrf=form_csrf)

    @contextlib.contextmanager
    def _in_flight(self, me: Participant) -> Iterator[None]:
        """Hold one of the upload slots for ``me``: one per participant, ``UPLOADS_IN_FLIGHT`` in all (else refused).

        Called before the body is read, with no pause between the test and
        the taking, so parallel requests cannot slip past either bound.
        """
        if me.id in self._uploading:
            raise HTTPException(429, "an upload of yours is still being received; wait for it to finish")
        if len(self._uploading) >= UPLOADS_IN_FLIGHT:
            raise HTTPException(503, "the server is receiving too many uploads at once; try again in a minute")
        self._uploading.add(me.id)
        try:
            yield
        finally:
            self._uploading.discard(me.id)

    async def _receive_upload(self, request: Request, me: Participant, *, form_csrf: bool) -> int:
        limit = self.c.config.uploads.max_bytes
        with _upload_file(self.c.incoming) as target:
            with trio.move_on_after(UPLOAD_READ_S) as reading:
                form = await _read_upload(request, limit, target)
            if reading.cancelled_caught:
                raise HTTPException(408, f"the upload did not arrive within {UPLOAD_READ_S:g} s; send it again")
            if form_csrf:
                self.check_csrf(request, form.get("csrf"))
            file = form.get("file")
            if not isinstance(file, UploadFile):
                raise HTTPException(400, "the form has no file (field 'file')")
            language = str(form.get("language", ""))
            if language and language not in LANGUAGES:
                raise HTTPException(400, f"unknown language {language!r}; one of {', '.join(LANGUAGES)}")
            try:
                return await self.c.submissions.take_upload(
                    me, target, filename=file.filename or "upload", language=language
                )
            except Busy as exc:
                raise HTTPException(429, str(exc)) from None
            except UploadRefused as exc:
                raise HTTPException(409, str(exc)) from None

    async def submission(self, request: Request) -> Response:
        me = self.need(request)
        submission = self.own_submission(me, request.path_params["sid"])
        owner = self.c.state.participant(submission.participant_id)
        return self.page(request, "submission.html", submission=submission, owner=owner)

    def own_submission(self, me: Participant, sid: int) -> Submission:
        submission = self.c.state.submission(sid)
        if submission is None or not (me.is_admin or submission.participant_id == me.id):
            raise HTTPException(404, "no such submission of yours")
        return submission

    # Matches ------------------------------------------------------------------------
    async def match(self, request: Request) -> Response:
        match = self.match_by_key(request.path_params["key"])
        viewer = self.who(request)
        allowed, seat = self.replay_access(viewer, match)
        log = await self.c.log_upkeep.state_of(match) if match.log_path else None
        return self.page(
            request,
            "match.html",
            match=self.c.catalogue.labelled([match])[0],
            owners=[match.bot_a, match.bot_b],
            replay=allowed and bool(match.log_path) and not (log and log.pruned_at),
            log=log,
            may_pin=bool(match.log_path) and not (log and log.pruned_at) and self.may_pin(viewer, match),
            pinned=bool(log and viewer and viewer.id in log.pinned_by),
            seat=seat,
            rule=self.c.config.replays,
            seed=str(match.seed) if allowed and seat is None else "",
            deal_over=self.c.catalogue.deal_over(match),
            other_table=other_table(match.key),
            downloadable=allowed and seat is None and bool(match.log_path) and not (log and log.pruned_at),
        )

    async def match_log(self, request: Request) -> Response:
        """The match's log (JSON lines) for who sees its whole replay; a bot's stderr only for its owner."""
        match = self.match_by_key(request.path_params["key"])
        viewer = self.who(request)
        allowed, seat = self.replay_access(viewer, match)
        if not allowed or seat is not None:
            raise HTTPException(403, "this match's log is not public")
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        keep = self.stderr_seats(viewer, match)
        try:
            data = await trio.to_thread.run_sync(_log_lines, Path(match.log_path), keep)
        except FileNotFoundError:
            raise HTTPException(410, "this match's log is no longer kept") from None
        disposition = f'attachment; filename="{match.key}.jsonl"'  # (a key holds names: letters, digits, _ - . ~)
        return Response(data, media_type="application/x-ndjson", headers={"content-disposition": disposition})

    def stderr_seats(self, viewer: Participant | None, match: PlayedMatch) -> frozenset[str]:
        """The seats whose stderr ``viewer`` may read: its own bot's (the organiser: both)."""
        return access.stderr_seats(viewer, self.owners_of(match))

    async def replay(self, request: Request) -> Response:
        match = self.match_by_key(request.path_params["key"])
        allowed, seat = self.replay_access(self.who(request), match)
        if not allowed:
            raise HTTPException(403, "this match's replay is not public")
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        log = await self.c.log_upkeep.state_of(match)
        if log is not None and log.pruned_at:
            raise HTTPException(410, f"this match's log was pruned at {log.pruned_at}: {log.pruned_why}")
        stderr_of = self.stderr_seats(self.who(request), match)
        try:
            html = await trio.to_thread.run_sync(
                _replay_page, Path(match.log_path), seat, stderr_of, seat is None, match.key
            )
        except FileNotFoundError:  # (deleted by hand, or the pruner killed between the file and its row)
            raise HTTPException(410, "this match's log is missing from the server") from None
        return HTMLResponse(html, headers={"content-security-policy": REPLAY_CSP, "x-frame-options": "SAMEORIGIN"})

    # The API ----------------------------------------------------------------------------
    def may_pin(self, viewer: Participant | None, match: PlayedMatch) -> bool:
        """Whether ``viewer`` may pin ``match``'s deal: the organiser, or the owner of one of its bots."""
        return access.may_pin(viewer, (match.bot_a, match.bot_b))

    async def pin_log(self, request: Request) -> Response:
        """The match page's pin button: keep (or stop keeping) this deal's logs."""
        me = self.need(request)
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        match = self.match_by_key(request.path_params["key"])
        await self.pin_match(match, me, pinned=form.get("pin") != "0")
        return RedirectResponse(f"/matches/{match.key}", status_code=303)

    async def pin_match(self, match: PlayedMatch, me: Participant, *, pinned: bool) -> None:
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        if not self.may_pin(me, match):
            raise HTTPException(403, "you may pin only your own bots' matches")
        try:
            await self.c.log_upkeep.pin(match, me, pinned=pinned)
        except UploadRefused as exc:
            raise HTTPException(409, str(exc)) from None


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
@contextlib.contextmanager
def _upload_file(folder: Path) -> Iterator[Path]:
    path = folder / f"{secrets.token_hex(8)}.upload"
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


async def _read_upload(request: Request, limit: int, target: Path) -> FormData:
    """Parse a multipart upload of at most ``limit`` bytes; its file is saved at ``target``.

    The body is counted as it streams: past the limit the request is refused
    with 413 at once, and what was read so far is thrown away, so memory and
    disk stay bounded whatever the client sends (or claims to send).
    """
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(415, "send the bot as multipart/form-data (a form with a file field)")
    allowed = limit + FORM_OVERHEAD
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > allowed:
        raise _too_large(limit)

    async def counted() -> AsyncGenerator[bytes, None]:
        total = 0
        async with contextlib.aclosing(request.stream()) as stream:
            async for chunk in stream:
                total += len(chunk)
                if total > allowed:
                    raise TooLarge
                yield chunk

    parser = MultiPartParser(request.headers, counted(), max_files=1, max_fields=8, max_part_size=64 << 10)
    try:
        form = await parser.parse()
    except TooLarge:
        raise _too_large(limit) from None
    except MultiPartException as exc:
        raise HTTPException(400, exc.message) from None
    file = form.get("file")
    if isinstance(file, UploadFile):
        if file.size is not None and file.size > limit:
            raise _too_large(limit)
        await file.seek(0)

        def save() -> None:
            with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), "wb") as out:
                shutil.copyfileobj(file.file, out, 1 << 16)

        await trio.to_thread.run_sync(save)
        await file.close()
    return form


def _too_large(limit: int) -> HTTPException:
    return HTTPException(413, f"the upload is larger than the {limit} bytes allowed")


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
def _replay_page(path: Path, seat: str | None, stderr_of: frozenset[str], seed_shown: bool, key: str = "") -> str:
    """The replay page of the match logged at ``path`` (the replay package's), as ``seat`` saw it or whole.

    A bot's stderr is private to its owner: only the seats in ``stderr_of`` keep theirs in the page. The seed
    is in it only when ``seed_shown`` (a viewer who sees one seat must not deal the other's cards from it).
    The replay names the match by its ``key``, as the server's pages do (the log's own id is what the bots
    were told).
    """
    from ..replay import load_log, match_page, timeline_of

    log = load_log(path)
    log.stderr = [record for record in log.stderr if record.get("seat") in stderr_of]
    timeline = timeline_of(log)  # (before the id is changed: the rules re-run the match as the bots were told it)
    if key:
        log.header = {**log.header, "match_id": key}
    return framed(match_page(log, seat=seat, seed_shown=seed_shown, timeline=timeline))


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


def _log_lines(path: Path, stderr_of: frozenset[str]) -> bytes:
    """The log at ``path`` as JSON lines, byte for byte, less the stderr lines of seats not in ``stderr_of``."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    kept = []
    with opener(path, "rb") as lines:
        for line in lines:
            if b'"stderr"' in line:
                record = json.loads(line)
                if record.get("type") == "stderr" and record.get("seat") not in stderr_of:
                    continue
            kept.append(line)
    return b"".join(kept)


# Shapes -------------------------------------------------------------------------------------
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


def _outcome(match: PlayedMatch, bot: str) -> str:
    """``won``, ``lost`` or ``drew``: how ``bot`` (a bot's name; its versions are ``bot.vN``) did in ``match``."""
    seat = "A" if match.bot_a.split(".")[0] == bot else "B"
    if match.winner is None:
        return "lost" if seat in match.forfeit else "drew"
    return "won" if match.winner == seat else "lost"
