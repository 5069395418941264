// A game a person plays against a bot: the table (a replay page in the seat's view, in a sandboxed frame) and the
// moves, updated in place from the game's event stream; the page is never reloaded. A move is a button (its
// number is its key, 1-9) or, for a move that is one of the seat's cards, a click on that card in the table (the
// frame tells this page which card: the frame sees nothing else of the page, this page reads only those messages).
(function () {
  "use strict";
  var box = document.getElementById("play");
  if (!box || !window.EventSource || !window.fetch) return;
  var frame = document.getElementById("play-table");
  var form = document.getElementById("moves");
  var buttons = document.getElementById("move-buttons");
  var stateLine = document.getElementById("play-state");
  var thinking = document.getElementById("thinking");
  var transcript = document.getElementById("transcript");
  var jsonLabel = document.getElementById("json-move");
  var jsonInput = document.getElementById("json-input");
  var moves = [], waiting = false, asksJson = false, asks = -1, sentAt = -1, table = null, over = false;

  function toFrame(message) { if (frame && frame.contentWindow) frame.contentWindow.postMessage(message, "*"); }
  function tellFrame() {
    if (table) toFrame({ arenaData: table });
    toFrame({ arenaPlayable: { seat: box.dataset.seat, faces: waiting && sentAt < 0 ? moves : [] } });
  }

  function draw(state) {
    if (!form) return;
    var open = waiting && sentAt < 0;
    form.hidden = !waiting;
    if (thinking) thinking.hidden = waiting;
    buttons.replaceChildren();
    moves.forEach(function (label, i) {
      var b = document.createElement("button");
      b.name = "move";
      b.value = String(i + 1);
      b.disabled = !open;
      if (i < 9) {
        var key = document.createElement("kbd");
        key.textContent = String(i + 1);
        b.append(key, " ");
      }
      b.append(label); // text: a move's words come from the request (a bot's name never; escaped anyway)
      buttons.append(b, " ");
    });
    if (jsonLabel) jsonLabel.hidden = !(waiting && asksJson);
    if (jsonInput) { jsonInput.required = waiting && asksJson; jsonInput.disabled = !open; }
    if (state) stateLine.textContent = over ? "The game is over." : waiting ? (sentAt >= 0 ? "Sent." : state.question || "Your move.") : "The bot is playing.";
    tellFrame();
  }

  function finish(state) {
    over = true;
    if (form) form.remove();
    if (thinking) thinking.remove();
    form = null;
    stateLine.textContent = "The game is over.";
    if (!document.getElementById("game-over")) {
      var end = document.createElement("p");
      end.className = "stats";
      end.id = "game-over";
      end.append("The game is over. ");
      if (state.replay) {
        var link = document.createElement("a");
        link.href = state.replay;
        link.textContent = "Its replay";
        end.append(link, " (both seats' cards).");
      }
      stateLine.after(end);
    }
    tellFrame();
  }

  function send(value) {
    if (!form || !waiting || sentAt >= 0) return;
    sentAt = asks;
    draw({ question: "" });
    var body = new FormData(form);
    body.set("move", value);
    fetch(form.action, { method: "POST", body: body, headers: { "x-arena-move": "1" }, credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error(String(response.status)); })
      .catch(function () { sentAt = -1; draw(null); stateLine.textContent = "The move was not sent (the connection?): try again."; });
  }
  function byKey(key) {
    var n = Number(key);
    if (n >= 1 && n <= Math.min(9, moves.length)) send(String(n));
  }

  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var by = event.submitter;
      if (by && by.name === "move" && by.value) send(by.value);
      else if (jsonInput) send(jsonInput.value);
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    if (/^[0-9]$/.test(event.key)) { event.preventDefault(); byKey(event.key); }
  });
  window.addEventListener("message", function (event) {
    if (!frame || event.source !== frame.contentWindow || !event.data) return;
    var data = event.data;
    if (data.arenaReplay) {
      var height = Number(data.arenaReplay.height);
      if (height > 0) frame.style.height = Math.min(Math.max(height + 4, 320), 6000) + "px";
      if (data.arenaReplay.retry) setTimeout(function () { frame.src = frame.src; }, 1000); // (its log had not begun)
    } else if (typeof data.arenaPlay === "string") {
      var i = moves.indexOf(data.arenaPlay);
      if (i >= 0) send(String(i + 1));
    } else if (typeof data.arenaKey === "string") {
      byKey(data.arenaKey);
    }
  });
  if (frame) frame.addEventListener("load", tellFrame);

  function listen() {
    var source = new EventSource(box.dataset.events);
    source.addEventListener("state", function (event) {
      var state = JSON.parse(event.data);
      if (state.asks !== sentAt || !state.waiting) sentAt = -1; // the move was taken: the next request, or the bot
      asks = state.asks;
      waiting = state.waiting;
      asksJson = state.json;
      moves = state.moves;
      if (state.over) { source.close(); finish(state); } else draw(state);
      box.dataset.asks = String(state.asks);
      box.dataset.waiting = state.waiting ? "1" : "";
    });
    source.addEventListener("said", function (event) {
      if (transcript) transcript.append(JSON.parse(event.data).lines.map(function (l) { return l + "\n"; }).join(""));
    });
    source.addEventListener("table", function (event) {
      table = JSON.parse(event.data);
      tellFrame();
      box.dataset.steps = String(table.frames.length);
    });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED && !over) setTimeout(listen, 3000);
    });
  }
  listen();
})();
