"""A recorded match's pages: the match, its replay, its log to download, and the pin that keeps its deal's logs.

Who sees which seat's cards, the seed and which stderr is
:mod:`arena.server.access`; a match in play is :mod:`arena.server.live`'s.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import trio
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import UploadRefused
from ..competition.ladder import other_table
from ..competition.store import PlayedMatch
from . import access
from .service import Competition
from .state import Participant


class Pages(Protocol):
    """What a match's pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def need(self, request: Request) -> Participant: ...
    def check_csrf(self, request: Request, sent: Any) -> None: ...
    def match_by_key(self, key: str) -> PlayedMatch: ...
    def owners_of(self, match: PlayedMatch) -> list[Participant | None]: ...
    def replay_access(self, viewer: Participant | None, match: PlayedMatch) -> tuple[bool, str | None]: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...


class MatchPages:
    """A recorded match's pages, over the pages' helpers: ``small_form`` reads a small posted form,
    ``replay_page`` draws a replay (``replay_csp`` its content security policy)."""

    def __init__(
        self,
        pages: Pages,
        small_form: Callable[[Request], Awaitable[FormData]],
        replay_page: Callable[[Path, str | None, frozenset[str], bool, str], str],
        replay_csp: str,
    ) -> None:
        self.pages = pages
        self.c = pages.c
        self.small_form = small_form
        self.replay_page = replay_page
        self.replay_csp = replay_csp

    def routes(self) -> list[BaseRoute]:
        """A recorded match's routes (``/matches/KEY/live...`` are :mod:`arena.server.live`'s)."""
        return [
            Route("/matches/{key}", self.match),
            Route("/matches/{key}/replay", self.replay),
            Route("/matches/{key}/log", self.match_log),
            Route("/matches/{key}/pin", self.pin_log, methods=["POST"]),
        ]

    async def match(self, request: Request) -> Response:
        match = self.pages.match_by_key(request.path_params["key"])
        viewer = self.pages.who(request)
        allowed, seat = self.pages.replay_access(viewer, match)
        log = await self.c.log_upkeep.state_of(match) if match.log_path else None
        return self.pages.page(
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
        match = self.pages.match_by_key(request.path_params["key"])
        viewer = self.pages.who(request)
        allowed, seat = self.pages.replay_access(viewer, match)
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
        return access.stderr_seats(viewer, self.pages.owners_of(match))

    async def replay(self, request: Request) -> Response:
        match = self.pages.match_by_key(request.path_params["key"])
        allowed, seat = self.pages.replay_access(self.pages.who(request), match)
        if not allowed:
            raise HTTPException(403, "this match's replay is not public")
        if not match.log_path:
            raise HTTPException(404, "this match was played without a log")
        log = await self.c.log_upkeep.state_of(match)
        if log is not None and log.pruned_at:
            raise HTTPException(410, f"this match's log was pruned at {log.pruned_at}: {log.pruned_why}")
        stderr_of = self.stderr_seats(self.pages.who(request), match)
        try:
            html = await trio.to_thread.run_sync(
                self.replay_page, Path(match.log_path), seat, stderr_of, seat is None, match.key
            )
        except FileNotFoundError:  # (deleted by hand, or the pruner killed between the file and its row)
            raise HTTPException(410, "this match's log is missing from the server") from None
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})

    def may_pin(self, viewer: Participant | None, match: PlayedMatch) -> bool:
        """Whether ``viewer`` may pin ``match``'s deal: the organiser, or the owner of one of its bots."""
        return access.may_pin(viewer, (match.bot_a, match.bot_b))

    async def pin_log(self, request: Request) -> Response:
        """The match page's pin button: keep (or stop keeping) this deal's logs."""
        me = self.pages.need(request)
        form = await self.small_form(request)
        self.pages.check_csrf(request, form.get("csrf"))
        match = self.pages.match_by_key(request.path_params["key"])
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
