// The decision map's pages, in the reader's browser. Nothing here is needed to read a page.
//
// - The full map: filters (who decides, group, who can overrule, changed in the last edition),
//   kept in the address (?who=model&group=G) so a filtered view can be shared. Without
//   JavaScript the filters stay hidden and every row shows.
// - Old links: every decision once had a card on the full map (/pi/map/#d1 or #D1). Such a
//   link now goes on to the decision's own page. Nothing is fetched from another host.
// - "see C2" links show the question they lead to while they have keyboard focus.
// - A link in the full map's contents to a group the filters hide says so, and offers to show it.
// - A table wider than the screen says that it scrolls sideways.
// - Material's code-block toolbars have no names; they get one.
// - The 404 page's search link searches for what the address asked for; an entry's address in lower
//   case (/pi/d1/) goes on to its page (/pi/D1/).
// - Printing opens the folded code.
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

    // A link to a group the filters hide (the table of contents lists every group) would do
    // nothing at all: say so next to the filters, and offer to clear them and go there.
    var notice = document.createElement("p");
    notice.className = "dm-toolbar__hidden";
    notice.setAttribute("role", "status");
    notice.hidden = true;
    toolbar.appendChild(notice);

    function hiddenGroupOf(id) {
      var target = id && document.getElementById(id);
      var group = target && target.closest(".dm-group");
      return group && group.hidden ? {target: target, group: group} : null;
    }

    function sayHidden(found) {
      var heading = found.group.querySelector("h2");
      var name = heading ? heading.textContent.replace(/\u00b6/g, "").trim() : found.group.dataset.group;
      notice.textContent = "“" + name + "” is hidden by the filters. ";
      var show = document.createElement("button");
      show.type = "button";
      show.className = "dm-chip";
      show.textContent = "Show every decision and go there";
      show.addEventListener("click", function () {
        state = {who: "", group: "", changed: false, overrule: false};
        update();
        notice.hidden = true;
        // through the address, so that the heading is the page's target (and marked as one)
        if (location.hash === "#" + found.target.id) found.target.scrollIntoView();
        else location.hash = found.target.id;
        found.target.setAttribute("tabindex", "-1");
        found.target.focus({preventScroll: true});
      });
      notice.appendChild(show);
      notice.hidden = false;
      toolbar.scrollIntoView({block: "nearest"});
      show.focus({preventScroll: true});
    }

    document.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[href*='#']") : null;
      if (!link || link.pathname !== location.pathname) return;
      var found = hiddenGroupOf(decodeURIComponent(link.hash.slice(1)));
      if (!found) return;
      event.preventDefault();
      sayHidden(found);
    });
    [chips, [select], [changed, overrule].filter(Boolean)].forEach(function (controls) {
      controls.forEach(function (control) {
        control.addEventListener(control.tagName === "SELECT" ? "change" : "click", function () {
          notice.hidden = true;
        });
      });
    });

    toolbar.hidden = false;
    apply();
    var opened = hiddenGroupOf(decodeURIComponent(location.hash.slice(1)));
    if (opened) sayHidden(opened);
  }

  // The theme leaves each code block's toolbar without a name: a screen reader announces them all
  // alike. (The search dialog is named in the HTML: generator/site/theme/partials/search.html.)
  function nameUnnamed() {
    Array.prototype.forEach.call(document.querySelectorAll("nav.md-code__nav:not([aria-label])"),
      function (nav, index) {
        nav.setAttribute("aria-label", "Actions for code block " + (index + 1));
      });
  }

  // The 404 page: its search link searches for the last word of the address that was not found
  // ("/pi/D99/" -> "D99"), which Material's search reads from ?q= when the page opens.
  function searchForTheMissingPage() {
    var link = document.querySelector("[data-dm-not-found-search]");
    if (!link) return;
    var last = location.pathname.split("/").filter(Boolean).pop() || "";
    try { last = decodeURIComponent(last); } catch (err) { last = ""; }
    var words = last.replace(/\.html?$/, "").replace(/[-_.]+/g, " ").trim();
    link.href = link.href.replace(/\?.*$/, "") + "?q=" + encodeURIComponent(words);
  }

  // "see C2": the question of the decision a link leads to, shown while the link has keyboard
  // focus (a mouse gets the link's title; a screen reader reads that title already, so the box is
  // hidden from it). One box for the page, placed by script so that it stays inside the viewport.
  var tip = null;
  var TIP_MARGIN = 8;  // px between the box and the edge of the window

  function showTip(link) {
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "dm-tip";
      tip.setAttribute("aria-hidden", "true");
      document.body.appendChild(tip);
    }
    var room = document.documentElement.clientWidth;
    tip.textContent = link.getAttribute("title");
    tip.style.maxWidth = Math.min(352, room - 2 * TIP_MARGIN) + "px";
    tip.style.left = "0px";
    tip.style.top = "0px";
    tip.hidden = false;
    var box = link.getBoundingClientRect();
    var size = tip.getBoundingClientRect();
    var left = Math.max(TIP_MARGIN, Math.min(box.left, room - size.width - TIP_MARGIN));
    var top = box.bottom + 6;  // below the link, or above it when the window ends first
    if (top + size.height > window.innerHeight - TIP_MARGIN && box.top - size.height - 6 > TIP_MARGIN) {
      top = box.top - size.height - 6;
    }
    tip.style.left = left + window.scrollX + "px";
    tip.style.top = top + window.scrollY + "px";
  }

  function hideTip() {
    if (tip) tip.hidden = true;
  }

  document.addEventListener("focusin", function (event) {
    var link = event.target.closest ? event.target.closest("a.dm-ref[title]") : null;
    if (link && link.matches(":focus-visible")) showTip(link); else hideTip();
  });
  document.addEventListener("focusout", hideTip);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") hideTip();
  });
  window.addEventListener("resize", hideTip);

  // A table wider than the screen scrolls sideways in its own box, and nothing shows that columns
  // are cut off: say so above it (the theme wraps each table in .md-typeset__scrollwrap).
  function markWideTables() {
    Array.prototype.forEach.call(document.querySelectorAll(".md-typeset__scrollwrap"), function (wrap) {
      var cue = wrap.previousElementSibling;
      if (!cue || !cue.classList.contains("dm-scroll-cue")) {
        cue = document.createElement("p");
        cue.className = "dm-scroll-cue";
        cue.setAttribute("aria-hidden", "true");  // a screen reader reads every column anyway
        cue.textContent = "The table is wider than the screen: scroll it sideways for more columns →";
        wrap.parentNode.insertBefore(cue, wrap);
      }
      cue.hidden = wrap.scrollWidth <= wrap.clientWidth + 1;
    });
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(markWideTables, 150);
  });

  // The 404 page: an entry's address typed in lower case (/pi/d1/) goes on to the entry's page
  // (/pi/D1/); pages are at the ID as written. One step only: an address already in capitals
  // stays on this page, so a missing entry never loops.
  function goToTheEntryAsWritten() {
    if (!document.querySelector("[data-dm-not-found-search]")) return false;
    var parts = location.pathname.split("/");
    var at = parts[parts.length - 1] ? parts.length - 1 : parts.length - 2;
    if (at < 0 || !/^[a-z][0-9]{1,4}$/.test(parts[at])) return false;
    parts[at] = parts[at].toUpperCase();
    location.replace(parts.join("/") + location.search + location.hash);
    return true;
  }

  // Printing: the folded code (<details>) is printed open, and folded again afterwards.
  function printOpen() {
    window.addEventListener("beforeprint", function () {
      Array.prototype.forEach.call(document.querySelectorAll("details:not([open])"), function (details) {
        details.setAttribute("data-dm-print-opened", "");
        details.open = true;
      });
    });
    window.addEventListener("afterprint", function () {
      Array.prototype.forEach.call(document.querySelectorAll("details[data-dm-print-opened]"), function (details) {
        details.removeAttribute("data-dm-print-opened");
        details.open = false;
      });
    });
  }

  function setUp() {
    if (goToTheEntryAsWritten()) return;
    printOpen();
    nameUnnamed();
    markWideTables();
    searchForTheMissingPage();
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
