"""A match as a sequence of frames (one per step of the rules) for viewers.

A timeline comes from re-running the rules (with the game's narration and
running score) or, when the rules cannot be re-run, from the log's records
alone. Viewers draw frames; ``for_seat`` keeps only what one seat was told.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol import SEATS

from ._log import LoggedMatch


@dataclass
class Event:
    """One thing that happened in a frame."""

    kind: str
    """``request``, ``answer``, ``notice``, ``fault``, ``narration`` or ``result``."""
    seat: int | None = None
    msg: dict[str, Any] | None = None
    """The message sent (request, notice), or the request answered (answer)."""
    action: Any = None
    text: str = ""
    took: float | None = None
    """For an answer: seconds from the request's sending to the answer's reading, as the log timed them."""


@dataclass
class Frame:
    """One step of a match: the requests, the answers, what the rules said and sent."""

    title: str
    events: list[Event] = field(default_factory=list)
    score: list[float] | None = None
    """Running points of A and B after this step, when known."""
    t: float | None = None
    """When the step's first request was sent, in the log's seconds since the match began."""
    shown: dict[str, Any] | None = None
    """What the rules showed after this step (``MatchState.shown`` as plain data), for a game without a view."""


@dataclass
class Timeline:
    """The frames of one match and what the viewer needs to label them."""

    game: str
    title: str
    names: tuple[str, str]
    seed: int
    frames: list[Frame]
    source: str
    """``rules`` (re-run, with narration) or ``log`` (the records as they are)."""
    note: str = ""
    """Why the timeline comes from the log alone, when it does."""
    seat: int | None = None
    """The one seat whose view this is, or ``None`` for the whole match."""
    result: dict[str, Any] | None = None


def describe(msg: dict[str, Any]) -> str:
    """A message's type and its first number fields, such as ``main_play turn 3``."""
    parts = [str(msg.get("type", "?"))]
    for key, value in msg.items():
        if key in ("type", "id") or isinstance(value, bool) or not isinstance(value, int):
            continue
        parts.append(f"{key} {value}")
        if len(parts) == 3:
            break
    return " ".join(parts)


def frame_title(requests: dict[int, dict[str, Any]]) -> str:
    """A frame's title from the requests it made (the same for both seats in a simultaneous step)."""
    titles = list(dict.fromkeys(describe(msg) for msg in requests.values()))
    return " / ".join(titles) if titles else "notices"


def score_from(msg: dict[str, Any], seat: int) -> list[float] | None:
    """Points of A and B from a message's ``score`` ([the recipient's, the opponent's]), if it has one."""
    score = msg.get("score")
    if (
        isinstance(score, list)
        and len(score) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in score)
    ):
        return [float(score[0]), float(score[1])] if seat == 0 else [float(score[1]), float(score[0])]
    return None


def from_log(log: LoggedMatch, note: str = "") -> Timeline:
    """A timeline of the log's records as they are (no rules involved)."""
    frames = [Frame("match start")]
    score: list[float] | None = None
    asked_at: dict[int, float] = {}
    for record in log.records[1:]:
        kind = record.get("type")
        seat = SEATS.index(record["seat"]) if record.get("seat") in SEATS else None
        frame = frames[-1]
        if kind == "send" and seat is not None:
            msg = record.get("msg") or {}
            if "id" in msg:
                asked = {e.seat for e in frame.events if e.kind == "request"}
                if seat in asked or any(e.kind == "notice" for e in frame.events):
                    frame = Frame("")
                    frames.append(frame)
                frame.events.append(Event("request", seat, msg))
                if isinstance(record.get("t"), int | float):
                    asked_at[seat] = float(record["t"])
                if frame.t is None and isinstance(record.get("t"), int | float):
                    frame.t = float(record["t"])
                frame.title = frame_title({e.seat or 0: e.msg or {} for e in frame.events if e.kind == "request"})
            else:
                frame.events.append(Event("notice", seat, msg))
            score = score_from(msg, seat) or score
            frame.score = score
        elif kind == "recv" and seat is not None and not record.get("stale"):
            request = next((e.msg for e in reversed(frame.events) if e.kind == "request" and e.seat == seat), None)
            got = record.get("msg")
            action = got.get("action") if isinstance(got, dict) else record.get("raw", got)
            took = None
            if isinstance(record.get("t"), int | float) and frame.t is not None:
                took = max(0.0, float(record["t"]) - asked_at.get(seat, frame.t))
            frame.events.append(Event("answer", seat, request, action, took=took))
        elif kind == "fault" and seat is not None:
            frame.events.append(Event("fault", seat, text=f"{record.get('kind')}: {record.get('reason')}"))
    result = log.result
    if result is not None:
        frames.append(Frame("result", [Event("result", msg=result)], score=[float(p) for p in result["points"]]))
    return Timeline(
        game=log.game,
        title=log.game,
        names=(log.name(0), log.name(1)),
        seed=log.seed,
        frames=frames,
        source="log",
        note=note,
        result=result,
    )


def seat_part(shown: dict[str, Any], seat: int) -> dict[str, Any]:
    """``shown`` without the other seat's private part: what ``seat`` may see."""
    private = list(shown.get("private") or ({}, {}))
    private[1 - seat] = {label: None for label in private[1 - seat]}
    return {**shown, "private": private}


def for_seat(timeline: Timeline, seat: int) -> Timeline:
    """Only what ``seat`` was told and answered: its messages, its answers, its faults."""
    frames = []
    score: list[float] | None = None
    for frame in timeline.frames:
        events = [e for e in frame.events if e.seat == seat and e.kind in ("request", "answer", "notice", "fault")]
        if not events:
            continue
        requests = {seat: e.msg or {} for e in events if e.kind == "request"}  # noqa: B035  (one seat)
        for event in events:
            if event.kind in ("request", "notice") and event.msg is not None:
                score = score_from(event.msg, seat) or score
        shown = seat_part(frame.shown, seat) if frame.shown is not None else None
        frames.append(Frame(frame_title(requests) if requests else frame.title, events, score, frame.t, shown))
    return Timeline(
        game=timeline.game,
        title=timeline.title,
        names=timeline.names,
        seed=timeline.seed,
        frames=frames,
        source=timeline.source,
        note=timeline.note,
        seat=seat,
        result=None,
    )
