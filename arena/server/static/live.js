// Live leaderboard: the server sends the table, already escaped, each time a match finishes.
(function () {
  if (!window.EventSource) return;
  var target = document.getElementById("live-board");
  var badge = document.getElementById("live");
  if (!target) return;
  var source = new EventSource("/events");
  source.addEventListener("board", function (event) {
    var data = JSON.parse(event.data);
    target.innerHTML = data.html; // server-rendered with autoescaping: bot names are text
    if (badge) badge.hidden = false;
  });
  source.onerror = function () { if (badge) badge.hidden = true; };
})();
