"""The JSON API, mounted at ``/api``: standings, bots, matches, pins, submissions and the organiser's switches.

The same answers as the pages, for programs (``arena submit``, a
participant's scripts): it asks the same parts and the same access policy
(:mod:`arena.server.access`) through the pages' helpers, which
:class:`Pages` names. A write authenticated by cookie carries the CSRF token
in a header; one with a bearer token needs none.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import msgspec
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..competition.render import standing_data
from ..competition.store import PlayedMatch
from . import retention
from ._text import JSONResponse
from .accounts import AccountPages
from .admin import AdminPages
from .bots import BOT_PAGE_MATCHES, RECORD_FIELDS, BotPages, _before
from .matches import MatchPages
from .service import Competition
from .state import Participant, Submission
from .versions import Version

JSON_MAX_BYTES = 64 << 10
"""The most an API request's JSON body may hold."""
_FLAT_OBJECT = msgspec.json.Decoder(dict[str, str | int | float | bool | None])


class Pages(Protocol):
    """What the API uses of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def need(self, request: Request) -> Participant: ...
    def need_admin(self, request: Request) -> Participant: ...
    def participant(self, name: str) -> Participant: ...
    def match_by_key(self, key: str) -> PlayedMatch: ...
    def replay_access(self, viewer: Participant | None, match: PlayedMatch) -> tuple[bool, str | None]: ...
    def seed_shown(self, viewer: Participant | None, match: PlayedMatch) -> bool: ...
    def check_api_write(self, request: Request) -> None: ...
    async def events(self, request: Request) -> Response: ...


class Api:
    """The API's handlers, over the pages' helpers."""

    def __init__(
        self, pages: Pages, admin: AdminPages, bots: BotPages, matches: MatchPages, accounts: AccountPages
    ) -> None:
        self.pages = pages
        self.account_pages = accounts
        self.admin_pages = admin
        self.bot_pages = bots
        self.match_pages = matches
        self.c = pages.c
        self._standings_json: tuple[int, bytes] | None = None
        """The standings' JSON, encoded once per change of the board."""

    def routes(self) -> list[BaseRoute]:
        """The API's routes, under its mount (``/api``)."""
        return [
            Route("/standings", self.standings),
            Route("/bots", self.bots),
            Route("/bots/{name}", self.bot),
            Route("/matches", self.matches),
            Route("/matches/{key}", self.match),
            Route("/matches/{key}/pin", self.pin, methods=["POST"]),
            Route("/submissions", self.submissions, methods=["GET", "POST"]),
            Route("/submissions/{sid:int}", self.submission),
            Route("/admin/{action}", self.admin, methods=["POST"]),
            Route("/events", self.pages.events),
        ]

    async def standings(self, request: Request) -> Response:
        board = self.c.board()
        cached = self._standings_json
        if cached is None or cached[0] != board.stamp:  # encoded once per change
            cached = self._standings_json = (board.stamp, bytes(JSONResponse(board.to_json()).body))
        return Response(cached[1], media_type="application/json")

    async def bots(self, request: Request) -> Response:
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
                    for p in self.c.participants.all()
                    if not p.is_admin
                ],
                "matches": board.matches,
            }
        )

    async def bot(self, request: Request) -> Response:
        context = self.bot_pages.context(request, request.path_params["name"], page=False)
        owner: Participant = context["owner"]
        standing = context["standing"]
        data: dict[str, Any] = {
            "name": owner.name,
            "house": owner.is_house,
            "disqualified": owner.disqualified,
            "versions": [_version_json(v, private=context["private"]) for v in context["versions"]],
            "standing": _clean(standing_data(standing)) if standing else None,
            "opponents": {name: dict(zip(RECORD_FIELDS, record, strict=True)) for name, record in context["opponents"]},
            "faults": [
                {"match": m.key, "bot": f.bot, "kind": f.kind, "reason": f.reason} for m, f in context["faults"]
            ],
            "rating_history": [
                {"matches": n, "rating": elo, "error95": err}
                for n, elo, err in self.bot_pages.rating_history(context["current"].id if context["current"] else 0)
            ],
        }
        # Its latest matches as its page lists them, and the older page's cursor (?before=this; null on the last).
        viewer = self.pages.who(request)
        page = self.c.catalogue.latest_matches(BOT_PAGE_MATCHES + 1, before=_before(request), participant=owner)
        shown = page[:BOT_PAGE_MATCHES]
        self.c.catalogue.deals_over(shown)  # (which deals are over, in one read: each match's seed asks)
        data["matches"] = [
            _match_json(labelled, self.pages.seed_shown(viewer, match))
            for match, labelled in zip(shown, self.c.catalogue.labelled(shown), strict=True)
        ]
        data["before"] = shown[-1].row_id if len(page) > BOT_PAGE_MATCHES else None
        if context["private"]:
            data["submissions"] = [_submission_json(s) for s in context["submissions"]]
            data["stderr"] = context["stderr"]
        return JSONResponse(data)

    async def matches(self, request: Request) -> Response:
        bot = request.query_params.get("bot", "")
        try:
            limit = max(1, min(1000, int(request.query_params.get("limit", "100"))))
        except ValueError:
            raise HTTPException(400, "limit must be a number") from None
        owner = self.pages.participant(bot) if bot else None
        viewer = self.pages.who(request)
        page = self.c.catalogue.latest_matches(limit + 1, before=_before(request), participant=owner)
        shown = page[:limit]
        self.c.catalogue.deals_over(shown)  # (which deals are over, in one read: each match's seed asks)
        return JSONResponse(
            {
                "matches": [
                    _match_json(labelled, self.pages.seed_shown(viewer, match))
                    for match, labelled in zip(shown, self.c.catalogue.labelled(shown), strict=True)
                ],
                # Keyset pagination: the next (older) page is ?before=this; null on the last page.
                "before": shown[-1].row_id if len(page) > limit else None,
            }
        )

    async def match(self, request: Request) -> Response:
        match = self.pages.match_by_key(request.path_params["key"])
        allowed, seat = self.pages.replay_access(self.pages.who(request), match)
        data = _match_json(self.c.catalogue.labelled([match])[0], allowed and seat is None)
        log = await self.c.log_upkeep.state_of(match) if match.log_path else None
        pruned = bool(log and log.pruned_at)
        data["replay"] = f"/matches/{match.key}/replay" if allowed and match.log_path and not pruned else None
        data["replay_seat"] = seat
        data["log"] = _log_json(match, log)
        return JSONResponse(data)

    async def pin(self, request: Request) -> Response:
        """``POST {"pinned": true|false}``: pin or unpin the match's deal; answers the match's log state."""
        me = self.pages.need(request)
        self.pages.check_api_write(request)
        data = await _json_object(request)
        if not isinstance(data.get("pinned", True), bool):
            raise HTTPException(400, '"pinned" must be true or false')
        match = self.pages.match_by_key(request.path_params["key"])
        await self.match_pages.pin_match(match, me, pinned=data.get("pinned", True))
        return JSONResponse(_log_json(match, await self.c.log_upkeep.state_of(match)))

    async def submissions(self, request: Request) -> Response:
        me = self.pages.need(request)
        if request.method == "POST":
            self.pages.check_api_write(request)
            sid = await self.account_pages.take_upload(request, me, form_csrf=False)
            submission = self.c.submissions.get(sid)
            assert submission is not None
            return JSONResponse(_submission_json(submission), status_code=201)
        subs = self.c.submissions.latest(None if me.is_admin else me.id, limit=100)
        return JSONResponse({"submissions": [_submission_json(s) for s in subs]})

    async def submission(self, request: Request) -> Response:
        me = self.pages.need(request)
        return JSONResponse(_submission_json(self.account_pages.own_submission(me, request.path_params["sid"])))

    async def admin(self, request: Request) -> Response:
        self.pages.need_admin(request)
        self.pages.check_api_write(request)
        data = await _json_object(request)
        if request.path_params["action"] == "invite":
            return JSONResponse({"ok": True, "invite": self.admin_pages.invite_url(request)})
        self.admin_pages.act(request.path_params["action"], data)
        return JSONResponse({"ok": True, "paused": self.c.paused, "frozen": self.c.frozen})


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
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # (a string not UTF-8: the latter before msgspec 0.23)
        raise HTTPException(400, f"the body must be JSON: {exc}") from None


def _log_json(match: PlayedMatch, log: retention.LogState | None) -> dict[str, Any]:
    """A match's log as the API sends it: whether it is kept, pinned (by how many), or pruned when and why."""
    return {
        "kept": bool(match.log_path) and not (log and log.pruned_at),
        "pruned_at": log.pruned_at if log else None,
        "pruned_why": log.pruned_why if log else "",
        "pins": len(log.pinned_by) if log else 0,
    }


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
