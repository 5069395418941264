"""The replay page: a game's table at every step, the narration, bots' stderr, faults, and controls.

One self-contained HTML file (no network, nothing beside it; it works from
``file://``). The match travels inside it compressed (deflate, base64) and
the browser unpacks it (``DecompressionStream``), so a 200-hand Badugi match
stays well under a megabyte. Entry points: :func:`match_page` (the whole
page) and :func:`match_fragment` (its parts, for a page of another site,
such as the competition server's).
"""

from __future__ import annotations

import base64
import bisect
import html
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from protocol import SEATS

from ._charts import score_track
from ._log import LoggedMatch
from ._render import Renderer, Seg, number, plain, renderer_for
from ._rerun import RulesUnavailable
from ._tables import NoTable, tables
from ._timeline import Event, Timeline, for_seat, from_log
from ._verify import verify


def asset(name: str) -> str:
    """The text of ``assets/name`` (style sheets and scripts shipped in the package)."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def timeline_of(log: LoggedMatch) -> Timeline:
    """The rules' frames when the log is what the rules produce; the logged records otherwise."""
    try:
        verdict = verify(log)
    except RulesUnavailable as exc:
        return from_log(log, note=str(exc))
    if verdict.difference is not None:
        return from_log(log, note=f"the log does not match the rules ({verdict.difference.where})")
    return verdict.rerun.timeline


class _Interned:
    """Distinct JSON values, each kept once; a step's table refers to its parts by index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
        return found


FAULT_WORDS = {
    "illegal_move": "made an illegal move",
    "timeout": "ran out of time",
    "crash": "crashed",
    "invalid_json": "wrote a line that is not JSON",
    "protocol_error": "broke the protocol",
    "output_limit": "wrote more than its output limit",
    "memory_limit": "went over its memory limit",
    "disk_limit": "went over its disk limit",
}
"""A fault's kind in words, for the narration."""

_MINUS = re.compile(r"(?<![\w.])-(?=\d)")


def typeset(text: str) -> str:
    """A page's text with minus signs (``−434``) where a number is negative, not hyphens."""
    return _MINUS.sub("\u2212", text)


def page_score(a: Any, b: Any) -> str:
    """Two seats' points as the page writes them: ``434 – −434`` (an en dash between, minus signs)."""
    return typeset(f"{number(a)} \u2013 {number(b)}")


def _typeset_table(value: Any) -> Any:
    """Every string of a drawn table typeset, but card faces (zones' ``cards``) and marks left as they are."""
    if isinstance(value, str):
        return typeset(value)
    if isinstance(value, list):
        return [_typeset_table(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k in ("cards", "marks") else _typeset_table(v) for k, v in value.items()}
    return value


def _line(parts: list[Any]) -> list[Any]:
    """A line of narration as the page's script reads it: text as strings, a card as ``[face]``."""
    return [[p["card"]] if isinstance(p, dict) else typeset(str(p)) for p in parts]


def fault_words(seat: str, text: str) -> str:
    """A fault as the narration tells it: ``B made an illegal move (...) and forfeits the match``."""
    kind, _, reason = text.partition(": ")
    said = FAULT_WORDS.get(kind, kind.replace("_", " "))
    return f"{seat} {said}" + (f" ({reason})" if reason else "") + " and forfeits the match"


def _row(event: Event, renderer: Renderer) -> dict[str, Any]:
    answer = event.kind == "answer"
    segs: list[Seg] = renderer.action(event.msg, event.action) if answer else renderer.message(event.msg or {})
    segs = [{**s, "t": typeset(s["t"])} if "t" in s else s for s in segs]
    row: dict[str, Any] = {"s": SEATS[event.seat or 0], "k": event.kind, "g": segs}
    if answer and event.took is not None:
        row["ms"] = round(event.took * 1000, 1)
    return row


def _stderr_by_frame(log: LoggedMatch, timeline: Timeline, seat: int | None) -> dict[int, list[list[str]]]:
    """Each stderr line under the step during which it was read: the last step begun by then."""
    starts: list[float] = []
    indices: list[int] = []
    for index, frame in enumerate(timeline.frames):
        if frame.t is not None and (not starts or frame.t >= starts[-1]):
            starts.append(frame.t)
            indices.append(index)
    out: dict[int, list[list[str]]] = {}
    for record in log.stderr:
        who = record.get("seat")
        if who not in SEATS or (seat is not None and who != SEATS[seat]):
            continue
        if "omitted" in record:
            text = f"[{record['omitted']} more bytes of stderr are in the bot's stderr log only]"
            index = len(timeline.frames) - 1
        else:
            text = str(record.get("text", ""))
            t = record.get("t")
            position = bisect.bisect_right(starts, float(t)) - 1 if isinstance(t, int | float) else -1
            index = indices[position] if position >= 0 else 0
        out.setdefault(index, []).append([str(who), text])
    return out


def periods_of(drawn: list[dict[str, Any]], titles: list[str]) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The turns, rounds or hands of a view's tables, and each frame's (an index into them, or ``None``).

    A period: its kind and number, its first and last frame, what it decided (the last outcome drawn in it)
    and the running score at its end. The match's start and its result belong to none.
    """
    periods: list[dict[str, Any]] = []
    of_frame: list[int | None] = []
    for index, table in enumerate(drawn):
        period = table.get("period")
        if titles[index] == "result":
            of_frame.append(None)
            continue
        if period is None:
            of_frame.append(None if not periods else len(periods) - 1)
            if periods:
                periods[-1]["b"] = index
            continue
        kind, number = period
        if not periods or (periods[-1]["k"], periods[-1]["n"]) != (kind, number):
            periods.append({"k": kind, "n": number, "a": index, "b": index, "o": "", "sc": None})
        current = periods[-1]
        current["b"] = index
        if table.get("outcome"):
            current["o"] = typeset(table["outcome"])
        if table.get("running") is not None:
            current["sc"] = table["running"]
        of_frame.append(len(periods) - 1)
    return periods, of_frame


def _result_text(renderer: Renderer, result: dict[str, Any], names: tuple[str, str]) -> str:
    text = plain(renderer.result(result, names, score=page_score))
    forfeits = [str(s) for s in result.get("forfeit") or ()]
    if forfeits:
        text += "; " + " and ".join(forfeits) + (" forfeits" if len(forfeits) == 1 else " forfeit")
    return typeset(text)


def match_data(log: LoggedMatch, timeline: Timeline) -> dict[str, Any]:
    """The match as the page's script reads it (``timeline``: everything, or one seat's via ``for_seat``)."""
    only = timeline.seat
    views = ["all", "A", "B"] if only is None else [SEATS[only]]
    renderer = renderer_for(log.game)
    note = timeline.note
    try:
        view_cls, drawn = tables(timeline, log.header.get("params") or {}, views)
    except NoTable as exc:
        view_cls, drawn = None, {}
        note = note or str(exc)
    parts = _Interned()
    faces: set[str] = set()
    stderr = _stderr_by_frame(log, timeline, only)
    periods, of_frame = periods_of(drawn[views[0]], [f.title for f in timeline.frames]) if drawn else ([], [])
    frames = []
    for index, frame in enumerate(timeline.frames):
        out: dict[str, Any] = {"n": frame.title, "s": frame.score}
        if drawn:
            out["t"] = {}
            said = {}
            for name in views:
                table = _typeset_table(drawn[name][index])
                for side in (table["center"], *(s["zones"] for s in table["seats"])):
                    faces.update(card for z in side for card in z["cards"])
                center = {"info": table["info"], "center": table["center"], "outcome": table["outcome"]}
                out["t"][name] = [parts(center), parts(table["seats"][0]), parts(table["seats"][1])]
                if table["say"]:
                    said[name] = [_line(line) for line in drawn[name][index]["say"]]
                    faces.update(p["card"] for line in drawn[name][index]["say"] for p in line if isinstance(p, dict))
            if said:
                out["say"] = said
            if of_frame[index] is not None:
                out["p"] = of_frame[index]
        elif only is None:
            say = [[typeset(e.text)] for e in frame.events if e.kind == "narration"]
            if say:
                out["say"] = {"all": say}
        rows = [_row(e, renderer) for e in frame.events if e.kind in ("request", "answer", "notice")]
        if rows:
            out["rows"] = rows
            faces.update(s["face"] for r in rows for s in r["g"] if "face" in s)
        faults = [[SEATS[e.seat or 0], e.text, fault_words(SEATS[e.seat or 0], e.text)]
                  for e in frame.events if e.kind == "fault"]  # fmt: skip
        if faults:
            out["f"] = faults
        for event in frame.events:
            if event.kind == "result" and only is None:
                out["r"] = "Result: " + _result_text(renderer, event.msg or {}, timeline.names)
            elif event.kind == "notice" and only is not None and (event.msg or {}).get("type") == "match_end":
                # A seat's page ends with the result it was told, in words.
                told = (event.msg or {}).get("result")
                if isinstance(told, dict):
                    out["r"] = "Result: " + _result_text(renderer, told, timeline.names)
        if index in stderr:
            out["e"] = stderr[index]
        frames.append(out)
    looks = {}
    if view_cls is not None:
        for face in sorted(faces - {"?"}):
            look = view_cls.card(face)
            looks[face] = [look["sym"], look["rank"], look["c"], look.get("name", face), look.get("sub", ""),
                           look.get("fill", "")]  # fmt: skip
    result = timeline.result or log.result
    return {
        "title": timeline.title,
        "game": timeline.game,
        "seed": str(timeline.seed),  # a string: JavaScript's numbers would round a 64-bit seed
        "match_id": log.match_id,
        "names": list(timeline.names),
        "only": None if only is None else SEATS[only],
        "note": note,
        "views": views,
        "looks": looks,
        "parts": parts.values,
        "periods": periods,
        "frames": frames,
        "result": _result_text(renderer, result, timeline.names) if result and only is None else "",
        "result_is_score": view_cls.result_is_score if view_cls is not None else False,
    }


@dataclass
class Fragment:
    """A page's parts: what goes in ``<head>`` (style) and in ``<body>`` (markup, data and script)."""

    title: str
    head: str
    body: str


HIDDEN_SEED = "secret"
"""What a page shows for a seed it may not show."""


def _track(data: dict[str, Any], timeline: Timeline) -> str:
    """The score chart's markup (``""`` when there is no running score); its geometry goes into ``data``."""
    fault_frames = [i for i, f in enumerate(timeline.frames) if any(e.kind == "fault" for e in f.events)]
    periods = [p for p in data["periods"] if p["k"] == data["periods"][-1]["k"]] if data["periods"] else []
    if periods and sum(p["sc"] is not None for p in periods) >= 1:
        # One point per turn or hand (1-based), the score after it; 0 is the start.
        scores: list[Sequence[float] | None] = [[0.0, 0.0], *(p["sc"] for p in periods)]
        first = data["periods"].index(periods[0])
        faults = [_period_x(data, i, first) for i in fault_frames]
        result = timeline.result
        forfeit = None
        if fault_frames and result and result.get("forfeit") and data["result_is_score"]:
            forfeit = [float(x) for x in result["points"]]
        kind = periods[0]["k"].lower()
        track = score_track(scores, timeline.names, faults, axis=kind, forfeit=forfeit)
        data["track"] = {"by": "period", "first": first}
    else:
        # The result's points may be on another scale (GOPS's win-loss after prize sums): the track ends before it.
        step_scores = [None if f.title == "result" else f.score for f in timeline.frames]
        if sum(s is not None for s in step_scores) < 2:
            return ""
        track = score_track(step_scores, timeline.names, fault_frames, axis="step")
        data["track"] = {"by": "step"}
    data["track"]["n"] = track.steps - 1
    for key in ("x0", "x1", "nx0", "nx1"):
        data["track"][key] = round(getattr(track, key), 5)
    return f'<div class="track" id="track">{track.svg}{track.narrow}<div id="cursor"></div></div>'


def _period_x(data: dict[str, Any], frame: int, first: int) -> float:
    """Where step ``frame`` lies on a chart of turns or hands: turn k spans (k - 1, k]."""
    index = data["frames"][frame].get("p")
    if index is None:
        return 0.0 if frame < data["periods"][first]["a"] else float(len(data["periods"]) - first)
    if index < first:
        return 0.0
    period = data["periods"][index]
    span = int(period["b"]) - int(period["a"]) + 1
    return float(index - first + (frame - int(period["a"]) + 1) / span)


def _noscript(data: dict[str, Any]) -> str:
    """The narration as text, for a browser without JavaScript."""
    view = data["views"][0]
    looks = data["looks"]

    def face(card: str) -> str:  # short: a suit symbol after its rank (T♣), or the card's name (rock 3)
        look = looks.get(card)
        if look is None:
            return card
        return f"{look[1]}{look[0]}" if len(look[0]) == 1 else str(look[3])

    items = []
    for index, frame in enumerate(data["frames"]):
        lines = [
            re.sub(r" +", " ", "".join(f" {face(p[0])} " if isinstance(p, list) else p for p in line))
            .replace(" )", ")")
            .replace(" ,", ",")
            .strip()
            for line in frame.get("say", {}).get(view, [])
        ]
        lines += [f[2] for f in frame.get("f", [])]
        if frame.get("r"):
            lines.append(frame["r"])
        if lines:
            items.append(f'<li value="{index + 1}">{html.escape(". ".join(lines))}</li>')
    return (
        '<noscript><div class="note">This replay draws the table with JavaScript, which is off: '
        "here is what happened, step by step.</div>"
        f'<ol class="noscript">{"".join(items)}</ol></noscript>'
    )


def match_fragment(
    log: LoggedMatch,
    *,
    seat: str | None = None,
    timeline: Timeline | None = None,
    seed_shown: bool = True,
    other_leg: str | None = None,
    back: tuple[str, str] | None = None,
) -> Fragment:
    """The replay of ``log`` as page parts; ``seat`` ("A" or "B") keeps only what that seat was told.

    ``other_leg``: the address of the replay of the other leg of the same duplicate deal (seats swapped),
    relative to this page's, when there is one. ``back``: the address and name of the page the replay belongs
    to (a match's page, a tournament's report, a game played by a person), linked from its header; a replay
    shown in a frame of that page leaves the link out.
    """
    timeline = timeline or timeline_of(log)
    if seat is not None:
        timeline = for_seat(timeline, SEATS.index(seat))
    data = match_data(log, timeline)
    seed = str(timeline.seed) if seed_shown else HIDDEN_SEED
    data["seed"] = seed
    track_html = _track(data, timeline)
    packed = base64.b64encode(zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)).decode()
    names = " vs ".join(timeline.names)
    title = f"{timeline.title}: {names} (seed {seed})"
    seen = f", as seat {SEATS[timeline.seat]} saw it" if timeline.seat is not None else ""
    leg = ""
    if back:  # (its separator with it: a frame takes the two out together)
        link = f'<a id="back" href="{html.escape(back[0])}">&larr; {html.escape(back[1])}</a>'
        leg = f'<span id="back-to"> &middot; {link}</span>'
    if other_leg:
        leg += f' &middot; <a id="other-leg" href="{html.escape(other_leg)}">the other leg of this deal</a>'
    body = _BODY.format(
        title=html.escape(title),
        seed=html.escape(seed),
        game=html.escape(timeline.game),
        match_id=html.escape(log.match_id),
        seen=html.escape(seen),
        leg=leg,
        result=f'&middot; <span id="result">{html.escape(data["result"])}</span>' if data["result"] else "",
        track=track_html,
        noscript=_noscript(data),
        data=packed,
        script=asset("replay.js"),
    )
    head = f"<style>\n{asset('base.css')}\n{asset('replay.css')}\n</style>"
    return Fragment(title=title, head=head, body=body)


def match_update(
    log: LoggedMatch, *, seat: str | None = None, timeline: Timeline | None = None, seed_shown: bool = True
) -> dict[str, Any]:
    """What a replay page of ``log`` already open takes to show the match as it has grown
    (``window.arenaReplay.update(data)``): the data its ``#match-data`` holds, unpacked, with the score chart's
    markup (``chart``, ``""`` when there is none yet). A viewer keeps its step, or follows the new ones from the last.
    """
    timeline = timeline or timeline_of(log)
    if seat is not None:
        timeline = for_seat(timeline, SEATS.index(seat))
    data = match_data(log, timeline)
    data["seed"] = str(timeline.seed) if seed_shown else HIDDEN_SEED
    data["chart"] = _track(data, timeline)
    return data


def page(fragment: Fragment, *, meta: dict[str, str] | None = None) -> str:
    """A whole HTML page around ``fragment``."""
    metas = "".join(f'<meta name="{html.escape(k)}" content="{html.escape(v)}">\n' for k, v in (meta or {}).items())
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"{metas}<title>{html.escape(fragment.title)}</title>\n{fragment.head}\n</head>\n"
        f"<body>\n{fragment.body}\n</body>\n</html>\n"
    )


def match_page(
    log: LoggedMatch,
    *,
    seat: str | None = None,
    timeline: Timeline | None = None,
    seed_shown: bool = True,
    other_leg: str | None = None,
    back: tuple[str, str] | None = None,
) -> str:
    """The whole replay page of ``log``; ``seat`` ("A" or "B") keeps only what that seat was told.

    Without ``seed_shown`` the page holds no seed (a competition server's, for a viewer who may see one seat:
    the seed deals both seats' cards).
    """
    fragment = match_fragment(log, seat=seat, timeline=timeline, seed_shown=seed_shown, other_leg=other_leg, back=back)
    meta = {"arena-seed": str(log.seed)} if seed_shown else {}
    return page(fragment, meta={**meta, "arena-match": log.match_id})


_BODY = """<header class="top">
  <h1 id="title">{title}</h1>
  <div class="sub">{game} &middot; seed <code id="seed">{seed}</code> &middot; match <code>{match_id}</code>{seen}
    {result}{leg}</div>
</header>
<main class="replay">
<div class="note" id="note" hidden></div>
{noscript}
<div class="bar" id="bar" hidden>
  <div class="group" role="group" aria-label="steps">
    <button id="first" title="first step (Home)" aria-label="first step">&laquo;</button>
    <button id="prev-period" title="previous turn (Shift+&larr; or [)" aria-label="previous turn">&#8676;</button>
    <button id="prev" title="previous step (&larr;)" aria-label="previous step">&#9664;</button>
    <button id="play" title="play / pause (space)" aria-label="play">&#9654; Play</button>
    <button id="next" title="next step (&rarr;)" aria-label="next step">&#9654;</button>
    <button id="next-period" title="next turn (Shift+&rarr; or ])" aria-label="next turn">&#8677;</button>
    <button id="last" title="last step (End)" aria-label="last step">&raquo;</button>
  </div>
  <select id="speed" title="speed (+ and -)" aria-label="speed"></select>
  <div class="group" id="views" role="group" aria-label="whose view"></div>
  <input type="range" id="slider" min="0" value="0" aria-label="step">
  <span id="counter" aria-hidden="true"></span>
</div>
<div class="sr-only" id="live" aria-live="polite" aria-atomic="true"></div>
{track}
<div class="stage" id="stage" hidden>
  <section class="table" id="table" aria-label="the table"></section>
  <aside class="side">
    <div class="panel"><h2 id="step-title"></h2><div id="story"></div></div>
    <div class="panel" id="stderr-box" hidden><h2>stderr during this step</h2>
      <div class="stderr" id="stderr"></div></div>
    <details class="panel" id="messages"><summary>Messages of this step</summary>
      <div id="messages-body"></div></details>
    <nav class="panel periods" id="periods-box" hidden aria-labelledby="periods-title">
      <h2 id="periods-title"></h2><ol id="periods"></ol></nav>
  </aside>
</div>
<div class="keys" id="keys" hidden>Keys: <kbd>&larr;</kbd> <kbd>&rarr;</kbd> step,
  <kbd>Shift</kbd>+<kbd>&larr;</kbd> <kbd>Shift</kbd>+<kbd>&rarr;</kbd> (or <kbd>[</kbd> <kbd>]</kbd>)
  previous and next turn or hand, <kbd>PgUp</kbd> <kbd>PgDn</kbd> ten steps,
  <kbd>Home</kbd> <kbd>End</kbd>, <kbd>space</kbd> play, <kbd>+</kbd> <kbd>-</kbd> speed,
  <kbd>E</kbd> <kbd>A</kbd> <kbd>B</kbd> whose view. A link to a step: add <code>#step=N</code> to the address.</div>
</main>
<script id="match-data" type="application/octet-stream">{data}</script>
<script>
{script}
</script>"""
