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
import zlib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from protocol import SEATS

from ._charts import score_track
from ._log import LoggedMatch
from ._render import Renderer, Seg, plain, renderer_for
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


def _row(event: Event, renderer: Renderer) -> dict[str, Any]:
    answer = event.kind == "answer"
    segs: list[Seg] = renderer.action(event.msg, event.action) if answer else renderer.message(event.msg or {})
    return {"s": SEATS[event.seat or 0], "k": event.kind, "g": segs}


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
    frames = []
    for index, frame in enumerate(timeline.frames):
        out: dict[str, Any] = {"n": frame.title, "s": frame.score}
        if drawn:
            out["t"] = {}
            for name in views:
                table = drawn[name][index]
                for side in (table["center"], *(s["zones"] for s in table["seats"])):
                    faces.update(card for z in side for card in z["cards"])
                center = {"info": table["info"], "center": table["center"], "outcome": table["outcome"]}
                out["t"][name] = [parts(center), parts(table["seats"][0]), parts(table["seats"][1])]
        say = [e.text for e in frame.events if e.kind == "narration"]
        if say:
            out["say"] = say
        rows = [_row(e, renderer) for e in frame.events if e.kind in ("request", "answer", "notice")]
        if rows:
            out["rows"] = rows
        faults = [[SEATS[e.seat or 0], e.text] for e in frame.events if e.kind == "fault"]
        if faults:
            out["f"] = faults
        for event in frame.events:
            if event.kind == "result" and only is None:
                out["r"] = "Result: " + plain(renderer.result(event.msg or {}, timeline.names))
        if index in stderr:
            out["e"] = stderr[index]
        frames.append(out)
    looks = {}
    if view_cls is not None:
        for face in sorted(faces - {"?"}):
            look = view_cls.card(face)
            looks[face] = [look["sym"], look["rank"], look["c"]]
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
        "frames": frames,
        "result": plain(renderer.result(result, timeline.names)) if result and only is None else "",
    }


@dataclass
class Fragment:
    """A page's parts: what goes in ``<head>`` (style) and in ``<body>`` (markup, data and script)."""

    title: str
    head: str
    body: str


HIDDEN_SEED = "secret"
"""What a page shows for a seed it may not show."""


def match_fragment(
    log: LoggedMatch, *, seat: str | None = None, timeline: Timeline | None = None, seed_shown: bool = True
) -> Fragment:
    """The replay of ``log`` as page parts; ``seat`` ("A" or "B") keeps only what that seat was told."""
    timeline = timeline or timeline_of(log)
    if seat is not None:
        timeline = for_seat(timeline, SEATS.index(seat))
    data = match_data(log, timeline)
    seed = str(timeline.seed) if seed_shown else HIDDEN_SEED
    data["seed"] = seed
    track_html = ""
    # The result's points may be on another scale (GOPS's win-loss after prize sums): the track ends before it.
    scores = [None if f.title == "result" else f.score for f in timeline.frames]
    if sum(s is not None for s in scores) >= 2:
        faults = [i for i, f in enumerate(timeline.frames) if any(e.kind == "fault" for e in f.events)]
        track = score_track(scores, timeline.names, faults)
        data["track"] = {"x0": round(track.x0, 5), "x1": round(track.x1, 5)}
        track_html = (
            '<div class="track" id="track" title="score over the match: click to jump">'
            f'{track.svg}<div id="cursor"></div></div>'
        )
    packed = base64.b64encode(zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)).decode()
    names = " vs ".join(timeline.names)
    title = f"{timeline.title}: {names} (seed {seed})"
    seen = f", as seat {SEATS[timeline.seat]} saw it" if timeline.seat is not None else ""
    body = _BODY.format(
        seed=html.escape(seed),
        game=html.escape(timeline.game),
        match_id=html.escape(log.match_id),
        seen=html.escape(seen),
        track=track_html,
        data=packed,
        script=asset("replay.js"),
    )
    head = f"<style>\n{asset('base.css')}\n{asset('replay.css')}\n</style>"
    return Fragment(title=title, head=head, body=body)


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
    log: LoggedMatch, *, seat: str | None = None, timeline: Timeline | None = None, seed_shown: bool = True
) -> str:
    """The whole replay page of ``log``; ``seat`` ("A" or "B") keeps only what that seat was told.

    Without ``seed_shown`` the page holds no seed (a competition server's, for a viewer who may see one seat:
    the seed deals both seats' cards).
    """
    fragment = match_fragment(log, seat=seat, timeline=timeline, seed_shown=seed_shown)
    meta = {"arena-seed": str(log.seed)} if seed_shown else {}
    return page(fragment, meta={**meta, "arena-match": log.match_id})


_BODY = """<header class="top">
  <h1 id="title"></h1>
  <div class="sub">{game} &middot; seed <code id="seed">{seed}</code> &middot; match <code>{match_id}</code>{seen}
    &middot; <span id="result"></span></div>
</header>
<div class="note" id="note" hidden></div>
<div class="bar">
  <div class="group">
    <button id="first" title="first step (Home)">&laquo;</button>
    <button id="prev" title="previous step (&larr;)">&#9664;</button>
    <button id="play" title="play / pause (space)">&#9654; Play</button>
    <button id="next" title="next step (&rarr;)">&#9654;</button>
    <button id="last" title="last step (End)">&raquo;</button>
  </div>
  <select id="speed" title="speed (+ and -)" aria-label="speed"></select>
  <span class="sep"></span>
  <div class="group" id="views" title="whose view"></div>
  <span class="sep"></span>
  <input type="range" id="slider" min="0" value="0" aria-label="step">
  <span id="counter"></span>
</div>
{track}
<main class="stage">
  <section class="table" id="table"></section>
  <aside class="side">
    <div class="panel"><h2 id="step-title"></h2><div id="story"></div></div>
    <div class="panel" id="stderr-box" hidden><h2>stderr during this step</h2>
      <div class="stderr" id="stderr"></div></div>
    <details class="panel" id="messages"><summary>Messages of this step</summary>
      <div id="messages-body"></div></details>
  </aside>
</main>
<div class="keys">Keys: <kbd>&larr;</kbd> <kbd>&rarr;</kbd> step, <kbd>PgUp</kbd> <kbd>PgDn</kbd> ten steps,
  <kbd>Home</kbd> <kbd>End</kbd>, <kbd>space</kbd> play, <kbd>+</kbd> <kbd>-</kbd> speed,
  <kbd>E</kbd> <kbd>A</kbd> <kbd>B</kbd> whose view. A link to a step: add <code>#step=N</code> to the address.</div>
<script id="match-data" type="application/octet-stream">{data}</script>
<script>
{script}
</script>"""
