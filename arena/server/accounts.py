"""Accounts: logging in (by token or a login link) and out, registering, a participant's own page, its uploads
and their results.

A participant is who its session cookie or bearer token says (:meth:`arena.server.web.Pages.who`); every form
here carries the session's CSRF token. An upload streams to a file of its own, bounded as it streams, before the
service's submission pipeline (:class:`~arena.server.submissions.Submissions`) takes it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import trio
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route

from .._errors import ConfigError, StoreError, UploadRefused
from .archive import LANGUAGES
from .service import Competition
from .state import NAME_RULE, Participant, Submission, check_name
from .submissions import Busy

LINK_SPENT = (
    "that login link is spent or expired (a link logs in once, within a week): log in with your token,"
    " or ask the organiser for a new link"
)
FORM_OVERHEAD = 64 << 10
"""Bytes a multipart body may hold beyond the file itself (boundaries, the other fields)."""
UPLOADS_IN_FLIGHT = 8
"""Uploads the server receives at once, from everyone: one more is refused (503) before its body is read.
With each participant's own bound of one, it keeps what uploads hold on disk while they stream to
``UPLOADS_IN_FLIGHT`` times ``[uploads] max_bytes`` (twice that while one is copied to its file)."""
UPLOAD_READ_S = 120.0
"""The longest an upload's body may take to arrive (408 after): a client sending a byte now and then holds its
slot no longer. 5 MB in 120 s is a 42 KB/s line."""
INVITE_ONLY = "registration is by invitation: ask the organiser for an invitation link"


class TooLarge(Exception):
    """The request body went over its limit while streaming."""


class Pages(Protocol):
    """What the account pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def need(self, request: Request) -> Participant: ...
    def address(self, request: Request) -> str: ...
    def check_csrf(self, request: Request, sent: Any) -> None: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...


class AccountPages:
    """Logging in and out, registering, a participant's page and uploads; ``small_form`` reads a small form."""

    def __init__(
        self,
        pages: Pages,
        small_form: Callable[[Request], Awaitable[FormData]],
        replay_page: Callable[..., str],
        replay_csp: str,
    ) -> None:
        self.pages = pages
        self.c = pages.c
        self.small_form = small_form
        self.replay_page = replay_page
        """A replay page of a match log (``web._replay_page``: path, seat, stderr seats, seed shown, key, back)."""
        self.replay_csp = replay_csp
        self._registrations: dict[str, list[float]] = {}
        """When each address registered in the last hour."""
        self._uploading: set[int] = set()
        """The participants (by id) whose upload is being received or unpacked now."""

    def routes(self) -> list[BaseRoute]:
        """The account routes."""
        return [
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/login/{code}", self.login_link),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/register", self.register, methods=["GET", "POST"]),
            Route("/me", self.me),
            Route("/me/submit", self.submit, methods=["POST"]),
            Route("/submissions/{sid:int}", self.submission),
            Route("/submissions/{sid:int}/replay/{label}", self.check_replay),
        ]

    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            return self.pages.page(request, "login.html")
        form = await self.small_form(request)
        self.pages.check_csrf(request, form.get("csrf"))
        code = str(form.get("code", ""))
        if code:  # from a login link: it logs in once
            participant = self.c.participants.by_login_code(code, use=True)
            if participant is None:
                return self.pages.page(request, "login.html", 401, message=LINK_SPENT)
        else:
            participant = self.c.participants.by_token(str(form.get("token", "")))
            if participant is None:
                return self.pages.page(request, "login.html", 401, message="that token is not valid")
        self._start_session(request, participant)
        return RedirectResponse("/admin" if participant.is_admin else "/me", status_code=303)

    async def login_link(self, request: Request) -> Response:
        """A login link: a page with one button (a link alone never logs anyone in: no login CSRF, and a preview
        of the link does not spend it); the button spends the link's code."""
        code = request.path_params["code"]
        participant = self.c.participants.by_login_code(code, use=False)
        if participant is None:
            return self.pages.page(request, "login.html", 401, message=LINK_SPENT)
        return self.pages.page(request, "login_link.html", code=code, participant=participant)

    def _start_session(self, request: Request, participant: Participant) -> None:
        old = request.session.get("sid")
        if isinstance(old, str):
            self.c.participants.end_session(old)
        request.session.clear()
        request.session["sid"] = self.c.participants.new_session(participant.id)
        request.session["csrf"] = secrets.token_urlsafe(24)  # a new session, a new CSRF token

    async def logout(self, request: Request) -> Response:
        form = await self.small_form(request)
        self.pages.check_csrf(request, form.get("csrf"))
        sid = request.session.get("sid")
        if isinstance(sid, str):
            self.c.participants.end_session(sid)
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    async def register(self, request: Request) -> Response:
        """Registering a name: anyone (``open``), anyone but approved before uploading (``approve``), or with an
        invitation the organiser made (``invite``: the code in the link, ``/register?code=...``)."""
        mode = self.c.config.registration
        code = str(request.query_params.get("code", ""))
        if request.method == "GET":
            if mode == "invite" and not self.c.participants.invite_valid(code):
                raise HTTPException(403, INVITE_ONLY)
            return self.pages.page(request, "register.html", rule=NAME_RULE, code=code, mode=mode)
        form = await self.small_form(request)
        self.pages.check_csrf(request, form.get("csrf"))
        code = str(form.get("code", ""))
        if mode == "invite" and not self.c.participants.invite_valid(code):
            raise HTTPException(403, INVITE_ONLY)
        client = self.pages.address(request)
        now = trio.current_time()
        recent = [t for t in self._registrations.get(client, []) if now - t < 3600]
        allowed = self.c.config.registrations_per_hour
        if len(recent) >= allowed:
            raise HTTPException(429, f"at most {allowed} registrations an hour from one address: try again later")
        name = str(form.get("name", "")).strip()

        def again(status: int, message: str) -> HTMLResponse:
            return self.pages.page(
                request, "register.html", status, rule=NAME_RULE, message=message, name=name, code=code
            )

        try:
            check_name(name)
        except ConfigError as exc:
            return again(400, str(exc))
        if self.c.participants.named(name) is not None:  # whatever its case
            return again(409, "that name is taken")
        refused = self.c.participants.name_refused(name)
        if refused:
            return again(409, f"that name {refused}")
        try:
            if mode == "invite":
                participant, token = self.c.participants.register_invited(code, name)
            else:
                participant, token = self.c.participants.add(name, new=True)
        except ConfigError as exc:  # taken meanwhile, or the invitation spent meanwhile
            return again(409, str(exc))
        if mode == "approve":
            self.c.participants.set_awaiting(participant.id, True)
        self._registrations[client] = [*recent, now]
        self._start_session(request, participant)
        return self.pages.page(request, "registered.html", token=token, me=participant, awaiting=mode == "approve")

    # A participant's own pages and uploads ------------------------------------------
    async def me(self, request: Request) -> Response:
        me = self.pages.need(request)
        if me.is_admin:
            return RedirectResponse("/admin", status_code=303)
        return self.pages.page(
            request,
            "me.html",
            awaiting=self.c.submissions.may_play(me),
            submissions=self.c.submissions.latest(me.id, limit=30),
            versions=self.c.versions(me.id)[::-1],
            dq=self.c.board().reasons(),
            private=True,
            submit_url=str(request.base_url).rstrip("/"),
            languages=LANGUAGES,
            limits=self.c.config.uploads,
        )

    async def submit(self, request: Request) -> Response:
        me = self.pages.need(request)
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
                self.pages.check_csrf(request, form.get("csrf"))
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
        me = self.pages.need(request)
        submission = self.own_submission(me, request.path_params["sid"])
        owner = self.c.participants.get(submission.participant_id)
        logged = (self.c.checks_dir / f"s{submission.id}").glob("check-*.jsonl")
        replays = sorted((p.stem for p in logged if p.stem[6:].isdigit()), key=lambda label: int(label[6:]))
        return self.pages.page(request, "submission.html", submission=submission, owner=owner, replays=replays)

    async def check_replay(self, request: Request) -> Response:
        """``/submissions/ID/replay/check-N``: the replay of a check's match, for the bot's owner and the organiser
        (the arena's reference bot's cards with it: the reference is the arena's own)."""
        me = self.pages.need(request)
        submission = self.own_submission(me, request.path_params["sid"])
        label = request.path_params["label"]
        path = self.c.checks_dir / f"s{submission.id}" / f"{label}.jsonl"
        if not re.fullmatch(r"check-\d{1,3}", label) or not path.is_file():
            raise HTTPException(404, "no such match in this submission's check")
        back = (f"/submissions/{submission.id}", f"submission {submission.id}'s check")
        try:
            html = await trio.to_thread.run_sync(self.replay_page, path, None, frozenset("AB"), True, "", back)
        except (OSError, StoreError, ValueError) as exc:  # (a check cut short may leave a log it cannot read)
            raise HTTPException(410, f"this check's match cannot be replayed: {type(exc).__name__}") from None
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})

    def own_submission(self, me: Participant, sid: int) -> Submission:
        submission = self.c.submissions.get(sid)
        if submission is None or not (me.is_admin or submission.participant_id == me.id):
            raise HTTPException(404, "no such submission of yours")
        return submission


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
