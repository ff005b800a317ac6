"""What Material's search reads of a page (generator/site/search_view.py): the sections it keeps are
the ones it would keep from the whole page, on hand-written cases at the edges of the rule and on
the built pages, and what it drops is not parsed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from material.plugins.search.plugin import SearchIndex

from generator.site.search_view import index_lightly, searched_html


def entries(content: str) -> list[dict]:
    """The search index's documents Material's own search makes of a page with this content."""
    index = SearchIndex(lang=["en"], separator=r"[\s\-]+", pipeline=["stopWordFilter"], fields={})
    index.add_entry_from_context(SimpleNamespace(meta={}, content=content, toc=[], url="p/", title="Page"))
    return index.entries


CODE = ('<details class="dm-code" open><summary><code>a.ts</code></summary><div class="highlight"><table>'
        '<tr><td class="linenos"><div class="linenodiv"><pre><span class="normal">7</span></pre></div></td>'
        '<td class="code"><div><pre><span></span><code><span class="kd">const</span> a = b &lt; c;<br>'
        '</code></pre></div></td></tr></table></div></details>\n<p>The history, <em>checked</em>.</p>\n')
TOP = '<h1 id="d1">D1</h1>\n<p>The answer, <code>kept</code>.</p>\n'
EXCLUDED = '<h2 data-search-exclude id="code">The code</h2>\n'
NEXT = '<h2 id="next">Next</h2>\n<p>Read after the code.</p>\n'

# cut: what follows a top-level excluded heading, up to the next heading or the end
CUT = {
    "to the next heading": TOP + EXCLUDED + CODE + NEXT,
    "to the end": TOP + NEXT + EXCLUDED + CODE,
    "each of two": TOP + EXCLUDED + CODE + '<h3 data-search-exclude id="more">More</h3>\n' + CODE + NEXT,
    "comments, void and self-closed tags": TOP + EXCLUDED + '<!-- <h2 id="no">No</h2> --><p>a<br>b<img src="x.png">'
                                           '</p><svg><rect x="1"/><path d="M0"/></svg>\n' + NEXT,
    "a quoted '>' or '<' in an attribute": TOP + '<h2 data-search-exclude id="code" title="1 > 0">Code</h2>'
                                           '<p data-x="<b>">t</p>\n' + NEXT,
    "capitals": TOP + '<H2 DATA-SEARCH-EXCLUDE id="code">Code</H2><P>t</P>\n' + NEXT,
    "an excluded element inside": TOP + EXCLUDED + '<div data-search-exclude><div><p>x</p></div><p>y</p></div>\n' + NEXT,
    "a later one, after one that cannot be cut": TOP + EXCLUDED + '<div><h3 id="inner">Inner</h3><p>read</p></div>\n' + NEXT
                                                 + '<h2 data-search-exclude id="more">More</h2>\n' + CODE,
}
# left whole: the cut would change what Material keeps, or the page holds what this does not read
WHOLE = {
    "a heading inside an element": TOP + '<div>' + EXCLUDED + CODE + '</div>\n' + NEXT,
    "a heading in what follows": TOP + EXCLUDED + '<div><h3 id="inner">Inner</h3><p>indexed</p></div>\n' + NEXT,
    "an element left open in what follows": TOP + EXCLUDED + '<div><p>x</p>\n' + NEXT + '</div>',
    "an end tag opened before it": TOP + EXCLUDED + '<p>x</p></div>\n' + NEXT,
    "crossed end tags": TOP + EXCLUDED + '<div><span>x</div></span>\n' + NEXT,
    "a script": TOP + EXCLUDED + '<script>if (a < b) {}</script>\n' + NEXT,
    "a style": TOP + EXCLUDED + '<style>p > a {}</style>\n' + NEXT,
    "a '<' that starts no tag": TOP + EXCLUDED + '<p>a < b</p>\n' + NEXT,
    "an end tag of a void element": TOP + EXCLUDED + '<p>a</br></p>\n' + NEXT,
    "the word only inside another attribute": TOP + '<h2 title="data-search-exclude" id="code">Code</h2><p>t</p>\n' + NEXT,
    "an attribute that only starts with it": TOP + '<h2 data-search-excluded id="code">Code</h2><p>t</p>\n' + NEXT,
    "an element left open to the end": TOP + EXCLUDED + '<div><p>x</p>\n',
    "a '<' that starts no tag, after all that opened has closed": TOP + EXCLUDED + CODE + NEXT + "1 < 2",
    "no excluded heading": TOP + NEXT,
    "an excluded heading left open": TOP + '<h2 data-search-exclude id="code">Code<p>t</p>\n',
    "a heading inside the excluded heading": TOP + '<h2 data-search-exclude id="code">Code<h3 id="x">X</h3></h2>\n' + NEXT,
    "an unmatched end tag in the heading": TOP + '<h2 data-search-exclude id="code">Code</em></h2><p>t</p>\n' + NEXT,
}


@pytest.mark.parametrize("content", CUT.values(), ids=CUT.keys())
def test_what_an_excluded_heading_drops_is_not_parsed_and_the_index_is_the_same(content: str) -> None:
    searched = searched_html(content)
    assert len(searched) < len(content) and "const" not in searched and "<p>t</p>" not in searched
    assert entries(searched) == entries(content)
    assert any("Read after the code." in entry["text"] for entry in entries(searched))  # what follows is read


def test_the_cut_keeps_the_heading_and_what_comes_from_the_next_one_on() -> None:
    assert searched_html(TOP + EXCLUDED + CODE + NEXT) == TOP + EXCLUDED.rstrip("\n") + NEXT
    assert searched_html(TOP + NEXT + EXCLUDED + CODE) == TOP + NEXT + EXCLUDED.rstrip("\n")


@pytest.mark.parametrize("content", WHOLE.values(), ids=WHOLE.keys())
def test_a_page_the_cut_would_change_is_read_whole(content: str) -> None:
    assert searched_html(content) == content
    assert entries(searched_html(content)) == entries(content)


def test_a_heading_in_an_excluded_element_still_opens_a_section_so_nothing_after_is_cut() -> None:
    """Material opens a section for a heading even inside an excluded element: kept as it is."""
    content = TOP + EXCLUDED + '<div data-search-exclude><h3 id="in">In</h3></div><p>after</p>\n' + NEXT
    assert searched_html(content) == content
    assert "in" in [e["location"].split("#")[-1] for e in entries(content)]


def _article(page: Path) -> str | None:
    """The content of a built page (its article's inside), or None for a page without one."""
    text = page.read_text(encoding="utf-8")
    start = text.find('<article class="md-content__inner md-typeset">')
    return text[text.index(">", start) + 1:text.rindex("</article>")] if start >= 0 else None


def _articles(site: Path) -> dict[str, str]:
    return {str(page.parent.relative_to(site)): content for page in sorted(site.rglob("index.html"))
            if (content := _article(page)) is not None}


def test_every_page_of_the_demo_site_gives_the_same_index(built_demo_site) -> None:
    articles = _articles(built_demo_site.site)
    assert len(articles) > 5
    for path, content in articles.items():
        assert entries(searched_html(content)) == entries(content), path
    assert any(len(searched_html(c)) < len(c) for c in articles.values())


@pytest.mark.network
def test_the_real_sites_biggest_pages_give_the_same_index(built_real_site: Path) -> None:
    """A page of each kind, the entry citing the most code among them (parsing them all twice would
    take what the cut saves)."""
    for path in ("pi/D1", "pi/C10", "pi", "pi/map", "pi/problems", "pi/P8", "pi/editions/1.4.0-to-1.6.0",
                 "extensions/pi-subagents", "extensions/pi-turn-limit", "."):
        content = _article(built_real_site / path / "index.html")
        searched = searched_html(content)
        assert entries(searched) == entries(content), path
        assert path != "pi/D1" or len(searched) < len(content) / 4


class _Index:
    """Stands in for Material's search index: what each page's content was when it was read."""

    def __init__(self):
        self.read: list[str] = []

    def add_entry_from_context(self, page) -> None:
        self.read.append(page.content)


def test_the_search_plugin_reads_the_view_and_the_page_keeps_its_content() -> None:
    search, other = SimpleNamespace(search_index=_Index()), SimpleNamespace()
    index_lightly([other, search])  # a plugin without a search index is passed by
    page = SimpleNamespace(content=TOP + EXCLUDED + CODE + NEXT)
    search.search_index.add_entry_from_context(page)
    assert search.search_index.read == [searched_html(page.content)]
    assert page.content == TOP + EXCLUDED + CODE + NEXT
    assert vars(other) == {}


def test_the_page_keeps_its_content_when_the_search_plugin_fails() -> None:
    class Failing(_Index):
        def add_entry_from_context(self, page) -> None:
            raise ValueError("a page it cannot read")

    search = SimpleNamespace(search_index=Failing())
    index_lightly([search])
    page = SimpleNamespace(content=TOP + EXCLUDED + CODE)
    with pytest.raises(ValueError):
        search.search_index.add_entry_from_context(page)
    assert page.content == TOP + EXCLUDED + CODE
