// The report's match list: sort by a column (its header's button), filter by text, and show one pair's matches
// when the address names it (#vs-1-2, as the crosstable links). Without JavaScript the table reads as it is.
(function () {
  "use strict";
  var table = document.getElementById("matches");
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var filter = document.getElementById("match-filter");
  var count = document.getElementById("match-count");
  var all = document.getElementById("show-all");

  function value(row, column) {
    var cell = row.cells[column];
    var sort = cell.getAttribute("data-sort");
    var text = sort !== null ? sort : cell.textContent.trim();
    var number = Number(text);
    return text !== "" && !isNaN(number) ? number : text.toLowerCase();
  }

  table.querySelectorAll("thead button").forEach(function (button) {
    button.addEventListener("click", function () {
      var column = Number(button.dataset.column);
      var th = button.parentNode;
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (other) { other.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = value(a, column), y = value(b, column);
        var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === "number" ? -1 : 1;
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });

  function show() {
    var words = filter.value.trim().toLowerCase();
    var pair = /^#vs-\d+-\d+$/.test(location.hash) ? location.hash.slice(1) : "";
    var shown = 0;
    rows.forEach(function (row) {
      var visible = (!pair || row.dataset.pair === pair) && (!words || row.textContent.toLowerCase().indexOf(words) >= 0);
      row.hidden = !visible;
      if (visible) shown++;
    });
    count.textContent = shown === rows.length ? rows.length + " pairs" : shown + " of " + rows.length + " pairs shown";
    all.hidden = !pair;
  }
  filter.addEventListener("input", show);
  window.addEventListener("hashchange", show);
  all.addEventListener("click", function () { history.replaceState(null, "", "#matches"); show(); });
  show();
})();
