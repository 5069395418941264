// The organiser's switches that cannot be taken back lightly (freeze, disqualify) ask first.
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      var name = form.querySelector("input[name=name]");
      var text = form.dataset.confirm.replace("{name}", name ? name.value : "");
      if (!window.confirm(text)) event.preventDefault();
    });
  });
})();
