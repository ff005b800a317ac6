// The full map's filters (who decides, group, changed since the last edition) and its
// expand-all control.
// Without JavaScript the toolbar stays hidden and every card shows.
(function () {
  "use strict";

  function setUp() {
    var toolbar = document.querySelector("[data-dm-toolbar]");
    if (!toolbar || toolbar.dataset.dmReady) return;
    toolbar.dataset.dmReady = "1";
    var cards = Array.prototype.slice.call(document.querySelectorAll(".dm-card[data-who]"));
    var groups = Array.prototype.slice.call(document.querySelectorAll(".dm-group"));
    var chips = Array.prototype.slice.call(toolbar.querySelectorAll("[data-dm-who]"));
    var select = toolbar.querySelector("[data-dm-group]");
    var expand = toolbar.querySelector("[data-dm-expand]");
    var counter = toolbar.querySelector("[data-dm-count]");
    var changed = toolbar.querySelector("[data-dm-changed]");  // only when the map has an edition
    var state = { who: "", group: "", changed: false };

    function apply() {
      var shown = 0;
      cards.forEach(function (card) {
        var visible = (!state.who || card.dataset.who === state.who) &&
                      (!state.group || card.dataset.group === state.group) &&
                      (!state.changed || Boolean(card.dataset.edition));
        card.hidden = !visible;
        if (visible) shown += 1;
      });
      groups.forEach(function (group) {
        group.hidden = !group.querySelector(".dm-card[data-who]:not([hidden])");
      });
      chips.forEach(function (chip) {
        chip.setAttribute("aria-pressed", String(chip.dataset.dmWho === state.who));
      });
      if (changed) changed.setAttribute("aria-pressed", String(state.changed));
      counter.textContent = shown === cards.length
        ? "Showing all " + cards.length + " decisions."
        : "Showing " + shown + " of " + cards.length + " decisions.";
    }

    chips.forEach(function (chip) {
      chip.addEventListener("click", function () {
        state.who = chip.dataset.dmWho;
        apply();
      });
    });
    select.addEventListener("change", function () {
      state.group = select.value;
      apply();
    });
    if (changed) {
      changed.addEventListener("click", function () {
        state.changed = !state.changed;
        apply();
      });
    }
    expand.addEventListener("click", function () {
      var open = expand.getAttribute("aria-pressed") !== "true";
      document.querySelectorAll(".dm-card details").forEach(function (details) {
        details.open = open;
      });
      expand.setAttribute("aria-pressed", String(open));
      expand.textContent = open ? "Collapse all code" : "Expand all code";
    });

    // A link to a card that a filter hides clears the filters, so the card can be seen.
    function reveal() {
      var id = decodeURIComponent(location.hash.slice(1));
      var target = id && document.getElementById(id);
      var card = target && target.closest(".dm-card");
      if (card && card.hidden) {
        state.who = "";
        state.group = "";
        state.changed = false;
        select.value = "";
        apply();
        target.scrollIntoView();
      }
    }
    window.addEventListener("hashchange", reveal);

    toolbar.hidden = false;
    apply();
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
