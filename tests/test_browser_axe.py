"""axe-core over the real site's pages in a real browser, at 1280 and 390 px, light and dark: no
serious or critical violation. (Its own file so that `make test`'s two workers share the browser
tests: each file runs on one.) The theme's overlays, open, are checked in test_browser.py."""

from __future__ import annotations

import pytest

from browsing import goto, open_context, open_tab, serious_violations, wait_scheme

pytestmark = pytest.mark.browser

AXE_PAGES = ("", "pi/", "pi/map/", "pi/D1/", "pi/problems/", "pi/P8/", "pi/C10/", "pi/census/", "pi/editions/",
             "pi/editions/1.4.0-to-1.6.0/", "extensions/pi-turn-limit/", "extensions/pi-todo-loop/",
             "extensions/", "extensions/pi-mermaid/")

@pytest.mark.network
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", AXE_PAGES)
def test_axe_finds_no_serious_violation(browser, real_site, width, scheme, path) -> None:
    context = open_context(browser, width, scheme)
    tab = open_tab(context)
    goto(tab, real_site.url + path)
    wait_scheme(tab, scheme)
    report = serious_violations(tab)
    assert report == [], "\n".join(report)
    assert context.outside == []
    context.close()


