"""The renderer: golden Markdown of the demo site, escaping of everything that comes from YAML,
the Markdown download, and the errors that stop a build (drift, hand-written page clashes).

The golden pages live in tests/golden/. When a change to them is intended, regenerate them with

    UPDATE_GOLDEN=1 make test

and read the diff before committing it.
"""

from __future__ import annotations

import os
import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from generator import prose
from generator.errors import DriftError, InputError
from generator.load import load_maps
from generator.render import (is_download, render_folder, render_pages, site_nav)
from generator.verify import Trees
from site_fixtures.demo_site import URL_PLACEHOLDER, make_demo_site, replace_in, tag_version

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = "UPDATE_GOLDEN=1 make test"
SITE_EXTENSIONS = ["attr_list", "md_in_html", "tables", "toc", "pymdownx.highlight", "pymdownx.superfences"]


@pytest.fixture
def demo(tmp_path: Path):
    return make_demo_site(tmp_path)


@pytest.fixture
def pages(demo) -> dict[str, str]:
    return render_folder(demo.decisions, demo.pages).pages


def _normalized(text: str, demo) -> str:
    """The page with the temporary upstream URL (in each of its escaped forms) as a placeholder."""
    for form in (demo.url, prose.site_text(demo.url), prose.markdown_text(demo.url)):
        text = text.replace(form, URL_PLACEHOLDER)
    return text


# --- golden pages -----------------------------------------------------------------------------


def test_pages_match_the_golden_files(demo, pages) -> None:
    expected = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.md")}
    if os.environ.get("UPDATE_GOLDEN"):
        for stale in expected - set(pages):
            (GOLDEN / stale).unlink()
        for path, text in pages.items():
            target = GOLDEN / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_normalized(text, demo), encoding="utf-8")
        return
    assert set(pages) == expected, (f"the rendered pages {sorted(pages)} are not the golden ones "
                                    f"{sorted(expected)}; if that is intended, run: {REGENERATE}")
    for path, text in pages.items():
        golden = (GOLDEN / path).read_text(encoding="utf-8")
        assert _normalized(text, demo) == golden, (
            f"{path} differs from tests/golden/{path}; if the change is intended, regenerate the "
            f"golden pages with: {REGENERATE}")


def test_rendering_is_deterministic(demo, pages) -> None:
    again = render_folder(demo.decisions, demo.pages).pages
    assert again == pages


def test_the_site_has_every_page(pages) -> None:
    assert sorted(pages) == ["demo/census.md", "demo/index.md", "demo/map.md", "demo/problems.md",
                             "downloads/demo-decision-map.md", "extensions/demo-ext.md", "index.md"]
    assert [p for p in pages if is_download(p)] == ["downloads/demo-decision-map.md"]


# --- the pages say what the YAML says ------------------------------------------------------------


def test_summary_follows_the_sections_of_map_yaml(pages) -> None:
    summary = pages["demo/index.md"]
    headings = re.findall(r"^## (.+)$", summary, re.MULTILINE)
    assert headings == ["What it does without asking you", "How it decides it is done", "One problem in the code"]
    d1 = summary.index("{ #d1 }")
    assert summary.index("{ #d2 }") > d1 and summary.index("{ #g1 }") > summary.index("{ #d2 }")
    assert ("[session.ts:9-14](https://github.com/example/demo/blob/v1.0.0/src/session.ts#L9-L14)"
            in summary)
    assert "[decision D1 in the full map](map.md#d1)" in summary
    assert "[#34](https://github.com/example/demo/issues/34) · open, no fix proposed · checked 2026-11-03" in summary


def test_a_card_holds_the_cited_code_with_its_real_line_numbers(pages) -> None:
    card = pages["demo/map.md"]
    assert '```ts linenums="9"\nasync beforeToolCall(call: ToolCall)' in card
    assert "in <code>Session.beforeToolCall</code> · the hook, asked for every call" in card
    assert '<article class="dm-card" data-id="G1" data-who="model" data-group="G" markdown>' in card


def test_code_with_backtick_runs_gets_a_longer_fence(pages) -> None:
    problems = pages["demo/problems.md"]
    assert '`````ts linenums="16"\ndescribe(): string {' in problems
    assert "\n`````\n" in problems


def test_extension_page_keeps_the_hand_written_text_around_the_overlay(pages) -> None:
    page = pages["extensions/demo-ext.md"]
    assert page.startswith("# demo-ext\n\nA hand-written page about the demo extension.")
    assert "{{ overlay }}" not in page
    assert page.index("| [G1](#g1) Is the work finished") < page.index("## After the table")
    assert "Touches [G1](../demo/map.md#g1), [D1](../demo/map.md#d1) in the full map." in page


def test_cards_link_to_the_extensions_that_change_them(pages) -> None:
    card = pages["demo/map.md"]
    assert "**Extensions that change it:** [demo-ext](../extensions/demo-ext.md#g1)" in card
    assert "[How many times may the run be extended?](../extensions/demo-ext.md#added-1) (demo-ext)" in card


def test_census_counts(pages) -> None:
    census = pages["demo/census.md"]
    assert "| Plain code | 1 | 33% |" in census
    assert "| Decisions | 3 in 2 groups |" in census
    assert "| Citations | 6, every one at the same code at 1.0.0 |" in census
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


def test_nav_titles_are_escaped_plain_text() -> None:
    [_, section] = site_nav([_fake_map("demo", "How `demo` <script>x</script> decides")], ["demo/map.md"])
    assert list(section) == ["How demo &lt;script&gt;x&lt;/script&gt; decides"]


def _fake_map(name: str, title: str):
    class Fake:
        pass

    fake = Fake()
    fake.name, fake.title = name, title
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
    html = _html(pages["demo/map.md"])
    assert "script" not in [tag for tag, _ in html.tags]
    assert not [attrs for _, attrs in html.tags if any(name.startswith("on") for name in attrs)]
    text = "".join(html.text)
    assert '<script>window.__injected = "script"</script>' in text
    assert "<img src=x onerror=\"window.__injected = 'img'\">" in text
    assert "1. This second paragraph starts like a list, but it is text." in text
    assert "You do, each time | a pipe, a {curly} brace and a # hash stay text." in text


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


def test_the_download_holds_every_heading_and_the_census_table(pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    tokens = MarkdownIt("commonmark").enable("table").parse(export)
    headings = {_words("".join(c.content for c in tokens[i + 1].children if c.type in ("text", "code_inline")))
                for i, t in enumerate(tokens) if t.type == "heading_open"}
    for path in ("demo/index.md", "demo/map.md", "demo/problems.md", "demo/census.md"):
        for heading in re.findall(r"^##? (.+?)(?: \{ #[\w-]+ \})?$", pages[path], re.MULTILINE):
            assert _words("".join(_html(heading).text)) in headings, (path, heading, headings)
    census_rows = [line for line in pages["demo/census.md"].splitlines()
                   if line.startswith("| ") and "](" not in line and "<" not in line]
    assert len(census_rows) > 10
    for row in census_rows:
        assert row in export, row


def test_the_download_fences_survive_backticks_in_code(demo, pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    fences = [t for t in MarkdownIt("commonmark").parse(export) if t.type == "fence"]
    assert len(fences) == 6  # every citation of the demo: five in the full map, one of the problem
    assert {f.info for f in fences} == {"ts", "js"}
    source = (demo.upstream / "src" / "session.ts").read_text().expandtabs(4).split("\n")
    described = textwrap.dedent("\n".join(source[15:19])) + "\n"
    assert "```` four backticks" in described
    assert described in [f.content for f in fences]


def test_the_download_keeps_injected_markup_as_text(pages) -> None:
    export = pages["downloads/demo-decision-map.md"]
    html = MarkdownIt("commonmark").enable("table").render(export)
    assert "<script>" not in html
    assert "&lt;script&gt;window.__injected" in html


# --- what stops a build ---------------------------------------------------------------------------


def test_a_drifted_citation_stops_rendering_and_names_its_line(demo) -> None:
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
    assert page.startswith("# demo-ext\n\nAsks you before a run may end, &lt;em&gt;whatever&lt;/em&gt; the model says.")
    assert "| Package | <code>demo-ext</code> |" in page
    assert "## The How demo decides decisions it changes" in page
