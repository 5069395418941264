// Now playing: the list of matches in play is read again every few seconds (while the page is in view) and
// updated in place, so a match that begins shows up and one that ended goes, without a reload. The server draws
// the list (escaped): the page takes its #live-list as it is, and keeps the reader's focus on a link still there.
(function () {
  "use strict";
  var list = document.getElementById("live-list");
  if (!list || !window.fetch || !window.DOMParser) return;
  var EVERY_MS = 3000;
  function refresh() {
    if (document.hidden) return;
    fetch(location.pathname, { credentials: "same-origin", headers: { accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live-list");
        if (!fresh || fresh.innerHTML === list.innerHTML) return;
        var focused = document.activeElement && list.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
        list.replaceChildren.apply(list, Array.prototype.slice.call(fresh.childNodes).map(function (n) { return document.importNode(n, true); }));
        if (focused) { var again = list.querySelector('a[href="' + CSS.escape(focused) + '"]'); if (again) again.focus(); }
        list.dataset.updates = String(Number(list.dataset.updates || 0) + 1);
      })
      .catch(function () {});
  }
  setInterval(refresh, EVERY_MS);
})();
