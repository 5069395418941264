// A match in play: its table so far (a replay page drawn by the server for this viewer) is loaded once, then
// grown in place each time the server says the viewer's view grew (its replay takes the new steps: no reload);
// each frame takes the height its replay tells (as on the match page: see web.py, FRAME_SCRIPT); when the match
// ends, the page goes to the match's own page.
(function () {
  var box = document.getElementById("live-match");
  if (!box || !window.EventSource) return;
  var frames = document.getElementById("live-frames");
  var count = document.getElementById("live-count");
  var replay = box.dataset.replay;
  var shown = null;
  var loading = false;
  var wanted = 0;

  // Once a frame shows the match, it grows in place: its view so far is fetched and handed to it (the viewer's
  // step is kept: one at the last step follows the match, one who stepped back stays, End follows again).
  function grow(n) {
    loading = true;
    fetch(box.dataset.data + "?n=" + n, { credentials: "same-origin" })
      .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.json(); })
      .then(function (data) {
        shown.contentWindow.postMessage({ arenaData: data }, "*");
        shown.dataset.shown = String(n);
        box.dataset.shown = String(n);
        box.dataset.updates = String(Number(box.dataset.updates || 0) + 1);
        loading = false;
        if (wanted !== n) load(wanted);
      })
      .catch(function () { loading = false; }); // (the match ended meanwhile: its "end" event comes)
  }

  function load(n) {
    wanted = n;
    if (!replay || !frames || loading) return;
    if (shown && box.dataset.data) return grow(n);
    loading = true;
    box.dataset.frames = String(Number(box.dataset.frames || 0) + 1);
    var frame = document.createElement("iframe");
    frame.className = "replay";
    frame.title = "the match so far";
    frame.setAttribute("sandbox", "allow-scripts");
    frame.src = replay + "?n=" + n + "#step=1000000";
    frame.hidden = shown !== null;
    frame.addEventListener("load", function () {
      if (shown) shown.remove();
      frame.hidden = false;
      shown = frame;
      frame.dataset.shown = String(n);
      box.dataset.shown = String(n);
      loading = false;
      if (wanted !== n) load(wanted);
    });
    frames.append(frame);
  }
  window.addEventListener("message", function (event) {
    if (!event.data || !event.data.arenaReplay || !frames) return;
    var height = Number(event.data.arenaReplay.height);
    frames.querySelectorAll("iframe").forEach(function (frame) {
      if (frame.contentWindow === event.source && height > 0) {
        frame.style.height = Math.min(Math.max(height + 4, 320), 6000) + "px";
      }
    });
  });
  // A stream the server refused (too many watched from here: 429) or lost is opened again a few seconds later
  // (EventSource itself gives up on an HTTP error); a match that ended meanwhile answers with its "end".
  function listen() {
    var source = new EventSource(box.dataset.events);
    source.addEventListener("step", function (event) {
      var data = JSON.parse(event.data);
      if (count) count.textContent = data.shown + " messages so far.";
      if (data.shown > 0) load(data.shown);
    });
    source.addEventListener("end", function (event) {
      source.close();
      window.location.assign(JSON.parse(event.data).url);
    });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000);
    });
  }
  listen();
})();
