"""Matches in play: their logs read while they are written, and what each viewer may see of them.

The ladder's matches write their logs step by step on a server
(:data:`arena.supervisor.matchlog.LIVE_ENV`), compressed with a sync flush at
each step, so this process can read a log while its match goes on, in the
worker process or here. Each log in play is read by one :class:`GrowingLog`,
at most every ``LIVE_POLL_S``, however many pages watch it.

Who sees what is the replays' rule (``Pages.replay_access``), applied to a
match that has not ended: its deal is not over, so the organiser sees
everything, the owner of a seat's bot sees that seat's view, and anyone else
sees who plays and nothing of the table until the match and its deal's other
leg have ended (then the live page becomes the match's page, with the replay
the rule allows). What a viewer is sent is cut on the server: a seat's view
is the replay page's seat view (the other seat's messages are not in it), and
its live events count only that seat's own messages, so neither their ids,
their number nor their timing follow what the other seat was sent.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from ..competition.ladder import InPlay
from ..competition.schedule import Scheduled
from ..replay import LoggedMatch, RulesUnavailable, Timeline, index_records, verify
from ..replay.watch import LogTail
from ._text import JSONResponse
from .service import Competition
from .state import Participant

STOPPED = "re-running the rules"
"""Where :func:`arena.replay.verify` says a log ended before the rules (a match in play: its answer is awaited)."""
LIVE_POLL_S = 1.0
"""How often a match in play's log is read again, and the most often a live page hears of a change."""
LIVE_STREAMS = 64
"""Live matches' event streams open at once, from everyone (see :class:`StreamShares`)."""
LIVE_STREAMS_EACH = 4
"""Live event streams open at once for one participant, or from one address for anyone not logged in."""
EVICTED = "someone else wanted to watch, and the server's live streams are shared out evenly"
"""Why a stream was ended to make room (its page says so, and may open it again)."""
SSE_KEEPALIVE_S = 15.0
LIVE_RENDER_S = 2.0
"""A view of a match in play (everything, A's, B's) is drawn again at most this often, for every watcher of it."""


@dataclass
class GrowingLog:
    """A match log being written: the records complete so far (plain or ``.gz`` with sync flushes)."""

    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    read_at: float = -math.inf
    _tail: LogTail | None = None
    _pages: dict[str | None, tuple[int, float, str]] = field(default_factory=dict)
    """The last page drawn of each view (seat, or ``None``: everything): records it shows, when, its HTML."""
    _updates: dict[str | None, tuple[int, float, dict[str, Any]]] = field(default_factory=dict)
    """The last update drawn of each view, as ``_pages`` (a page open takes it: ``window.arenaReplay.update``)."""

    def refresh(self) -> list[dict[str, Any]]:
        """The records written so far (the file read again at most every ``LIVE_POLL_S``)."""
        now = time.monotonic()
        if now - self.read_at < LIVE_POLL_S:
            return self.records
        self.read_at = now
        if self._tail is None:
            self._tail = LogTail(self.path)
        self.records.extend(self._tail.read())
        return self.records

    def page(self, seat: str | None, seed_shown: bool) -> str:
        """The replay page of the match so far as ``seat`` saw it (``None``: whole), drawn anew at most every
        ``LIVE_RENDER_S`` for each view (call it in a thread: it replays the rules)."""
        from ..replay import match_page

        records = list(self.records)
        cached = self._pages.get(seat)
        if cached is not None and (cached[0] == len(records) or time.monotonic() - cached[1] < LIVE_RENDER_S):
            return cached[2]
        log = index_records(self.path, records)
        log.stderr = []  # written only at the end; a live page shows none
        html = match_page(log, seat=seat, timeline=_so_far(log), seed_shown=seed_shown)
        self._pages[seat] = (len(records), time.monotonic(), html)
        return html

    def update(self, seat: str | None, seed_shown: bool) -> dict[str, Any]:
        """What a replay page of this match already open takes to show it so far (the same view as :meth:`page`,
        drawn anew as often), so that a viewer's page grows in place rather than being loaded again."""
        from ..replay import match_update

        records = list(self.records)
        cached = self._updates.get(seat)
        if cached is not None and (cached[0] == len(records) or time.monotonic() - cached[1] < LIVE_RENDER_S):
            return cached[2]
        log = index_records(self.path, records)
        log.stderr = []
        data = match_update(log, seat=seat, timeline=_so_far(log), seed_shown=seed_shown)
        self._updates[seat] = (len(records), time.monotonic(), data)
        return data


def _so_far(log: LoggedMatch) -> Timeline | None:
    """The rules' frames of a match in play: its log re-run from its seed and answers up to the request awaited.

    A log in play ends at a request without its answer, where the re-run stops;
    everything before it must match the rules (else ``None``: the page draws
    the log as logged, saying why).
    """
    try:
        verdict = verify(log)
    except RulesUnavailable:
        return None
    difference = verdict.difference
    if difference is None or (verdict.rerun.stopped and difference.where == STOPPED):
        return verdict.rerun.timeline
    return None


def shown_count(records: list[dict[str, Any]], seat: str | None) -> int:
    """How many of ``records`` a viewer limited to ``seat`` sees (``None``: all): that seat's messages and faults.

    It is the live events' id and count, so it must not move with anything of the other seat's.
    """
    if seat is None:
        return len(records)
    return sum(1 for r in records if r.get("seat") == seat and r.get("type") in ("send", "recv", "fault"))


@dataclass(eq=False)
class Stream:
    """One live event stream being served, to ``client`` (a participant, or an address)."""

    client: str
    ended: bool = False
    """Set when the stream was ended to make room for another client's."""


class StreamShares:
    """The live event streams open, shared evenly between clients.

    A client holds at most ``each``. When ``total`` are open, a client that
    holds fewer than another by two or more takes the place of that other
    client's newest stream (which ends, saying why); else it is refused
    (429). So 16 addresses holding 64 streams cost those addresses a stream
    each, and a 65th viewer always gets in: there is no 503 for everyone.
    """

    def __init__(self, total: int, each: int) -> None:
        self.total = total
        self.each = each
        self.open: dict[str, list[Stream]] = {}

    def __len__(self) -> int:
        return sum(len(streams) for streams in self.open.values())

    def take(self, client: str) -> Stream:
        """A stream for ``client``, or :class:`HTTPException` 429 saying why not (checked and taken at once)."""
        held = len(self.open.get(client, []))
        if held >= self.each:
            raise HTTPException(429, f"at most {self.each} live matches watched at once from one address or account")
        if len(self) >= self.total:
            top = max(self.open, key=lambda other: len(self.open[other]))
            if len(self.open[top]) <= held + 1:
                raise HTTPException(
                    429, f"all {self.total} live streams are taken, shared out evenly: try again in a minute"
                )
            self.give_back(self.open[top][-1]).ended = True
        stream = Stream(client)
        self.open.setdefault(client, []).append(stream)
        return stream

    def give_back(self, stream: Stream) -> Stream:
        """``stream`` has ended (or is made to)."""
        streams = self.open.get(stream.client, [])
        if stream in streams:
            streams.remove(stream)
            if not streams:
                del self.open[stream.client]
        return stream


class Pages(Protocol):
    """What the live pages use of the web app's pages (:class:`arena.server.web.Pages`)."""

    c: Competition

    def who(self, request: Request) -> Participant | None: ...
    def address(self, request: Request) -> str: ...
    def page(self, request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse: ...
    def replay_access(self, viewer: Participant | None, match: Scheduled) -> tuple[bool, str | None]: ...


class LivePages:
    """The "now playing" list, a match in play's page, its view so far, and its events."""

    def __init__(self, pages: Pages, replay_csp: str, framed: Callable[[str], str]) -> None:
        self.pages = pages
        self.replay_csp = replay_csp
        self.framed = framed
        """Adds to a replay page the script that tells the page framing it its height (the frame is sized to it)."""
        self.c = pages.c
        self.logs: dict[str, GrowingLog] = {}
        """The logs of the matches in play being watched, by key (dropped when their match ends)."""
        self.streams = StreamShares(LIVE_STREAMS, LIVE_STREAMS_EACH)
        """Live event streams open, by participant (or client address, for anyone not logged in)."""

    def playing(self, key: str) -> InPlay | None:
        """The match ``key`` if it is being played now (its log forgotten once it is not)."""
        found = next((p for p in self.c.host.in_play() if p.scheduled.key == key), None)
        if found is None:
            self.logs.pop(key, None)
        for old in [k for k in self.logs if k != key and not any(p.scheduled.key == k for p in self.c.host.in_play())]:
            del self.logs[old]
        return found

    def log(self, playing: InPlay) -> GrowingLog | None:
        if playing.log_path is None:
            return None
        found = self.logs.get(playing.scheduled.key)
        if found is None or found.path != playing.log_path:
            found = self.logs[playing.scheduled.key] = GrowingLog(playing.log_path)
        return found

    async def now_playing(self, request: Request) -> Response:
        now = time.time()
        rows = [(p.scheduled, round(now - p.started)) for p in self.c.host.in_play()]
        return self.pages.page(request, "now_playing.html", playing=rows)

    async def match(self, request: Request) -> Response:
        key = request.path_params["key"]
        playing = self.playing(key)
        if playing is None:
            if self.c.catalogue.match(key) is not None:
                return RedirectResponse(f"/matches/{key}", status_code=303)
            raise HTTPException(404, "no such match in play")
        allowed, seat = self.pages.replay_access(self.pages.who(request), playing.scheduled)
        return self.pages.page(
            request, "live_match.html", match=playing.scheduled, seen=allowed, seat=seat, started=playing.started
        )

    async def replay(self, request: Request) -> Response:
        key = request.path_params["key"]
        playing = self.playing(key)
        if playing is None:
            raise HTTPException(404, "this match is not in play (it has ended: see its page)")
        viewer = self.pages.who(request)
        allowed, seat = self.pages.replay_access(viewer, playing.scheduled)
        if not allowed:
            raise HTTPException(403, "this match's table is not shown while its deal is played")
        log = self.log(playing)
        if log is None or not log.refresh():
            raise HTTPException(404, "this match's log has not begun yet: try again in a moment")
        html = self.framed(await trio.to_thread.run_sync(log.page, seat, seat is None))
        return HTMLResponse(html, headers={"content-security-policy": self.replay_csp, "x-frame-options": "SAMEORIGIN"})

    async def data(self, request: Request) -> Response:
        """The view of :meth:`replay` as it has grown, for the replay already open (JSON; the same rule of who sees
        what: a seat's owner gets that seat's view, with no seed)."""
        key = request.path_params["key"]
        playing = self.playing(key)
        if playing is None:
            raise HTTPException(404, "this match is not in play (it has ended: see its page)")
        allowed, seat = self.pages.replay_access(self.pages.who(request), playing.scheduled)
        if not allowed:
            raise HTTPException(403, "this match's table is not shown while its deal is played")
        log = self.log(playing)
        if log is None or not log.refresh():
            raise HTTPException(404, "this match's log has not begun yet: try again in a moment")
        data = await trio.to_thread.run_sync(log.update, seat, seat is None)
        return JSONResponse(data, headers={"cache-control": "no-store"})

    async def events(self, request: Request) -> Response:
        """Server-sent events of a match in play: ``step`` when what the viewer sees grew, ``end`` when it ended.

        A viewer who may see nothing of the table gets only ``end``; a seat's
        owner gets ``step`` events counted in its own seat's messages.
        """
        key = request.path_params["key"]
        playing = self.playing(key)
        if playing is None:
            if self.c.catalogue.match(key) is not None:  # it ended before this stream (a page that reconnects): say so
                ended = f"event: end\ndata: {json.dumps({'url': f'/matches/{key}'})}\n\n"
                return Response(ended, media_type="text/event-stream", headers={"cache-control": "no-store"})
            raise HTTPException(404, "no such match in play")
        viewer = self.pages.who(request)
        allowed, seat = self.pages.replay_access(viewer, playing.scheduled)
        # Counted by participant when logged in (many people may share an address behind a proxy), else by address.
        client = f"participant {viewer.id}" if viewer is not None else self.pages.address(request)
        taken = self.streams.take(client)  # taken before the response: no pause in between

        async def stream() -> AsyncIterator[str]:
            try:
                async for event in self._events(key, allowed, seat, taken):
                    yield event
            finally:
                self.streams.give_back(taken)

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"}
        )

    async def _events(self, key: str, allowed: bool, seat: str | None, taken: Stream) -> AsyncIterator[str]:
        last = -1
        quiet = 0.0
        while True:
            if taken.ended:  # another client's stream took its place
                yield f"event: ended\ndata: {json.dumps({'reason': EVICTED})}\n\n"
                return
            playing = self.playing(key)
            if playing is None:
                yield f"event: end\ndata: {json.dumps({'url': f'/matches/{key}'})}\n\n"
                return
            log = self.log(playing) if allowed else None
            shown = shown_count(log.refresh(), seat) if log is not None else 0
            if allowed and shown != last:
                last, quiet = shown, 0.0
                yield f"id: {shown}\nevent: step\ndata: {json.dumps({'shown': shown})}\n\n"
            elif quiet >= SSE_KEEPALIVE_S:
                quiet = 0.0
                yield ": still here\n\n"
            await trio.sleep(LIVE_POLL_S)
            quiet += LIVE_POLL_S
