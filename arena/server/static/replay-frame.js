// A replay in a frame of a server page (the match page, a match in play). The frame is as tall as its replay, so
// the replay's own toolbar would scroll away with the page: the page tells the replay how far its top has gone
// above the window, and the replay holds its toolbar there (replay.js, "arenaScroll"). The first replay shown
// takes the keyboard, so its arrow keys work at once (no Tab through the page's links first).
(function () {
  "use strict";
  var focused = false;
  function frames() { return document.querySelectorAll("iframe.replay"); }
  function tell(frame) {
    if (frame.hidden || !frame.contentWindow) return;
    var above = Math.max(0, Math.round(-frame.getBoundingClientRect().top));
    if (frame.dataset.above === String(above)) return;
    frame.dataset.above = String(above);
    frame.contentWindow.postMessage({ arenaScroll: above }, "*");
  }
  var queued = false;
  function tellAll() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; frames().forEach(tell); });
  }
  window.addEventListener("scroll", tellAll, { passive: true });
  window.addEventListener("resize", tellAll);
  // (load does not bubble: caught on the way down)
  document.addEventListener("load", function (event) {
    var frame = event.target;
    if (!(frame instanceof HTMLIFrameElement) || !frame.classList.contains("replay")) return;
    delete frame.dataset.above;
    tell(frame);
    var idle = document.activeElement === document.body || document.activeElement === null;
    if (!focused && idle) {
      focused = true;
      frame.focus({ preventScroll: true });
    }
  }, true);
})();
