// Live leaderboard: the server sends the table, already escaped, each time the standings change. The table on the
// page is updated in place, row by row (keyed by bot), so keyboard focus and the reader's place are kept; a row
// whose rank changed shows by how much, and the status line says whether the ladder is playing.
(function () {
  "use strict";
  var target = document.getElementById("live-board");
  var state = document.getElementById("ladder-state");
  var updated = document.getElementById("last-update");
  if (!target || !window.EventSource) return;

  function rowsByBot(root) {
    var found = {};
    root.querySelectorAll("#board tbody tr[data-bot]").forEach(function (row) { found[row.dataset.bot] = row; });
    return found;
  }

  function rankMove(row, before, after) {
    var cell = row.querySelector("td.rank");
    if (!cell || before === after) return;
    var up = before > after;
    var span = document.createElement("span");
    span.className = "move " + (up ? "up" : "down");
    span.textContent = " " + (up ? "\u25b2" : "\u25bc") + Math.abs(before - after);
    var words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = (up ? " up " : " down ") + Math.abs(before - after) + " since the last update";
    span.appendChild(words);
    cell.appendChild(span);
  }

  // A row's figures (rating, points, record, matches, faults), without the marks this script adds: a row is
  // flashed only when they changed, not when its rank or a previous flash made its markup differ.
  function figures(row) {
    var cells = Array.prototype.slice.call(row.querySelectorAll("td:not(.rank)"));
    return cells.map(function (cell) { return cell.textContent.replace(/\s+/g, " ").trim(); }).join("|");
  }
  function flash(row) {
    row.classList.remove("changed");
    void row.offsetWidth; // (restarts the fading)
    row.classList.add("changed");
  }
  // The flash fades (style.css), then the mark goes: an unchanged row is never left marked "changed".
  target.addEventListener("animationend", function (event) {
    var row = event.target.closest && event.target.closest("tr.changed");
    if (row) row.classList.remove("changed");
  });

  // Replace what changed, keep what did not (the same nodes: a focused link stays focused). An element whose
  // children grew or shrank keeps the ones it had in common: a bot's name cell that gains a line (its reason for
  // being disqualified) keeps its link, and a focused link there its focus.
  function patch(old, fresh) {
    if (old.nodeType !== Node.ELEMENT_NODE || fresh.nodeType !== Node.ELEMENT_NODE) {
      if (old.nodeType === fresh.nodeType) { if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue; }
      else old.replaceWith(fresh);
      return;
    }
    if (old.isEqualNode(fresh)) return;
    if (old.tagName !== fresh.tagName) {
      old.replaceWith(fresh);
      return;
    }
    Array.prototype.slice.call(old.attributes).forEach(function (a) { if (!fresh.hasAttribute(a.name)) old.removeAttribute(a.name); });
    Array.prototype.slice.call(fresh.attributes).forEach(function (a) { old.setAttribute(a.name, a.value); });
    var oldKids = Array.prototype.slice.call(old.childNodes);
    var freshKids = Array.prototype.slice.call(fresh.childNodes);
    oldKids.forEach(function (kid, i) { if (i < freshKids.length) patch(kid, freshKids[i]); else kid.remove(); });
    freshKids.slice(oldKids.length).forEach(function (kid) { old.appendChild(kid); });
  }

  function update(html) {
    var focused = document.activeElement;
    var before = rowsByBot(target);
    var ranks = {};
    Object.keys(before).forEach(function (bot) { ranks[bot] = Number(before[bot].dataset.rank); });
    var next = document.createElement("div");
    next.innerHTML = html; // server-rendered with autoescaping: bot names are text
    var oldBody = target.querySelector("#board tbody");
    var newBody = next.querySelector("#board tbody");
    if (oldBody && newBody) {
      // Rows: reuse each bot's row, in the new order; rows of bots no longer in the table go.
      var kept = [];
      Array.prototype.slice.call(newBody.children).forEach(function (fresh) {
        var bot = fresh.dataset.bot;
        var row = bot && before[bot];
        if (row) {
          var changed = figures(row) !== figures(fresh);
          patch(row, fresh);
          if (!row.isConnected) row = fresh;
          if (changed) flash(row);
          rankMove(row, ranks[bot], Number(fresh.dataset.rank));
        } else {
          row = fresh;
        }
        kept.push(row);
      });
      kept.forEach(function (row, i) { if (oldBody.children[i] !== row) oldBody.insertBefore(row, oldBody.children[i] || null); });
      while (oldBody.children.length > kept.length) oldBody.lastElementChild.remove();
      // Everything else in the fragment (other tables, the latest matches) is patched node by node.
      var oldParts = Array.prototype.slice.call(target.children);
      var newParts = Array.prototype.slice.call(next.children);
      if (oldParts.length === newParts.length) {
        oldParts.forEach(function (part, i) { if (!part.contains(oldBody)) patch(part, newParts[i]); });
      } else {
        var keep = oldBody.closest(".scroll");
        oldParts.forEach(function (part) { if (part !== keep) part.remove(); });
        var place = newBody.closest(".scroll");
        var after = false;
        newParts.forEach(function (part) {
          if (part === place) { after = true; return; }
          if (after) target.appendChild(part); else target.insertBefore(part, keep);
        });
      }
    } else {
      target.innerHTML = html;
    }
    if (focused && focused !== document.body && focused.isConnected && document.activeElement !== focused) focused.focus();
  }

  function say(data) {
    if (!state) return;
    var text, kind;
    if (data.frozen) { text = "final standings"; kind = ""; }
    else if (data.paused) { text = "paused"; kind = ""; }
    else if (data.starting) { text = "starting: the ladder begins once its match worker is up"; kind = ""; }
    else if (data.in_play > 0) { text = data.in_play + (data.in_play === 1 ? " match" : " matches") + " in play"; kind = "playing"; }
    else if (target.querySelectorAll("#board tbody tr[data-bot]").length < 2) { text = "idle: waiting for a second bot"; kind = ""; }
    else { text = "idle: every pair is settled"; kind = ""; }
    state.textContent = text;
    state.className = "state " + kind;
    if (updated && data.as_of) {
      var when = new Date(data.as_of * 1000);
      updated.textContent = when.toLocaleTimeString();
      updated.title = when.toISOString();
    }
  }

  var last = {};
  var source = new EventSource("/events");
  source.addEventListener("state", function (event) {
    var data = JSON.parse(event.data);
    last.in_play = data.in_play;
    last.starting = data.starting;
    say(last);
  });
  source.addEventListener("board", function (event) {
    var data = JSON.parse(event.data);
    update(data.html);
    last = data;
    say(data);
    document.body.dataset.liveEvents = String(Number(document.body.dataset.liveEvents || 0) + 1);
  });
  source.onerror = function () {
    if (state) { state.textContent = "not connected: reload for the latest"; state.className = "state offline"; }
  };
})();
