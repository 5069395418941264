// The match page: its address's #step=N opens the replay at that step, the replay's step goes back into the
// address (a link to the moment), and the frame takes the replay's height (the replay tells it, see web.py).
(function () {
  "use strict";
  var frame = document.getElementById("replay-frame");
  if (!frame) return;
  var base = frame.getAttribute("src").split("#")[0];
  var alone = document.getElementById("replay-alone");
  function place(hash) {
    var clean = /^#(step=\d{1,7}(&view=[A-Za-z0-9]{1,8})?|fault(=[AB])?)$/.test(hash) ? hash : "";
    if (alone) alone.setAttribute("href", base + clean);
    return clean;
  }
  var start = place(location.hash);
  if (start) frame.src = base + start;
  window.addEventListener("hashchange", function () {
    var hash = place(location.hash);
    if (hash) frame.src = base + hash;
  });
  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow || !event.data || !event.data.arenaReplay) return;
    var told = event.data.arenaReplay;
    var height = Number(told.height);
    if (height > 0) frame.style.height = Math.min(Math.max(height + 4, 320), 6000) + "px";
    var hash = place(String(told.hash || ""));
    if (hash && hash !== location.hash) history.replaceState(null, "", hash);
  });
})();
