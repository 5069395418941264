"use strict";
// The replay page: reads the match (deflate + base64 in #match-data), draws the table of the chosen view
// at the chosen step. Only the chosen view's table is ever put in the document: in a seat's view the
// other seat's hidden cards are not hidden, they are absent.
//
// A live view feeds the same page a match as it grows: window.arenaReplay.update(data) takes the match's
// data again (the same shape as #match-data's, unpacked: match_data() of the log so far, with more frames
// and periods than before) and redraws; a viewer at the last step follows the new steps, one elsewhere
// stays where they are. Nothing else in the page keeps a copy of the frames, so appending is that one call.
(async function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  async function load() {
    const raw = atob($("match-data").textContent.trim());
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return JSON.parse(await new Response(stream).text());
  }
  let M = await load();
  const SPEEDS = [0.5, 1, 2, 4, 8, 20];
  const LABELS = {all: "Everything", A: "As A saw it", B: "As B saw it"};
  const TAGS = {request: "asked", answer: "answers", notice: "told"};
  let at = 0, view = M.views[0], timer = null, speed = 2;

  // Cards ---------------------------------------------------------------------------------------------
  // A look: [symbol or word, rank, colour, name in words, second word (Card-Jitsu's colour), filled].
  function card(face, mark) {
    if (face === "?") {
      const back = el("span", "card back");
      back.dataset.card = "?";
      back.title = "a face-down card (this view was not told it)";
      back.setAttribute("role", "img");
      back.setAttribute("aria-label", "face-down card");
      if (mark) back.classList.add("m-" + mark);
      return back;
    }
    const look = M.looks[face] || ["", face, "black", face, "", ""];
    const c = el("span", "card c-" + look[2] + (look[5] ? " fill" : ""));
    c.dataset.card = face;
    c.title = look[3] + (mark ? " (" + mark + ")" : "");
    c.setAttribute("role", "img");
    c.setAttribute("aria-label", c.title);
    c.append(el("span", "rank", look[1]));
    if (look[0]) c.append(el("span", look[0].length > 1 ? "sym word" : "sym", look[0]));
    if (look[4]) c.append(el("span", "sym word sub", look[4]));
    if (mark) c.classList.add("m-" + mark);
    return c;
  }
  function zones(list) {
    const box = el("div", "zones");
    for (const z of list) {
      const zone = el("div", "zone");
      zone.append(el("div", "label", z.label));
      const cards = el("div", "cards");
      z.cards.forEach((face, i) => cards.append(card(face, z.marks && z.marks[i])));
      zone.append(cards);
      if (z.note) zone.append(el("div", "znote", z.note));
      box.append(zone);
    }
    return box;
  }
  // A line of narration: strings, and cards as [face].
  function line(parts, cls) {
    const out = el("div", cls);
    for (const p of parts) out.append(Array.isArray(p) ? card(p[0]) : document.createTextNode(p));
    return out;
  }
  const lineText = (parts) => parts.map((p) => (Array.isArray(p) ? (M.looks[p[0]] || [0, 0, 0, p[0]])[3] : p)).join("");
  function segs(list, into) {
    for (const s of list) {
      if (s.face !== undefined) into.append(card(s.face));
      else into.append(el("span", s.k ? "k" : "", s.t));
    }
    return into;
  }

  // Turns, rounds and hands ----------------------------------------------------------------------------
  const periodOf = (i) => (M.frames[i] ? M.frames[i].p : undefined);
  const kindWord = () => (M.periods.length ? M.periods[M.periods.length - 1].k.toLowerCase() : "turn");
  const scoreText = (sc) => (sc ? sc.map((x) => String(x).replace("-", "\u2212")).join(" \u2013 ") : "");
  function where(i) {
    const p = M.periods[periodOf(i)];
    return p ? p.k.toLowerCase() + " " + p.n : "";
  }
  function drawPeriods() {
    const box = $("periods-box");
    box.hidden = !M.periods.length;
    if (!M.periods.length) return;
    $("periods-title").textContent = M.periods[M.periods.length - 1].k + "s";
    const list = $("periods");
    list.replaceChildren();
    M.periods.forEach((p, i) => {
      const item = el("li");
      const b = el("button", "period");
      b.dataset.period = String(i);
      b.append(el("span", "pn", p.k + " " + p.n));
      b.append(el("span", "po", p.o || ""));
      if (p.sc) b.append(el("span", "ps", scoreText(p.sc)));
      b.onclick = () => show(p.a);
      item.append(b);
      list.append(item);
    });
    for (const id of ["prev-period", "next-period"]) {
      const label = (id === "prev-period" ? "previous " : "next ") + kindWord();
      $(id).setAttribute("aria-label", label);
      $(id).title = label + (id === "prev-period" ? " (Shift+\u2190 or [)" : " (Shift+\u2192 or ])");
    }
  }
  function markPeriod() {
    const current = periodOf(at);
    for (const b of document.querySelectorAll("#periods button")) {
      const on = b.dataset.period === String(current);
      b.classList.toggle("on", on);
      if (on) {
        b.setAttribute("aria-current", "step");
        const list = $("periods"), top = b.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - b.offsetHeight)
          list.scrollTop = top - list.clientHeight / 2;
      } else b.removeAttribute("aria-current");
    }
  }
  function stepPeriod(delta) {
    const current = periodOf(at);
    if (current === undefined) return show(delta > 0 && M.periods.length ? M.periods[0].a : 0);
    const p = M.periods[current];
    // Back from inside a turn goes to its start first, as a music player's "previous" does.
    if (delta < 0 && at > p.a) return show(p.a);
    const target = M.periods[Math.max(0, Math.min(M.periods.length - 1, current + delta))];
    show(delta > 0 && target === p ? M.frames.length - 1 : target.a);
  }

  // The table ------------------------------------------------------------------------------------------
  const seatIndex = (s) => (s === "A" ? 0 : 1);
  function faultsSoFar() {
    // A fault stays marked from its step to the end (the match ended on it).
    const out = [];
    for (let i = 0; i <= at; i++) for (const f of M.frames[i].f || []) out.push(f);
    return out;
  }
  function took(frame, seat) {
    const row = (frame.rows || []).find((r) => r.k === "answer" && r.s === seat && r.ms !== undefined);
    return row ? ms(row.ms) : "";
  }
  const ms = (t) => (t >= 1000 ? (t / 1000).toFixed(2) + " s" : t + " ms");
  function seatPanel(seat, part, frame, faults) {
    const panel = el("div", "seat");
    panel.id = "seat-" + seat;
    const who = el("div", "who");
    who.append(el("span", "badge " + seat, seat), el("span", "name", M.names[seatIndex(seat)]));
    for (const [k, v] of part ? part.stats : []) {
      const stat = el("span", "stat", k + " ");
      stat.append(el("b", "", v));
      who.append(stat);
    }
    const time = took(frame, seat);
    if (time) {
      const stat = el("span", "stat took", "took ");
      stat.append(el("b", "", time));
      who.append(stat);
    }
    if (part && part.status) who.append(el("span", "status", part.status));
    panel.append(who);
    if (part) panel.append(zones(part.zones));
    for (const [s, text] of faults) {
      if (s !== seat) continue;
      panel.classList.add("faulted");
      panel.append(el("div", "fault", "fault: " + text));
    }
    return panel;
  }
  function drawTable(frame) {
    const table = $("table");
    table.replaceChildren();
    const ids = frame.t && frame.t[view];
    const center = ids ? M.parts[ids[0]] : null;
    const felt = el("div", "felt");
    felt.id = "felt";
    if (center) {
      const info = el("div", "info");
      for (const [k, v] of center.info) {
        const badge = el("span", "", k + " ");
        badge.append(el("b", "", v));
        info.append(badge);
      }
      felt.append(info);
      if (center.center.length) felt.append(zones(center.center));
      const outcome = el("div", "outcome", center.outcome || "");
      outcome.id = "outcome";
      felt.append(outcome);
    } else {
      felt.append(el("div", "outcome", frame.n));
    }
    if (frame.r) felt.append(el("div", "outcome final", frame.r));
    // The seat whose view this is sits at the bottom, as at a real table.
    const bottom = view === "B" ? "B" : "A", top = bottom === "A" ? "B" : "A";
    const part = (s) => (ids ? M.parts[ids[1 + seatIndex(s)]] : null);
    const faults = faultsSoFar();
    table.append(seatPanel(top, part(top), frame, faults), felt, seatPanel(bottom, part(bottom), frame, faults));
  }
  function story(frame) {
    const seatOnly = view !== "all";
    const out = [];
    for (const parts of (frame.say && frame.say[view]) || []) out.push(["narration", parts]);
    for (const [s, , words] of frame.f || []) if (!seatOnly || s === view) out.push(["fault-line", [words]]);
    if (frame.r) out.push(["result", [frame.r]]);
    return out;
  }
  function drawSide(frame) {
    const w = where(at);
    // A step in a turn or hand is named by it; the others (the start, the result) by the rules' title.
    $("step-title").textContent = "Step " + (at + 1) + ": " + (w && frame.n !== "result" ? w : frame.n);
    const box = $("story");
    box.replaceChildren();
    const told = story(frame);
    for (const [cls, parts] of told) box.append(line(parts, cls));
    if (!told.length) box.append(el("div", "empty", "Nothing to tell at this step."));
    const seatOnly = view !== "all";
    const rows = (frame.rows || []).filter((r) => !seatOnly || r.s === view);
    const messages = $("messages-body");
    messages.replaceChildren();
    for (const r of rows) {
      const row = el("div", "row " + r.k);
      row.append(el("span", "seatmark seat-" + r.s, r.s), el("span", "tag", TAGS[r.k] || r.k));
      segs(r.g, row);
      if (r.ms !== undefined) row.append(el("span", "ms", "(" + ms(r.ms) + ")"));
      messages.append(row);
    }
    const err = $("stderr");
    err.replaceChildren();
    const lines = (frame.e || []).filter(([s]) => !seatOnly || s === view);
    for (const [s, text] of lines) {
      const line = el("div");
      line.append(el("span", s, s + "> "), document.createTextNode(text));
      err.append(line);
    }
    $("stderr-box").hidden = !lines.length;
    return told;
  }
  function show(i) {
    at = Math.max(0, Math.min(M.frames.length - 1, i));
    const frame = M.frames[at];
    drawTable(frame);
    const told = drawSide(frame);
    const n = M.frames.length, w = where(at);
    const spoken = "step " + (at + 1) + " of " + n + (w ? ", " + w : "");
    $("counter").textContent = "step " + (at + 1) + " / " + n;
    const slider = $("slider");
    slider.max = n - 1;
    slider.value = at;
    slider.setAttribute("aria-valuetext", spoken);
    // Each step announced: where it is and what happened (polite: a screen reader finishes its sentence).
    const first = told.length ? ": " + lineText(told[0][1]) : "";
    $("live").textContent = spoken.charAt(0).toUpperCase() + spoken.slice(1) + first;
    placeCursor();
    markPeriod();
    const hash = "#step=" + (at + 1) + (view !== M.views[0] ? "&view=" + view : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  // The score chart ------------------------------------------------------------------------------------
  // By turn or hand: turn k spans (k - 1, k] of the axis, the score after it at k; by step: step i at i.
  function chartX(i) {
    const T = M.track;
    if (T.by !== "period") return i;
    const index = periodOf(i);
    if (index === undefined) return i < M.periods[T.first].a ? 0 : T.n;  // (the start; the result)
    if (index < T.first) return 0;
    const p = M.periods[index];
    return index - T.first + (i - p.a + 1) / (p.b - p.a + 1);
  }
  // The chart is drawn twice, wide and narrow (a phone's: legible text); the one shown has its own plot area.
  const NARROW = window.matchMedia("(max-width: 600px)");
  function plotArea() {
    const T = M.track;
    return NARROW.matches ? [T.nx0, T.nx1] : [T.x0, T.x1];
  }
  NARROW.addEventListener("change", () => placeCursor());
  function placeCursor() {
    const cursor = $("cursor");
    if (!cursor || !M.track) return;
    const [x0, x1] = plotArea();
    const x = x0 + (x1 - x0) * (chartX(at) / Math.max(1, M.track.n));
    cursor.style.left = "calc(6px + (100% - 12px) * " + Math.max(0, Math.min(1, x)) + ")";
  }
  function chartClick(e) {
    const T = M.track, track = $("track");
    const box = track.getBoundingClientRect();
    const x = (e.clientX - box.left - 6) / (box.width - 12);
    const [x0, x1] = plotArea();
    const f = Math.max(0, Math.min(1, (x - x0) / (x1 - x0)));
    if (T.by !== "period") return show(Math.round(f * (M.frames.length - 1)));
    // The point at k is the score after turn k: a click there opens the step that decided it.
    const k = Math.max(1, Math.min(T.n, Math.round(f * T.n)));
    const p = M.periods[T.first + k - 1];
    if (p) show(p.b);
  }

  // Controls -------------------------------------------------------------------------------------------
  function setView(v, redraw = true) {
    if (!M.views.includes(v)) return;
    view = v;
    for (const b of document.querySelectorAll("#views button")) {
      b.classList.toggle("on", b.dataset.view === v);
      b.setAttribute("aria-pressed", String(b.dataset.view === v));
    }
    if (redraw) show(at);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    $("play").textContent = "▶ Play";
    $("play").setAttribute("aria-label", "play");
  }
  function play() {
    if (timer) return stop();
    if (at >= M.frames.length - 1) show(0);
    $("play").textContent = "❚❚ Pause";
    $("play").setAttribute("aria-label", "pause");
    timer = setInterval(() => (at >= M.frames.length - 1 ? stop() : show(at + 1)), 1000 / speed);
  }
  function setSpeed(s) {
    speed = s;
    $("speed").value = String(s);
    if (timer) { stop(); play(); }
  }
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    setView(params.get("view") || view, false);
    if (params.has("fault")) {
      // #fault (or #fault=B): the step where the first fault (of that seat) happened; a report links so.
      const seat = params.get("fault");
      const i = M.frames.findIndex((f) => (f.f || []).some(([s]) => !seat || s === seat));
      if (i >= 0) return show(i);
    }
    // No step asked for: the first step with something to tell (step 1, the match's start, shows an empty table).
    const n = params.has("step") ? parseInt(params.get("step"), 10) : firstTold() + 1;
    show(Number.isFinite(n) ? n - 1 : 0);
  }
  function firstTold() {
    const i = M.frames.findIndex((f) => story(f).length > 0);
    return i >= 0 ? i : 0;
  }

  // Shown in a frame of the page it belongs to, the replay needs no link back to it (and would open it inside).
  if (window.parent !== window && $("back-to")) $("back-to").remove();
  if (M.note) { $("note").hidden = false; $("note").textContent = M.note; }
  for (const id of ["bar", "stage", "keys"]) $(id).hidden = false;
  for (const v of M.views) {
    const b = el("button", "", LABELS[v]);
    b.dataset.view = v;
    b.title = "key " + (v === "all" ? "E" : v);
    b.onclick = () => setView(v);
    $("views").append(b);
  }
  for (const s of SPEEDS) {
    const o = el("option", "", s + " steps/s");
    o.value = String(s);
    $("speed").append(o);
  }
  $("speed").value = String(speed);
  $("speed").onchange = (e) => setSpeed(+e.target.value);
  $("slider").addEventListener("input", (e) => show(+e.target.value));
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(at - 1);
  $("next").onclick = () => show(at + 1);
  $("last").onclick = () => show(M.frames.length - 1);
  $("prev-period").onclick = () => stepPeriod(-1);
  $("next-period").onclick = () => stepPeriod(1);
  $("play").onclick = play;
  if ($("track")) $("track").addEventListener("click", (e) => M.track && chartClick(e));
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.tagName === "SELECT") return;
    // The slider has its own arrows (a step each); a button's space and Enter press the button.
    if (e.target.tagName === "INPUT" && !e.shiftKey && e.key.startsWith("Arrow")) return;
    if (e.target.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
    const keys = {
      ArrowRight: () => (e.shiftKey ? stepPeriod(1) : show(at + 1)),
      ArrowLeft: () => (e.shiftKey ? stepPeriod(-1) : show(at - 1)),
      "]": () => stepPeriod(1), "[": () => stepPeriod(-1), Home: () => show(0),
      End: () => show(M.frames.length - 1), PageDown: () => show(at + 10), PageUp: () => show(at - 10),
      " ": play, "+": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]),
      "-": () => setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]),
      e: () => setView("all"), a: () => setView("A"), b: () => setView("B"),
    };
    const act = keys[e.key] || keys[e.key.toLowerCase()];
    if (act) { e.preventDefault(); act(); }
  });
  window.addEventListener("hashchange", fromHash);
  // In a frame as tall as the replay (a server's match page) the window never scrolls: the page says how far
  // the frame's top is above its window, and the toolbar is held that far down (it sticks, as in a window).
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent || window.parent === window || !e.data) return;
    const above = Number(e.data.arenaScroll);
    if (Number.isFinite(above) && above >= 0) $("bar").style.top = Math.min(above, 1e6) + "px";
  });
  window.arenaReplay = {
    update(data) {
      const following = at >= M.frames.length - 1;
      M = data;
      // The score chart, drawn by the page's maker (its markup: the arena's own, every text in it escaped).
      if (data.chart !== undefined) {
        const old = $("track"), box = el("div");
        box.innerHTML = data.chart;
        const fresh = box.firstElementChild;
        if (fresh) fresh.addEventListener("click", (e) => M.track && chartClick(e));
        if (old && fresh) old.replaceWith(fresh);
        else if (old) old.remove();
        else if (fresh) $("stage").before(fresh);
      }
      drawPeriods();
      show(following ? M.frames.length - 1 : at);
    },
    show: (i) => show(i),
  };
  drawPeriods();
  fromHash();
  document.body.dataset.ready = "1";
})();
