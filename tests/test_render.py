"""The renderer: golden Markdown of the demo site, escaping of everything that comes from YAML,
the Markdown download, and the errors that stop a build (drift, hand-written page clashes).

The golden pages live in tests/golden/. When a change to them is intended, regenerate them with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py

which rewrites them and then fails, listing the files it changed (with nothing changed it
passes); read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import shutil
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from generator.site import prose
from generator.errors import DriftError, InputError
from generator.map.load import load_maps
from generator.site.render import is_download, is_entry_page, render_folder, render_pages, site_nav
from generator.citations.verify import Trees
from conftest import templates_compiled_once
from site_fixtures.demo_site import URL_PLACEHOLDER, DemoSite, make_demo_site, replace_in, tag_version

GOLDEN = Path(__file__).parent / "golden"
SOME_LINE = "[{file: src/session.ts, lines: 5}]"  # a citation for an override a test adds
REGENERATE = "UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py"
SITE_EXTENSIONS = ["attr_list", "md_in_html", "tables", "toc", "pymdownx.highlight", "pymdownx.superfences"]


@pytest.fixture(scope="module", autouse=True)
def compiled_once():
    """The templates are compiled once for this file's renders (see conftest); the code an
    environment set up differently would compile is never reused."""
    with templates_compiled_once():
        yield


@pytest.fixture(scope="module")
def shared_demo(tmp_path_factory: pytest.TempPathFactory):
    """The demo site's inputs, made once for the tests that only read them or their pages."""
    return make_demo_site(tmp_path_factory.mktemp("shared-demo"))


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the renders of the shared demo's repository: its two releases are fetched
    from git once for the tests that edit the entries or pages (a test that wants a fetch of its
    own, or edits the repository, makes its own demo site)."""
    return tmp_path_factory.mktemp("shared-demo-fetched")


@pytest.fixture
def demo(shared_demo, shared_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DemoSite:
    """The demo site's entries and hand-written pages, the test's own copy to edit, pinned to the
    shared demo's git repository (which no test edits); its releases come from the shared cache."""
    for folder in ("decisions", "site_src"):
        shutil.copytree(shared_demo.root / folder, tmp_path / folder)
    shutil.copy(shared_demo.config, tmp_path / "mkdocs.yml")
    monkeypatch.setenv("DECISION_MAP_CACHE", str(shared_cache))
    return DemoSite(tmp_path, tmp_path / "decisions", tmp_path / "site_src", tmp_path / "mkdocs.yml",
                    shared_demo.upstream, shared_demo.url)


@pytest.fixture(scope="module")
def pages(shared_demo, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The demo site's pages, rendered once from its git repository; the tests only read them. The
    render fetches into a cache of its own (no test's cache is set yet) and builds its own Markdown
    parser, as each test's render does (see `fresh_prose_parser` in conftest)."""
    prose._MD = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DECISION_MAP_CACHE", str(tmp_path_factory.mktemp("shared-demo-cache")))
        return render_folder(shared_demo.decisions, shared_demo.pages).pages


def _normalized(text: str, demo) -> str:
    """The page with the temporary upstream URL (in each of its escaped forms) as a placeholder."""
    for form in (demo.url, prose.site_text(demo.url), prose.markdown_text(demo.url)):
        text = text.replace(form, URL_PLACEHOLDER)
    return text


# --- golden pages -----------------------------------------------------------------------------


def test_pages_match_the_golden_files(shared_demo, pages) -> None:
    expected = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.md")}
    if os.environ.get("UPDATE_GOLDEN"):
        # Rewritten, then failed with the list: a blessed change is always looked at.
        changed = [f"removed {stale}" for stale in sorted(expected - set(pages))]
        for stale in expected - set(pages):
            (GOLDEN / stale).unlink()
        for path, text in sorted(pages.items()):
            target = GOLDEN / path
            new = _normalized(text, shared_demo)
            if not target.is_file() or target.read_text(encoding="utf-8") != new:
                changed.append(f"{'rewrote' if target.is_file() else 'added'} {path}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(new, encoding="utf-8")
        if changed:
            pytest.fail("UPDATE_GOLDEN=1 changed tests/golden/: " + "; ".join(changed)
                        + ". Read `git diff tests/golden`, then run the tests without UPDATE_GOLDEN", pytrace=False)
        return
    assert set(pages) == expected, (f"the rendered pages {sorted(pages)} are not the golden ones "
                                    f"{sorted(expected)}; if that is intended, run: {REGENERATE}")
    for path, text in pages.items():
        golden = (GOLDEN / path).read_text(encoding="utf-8")
        assert _normalized(text, shared_demo) == golden, (
            f"{path} differs from tests/golden/{path}; if the change is intended, regenerate the "
            f"golden pages with: {REGENERATE}")


def test_rendering_is_deterministic(shared_demo, pages) -> None:
    again = render_folder(shared_demo.decisions, shared_demo.pages).pages
    assert again == pages


def test_the_site_has_every_page(pages) -> None:
    assert sorted(pages) == ["demo/D1.md", "demo/D2.md", "demo/G1.md", "demo/P1.md",
                             "demo/census.md", "demo/editions/0.8.0-to-1.0.0.md", "demo/editions/index.md",
                             "demo/index.md", "demo/map.md", "demo/problems.md",
                             "downloads/demo-decision-map.md", "extensions/demo-ext.md", "extensions/index.md",
                             "index.md"]
    assert [p for p in pages if is_download(p)] == ["downloads/demo-decision-map.md"]
    assert [p for p in pages if is_entry_page(p)] == ["demo/D1.md", "demo/D2.md", "demo/G1.md", "demo/P1.md"]


# --- the pages say what the YAML says ------------------------------------------------------------


def test_summary_follows_the_sections_of_map_yaml(pages) -> None:
    summary = pages["demo/index.md"]
    headings = [re.sub(r" \{ #.*\}$", "", h) for h in re.findall(r"^## (.+)$", summary, re.MULTILINE)]
    assert headings == ["The loop, and where each decision sits", "What it does without asking you",
                        "How it decides it is done", "At a glance", "Problems in the code"]
    d1 = summary.index("{ #d1 data-search-exclude }")  # the anchors of the old summary still hold
    assert summary.index("{ #d2 data-search-exclude }") > d1
    assert summary.index("{ #g1 data-search-exclude }") > summary.index("{ #d2 data-search-exclude }")
    assert ("[session.ts:9-14](https://github.com/example/demo/blob/v1.0.0/src/session.ts#L9-L14)"
            in summary)
    assert "[D1 in full, with its code](D1.md)" in summary
    # the problems, in short: each a link with its status; the whole text is on the problems page
    problems = summary[summary.index("## Problems in the code"):]
    assert ('- <span class="dm-id">P1</span> [The description of a session ends in raw <code>&lt;/details&gt;</code> '
            'markup](P1.md) <span class="dm-status dm-status--open">Open at demo 1.0.0</span>') in problems
    assert "returns markup" not in problems and "[#34]" not in problems
    assert "[all of them on one page](problems.md)" in problems


def test_the_summary_has_every_decision_at_a_glance(pages) -> None:
    summary = pages["demo/index.md"]
    glance = summary[summary.index("## At a glance"):summary.index("## Problems in the code")]
    # two columns, so the text keeps most of a phone's width: the ID, then who decides, the question, the answer
    rows = re.findall(r"^\| \[(\w+)\]\((\w+)\.md\) \| (<span class=\"dm-badge [^|]+?</span>) \*\*(.+?)\*\* (.+?) \|$",
                      glance, re.MULTILINE)
    assert [(r[0], r[1]) for r in rows] == [("D1", "D1"), ("D2", "D2"), ("G1", "G1")]
    d1 = rows[0]
    assert d1[2] == '<span class="dm-badge dm-badge--code">Plain code</span>'
    assert d1[3] == "Is a person asked before a <code>tool&#95;call</code> runs?"
    # the short answer is the answer's opening, whole sentences: "No." alone is too short
    assert d1[4].startswith("No. <strong>Plain code</strong> lets the call run unless a hook blocks it;")


def test_each_entry_has_its_own_page_with_the_code_and_the_way_back(pages) -> None:
    d1 = pages["demo/D1.md"]
    assert d1.startswith('---\ntitle: "D1 · Is a person asked before a tool&#95;call runs?"\n'
                         'description: "D1: Is a person asked before a tool&#95;call runs? Decided by plain code in demo '
                         '1.0.0. No. Plain code lets the call run unless a hook blocks it; see the hooks guide."\n'
                         'tags:\n  - D1\nsearch:\n  boost: 1.0250\n---\n')
    assert "# <span class=\"dm-id\">D1</span> Is a person asked before a <code>tool&#95;call</code> runs? { #d1 " in d1
    assert "[The full map](map.md) › [D · Permission](map.md#group-d)" in d1
    assert '```ts linenums="9"\nasync beforeToolCall(call: ToolCall)' in d1
    assert "in <code>Session.beforeToolCall</code> · the hook, asked for every call" in d1
    assert '<details class="dm-code" open markdown>' in d1  # a short range shows open
    assert "## Where in the code { #code data-search-exclude }" in d1  # one search hit per entry
    assert "[<span class=\"dm-id\">D2</span> Who approves a tool that is marked risky? →](D2.md)" in d1
    g1 = pages["demo/G1.md"]
    assert "[← <span class=\"dm-id\">D2</span> Who approves a tool that is marked risky?](D2.md)" in g1


def test_the_full_map_is_a_light_index_without_code(pages) -> None:
    index = pages["demo/map.md"]
    assert "```" not in index and "linenums" not in index
    assert ('<div class="dm-row" id="d2" data-id="D2" data-who="person" data-group="D" markdown>\n\n'
            '<span class="dm-id" id="D2">D2</span> [Who approves a tool that is marked risky?](D2.md)') in index
    assert index.count('<div class="dm-row" ') == 3


def test_code_with_backtick_runs_gets_a_longer_fence(pages) -> None:
    problem = pages["demo/P1.md"]
    assert '`````ts linenums="16"\ndescribe(): string {' in problem
    assert "\n`````\n" in problem


def test_extension_page_keeps_the_hand_written_text_around_the_overlay(pages) -> None:
    page = pages["extensions/demo-ext.md"]
    # a description from the overlay, and the map's strip under the page's own heading
    assert page.startswith('---\ndescription: "demo-ext: Asks you before a run may end, ')
    assert '---\n\n# demo-ext\n\n<span class="dm-pin">demo 1.0.0</span> · [Summary](../demo/index.md)' in page
    assert "{: .dm-pinline }\n\n\nA hand-written page about the demo extension." in page
    assert "{{ overlay }}" not in page
    assert page.index("| [G1](#g1) Is the work finished") < page.index("## After the table")
    assert "Next to [G1](../demo/G1.md), [D1](../demo/D1.md) in the map." in page


def test_the_extension_page_draws_the_decisions_it_changes(pages) -> None:
    page = pages["extensions/demo-ext.md"]
    figure = page[page.index("<figure"):page.index("</figure>")]
    # G1 is changed (drawn in the holder it has with the extension: a person); D1 is related;
    # D2 is not touched and is drawn faded. Links are .md paths the site engine resolves.
    assert re.search(r'<a class="dm-node dm-node--person dm-node--changed" href="\.\./demo/G1\.md"', figure)
    assert re.search(r'<a class="dm-node dm-node--code dm-node--related" href="\.\./demo/D1\.md"', figure)
    assert re.search(r'<a class="dm-node dm-node--person dm-node--faded" href="\.\./demo/D2\.md"', figure)


def test_entry_pages_link_to_the_extensions_that_change_them(pages) -> None:
    g1 = pages["demo/G1.md"]
    assert "**With [demo-ext](../extensions/demo-ext.md#g1)** <span class=\"dm-badge dm-badge--person\">" in g1
    d1 = pages["demo/D1.md"]
    assert "[How many times may the run be extended?](../extensions/demo-ext.md#added-1) (demo-ext)" in d1


def test_an_id_in_prose_links_to_its_page_and_shows_its_question(demo) -> None:
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, each time (see D1)")
    pages = render_folder(demo.decisions, demo.pages).pages
    link = '[D1](D1.md#d1 "Is a person asked before a tool&#95;call runs?"){ .dm-ref }'
    assert link in pages["demo/D2.md"]
    assert link in pages["demo/index.md"]  # the summary's answer too
    assert '[D1](../demo/D1.md "' not in pages["extensions/demo-ext.md"]  # not named there


def test_the_loop_has_a_link_for_every_decision(pages) -> None:
    summary = pages["demo/index.md"]
    figure = summary[summary.index("<figure"):summary.index("</figure>")]
    assert sorted(re.findall(r'<a class="dm-node[^"]*" href="(\w+)\.md"', figure)) == ["D1", "D2", "G1"]
    assert 'aria-label="D1: Is a person asked before a tool&#95;call runs? Decided by plain code."' in figure
    assert "<script" not in figure and "http" not in figure.replace("http://www.w3.org/2000/svg", "")
    home = pages["index.md"]
    assert 'href="demo/D1.md"' in home  # the home page's copy links from the site's root


def test_census_counts(pages) -> None:
    census = pages["demo/census.md"]
    assert "| Plain code | 1 | 33% |" in census
    assert "| Decisions | 3 in 2 groups |" in census
    assert "| Citations | 9, every one at the same code at 1.0.0 (lines an entry cites for two of its statements count once) |" in census
    assert "| Last check | 2026-11-03 |" in census  # the newest date recorded in the entries
    assert 'style="width: 33%"' in census


def test_nav_lists_every_page_once() -> None:
    nav = site_nav([_fake_map("demo", "How demo decides")],
                   ["index.md", "demo/index.md", "demo/map.md", "demo/census.md", "extensions/x.md"],
                   ["extensions/x.md", "about.md"])
    assert nav == [{"Home": "index.md"},
                   {"How demo decides": [{"Summary": "demo/index.md"}, {"The full map": "demo/map.md"},
                                         {"Census": "demo/census.md"}]},
                   {"Extensions": [{"x": "extensions/x.md"}]},
                   "about.md"]


def test_nav_lists_every_edition_newest_first(demo) -> None:
    _older_edition(demo)
    site = render_folder(demo.decisions, demo.pages)
    [section] = [item for item in site_nav(list(site.maps), site.pages) if "How demo decides" in item]
    assert section["How demo decides"][-1] == {"What changed": [
        {"All editions": "demo/editions/index.md"}, {"0.8.0 → 1.0.0": "demo/editions/0.8.0-to-1.0.0.md"},
        {"0.7.0 → 0.8.0": "demo/editions/0.7.0-to-0.8.0.md"}]}


def test_nav_titles_are_escaped_plain_text() -> None:
    [_, section] = site_nav([_fake_map("demo", "How `demo` <script>x</script> decides")], ["demo/map.md"])
    assert list(section) == ["How demo &lt;script&gt;x&lt;/script&gt; decides"]


def _fake_map(name: str, title: str):
    class Fake:
        pass

    fake = Fake()
    fake.name, fake.title, fake.editions = name, title, ()
    return fake


# --- everything from YAML is text ----------------------------------------------------------------


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data) -> None:
        self.text.append(data)


def _html(markdown_text: str) -> _Tags:
    parser = _Tags()
    parser.feed(markdown.markdown(markdown_text, extensions=SITE_EXTENSIONS))
    return parser


def test_injected_markup_in_an_answer_is_text(pages) -> None:
    for path in ("demo/D1.md", "demo/index.md", "demo/map.md", "demo/D2.md"):
        html = _html(pages[path])
        assert "script" not in [tag for tag, _ in html.tags], path
        assert not [attrs for _, attrs in html.tags if any(name.startswith("on") for name in attrs)], path
    text = "".join(_html(pages["demo/D1.md"]).text)
    assert '<script>window.__injected = "script"</script>' in text
    assert "<img src=x onerror=\"window.__injected = 'img'\">" in text
    assert "1. This second paragraph starts like a list, but it is text." in text
    assert "You do, each time | a pipe, a {curly} brace and a # hash stay text." in "".join(_html(pages["demo/map.md"]).text)


def test_an_entry_page_title_cannot_break_out_of_the_title_element(demo) -> None:
    """The theme prints a page's title into <title> unescaped; an entry page names its own, escaped."""
    replace_in(demo.map_folder / "D2.yaml", "question: Who approves a tool that is marked risky?",
               'question: "Who approves </title><script>alert(1)</script> {{ x }}?"')
    page = render_folder(demo.decisions, demo.pages).pages["demo/D2.md"]
    title = page.split("\n")[1]
    assert title == ('title: "D2 · Who approves &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; '
                     '&#123;&#123; x &#125;&#125;?"')


def test_no_page_leaks_markdown_or_template_syntax(demo) -> None:
    """Every page through Python-Markdown with the site's extensions: nothing of the templates'
    Markdown (a heading mark, an attribute list, a link) may reach the reader as text. The
    fixture's answers and the fixed and overruled variants are rendered too."""
    from generator.site.page_check import find_leaks

    replace_in(demo.map_folder / "P1.yaml", "status: open, no fix proposed", "status: fixed\n  fixed_in: \"0.9.0\"")
    replace_in(demo.map_folder / "D1.yaml", "changed_by:\n", "overrides:\n  - by: person\n    when: at a prompt\n"
               "    cites: [{file: src/session.ts, lines: 5}]\nchanged_by:\n")
    for path, text in render_folder(demo.decisions, demo.pages).pages.items():
        if not is_download(path):
            html = markdown.markdown(re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL), extensions=SITE_EXTENSIONS)
            assert find_leaks(html) == [], path


def test_allowed_prose_becomes_code_emphasis_and_http_links() -> None:
    html = prose.site_inline("`a*b` **strong** *em* _em_ snake_case [x](https://e.org/a_(b)) [y](ftp://e.org)")
    assert html == ('<code>a&#42;b</code> <strong>strong</strong> <em>em</em> <em>em</em> snake&#95;case '
                    '<a href="https://e.org/a_(b)">x</a> &#91;y&#93;(ftp://e.org)')


def test_code_spans_keep_backticks_in_both_forms() -> None:
    assert prose.site_inline("``a ` b``") == "<code>a &#96; b</code>"
    assert prose.markdown_inline("``a ` b``") == "``a ` b``"
    assert prose.markdown_inline("unclosed `tick") == "unclosed \\`tick"


def test_the_download_escapes_for_plain_markdown() -> None:
    assert prose.markdown_inline("<script>x</script> | [y](https://e.org)") == \
        "&lt;script&gt;x&lt;/script&gt; \\| [y](https://e.org)"
    assert prose.markdown_block("- not a list\n2) nor this") == "\\- not a list\n\n2\\) nor this"


_HOSTILE = st.lists(st.sampled_from(list("<>&\"'`*_[]()!#|{}:=/\\-~^+. \nabcjsx01") +
                                    ["<script>", "</script>", "onerror=", "javascript:", "https://",
                                     "](", "<img ", "{: .x }", "!!! note", "```", "&lt;", "1. "]),
                    max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_HOSTILE)
def test_no_prose_ever_becomes_other_html(text: str) -> None:
    for rendered in (prose.site_block(text), prose.site_inline(text), prose.site_text(text)):
        html = _html(rendered)
        for tag, attrs in html.tags:
            assert tag in {"p", "code", "em", "strong", "a"}, (text, rendered)
            assert set(attrs) <= {"href"}, (text, rendered)
            if tag == "a":
                assert re.match(r"^https?://", attrs["href"]), (text, rendered)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=list("<>&\"'*_[]#|{}=\\~^+!$ abc"), min_size=1, max_size=60))
def test_plain_text_shows_exactly_as_written(text: str) -> None:
    words = " ".join(text.split())
    if not words:
        return
    html = _html(prose.site_text(words))
    assert "".join(html.text).strip() == words.strip()


# --- the Markdown download -----------------------------------------------------------------------


def _words(text: str) -> str:
    return " ".join(text.replace("·", " ").split())


def test_the_download_holds_every_entry_group_and_the_census_table(pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    tokens = MarkdownIt("commonmark").enable("table").parse(export)
    headings = {_words("".join(c.content for c in tokens[i + 1].children if c.type in ("text", "code_inline")))
                for i, t in enumerate(tokens) if t.type == "heading_open"}
    for path in ["demo/map.md", "demo/census.md"] + [p for p in pages if is_entry_page(p)]:
        for heading in re.findall(r"^##? (.+?)(?: \{ #[^}]*\})?$", pages[path], re.MULTILINE):
            if heading in ("Where in the code", "History", "How this page is checked", "Extensions that change it"):
                continue  # an entry page's own sections, not headings of the map
            assert _words("".join(_html(heading).text)) in headings, (path, heading, headings)
    census_rows = [line for line in pages["demo/census.md"].splitlines()
                   if line.startswith("| ") and "](" not in line and "<" not in line]
    assert len(census_rows) > 10
    for row in census_rows:
        assert row in export, row


def test_the_download_fences_survive_backticks_in_code(shared_demo, pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    fences = [t for t in MarkdownIt("commonmark").parse(export) if t.type == "fence"]
    # every cited range of the demo once per entry: seven in the full map, two of the problem
    assert len(fences) == 9
    assert {f.info for f in fences} == {"ts", "js"}
    source = (shared_demo.upstream / "src" / "session.ts").read_text().expandtabs(4).split("\n")
    described = textwrap.dedent("\n".join(source[15:19])) + "\n"
    assert "```` four backticks" in described
    assert described in [f.content for f in fences]


def test_the_download_keeps_injected_markup_as_text(pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    html = MarkdownIt("commonmark").enable("table").render(export)
    assert "<script>" not in html
    assert "&lt;script&gt;window.__injected" in html


# --- what stops a build ---------------------------------------------------------------------------


def test_a_drifted_citation_stops_rendering_and_names_its_line(tmp_path) -> None:
    demo = make_demo_site(tmp_path / "own")  # its repository gets a release more
    # G1's second citation was checked at 0.9.0, where two more lines opened the file
    tag_version(demo.upstream, "0.9.0", "src/session.ts", lambda text: "// one\n// two\n" + text)
    replace_in(demo.map_folder / "G1.yaml", "    lines: 21-23", '    lines: 23-25\n    version: "0.9.0"')
    [demo_map] = load_maps(demo.decisions)
    with pytest.raises(DriftError) as caught:
        render_pages(demo_map, Trees(demo_map, quiet=True))
    [problem] = caught.value.problems
    line = (demo.map_folder / "G1.yaml").read_text().split("\n").index("  - file: src/session.ts") + 1
    assert (problem.path.name, problem.line) == ("G1.yaml", line)
    assert problem.message == ("G1 cites src/session.ts:23-25, which is moved at 1.0.0, now at 21-23 "
                               "(Session.isDone)")


def test_an_extension_page_without_its_overlay_line_is_an_error(demo) -> None:
    replace_in(demo.pages / "extensions" / "demo-ext.md", "{{ overlay }}", "(the table went missing)")
    with pytest.raises(InputError) as caught:
        render_folder(demo.decisions, demo.pages)
    [problem] = caught.value.problems
    assert problem.path.name == "demo-ext.md"
    assert "has no `{{ overlay }}` lines" in problem.message


def test_a_hand_written_page_in_the_way_of_a_generated_one_is_an_error(demo) -> None:
    (demo.pages / "demo").mkdir()
    (demo.pages / "demo" / "map.md").write_text("# Mine\n")
    with pytest.raises(InputError) as caught:
        render_folder(demo.decisions, demo.pages)
    [problem] = caught.value.problems
    assert str(problem).endswith("is generated from decisions/ as demo/map.md; move the hand-written page elsewhere")


def test_an_extension_without_a_hand_written_page_gets_a_generated_one(demo) -> None:
    (demo.pages / "extensions" / "demo-ext.md").unlink()
    page = render_folder(demo.decisions, demo.pages).pages["extensions/demo-ext.md"]
    assert page.startswith('# demo-ext\n\n<span class="dm-pin">demo 1.0.0</span> · [Summary](../demo/index.md)')
    assert "{: .dm-pinline }\n\nAsks you before a run may end, &lt;em&gt;whatever&lt;/em&gt; the model says." in page
    assert "| About the extension | demo-ext |\n|---|---|" in page
    assert "| Package | <code>demo-ext</code> |" in page
    assert "## The demo decisions it changes" in page  # as the hand-written pages say it


# --- editions ---------------------------------------------------------------------------------------


def _older_edition(demo) -> None:
    """An earlier bump, 0.7.0 → 0.8.0, in which nothing drifted (so no 0.7.0 source is needed)."""
    (demo.map_folder / "editions" / "0.7.0-to-0.8.0.yaml").write_text(
        'from: "0.7.0"\nto: "0.8.0"\ndate: 2026-10-01\ncitations:\n'
        '  - {id: D2, file: src/session.ts, old: "5", new: "5", checked_at: "0.7.0", status: ok, claim: 9a1b64d9f957}\n'
        '  - {id: D1, file: src/session.ts, old: "6-11", new: "7-12", checked_at: "0.7.0", status: moved,'
        ' claim: 5a1bd959adf6}\n')


def test_every_edition_keeps_its_page_and_the_index_lists_them_newest_first(demo) -> None:
    _older_edition(demo)
    pages = render_folder(demo.decisions, demo.pages).pages
    assert "demo/editions/0.7.0-to-0.8.0.md" in pages and "demo/editions/0.8.0-to-1.0.0.md" in pages
    index = pages["demo/editions/index.md"]
    assert index.index("(0.8.0-to-1.0.0.md) | 2026-11-10 | 1 | 1 | 1 | 1 |") < \
        index.index("(0.7.0-to-0.8.0.md) | 2026-10-01 | 0 | 0 | 1 | 1 |")
    older = pages["demo/editions/0.7.0-to-0.8.0.md"]
    assert older.startswith("# What changed in demo 0.8.0, since 0.7.0\n")
    # only the latest edition marks entries and is summarized; each entry's page keeps its whole history
    assert "G1.md#history" in pages["demo/map.md"]
    assert "0.7.0-to-0.8.0" not in pages["demo/map.md"]
    assert "Earlier editions: 0.7.0 → 0.8.0 (2026-10-01)." in pages["downloads/demo-decision-map.md"]
    d1 = pages["demo/D1.md"]
    assert d1.index("[0.8.0 → 1.0.0](editions/0.8.0-to-1.0.0.md#d1)") < d1.index("[0.7.0 → 0.8.0](editions/0.7.0-to-0.8.0.md#d1)")


def test_the_edition_page_lists_each_verdict_and_the_entry_pages_show_the_code(pages) -> None:
    page = pages["demo/editions/0.8.0-to-1.0.0.md"]
    assert "# What changed in demo 1.0.0, since 0.8.0" in page
    assert "on **2026-11-10**" in page
    assert "Re-written for 1.0.0</span> **[1 decision](#rewritten)**" in page
    assert "Changed, re-read</span> **[1 problem](#changed)**" in page
    verdicts = dict(re.findall(r'<article class="dm-edition-entry" id="\w+" data-search-exclude data-id="(\w+)" '
                               r'data-verdict="(\w+)"', page))
    assert verdicts == {"G1": "rewritten", "P1": "changed"}
    assert "```" not in page  # light: the code before and after is on each entry's page
    assert ("<code>src/loop.js</code> in <code>shouldStop</code>: **the code changed**, [lines 2-4 at 0.8.0]"
            "(https://github.com/example/demo/blob/v0.8.0/src/loop.js#L2-L4) → [lines 2-7 at 1.0.0]"
            "(https://github.com/example/demo/blob/v1.0.0/src/loop.js#L2-L7)") in page
    assert "[The code before and after, on G1's page](../G1.md#history)" in page
    # the problem whose code changed is flagged, with its upstream status and check date
    recheck = page[page.index('<div class="dm-recheck-box"'):page.index("## Re-written")]
    assert "**Status re-check: a fix may have landed.**" in recheck
    assert ("[#34](https://github.com/example/demo/issues/34) · open, no fix proposed · checked 2026-11-03, "
            "before this move") in recheck
    moved = page[page.index("## Moved"):page.index("## Unchanged")]
    assert "[Is a person asked before a <code>tool&#95;call</code> runs?](../D1.md)" in moved
    assert "<code>session.ts</code> 7-12 → 9-14" in moved
    assert "[Who approves a tool that is marked risky?](../D2.md)" in page[page.index("## Unchanged"):]
    assert "bump" not in page.lower()  # an internal command's name, not the reader's word
    # old code at the version it was checked at, new code at the edition's, with real line numbers
    g1 = pages["demo/G1.md"]
    history = g1[g1.index("## History"):]
    assert ("[lines 2-4](https://github.com/example/demo/blob/v0.8.0/src/loop.js#L2-L4)" in history and
            '```js linenums="2" hl_lines="1"\nexport function shouldStop(reply) {' in history)
    assert ("[lines 2-7](https://github.com/example/demo/blob/v1.0.0/src/loop.js#L2-L7)" in history and
            '```js linenums="2" hl_lines="1 2 3 4"\nexport function shouldStop(reply, queue) {' in history)
    assert "**After** · demo 1.0.0: the code is gone; no range holds it." in history


def test_the_edition_page_shows_changes_of_behaviour_first_and_folds_rewordings(demo) -> None:
    """G1 was re-written where its cited code changed: a change of pi's behaviour, shown first. D2,
    re-worded here with its one citation unchanged, is other words for the same behaviour: folded
    after, and counted as such."""
    old = "You do, each time | a pipe, a {curly} brace and a # hash stay text."
    replace_in(demo.map_folder / "D2.yaml", "You do, each time", "You do, every time")
    edition = demo.map_folder / "editions" / "0.8.0-to-1.0.0.yaml"
    edition.write_text(edition.read_text() + f"  D2: {old!r}\n".replace("'", '"'))
    page = render_folder(demo.decisions, demo.pages).pages["demo/editions/0.8.0-to-1.0.0.md"]
    differently = page[page.index("## What demo does differently"):page.index("## The bookkeeping")]
    assert ("2 entries were re-written. In 1 of them, code the text cites had changed: this is what demo "
            "1.0.0 does differently") in differently
    assert "1 entry was re-written while none of the code it cites changed" in differently
    folded = differently[differently.index('<details class="dm-reworded" markdown>'):]
    assert "<summary>Re-worded only: 1 entry whose cited code did not change</summary>" in folded
    assert differently.index('data-id="G1" data-reworded="false"') < differently.index("<details")
    assert 'data-id="D2" data-reworded="true"' in folded and 'data-id="G1"' not in folded
    g1 = differently[:differently.index("<details")]
    assert "**Cited code that changed:** <code>loop.js</code> in <code>shouldStop</code>" in g1
    assert "Cited code that changed" not in folded  # nothing to name: none of D2's code changed
    assert "You do, each time" in folded and "You do, every time" in folded
    assert "(1 of them re-worded only: none of their cited code changed)" in page


def test_without_a_rewording_the_edition_page_says_there_is_none(pages) -> None:
    page = pages["demo/editions/0.8.0-to-1.0.0.md"]
    assert "1 entry was re-written. In it, code the text cites had changed" in page
    assert "No entry was re-written for its wording alone." in page and "<details" not in page
    assert "re-worded only" not in page


def test_the_edition_and_the_census_say_why_their_counts_differ(demo) -> None:
    (demo.map_folder / "D3.yaml").write_text("id: D3\nquestion: Added after the move?\ndecided_by: code\n"
                                              "answer: Yes.\ncites:\n  - file: src/session.ts\n    lines: 5\n")
    pages = render_folder(demo.decisions, demo.pages).pages
    # G1's third citation went with its code at the move, D1 and P1 gained the citations of their
    # exceptions and levers since: the edition has 7, the map 11, then D3's one
    said = ("[The 0.8.0 → 1.0.0 edition](editions/0.8.0-to-1.0.0.md) covers the 7 citations the map held when it moved "
            "to 1.0.0 on 2026-11-10; it holds 12 today: 1 entry added since (D3, 1 citation); 4 citations added to "
            "entries that were already there.")
    assert said in pages["demo/census.md"]
    assert said.replace("(editions/", "(../editions/") in pages["demo/editions/0.8.0-to-1.0.0.md"]
    assert "| Citations | 10, every one at the same code at 1.0.0 (lines an entry cites for two of its statements count once) |" in pages["demo/census.md"]


def test_changed_entries_carry_a_badge_and_the_filter_counts_them(pages) -> None:
    index = pages["demo/map.md"]
    assert '<div class="dm-row" id="g1" data-id="G1" data-who="model" data-group="G" data-edition="rewritten" markdown>' \
        in index
    assert "[re-written for 1.0.0](G1.md#history){ .dm-edition-badge .dm-edition-badge--rewritten }" in index
    assert 'data-id="D1" data-who="code" data-group="D" markdown>' in index  # moved: no badge
    assert ('data-dm-changed aria-pressed="false"' in index and
            'Code or text changed in 1.0.0 <span class="dm-chip__count">1</span>' in index)
    problems = pages["demo/problems.md"]
    assert "[code changed in 1.0.0](P1.md#history){ .dm-edition-badge .dm-edition-badge--changed }" in problems
    summary = pages["demo/index.md"]
    assert ("**New in 1.0.0:** the map moved from demo 0.8.0 on 2026-11-10; 1 entry re-written, 1 re-read after "
            "their code changed. [What changed](editions/0.8.0-to-1.0.0.md)\n{: .dm-edition-note }") in summary


def test_the_download_lists_what_changed_in_the_latest_edition(pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    section = export[export.index("## What changed in demo 0.8.0 → 1.0.0"):export.index("## How demo decides: the full map")]
    assert "Of its 4 entries, 1 was re-written, 1 changed, 1 moved and 1 was unchanged." in section
    assert ("- G1 · Is the work finished, so the run may stop? (`src/loop.js` 2-4 at 0.8.0 → 2-7; "
            "`src/queue.js` 2 at 0.8.0 → gone)") in section
    assert "- P1 · The description of a session ends in raw `</details>` markup (`src/session.ts` 14-16 at 0.8.0 → 16-19)" \
        in section
    assert "**Status re-check, a fix may have landed:** P1 (upstream #34, open, no fix proposed, checked 2026-11-03)." \
        in section
    assert "**Moved** (the same code at other lines): D1." in section and "**Unchanged:** D2." in section


# --- what the pages derive from the data, so it cannot go stale ---------------------------------------


@pytest.mark.parametrize("change", ["checked after the move", "fixed"])
def test_no_alarm_for_a_problem_already_settled_since_its_code_changed(demo, change) -> None:
    """The edition page must not say "a fix may have landed" about a problem the entry already
    records as fixed, or whose upstream status was checked on the day of the move or later."""
    if change == "fixed":
        replace_in(demo.map_folder / "P1.yaml", "status: open, no fix proposed",
                   "status: Fixed by a change\n  fixed_in: \"0.9.0\"")
    else:
        replace_in(demo.map_folder / "P1.yaml", "checked: 2026-11-03", "checked: 2026-11-12")
    pages = render_folder(demo.decisions, demo.pages).pages
    page = pages["demo/editions/0.8.0-to-1.0.0.md"]
    assert "a fix may have landed" not in page and "dm-recheck" not in page
    settled = "fixed in 0.9.0" if change == "fixed" else "upstream status checked 2026-11-12, after this move"
    assert f"**Problems whose code changed, already re-checked:** [P1](#p1) {settled}." in page
    card = page[page.index('data-id="P1"'):]
    assert ("**Upstream" + (":**" if change == "fixed" else ", re-checked after this move:**")) in card
    assert "a fix may have landed" not in pages["downloads/demo-decision-map.md"]


def test_the_map_explains_the_gaps_in_its_ids_and_the_census_its_overrule_count(demo) -> None:
    replace_in(demo.map_folder / "D1.yaml", "changed_by:\n", "overrides:\n  - by: person\n    when: at a prompt\n"
               f"    cites: {SOME_LINE}\n  - by: model\n    when: when it asks\n    cites: {SOME_LINE}\nchanged_by:\n")
    replace_in(demo.map_folder / "D2.yaml", "failures:", f"overrides:\n  - by: code\n    when: a rule\n    cites: {SOME_LINE}\n"
               "failures:")
    pages = render_folder(demo.decisions, demo.pages).pages
    assert ("The IDs have gaps (there is no group E or F) because an ID is kept as it was first given, never "
            "renumbered, so that links to it keep working.") in pages["demo/map.md"]
    # the map's filter counts a decision once; the census's rows count it once per holder, and say so
    assert 'Can be overruled <span class="dm-chip__count">2</span>' in pages["demo/map.md"]
    census = pages["demo/census.md"]
    assert "| Person | 1 | 33% |" in census and "| Plain code | 1 | 33% |" in census and "| AI model | 1 | 33% |" in census
    assert "| Any of them (another holder, or other code) | 2 | 67% |" in census
    assert "because 1 decision (D1) can be overruled by two holders and is counted in both rows" in census


def test_the_download_link_says_how_big_the_file_is(pages) -> None:
    size = len(pages["downloads/demo-decision-map.md"].encode("utf-8"))
    assert 1000 < size < 1_000_000
    shown = f"{round(size / 1000)} KB"
    for path in ("demo/index.md", "demo/map.md", "demo/census.md", "extensions/demo-ext.md"):
        assert "[Download as Markdown](" in pages[path] and f"{{ download }} ({shown})" in pages[path], path


def _lead(page: str) -> str:
    """A page's text after its front matter, its title and the line that says what the program is."""
    body = re.sub(r"\A---\n.*?\n---\n\n", "", page, flags=re.DOTALL)
    return re.sub(r"\A# [^\n]*\n\n[^\n]*\n\{: \.dm-about [^}]*\}\n\n", "", body)


def test_a_fixed_problem_is_shown_as_fixed_and_not_counted_as_open(demo) -> None:
    replace_in(demo.map_folder / "P1.yaml", "status: open, no fix proposed",
               "status: Fixed by a change\n  fixed_in: \"0.9.0\"")
    pages = render_folder(demo.decisions, demo.pages).pages
    problems = pages["demo/problems.md"]
    assert _lead(problems).startswith("Nothing recorded here goes wrong in demo 1.0.0; one more "
                               "went wrong in an earlier release and is fixed, listed last with the release that "
                               "fixed it.")
    assert problems.index("## Fixed in an earlier release { #fixed }") < problems.index("{ #p1 data-search-exclude }")
    badge = '<span class="dm-status dm-status--fixed">Fixed in demo 0.9.0</span>'
    for path in ("demo/problems.md", "demo/P1.md", "demo/index.md"):
        assert badge in pages[path], path
    assert "Nothing recorded goes wrong in demo 1.0.0; one more went wrong" in pages["demo/index.md"]
    assert "| Problems | 1: 0 open at 1.0.0, 1 fixed in an earlier release |" in pages["demo/census.md"]
    assert "**Fixed in demo 0.9.0.**" in pages["downloads/demo-decision-map.md"]


def test_a_fix_after_the_pin_leaves_the_problem_open_at_the_pin(demo) -> None:
    replace_in(demo.map_folder / "P1.yaml", "status: open, no fix proposed", "status: fixed\n  fixed_in: \"1.2.0\"")
    pages = render_folder(demo.decisions, demo.pages).pages
    assert _lead(pages["demo/problems.md"]).startswith("One thing in demo 1.0.0 goes wrong")
    assert '<span class="dm-status dm-status--open">Open at demo 1.0.0; fixed upstream in 1.2.0</span>' in \
        pages["demo/P1.md"]


def test_no_template_names_a_version_of_its_own() -> None:
    """Every version a page names comes from the data (the pin, an edition, a review): a template
    that wrote one would be wrong after the next move to a new release."""
    templates = Path(__file__).parent.parent / "generator" / "templates"
    for template in templates.glob("*.j2"):
        assert not re.search(r"\b\d+\.\d+\.\d+\b", template.read_text()), template.name


def test_the_review_line_says_what_was_read_and_what_happened_since(demo) -> None:
    pages = render_folder(demo.decisions, demo.pages).pages
    assert ("**Second reading:** against the code of demo 1.0.0, on 2026-11-01, by a test reviewer.\n"
            "{: .dm-reviewed }") in pages["demo/D1.md"]
    assert "No second reader has signed this entry yet." in pages["demo/G1.md"]
    # read at 0.8.0; when the map moved to 1.0.0, D1's code only moved
    replace_in(demo.map_folder / "D1.yaml", 'version: "1.0.0"', 'version: "0.8.0"')
    (demo.map_folder / "G1.yaml").write_text((demo.map_folder / "G1.yaml").read_text() +
                                             'reviewed:\n  version: "0.8.0"\n  date: 2026-11-01\n  checked: every claim\n')
    pages = render_folder(demo.decisions, demo.pages).pages
    assert ("**Second reading:** against the code of demo 0.8.0, on 2026-11-01, by a test reviewer. When the map "
            "moved to 1.0.0, this entry's cited code only moved to other lines (the same code), so that reading "
            "still applies to the code shown here.") in pages["demo/D1.md"]
    assert ("**Second reading:** against the code of demo 0.8.0, on 2026-11-01. What was checked: every claim. "
            "When the map moved to 1.0.0, this entry's text was re-written for 1.0.0; the new text has not had a "
            "second reader yet.") in pages["demo/G1.md"]
    assert "| Entries checked by a second reader | 2 of 4, 0 of them against 1.0.0, the latest on 2026-11-01 |" in \
        pages["demo/census.md"]


@pytest.mark.parametrize("can, action", [(None, "overrule"), ("stop the run", "stop the run")])
def test_who_can_overrule_shows_wherever_who_decides_shows(demo, can, action) -> None:
    """The badge says what the holder can do when the override names it (`can`): a reader took
    "Person can overrule" for "a person is sometimes asked"."""
    replace_in(demo.map_folder / "D1.yaml", "changed_by:\n", "overrides:\n  - by: person\n" +
               (f"    can: {can}\n" if can else "") + "    when: >-\n"
               f"      An extension's prompt lets the person refuse the call (see D2).\n    cites: {SOME_LINE}\nchanged_by:\n")
    pages = render_folder(demo.decisions, demo.pages).pages
    badge = f'<span class="dm-badge dm-badge--person dm-badge--overrule">Person can {action}</span>'
    d1 = pages["demo/D1.md"]
    assert badge in d1
    said = "can overrule it" if can is None else f"can {can}"
    assert (f'- <span class="dm-badge dm-badge--person">Person</span> **{said}:** An extension\'s prompt lets the '
            "person refuse the call (see [D2](D2.md") in d1
    assert "the call (see [D2](D2.md#d2 \"Who approves a tool that is marked risky?\"){ .dm-ref }). " \
           "[session.ts:5](#code-4){ .dm-item-cite }" in d1  # the override's own citation, by its excerpt
    index = pages["demo/map.md"]
    # the override is part of what the entry says: the text differs from the edition's
    assert 'data-group="D" data-edition="rewritten" data-overrule="person" markdown>' in index and badge in index
    assert 'data-dm-overrule aria-pressed="false">Can be overruled <span class="dm-chip__count">1</span>' \
        in index
    glance = pages["demo/index.md"][pages["demo/index.md"].index("## At a glance"):]
    assert badge in glance.split("\n| [D1]")[1].split("\n")[0]
    census = pages["demo/census.md"]
    assert "| Can overrule the default holder | Decisions | Share |\n|---|--:|--:|\n| Person | 1 | 33% |" in census
    figure = pages["demo/index.md"][pages["demo/index.md"].index("<figure"):]
    d1_node = figure[figure.index('href="D1.md"'):figure.index("</a>", figure.index('href="D1.md"'))]
    assert f"Decided by plain code; a person can {action}." in d1_node and 'class="dm-dot dm-dot--person"' in d1_node
    assert (f"**Person {said}:** An extension's prompt lets the person refuse the call (see D2). "
            "([session.ts:5](https://github.com/example/demo/blob/v1.0.0/src/session.ts#L5))") \
        in pages["downloads/demo-decision-map.md"]


def test_an_overlay_names_the_decisions_own_overrule_in_its_words(demo) -> None:
    """G1's own page says "Person can stop the run": the side without the extension (pi's own G1)
    says the same on the extension's page and on G1's, not "Person can overrule"; the side with it
    keeps that lever in the same words and marks the one the extension adds, in its own."""
    replace_in(demo.map_folder / "G1.yaml", "cites:\n", "overrides:\n  - by: person\n    can: stop the run\n"
               f"    when: The person can stop the run at any turn.\n    cites: {SOME_LINE}\ncites:\n")
    overlay = demo.map_folder / "extensions" / "demo-ext.yaml"
    replace_in(overlay, "      decided_by: model\n      answer: A reply",
               "      decided_by: model\n      overrides:\n        - by: person\n          when: You can stop it.\n"
               "      answer: A reply")
    replace_in(overlay, "      decided_by: person\n      answer: You decide",
               "      decided_by: person\n      overrides:\n        - by: person\n          when: You can stop it.\n"
               "        - by: code\n          can: end it after three asks\n          when: It stops asking.\n"
               "      answer: You decide")
    pages = render_folder(demo.decisions, demo.pages).pages
    stop = '<span class="dm-badge dm-badge--person dm-badge--overrule">Person can stop the run</span>'
    added = ('<span class="dm-badge dm-badge--code dm-badge--overrule dm-badge--added"><span aria-hidden="true">+ '
             '</span>Plain code can end it after three asks<span class="dm-visually-hidden"> (added)</span></span>')
    for page in (pages["extensions/demo-ext.md"], pages["demo/G1.md"]):
        assert "person can overrule" not in page.lower() and "code can overrule" not in page.lower(), page
        without = page[page.index("**Without "):page.index("**With ")]
        with_ = page[page.index("**With "):]
        assert stop in without and stop in with_ and added in with_, page
    extension = pages["extensions/demo-ext.md"]
    assert "**can stop the run:** You can stop it." in extension[extension.index("**Without "):extension.index("**With ")]
    assert stop in pages["demo/G1.md"][:pages["demo/G1.md"].index("## Extensions that change it")]


def test_one_holder_with_two_actions_gets_one_badge_naming_both() -> None:
    from generator.map.model import Override
    from generator.site.pages.views import overrule_labels

    both = [Override("person", "a", can="stop the run"), Override("person", "b", can="pick the model"),
            Override("model", "c", can="end the turn")]
    assert overrule_labels(both) == [("person", "Person can stop the run or pick the model"),
                                     ("model", "AI model can end the turn")]
    # one override that does not say what the holder can do: the badge says only that it can overrule
    assert overrule_labels(both + [Override("person", "d")]) == [("person", "Person can overrule"),
                                                                 ("model", "AI model can end the turn")]


class _ProbeResult:
    """What generator.probes.run's ProbeResult carries, as far as the renderer reads it."""

    def __init__(self, script: Path, **fields) -> None:
        self.map, self.id, self.status, self.version, self.seconds, self.message = "demo", "D1", "holds", "1.0.0", 1.5, ""
        self.result, self.script, self.claim = {"asked": False, "ran": True}, script, ""
        self.__dict__.update(fields)


def test_a_probe_shows_on_its_entry_page_when_it_was_run(demo) -> None:
    script = demo.map_folder / "probes" / "D1.mjs"
    script.parent.mkdir()
    script.write_text('const ran = true;\nconsole.log(JSON.stringify({asked: false, ran}));\n')
    replace_in(demo.map_folder / "D1.yaml", "\ncites:", "\nprobe:\n  shows: A tool call runs with nobody asked.\n"
               "  expect: {asked: false, ran: true}\ncites:")
    without = render_folder(demo.decisions, demo.pages).pages["demo/D1.md"]
    assert "{ #probe" not in without  # not run in this build: nothing is claimed
    page = render_folder(demo.decisions, demo.pages, probes={"D1": _ProbeResult(script)}).pages["demo/D1.md"]
    section = page[page.index("## Demonstrated by running demo 1.0.0 { #probe data-search-exclude }"):
                   page.index("## Where in the code")]
    assert "A tool call runs with nobody asked.\n{: .dm-fact }" in section
    assert '<span class="dm-probe dm-probe--holds">Holds at demo 1.0.0</span>' in section
    assert "the claim holds when the result has <code>asked: false, ran: true</code>" in section
    assert "```js\nconst ran = true;\nconsole.log(JSON.stringify({asked: false, ran}));\n```" in section
    assert '```json\n{\n  "asked": false,\n  "ran": true\n}\n```' in section
    problem = render_folder(demo.decisions, demo.pages, probes={"D1": _ProbeResult(script, status="fails")})
    assert '<span class="dm-probe dm-probe--fails">Does not hold at demo 1.0.0</span>' in problem.pages["demo/D1.md"]
    assert "The module it imports" not in section
    # a module it imports from its folder is shown after it: the script alone does not say what it runs
    (script.parent / "_session.mjs").write_text("export const ran = true;\n")
    script.write_text('import { ran } from "./_session.mjs";\nconsole.log(JSON.stringify({asked: false, ran}));\n')
    page = render_folder(demo.decisions, demo.pages, probes={"D1": _ProbeResult(script)}).pages["demo/D1.md"]
    assert ('```\n\n</details>\n\n<details class="dm-code" markdown>\n<summary>The module it imports, '
            '<code>&#95;session.mjs</code></summary>\n\n```js\nexport const ran = true;\n```\n\n</details>\n\n'
            "<details class=\"dm-code\" open markdown>") in page, page[page.index("## Demonstrated"):][:1500]


# --- prose, read by markdown-it-py with only the allowed constructs -----------------------------------


def test_prose_keeps_every_escape_and_allows_nothing_else() -> None:
    assert prose.site_inline('[a](https://e.org/"x)') == '<a href="https://e.org/&quot;x">a</a>'
    assert prose.site_inline("<https://x.org> ![i](https://x.org/i.png) &amp; <b>b</b> ~~s~~") == (
        "&lt;https://x.org&gt; &#33;<a href=\"https://x.org/i.png\">i</a> &amp;amp; &lt;b&gt;b&lt;/b&gt; &#126;&#126;s&#126;&#126;")
    assert prose.site_inline("[x](javascript:alert(1)) [y](data:text/html,1) [z](HTTPS://E.ORG)") == (
        "&#91;x&#93;(javascript:alert(1)) &#91;y&#93;(data:text/html,1) <a href=\"HTTPS://E.ORG\">z</a>")
    assert prose.site_inline(r"\*not emphasis\* and \`not code\`") == "&#42;not emphasis&#42; and &#96;not code&#96;"
    assert prose.words("A `code` *word* and [a link](https://e.org)") == "A code word and a link"


def test_the_opening_of_an_answer_is_whole_sentences() -> None:
    assert prose.first_sentences("No. pi has no step of its own for this at all. Then more.") == \
        "No. pi has no step of its own for this at all."
    assert prose.first_sentences("Yes, e.g. when `a.b. c` is set, the run goes on. Later.") == \
        "Yes, e.g. when `a.b. c` is set, the run goes on."
    long = "word " * 80
    assert prose.first_sentences(long, at_most=60).endswith(" …") and len(prose.first_sentences(long, at_most=60)) <= 62


def test_a_status_that_only_says_fixed_in_words_does_not_make_a_problem_fixed(demo) -> None:
    """Only `upstream.fixed_in` says a problem is fixed: prose like "listed as fixed under 0.79.9"
    about a related report must never turn an open problem green."""
    replace_in(demo.map_folder / "P1.yaml", "status: open, no fix proposed",
               "status: a related report is listed as fixed in 0.9.0; this one is not")
    pages = render_folder(demo.decisions, demo.pages).pages
    assert '<span class="dm-status dm-status--open">Open at demo 1.0.0</span>' in pages["demo/P1.md"]


def test_every_decision_points_to_the_map_s_shared_levers_once(demo) -> None:
    """With `shared_levers` set, each decision's page says that its levers are its own and links
    the entry listing what any extension can do; that entry, and problems, do not."""
    map_yaml = demo.map_folder / "map.yaml"
    map_yaml.write_text(map_yaml.read_text() + "shared_levers: G1\n")
    pages = render_folder(demo.decisions, demo.pages).pages
    line = "a loaded extension can reshape any run through the events and calls that [G1 · "
    for page in ("demo/D1.md", "demo/D2.md"):
        assert pages[page].count(line) == 1, page
        assert "](G1.md#g1){" in pages[page] or "](G1.md#g1)" in pages[page]
    assert line not in pages["demo/G1.md"] and line not in pages["demo/P1.md"]
    export = next(text for name, text in pages.items() if name.endswith(".md") and "downloads" in name)
    assert export.count("a loaded extension can reshape any run through the events and calls that G1 lists") == 2


def test_shared_levers_naming_no_entry_is_an_error_with_its_line(demo) -> None:
    map_yaml = demo.map_folder / "map.yaml"
    map_yaml.write_text(map_yaml.read_text() + "shared_levers: G9\n")
    with pytest.raises(InputError) as failure:
        load_maps(demo.decisions)
    line = len(map_yaml.read_text().splitlines())  # the key's own line, the last one
    assert f"map.yaml:{line}: shared_levers names G9" in str(failure.value)


def test_the_render_command_writes_the_site_with_its_pages_and_probe_results(demo, tmp_path, capsys,
                                                                             monkeypatch) -> None:
    """`render` (the site's Markdown without MkDocs): hand-written pages from --pages, and the
    probes' results on the entries' pages. The probe runner is replaced here by one that reports a
    holding result (running real pi probes is tested with pi itself, in test_probe.py)."""
    from generator.probes import run as probe
    from conftest import run_main

    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "cache"))  # a fetch --quiet must keep quiet about
    (demo.map_folder / "probes").mkdir()
    (demo.map_folder / "probes" / "D1.mjs").write_text("console.log(JSON.stringify({asked: 0}));\n")
    replace_in(demo.map_folder / "D1.yaml", "\ncites:", "\nprobe:\n  shows: Nobody is asked.\n  expect: {asked: 0}\ncites:")
    asked = []

    def fake_site_probes(maps, *, quiet=True):
        asked.append(quiet)
        return {"D1": probe.ProbeResult("demo", "D1", "holds", "Nobody is asked.", {"asked": 0}, 0.5, "1.0.0",
                                        demo.map_folder / "probes" / "D1.mjs", expect=(("asked", 0),))}

    monkeypatch.setattr(probe, "site_probes", fake_site_probes)
    out = tmp_path / "out"
    run = run_main(capsys, "render", "--decisions", demo.decisions, "--pages", demo.pages, "--out", out, "--quiet")
    assert (run.code, run.stderr) == (0, "")  # --quiet: no fetch messages either
    written = sorted(p for p in out.rglob("*") if p.is_file())
    assert run.stdout.strip() == f"wrote {len(written)} files to {out}"
    assert asked == [True]  # --quiet reaches the probe runner
    assert "Hand-written text after the overlay stays in place." in (out / "extensions" / "demo-ext.md").read_text()
    d1 = (out / "demo" / "D1.md").read_text(encoding="utf-8")
    assert "Demonstrated by running demo 1.0.0" in d1 and "Holds at demo 1.0.0" in d1
    # without --quiet the probe runner may speak; a --pages folder that is not there is no error
    loud = run_main(capsys, "render", "--decisions", demo.decisions, "--pages", tmp_path / "none",
                    "--out", tmp_path / "out2")
    assert loud.code == 0 and asked == [True, False]
    assert not (tmp_path / "out2" / "extensions" / "demo-ext.md").read_text().startswith("# demo-ext\n\nA hand-written")


# --- the short answer and its exceptions (issue 28) ----------------------------------------------


def test_the_entry_page_shows_the_answer_then_each_exception_with_links_to_its_own_code(pages) -> None:
    d1 = pages["demo/D1.md"]
    answer = d1.index("No. <strong>Plain code</strong> lets the call run")
    listed = d1.index("**Exceptions:** when the answer above does not hold\n{: #exceptions .dm-fact }")
    first = d1.index("- With no <code>tool&#95;call</code> hook registered, the call runs without any check "
                     "&lt;b&gt;at all&lt;/b&gt;. [session.ts:10-12](#code-1){ .dm-item-cite }\n")
    second = d1.index("- A hook that throws stops the call, and the error is the call's result (see [D2](D2.md#d2 "
                      '"Who approves a tool that is marked risky?"){ .dm-ref }). [session.ts:13](#code-2){ .dm-item-cite } '
                      "[session.ts:9-14](#code-3){ .dm-item-cite }\n")
    levers = d1.index("**Who can change it:**")
    assert answer < listed < first < second < levers
    # each link lands on the excerpt of the range it names; a range cited twice is shown once
    code = d1[d1.index("## Where in the code"):]
    for anchor, label in (("code-1", "session.ts:10-12"), ("code-2", "session.ts:13"), ("code-3", "session.ts:9-14"),
                          ("code-4", "session.ts:5")):
        assert code.index(f'<div class="dm-cite" id="{anchor}" markdown>\n\n[{label}](') >= 0
    assert code.count('<div class="dm-cite"') == 4
    # of the three citations of 9-14, the one with a note speaks for the range
    assert "[session.ts:9-14](https://github.com/example/demo/blob/v1.0.0/src/session.ts#L9-L14){ .dm-permalink } in " \
           "<code>Session.beforeToolCall</code> · the hook, asked for every call" in code
    # the main path's own citations follow the answer
    assert "Where: [session.ts:9-14](#code-3){ .dm-item-cite } [session.ts:5](#code-4){ .dm-item-cite }\n" \
           "{: .dm-main-cites data-search-exclude }" in d1
    assert "<span class=\"dm-count\">2 exceptions</span>\n{: .dm-who }" in d1


def test_the_short_views_show_the_answer_and_the_number_of_exceptions_only(pages) -> None:
    exception_text = "runs without any check"
    row = pages["demo/map.md"].split('data-id="D1"')[1].split("</div>")[0]
    # the whole short answer (its first paragraph), not only its opening sentence, then the count
    assert row.rstrip().endswith("and a&#95;snake&#95;case name. "
                                 '<span class="dm-count">2 exceptions</span>\n{: .dm-row__answer }')
    assert exception_text not in pages["demo/map.md"]
    summary = pages["demo/index.md"]
    card = summary[summary.index('<div class="dm-summary" data-id="D1"'):]
    card = card[:card.index("</div>")]
    assert "a&#95;snake&#95;case name. 1. This second paragraph starts like a list, but it is text. " \
           "[2 exceptions](D1.md#exceptions){ .dm-count }" in card
    glance = summary[summary.index("## At a glance"):].split("\n| [D1]")[1].split("\n")[0]
    assert glance.endswith('<span class="dm-count">2 exceptions</span> |')
    assert exception_text not in summary
    problems = pages["demo/problems.md"]
    assert "[1 exception](P1.md#exceptions){ .dm-count }" in problems and "never described" not in problems
    # the Markdown export: the summary shows the answer and the count; the full map lists the items
    export = pages["downloads/demo-decision-map.md"]
    full = export.index(": the full map")
    assert "it is text. *(2 exceptions: see D1 below.)*" in export[:full]
    assert "that must show as text. *(1 exception: see P1 below.)*" in export[:full]
    assert exception_text not in export[:full]
    assert ("**Exceptions** (when the answer above does not hold):\n\n- With no `tool_call` hook registered, the call "
            "runs without any check &lt;b&gt;at all&lt;/b&gt;. ([session.ts:10-12](https://github.com/example/demo/"
            "blob/v1.0.0/src/session.ts#L10-L12))\n") in export[full:]
    assert ("**Who can change it:**\n\n- A hook registered for `tool_call` can block the call. ([session.ts:9-14]"
            "(https://github.com/example/demo/blob/v1.0.0/src/session.ts#L9-L14))\n") in export[full:]
