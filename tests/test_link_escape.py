"""A link address that holds a quote stays one attribute value, in the built HTML and in the download.

The loader accepts ``[x](https://q.invalid/"onmouseover="alert(1))``: it starts with https. Written
into an ``href`` without escaping its quotes, it would end the attribute early and make
``onmouseover`` a live event handler. The test reads the built pages the way a browser does
(an HTML parser), so it holds whatever renders the prose.
"""

from __future__ import annotations

import logging
from html.parser import HTMLParser
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt

from conftest import entry_yaml, make_project, run_main

SOURCE = "export function f(): number {\n  return 1;\n}\n"
# Addresses as written in YAML; a parsed href must hold each one whole (percent-encoding aside).
ADDRESSES = ('https://q.invalid/"onmouseover="alert(1)', "https://q.invalid/'onfocus='alert(2)",
             'https://q.invalid/"autofocus/onfocus="alert(3)', 'https://q.invalid/a"b&c`d')
MKDOCS_YML = """site_name: Links
theme:
  name: material
docs_dir: site_src
site_dir: site
plugins:
  - decision-map:
      decisions: decisions
"""
OVERLAY = """extension: demo-ext
changes:
  - decision: D1
    how: {how}
    without: {{decided_by: model, answer: The model.}}
    with: {{decided_by: code, answer: Code.}}
"""


def quoted(text: str) -> str:
    """``text`` as a YAML single-quoted scalar (it holds double quotes)."""
    return "'" + text.replace("'", "''") + "'"


def item(text: str) -> str:
    """A list of one cited item (a lever or an exception) saying ``text``, after its key."""
    return f"\n  - text: {quoted(text)}\n    cites: [{{file: src/a.ts, lines: 1-3}}]"


def links(n: int) -> str:
    return " ".join(f"[link {n}-{i}]({address})" for i, address in enumerate(ADDRESSES))


class Page(HTMLParser):
    """Every element's attributes, as a browser parses them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def parsed(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    """A one-entry map whose prose fields (answer, a lever and an exception, a citation's note, the
    map's summary, an overlay's how) each link to every address above; built once with `generator build`."""
    root = tmp_path_factory.mktemp("link-escape")
    cites = f"  - file: src/a.ts\n    lines: 1-3\n    note: {quoted(links(3))}\n"
    project = make_project(root, {"1": {"src/a.ts": SOURCE}}, {
        "D1": entry_yaml("D1", cites, changed_by=item(links(2)), exceptions=item(links(6))).replace(
            "answer: Plain code.", f"answer: {quoted(links(1))}")})
    with project.map_yaml.open("a") as handle:
        handle.write(f"summary: {quoted(links(4))}\n")
    (project.folder / "extensions").mkdir()
    (project.folder / "extensions" / "demo-ext.yaml").write_text(OVERLAY.format(how=quoted(links(5))))
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "site_src").mkdir()
    return project


def test_the_map_with_quoted_addresses_loads_and_verifies(site, capsys) -> None:
    """The addresses are valid input (they start with https): the escape, not the loader, protects."""
    assert run_main(capsys, "verify", "--decisions", site.decisions, "--quiet").code == 0


def test_a_quote_in_a_link_address_never_becomes_an_attribute_in_the_built_html(site, capsys) -> None:
    logger = logging.getLogger("mkdocs")
    handlers, level = list(logger.handlers), logger.level
    try:
        run = run_main(capsys, "build", "--config", site.root / "mkdocs.yml", "--quiet")
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)
    assert run.code == 0, run.stderr
    found: dict[str, int] = {}
    for path in sorted((site.root / "site").rglob("*.html")):
        page = parsed(path.read_text(encoding="utf-8"))
        for tag, attrs in page.elements:
            handlers_here = [name for name in attrs if name.startswith("on") or name == "autofocus"]
            assert not handlers_here, f"{path}: <{tag}> has {handlers_here}: {attrs}"
            href = attrs.get("href") or ""
            if tag == "a" and "q.invalid/" in href:
                assert unquote(href) in ADDRESSES, f"{path}: the address was cut: {href!r}"
                found[unquote(href)] = found.get(unquote(href), 0) + 1
    # every address reached a page whole, from each of the six fields
    assert set(found) == set(ADDRESSES), found
    assert min(found.values()) >= 5, found


def test_a_quote_in_a_link_address_stays_inside_the_link_in_the_download(site, capsys, tmp_path) -> None:
    """The Markdown download, read by a CommonMark renderer that lets HTML through (as many do)."""
    run = run_main(capsys, "render", "--decisions", site.decisions, "--out", tmp_path / "out", "--quiet")
    assert run.code == 0, run.stderr
    [download] = (tmp_path / "out" / "downloads").glob("*.md")
    page = parsed(MarkdownIt("commonmark").render(download.read_text(encoding="utf-8")))
    hrefs = []
    for tag, attrs in page.elements:
        assert not [name for name in attrs if name.startswith("on") or name == "autofocus"], (tag, attrs)
        if tag == "a" and "q.invalid/" in (attrs.get("href") or ""):
            hrefs.append(unquote(attrs["href"]))
    assert set(hrefs) == set(ADDRESSES), hrefs
