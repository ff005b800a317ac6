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
    assert sorted(pages) == ["demo/census.md", "demo/editions/0.8.0-to-1.0.0.md", "demo/editions/index.md",
                             "demo/index.md", "demo/map.md", "demo/problems.md",
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
    assert '<article class="dm-card" data-id="D2" data-who="person" data-group="D" markdown>' in card


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


# --- editions ---------------------------------------------------------------------------------------


def _older_edition(demo) -> None:
    """An earlier bump, 0.7.0 → 0.8.0, in which nothing drifted (so no 0.7.0 source is needed)."""
    (demo.map_folder / "editions" / "0.7.0-to-0.8.0.yaml").write_text(
        'from: "0.7.0"\nto: "0.8.0"\ndate: 2026-10-01\ncitations:\n'
        '  - {id: D2, file: src/session.ts, old: "5", new: "5", checked_at: "0.7.0", status: ok, claim: 9a1b64d9f957}\n'
        '  - {id: D1, file: src/session.ts, old: "6-11", new: "7-12", checked_at: "0.7.0", status: moved,'
        ' claim: e011524fb68e}\n')


def test_every_edition_keeps_its_page_and_the_index_lists_them_newest_first(demo) -> None:
    _older_edition(demo)
    pages = render_folder(demo.decisions, demo.pages).pages
    assert "demo/editions/0.7.0-to-0.8.0.md" in pages and "demo/editions/0.8.0-to-1.0.0.md" in pages
    index = pages["demo/editions/index.md"]
    assert index.index("(0.8.0-to-1.0.0.md) | 2026-11-10 | 1 | 1 | 1 | 1 |") < \
        index.index("(0.7.0-to-0.8.0.md) | 2026-10-01 | 0 | 0 | 1 | 1 |")
    older = pages["demo/editions/0.7.0-to-0.8.0.md"]
    assert older.startswith("---\nhide:\n  - toc\n---\n\n# What changed in how demo decides, 0.7.0 → 0.8.0\n")
    # only the latest edition marks cards and is summarized
    assert "editions/0.8.0-to-1.0.0.md#g1" in pages["demo/map.md"]
    assert "0.7.0-to-0.8.0" not in pages["demo/map.md"]
    assert "Earlier editions: 0.7.0 → 0.8.0 (2026-10-01)." in pages["downloads/demo-decision-map.md"]


def test_the_edition_page_shows_each_verdict_and_the_old_and_new_code(pages) -> None:
    page = pages["demo/editions/0.8.0-to-1.0.0.md"]
    assert "# What changed in how demo decides, 0.8.0 → 1.0.0" in page
    assert "on **2026-11-10**" in page
    assert "Re-written for 1.0.0</span> **[1 decision](#rewritten)**" in page
    assert "Changed, re-read</span> **[1 problem](#changed)**" in page
    verdicts = dict(re.findall(r'<article class="dm-edition-entry" data-id="(\w+)" data-verdict="(\w+)"', page))
    assert verdicts == {"G1": "rewritten", "P1": "changed"}
    # old code at the version it was checked at, new code at the edition's, with real line numbers
    assert ("[lines 2-4](https://github.com/example/demo/blob/v0.8.0/src/loop.js#L2-L4)" in page and
            '```js linenums="2" hl_lines="1"\nexport function shouldStop(reply) {' in page)
    assert ("[lines 2-7](https://github.com/example/demo/blob/v1.0.0/src/loop.js#L2-L7)" in page and
            '```js linenums="2" hl_lines="1 2 3 4"\nexport function shouldStop(reply, queue) {' in page)
    assert "**After** · demo 1.0.0: the code is gone; no range holds it." in page
    assert "[G1 in the full map](../map.md#g1)" in page and "[P1 on the problems page](../problems.md#p1)" in page
    # the problem whose code changed is flagged, with its upstream status and check date
    recheck = page[page.index('<div class="dm-recheck-box"'):page.index("## Re-written")]
    assert "**Status re-check: a fix may have landed.**" in recheck
    assert ("[#34](https://github.com/example/demo/issues/34) · open, no fix proposed · checked 2026-11-03, "
            "before this bump") in recheck
    moved = page[page.index("## Moved"):page.index("## Unchanged")]
    assert "[Is a person asked before a <code>tool&#95;call</code> runs?](../map.md#d1)" in moved
    assert "<code>session.ts</code> 7-12 → 9-14" in moved
    assert "[Who approves a tool that is marked risky?](../map.md#d2)" in page[page.index("## Unchanged"):]


def test_changed_cards_carry_a_badge_and_the_filter_counts_them(pages) -> None:
    card_map = pages["demo/map.md"]
    assert '<article class="dm-card" data-id="G1" data-who="model" data-group="G" data-edition="rewritten" markdown>' \
        in card_map
    assert ("[re-written for 1.0.0](editions/0.8.0-to-1.0.0.md#g1){ .dm-edition-badge .dm-edition-badge--rewritten }"
            in card_map)
    assert 'data-id="D1" data-who="code" data-group="D" markdown>' in card_map  # moved: no badge
    assert ('data-dm-changed aria-pressed="false"' in card_map and
            'Changed since the last edition <span class="dm-chip__count">1</span>' in card_map)
    problems = pages["demo/problems.md"]
    assert "[changed in 1.0.0](editions/0.8.0-to-1.0.0.md#p1){ .dm-edition-badge .dm-edition-badge--changed }" \
        in problems
    summary = pages["demo/index.md"]
    assert ("**New in 1.0.0:** moved from demo 0.8.0 on 2026-11-10; 1 entry re-written, 1 re-read after their "
            "code changed. [What changed](editions/0.8.0-to-1.0.0.md)\n{: .dm-edition-note }") in summary


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
