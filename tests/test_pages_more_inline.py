"""The pages' pieces rendered in this process from small models built inline, without a site build:
the escaping filters and templates' helpers (environment.py), an extension pinned on npm and the
extensions index (extensions.py), the code before and after an edition (editions.py), the loop
drawing (diagram.py) and the MkDocs plugin's hooks (plugin.py).

Each test asserts what a reader sees: escaped text, the right link, the right row, the verdict, the
drawing's tiles and arrows. The whole file runs in a few seconds (no git, no npm, no MkDocs build).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import UndefinedError
from markupsafe import Markup

from generator.citations.resolve import SourceFile, describe
from generator.map.model import (Citation, CitationRecord, DecisionMap, Edition, EditionCitation, Entry, Item,
                                 NpmPackage, Overlay, OverlayChange, OverlayLever, Override, Probe, Side, Source,
                                 Span, Upstream, extension_map)
from generator.site.pages import environment as env_module
from generator.site.pages.editions import CodeAt
from generator.site.pages.environment import (attribute, code_block, count, environment, fence, file_size,
                                              html_attribute, number_word, span, url, who_list)
from generator.site.pages.views import CitedCode

# --- models built inline -------------------------------------------------------------------------


def cite(file: str = "src/a.ts", start: int = 1, end: int | None = None, *, symbol: str | None = None,
         line: int = 1, version: str | None = None, path: Path = Path("D1.yaml")) -> Citation:
    record = CitationRecord(symbol, (end or start) - start + 1, "0" * 12) if symbol is not None else None
    return Citation(file, start, end or start, version, None, path, line, Span(0, 0), Span(0, 0), None, record)


def entry(entry_id: str, who: str | None = "code", *, question: str | None = None, kind: str = "decision",
          overrides: tuple[Override, ...] = (), upstream: Upstream | None = None,
          cites: tuple[Citation, ...] = ()) -> Entry:
    return Entry(id=entry_id, kind=kind, question=question or f"Who decides {entry_id}?",
                 decided_by=who if kind == "decision" else None, answer="Plain code decides." if kind == "decision"
                 else None, title=f"Problem {entry_id}" if kind == "problem" else None,
                 description="It breaks." if kind == "problem" else None, changed_by=(), checks=None, failures=(),
                 upstream=upstream, cites=cites, reviewed=None, path=Path(f"{entry_id}.yaml"), line=1,
                 overrides=overrides)


class MemoryTrees:
    """Source files by version, as :class:`generator.citations.verify.Trees` hands them out."""

    def __init__(self, files: dict[str, dict[str, str]]):
        self.files = files

    def file(self, version: str, path: str) -> SourceFile | None:
        text = self.files.get(version, {}).get(path)
        return SourceFile(path, text.encode()) if text is not None else None

    def symbol(self, version: str, path: str, first: int, last: int) -> str:
        return describe(self.file(version, path), first - 1, last - 1)


class LinkingMap:
    """What the prose filters need of a map's view: a link for each entry ID it holds."""

    def link(self, entry_id: str, base: str = "") -> tuple[str, str] | None:
        return (f"{base}{entry_id}.md#{entry_id.lower()}", f"Who decides {entry_id}?") if entry_id == "D1" else None


# --- environment.py: the escaping filters and the templates' helpers -------------------------------

HOSTILE = '<b>*a* é" D1</b>'


def render(kind: str, template: str, **values) -> str:
    return environment(kind).from_string(template).render(**values)


def test_every_plain_value_is_escaped_for_the_page_it_goes_to() -> None:
    assert render("site", "{{ x }}", x=HOSTILE) == '&lt;b&gt;&#42;a&#42; é" D1&lt;/b&gt;'
    assert render("markdown", "{{ x }}", x=HOSTILE) == '&lt;b&gt;\\*a\\* é" D1&lt;/b&gt;'
    # any kind but "site" is the download's
    assert render("other", "{{ x }}", x=HOSTILE) == '&lt;b&gt;\\*a\\* é" D1&lt;/b&gt;'
    assert render("site", "{{ x }}", x=Markup("<b>")) == "<b>"  # markup made by the templates stays
    assert render("site", "{{ x }} {{ y }}", x=3, y=None) == "3 None"


def test_macros_return_markup_that_is_not_escaped_twice() -> None:
    assert render("site", "{% macro b() %}<b>{% endmacro %}{{ b() }}") == "<b>"
    assert render("markdown", "{% macro b() %}<b>{% endmacro %}{{ b() }}") == "<b>"


def test_template_blocks_leave_no_stray_lines_or_indentation() -> None:
    assert render("site", "  {% if true %}A{% endif %}") == "A"
    assert render("site", "{% if true %}\nA{% endif %}") == "A"
    assert render("site", "A\n") == "A\n"


def test_an_undefined_value_is_an_error_not_an_empty_string() -> None:
    with pytest.raises(UndefinedError):
        render("site", "{{ missing }}")


def test_the_templates_folder_is_loaded() -> None:
    assert environment("site").get_template("_site.md.j2").module.pin  # the map's strip macro
    assert env_module.TEMPLATES.is_dir()


def test_prose_filters_link_entry_ids_on_the_site_only() -> None:
    text = "see D1 and D2.\n\nNext *p*"
    m = LinkingMap()
    link = '[D1](../d/D1.md#d1 "Who decides D1?"){ .dm-ref }'
    assert render("site", '{{ x|prose(m, "../d/") }}', x=text, m=m) == f"see {link} and D2. Next <em>p</em>"
    assert render("site", '{{ x|prose_block(m, "../d/") }}', x=text, m=m) == f"see {link} and D2.\n\nNext <em>p</em>"
    assert render("site", "{{ x|prose(m) }}", x=text, m=m).startswith('see [D1](D1.md#d1 "Who decides D1?")')
    assert render("site", "{{ x|prose_block(m) }}", x=text, m=m).startswith('see [D1](D1.md#d1 "Who')
    assert render("site", "{{ x|prose }}", x=text) == "see D1 and D2. Next <em>p</em>"
    assert render("site", "{{ x|prose_block }}", x=text) == "see D1 and D2.\n\nNext <em>p</em>"
    # the download has no pages to link to
    assert render("markdown", '{{ x|prose(m, "../d/") }}', x=text, m=m) == "see D1 and D2. Next *p*"
    assert render("markdown", '{{ x|prose_block(m, "../d/") }}', x=text, m=m) == "see D1 and D2.\n\nNext *p*"
    assert render("site", "{{ x|prose }}", x=HOSTILE) == '&lt;b&gt;<em>a</em> é" D1&lt;/b&gt;'


def test_plain_code_and_attribute_filters_escape_their_values() -> None:
    for kind in ("site", "markdown"):
        assert render(kind, "{{ x|plain }}", x=HOSTILE) == '&lt;b&gt;a é" D1&lt;/b&gt;'
        assert render(kind, "{{ x|html_attr }}", x=HOSTILE) == "&lt;b&gt;a é&quot; D1&lt;/b&gt;"
        assert render(kind, "{{ x|attr }}", x=HOSTILE) == "-b--a-----D1--b-"
        assert render(kind, "{{ x|front_matter_title }}", x=HOSTILE) == '"&lt;b&gt;a é&quot; D1&lt;/b&gt;"'
        assert render(kind, "{{ x|url }}", x="a b") == "a%20b"
    assert render("site", "{{ x|code }}", x=HOSTILE) == '<code>&lt;b&gt;&#42;a&#42; é" D1&lt;/b&gt;</code>'
    assert render("markdown", "{{ x|code }}", x=HOSTILE) == '`<b>*a* é" D1</b>`'
    assert render("site", "{{ x|code }}", x=7) == "<code>7</code>"
    assert render("markdown", "{{ x|code }}", x=7) == "`7`"
    assert render("site", "{{ x|plain }}", x="*a* `b`") == "a b"


def test_a_sentence_gets_its_full_stop_once() -> None:
    for said, shown in (("Done", "Done."), ("Done  ", "Done."), ("Done.", "Done."), ("Why?", "Why?"),
                        ("Wow!", "Wow&#33;"), ("", ""), ("Done. ", "Done.")):
        assert render("site", "{{ x|sentence }}", x=said) == shown


def test_holders_counts_and_ranges_are_worded_for_a_reader() -> None:
    assert render("site", "{{ 'none'|who_short }} {{ 'model'|who_short }}") == "Nobody AI model"
    assert render("site", "{{ 'person'|who_phrase }}; {{ 'code'|who_phrase }}") == "a person; plain code"
    assert render("site", "{{ 1|count('line') }}, {{ 2|count('entry', 'entries') }}") == "1 line, 2 entries"
    assert render("site", "{{ count(0, 'line') }}") == "0 lines"
    assert render("site", "{{ number_word(3) }} {{ span((4, 9)) }} {{ who_list(['code', 'person']) }}") == \
        "Three 4-9 plain code and a person"
    assert render("site", "{{ WHO|join(',') }} {{ VERDICTS|join(',') }}") == \
        "code,model,person rewritten,changed,moved,unchanged"
    assert render("site", "[{{ download_size }}]") == "[]"
    overrides = (Override("code", "an extension replaces it", can="replace the handler"),
                 Override("person", "presses Escape"))
    labels = "{% for by, label in o|overrule_labels('code') %}{{ by }}: {{ label }}; {% endfor %}"
    assert render("site", labels, o=overrides) == "code: Other code can replace the handler; person: Person can overrule; "
    assert render("site", "{% for by, label in o|overrule_labels %}{{ label }}{% endfor %}", o=overrides[:1]) == \
        "Plain code can replace the handler"


def test_code_is_fenced_longer_than_any_backtick_run_in_it() -> None:
    code = CitedCode(cite(), "https://x", "", "ts", 7, 9, "a\n```\nb")
    assert fence(code, True) == '````ts linenums="7"\na\n```\nb\n````'
    assert fence(code, False) == "````ts\na\n```\nb\n````"
    plain = CitedCode(cite(), "https://x", "", "js", 1, 1, "x = `y`")
    assert fence(plain, True) == '```js linenums="1"\nx = `y`\n```'
    long = CitedCode(cite(), "https://x", "", "js", 1, 1, "`````")
    assert fence(long, False) == "``````js\n`````\n``````"
    # on the site, numbered; in the download, not; and only the site marks the lines that differ
    before = CodeAt("1.0.0", 10, 12, "https://x", "ts", "a\nb\nc", (1, 3))
    assert render("site", "{{ c|fence }}", c=before) == '```ts linenums="10" hl_lines="1 3"\na\nb\nc\n```'
    assert render("site", "{{ c|fence(False) }}", c=before) == "```ts\na\nb\nc\n```"
    assert render("markdown", "{{ c|fence }}", c=before) == "```ts\na\nb\nc\n```"
    same = CodeAt("1.0.0", 10, 12, "https://x", "ts", "a", ())
    assert render("site", "{{ c|fence }}", c=same) == '```ts linenums="10"\na\n```'


def test_any_text_becomes_a_code_block_with_a_safe_language() -> None:
    assert render("site", "{{ t|block }}", t="x ```` y") == "`````text\nx ```` y\n`````"
    assert render("site", "{{ t|block('j s\"') }}", t="{}") == "```j-s-\n{}\n```"
    assert code_block("a", "json") == "```json\na\n```"


def test_urls_are_escaped_and_other_schemes_refused() -> None:
    assert url("https://a.example/b c(d)") == "https://a.example/b%20c%28d%29"
    assert url("x\ty<a>\"b'c`d\\e[f]g{h}i|j^k") == "x%09y%3Ca%3E%22b%27c%60d%5Ce%5Bf%5Dg%7Bh%7Di%7Cj%5Ek"
    assert url("HTTP://A.example/") == "HTTP://A.example/"
    assert url("../pi/D1.md#d1") == "../pi/D1.md#d1"
    assert url("#a://b") == "#a://b"
    assert url("../a://b") == "../a://b"
    assert url("D1.md") == "D1.md"
    for refused in ("ftp://x.example/", "javascript://x", "xhttps://y"):
        with pytest.raises(ValueError, match="refusing to link"):
            url(refused)


def test_attribute_values_keep_only_safe_characters() -> None:
    assert attribute("a b/c_D-1") == "a-b-c_D-1"
    assert html_attribute("x\"y'z<") == "x&quot;y&#39;z&lt;"


def test_sizes_ranges_counts_and_numbers_read_as_a_person_says_them() -> None:
    assert [file_size(n) for n in (0, 499, 1500, 902_400, 999_999, 1_000_000, 1_440_000)] == \
        ["1 KB", "1 KB", "2 KB", "902 KB", "1000 KB", "1.0 MB", "1.4 MB"]
    assert span((7, 7)) == "7" and span((7, 12)) == "7-12"
    assert count(1, "line") == "1 line" and count(2, "line") == "2 lines" and count(0, "entry", "entries") == "0 entries"
    assert count(1, "entry", "entries") == "1 entry"
    assert [number_word(n) for n in (0, 1, 10, 11, -1)] == ["No", "One", "Ten", "11", "-1"]
    assert who_list(["person"]) == "a person"
    assert who_list(["code", "person", "code"]) == "plain code and a person"
    assert who_list(["code", "model", "person"]) == "plain code, an AI model and a person"
    assert who_list(["team", "person", "model", "code"]) == "team, a person, an AI model and plain code"


# --- extensions.py: an extension pinned on npm, the index, the decisions each one changes -------------

GUARD_CODE = ("export default function (pi) {\n"
              "\tpi.on(\"tool_call\", (event) => {\r\n"
              "\t\treturn { block: true };\r\n"
              "\t});\n"
              "}\n")


def pinned_overlay(tmp_path: Path, *, probe: bool = False, editions: tuple[Edition, ...] = ()) -> Overlay:
    path = tmp_path / "extensions" / "guard.yaml"
    lever = OverlayLever("tool_call", "event", ("D1", "D2"), "Blocks every call.",
                         (cite("src/index.ts", 2, 4, symbol="default.pi.on", line=9, path=path),), line=8)
    runs = (Item("Runs `git`.", (cite("src/run.mjs", 1, 1, symbol="(top level)", line=14, path=path),), path, 13),)
    connects = (Item("Calls home.", (cite("src/run.mjs", 2, 2, line=16, path=path),), path, 15),)
    unchanged = (Item("Leaves the prompt alone.", (), path, 17),)
    shows = Probe("A call is blocked.", (("blocked", True),), path, 20) if probe else None
    return Overlay("guard", "@acme/pi-guard", "1.2.0", "Guards calls.", (), path, 1, integrity="sha512-abc",
                   levers=(lever,), runs=runs, connects=connects, unchanged=unchanged, probe=shows, editions=editions)


def guard_trees() -> MemoryTrees:
    return MemoryTrees({"1.2.0": {"src/index.ts": GUARD_CODE, "src/run.mjs": "spawn('git')\nfetch(url)\n"}})


def test_an_npm_extensions_levers_show_its_own_code_linked_where_npm_serves_it(tmp_path: Path) -> None:
    from generator.site.pages.extensions import npm_view

    overlay = pinned_overlay(tmp_path)
    view = npm_view(overlay, extension_map(overlay.package, overlay.version, integrity=overlay.integrity,
                                           overlay=overlay), guard_trees())
    (lever,) = view.levers
    assert (lever.text, lever.lever, lever.kind, lever.decisions) == ("Blocks every call.", "tool_call", "event",
                                                                     ("D1", "D2"))
    (code,) = lever.code
    # tabs as four spaces, the common indentation and the carriage returns gone
    assert code.code == 'pi.on("tool_call", (event) => {\n    return { block: true };\n});'
    assert (code.start, code.end, code.language, code.symbol) == (2, 4, "ts", "default.pi.on")
    assert code.permalink == "https://unpkg.com/@acme/pi-guard@1.2.0/src/index.ts"
    assert code.citation is overlay.levers[0].cites[0]
    (run,) = view.runs
    assert run.text == "Runs `git`." and run.code[0].code == "spawn('git')"
    assert run.code[0].symbol == ""  # the top level of the file is not named as a declaration
    assert run.code[0].language == "js" and run.code[0].permalink.endswith("/src/run.mjs")
    assert run.lever == "" and run.kind == "" and run.decisions == ()
    (connect,) = view.connects
    assert connect.text == "Calls home." and connect.code[0].code == "fetch(url)" and connect.code[0].symbol == ""
    assert [(i.text, i.code) for i in view.unchanged] == [("Leaves the prompt alone.", ())]
    assert view.package == "@acme/pi-guard" and view.version == "1.2.0"
    assert view.npm_url == "https://www.npmjs.com/package/@acme/pi-guard/v/1.2.0"
    assert view.citation_count == 3
    assert view.probe is None and view.editions == ()


def test_an_npm_extensions_probe_and_releases_reach_its_page(tmp_path: Path) -> None:
    from generator.site.pages.extensions import npm_view

    edition = Edition("1.0.0", "1.2.0", "2026-03-01", (), tmp_path / "editions" / "1.0.0-to-1.2.0.yaml")
    overlay = pinned_overlay(tmp_path, probe=True, editions=(edition,))
    result = SimpleNamespace(status="holds", version="1.2.0", result={"blocked": True}, seconds=1.5, message="")
    view = npm_view(overlay, extension_map(overlay.package, overlay.version, integrity=overlay.integrity,
                                           overlay=overlay), guard_trees(), result)
    assert view.probe is not None and view.probe.status == "holds" and view.probe.entry_id == "guard"
    assert [x.slug for x in view.editions] == ["1.0.0-to-1.2.0"]
    assert view.edition_page(view.editions[0]) == "guard/editions/1.0.0-to-1.2.0.md"
    unnamed = Overlay("x", None, None, None, (), tmp_path / "x.yaml", 1)
    assert npm_view(unnamed, extension_map("x", "1"), guard_trees()).package == ""
    assert npm_view(unnamed, extension_map("x", "1"), guard_trees()).version == ""


def change(decision: str | None, related: tuple[str, ...] = (), overridden: tuple[str, ...] = ()) -> OverlayChange:
    return OverlayChange(decision, None if decision else "A new question?", related, "It asks.",
                         Side("code", "Runs."), Side("person", "Asks."), 1, overridden)


def overlay(name: str, *, pinned: bool = True, levers: tuple[tuple[str, tuple[str, ...]], ...] = (),
            changes: tuple[OverlayChange, ...] = ()) -> Overlay:
    return Overlay(name, f"pkg-{name}", "1.0.0", None, changes, Path(f"{name}.yaml"), 1,
                   integrity="sha512-x" if pinned else None,
                   levers=tuple(OverlayLever(lever, "event", decisions, "It does.", (), 1) for lever, decisions in levers))


def small_map(*overlays: Overlay, entries: tuple[Entry, ...] = ()) -> DecisionMap:
    return DecisionMap("demo", Path("decisions/demo"), "Demo", "https://example.org/demo", "1.0.0",
                       Source(), None, (), (), None, entries=entries, overlays=overlays)


def test_a_decision_page_lists_the_npm_extensions_that_change_it_with_their_levers() -> None:
    from generator.site.pages.extensions import npm_changing

    b = overlay("b-ext", levers=(("tool_call", ("D1", "D2")), ("input", ("D1",)), ("tool_call", ("D1",))),
                changes=(change("D3"), change(None, related=("D4",))))
    a = overlay("a-ext", levers=(("context", ("D1",)),))
    unpinned = overlay("0-ext", pinned=False, levers=(("context", ("D1",)),), changes=(change("D1"),))
    found = npm_changing(small_map(b, unpinned, a))
    assert {d: [(o.extension, levers) for o, levers in rows] for d, rows in found.items()} == {
        "D1": [("a-ext", ("context",)), ("b-ext", ("tool_call", "input"))],
        "D2": [("b-ext", ("tool_call",))],
        "D3": [("b-ext", ())],  # changed in its overlay, through no lever of its own
    }


def test_the_extensions_index_sorts_each_extensions_decisions_by_group_and_number() -> None:
    from generator.site.pages.extensions import index_rows

    view = SimpleNamespace(groups=[SimpleNamespace(id=g) for g in "CFG"],
                           overlays=[SimpleNamespace(overlay=overlay("guard"), decisions=("G10", "C2", "G2", "C1")),
                                     SimpleNamespace(overlay=overlay("none"), decisions=())])
    guard, none = index_rows(view)
    assert guard.by_group == {"C": ("C1", "C2"), "F": (), "G": ("G2", "G10")}
    assert guard.decisions == ("C1", "C2", "G2", "G10")
    assert guard.groups == "CG" and guard.name == "guard"
    assert none.decisions == () and none.groups == "" and none.name == "none"


# --- editions.py: each entry's verdict, and the code before and after ---------------------------------

A_V1 = """export function keep(a) {
  return a + 1;
}

export function change(x) {
  const y = x * 2;
  return y;
}
"""
A_V2 = """// a header
// added
export function change(x) {
    const y = x * 3;
    return y;
  log(y);

}
"""
B_V2 = """export function keep(a) {
  return a + 1;
}
"""
OLD_ONLY = "export const gone = 1;\nexport const also = 2;\n"
EDITION_TREES = {"0.9.0": {"src/old.ts": OLD_ONLY},
                 "1.0.0": {"src/a.ts": A_V1, "src/gone.ts": OLD_ONLY},
                 "2.0.0": {"src/a.ts": A_V2, "src/b.ts": B_V2}}


def row(entry_id: str, file: str, old: tuple[int, int], new: tuple[int, int] | None, status: str, claim: str,
        *, checked_at: str = "1.0.0", new_file: str | None = None) -> EditionCitation:
    return EditionCitation(entry_id, file, old, new, checked_at, status, claim, 1, new_file)


def edition_map(*, upstream: Upstream | None = None, source: Source = Source(), rewritten: bool = True,
                settled: tuple[tuple[str, str], ...] = (), date: str = "2026-03-01") -> DecisionMap:
    from generator.release.bump import claim_digest

    entries = {e.id: e for e in (
        entry("D1", cites=(cite(), cite(start=2))), entry("D2", cites=(cite(), cite(), cite())),
        entry("G1", "model", cites=(cite(),)), entry("G2", "model", cites=(cite(),)),
        entry("P1", kind="problem", upstream=upstream, cites=(cite(),)), entry("D5", cites=(cite(), cite())))}
    claim = {i: claim_digest(e) for i, e in entries.items()}
    rows = (row("D1", "src/a.ts", (5, 8), (3, 8), "changed", claim["D1"]),  # its code edited
            row("D1", "src/a.ts", (1, 3), (1, 3), "changed", claim["D1"], new_file="src/b.ts"),  # moved to b.ts
            row("D2", "src/a.ts", (1, 3), (4, 6), "moved", claim["D2"]),
            row("D2", "src/a.ts", (5, 5), (7, 7), "moved", claim["D2"]),
            row("D2", "src/b.ts", (1, 1), (1, 1), "ok", claim["D2"]),
            row("G1", "src/gone.ts", (1, 1), None, "missing", claim["G1"] if not rewritten else "old claim"),
            row("G2", "src/a.ts", (1, 1), (1, 1), "ok", "old words" if rewritten else claim["G2"]),
            row("P1", "src/old.ts", (1, 9), (1, 1), "changed", claim["P1"], checked_at="0.9.0"),
            row("D9", "src/a.ts", (1, 1), (1, 1), "ok", "left"))
    older = Edition("0.9.0", "1.0.0", "2026-01-01", (), Path("editions/0.9.0-to-1.0.0.yaml"))
    latest = Edition("1.0.0", "2.0.0", date, rows, Path("editions/1.0.0-to-2.0.0.yaml"),
                     probes=(SimpleNamespace(id="D1", before="holds", after="fails"),), settled=settled,
                     before=(("G1", "It used to stop."), ("G2", "Other words.")))
    return DecisionMap("demo", Path("decisions/demo"), "Demo", "https://github.com/o/r/", "2.0.0", source, None,
                       (), (), None, entries=tuple(entries.values()), editions=(older, latest))


def latest_edition(decision_map: DecisionMap):
    from generator.site.pages.editions import edition_views

    views = edition_views(decision_map, MemoryTrees(EDITION_TREES))
    assert [v.slug for v in views] == ["1.0.0-to-2.0.0", "0.9.0-to-1.0.0"]  # newest first
    return views[0]


def test_an_edition_gives_each_entry_its_verdict_in_the_order_of_its_rows() -> None:
    x = latest_edition(edition_map())
    assert [(v.id, v.verdict.verdict, v.kind) for v in x.entries] == [
        ("D1", "changed", "decision"), ("D2", "moved", "decision"), ("G1", "rewritten", "decision"),
        ("G2", "rewritten", "decision"), ("P1", "changed", "problem"), ("D9", "removed", "decision")]
    assert x.page == "editions/1.0.0-to-2.0.0.md" and x.entry("G2").anchor == "g2" and x.entry("X1") is None
    assert [v.id for v in x.of("rewritten")] == ["G1", "G2"]
    assert x.count("changed") == 2 and x.count("changed", "problem") == 1 and x.count("changed", "decision") == 1
    assert x.count("removed") == 1 and x.count("unchanged") == 0
    assert x.statuses() == {"changed": 3, "moved": 2, "ok": 3, "missing": 1}
    # re-written because its code changed (G1: its file is gone), or for its wording alone (G2)
    assert [v.id for v in x.differently] == ["G1"] and [v.id for v in x.reworded] == ["G2"]
    assert x.entry("G1").before == "It used to stop." and x.entry("D1").before is None
    assert x.entry("D1").probe == ("holds", "fails") and x.entry("D2").probe is None
    assert not any(v.edited_since for v in x.entries)
    # the moved citations, by file in the order they first appear
    assert [(f, [r.new for r in rows]) for f, rows in x.entry("D2").moves] == [("src/a.ts", [(4, 6), (7, 7)])]
    assert x.entry("D1").changed_code == (("a.ts", "change"), ("b.ts", "keep"))


def test_a_drifted_citation_shows_its_old_and_new_code_with_the_lines_that_differ() -> None:
    x = latest_edition(edition_map())
    edited, elsewhere = x.entry("D1").drifts
    before, after = edited.before, edited.after
    assert (before.version, before.start, before.end, before.lines, before.line_count) == ("1.0.0", 5, 8, "lines 5-8", 4)
    assert before.code == "export function change(x) {\n  const y = x * 2;\n  return y;\n}"
    assert before.differs == (2,)  # `return y;` only re-indented: the same code
    assert (after.version, after.start, after.end, after.language) == ("2.0.0", 3, 8, "ts")
    assert after.code == "export function change(x) {\n    const y = x * 3;\n    return y;\n  log(y);\n\n}"
    assert after.differs == (2, 4)  # the changed line and the added one; the added blank line is never marked
    assert before.permalink == "https://github.com/o/r/blob/v1.0.0/src/a.ts#L5-L8"
    assert after.permalink == "https://github.com/o/r/blob/v2.0.0/src/a.ts#L3-L8"
    assert edited.symbol == "change" and edited.file_after == "src/a.ts"
    # code that went to another file: read there, linked there
    assert elsewhere.file_after == "src/b.ts" and elsewhere.after.code == B_V2.rstrip("\n")
    assert elsewhere.after.permalink == "https://github.com/o/r/blob/v2.0.0/src/b.ts#L1-L3"
    assert elsewhere.before.differs == () and elsewhere.after.differs == ()


def test_code_that_is_gone_or_unreadable_is_said_to_be_so() -> None:
    x = latest_edition(edition_map())
    (gone,) = x.entry("G1").drifts
    assert gone.after is None and gone.before.differs == ()  # nothing to compare against: nothing marked
    assert gone.before.lines == "line 1" and gone.before.line_count == 1
    assert gone.before.permalink == "https://github.com/o/r/blob/v1.0.0/src/gone.ts#L1"
    (short,) = x.entry("P1").drifts
    # the old range is read where it was last checked (0.9.0), which is before `from` (1.0.0); a range
    # longer than the file is shown as far as it goes, without naming a declaration
    assert short.before.version == "0.9.0" and short.before.code == OLD_ONLY.rstrip("\n")
    assert short.symbol == "" and short.after is None and short.before.differs == ()
    missing = SimpleNamespace(verdict=SimpleNamespace(drifted=(row("D1", "src/none.ts", (1, 1), None, "missing",
                                                                  "c"),)))
    from generator.site.pages.editions import drift_views

    (unread,) = drift_views(edition_map(), MemoryTrees(EDITION_TREES), edition_map().editions[1], missing.verdict)
    assert unread.before is None and unread.after is None and unread.symbol == ""


def test_a_problem_whose_code_changed_asks_for_a_recheck_unless_it_is_settled() -> None:
    open_ = latest_edition(edition_map())
    assert [v.id for v in open_.rechecks] == ["P1"] and open_.rechecked == ()
    assert open_.settled(open_.entry("D1")) is None
    fixed = latest_edition(edition_map(upstream=Upstream(7, "closed", "2026-01-01", fixed_in="2.0.0")))
    assert fixed.rechecks == () and [v.id for v in fixed.rechecked] == ["P1"]
    assert fixed.settled(fixed.entry("P1")) == "fixed"
    on_the_day = latest_edition(edition_map(upstream=Upstream(7, "open", "2026-03-01")))
    assert on_the_day.settled(on_the_day.entry("P1")) == "checked" and on_the_day.rechecks == ()
    before = latest_edition(edition_map(upstream=Upstream(7, "open", "2026-02-28")))
    assert before.settled(before.entry("P1")) is None and [v.id for v in before.rechecks] == ["P1"]
    removed = latest_edition(edition_map())
    assert removed.settled(removed.entry("D9")) is None


def test_an_entry_edited_after_its_edition_was_settled_says_so() -> None:
    from generator.release.bump import claim_digest

    d2 = entry("D2", cites=(cite(), cite(), cite()))
    x = latest_edition(edition_map(settled=(("D1", "what it said then"), ("D2", claim_digest(d2)))))
    assert x.entry("D1").edited_since and not x.entry("D2").edited_since


def test_the_edition_says_how_its_citations_relate_to_the_maps_today() -> None:
    x = latest_edition(edition_map())
    cov = x.coverage
    assert (cov.at_bump, cov.now) == (9, 10)
    assert cov.added_entries == (("D5", 2),) and cov.removed_entries == (("D9", 1),)
    assert cov.changed_in_entries == 0 - 1 + 1 + 0 + 0 + 0  # D1 2→2, D2 3→3, G1 1→1, G2 1→1, P1 1→1
    assert not cov.same
    from generator.site.pages.editions import Coverage

    assert Coverage(3, 3, (), (), 0).same and not Coverage(3, 4, (), (), 1).same
    assert not Coverage(3, 3, (("D5", 1),), (("D6", 1),), 0).same and not Coverage(3, 3, (), (("D6", 1),), 1).same


def test_the_code_of_an_extension_pinned_on_npm_links_to_its_file_on_npm() -> None:
    from generator.site.pages.editions import file_url, language, permalink

    shipped = edition_map(source=Source(npm=(NpmPackage("other", "", shipped=False),
                                             NpmPackage("@s/p", "", shipped=True))))
    assert permalink(shipped, "src/a b.ts", "2.0.0+b", (3, 7)) == "https://unpkg.com/@s/p@2.0.0%2Bb/src/a%20b.ts"
    unshipped = edition_map(source=Source(npm=(NpmPackage("other", "", shipped=False),)))
    assert permalink(unshipped, "src/a.ts", "2.0.0", (3, 3)) == "https://github.com/o/r/blob/v2.0.0/src/a.ts#L3"
    assert file_url("@s/p q", "1", "x.js") == "https://unpkg.com/@s/p%20q@1/x.js"
    assert [language(p) for p in ("a.TS", "a.mts", "a.cts", "a.tsx", "a.js", "a.mjs", "a.cjs", "a.jsx", "a.json",
                                  "a.md", "Makefile", "dir.ts/a")] == [
        "ts", "ts", "ts", "tsx", "js", "js", "js", "jsx", "json", "text", "text", "text"]
