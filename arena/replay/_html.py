"""``--html``: one self-contained page that steps through a match (no network, works from file://)."""

from __future__ import annotations

import html
import json
from typing import Any

from protocol import SEATS

from ._render import Renderer, Seg
from ._timeline import Event, Timeline


def _row(event: Event, renderer: Renderer, names: tuple[str, str]) -> dict[str, Any]:
    segs: list[Seg]
    if event.kind in ("request", "notice"):
        segs = renderer.message(event.msg or {})
    elif event.kind == "answer":
        segs = renderer.action(event.msg, event.action)
    elif event.kind == "result":
        segs = renderer.result(event.msg or {}, names)
    else:
        segs = [{"t": event.text}]
    return {"kind": event.kind, "seat": SEATS[event.seat] if event.seat is not None else None, "segs": segs}


def page_data(timeline: Timeline, renderer: Renderer) -> dict[str, Any]:
    """The match as the page's script reads it."""
    return {
        "title": timeline.title,
        "game": timeline.game,
        "seed": timeline.seed,
        "names": list(timeline.names),
        "seat": SEATS[timeline.seat] if timeline.seat is not None else None,
        "note": timeline.note,
        "frames": [
            {
                "title": frame.title,
                "score": frame.score,
                "rows": [_row(e, renderer, timeline.names) for e in frame.events],
            }
            for frame in timeline.frames
        ],
    }


def render_page(timeline: Timeline, renderer: Renderer) -> str:
    """The whole page: data, style and script inline."""
    data = json.dumps(page_data(timeline, renderer), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/").replace("<!--", "<\\!--")  # cannot close the <script> early
    title = html.escape(f"{timeline.title}: {timeline.names[0]} vs {timeline.names[1]} (seed {timeline.seed})")
    return _PAGE.replace("__TITLE__", title).replace("__DATA__", data)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
:root { --a: #0e7490; --b: #a21caf; --bg: #f8fafc; --fg: #0f172a; --dim: #64748b; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { padding: 12px 20px; background: #0f172a; color: #f8fafc; }
header h1 { margin: 0; font-size: 18px; }
header .sub { color: #cbd5e1; font-size: 13px; }
.note { background: #fef9c3; color: #713f12; padding: 6px 20px; }
.controls { display: flex; gap: 8px; align-items: center; padding: 10px 20px; flex-wrap: wrap;
  border-bottom: 1px solid #e2e8f0; background: #fff; position: sticky; top: 0; }
button { font: inherit; padding: 4px 12px; border: 1px solid #94a3b8; border-radius: 6px;
  background: #f1f5f9; cursor: pointer; }
button:hover { background: #e2e8f0; }
#slider { flex: 1; min-width: 120px; }
#counter { font-variant-numeric: tabular-nums; color: var(--dim); min-width: 70px; }
main { padding: 14px 20px; max-width: 1100px; }
#frame-title { font-size: 20px; font-weight: 600; margin: 0 0 8px; }
.score { display: flex; gap: 16px; align-items: center; font-size: 18px; margin-bottom: 12px; }
.score .pts { font-size: 26px; font-weight: 700; font-variant-numeric: tabular-nums; }
.seat-A { color: var(--a); font-weight: 600; } .seat-B { color: var(--b); font-weight: 600; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.col { background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; padding: 10px 12px; min-height: 60px; }
.col h2 { margin: 0 0 6px; font-size: 15px; }
.row { margin: 6px 0; display: flex; flex-wrap: wrap; align-items: center; gap: 4px; }
.tag { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--dim); width: 62px; }
.k { color: var(--dim); margin: 0 2px 0 6px; }
.row.fault { color: #b91c1c; font-weight: 600; }
.story { margin-top: 12px; background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; padding: 8px 12px; }
.story:empty { display: none; }
.narration { font-style: italic; margin: 3px 0; }
.result { font-weight: 700; font-size: 17px; margin: 3px 0; }
.card { display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
  width: 44px; height: 54px; border-radius: 6px; border: 2px solid; background: #fff; margin: 0 2px;
  box-shadow: 0 1px 2px rgba(0,0,0,.15); line-height: 1.05; }
.card .sym { font-size: 16px; }
.card .sym.word { font-size: 9px; text-transform: uppercase; letter-spacing: .02em; }
.card .rank { font-size: 17px; font-weight: 700; }
.c-red { color: #b91c1c; border-color: #b91c1c; } .c-blue { color: #1d4ed8; border-color: #1d4ed8; }
.c-green { color: #15803d; border-color: #15803d; } .c-black { color: #111827; border-color: #111827; }
.c-purple { color: #7e22ce; border-color: #7e22ce; } .c-orange { color: #c2410c; border-color: #c2410c; }
.c-yellow { color: #a16207; border-color: #ca8a04; background: #fefce8; }
.help { color: var(--dim); font-size: 12px; }
</style>
</head>
<body>
<header><h1 id="title"></h1><div class="sub" id="sub"></div></header>
<div class="note" id="note" hidden></div>
<div class="controls">
  <button id="first" title="first (Home)">&#9664;&#9664;</button>
  <button id="prev" title="previous (&larr;)">&#9664; Prev</button>
  <button id="play" title="play / pause (space)">Play</button>
  <button id="next" title="next (&rarr;)">Next &#9654;</button>
  <button id="last" title="last (End)">&#9654;&#9654;</button>
  <input type="range" id="slider" min="0" value="0" aria-label="frame">
  <span id="counter"></span>
  <span class="help">keys: &larr; &rarr; Home End, space plays</span>
</div>
<main>
  <h2 id="frame-title"></h2>
  <div class="score" id="score"></div>
  <div class="cols"><div class="col" id="col-A"></div><div class="col" id="col-B"></div></div>
  <div class="story" id="story"></div>
</main>
<script id="match-data" type="application/json">__DATA__</script>
<script>
"use strict";
const M = JSON.parse(document.getElementById("match-data").textContent);
let at = 0, timer = null;
const $ = (id) => document.getElementById(id);
const TAGS = {request: "asked", answer: "answers", notice: "told", fault: "fault"};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function segs(list, into) {
  for (const s of list) {
    if (s.face !== undefined) {
      const c = el("span", "card c-" + (s.c || "black"));
      c.title = s.face;
      c.dataset.card = s.face;
      const sym = s.sym || "";
      c.append(el("span", sym.length > 1 ? "sym word" : "sym", sym), el("span", "rank", s.rank || s.face));
      into.append(c);
    } else {
      into.append(el("span", s.k ? "k" : "", s.t));
    }
  }
  return into;
}
function fmt(p) { return Number.isInteger(p) ? String(p) : String(+p.toFixed(3)); }

function show(i) {
  at = Math.max(0, Math.min(M.frames.length - 1, i));
  const f = M.frames[at];
  $("frame-title").textContent = f.title;
  $("counter").textContent = (at + 1) + " / " + M.frames.length;
  $("slider").value = at;
  const score = $("score");
  score.replaceChildren();
  if (f.score) {
    score.append(el("span", "seat-A", M.names[0]), el("span", "pts", fmt(f.score[0]) + " \\u2013 " + fmt(f.score[1])),
                 el("span", "seat-B", M.names[1]));
  }
  for (const seat of ["A", "B"]) {
    const col = $("col-" + seat);
    col.replaceChildren(el("h2", "seat-" + seat, seat + ": " + M.names[seat === "A" ? 0 : 1]));
    col.hidden = M.seat !== null && M.seat !== seat;
    for (const r of f.rows.filter((r) => r.seat === seat)) {
      const row = el("div", "row " + r.kind);
      row.append(el("span", "tag", TAGS[r.kind] || r.kind));
      col.append(segs(r.segs, row));
    }
  }
  const story = $("story");
  story.replaceChildren();
  for (const r of f.rows.filter((r) => r.seat === null)) story.append(segs(r.segs, el("div", r.kind)));
}
function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; return; }
  if (at >= M.frames.length - 1) show(0);
  $("play").textContent = "Pause";
  timer = setInterval(() => { if (at >= M.frames.length - 1) play(); else show(at + 1); }, 900);
}
$("title").textContent = M.title + " \\u2014 " + M.names[0] + " vs " + M.names[1];
$("sub").textContent = M.game + ", seed " + M.seed + (M.seat ? ", seen by seat " + M.seat : "");
if (M.note) { $("note").hidden = false; $("note").textContent = M.note; }
$("slider").max = M.frames.length - 1;
$("slider").addEventListener("input", (e) => show(+e.target.value));
$("first").onclick = () => show(0);
$("prev").onclick = () => show(at - 1);
$("next").onclick = () => show(at + 1);
$("last").onclick = () => show(M.frames.length - 1);
$("play").onclick = play;
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.key !== " ") return;
  const keys = {ArrowRight: () => show(at + 1), ArrowLeft: () => show(at - 1), Home: () => show(0),
                End: () => show(M.frames.length - 1), " ": play};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
show(0);
</script>
</body>
</html>
"""
