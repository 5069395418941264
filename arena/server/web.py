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
import re
import secrets
import shutil
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import msgspec
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
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from protocol import SEATS

from .._errors import ConfigError, StoreError, UploadRefused
from ..competition.ladder import other_table
from ..competition.results import render_csv
from ..competition.schedule import Scheduled
from ..competition.store import PlayedMatch
from . import retention
from ._clients import client_address
from .archive import LANGUAGES
from .files import bot_files, read_bot_file, tail_of
from .human import HumanPages
from .live import LivePages
from .maintain import backup_database
from .service import Busy, Competition, Version, relative_paths
from .state import NAME_RE, NAME_RULE, Participant, Submission, check_name
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
BOT_PAGE_MATCHES = 40
"""Matches on a page of a bot's history (older ones: the page's ``?before=`` link)."""
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
        Route("/submissions/{sid:int}/replay/{label}", pages.check_replay),
        Route("/bots/{name}", pages.bot),
        Route("/bots/{name}/v{number:int}/files", pages.files),
        Route("/bots/{name}/v{number:int}/files/{path:path}", pages.file),
        Route("/bots/{name}/v{number:int}/build.log", pages.build_log),
        Route("/bots/{name}/stderr/{file}", pages.stderr),
        Route("/matches/{key}", pages.match),
        Route("/matches/{key}/replay", pages.replay),
        Route("/matches/{key}/log", pages.match_log),
        Route("/matches/{key}/pin", pages.pin_log, methods=["POST"]),
        Route("/admin", pages.admin),
        Route("/admin/{action}", pages.admin_action, methods=["POST"]),
        Route("/admin/download/{what}", pages.download),
        Route("/api/standings", pages.api_standings),
        Route("/api/bots", pages.api_bots),
        Route("/api/bots/{name}", pages.api_bot),
        Route("/api/matches", pages.api_matches),
        Route("/api/matches/{key}", pages.api_match),
        Route("/api/matches/{key}/pin", pages.api_pin_log, methods=["POST"]),
        Route("/api/submissions", pages.api_submissions, methods=["GET", "POST"]),
        Route("/api/submissions/{sid:int}", pages.api_submission),
        Route("/api/admin/{action}", pages.api_admin, methods=["POST"]),
        Route("/api/events", pages.events),
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
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: pages.error},  # type: ignore[dict-item]
    )


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


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _num(value: Any, digits: int = 1) -> str:
    if value is None or _nan(value):
        return "-"
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


class Pages:
    """Every route's handler, over one competition."""

    def __init__(self, competition: Competition) -> None:
        self.c = competition
        self.static = StaticAssets(STATIC)
        self.env = _environment(self.static)
        self._fragment: tuple[int, str, str] | None = None
        self._standings_json: tuple[int, bytes] | None = None
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
        return viewer is not None and (viewer.is_admin or viewer.id == owner.id)

    def match_by_key(self, key: str) -> PlayedMatch:
        match = self.c.match(key)
        if match is None:
            raise HTTPException(404, "no such match")
        return match

    def owners_of(self, match: PlayedMatch | Scheduled) -> list[Participant | None]:
        """The owners of the bots in seats A and B (a bot's name is its owner's)."""
        return [self.c.state.participant_named(bot) for bot in (match.bot_a, match.bot_b)]

    def replay_access(self, viewer: Participant | None, match: PlayedMatch | Scheduled) -> tuple[bool, str | None]:
        """Whether ``viewer`` may see the replay, and the seat it is limited to (``None``: both seats).

        Both seats' cards are the deal: while a match on it is still to be
        played (the pair's other leg), no one but the organiser sees them; an
        owner sees what its own bot saw.
        """
        if viewer is not None and viewer.is_admin:
            return True, None
        rule = self.c.config.replays
        over = self.c.deal_over(match)
        if over and (rule == "public" or (rule == "after-end" and self.c.frozen)):
            return True, None
        if viewer is None:  # (no look-up of the owners: /api/matches asks this of up to 1,000 matches)
            return False, None
        owners = self.owners_of(match)
        mine = [seat for seat, owner in zip(SEATS, owners, strict=True) if viewer and owner and owner.id == viewer.id]
        if not mine:
            return False, None
        if rule == "owners" and over:
            return True, None
        return True, mine[0]  # before the deal (or, with after-end, the competition) is over: its own bot's view

    def seed_shown(self, viewer: Participant | None, match: PlayedMatch) -> bool:
        """Whether ``viewer`` may see ``match``'s seed: only who may see both seats' cards (the deal is over)."""
        return self.replay_access(viewer, match) == (True, None)

    # Leaderboard and live updates ------------------------------------------------
    def board_context(self) -> dict[str, Any]:
        board = self.c.board()
        return {"board": board, "bars": _error_bars(board.rows), "recent": self.c.labelled(self.c.latest_matches(15))}

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
            awaiting=self.c.may_play(me),
            submissions=self.c.state.submissions(me.id, limit=30),
            versions=self.c.versions(me.id)[::-1],
            dq=_disqualified(self.c.board()),
            private=True,
            submit_url=str(request.base_url).rstrip("/"),
            languages=LANGUAGES,
            limits=self.c.config.uploads,
        )

    async def submit(self, request: Request) -> Response:
        me = self.need(request)
        sid = await self._take_upload(request, me, form_csrf=True)
        return RedirectResponse(f"/submissions/{sid}", status_code=303)

    async def _take_upload(self, request: Request, me: Participant, *, form_csrf: bool) -> int:
        try:
            self.c.may_upload(me)
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
                return await self.c.take_upload(me, target, filename=file.filename or "upload", language=language)
            except Busy as exc:
                raise HTTPException(429, str(exc)) from None
            except UploadRefused as exc:
                raise HTTPException(409, str(exc)) from None

    async def submission(self, request: Request) -> Response:
        me = self.need(request)
        submission = self._own_submission(me, request.path_params["sid"])
        owner = self.c.state.participant(submission.participant_id)
        logged = (self.c.checks_dir / f"s{submission.id}").glob("check-*.jsonl")
        replays = sorted((p.stem for p in logged if p.stem[6:].isdigit()), key=lambda label: int(label[6:]))
        return self.page(request, "submission.html", submission=submission, owner=owner, replays=replays)

    async def check_replay(self, request: Request) -> Response:
        """``/submissions/ID/replay/check-N``: the replay of a check's match, for the bot's owner and the organiser
        (the arena's reference bot's cards with it: the reference is the arena's own)."""
        me = self.need(request)
        submission = self._own_submission(me, request.path_params["sid"])
        label = request.path_params["label"]
        path = self.c.checks_dir / f"s{submission.id}" / f"{label}.jsonl"
        if not re.fullmatch(r"check-\d{1,3}", label) or not path.is_file():
            raise HTTPException(404, "no such match in this submission's check")
        back = (f"/submissions/{submission.id}", f"submission {submission.id}'s check")
        try:
            html = await trio.to_thread.run_sync(_replay_page, path, None, frozenset("AB"), True, "", back)
        except (OSError, StoreError, ValueError) as exc:  # (a check cut short may leave a log it cannot read)
            raise HTTPException(410, f"this check's match cannot be replayed: {type(exc).__name__}") from None
        return HTMLResponse(html, headers={"content-security-policy": REPLAY_CSP, "x-frame-options": "SAMEORIGIN"})

    def _own_submission(self, me: Participant, sid: int) -> Submission:
        submission = self.c.state.submission(sid)
        if submission is None or not (me.is_admin or submission.participant_id == me.id):
            raise HTTPException(404, "no such submission of yours")
        return submission

    # Bots -------------------------------------------------------------------------
    def bot_context(self, request: Request, name: str) -> dict[str, Any]:
        owner = self.participant(name)
        viewer = self.who(request)
        private = self.may_see_private(viewer, owner)
        versions = self.c.versions(owner.id)
        board = self.c.board()
        before = _before(request)
        wanted = _match_filter(request.query_params)
        against = self.c.state.participant_named(wanted["opponent"]) if wanted.get("opponent") else None
        page = self.c.latest_matches(
            BOT_PAGE_MATCHES + 1, before=before, participant=owner, opponent=against, result=wanted.get("result")
        )
        if wanted.get("opponent") and against is None:
            page = []
        matches = self.c.labelled(page[:BOT_PAGE_MATCHES])
        current = next((v for v in versions if v.playing), None)
        standing = next((row for row in board.board.standings if current and row.bot == owner.name), None)
        playing = {v.id: v.row.name for v in self.c.versions() if v.playing}
        opponents = sorted(
            (
                playing[other],
                {
                    "matches": t.matches,
                    "wins": t.wins,
                    "draws": t.draws,
                    "losses": t.losses,
                    "for": t.points_for,
                    "against": t.points_against,
                },
            )
            for other, t in (self.c.store.opponents(current.id) if current else {}).items()
            if other in playing and t.matches
        )  # fmt: skip (read by the totals' primary key: the bot's row of pairs, not the field's)
        faults = [
            (labelled, fault)
            for match, fault in self.c.store.latest_faults(self.c.tid, [v.id for v in versions], 50)
            for labelled in self.c.labelled([match])
        ]
        history = self.c.state.rating_history(current.id) if current else []
        dates = self.c.state.rating_dates(current.id) if current else {}
        finished = self.c.store.finished_times(self.c.tid, [m.key for m in matches])
        tables = self.other_tables(matches)
        older = page[BOT_PAGE_MATCHES - 1].row_id if len(page) > BOT_PAGE_MATCHES else None
        stderr = []
        if private:
            folder = self.c.logs / "stderr"
            if folder.is_dir():
                stderr = sorted(
                    (p.name for p in folder.iterdir() if _owner_name(p.name) == owner.name and p.is_file()),
                    reverse=True,
                )[:40]
        return {
            "owner": owner,
            "private": private,
            "versions": versions[::-1],
            "current": current,
            "standing": standing,
            "opponents": opponents,
            "faults": faults,
            "matches": matches,
            "filter": wanted,
            "filtered": bool(wanted),
            "pager": {
                "newer": urlencode(wanted) if before is not None else None,
                "older": urlencode({**wanted, "before": older}) if older is not None else None,
            },
            "dated": finished,
            "tables": tables,
            "records": _records(self.c.store, versions),
            "chart": _chart(history, dates),
            "stderr": stderr,
            "submissions": self.c.state.submissions(owner.id, limit=30) if private else [],
            "dq": _disqualified(board),
        }

    async def bot(self, request: Request) -> Response:
        return self.page(request, "bot.html", **self.bot_context(request, request.path_params["name"]))

    def other_tables(self, matches: list[PlayedMatch]) -> dict[str, PlayedMatch]:
        """The other table of each of ``matches`` played at two tables whose deal is over (both tables played),
        by the match's key, named by version as pages show them."""
        out = {}
        for match in matches:
            other = other_table(match.key)
            found = self.c.store.match(self.c.tid, other) if other else None
            if found is not None:
                out[match.key] = self.c.labelled([found])[0]
        return out

    def _private_version(self, request: Request) -> tuple[Participant, Version]:
        owner = self.participant(request.path_params["name"])
        viewer = self.who(request)
        if viewer is None:
            raise HTTPException(401, "log in to see your bot's files")
        if not self.may_see_private(viewer, owner):
            raise HTTPException(403, "only the bot's owner and the organiser see its files")
        version = self.c.version(owner.id, request.path_params["number"])
        if version is None:
            raise HTTPException(404, "no such version")
        return owner, version

    async def files(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        return self.page(request, "files.html", owner=owner, version=version, files=bot_files(Path(version.folder)))

    async def file(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        try:
            text = read_bot_file(Path(version.folder), request.path_params["path"])
        except FileNotFoundError:
            raise HTTPException(404, "no such file in this version") from None
        path = request.path_params["path"]
        return self.page(request, "file.html", owner=owner, version=version, path=path, text=text)

    async def build_log(self, request: Request) -> Response:
        owner, version = self._private_version(request)
        path = self.c.build_log(version)
        if path is None:
            raise HTTPException(404, "this version has no build command")
        try:
            text = tail_of(path)
        except FileNotFoundError:
            raise HTTPException(404, "no build log kept for this version (the build cache was emptied)") from None
        text = relative_paths(text, Path(version.folder), path.parent)
        return self.page(request, "file.html", owner=owner, version=version, path="build log", text=text)

    async def stderr(self, request: Request) -> Response:
        owner = self.participant(request.path_params["name"])
        viewer = self.who(request)
        if viewer is None:
            raise HTTPException(401, "log in to see your bot's stderr")
        if not self.may_see_private(viewer, owner):
            raise HTTPException(403, "only the bot's owner and the organiser see its stderr")
        name = request.path_params["file"]
        if _owner_name(name) != owner.name or "/" in name or name.startswith("."):
            raise HTTPException(404, "no such stderr file")
        try:
            text = tail_of(self.c.logs / "stderr" / name)
        except FileNotFoundError:
            raise HTTPException(404, "no such stderr file") from None
        return self.page(request, "file.html", owner=owner, version=None, path=name, text=text)

    # Matches ------------------------------------------------------------------------
    async def match(self, request: Request) -> Response:
        match = self.match_by_key(request.path_params["key"])
        viewer = self.who(request)
        allowed, seat = self.replay_access(viewer, match)
        log = await self.c.log_state(match) if match.log_path else None
        return self.page(
            request,
            "match.html",
            match=self.c.labelled([match])[0],
            owners=[match.bot_a, match.bot_b],
            replay=allowed and bool(match.log_path) and not (log and log.pruned_at),
            log=log,
            may_pin=bool(match.log_path) and not (log and log.pruned_at) and self.may_pin(viewer, match),
            pinned=bool(log and viewer and viewer.id in log.pinned_by),
            seat=seat,
            rule=self.c.config.replays,
            seed=str(match.seed) if allowed and seat is None else "",
            deal_over=self.c.deal_over(match),
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
        if viewer is not None and viewer.is_admin:
            return frozenset(SEATS)
        owners = self.owners_of(match)
        return frozenset(s for s, o in zip(SEATS, owners, strict=True) if viewer and o and o.id == viewer.id)

    async def replay(self, request: Request) -> Response:
        match = self.match_by_key(request.path_params["key"])
        allowed, seat = self.replay_access(self.who(request), match)
        if not allowed:
            raise HTTPException(403, "this match's replay is not public")
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        log = await self.c.log_state(match)
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

    # The organiser -------------------------------------------------------------------
    async def admin(self, request: Request, *, invited: str = "") -> Response:
        self.need_admin(request)
        return self.page(
            request,
            "admin.html",
            invited=invited,
            awaiting=self.c.state.awaiting_ids(),
            board=(board := self.c.board()),
            dq=_disqualified(board),
            participants=[p for p in self.c.state.participants() if not p.is_admin],
            versions=_by_participant(self.c.versions()),
            submissions=self.c.state.submissions(limit=30),
            names={p.id: p.name for p in self.c.state.participants()},
        )

    async def admin_action(self, request: Request) -> Response:
        self.need_admin(request)
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        if request.path_params["action"] == "invite":  # the link is shown once, on the page this answers
            return await self.admin(request, invited=self.invite_url(request))
        self._act(request.path_params["action"], form)
        return RedirectResponse("/admin", status_code=303)

    def invite_url(self, request: Request) -> str:
        """A new invitation's link (it registers one name, within a month)."""
        base = self.c.state.setting("login_base") or str(request.base_url)
        return f"{base.rstrip('/')}/register?{urlencode({'code': self.c.state.new_invite()})}"

    async def api_admin(self, request: Request) -> Response:
        self.need_admin(request)
        self.check_api_write(request)
        data = await _json_object(request)
        if request.path_params["action"] == "invite":
            return JSONResponse({"ok": True, "invite": self.invite_url(request)})
        self._act(request.path_params["action"], data)
        return JSONResponse({"ok": True, "paused": self.c.paused, "frozen": self.c.frozen})

    def _act(self, action: str, data: FormData | dict[str, Any]) -> None:
        if action in ("pause", "resume"):
            self.c.set_paused(action == "pause")
        elif action in ("freeze", "thaw"):
            self.c.set_frozen(action == "freeze")
        elif action in ("disqualify", "readmit"):
            participant = self.participant(str(data.get("name", "")))
            reason = str(data.get("reason", "")).strip()[:300] or "no reason given"
            self.c.disqualify(participant, reason if action == "disqualify" else "")
        elif action == "approve":
            self.c.state.set_awaiting(self.participant(str(data.get("name", ""))).id, False)
            self.c.touch()
        else:
            raise HTTPException(404, f"no admin action {action!r}")

    async def download(self, request: Request) -> Response:
        self.need_admin(request)
        what = request.path_params["what"]
        if what == "results.csv":
            board = self.c.board().board
            return PlainTextResponse(
                render_csv(board),
                media_type="text/csv",
                headers={"content-disposition": 'attachment; filename="results.csv"'},
            )
        if what == "server.sqlite":
            path = await trio.to_thread.run_sync(_backup, self.c.state.path, self.c.incoming)
            return FileResponse(
                path,
                filename="server.sqlite",
                media_type="application/vnd.sqlite3",
                background=_Remove(path),  # type: ignore[arg-type]
            )
        raise HTTPException(404, "download results.csv or server.sqlite")

    # The API ----------------------------------------------------------------------------
    async def api_standings(self, request: Request) -> Response:
        board = self.c.board()
        cached = self._standings_json
        if cached is None or cached[0] != board.stamp:  # encoded once per change
            cached = self._standings_json = (board.stamp, bytes(JSONResponse(board.to_json()).body))
        return Response(cached[1], media_type="application/json")

    async def api_bots(self, request: Request) -> Response:
        board = self.c.board()
        return JSONResponse(
            {
                "bots": [
                    {
                        "name": p.name,
                        "house": p.is_house,
                        "disqualified": p.disqualified,
                        "versions": [_version_json(v) for v in self.c.versions(p.id)],
                    }
                    for p in self.c.state.participants()
                    if not p.is_admin
                ],
                "matches": board.matches,
            }
        )

    async def api_bot(self, request: Request) -> Response:
        context = self.bot_context(request, request.path_params["name"])
        owner: Participant = context["owner"]
        standing = context["standing"]
        data: dict[str, Any] = {
            "name": owner.name,
            "house": owner.is_house,
            "disqualified": owner.disqualified,
            "versions": [_version_json(v, private=context["private"]) for v in context["versions"]],
            "standing": _clean(standing.__dict__) if standing else None,
            "opponents": {name: cell for name, cell in context["opponents"]},
            "faults": [
                {"match": m.key, "bot": f.bot, "kind": f.kind, "reason": f.reason} for m, f in context["faults"]
            ],
            "rating_history": [
                {"matches": n, "rating": elo, "error95": err}
                for n, elo, err in self.c.state.rating_history(context["current"].id if context["current"] else 0)
            ],
        }
        if context["private"]:
            data["submissions"] = [_submission_json(s) for s in context["submissions"]]
            data["stderr"] = context["stderr"]
        return JSONResponse(data)

    async def api_matches(self, request: Request) -> Response:
        bot = request.query_params.get("bot", "")
        try:
            limit = max(1, min(1000, int(request.query_params.get("limit", "100"))))
        except ValueError:
            raise HTTPException(400, "limit must be a number") from None
        owner = self.participant(bot) if bot else None
        viewer = self.who(request)
        page = self.c.latest_matches(limit + 1, before=_before(request), participant=owner)
        shown = page[:limit]
        return JSONResponse(
            {
                "matches": [
                    _match_json(labelled, self.seed_shown(viewer, match))
                    for match, labelled in zip(shown, self.c.labelled(shown), strict=True)
                ],
                # Keyset pagination: the next (older) page is ?before=this; null on the last page.
                "before": shown[-1].row_id if len(page) > limit else None,
            }
        )

    async def api_match(self, request: Request) -> Response:
        match = self.match_by_key(request.path_params["key"])
        allowed, seat = self.replay_access(self.who(request), match)
        data = _match_json(self.c.labelled([match])[0], allowed and seat is None)
        log = await self.c.log_state(match) if match.log_path else None
        pruned = bool(log and log.pruned_at)
        data["replay"] = f"/matches/{match.key}/replay" if allowed and match.log_path and not pruned else None
        data["replay_seat"] = seat
        data["log"] = _log_json(match, log)
        return JSONResponse(data)

    def may_pin(self, viewer: Participant | None, match: PlayedMatch) -> bool:
        """Whether ``viewer`` may pin ``match``'s deal: the organiser, or the owner of one of its bots."""
        return viewer is not None and (viewer.is_admin or viewer.name in (match.bot_a, match.bot_b))

    async def pin_log(self, request: Request) -> Response:
        """The match page's pin button: keep (or stop keeping) this deal's logs."""
        me = self.need(request)
        form = await _small_form(request)
        self.check_csrf(request, form.get("csrf"))
        match = self.match_by_key(request.path_params["key"])
        await self._pin(match, me, pinned=form.get("pin") != "0")
        return RedirectResponse(f"/matches/{match.key}", status_code=303)

    async def api_pin_log(self, request: Request) -> Response:
        """``POST {"pinned": true|false}``: pin or unpin the match's deal; answers the match's log state."""
        me = self.need(request)
        self.check_api_write(request)
        data = await _json_object(request)
        if not isinstance(data.get("pinned", True), bool):
            raise HTTPException(400, '"pinned" must be true or false')
        match = self.match_by_key(request.path_params["key"])
        await self._pin(match, me, pinned=data.get("pinned", True))
        return JSONResponse(_log_json(match, await self.c.log_state(match)))

    async def _pin(self, match: PlayedMatch, me: Participant, *, pinned: bool) -> None:
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        if not self.may_pin(me, match):
            raise HTTPException(403, "you may pin only your own bots' matches")
        try:
            await self.c.pin_log(match, me, pinned=pinned)
        except UploadRefused as exc:
            raise HTTPException(409, str(exc)) from None

    async def api_submissions(self, request: Request) -> Response:
        me = self.need(request)
        if request.method == "POST":
            self.check_api_write(request)
            sid = await self._take_upload(request, me, form_csrf=False)
            submission = self.c.state.submission(sid)
            assert submission is not None
            return JSONResponse(_submission_json(submission), status_code=201)
        subs = self.c.state.submissions(None if me.is_admin else me.id, limit=100)
        return JSONResponse({"submissions": [_submission_json(s) for s in subs]})

    async def api_submission(self, request: Request) -> Response:
        me = self.need(request)
        return JSONResponse(_submission_json(self._own_submission(me, request.path_params["sid"])))


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


def _backup(database: Path, folder: Path) -> Path:
    """A consistent copy of the live database (SQLite's online backup), to send and then delete."""
    fd, name = tempfile.mkstemp(suffix=".sqlite", dir=folder)
    os.close(fd)
    backup_database(database, Path(name))
    return Path(name)


class _Remove:
    """A background task deleting a file once its response is sent."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def __call__(self) -> None:
        self.path.unlink(missing_ok=True)


# Shapes -------------------------------------------------------------------------------------
def _by_participant(versions: list[Version]) -> dict[int, list[Version]]:
    out: dict[int, list[Version]] = {}
    for version in versions:
        out.setdefault(version.participant_id, []).append(version)
    return out


def _owner_name(text: str) -> str:
    """The participant a version's label or a stderr file's name is of (participants' names hold no dot)."""
    return text.split(".", 1)[0]


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if _nan(v) else v) for k, v in data.items()}


def _version_json(version: Version, *, private: bool = False) -> dict[str, Any]:
    return {
        "number": version.number,
        "bot": version.label,
        "created_at": version.created_at,
        "retired_at": version.retired_at,
        "admission": version.admission,
        "reason": version.reason if private else version.summary,
        "digest": version.row.digest,
    }


def _submission_json(submission: Submission) -> dict[str, Any]:
    return {
        "id": submission.id,
        "created_at": submission.created_at,
        "filename": submission.filename,
        "language": submission.language,
        "size": submission.size,
        "status": submission.status,
        "done": submission.done,
        "message": submission.message,
        "checks": submission.report,
        "finished_at": submission.finished_at,
    }


def _match_json(match: PlayedMatch, seed_shown: bool) -> dict[str, Any]:
    """A match as the API sends it; its seed a string (JavaScript's numbers would round it), or null while secret."""
    return {
        "key": match.key,
        "deal": match.deal,
        "leg": match.leg,
        "bot_a": match.bot_a,
        "bot_b": match.bot_b,
        "seed": str(match.seed) if seed_shown else None,
        "points": list(match.points),
        "winner": match.winner,
        "forfeit": list(match.forfeit),
        "reason": match.reason,
        "faults": [{"seat": f.seat, "bot": f.bot, "kind": f.kind, "reason": f.reason} for f in match.faults],
        "duration_s": match.duration_s,
    }


async def _json_object(request: Request) -> dict[str, Any]:
    """The request's JSON object of plain values (an empty body: ``{}``), or 400 saying what is wrong.

    Every API body is a flat object (``{"name": ..., "reason": ...}``,
    ``{"pinned": true}``), so it is read only up to ``JSON_MAX_BYTES`` and
    decoded by msgspec against that shape: a nested array or object is
    refused where it starts, and a 100,000-deep body never reaches a
    recursive parser (the standard library's raised ``RecursionError``, a 500).
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > JSON_MAX_BYTES:
        raise HTTPException(400, f"the body is larger than the {JSON_MAX_BYTES} bytes an API request may send")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > JSON_MAX_BYTES:
            raise HTTPException(400, f"the body is larger than the {JSON_MAX_BYTES} bytes an API request may send")
    if not body.strip():
        return {}
    try:
        return _FLAT_OBJECT.decode(body)
    except msgspec.ValidationError as exc:
        raise HTTPException(
            400, f"the body must be a JSON object of strings, numbers, true, false or null: {exc}"
        ) from None
    except msgspec.DecodeError as exc:
        raise HTTPException(400, f"the body must be JSON: {exc}") from None


JSON_MAX_BYTES = 64 << 10
"""The most an API request's JSON body may hold."""
_FLAT_OBJECT = msgspec.json.Decoder(dict[str, str | int | float | bool | None])


def _log_json(match: PlayedMatch, log: retention.LogState | None) -> dict[str, Any]:
    """A match's log as the API sends it: whether it is kept, pinned (by how many), or pruned when and why."""
    return {
        "kept": bool(match.log_path) and not (log and log.pruned_at),
        "pruned_at": log.pruned_at if log else None,
        "pruned_why": log.pruned_why if log else "",
        "pins": len(log.pinned_by) if log else 0,
    }


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


CHART_W, CHART_H = 640.0, 220.0
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 52.0, 16.0, 12.0, 44.0
"""The bot page's rating chart: its box and the margins that hold the axes' labels."""


def _chart(history: list[tuple[int, float, float | None]], dates: dict[int, str]) -> dict[str, Any] | None:
    """A version's rating over the ladder's matches (with its 95% band), as SVG coordinates, with labelled axes.

    ``dates``: when the ladder's n-th match finished (for the x axis's labels), where known.
    """
    if len(history) < 2:
        return None
    xs = [h[0] for h in history]
    lows = [h[1] - (h[2] or 0.0) for h in history]
    highs = [h[1] + (h[2] or 0.0) for h in history]
    step = _tick_step(max(highs) - min(lows))
    y_low = math.floor(min(lows) / step) * step
    y_high = max(math.ceil(max(highs) / step) * step, y_low + step)
    x_span = max(xs[-1] - xs[0], 1)
    inner_w = CHART_W - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_H - CHART_TOP - CHART_BOTTOM

    def px(x: float) -> float:
        return round(CHART_LEFT + (x - xs[0]) / x_span * inner_w, 1)

    def py(y: float) -> float:
        return round(CHART_TOP + inner_h - (y - y_low) / (y_high - y_low) * inner_h, 1)

    line = " ".join(f"{px(x)},{py(h[1])}" for x, h in zip(xs, history, strict=True))
    band = " ".join(
        [f"{px(x)},{py(hi)}" for x, hi in zip(xs, highs, strict=True)]
        + [f"{px(x)},{py(lo)}" for x, lo in reversed(list(zip(xs, lows, strict=True)))]
    )
    y_ticks = [{"y": py(v), "label": f"{v:+.0f}".replace("-", "\u2212")} for v in _frange(y_low, y_high, step)]
    picks = sorted({xs[0], xs[len(xs) // 2], xs[-1]})
    x_ticks = [{"x": px(n), "label": f"match {n}", "date": (dates.get(n) or "")[:16].replace("T", " ")} for n in picks]
    return {
        "line": line,
        "band": band,
        "first": xs[0],
        "last": xs[-1],
        "low": round(min(lows)),
        "high": round(max(highs)),
        "now": round(history[-1][1]),
        "y_ticks": y_ticks,
        "x_ticks": x_ticks,
        "box": {"w": CHART_W, "h": CHART_H, "left": CHART_LEFT, "right": CHART_W - CHART_RIGHT,
                "top": CHART_TOP, "bottom": CHART_H - CHART_BOTTOM},
    }  # fmt: skip


def _tick_step(span: float) -> float:
    """A round step that cuts ``span`` into 3 to 6 ticks (10, 20, 25, 50, 100...)."""
    span = max(span, 1.0)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if span / step <= 5:
            return float(step)
    return 10.0 ** math.ceil(math.log10(span / 5))


def _frange(low: float, high: float, step: float) -> list[float]:
    count = round((high - low) / step)
    return [low + i * step for i in range(count + 1)]


RESULTS = ("won", "drew", "lost")
"""How a bot's match list may be filtered by result (``?result=``)."""


def _match_filter(query: Any) -> dict[str, str]:
    """The ``?result=`` and ``?opponent=`` of a bot's match list (only the values it knows: the rest is dropped)."""
    out = {}
    if (result := query.get("result", "")) in RESULTS:
        out["result"] = result
    if (opponent := query.get("opponent", "")) and NAME_RE.fullmatch(opponent):
        out["opponent"] = opponent
    return out


def _disqualified(board: Any) -> dict[int, str]:
    """Why each disqualified version of the field is (by its faults, its disk, or the organiser), by version id:
    every page says it in the leaderboard's words (a version table said "playing")."""
    return {row.version.id: row.reason for row in board.rows if row.reason}


def _records(store: Any, versions: list[Version]) -> dict[str, dict[str, int]]:
    """Each version's wins, draws, losses and matches (by version label), from the store's pair totals."""
    out = {}
    for version in versions:
        totals = store.opponents(version.id).values()
        won, drew, lost = (sum(getattr(t, k) for t in totals) for k in ("wins", "draws", "losses"))
        out[version.label] = {"won": won, "drew": drew, "lost": lost, "matches": sum(t.matches for t in totals)}
    return out


def _outcome(match: PlayedMatch, bot: str) -> str:
    """``won``, ``lost`` or ``drew``: how ``bot`` (a bot's name; its versions are ``bot.vN``) did in ``match``."""
    seat = "A" if match.bot_a.split(".")[0] == bot else "B"
    if match.winner is None:
        return "lost" if seat in match.forfeit else "drew"
    return "won" if match.winner == seat else "lost"


def _before(request: Request) -> int | None:
    """The ``?before=`` of a page of matches: the id of the last match the previous page showed (keyset pagination)."""
    text = request.query_params.get("before", "")
    if not text:
        return None
    if not text.isdigit() or len(text) > 18:
        raise HTTPException(400, "before must be a match id (a whole number), as the previous page gave it")
    return int(text)
