"""The TV: the ladder's matches in play as small live tables, for anyone, with one featured (like Lichess TV).

What a match in play shows here is what the public may see of it while it is
played: who plays, the score so far, the step and whose turn it is, and the
public part of the game's table (``MatchState.shown``: its ``public`` and
``seats`` parts, never a seat's ``private``), and the last only when no other
match of its deal is still to be played (a card turned at one table is a card
still to come at the other). No seed, no message, no frame's title (a
request's numbers may be a card), nothing of the other table. It is cut on
the server: the page's JSON (``/tv/data``) holds nothing more than it shows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from starlette.requests import Request
from starlette.responses import Response

from protocol import SEATS

from ..competition.ladder import InPlay, other_table
from ..competition.schedule import Scheduled
from ..replay import LoggedMatch, Timeline, from_log, index_records
from ._text import JSONResponse
from .live import LIVE_RENDER_S, LivePages, _so_far

NEW_MATCHES = 10
"""A version with fewer recorded matches than this is new: its first matches are featured before close ratings."""
MAX_LABEL = 40
"""Characters kept of a label or a value of the public table (a plugin game's words; the page ellipsises)."""
MAX_CARDS = 24
"""Cards kept of one list of the public table."""


def _value(value: Any) -> str | list[str]:
    if isinstance(value, list | tuple):
        return [str(card)[:MAX_LABEL] for card in value[:MAX_CARDS]]
    return str(value)[:MAX_LABEL]


def _part(part: Any) -> list[list[Any]]:
    """A ``shown`` part (``{label: value}``) as ``[[label, value], ...]``, values cut to size."""
    if not isinstance(part, dict):
        return []
    return [[str(label)[:MAX_LABEL], _value(value)] for label, value in part.items() if value is not None]


def waiting_on(log: LoggedMatch) -> set[int]:
    """The seats whose last request is not answered yet in ``log`` (both, in a simultaneous step until one answers).

    Read from the log rather than the rules' frames: the rules re-run a step's
    requests in seat order, so their last frame holds B's request only once A
    has answered.
    """
    return {seat for seat in (0, 1) if log.answers[seat] and log.answers[seat][-1] is None}


def public_summary(timeline: Timeline, cards: bool, waiting: set[int] | None = None) -> dict[str, Any]:
    """What the public may see of a match in play from its timeline so far: its step, score, whose turn
    (``waiting``, else the last frame's unanswered requests), and (with ``cards``) the public part of its table.
    Nothing else of the timeline is read (no seed, no message)."""
    frames = timeline.frames
    score = next((f.score for f in reversed(frames) if f.score is not None), None)
    last = frames[-1] if frames else None
    asked: set[int] = set()
    if waiting is not None:
        asked = waiting
    elif last is not None:
        asked = {e.seat for e in last.events if e.kind == "request" and e.seat is not None}
        asked -= {e.seat for e in last.events if e.kind == "answer" and e.seat is not None}
    table = None
    if cards:
        shown = next((f.shown for f in reversed(frames) if f.shown is not None), None)
        if shown is not None:
            seats = list(shown.get("seats") or ({}, {}))[:2]
            table = {"public": _part(shown.get("public")), "seats": [_part(s) for s in seats]}
    return {
        "step": len(frames),
        "score": [_number(p) for p in score] if score is not None else None,
        "turn": [SEATS[s] for s in sorted(asked) if 0 <= s < len(SEATS)],
        "table": table,
    }


def _number(points: float) -> float | int:
    return int(points) if float(points).is_integer() else round(points, 2)


@dataclass
class Seen:
    """The last summary drawn of a match: records it covers, when, the summary."""

    records: int
    at: float
    summary: dict[str, Any]


class TVPages:
    """``/tv`` and its data (``/tv/data``, ``/tv/data?key=KEY`` for one match's public live page)."""

    def __init__(self, live: LivePages) -> None:
        self.live = live
        self.pages = live.pages
        self.c = live.c
        self.seen: dict[str, Seen] = {}

    async def page(self, request: Request) -> Response:
        return self.pages.page(request, "tv.html")

    def cards_shown(self, match: Scheduled) -> bool:
        """Whether the public part of ``match``'s table may be shown now: no other match of its deal is to come."""
        other = other_table(match.key)
        if other is None and match.shares_deal:  # a duplicate pair, seats swapped: its other leg
            pair, _, leg = match.key.rpartition("-")
            if leg not in ("a", "b"):
                return False
            other = f"{pair}-{'b' if leg == 'a' else 'a'}"
        return other is None or self.c.store.has_match(self.c.tid, other)

    def fresh(self, key: str, records: int) -> dict[str, Any] | None:
        """The summary of ``key`` last drawn, if it is still to be shown (nothing new, or drawn a moment ago)."""
        seen = self.seen.get(key)
        if seen is not None and (seen.records == records or time.monotonic() - seen.at < LIVE_RENDER_S):
            return seen.summary
        return None

    def summary(self, key: str, path: Path, records: list[dict[str, Any]], cards: bool) -> dict[str, Any] | None:
        """The public summary of a match in play from its log's ``records`` so far (drawn anew at most every
        ``LIVE_RENDER_S``; call in a thread)."""
        seen = self.fresh(key, len(records))
        if seen is not None:
            return seen
        if not records:
            return None
        try:
            match = index_records(path, records)
        except Exception:  # a log cut at its very start: nothing to show yet
            return None
        timeline = _so_far(match) or from_log(match)
        summary = public_summary(timeline, cards, waiting_on(match))
        self.seen[key] = Seen(len(records), time.monotonic(), summary)
        return summary

    def interest(self, playing: list[InPlay]) -> tuple[str | None, str]:
        """The match to feature, and why: a new version's first matches, else the closest ratings."""
        if not playing:
            return None, ""
        rated: dict[int, tuple[float, int, str]] = {}
        for row in self.c.board().rows:
            rated[row.version.id] = (row.standing.rating, row.standing.matches, row.version.label)
        best: tuple[float, str, str] | None = None
        for p in playing:
            found = [rated.get(v) if v is not None else None for v in p.scheduled.versions]
            new = [f for f in found if f is not None and f[1] < NEW_MATCHES]
            if new:
                first = min(new, key=lambda f: f[1])
                score, why = 1e9 - first[1], f"{first[2]}'s first matches"
            elif all(f is not None and not math.isnan(f[0]) for f in found):
                a, b = (f[0] for f in found if f is not None)
                score, why = -abs(a - b), f"the closest ratings in play ({a:.0f} and {b:.0f})"
            else:
                score, why = -1e9, "in play the longest"
            if best is None or score > best[0]:
                best = (score, p.scheduled.key, why)
        assert best is not None
        return best[1], best[2]

    async def data(self, request: Request) -> Response:
        """The matches in play as the public sees them (JSON), the featured one first; ``?key=``: only that one."""
        only = request.query_params.get("key")
        playing = [p for p in self.c.host.in_play() if only is None or p.scheduled.key == only]
        featured, why = self.interest(playing)
        now = time.time()
        out = []
        for p in playing:
            log = self.live.log(p)
            summary = None
            if log is not None:
                cards = self.cards_shown(p.scheduled)
                records = list(log.refresh())  # (read here, in the server's thread, as the live pages do)
                summary = self.fresh(p.scheduled.key, len(records))
                if summary is None:  # (the rules re-run: in a thread)
                    summary = await trio.to_thread.run_sync(self.summary, p.scheduled.key, log.path, records, cards)
            m = p.scheduled
            out.append(
                {
                    "key": m.key,
                    "url": f"/matches/{m.key}/live",
                    "a": m.bot_a,
                    "b": m.bot_b,
                    "seconds": round(now - p.started),
                    **(summary or {"step": 0, "score": None, "turn": [], "table": None}),
                }
            )
        out.sort(key=lambda m: m["key"] != featured)
        keys = {p.scheduled.key for p in self.c.host.in_play()}
        for gone in [k for k in self.seen if k not in keys]:
            del self.seen[gone]
        for gone in [k for k in self.live.logs if k not in keys]:
            del self.live.logs[gone]
        return JSONResponse({"featured": featured, "why": why, "matches": out}, headers={"cache-control": "no-store"})
