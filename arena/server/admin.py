"""The organiser's pages: ``/admin`` (the switches, approvals, invitations) and its downloads.

The JSON API's ``/api/admin/ACTION`` does the same actions (:meth:`AdminPages.act`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import trio
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..competition.render import render_csv
from .maintain import backup_database
from .service import Competition
from .state import Participant
from .versions import Version


class Pages(Protocol):
    """What the organiser's pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def need_admin(self, request: Request) -> Participant: ...
    def participant(self, name: str) -> Participant: ...
    def check_csrf(self, request: Request, sent: Any) -> None: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...


class AdminPages:
    """The organiser's pages, over the pages' helpers; ``small_form`` reads a small posted form."""

    def __init__(self, pages: Pages, small_form: Callable[[Request], Awaitable[FormData]]) -> None:
        self.pages = pages
        self.c = pages.c
        self.small_form = small_form

    def routes(self) -> list[BaseRoute]:
        """The organiser's routes (``/admin`` itself is one: no mount, whose root would be ``/admin/``)."""
        return [
            Route("/admin", self.page),
            Route("/admin/{action}", self.action, methods=["POST"]),
            Route("/admin/download/{what}", self.download),
        ]

    async def page(self, request: Request, *, invited: str = "") -> Response:
        """``/admin``: the switches, who awaits approval, every participant's versions, the latest uploads."""
        self.pages.need_admin(request)
        return self.pages.page(
            request,
            "admin.html",
            invited=invited,
            awaiting=self.c.participants.awaiting_ids(),
            board=(board := self.c.board()),
            dq=board.reasons(),
            participants=[p for p in self.c.participants.all() if not p.is_admin],
            versions=_by_participant(self.c.versions()),
            submissions=self.c.submissions.latest(limit=30),
            names={p.id: p.name for p in self.c.participants.all()},
        )

    async def action(self, request: Request) -> Response:
        """``POST /admin/ACTION``: a switch of the admin page's forms."""
        self.pages.need_admin(request)
        form = await self.small_form(request)
        self.pages.check_csrf(request, form.get("csrf"))
        if request.path_params["action"] == "invite":  # the link is shown once, on the page this answers
            return await self.page(request, invited=self.invite_url(request))
        self.act(request.path_params["action"], form)
        return RedirectResponse("/admin", status_code=303)

    def invite_url(self, request: Request) -> str:
        """A new invitation's link (it registers one name, within a month)."""
        base = self.c.participants.setting("login_base") or str(request.base_url)
        return f"{base.rstrip('/')}/register?{urlencode({'code': self.c.participants.new_invite()})}"

    def act(self, action: str, data: FormData | dict[str, Any]) -> None:
        """Do the organiser's ``action`` (pause, resume, freeze, thaw, disqualify, readmit, approve)."""
        if action in ("pause", "resume"):
            self.c.set_paused(action == "pause")
        elif action in ("freeze", "thaw"):
            self.c.set_frozen(action == "freeze")
        elif action in ("disqualify", "readmit"):
            participant = self.pages.participant(str(data.get("name", "")))
            reason = str(data.get("reason", "")).strip()[:300] or "no reason given"
            self.c.disqualify(participant, reason if action == "disqualify" else "")
        elif action == "approve":
            self.c.participants.set_awaiting(self.pages.participant(str(data.get("name", ""))).id, False)
            self.c.field_changed()
        else:
            raise HTTPException(404, f"no admin action {action!r}")

    async def download(self, request: Request) -> Response:
        """``/admin/download/results.csv`` or ``server.sqlite`` (an online backup)."""
        self.pages.need_admin(request)
        what = request.path_params["what"]
        if what == "results.csv":
            board = self.c.board().board
            return PlainTextResponse(
                render_csv(board),
                media_type="text/csv",
                headers={"content-disposition": 'attachment; filename="results.csv"'},
            )
        if what == "server.sqlite":
            path = await trio.to_thread.run_sync(_backup, self.c.store.path, self.c.incoming)
            return FileResponse(
                path,
                filename="server.sqlite",
                media_type="application/vnd.sqlite3",
                background=_Remove(path),  # type: ignore[arg-type]
            )
        raise HTTPException(404, "download results.csv or server.sqlite")


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


def _by_participant(versions: list[Version]) -> dict[int, list[Version]]:
    out: dict[int, list[Version]] = {}
    for version in versions:
        out.setdefault(version.participant_id, []).append(version)
    return out
