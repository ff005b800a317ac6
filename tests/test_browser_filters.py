"""The real map's full-map filters in a real browser: each facet (decided by, group, overrule,
changed in the latest edition, the text) shows the rows it should, says how many, and keeps the
view in the address, so a filter that toggles its button but not its rows fails; and the demo
site's filters with a group hidden or a badge followed. (Its own file so that `make test`'s two
workers share the browser tests: each file runs on one.)"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from generator.release.edition import entry_verdicts
from generator.site import prose
from generator.site.pages.views import SHORT_AT_MOST
from browsing import assert_landed, landed, one_width, open_page, overflow, real_pi, shot, wait_ready

pytestmark = pytest.mark.browser


def _changed_in_latest_edition() -> list[str]:
    """The decisions of the real map that changed or were re-written in its latest edition."""
    pi = real_pi()
    return sorted(v.entry_id for v in entry_verdicts(pi, pi.editions[-1])
                  if v.verdict in ("changed", "rewritten") and v.entry and v.entry.kind == "decision")


def _visible_rows(page) -> list[str]:
    return page.eval_on_selector_all(".dm-row[data-who]", "rows => rows.filter(r => r.offsetParent !== null)"
                                                          ".map(r => r.dataset.id)")


@one_width
def test_filters_show_the_right_rows_and_are_kept_in_the_address(page, demo_site, width) -> None:
    open_page(page, demo_site, "demo/map/")
    assert _visible_rows(page) == ["D1", "D2", "G1"]
    page.click('[data-dm-who="person"]')
    assert _visible_rows(page) == ["D2"]
    assert page.get_attribute('[data-dm-who="person"]', "aria-pressed") == "true"
    assert page.url.endswith("demo/map/?who=person")
    assert page.locator('.dm-group[data-group="G"]').is_hidden()  # a group left empty hides its heading
    page.select_option("[data-dm-group]", "D")
    assert page.url.endswith("?who=person&group=D")
    assert page.inner_text("[data-dm-count]") == "Showing 1 of 3 decisions."
    shot(page, width, "demo-map-filtered")
    # the address is a shared view: opened afresh, it shows the same rows and pressed buttons
    open_page(page, demo_site, "demo/map/?who=code&group=D")
    assert _visible_rows(page) == ["D1"]
    assert page.get_attribute('[data-dm-who="code"]', "aria-pressed") == "true"
    assert page.input_value("[data-dm-group]") == "D"
    page.click('[data-dm-who=""]')
    page.select_option("[data-dm-group]", "")
    assert _visible_rows(page) == ["D1", "D2", "G1"] and page.url.endswith("demo/map/")
    assert page.inner_text("[data-dm-count]") == "Showing all 3 decisions."
    # words: each one must be in the row's ID, question or short answer, in any case, never only in
    # a badge: "person" is in D1's question, and in D2's badge alone
    page.fill("[data-dm-text]", "RISKY")
    assert _visible_rows(page) == ["D2"] and page.url.endswith("demo/map/?text=RISKY")
    page.fill("[data-dm-text]", "risky approves g1")
    assert _visible_rows(page) == [] and page.inner_text("[data-dm-count]") == "Showing 0 of 3 decisions."
    page.fill("[data-dm-text]", "person")
    assert _visible_rows(page) == ["D1"]
    open_page(page, demo_site, "demo/map/?text=risky")
    assert _visible_rows(page) == ["D2"] and page.input_value("[data-dm-text]") == "risky"
    page.fill("[data-dm-text]", "")
    assert _visible_rows(page) == ["D1", "D2", "G1"] and page.url.endswith("demo/map/")
    assert page.problems == []


def test_a_contents_link_to_a_group_the_filters_hide_says_so_and_shows_it(page, demo_site, width) -> None:
    open_page(page, demo_site, "demo/map/?who=person&group=D")
    assert _visible_rows(page) == ["D2"]
    # the contents (beside the page at 1280, in the drawer on a phone) still lists group G
    page.evaluate("document.querySelector('.md-nav--secondary a[href=\"#group-g\"]').click()")
    notice = page.locator(".dm-toolbar__hidden")
    assert notice.is_visible() and "is hidden by the filters" in notice.inner_text()
    assert "Ending a run" in notice.inner_text()
    assert page.url.endswith("?who=person&group=D")  # nothing changed behind the reader's back
    show = notice.locator("button")
    assert page.evaluate("document.activeElement.textContent") == show.inner_text()  # focus moved to the offer
    shot(page, width, "demo-map-hidden-group")
    show.click()
    assert _visible_rows(page) == ["D1", "D2", "G1"] and not notice.is_visible()
    assert page.url.endswith("demo/map/#group-g")
    assert_landed(landed(page, "#group-g"))
    assert page.problems == []


@one_width
def test_the_changed_filter_shows_only_rows_changed_in_the_last_edition(page, demo_site, width) -> None:
    open_page(page, demo_site, "demo/map/")
    button = "[data-dm-changed]"
    assert page.inner_text(button) == "Code or text changed in 1.0.0 1"
    page.click(button)
    assert _visible_rows(page) == ["G1"]  # re-written; D1 only moved, D2 unchanged
    assert page.get_attribute(button, "aria-pressed") == "true" and "changed=1" in page.url
    assert page.locator('.dm-group[data-group="D"]').is_hidden()
    assert page.locator('.dm-row[data-id="G1"] a.dm-edition-badge').inner_text() == "re-written for 1.0.0"
    page.click('[data-dm-who="code"]')  # combined with another filter: nothing left
    assert _visible_rows(page) == []
    page.click('[data-dm-who=""]')
    page.click(button)
    assert _visible_rows(page) == ["D1", "D2", "G1"]


def test_a_badge_leads_to_the_entrys_history_with_the_code_before_and_after(page, demo_site, width) -> None:
    open_page(page, demo_site, "demo/map/")
    page.click('.dm-row[data-id="G1"] a.dm-edition-badge')
    page.wait_for_url("**/demo/G1/#history")
    wait_ready(page)
    history = page.locator(".dm-history").first
    assert history.locator(".dm-verdict").inner_text() == "re-written for 1.0.0"
    history.locator("details.dm-drift summary").first.click()
    befores = history.locator(".dm-drift__side--before a.dm-permalink")
    assert befores.first.get_attribute("href") == "https://github.com/example/demo/blob/v0.8.0/src/loop.js#L2-L4"
    assert history.locator(".dm-drift__side--after .hll").count() == 4  # the lines 1.0.0 added, marked
    assert overflow(page) == 0
    shot(page, width, "demo-g1-history")


@pytest.mark.network
def test_filters_on_the_real_map(page, real_site, width) -> None:
    decisions = list(real_pi().decisions)
    open_page(page, real_site, "pi/map/")
    assert len(_visible_rows(page)) == len(decisions)
    page.click('[data-dm-who="model"]')
    page.select_option("[data-dm-group]", "G")
    expected = sorted(d.id for d in decisions if d.decided_by == "model" and d.group == "G")
    assert sorted(_visible_rows(page)) == expected and expected
    page.click('[data-dm-who=""]')
    page.select_option("[data-dm-group]", "")
    page.click("[data-dm-changed]")
    assert sorted(_visible_rows(page)) == _changed_in_latest_edition()
    # every control is a comfortable target on a phone
    sizes = page.eval_on_selector_all(".dm-toolbar button, .dm-toolbar select, .dm-toolbar input",
                                      "all => all.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
    assert sizes and all(w >= 24 and h >= 24 for w, h in sizes), sizes



# One test per facet of the full map's filters, on the real map: after each click (or each word
# typed) the rows shown are exactly those the map's data selects, the count says so, the address
# holds the filter, and opening that address again shows the same rows with the same control set.
# A facet whose button toggles but whose rows do not follow fails here.

# Which rows a facet selects does not hang on the width, and the controls are the same at 390 px
# (the same toolbar, wrapped): each facet runs at 1280 px, and the row of "who" buttons, the one
# that wraps, at 390 px too (test_filters_on_the_real_map presses who, group and changed at both).
FACETS = ("who", "group", "overrule", "changed", "text")
# words a reader might type; which rows they select is computed from the map, never written here
FILTER_WORDS = ("compaction", "Tool call", "abort")


def _row_text(entry) -> str:
    """What the words filter looks in: the ID, the question and the short answer a row shows."""
    answer = prose.first_sentences(entry.answer or entry.description or "", at_least=SHORT_AT_MOST,
                                   at_most=SHORT_AT_MOST)
    return f"{entry.id} {prose.words(entry.headline)} {prose.words(answer)}".lower()


def _with_words(decisions, typed: str) -> list[str]:
    return sorted(d.id for d in decisions if all(w in _row_text(d) for w in typed.lower().split()))


def _facet_steps(facet: str) -> list[tuple]:
    """(what the reader does, the query the address then holds, the IDs shown), in order; the last
    step of each facet clears it again."""
    decisions = list(real_pi().decisions)
    every = sorted(d.id for d in decisions)
    if facet == "who":
        whos = sorted({d.decided_by or "none" for d in decisions})
        steps = [(("click", f'[data-dm-who="{who}"]'), f"who={who}",
                  sorted(d.id for d in decisions if (d.decided_by or "none") == who)) for who in whos]
        return steps + [(("click", '[data-dm-who=""]'), "", every)]
    if facet == "group":
        groups = sorted({d.group for d in decisions})
        steps = [(("select", g), f"group={g}", sorted(d.id for d in decisions if d.group == g)) for g in groups]
        return steps + [(("select", ""), "", every)]
    if facet == "overrule":
        overruled = sorted(d.id for d in decisions if d.overrides)
        return [(("click", "[data-dm-overrule]"), "overrule=1", overruled), (("click", "[data-dm-overrule]"), "", every)]
    if facet == "changed":
        changed = _changed_in_latest_edition()
        return [(("click", "[data-dm-changed]"), "changed=1", changed), (("click", "[data-dm-changed]"), "", every)]
    assert facet == "text"
    steps = [(("fill", typed), "text=" + typed.replace(" ", "+"), _with_words(decisions, typed)) for typed in FILTER_WORDS]
    return steps + [(("fill", ""), "", every)]


def _shown(page) -> dict:
    """What the map shows now: the rows, the count sentence, the query of the address, the controls."""
    return {"rows": sorted(_visible_rows(page)), "count": page.inner_text("[data-dm-count]"),
            "query": urlsplit(page.url).query, "hash": urlsplit(page.url).fragment,
            "controls": page.evaluate("""() => ({
                who: Array.from(document.querySelectorAll('[data-dm-who][aria-pressed="true"]'), b => b.dataset.dmWho),
                group: document.querySelector('[data-dm-group]').value,
                overrule: (document.querySelector('[data-dm-overrule]') || {}).ariaPressed || null,
                changed: (document.querySelector('[data-dm-changed]') || {}).ariaPressed || null,
                text: document.querySelector('[data-dm-text]').value})""")}


@pytest.mark.network
@pytest.mark.parametrize("width, facet", [(1280, facet) for facet in FACETS] + [(390, "who")],
                         ids=[f"1280px-{facet}" for facet in FACETS] + ["390px-who"])
def test_each_filter_of_the_full_map_shows_its_rows_in_the_address_and_after_a_reload(page, real_site, width,
                                                                                        facet) -> None:
    total = len(list(real_pi().decisions))
    open_page(page, real_site, "pi/map/")
    assert len(_visible_rows(page)) == total
    steps = _facet_steps(facet)
    assert any(0 < len(ids) < total for _, _, ids in steps), f"no step of {facet} hides a row: the test proves nothing"
    for (action, target), query, expected in steps:
        if action == "click":
            page.click(target)
        elif action == "select":
            page.select_option("[data-dm-group]", target)
        else:
            page.fill("[data-dm-text]", target)
        now = _shown(page)
        assert now["rows"] == expected, (facet, target)
        assert now["count"] == (f"Showing all {total} decisions." if len(expected) == total
                                else f"Showing {len(expected)} of {total} decisions."), (facet, target)
        assert now["query"] == query and now["hash"] == "", (facet, target, page.url)
        # the address is the view: opened again, the same rows, with the same control set
        page.reload(wait_until="load")
        wait_ready(page)
        again = _shown(page)
        assert again == now, (facet, target)
    assert page.problems == []
