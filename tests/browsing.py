"""Driving a real browser (Playwright's chromium) over a built site served on this machine: what the
browser tests share. A site is served over HTTP under the sub-path of its ``site_url``, as a project
site is published; every page opened must make no request to another host.

The browser: $DECISION_MAP_BROWSER (a chromium-like executable), else Debian's headless Chromium
(/usr/bin/chromium-headless-shell), else /usr/bin/chromium, else the one Playwright installs
(`python -m playwright install --with-deps chromium`). With none of them the tests
are skipped, except in CI (DECISION_MAP_CI=1), where they fail. Screenshots go to
test-artifacts/browser/<width>px/.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import REAL_SITE_URL, ROOT, BuiltDemo, require

# Debian's headless shell first: the same Chromium engine that lays out, paints and runs the page,
# without the desktop browser's own layers (Playwright's own headless Chromium is this shell too).
# Measured on the browser test files with the real site's build: 438 CPU-s with the shell, 658 with
# the whole chromium, every test passing with both.
DEBIAN_BROWSERS = (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
WIDTHS = (1280, 390)


# --- sites and the browser ------------------------------------------------------------------------


class ServedSite:
    """A built site served over HTTP on a free local port, under the path of its site_url.

    A missing page is answered with the site's 404.html and status 404, as GitHub Pages and
    most static hosts do, so the 404 page is tested where it is really shown."""

    def __init__(self, folder: Path, site_url: str):
        self.prefix = urlsplit(site_url).path  # "/demo-site/"
        handler = functools.partial(_Handler, directory=str(folder), prefix=self.prefix)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.url = self.origin + self.prefix

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, prefix: str, **kwargs):
        self.prefix = prefix
        super().__init__(*args, **kwargs)

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        inside = path.startswith(self.prefix)
        local = super().translate_path("/" + path[len(self.prefix):] if inside else "/no-such-file")
        return local

    def send_head(self):
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        if not local.is_file():
            missing = Path(self.directory) / "404.html"
            body = missing.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        return super().send_head()

    def log_message(self, *args) -> None:
        pass


# The sites are the run's one build of each (conftest: built_demo_site, built_real_site), which the
# site tests read too; here each is served.


@pytest.fixture(scope="session")
def demo_site(built_demo_site: BuiltDemo):
    from site_fixtures.demo_site import DEMO_SITE_URL  # (here: tests/test_ci_skips.py runs conftest without it)

    site = ServedSite(built_demo_site.site, DEMO_SITE_URL)
    yield site
    site.close()


@pytest.fixture(scope="session")
def real_site(built_real_site: Path):
    site = ServedSite(built_real_site, REAL_SITE_URL)
    yield site
    site.close()


def browser_executable() -> str | None:
    """The browser to drive: $DECISION_MAP_BROWSER, else Debian's (its headless shell, else its
    chromium), else None (Playwright's own)."""
    chosen = os.environ.get("DECISION_MAP_BROWSER")
    if chosen:
        return chosen
    return next((str(path) for path in DEBIAN_BROWSERS if path.exists()), None)


@pytest.fixture(scope="module")  # closed after this module: another sync Playwright may start later
def browser():
    from playwright.sync_api import Error, sync_playwright

    executable = browser_executable()
    if executable is not None:
        require("a browser", Path(executable).exists(), f"DECISION_MAP_BROWSER names {executable}, which does not exist")
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=BROWSER_ARGS)
        except Error as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            debian = " nor ".join(map(str, DEBIAN_BROWSERS))
            require("a browser", False, f"no $DECISION_MAP_BROWSER, no {debian}, and Playwright's own chromium did "
                    f"not start ({first}); run `apt-get install chromium-headless-shell` on Debian, else "
                    "`python -m playwright install --with-deps chromium`")
        yield launched
        launched.close()


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def width(request) -> int:
    return request.param


# Any address but this machine's (data: and blob: are no request). The browser matches it itself, so
# only a request to another host comes to this process: a route for every request ("**/*") sent each
# of a page's files through Playwright's driver and back (the two browser files, the real site built:
# 301 CPU-s so, 261 and 285 in two runs with this pattern; test_a_request_to_another_host_is_refused...
# holds the guard).
ANOTHER_HOST = re.compile(r"^(?!(?:data:|blob:|https?://(?:127\.0\.0\.1|localhost)(?:[:/?#]|$)))")


# Material's script fetches the site's search index on every page it opens and builds the whole
# index in a worker, searched or not: 0.12 to 0.17 CPU-s of Chromium's per page load (the real
# site, 12 loads with and without it, three times), a quarter to a third of a page's load. A test
# that does not search gets the site's own index with its documents taken out: the same request,
# the same search settings, the same worker set up and ready, only nothing to find. A test that
# searches is marked `searches` (or opens its context with searched=True) and gets the whole index;
# `_search` (test_browser.py) refuses to search a page without it.
SEARCH_INDEX = "**/search/search_index.json"
_EMPTIED: dict[str, bytes] = {}  # the index's address: the emptied index (a served site is one build)


def _empty_search_index(route) -> None:
    url = route.request.url
    if url not in _EMPTIED:
        index = json.loads(route.fetch().body())
        _EMPTIED[url] = json.dumps({**index, "docs": []}).encode()
    route.fulfill(status=200, content_type="application/json", body=_EMPTIED[url])


def open_context(browser, width: int, scheme: str = "light", searched: bool = False):
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 500 else 844},
                                  color_scheme=scheme)
    context.outside = []  # requests to any host but this machine: the site must make none
    context.searched = searched

    def refuse(route) -> None:
        context.outside.append(route.request.url)
        route.abort()

    context.route(ANOTHER_HOST, refuse)
    if not searched:
        context.route(SEARCH_INDEX, _empty_search_index)
    return context


def open_tab(context):
    tab = context.new_page()
    tab.searched = context.searched
    tab.problems = []  # console errors and uncaught exceptions
    tab.on("console", lambda message: tab.problems.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: tab.problems.append(str(error)))
    return tab


@pytest.fixture
def page(request, browser, width):
    context = open_context(browser, width, searched=request.node.get_closest_marker("searches") is not None)
    tab = open_tab(context)
    yield tab
    assert context.outside == [], f"requests left this machine: {context.outside}"
    context.close()


def open_page(page, site: ServedSite, path: str) -> None:
    goto(page, site.url + path)


def goto(tab, url: str):
    """Open a page and wait until the site's script has set it up (it marks the body) and its fonts
    are in: its state is read then, never after a fixed time. (Not at "networkidle": that adds half
    a second of quiet to every page opened, and the site's own script is what readers wait for.)"""
    answer = tab.goto(url, wait_until="load")
    wait_ready(tab)
    return answer


def wait_ready(tab) -> None:
    tab.wait_for_selector("body[data-dm-ready]", state="attached")
    tab.evaluate("document.fonts.ready.then(() => true)")  # a late font would move what is measured


def wait_scheme(tab, scheme: str) -> None:
    """Wait until Material has put the page in the reader's colour scheme: it chooses it by script,
    from the browser's preference, so a page read (or checked by axe) before that is still light."""
    tab.wait_for_function("want => document.body.getAttribute('data-md-color-scheme') === want",
                          arg="slate" if scheme == "dark" else "default")


def shot(page, width: int, name: str, full_page: bool = False) -> None:
    """A picture for a person to look at (test-artifacts/browser/<width>px/): the window, or, with
    DECISION_MAP_FULL_SHOTS=1, the whole page where the test asks for it. A whole tall page costs
    seconds to paint (12 s for an extension's page at 1280 px), so it is not taken by default."""
    folder = ARTIFACTS / f"{width}px"
    folder.mkdir(parents=True, exist_ok=True)
    whole = full_page and os.environ.get("DECISION_MAP_FULL_SHOTS") == "1"
    page.screenshot(path=str(folder / f"{name}.png"), full_page=whole)


def overflow(page) -> int:
    """How far the page scrolls sideways, in CSS pixels (0: it does not)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def shot_name(path: str) -> str:
    return path.strip("/").replace("/", "-") or "home"


def wait_still(tab) -> None:
    """Wait until nothing on the page is moving or fading in. axe reads colours as they are painted
    when it runs: a search result caught halfway through the theme's fade-in (a busy machine makes
    that likely) fails contrast though the settled page passes. Endless animations (a spinner) are
    not waited for."""
    tab.wait_for_function("""() => document.getAnimations().every(a =>
        a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)""")


# The axe rules whose verdict hangs on the colours painted: what the dark scheme can change on a page
# (its toggle sets the body's palette attributes; the page's elements, names and roles stay the same).
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def serious_violations(tab, rules: tuple[str, ...] = (), within: tuple[str, ...] = (),
                       skip: tuple[str, ...] = ()) -> list[str]:
    """axe-core's serious and critical violations on the page as shown: every rule, or only ``rules``,
    less the rules ``skip``; over the whole page, or only the elements matching the selectors ``within``."""
    from axe_playwright_python.sync_playwright import Axe

    wait_still(tab)
    axe = Axe()
    if not tab.evaluate("typeof (window.axe || {}).run === 'function'"):  # put in once per page, not once per check
        tab.evaluate(axe.axe_script)
    options = {"resultTypes": ["violations"], **({"runOnly": list(rules)} if rules else {}),
               **({"rules": {rule: {"enabled": False} for rule in skip}} if skip else {})}
    context = {"include": [[selector] for selector in within]} if within else {"exclude": []}
    violations = tab.evaluate("([context, options]) => axe.run(context, options).then(results => results.violations)",
                              [context, options])
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    return [f"{v['id']} ({v['impact']}): {v['help']}: "
            + "; ".join(" ".join(n["target"]) for n in v["nodes"][:5]) for v in serious]


# The contrast of every label in the loop drawings, as axe would judge it if it could. axe leaves an
# SVG text out of its verdict (`incomplete`: "overlapped by another element", 84 labels on pi/), so
# its colour-contrast rule passes whatever colours the drawing has. Here each label is hit-tested
# where a reader sees it, at three points along its own baseline's middle (a rotated note too); the
# lowest contrast counts. Under a point, the last shape drawn before the label is its background,
# else the page's; a shape drawn after it that covers it hides it. Colours are laid over what is
# under them with their alpha, and the opacity of an element both share (the tile's link) is applied
# to the two together, as the browser paints a group. Every label is drawn smaller than large text
# (18.66 px bold, 24 px), so each needs 4.5:1.
DRAWING_CONTRAST = """() => {
    const parse = c => {
        let m = c.match(/^rgba?\\(([^)]*)\\)/);
        if (m) { const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p[3] ?? 1]; }
        m = c.match(/^color\\(srgb ([^)]*)\\)/);
        if (m) { const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number);
                 return [p[0] * 255, p[1] * 255, p[2] * 255, p[3] ?? 1]; }
        throw new Error("a colour this check cannot read: " + c);
    };
    // Porter-Duff "over", with the alpha of the result (a translucent layer over a transparent one stays translucent)
    const over = (top, under) => {
        const a = top[3] + under[3] * (1 - top[3]);
        return a ? [0, 1, 2].map(i => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat([a]) : [0, 0, 0, 0];
    };
    const faded = (c, alpha) => [c[0], c[1], c[2], c[3] * alpha];
    const opacity = (from, to) => { let a = 1; for (let e = from; e && e !== to; e = e.parentElement)
        a *= Number(getComputedStyle(e).opacity); return a; };
    const painted = (el, upTo) => faded(parse(getComputedStyle(el).fill), Number(getComputedStyle(el).fillOpacity) * opacity(el, upTo));
    const luminance = c => c.slice(0, 3).map(v => v / 255).map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const shared = (a, b) => { for (let e = a; e; e = e.parentElement) if (e.contains(b)) return e; return null; };
    const SHAPES = new Set(["rect", "circle", "ellipse", "polygon", "path", "polyline", "line"]);
    const found = []; let checked = 0;
    const shown = [...document.querySelectorAll("svg.dm-loop__svg")].filter(svg => svg.getClientRects().length
        && getComputedStyle(svg).display !== "none" && getComputedStyle(svg).visibility !== "hidden");
    for (const svg of shown) {
        // the page under the drawing: the backgrounds of its ancestors, laid from the canvas (white) up
        const ancestors = []; for (let e = svg.parentElement; e; e = e.parentElement) ancestors.unshift(e);
        const page = ancestors.reduce((under, e) => over(parse(getComputedStyle(e).backgroundColor), under), [255, 255, 255, 1]);
        for (const text of svg.querySelectorAll("text")) {
            text.scrollIntoView({block: "center", inline: "center"});
            const box = text.getBBox(), matrix = text.getScreenCTM();
            if (!box.width || !matrix) continue;
            checked += 1;
            let lowest = null;
            for (const f of [0.1, 0.5, 0.9]) {
                const at = new DOMPoint(box.x + box.width * f, box.y + box.height / 2).matrixTransform(matrix);
                const hits = document.elementsFromPoint(at.x, at.y).filter(e => e !== text && SHAPES.has(e.localName)
                    && svg.contains(e) && getComputedStyle(e).fill !== "none");
                const after = hits.find(e => text.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
                if (after) { lowest = {r: 0, covered: after.getAttribute("class") || after.localName}; break; }
                const under = hits.find(e => text.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING);
                // text and shape are painted within the group they share, which is then laid on the page
                const group = under ? shared(text, under) : svg.parentElement;
                const inside = under ? painted(under, group) : [0, 0, 0, 0];
                const alpha = opacity(group, svg.parentElement);
                const back = over(faded(inside, alpha), page);
                const fore = over(faded(over(painted(text, group), inside), alpha), page);
                const r = ratio(fore, back);
                if (!lowest || r < lowest.r) lowest = {r, fore, back, on: under ? under.getAttribute("class") || under.localName : "the page"};
            }
            if (lowest.covered) found.push(`'${text.textContent}' is covered by ${lowest.covered}`);
            else if (lowest.r < 4.5) found.push(`'${text.textContent}' on ${lowest.on}: ${lowest.r.toFixed(2)}:1 ` +
                `(rgb(${lowest.fore.slice(0, 3).map(Math.round)}) on rgb(${lowest.back.slice(0, 3).map(Math.round)}))`);
        }
    }
    window.scrollTo(0, 0);
    return {drawings: shown.length, checked, found};
}"""


def drawing_contrast(tab) -> list[str]:
    """The loop drawings' labels on the page (those shown at its width) that do not read: below 4.5:1
    against what is drawn under them, or covered; each in words. A drawing shown with no label
    checked is a problem too (the check would otherwise pass by finding nothing)."""
    wait_still(tab)  # colours read mid-transition (the scheme's toggle fades them) would be neither scheme's
    result = tab.evaluate(DRAWING_CONTRAST)
    if result["drawings"] and not result["checked"]:
        return [f"{result['drawings']} drawing(s) shown, but no label of theirs could be checked"]
    return result["found"]


# --- what several browser files ask of the real map and of a page ---------------------------------


# A test whose subject does not depend on the window's width (what a page says, where its links
# lead, what the search or a filter finds, that a script stays text) runs at 1280 px only; one about
# layout (overflow, above the fold, the drawer, tables, copy buttons, where a thing lands) at both.
# Every page still opens at 390 px in test_browser_axe.py, and the controls these tests use are
# pressed at 390 px there or below (the palette toggle, the map's filters, the search).
one_width = pytest.mark.parametrize("width", [1280], ids=["1280px"])


@functools.cache  # read by many tests, changed by none: loaded once per worker (0.25 CPU-s a load)
def real_pi():
    """The real map (decisions/pi), as the site was built from it."""
    from generator.map.load import load_maps

    [pi] = [m for m in load_maps(ROOT / "decisions") if m.name == "pi"]
    return pi


def landed(page, selector: str) -> dict:
    """Where a jumped-to element ended up: visible, below the sticky header, and marked."""
    return page.eval_on_selector(selector, """el => {
        const box = el.getBoundingClientRect();
        const header = document.querySelector(".md-header").getBoundingClientRect();
        const style = getComputedStyle(el);
        return {top: box.top, headerBottom: header.bottom, bottom: box.bottom, height: innerHeight,
                target: el.matches(":target"), outline: style.outlineStyle,
                background: style.backgroundColor};
    }""")


def assert_landed(where: dict) -> None:
    assert where["target"], where
    assert where["top"] >= where["headerBottom"] - 1, f"the target is under the sticky header: {where}"
    assert where["top"] < where["height"], where  # on screen
    assert where["outline"] != "none" and where["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), where
