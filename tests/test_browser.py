"""The built site in a real browser (Playwright driving Debian's chromium), at 1280 and 390 px.

Two sites are built once per session: the demo site (its D1 answer carries a <script> and an
onerror= that must stay text) and the real map from decisions/ (pi fetched from the registry).
Screenshots go to test-artifacts/browser/<width>px/.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from pathlib import Path

import pytest

from conftest import ROOT, require, run_cli
from generator.edition import entry_verdicts
from generator.load import load_maps
from site_fixtures.demo_site import make_demo_site

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "browser"
WIDTHS = (1280, 390)
D1_PERMALINK = ("https://github.com/earendil-works/pi/blob/v1.6.0/packages/coding-agent/src/core/"
                "agent-session.ts#L723-L746")
DEMO_PAGES = ("", "demo/", "demo/map/", "demo/problems/", "demo/census/", "extensions/demo-ext/",
              "demo/editions/", "demo/editions/0.8.0-to-1.0.0/")
REAL_PAGES = ("", "pi/", "pi/map/", "pi/problems/", "pi/census/", "extensions/pi-turn-limit/",
              "extensions/pi-todo-loop/", "extensions/pi-roundtable/", "pi/editions/",
              "pi/editions/1.4.0-to-1.6.0/")
QUIET = {"NO_MKDOCS_2_WARNING": "1"}


# --- sites and the browser ------------------------------------------------------------------------


class _Site:
    """A built site served over HTTP on a free local port (search needs HTTP, not file://)."""

    def __init__(self, folder: Path):
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _build(config: Path, site: Path, cache: Path) -> None:
    run = run_cli("build", "--config", config, "--site-dir", site, "--quiet",
                  env={**QUIET, "DECISION_MAP_CACHE": str(cache)})
    assert run.code == 0, run.stderr


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("demo-site")
    demo = make_demo_site(root / "inputs")
    _build(demo.config, root / "site", root / "cache")
    site = _Site(root / "site")
    yield site
    site.close()


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("real-site")
    _build(ROOT / "mkdocs.yml", root / "site", root / "cache")
    site = _Site(root / "site")
    yield site
    site.close()


@pytest.fixture(scope="module")  # closed after this module: another sync Playwright may start later
def browser():
    require("a browser", CHROMIUM.exists(), f"no {CHROMIUM} (apt-get install chromium; .ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        yield launched
        launched.close()


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def width(request) -> int:
    return request.param


@pytest.fixture
def page(browser, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    tab = context.new_page()
    tab.problems = []  # console errors and uncaught exceptions
    tab.on("console", lambda message: tab.problems.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: tab.problems.append(str(error)))
    yield tab
    context.close()


def _open(page, site: _Site, path: str) -> None:
    page.goto(site.url + path, wait_until="networkidle")


def _shot(page, width: int, name: str, full_page: bool = False) -> None:
    folder = ARTIFACTS / f"{width}px"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=full_page)


def _overflow(page) -> int:
    """How far the page scrolls sideways, in CSS pixels (0: it does not)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def _name(path: str) -> str:
    return path.strip("/").replace("/", "-") or "home"


def _decisions() -> list:
    [pi] = [m for m in load_maps(ROOT / "decisions") if m.name == "pi"]
    return list(pi.decisions)


def _changed_in_latest_edition() -> list[str]:
    """The decisions of the real map that changed or were re-written in its latest edition."""
    [pi] = [m for m in load_maps(ROOT / "decisions") if m.name == "pi"]
    return sorted(v.entry_id for v in entry_verdicts(pi, pi.editions[-1])
                  if v.verdict in ("changed", "rewritten") and v.entry and v.entry.kind == "decision")


# --- every page ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DEMO_PAGES)
def test_demo_pages_load_cleanly(page, demo_site, width, path) -> None:
    _open(page, demo_site, path)
    assert page.problems == []
    assert _overflow(page) == 0
    _shot(page, width, f"demo-{_name(path)}", full_page=True)


@pytest.mark.network
@pytest.mark.parametrize("path", REAL_PAGES)
def test_real_pages_load_cleanly(page, real_site, width, path) -> None:
    _open(page, real_site, path)
    assert page.problems == []
    assert _overflow(page) == 0
    _shot(page, width, f"pi-{_name(path)}", full_page=path != "pi/map/")


# --- the full map's controls --------------------------------------------------------------------------


def _visible_cards(page) -> list[dict]:
    return page.eval_on_selector_all(
        ".dm-card[data-who]", "cards => cards.filter(c => c.offsetParent !== null)"
                              ".map(c => ({id: c.dataset.id, who: c.dataset.who, group: c.dataset.group}))")


@pytest.mark.network
def test_filters_hide_and_show_the_right_cards(page, real_site, width) -> None:
    decisions = _decisions()
    _open(page, real_site, "pi/map/")
    assert len(_visible_cards(page)) == len(decisions)

    page.click('[data-dm-who="model"]')
    shown = _visible_cards(page)
    assert sorted(c["id"] for c in shown) == sorted(d.id for d in decisions if d.decided_by == "model")
    assert page.get_attribute('[data-dm-who="model"]', "aria-pressed") == "true"

    page.select_option("[data-dm-group]", "G")
    shown = _visible_cards(page)
    expected = sorted(d.id for d in decisions if d.decided_by == "model" and d.group == "G")
    assert sorted(c["id"] for c in shown) == expected and expected
    assert page.locator('.dm-group[data-group="E"]').is_hidden()  # a group left empty hides its heading
    assert page.inner_text("[data-dm-count]") == f"Showing {len(expected)} of {len(decisions)} decisions."
    _shot(page, width, "pi-map-filtered")

    page.click('[data-dm-who=""]')
    shown = _visible_cards(page)
    assert sorted(c["id"] for c in shown) == sorted(d.id for d in decisions if d.group == "G")

    page.select_option("[data-dm-group]", "")
    assert len(_visible_cards(page)) == len(decisions)
    assert page.inner_text("[data-dm-count]") == f"Showing all {len(decisions)} decisions."


def test_the_changed_filter_shows_only_cards_changed_in_the_last_edition(page, demo_site, width) -> None:
    _open(page, demo_site, "demo/map/")
    button = '[data-dm-changed]'
    assert page.inner_text(button) == "Changed since the last edition 1"
    page.click(button)
    assert [c["id"] for c in _visible_cards(page)] == ["G1"]  # re-written; D1 only moved, D2 unchanged
    assert page.get_attribute(button, "aria-pressed") == "true"
    assert page.locator('.dm-group[data-group="D"]').is_hidden()
    assert page.inner_text("[data-dm-count]") == "Showing 1 of 3 decisions."
    assert page.locator('.dm-card[data-id="G1"] a.dm-edition-badge').inner_text() == "re-written for 1.0.0"
    page.click('[data-dm-who="code"]')  # combined with another filter: nothing left
    assert _visible_cards(page) == []
    page.click('[data-dm-who=""]')
    page.click(button)
    assert sorted(c["id"] for c in _visible_cards(page)) == ["D1", "D2", "G1"]
    assert page.get_attribute(button, "aria-pressed") == "false"
    assert page.problems == []


def test_a_badge_leads_to_the_entry_on_the_edition_page(page, demo_site, width) -> None:
    _open(page, demo_site, "demo/map/")
    page.click('.dm-card[data-id="G1"] a.dm-edition-badge')
    page.wait_for_url("**/demo/editions/0.8.0-to-1.0.0/#g1")
    entry = page.locator('.dm-edition-entry[data-id="G1"]')
    assert entry.locator(".dm-verdict").inner_text() == "Re-written for 1.0.0"
    befores = entry.locator(".dm-drift__side--before a.dm-permalink")
    assert befores.first.get_attribute("href") == "https://github.com/example/demo/blob/v0.8.0/src/loop.js#L2-L4"
    assert entry.locator(".dm-drift__side--after .hll").count() == 4  # the lines 1.0.0 added, marked
    assert _overflow(page) == 0
    _shot(page, width, "demo-edition-g1")


@pytest.mark.network
def test_the_changed_filter_on_the_real_map(page, real_site, width) -> None:
    expected = _changed_in_latest_edition()
    _open(page, real_site, "pi/map/")
    page.click("[data-dm-changed]")
    shown = sorted(c["id"] for c in _visible_cards(page))
    assert shown == expected and expected
    assert page.locator(".dm-card[data-edition]").count() >= len(expected)
    _shot(page, width, "pi-map-changed")
    page.click("[data-dm-changed]")
    assert len(_visible_cards(page)) == len(_decisions())


@pytest.mark.network
def test_expand_all_opens_every_card_and_nothing_scrolls_sideways(page, real_site, width) -> None:
    _open(page, real_site, "pi/map/")
    closed = page.eval_on_selector_all(".dm-card details", "all => all.filter(d => !d.open).length")
    assert closed == page.locator(".dm-card details").count() > 0
    page.click("[data-dm-expand]")
    assert page.eval_on_selector_all(".dm-card details", "all => all.every(d => d.open)")
    assert page.inner_text("[data-dm-expand]") == "Collapse all code"
    assert _overflow(page) == 0
    page.locator("#d1").scroll_into_view_if_needed()
    _shot(page, width, "pi-map-expanded")
    page.click("[data-dm-expand]")
    assert page.eval_on_selector_all(".dm-card details", "all => all.every(d => !d.open)")


def test_wide_code_scrolls_in_its_own_box(page, demo_site, width) -> None:
    _open(page, demo_site, "demo/problems/")
    code = page.locator(".dm-code td.code pre > code").first  # Material scrolls the <code>
    sizes = code.evaluate("pre => [pre.scrollWidth, pre.clientWidth]")
    assert sizes[0] > sizes[1]  # line 17 is wider than the box at either width...
    assert _overflow(page) == 0  # ...and only the box scrolls


@pytest.mark.network
def test_d1_links_to_its_code_at_the_pinned_tag(page, real_site, width) -> None:
    _open(page, real_site, "pi/map/")
    card = page.locator('.dm-card[data-id="D1"]')
    assert card.locator("a.dm-permalink").first.get_attribute("href") == D1_PERMALINK
    _open(page, real_site, "pi/")
    summary = page.locator('.dm-summary[data-id="D1"]')
    assert summary.locator("a.dm-permalink").first.get_attribute("href") == D1_PERMALINK
    assert summary.locator("a.dm-permalink").first.inner_text() == "agent-session.ts:723-746"


# --- search ------------------------------------------------------------------------------------------------


def _search(page, query: str) -> list[str]:
    """The result links Material's search shows for ``query``.

    The search index loads in a web worker; a query typed before it is ready is not run again
    once it is, so the query is typed again until results for this query show."""
    page.keyboard.press("s")  # Material's shortcut opens search at every width
    box = page.locator("input.md-search__input")
    highlight = "+".join(query.lower().split()[:1])
    links: list[str] = []
    for _ in range(20):
        box.fill("")
        box.press_sequentially(query)
        page.wait_for_timeout(500)
        links = page.eval_on_selector_all(".md-search-result__link", "links => links.map(a => a.href)")
        if any(f"h={highlight}" in link for link in links):
            return links
    raise AssertionError(f"no search results for {query!r}: {links}")


@pytest.mark.network
def test_search_finds_d1_by_id_and_by_words_of_its_question(page, real_site, width) -> None:
    _open(page, real_site, "")
    d1 = re.compile(r"/pi/(map/)?(\?[^#]*)?#d1$")
    assert any(d1.search(href) for href in _search(page, "D1"))
    _shot(page, width, "pi-search-d1")
    page.keyboard.press("Escape")
    assert any(d1.search(href) for href in _search(page, "person asked before tool call"))


# --- safety and dark mode ----------------------------------------------------------------------------------


def test_a_script_in_an_answer_does_not_run(page, demo_site, width) -> None:
    for path in ("demo/map/", "demo/", "demo/problems/"):
        _open(page, demo_site, path)
        ran = page.evaluate("[typeof window.__injected, typeof window.__fromCode]")
        assert ran == ["undefined", "undefined"], path
        assert page.locator("script:not([src]):not([type])").evaluate_all(
            "scripts => scripts.filter(s => s.textContent.includes('__injected')).length") == 0
    _open(page, demo_site, "demo/map/")
    answer = page.locator('.dm-card[data-id="D1"]').inner_text()
    assert '<script>window.__injected = "script"</script>' in answer
    assert "<img src=x onerror=\"window.__injected = 'img'\">" in answer
    assert page.problems == []


def test_a_script_in_an_answer_does_not_run_from_search_results(page, demo_site, width) -> None:
    _open(page, demo_site, "")
    _search(page, "shown never run")  # words of the D1 answer, next to the markup
    page.wait_for_timeout(500)
    assert page.evaluate("typeof window.__injected") == "undefined"
    results = page.inner_text(".md-search-result")
    assert "window.__injected" in results  # shown, as text
    assert page.locator(".md-search-result img, .md-search-result script").count() == 0
    _shot(page, width, "demo-search-injected")


def test_dark_mode_switches_the_palette(page, demo_site, width) -> None:
    _open(page, demo_site, "demo/map/")
    scheme = page.get_attribute("body", "data-md-color-scheme")
    page.locator("form[data-md-component=palette] label:visible").first.click()
    assert page.get_attribute("body", "data-md-color-scheme") != scheme
    assert page.get_attribute("body", "data-md-color-scheme") in ("slate", "default")
    page.click("[data-dm-expand]")
    _shot(page, width, "demo-map-dark" if scheme == "default" else "demo-map-light", full_page=True)
    assert page.problems == []
