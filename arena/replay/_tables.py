"""A game's table at every step of a timeline, for each view (everything, as A saw it, as B saw it).

The game's own :class:`~arena.games.TableView` is fed the frames' events in
order: fed both seats' messages it draws everything; fed one seat's, it
draws what that seat was told. A step's table is drawn at the end of its
frame, or just before a notice that deals a new hand (Badugi sends the next
hand's cards in the step that ends the last one): what the view says after
that belongs to the next step, whose table shows the new hand.

Each drawn table also carries what the view said during its step (``say``),
the turn or hand it is in (``period``) and the running score (``running``).

A game without a view is drawn by the generic table
(:func:`~arena.games._view.generic_table`) from what its rules showed after
each step (``Frame.shown``, recorded when the rules re-ran the log): a seat's
private part only in that seat's view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..games import TableView, generic_table, view_for
from ._timeline import Timeline

VIEWS: dict[str, frozenset[int]] = {"all": frozenset({0, 1}), "A": frozenset({0}), "B": frozenset({1})}
"""The views a page offers, and the seats whose messages each is drawn from."""


class NoTable(Exception):
    """The game has no view, or its view cannot follow this log (a log of other rules, edited by hand)."""


def tables(
    timeline: Timeline, params: Mapping[str, Any], views: Sequence[str]
) -> tuple[type[TableView], dict[str, list[dict[str, Any]]]]:
    """Per view, the table at the end of each frame; :class:`NoTable` when it cannot be drawn."""
    cls = view_for(timeline.game)
    if cls is None:
        return TableView, generic_tables(timeline, views)
    followers = {name: cls(params, timeline.names, VIEWS[name]) for name in views}
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in views}
    try:
        for frame in timeline.frames:
            drawn: dict[str, dict[str, Any]] = {}
            for event in frame.events:
                if event.seat is None or event.kind not in ("request", "answer", "notice"):
                    continue
                msg = event.msg or {}
                for name, view in followers.items():
                    if event.seat not in view.seen:
                        continue
                    if event.kind == "request":
                        view.asked(event.seat, msg)
                    elif event.kind == "answer":
                        view.answered(event.seat, msg, event.action)
                    else:
                        if name not in drawn and view.opens(event.seat, msg):
                            drawn[name] = _drawn(view)
                        view.told(event.seat, msg)
            for name, view in followers.items():
                out[name].append(drawn.get(name) or _drawn(view))
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise NoTable(f"the {cls.game} table cannot follow this log ({type(exc).__name__}: {exc})") from None
    return cls, out


def _drawn(view: TableView) -> dict[str, Any]:
    period = view.period()
    return {
        **view.table(),
        "say": view.said_since(),
        "period": list(period) if period else None,
        "running": view.running(),
    }


def generic_tables(timeline: Timeline, views: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per view, the generic table of each frame, from what the rules showed; :class:`NoTable` when they showed
    nothing (the game declares no ``shown``, or the log was not re-run by the rules)."""
    if not any(frame.shown is not None for frame in timeline.frames):
        why = timeline.note or (
            "its rules show nothing (MatchState.shown)" if timeline.source == "rules" else "the rules did not re-run it"
        )
        raise NoTable(f"{timeline.game} has no table view, and no generic table: {why}")
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in views}
    last: dict[str, Any] = {}
    for frame in timeline.frames:
        last = frame.shown if frame.shown is not None else last
        told = [[event.text] for event in frame.events if event.kind == "narration"]
        period = shown_period(last)
        for name in views:
            # What a drawn table carries besides (see _drawn): the rules' narration of the step, for the whole
            # view only (it may speak of both seats' cards); the hand (or round...) the rules show, and the
            # running score then, so the steps are listed, headed and charted by it, as a view's are.
            say = told if name == "all" else []
            running = frame.score if period is not None else None
            out[name].append({**generic_table(last, VIEWS[name]), "say": say, "period": period, "running": running})
    return out


PERIOD_WORDS = ("hand", "round", "turn", "deal", "trick", "game")
"""What a game without a view may show in its public part (a whole number under one of these names) to have
its steps grouped, headed and charted by it: Kuhn poker's ``hand``."""


def shown_period(shown: dict[str, Any]) -> tuple[str, int] | None:
    """The period a game's shown public part names (``("Hand", 3)``), or ``None``."""
    public = shown.get("public") or {}
    for word in PERIOD_WORDS:
        value = public.get(word)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return word.capitalize(), value
    return None
