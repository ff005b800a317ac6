// The decision map's pages, in the reader's browser. Nothing here is needed to read a page.
//
// - The full map: filters (who decides, group, who can overrule, changed in the last edition),
//   kept in the address (?who=model&group=G) so a filtered view can be shared. Without
//   JavaScript the filters stay hidden and every row shows.
// - Old links: every decision once had a card on the full map (/pi/map/#d1 or #D1). Such a
//   link now goes on to the decision's own page. Nothing is fetched from another host.
// - Material's search box and code-block toolbars have no names; they get one.
(function () {
  "use strict";

  function entryPage(hash) {
    // "#D1" or "#d1" -> the link to D1's page from its row on this page, if there is one
    var id = decodeURIComponent(hash.replace(/^#/, ""));
    if (!/^[A-Za-z][0-9]{1,4}$/.test(id)) return null;
    var row = document.querySelector('.dm-row[data-id="' + id.toUpperCase() + '"]');
    var link = row && row.querySelector("a.dm-row__link");
    // to the question on that page, which is then marked as the target
    return link ? link.href.replace(/#.*$/, "") + "#" + id.toLowerCase() : null;
  }

  function followOldLink() {
    var page = entryPage(location.hash);
    if (page) location.replace(page);
    return Boolean(page);
  }

  function setUpFilters() {
    var toolbar = document.querySelector("[data-dm-toolbar]");
    if (!toolbar || toolbar.dataset.dmReady) return;
    toolbar.dataset.dmReady = "1";
    var rows = Array.prototype.slice.call(document.querySelectorAll(".dm-row[data-who]"));
    var groups = Array.prototype.slice.call(document.querySelectorAll(".dm-group"));
    var chips = Array.prototype.slice.call(toolbar.querySelectorAll("[data-dm-who]"));
    var select = toolbar.querySelector("[data-dm-group]");
    var counter = toolbar.querySelector("[data-dm-count]");
    var changed = toolbar.querySelector("[data-dm-changed]");  // only when the map has an edition
    var overrule = toolbar.querySelector("[data-dm-overrule]");  // only when some can be overruled
    var whos = chips.map(function (chip) { return chip.dataset.dmWho; });
    var letters = Array.prototype.map.call(select.options, function (o) { return o.value; });

    function read() {
      var query = new URLSearchParams(location.search);
      var who = query.get("who") || "";
      var group = (query.get("group") || "").toUpperCase();
      return {
        who: whos.indexOf(who) >= 0 ? who : "",
        group: letters.indexOf(group) >= 0 ? group : "",
        changed: Boolean(changed) && query.get("changed") === "1",
        overrule: Boolean(overrule) && query.get("overrule") === "1"
      };
    }

    var state = read();

    function write() {
      var query = new URLSearchParams(location.search);
      [["who", state.who], ["group", state.group], ["changed", state.changed ? "1" : ""],
       ["overrule", state.overrule ? "1" : ""]].forEach(function (pair) {
        if (pair[1]) query.set(pair[0], pair[1]); else query.delete(pair[0]);
      });
      var search = query.toString();
      history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
    }

    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var visible = (!state.who || row.dataset.who === state.who) &&
                      (!state.group || row.dataset.group === state.group) &&
                      (!state.changed || Boolean(row.dataset.edition)) &&
                      (!state.overrule || Boolean(row.dataset.overrule));
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      groups.forEach(function (group) {
        group.hidden = !group.querySelector(".dm-row[data-who]:not([hidden])");
      });
      chips.forEach(function (chip) {
        chip.setAttribute("aria-pressed", String(chip.dataset.dmWho === state.who));
      });
      select.value = state.group;
      if (changed) changed.setAttribute("aria-pressed", String(state.changed));
      if (overrule) overrule.setAttribute("aria-pressed", String(state.overrule));
      counter.textContent = shown === rows.length
        ? "Showing all " + rows.length + " decisions."
        : "Showing " + shown + " of " + rows.length + " decisions.";
    }

    function update() {
      apply();
      write();
    }

    chips.forEach(function (chip) {
      chip.addEventListener("click", function () {
        state.who = chip.dataset.dmWho;
        update();
      });
    });
    select.addEventListener("change", function () {
      state.group = select.value;
      update();
    });
    if (changed) {
      changed.addEventListener("click", function () {
        state.changed = !state.changed;
        update();
      });
    }
    if (overrule) {
      overrule.addEventListener("click", function () {
        state.overrule = !state.overrule;
        update();
      });
    }
    window.addEventListener("popstate", function () {
      state = read();
      apply();
    });

    toolbar.hidden = false;
    apply();
  }

  // The theme leaves its search dialog and each code block's toolbar without a name: a screen
  // reader announces them all alike.
  function nameUnnamed() {
    Array.prototype.forEach.call(
      document.querySelectorAll('[role="dialog"]:not([aria-label]):not([aria-labelledby])'),
      function (dialog) {
        dialog.setAttribute("aria-label", dialog.classList.contains("md-search") ? "Search" : "Dialog");
      });
    Array.prototype.forEach.call(document.querySelectorAll("nav.md-code__nav:not([aria-label])"),
      function (nav, index) {
        nav.setAttribute("aria-label", "Actions for code block " + (index + 1));
      });
  }

  function setUp() {
    nameUnnamed();
    if (document.querySelector(".dm-rows")) {
      if (followOldLink()) return;
      window.addEventListener("hashchange", followOldLink);
    }
    setUpFilters();
  }

  // Material's instant navigation swaps pages without a reload and announces each on document$.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(setUp);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
