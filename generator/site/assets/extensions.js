// The extensions index, in the reader's browser: filter the table by the decision group an
// extension changes and by whether it is mapped from npm, kept in the address (?group=C&npm=1)
// so a filtered view can be shared. Without JavaScript the filters stay hidden and every row shows.
(function () {
  "use strict";

  function setUp() {
    var toolbar = document.querySelector("[data-dm-ext-toolbar]");
    if (!toolbar || toolbar.dataset.dmReady) return;
    toolbar.dataset.dmReady = "1";
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-dm-ext]"));
    var select = toolbar.querySelector("[data-dm-ext-group]");
    var npm = toolbar.querySelector("[data-dm-ext-npm]");
    var counter = toolbar.querySelector("[data-dm-ext-count]");
    var letters = Array.prototype.map.call(select.options, function (o) { return o.value; });

    function read() {
      var query = new URLSearchParams(location.search);
      var group = (query.get("group") || "").toUpperCase();
      return {group: letters.indexOf(group) >= 0 ? group : "", npm: query.get("npm") === "1"};
    }

    var state = read();

    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var visible = (!state.group || row.dataset.groups.indexOf(state.group) >= 0) &&
                      (!state.npm || row.dataset.npm === "yes");
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      select.value = state.group;
      npm.setAttribute("aria-pressed", String(state.npm));
      counter.textContent = shown === rows.length
        ? "Showing all " + rows.length + " extensions."
        : "Showing " + shown + " of " + rows.length + " extensions.";
    }

    function update() {
      apply();
      var query = new URLSearchParams(location.search);
      [["group", state.group], ["npm", state.npm ? "1" : ""]].forEach(function (pair) {
        if (pair[1]) query.set(pair[0], pair[1]); else query.delete(pair[0]);
      });
      var search = query.toString();
      history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
    }

    select.addEventListener("change", function () { state.group = select.value; update(); });
    npm.addEventListener("click", function () { state.npm = !state.npm; update(); });
    window.addEventListener("popstate", function () { state = read(); apply(); });
    toolbar.hidden = false;
    apply();
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(setUp);  // Material's instant navigation swaps pages without a reload
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
