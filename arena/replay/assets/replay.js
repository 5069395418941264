"use strict";
// The replay page: reads the match (deflate + base64 in #match-data), draws the table of the chosen view
// at the chosen step. Only the chosen view's table is ever put in the document: in a seat's view the
// other seat's hidden cards are not hidden, they are absent.
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
  const M = await load();
  const SPEEDS = [0.5, 1, 2, 4, 8, 20];
  const LABELS = {all: "Everything", A: "As A saw it", B: "As B saw it"};
  const TAGS = {request: "asked", answer: "answers", notice: "told"};
  let at = 0, view = M.views[0], timer = null, speed = 2;

  function card(face, mark) {
    if (face === "?") {
      const back = el("span", "card back");
      back.dataset.card = "?";
      back.title = "a card this view was not told";
      if (mark) back.classList.add("m-" + mark);
      return back;
    }
    const look = M.looks[face] || ["", face, "black"];
    const c = el("span", "card c-" + look[2]);
    c.dataset.card = face;
    c.title = face;
    c.append(el("span", "rank", look[1]));
    if (look[0]) c.append(el("span", look[0].length > 1 ? "sym word" : "sym", look[0]));
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
  function segs(list, into) {
    for (const s of list) {
      if (s.face !== undefined) {
        const c = el("span", "card c-" + (s.c || "black"));
        c.dataset.card = s.face;
        c.append(el("span", "rank", s.rank || s.face));
        if (s.sym) c.append(el("span", s.sym.length > 1 ? "sym word" : "sym", s.sym));
        into.append(c);
      } else into.append(el("span", s.k ? "k" : "", s.t));
    }
    return into;
  }
  const seatIndex = (s) => (s === "A" ? 0 : 1);
  function seatPanel(seat, part, frame) {
    const panel = el("div", "seat");
    panel.id = "seat-" + seat;
    const who = el("div", "who");
    who.append(el("span", "badge " + seat, seat), el("span", "name", M.names[seatIndex(seat)]));
    for (const [k, v] of part ? part.stats : []) {
      const stat = el("span", "stat", k + " ");
      stat.append(el("b", "", v));
      who.append(stat);
    }
    if (part && part.status) who.append(el("span", "status", part.status));
    panel.append(who);
    if (part) panel.append(zones(part.zones));
    for (const [s, text] of frame.f || []) {
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
    // The seat whose view this is sits at the bottom, as at a real table.
    const bottom = view === "B" ? "B" : "A", top = bottom === "A" ? "B" : "A";
    const part = (s) => (ids ? M.parts[ids[1 + seatIndex(s)]] : null);
    table.append(seatPanel(top, part(top), frame), felt, seatPanel(bottom, part(bottom), frame));
  }
  function drawSide(frame) {
    $("step-title").textContent = "Step " + (at + 1) + ": " + frame.n;
    const story = $("story");
    story.replaceChildren();
    const seatOnly = view !== "all";
    if (!seatOnly) for (const line of frame.say || []) story.append(el("div", "narration", line));
    if (frame.r && !seatOnly) story.append(el("div", "result", frame.r));
    const mine = (r) => !seatOnly || r.s === view;
    const rows = (frame.rows || []).filter(mine);
    if (seatOnly) for (const r of rows.filter((r) => r.k === "notice")) story.append(segs(r.g, el("div", "row")));
    if (!story.childNodes.length) story.append(el("div", "empty", "Nothing to tell at this step."));
    const messages = $("messages-body");
    messages.replaceChildren();
    for (const r of rows) {
      const row = el("div", "row " + r.k);
      row.append(el("span", "seatmark seat-" + r.s, r.s), el("span", "tag", TAGS[r.k] || r.k));
      messages.append(segs(r.g, row));
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
  }
  function show(i) {
    at = Math.max(0, Math.min(M.frames.length - 1, i));
    const frame = M.frames[at];
    drawTable(frame);
    drawSide(frame);
    $("counter").textContent = "step " + (at + 1) + " / " + M.frames.length;
    $("slider").value = at;
    const cursor = $("cursor");
    if (cursor && M.track) {
      const x = M.track.x0 + (M.track.x1 - M.track.x0) * (at / Math.max(1, M.frames.length - 1));
      cursor.style.left = "calc(6px + (100% - 12px) * " + x + ")";
    }
    const hash = "#step=" + (at + 1) + (view !== M.views[0] ? "&view=" + view : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  function setView(v, redraw = true) {
    if (!M.views.includes(v)) return;
    view = v;
    for (const b of document.querySelectorAll("#views button")) b.classList.toggle("on", b.dataset.view === v);
    if (redraw) show(at);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    $("play").textContent = "▶ Play";
  }
  function play() {
    if (timer) return stop();
    if (at >= M.frames.length - 1) show(0);
    $("play").textContent = "❚❚ Pause";
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
    const n = parseInt(params.get("step") || "1", 10);
    show(Number.isFinite(n) ? n - 1 : 0);
  }

  $("title").textContent = M.title + ": ";
  $("title").append(el("span", "seat-A", M.names[0]), document.createTextNode(" vs "), el("span", "seat-B", M.names[1]));
  $("seed").textContent = M.seed;
  $("result").textContent = M.result || "";
  if (M.note) { $("note").hidden = false; $("note").textContent = M.note; }
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
  $("slider").max = M.frames.length - 1;
  $("slider").addEventListener("input", (e) => show(+e.target.value));
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(at - 1);
  $("next").onclick = () => show(at + 1);
  $("last").onclick = () => show(M.frames.length - 1);
  $("play").onclick = play;
  const track = $("track");
  if (track && M.track) {
    track.addEventListener("click", (e) => {
      const box = track.getBoundingClientRect();
      const x = (e.clientX - box.left - 6) / (box.width - 12);
      const f = (x - M.track.x0) / (M.track.x1 - M.track.x0);
      show(Math.round(Math.max(0, Math.min(1, f)) * (M.frames.length - 1)));
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.tagName === "SELECT") return;
    const keys = {
      ArrowRight: () => show(at + 1), ArrowLeft: () => show(at - 1), Home: () => show(0),
      End: () => show(M.frames.length - 1), PageDown: () => show(at + 10), PageUp: () => show(at - 10),
      " ": play, "+": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]),
      "-": () => setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]),
      e: () => setView("all"), a: () => setView("A"), b: () => setView("B"),
    };
    const act = keys[e.key] || keys[e.key.toLowerCase()];
    if (act) { e.preventDefault(); act(); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.dataset.ready = "1";
})();
