// The TV: the matches in play as small live tables, read again every two seconds (while the page is in view) from
// the server's public summary of them (/tv/data) and drawn in place, with no reload. The same script draws a
// match's public live page (#tv with data-source "/tv/data?key=KEY"). Names and a game's words are the server's
// data, set as text (never as HTML); long names are cut by the style sheet, whole in their title.
(function () {
  "use strict";
  var box = document.getElementById("tv");
  if (!box || !window.fetch) return;
  var EVERY_MS = 2000;
  var status = document.getElementById("tv-status");
  var featured = document.getElementById("tv-featured");
  var boards = document.getElementById("tv-boards");
  var last = null;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function name(text) { var span = el("span", "tv-name", text); span.title = text; return span; }
  function fmt(x) { return typeof x === "number" ? String(x) : "-"; }
  function part(items) {
    var list = el("dl", "tv-part");
    (items || []).forEach(function (item) {
      list.append(el("dt", "", item[0]));
      var dd = el("dd");
      if (Array.isArray(item[1])) {
        if (!item[1].length) dd.textContent = "none";
        item[1].forEach(function (card) { dd.append(el("span", "tv-card", card)); });
      } else dd.textContent = item[1];
      list.append(dd);
    });
    return list;
  }
  function board(m, big, why) {
    var node = el("article", big ? "tv-board featured" : "tv-board");
    node.dataset.key = m.key;
    var head = el(big ? "h2" : "h3", "tv-title");
    var link = el("a");
    link.href = m.url;
    link.append(name(m.a), el("span", "tv-vs", " vs "), name(m.b));
    link.setAttribute("aria-label", m.a + " against " + m.b + ": the match's page");
    head.append(link);
    node.append(head);
    if (big && why && !box.dataset.single) {
      var reason = el("p", "meta tv-why", "Featured: " + why);
      reason.title = why;
      node.append(reason);
    }
    var score = el("p", "tv-score");
    var points = m.score ? el("strong", "tv-points", fmt(m.score[0]) + " : " + fmt(m.score[1])) : el("strong", "tv-points tv-none", "no score yet");
    if (m.score) score.append(el("span", "tv-seat", "A"), points, el("span", "tv-seat", "B"));
    else score.append(points);
    node.append(score);
    var turn = m.turn.length ? (m.turn.length === 2 ? "both seats to play" : m.turn[0] + " to play") : "between steps";
    var step = m.step ? "step " + m.step + " · " + turn : "starting";
    node.append(el("p", "meta tv-step", step + " · " + m.seconds + " s"));
    if (m.table) {
      var table = el("div", "tv-table");
      if (m.table.public.length) table.append(part(m.table.public));
      ["A", "B"].forEach(function (seat, i) {
        if (m.table.seats[i] && m.table.seats[i].length) {
          var side = el("div", "tv-side");
          side.append(el("p", "tv-seat-label", "seat " + seat), part(m.table.seats[i]));
          table.append(side);
        }
      });
      node.append(table);
    }
    return node;
  }
  function draw(data) {
    var text = JSON.stringify(data);
    if (text === last) return;
    last = text;
    var focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
    var matches = data.matches || [];
    if (status) status.textContent = matches.length ? (matches.length === 1 ? "One match in play." : matches.length + " matches in play.") : "No match is being played now.";
    var top = matches.length && matches[0].key === data.featured ? matches[0] : null;
    if (featured) featured.replaceChildren.apply(featured, top ? [board(top, true, data.why)] : []);
    var rest = matches.filter(function (m) { return m !== top; }).map(function (m) { return board(m, false, ""); });
    if (boards) boards.replaceChildren.apply(boards, rest);
    if (focused) { var again = box.querySelector('a[href="' + CSS.escape(focused) + '"]'); if (again) again.focus(); }
    box.dataset.updates = String(Number(box.dataset.updates || 0) + 1);
  }
  function refresh() {
    if (document.hidden) return;
    fetch(box.dataset.source, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(draw)
      .catch(function () {});
  }
  refresh();
  setInterval(refresh, EVERY_MS);
})();
