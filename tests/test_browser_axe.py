"""The real site's pages in a real browser, at 1280 and 390 px: each loads cleanly, and axe-core finds
no serious or critical violation in light nor in dark. (Its own file so that `make test`'s two
workers share the browser tests: each file runs on one.) The theme's overlays, open, are checked in
test_browser.py.

Each page is opened once per width and checked in both schemes there: axe's own run is most of
the time (measured: 3 to 12 s of a check, the page's load 1 to 2 s), so a page opened once instead
of once per scheme, and once for the load checks, saves the loads and nothing that is checked. In
dark, axe runs the rules that read colours (browsing.COLOUR_RULES): the toggle changes the
palette and shows its own other label, while the page's elements, their names and roles stay as
they were (the site's scripts do not read the scheme), so the other rules would repeat the light
verdict.

The colour rules (80 to 90% of axe's time on a page, measured) run at the wide width, in both
schemes: the palette does not hang on the width. The phone's stylesheet rules change no colour,
no text size and no weight (test_styles.py holds them to that), so the text a phone shows has
the colours and sizes the wide page showed; what only a phone shows (the open drawer, the
search over the page) is checked open, in both schemes, in test_browser.py. At the phone's
width axe runs every other rule: those read the layout, which is the width's own.

axe cannot judge the labels of the loop drawings (SVG text over shapes: it files them as
`incomplete`, 84 on pi/), so browsing.drawing_contrast checks them on every page here that has one:
at both widths in light, and in dark at the wide width (a page axe does not check is put in dark for
it alone)."""

from __future__ import annotations

import re

import pytest

from browsing import (COLOUR_RULES, WIDTHS, drawing_contrast, goto, open_context, open_tab, overflow, serious_violations,
                      shot, shot_name, wait_scheme)

pytestmark = pytest.mark.browser

# every page here is opened at both widths and must load cleanly (no sideways scroll, no Markdown
# or template syntax shown, no empty header cell); on every page of both lists, no console error
# and no request to another host
REAL_PAGES = ("", "pi/", "pi/map/", "pi/D1/", "pi/G1/", "pi/P2/", "pi/problems/", "pi/census/",
              "extensions/pi-turn-limit/", "extensions/pi-todo-loop/", "extensions/pi-roundtable/", "pi/editions/",
              "pi/editions/1.4.0-to-1.6.0/", "extensions/", "extensions/pi-subagents/")
# ...and axe checks these, in light and in dark
AXE_PAGES = ("", "pi/", "pi/map/", "pi/D1/", "pi/problems/", "pi/P8/", "pi/C10/", "pi/census/", "pi/editions/",
             "pi/editions/1.4.0-to-1.6.0/", "extensions/pi-turn-limit/", "extensions/pi-todo-loop/",
             "extensions/", "extensions/pi-mermaid/")
PAGES = REAL_PAGES + tuple(path for path in AXE_PAGES if path not in REAL_PAGES)
COLOUR_WIDTH = max(WIDTHS)  # where the colour rules run, in light and in dark


def load_problems(tab) -> list[str]:
    """What a reader would see wrong on a page just opened, in words (empty: nothing); its console
    errors are read once the page has been checked in both schemes."""
    found = []
    sideways = overflow(tab)
    if sideways:
        found.append(f"the page scrolls {sideways} px sideways")
    if re.search(r"\{:|\{\{|\{%", tab.inner_text("article")):
        found.append("Markdown or template syntax shows on the page")
    if tab.eval_on_selector_all("article th", "all => all.filter(th => !th.innerText.trim()).length"):
        found.append("a table has a header cell with nothing in it")
    return found


def to_dark(tab) -> None:
    """The page, opened light, put in the dark scheme as a reader does: the browser's preference
    turns dark and the reader presses the theme's toggle. (Material follows the preference only
    when a page loads: with the preference alone the page stayed light for 30 s. Its toggle sets
    the same body attributes as a page opened dark, and the site's colours hang on those alone.)"""
    tab.emulate_media(color_scheme="dark")
    tab.locator("form[data-md-component=palette] label:visible").first.click()
    wait_scheme(tab, "dark")
    assert tab.get_attribute("body", "data-md-color-media") == "(prefers-color-scheme: dark)"


@pytest.mark.network
@pytest.mark.parametrize("path", PAGES)
def test_a_page_loads_cleanly_and_axe_finds_no_serious_violation_in_light_and_dark(browser, real_site, width,
                                                                                   path) -> None:
    context = open_context(browser, width, "light")
    tab = open_tab(context)
    goto(tab, real_site.url + path)
    wait_scheme(tab, "light")
    failed = []
    if path in REAL_PAGES:
        failed += [f"{path or 'home'} at {width} px: {problem}" for problem in load_problems(tab)]
        shot(tab, width, f"pi-{shot_name(path)}", full_page=True)
    # the loop drawings' labels, which axe cannot judge: at each width (the layout is the width's own),
    # and in dark at the wide width, as the colour rules
    drawn = tab.locator("svg.dm-loop__svg").count() > 0
    failed += [f"{path or 'home'} at {width} px, light: a label of the drawing: {p}" for p in drawing_contrast(tab)]
    if path in AXE_PAGES and width == COLOUR_WIDTH:
        failed += [f"{path or 'home'} at {width} px, light: axe: {v}" for v in serious_violations(tab)]
        to_dark(tab)
        failed += [f"{path or 'home'} at {width} px, dark: axe: {v}" for v in serious_violations(tab, COLOUR_RULES)]
    elif path in AXE_PAGES:
        failed += [f"{path or 'home'} at {width} px: axe: {v}" for v in serious_violations(tab, skip=COLOUR_RULES)]
    elif drawn and width == COLOUR_WIDTH:
        to_dark(tab)
    if drawn and width == COLOUR_WIDTH:
        failed += [f"{path or 'home'} at {width} px, dark: a label of the drawing: {p}" for p in drawing_contrast(tab)]
    failed += [f"{path or 'home'} at {width} px: console: {problem}" for problem in tab.problems]
    failed += [f"{path or 'home'} at {width} px: a request left this machine: {url}" for url in context.outside]
    context.close()
    assert failed == [], "\n".join(failed)
