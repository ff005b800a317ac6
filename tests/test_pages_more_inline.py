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
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import UndefinedError
from markupsafe import Markup

from conftest import give_up_sooner
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
    assert render("site", labels, o=overrides) == \
        "code: Other code can replace the handler; person: Person can overrule; "
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
    assert url("a/b:c") == "a/b:c"  # a colon after a slash is in the path, not a scheme
    for refused in ("ftp://x.example/", "javascript://x", "xhttps://y", "javascript:alert(1)", "JavaScript:x",
                    "data:text/html,x", "vbscript:x", "https:x", "a+b.c-d:e"):
        with pytest.raises(ValueError, match="refusing to link"):
            url(refused)


def test_attribute_values_keep_only_safe_characters() -> None:
    assert attribute("a b/c_D-1") == "a-b-c_D-1"
    assert html_attribute("x\"y'z<") == "x&quot;y&#39;z&lt;"


def test_sizes_ranges_counts_and_numbers_read_as_a_person_says_them() -> None:
    assert [file_size(n) for n in (0, 499, 1500, 902_400, 999_999, 1_000_000, 1_440_000, 2_350_000)] == \
        ["1 KB", "1 KB", "2 KB", "902 KB", "1000 KB", "1.0 MB", "1.4 MB", "2.4 MB"]  # megabytes of 10^6 bytes
    assert span((7, 7)) == "7" and span((7, 12)) == "7-12"
    assert count(1, "line") == "1 line" and count(2, "line") == "2 lines"
    assert count(0, "entry", "entries") == "0 entries"
    assert count(1, "entry", "entries") == "1 entry"
    assert [number_word(n) for n in (*range(12), -1)] == ["No", "One", "Two", "Three", "Four", "Five", "Six",
                                                           "Seven", "Eight", "Nine", "Ten", "11", "-1"]
    assert who_list(["person"]) == "a person"
    assert who_list(["code", "person", "code"]) == "plain code and a person"
    assert who_list(["code", "model", "person"]) == "plain code, an AI model and a person"
    assert who_list(["team", "person", "model", "code"]) == "team, a person, an AI model and plain code"


# --- extensions.py: an extension pinned on npm, the index, the decisions each one changes -------------

GUARD_CODE = ("export default function (pi) {\n"
              "\tpi.on(\"tool_call\", (event) => {\r\n"
              "\t\treturn { block: true }; // X\r\n"
              "\t});  \n"
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
    return MemoryTrees({"1.2.0": {"src/index.ts": GUARD_CODE, "src/run.mjs": "spawn('git')\nfetch(url)\n"},
                        "1.0.0": {"src/index.ts": GUARD_CODE.replace("true", "false")}})


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
    assert code.code == 'pi.on("tool_call", (event) => {\n    return { block: true }; // X\n});  '  # as written
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

    moved = EditionCitation("guard", "src/index.ts", (2, 4), (2, 4), "1.0.0", "changed", "claim", 1)
    edition = Edition("1.0.0", "1.2.0", "2026-03-01", (moved,), tmp_path / "editions" / "1.0.0-to-1.2.0.yaml")
    overlay = pinned_overlay(tmp_path, probe=True, editions=(edition,))
    result = SimpleNamespace(status="holds", version="1.2.0", result={"blocked": True}, seconds=1.5, message="")
    view = npm_view(overlay, extension_map(overlay.package, overlay.version, integrity=overlay.integrity,
                                           overlay=overlay), guard_trees(), result)
    assert view.probe is not None and view.probe.status == "holds" and view.probe.entry_id == "guard"
    assert [x.slug for x in view.editions] == ["1.0.0-to-1.2.0"]
    assert view.edition_page(view.editions[0]) == "guard/editions/1.0.0-to-1.2.0.md"
    # its edition page shows the code before and after, from npm's copy of each release
    (drift,) = view.editions[0].entries[0].drifts
    assert "block: false" in drift.before.code and "block: true" in drift.after.code
    assert drift.before.differs == drift.after.differs == (2,)
    assert drift.before.permalink == "https://unpkg.com/@acme/pi-guard@1.0.0/src/index.ts"
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
                   levers=tuple(OverlayLever(lever, "event", decisions, "It does.", (), 1)
                                for lever, decisions in levers))


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
        entry("D1", cites=(cite(), cite(start=2))), entry("D2", cites=(cite(), cite(), cite(), cite())),
        entry("G1", "model", cites=(cite(),)), entry("G2", "model", cites=(cite(),)),
        entry("P1", kind="problem", upstream=upstream, cites=(cite(),)), entry("D5", cites=(cite(), cite())))}
    claim = {i: claim_digest(e) for i, e in entries.items()}
    rows = (row("D1", "src/a.ts", (5, 8), (3, 8), "changed", claim["D1"]),  # its code edited
            row("D1", "src/a.ts", (1, 3), (1, 2), "changed", claim["D1"], new_file="src/b.ts"),  # to b.ts, a line less
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
    assert (before.version, before.start, before.end, before.lines, before.line_count) == \
        ("1.0.0", 5, 8, "lines 5-8", 4)
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
    assert elsewhere.after.permalink == "https://github.com/o/r/blob/v2.0.0/src/b.ts#L1-L2"
    assert elsewhere.before.differs == (2,) and elsewhere.after.differs == ()  # a line deleted


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

    d2 = entry("D2", cites=(cite(), cite(), cite(), cite()))
    x = latest_edition(edition_map(settled=(("D1", "what it said then"), ("D2", claim_digest(d2)))))
    assert x.entry("D1").edited_since and not x.entry("D2").edited_since


def test_the_edition_says_how_its_citations_relate_to_the_maps_today() -> None:
    x = latest_edition(edition_map())
    cov = x.coverage
    assert (cov.at_bump, cov.now) == (9, 11)
    assert cov.added_entries == (("D5", 2),) and cov.removed_entries == (("D9", 1),)
    assert cov.changed_in_entries == 1  # D2 cites one line more than it did; the others as many
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
    from dataclasses import replace

    assert permalink(replace(unshipped, repo="https://example.org/X/"), "a.ts", "2.0.0", (3, 4)) == \
        "https://example.org/X/blob/v2.0.0/a.ts#L3-L4"
    assert file_url("@s/p q", "1", "x.js") == "https://unpkg.com/@s/p%20q@1/x.js"
    assert [language(p) for p in ("a.TS", "a.mts", "a.cts", "a.tsx", "a.js", "a.mjs", "a.cjs", "a.jsx", "a.json",
                                  "a.md", "Makefile", "dir.ts/a")] == [
        "ts", "ts", "ts", "tsx", "js", "js", "js", "jsx", "json", "text", "text", "text"]


# --- diagram.py: the loop, each decision a tile linking to its page --------------------------------

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN_RING = Path(__file__).parent / "golden" / "loop-ring.html"


def card(e: Entry):
    from generator.site.pages.views import Card

    return Card(e, e.id.lower(), (), ())


def group(group_id: str, title: str, *entries: Entry):
    from generator.site.pages.views import GroupView

    return GroupView(group_id, title, None, tuple(card(e) for e in entries))


def pi_like_groups():
    """Five stages, as pi's map has them: a start, a loop of three, an end."""
    return (group("S", "Start, the run", entry("S1")),
            group("N", "Next step", *(entry(f"N{i}", "model") for i in range(1, 6))),
            group("P", "Permission: asked", entry("P1", "person", overrides=(
                Override("person", "presses Escape", can="stop the run"), Override("code", "a hook")))),
            group("T", "Tools", entry("T1", None)),
            group("E", "End", entry("E1")))


def loop(groups, **options) -> str:
    from generator.site.pages.diagram import loop_diagram

    options.setdefault("name", "t")
    options.setdefault("caption", "How a run goes.")
    return loop_diagram(groups, lambda c: f"../pi/{c.id}.md", **options)


def drawings(figure: str) -> dict[str, ET.Element]:
    """Each drawing of a figure by kind ("wide", "narrow"), parsed."""
    found = re.findall(r'<svg class="dm-loop__svg dm-loop__svg--(\w+)".*?</svg>', figure, re.DOTALL)
    return {kind: ET.fromstring(svg) for kind, svg in zip(found, re.findall(
        r'<svg class="dm-loop__svg .*?</svg>', figure, re.DOTALL))}


def boxes(svg: ET.Element) -> dict[str, tuple[float, float, float, float]]:
    """Each stage's box (x, y, width, height) by its title."""
    out = {}
    for stage in svg.iter(f"{SVG}g"):
        if stage.get("class") == "dm-stage":
            rect = stage.find(f"{SVG}rect")
            title = stage.find(f"{SVG}text").text
            out[title] = tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))
    return out


def tiles(svg: ET.Element) -> dict[str, dict]:
    """Each decision's tile: its link, name, shape and the box its shape fills."""
    out = {}
    for a in svg.iter(f"{SVG}a"):
        shape = a[1]  # after its <title>
        label = a.find(f"{SVG}text")
        out[label.text] = {"href": a.get("href"), "class": a.get("class"), "name": a.get("aria-label"),
                           "title": a.find(f"{SVG}title").text, "shape": shape,
                           "marks": [m.get("class") for m in a[3:]]}
    return out


def shape_box(shape: ET.Element) -> tuple[float, float, float, float]:
    if shape.tag == f"{SVG}rect":
        return tuple(float(shape.get(k)) for k in ("x", "y", "width", "height"))
    xs, ys = zip(*(map(float, p.split(",")) for p in shape.get("points").split()))
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def inside(inner, outer) -> bool:
    return (outer[0] <= inner[0] and inner[0] + inner[2] <= outer[0] + outer[2]
            and outer[1] <= inner[1] and inner[1] + inner[3] <= outer[1] + outer[3])


def apart(a, b) -> bool:
    return a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]


def arrows(svg: ET.Element) -> list[tuple[str, list[tuple[float, float]]]]:
    group_ = next(g for g in svg.iter(f"{SVG}g") if g.get("class") == "dm-loop__arrows")
    return [(p.get("class"), [tuple(map(float, xy.split(","))) for xy in p.get("points").split()])
            for p in group_ if p.tag == f"{SVG}polyline"]


def on_edge(point, box) -> bool:
    x, y = point
    bx, by, bw, bh = box
    return ((x in (bx, bx + bw) and by <= y <= by + bh) or (y in (by, by + bh) and bx <= x <= bx + bw))


def test_the_loop_figure_matches_its_golden_file() -> None:
    """The ring and the stacked drawing of a five-stage map, exactly (regenerate with
    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_pages_more_inline.py, then read the diff)."""
    import os

    figure = loop(pi_like_groups(), table="#at-a-glance")
    if os.environ.get("UPDATE_GOLDEN"):
        if not GOLDEN_RING.is_file() or GOLDEN_RING.read_text(encoding="utf-8") != figure:
            GOLDEN_RING.write_text(figure, encoding="utf-8")
            pytest.fail("UPDATE_GOLDEN=1 rewrote tests/golden/loop-ring.html; read its diff", pytrace=False)
        return
    assert figure == GOLDEN_RING.read_text(encoding="utf-8"), (
        "the loop figure differs from tests/golden/loop-ring.html; if intended, regenerate it with "
        "UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_pages_more_inline.py")


def test_every_decision_is_a_tile_linking_to_its_page_in_both_drawings() -> None:
    figure = loop(pi_like_groups(), table="#at-a-glance")
    assert figure.startswith('<figure class="dm-loop dm-loop--ring" id="dm-loop-t" data-search-exclude>\n'
                             '<a class="dm-skip" href="#dm-loop-t-caption">Skip the drawing\u2019s 9 links</a>\n')
    assert figure.endswith(' <a href="#at-a-glance">The same decisions as a table</a>.</figcaption>\n</figure>')
    assert '<figcaption id="dm-loop-t-caption">How a run goes. <span class="dm-legend">' in figure
    found = drawings(figure)
    assert list(found) == ["wide", "narrow"]
    for kind, svg in found.items():
        assert svg.get("aria-describedby") == "dm-loop-t-caption"
        assert svg.get("aria-label") == "The loop with each decision in its place"
        shown = tiles(svg)
        assert sorted(shown) == ["E1", "N1", "N2", "N3", "N4", "N5", "P1", "S1", "T1"]
        assert all(t["href"] == f"../pi/{i}.md" for i, t in shown.items())
        assert shown["N1"]["class"] == "dm-node dm-node--model" and shown["T1"]["class"] == "dm-node dm-node--none"
        assert shown["S1"]["name"] == shown["S1"]["title"] == "S1: Who decides S1? Decided by plain code."
        assert shown["T1"]["name"] == "T1: Who decides T1? Decided by nobody."
        assert shown["P1"]["name"] == ("P1: Who decides P1? Decided by a person; a person can stop the run; "
                                       "plain code can overrule.")
        assert shown["P1"]["marks"] == ["dm-dot dm-dot--person", "dm-dot dm-dot--code"]
        labels = [g.get("aria-label") for g in svg.iter(f"{SVG}g") if g.get("class") == "dm-stage"]
        assert labels == ["Stage 1 of 5: Start, 1 decision", "Stage 2 of 5: Next step, 5 decisions",
                          "Stage 3 of 5: Permission, 1 decision", "Stage 4 of 5: Tools, 1 decision",
                          "Stage 5 of 5: End, 1 decision"]
        abouts = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "dm-stage__about"]
        assert abouts == ["S · 1 decision", "N · 5 decisions", "P · 1 decision", "T · 1 decision",
                          "E · 1 decision"]


def test_who_decides_is_told_by_each_tiles_shape_as_well_as_its_colour() -> None:
    shown = tiles(drawings(loop(pi_like_groups()))["wide"])
    code, model, person, nobody = (shown[i]["shape"] for i in ("S1", "N1", "P1", "T1"))
    assert code.tag == f"{SVG}rect" and code.get("rx") == "1" and code.get("class") == "dm-shape dm-shape--code"
    assert model.tag == f"{SVG}rect" and float(model.get("rx")) == float(model.get("height")) / 2
    assert person.tag == f"{SVG}polygon" and len(person.get("points").split()) == 6  # pointed at both ends
    x, y, w, h = shape_box(person)
    points = [tuple(map(float, p.split(","))) for p in person.get("points").split()]
    assert (x, y + h / 2) in points and (x + w, y + h / 2) in points and (x + 7, y) in points
    assert nobody.tag == f"{SVG}rect" and nobody.get("rx") == "5" and nobody.get("class") == "dm-shape dm-shape--none"
    # each tile the same size, its ID centred in it
    sizes = {shape_box(t["shape"])[2:] for t in shown.values()}
    assert sizes == {(46.0, 28.0)}


def test_the_tiles_sit_inside_their_stage_without_overlapping() -> None:
    for kind, svg in drawings(loop(pi_like_groups())).items():
        stage_boxes = boxes(svg)
        assert all(apart(a, b) for a in stage_boxes.values() for b in stage_boxes.values() if a is not b), kind
        width, height = float(svg.get("width")), float(svg.get("height"))
        assert svg.get("viewBox") == f"0 0 {svg.get('width')} {svg.get('height')}"
        assert all(inside(b, (0, 0, width, height)) for b in stage_boxes.values())
        shown = tiles(svg)
        by_stage = {"Start": ["S1"], "Next step": [f"N{i}" for i in range(1, 6)], "Permission": ["P1"],
                    "Tools": ["T1"], "End": ["E1"]}
        for stage, ids in by_stage.items():
            box = stage_boxes[stage]
            for i in ids:
                tile = shape_box(shown[i]["shape"])
                assert inside(tile, box), (kind, i)
                assert tile[1] >= box[1] + 46  # below the stage's title and count
            tile_boxes = [shape_box(shown[i]["shape"]) for i in ids]
            assert all(apart(a, b) for a in tile_boxes for b in tile_boxes if a is not b)
        # the tiles of a stage in reading order: left to right, then the next row
        n = [shape_box(shown[f"N{i}"]["shape"]) for i in range(1, 6)]
        assert n[0][1] == n[1][1] and n[0][0] < n[1][0]
        if kind == "wide":  # four to a row
            assert n[4][1] > n[0][1] and n[4][0] == n[0][0]  # the fifth starts a second row
            assert n[3][1] == n[0][1]
        else:  # as many as the phone's width holds: six
            assert n[4][1] == n[0][1] and n[4][0] > n[3][0]
    assert float(drawings(loop(pi_like_groups()))["narrow"].get("width")) <= 360  # legible on a phone


def test_the_wide_drawing_is_a_ring_from_start_round_the_loop_to_the_end() -> None:
    svg = drawings(loop(pi_like_groups()))["wide"]
    b = boxes(svg)
    start, nxt, permission, tools, end = (b[s] for s in ("Start", "Next step", "Permission", "Tools", "End"))
    # top row left to right: start, then the loop's first half; the end bottom left; the rest of
    # the loop on the bottom row, right to left
    assert start[1] == nxt[1] == permission[1] and start[0] < nxt[0] < permission[0]
    assert tools[1] == end[1] > start[1] and end[0] == start[0] and tools[0] == permission[0]
    assert len({box[2] for box in b.values()}) == 1  # one width for every stage
    assert start[3] == nxt[3] == permission[3] and tools[3] == end[3]
    assert tools[1] - (start[1] + start[3]) == 64 and nxt[0] - (start[0] + start[2]) == 52  # room for the arrows
    found = arrows(svg)
    assert [kind for kind, _ in found] == ["dm-loop__flow", "dm-loop__flow", "dm-loop__flow", "dm-loop__return",
                                           "dm-loop__exit"]
    into, across, down, back, out = (points for _, points in found)
    assert on_edge(into[0], start) and on_edge(into[-1], nxt) and into[0][1] == into[-1][1] == start[1] + 23
    assert on_edge(across[0], nxt) and on_edge(across[-1], permission)
    assert down == [(permission[0] + permission[2] / 2, permission[1] + permission[3]),
                    (tools[0] + tools[2] / 2, tools[1])]
    assert on_edge(back[0], tools) and on_edge(back[-1], nxt) and back[-1][1] == nxt[1] + nxt[3]  # up into the loop
    assert out == [(nxt[0] + 18, nxt[1] + nxt[3]), (end[0] + end[2] - 18, end[1])]
    notes = {t.text: t for t in svg.iter(f"{SVG}text") if t.get("class") == "dm-loop__note"}
    assert set(notes) == {"each turn", "the run ends"}
    assert notes["the run ends"].get("text-anchor") == "end" and notes["each turn"].get("text-anchor") == "start"
    assert float(notes["each turn"].get("x")) == (back[0][0] + back[-1][0]) / 2 + 8


def test_every_arrow_ends_in_a_head_pointing_along_it() -> None:
    for svg in drawings(loop(pi_like_groups())).values():
        heads = [p for p in svg.iter(f"{SVG}polygon") if p.get("class", "").endswith("-head")]
        lines = arrows(svg)
        assert len(heads) == len(lines)
        for (kind, points), head in zip(lines, heads):
            assert head.get("class") == f"{kind}-head"
            tip, left, right = (tuple(map(float, p.split(","))) for p in head.get("points").split())
            (x1, y1), (x2, y2) = points[-2], points[-1]
            assert tip == (round(x2, 1), round(y2, 1))
            # the two barbs behind the tip, one on each side of the line, 8 units back
            back = ((left[0] + right[0]) / 2, (left[1] + right[1]) / 2)
            length = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
            along = ((x2 - back[0]) * (x2 - x1) + (y2 - back[1]) * (y2 - y1)) / length
            assert 7 < along < 8
            side = lambda p: (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)  # noqa: E731
            assert side(left) * side(right) < 0


def test_the_narrow_drawing_stacks_the_stages_with_the_loop_beside_them() -> None:
    svg = drawings(loop(pi_like_groups()))["narrow"]
    b = list(boxes(svg).values())
    assert [box[0] for box in b] == [26] * 5 and all(box[2] == 360 - 2 * 26 for box in b)
    assert all(lower[1] - (upper[1] + upper[3]) == 30 for upper, lower in zip(b, b[1:]))
    start, nxt, permission, tools, end = b
    found = arrows(svg)
    assert [kind for kind, _ in found] == ["dm-loop__flow"] * 3 + ["dm-loop__return", "dm-loop__exit"]
    for (_, points), (upper, lower) in zip(found[:3], zip(b, b[1:])):  # straight down, start to the last loop stage
        assert points == [(upper[0] + upper[2] / 2, upper[1] + upper[3]), (lower[0] + lower[2] / 2, lower[1])]
    back, out = found[3][1], found[4][1]
    assert back[0] == (tools[0] + tools[2], tools[1] + tools[3] / 2) and back[1][0] == 350
    assert back[-1] == (nxt[0] + nxt[2], nxt[1] + nxt[3] / 2 + 8)
    assert out[0] == (nxt[0], nxt[1] + nxt[3] / 2 + 8) and out[1][0] == 10 and out[-1] == (end[0], end[1] + end[3] / 2)
    notes = {t.text: t for t in svg.iter(f"{SVG}text") if t.get("class") == "dm-loop__note"}
    assert notes["each turn"].get("transform", "").startswith("rotate(-90 ")
    assert notes["the run ends"].get("transform", "").startswith("rotate(-90 ")
    assert float(notes["the run ends"].get("x")) == 23 and float(notes["each turn"].get("x")) == 345


def test_a_map_of_few_stages_gets_a_chain_not_a_ring() -> None:
    two = (group("D", "Permission", entry("D1"), entry("D2", "person")), group("G", "Ending a run", entry("G1")),
           group("X", "Empty"))
    figure = loop(two)
    assert figure.startswith('<figure class="dm-loop" id="dm-loop-t" data-search-exclude>\n'
                             '<a class="dm-skip" href="#dm-loop-t-caption">Skip the drawing\u2019s 3 links</a>')
    found = drawings(figure)
    assert list(found) == ["narrow"]  # no ring for two stages (the empty one is not drawn)
    svg = found["narrow"]
    assert svg.get("aria-label") == "The stages with each decision in its place"
    assert "Stage 2 of 2: Ending a run, 1 decision" in figure and "Empty" not in figure
    (chain,) = arrows(svg)
    upper, lower = boxes(svg).values()
    assert chain == ("dm-loop__flow", [(upper[0] + upper[2] / 2, upper[1] + upper[3]),
                                       (lower[0] + lower[2] / 2, lower[1])])
    assert "The same decisions as a table" not in figure
    one = loop((group("D", "Permission", entry("D1")),))
    assert "Skip the drawing\u2019s 1 link</a>" in one and "Stage 1 of 1: Permission, 1 decision" in one
    assert loop((group("X", "Empty"),)) == "" and loop(()) == ""


def test_a_three_stage_loop_has_no_way_back_to_draw() -> None:
    three = (group("S", "Start", entry("S1")), group("L", "Loop", entry("L1")), group("E", "End", entry("E1")))
    found = drawings(loop(three))
    assert list(found) == ["wide", "narrow"]
    assert [kind for kind, _ in arrows(found["wide"])] == ["dm-loop__flow", "dm-loop__exit"]
    assert [kind for kind, _ in arrows(found["narrow"])] == ["dm-loop__flow", "dm-loop__exit"]
    b = boxes(found["wide"])
    assert b["Loop"][1] == b["Start"][1] and b["End"][1] > b["Start"][1] and b["End"][0] == b["Start"][0]
    # four stages: the loop's two stages side by side on the top row? no: one on top, one below it
    four = (*three[:2], group("M", "More", entry("M1")), three[2])
    b4 = boxes(drawings(loop(four))["wide"])
    assert b4["Loop"][1] == b4["Start"][1] and b4["More"][1] == b4["End"][1] and b4["More"][0] == b4["Loop"][0]
    wide4 = arrows(drawings(loop(four))["wide"])
    assert [kind for kind, _ in wide4] == ["dm-loop__flow", "dm-loop__flow", "dm-loop__return", "dm-loop__exit"]
    # from the bottom stage straight up into the loop's first
    back = wide4[2][1]
    assert back == [(b4["More"][0] + b4["More"][2] / 2, b4["More"][1]),
                    (b4["Loop"][0] + b4["Loop"][2] / 2, b4["Loop"][1] + b4["Loop"][3])]


def test_an_extensions_drawing_shows_what_it_changes_and_fades_the_rest() -> None:
    from generator.site.pages.diagram import Focus

    focus = {"N1": Focus("changed", "person", ("person",), (("person", "veto it"),)),
             "N2": Focus("changed", None), "P1": Focus("related", None)}
    figure = loop(pi_like_groups(), focus=focus)
    assert figure.startswith('<figure class="dm-loop dm-loop--ring dm-loop--focus"')
    shown = tiles(drawings(figure)["wide"])
    assert shown["N1"]["class"] == "dm-node dm-node--person dm-node--changed"
    assert shown["N1"]["name"] == ("N1: Who decides N1? Decided by a person; a person can veto it; "
                                   "changed by this extension.")
    assert shown["N1"]["marks"] == ["dm-dot dm-dot--person"] and shown["N1"]["shape"].tag == f"{SVG}polygon"
    # changed, its holder kept when the extension names none
    assert shown["N2"]["class"] == "dm-node dm-node--model dm-node--changed"
    assert shown["N2"]["name"] == "N2: Who decides N2? Decided by an AI model; changed by this extension."
    assert shown["P1"]["class"] == "dm-node dm-node--person dm-node--related"
    assert shown["P1"]["name"].endswith("plain code can overrule; this extension adds a decision next to it.")
    assert shown["P1"]["marks"] == ["dm-dot dm-dot--person", "dm-dot dm-dot--code"]
    assert shown["S1"]["class"] == "dm-node dm-node--code dm-node--faded"
    assert shown["S1"]["name"] == "S1: Who decides S1? Decided by plain code."
    faded = tiles(drawings(loop((group("P", "Permission", entry("P1", "person", overrides=(
        Override("code", "x"),))),), focus={}))["narrow"])["P1"]
    assert faded["marks"] == [] and faded["class"].endswith("dm-node--faded")  # only what it changes in full
    legend = figure[figure.index('<span class="dm-legend">'):]
    assert ('<span class="dm-key"><span class="dm-swatch dm-swatch--faded" aria-hidden="true"></span>'
            "not changed by it</span>") in legend
    assert ('<span class="dm-key"><span class="dm-swatch dm-swatch--related" aria-hidden="true"></span>'
            "it adds a decision next to this one</span>") in legend
    assert "not changed by it" not in loop(pi_like_groups())


def test_marks_for_who_can_overrule_sit_on_the_tiles_top_edge_in_the_holders_shape() -> None:
    p1 = tiles(drawings(loop(pi_like_groups()))["wide"])["P1"]
    x, y, w, h = shape_box(p1["shape"])
    a = next(a for a in drawings(loop(pi_like_groups()))["wide"].iter(f"{SVG}a") if a.find(f"{SVG}text").text == "P1")
    diamond, square = a[3], a[4]
    points = [tuple(map(float, p.split(","))) for p in diamond.get("points").split()]
    cx, cy = points[0][0], points[1][1]
    assert (cx, cy) == (x + w - 5, y + 0.5)  # the first holder's mark at the top right corner
    assert len(points) == 4 and points[0] == (cx, cy - 4.5 * 1.3) and points[1] == (cx + 4.5 * 1.3, cy)
    side = 4.5 * 1.7
    assert square.tag == f"{SVG}rect"
    assert float(square.get("width")) == float(square.get("height")) == pytest.approx(side)
    assert float(square.get("x")) == pytest.approx(x + w - 15 - side / 2)  # the next one 10 units to the left
    assert float(square.get("y")) == pytest.approx(y + 0.5 - side / 2)


def test_the_legend_shows_each_holders_shape_and_the_overrule_mark() -> None:
    legend = loop(pi_like_groups())
    legend = legend[legend.index('<span class="dm-legend">'):]
    for who, words in (("code", "Plain code: square corners"), ("model", "AI model: round ends"),
                       ("person", "Person: pointed ends")):
        assert f'<svg class="dm-swatch dm-swatch--{who}" width="24" height="15" viewBox="0 0 24 15" ' in legend
        assert words in legend
        assert f'<svg class="dm-swatch dm-swatch--{who}" width="11" height="11" viewBox="0 0 11 11" ' in legend
    assert "a small mark at a tile\u2019s corner: who else can overrule it" in legend
    swatch = ET.fromstring(re.search(r'<svg class="dm-swatch dm-swatch--model" width="24".*?</svg>', legend).group())
    shape = swatch[0]
    assert (shape.get("x"), shape.get("y"), shape.get("width"), shape.get("height"), shape.get("rx")) == \
        ("0.5", "0.5", "23", "14", "7")
    mark = ET.fromstring(re.search(r'<svg class="dm-swatch dm-swatch--model" width="11".*?</svg>', legend).group())[0]
    assert (mark.tag, mark.get("cx"), mark.get("cy"), mark.get("r")) == ("circle", "5.5", "5.5", "3.96")


def test_text_from_yaml_is_inert_in_the_drawing() -> None:
    hostile = (group("D", "<script>x</script> *Perm*: more", entry("D1", question="Is `<b>` {{ x }} *bold*?")),)
    figure = loop(hostile, name='a"b', caption="C")
    assert "<script>" not in figure and "<b>" not in figure and "{{" not in figure
    svg = drawings(figure)["narrow"]
    (d1,) = tiles(svg).values()
    assert d1["name"] == "D1: Is <b> {{ x }} bold? Decided by plain code."  # as text, once parsed
    assert next(iter(boxes(svg))) == "<script>x</script> Perm"
    assert 'id="dm-loop-a&quot;b"' in figure
    table = loop(hostile, table='x.md#"a')
    assert '<a href="x.md#&quot;a">' in table


# --- plugin.py: the MkDocs hooks, driven through MkDocs' own plugin collection -----------------------

PAGES = {"index.md": "# Home\n", "demo/index.md": "# Summary\n", "demo/map.md": "# Map\n",
         "demo/D1.md": "# D1\n", "demo/D2.md": "# D2\n", "downloads/demo-decision-map.md": "# All\n",
         "extensions/guard.md": "# guard, generated\n", "extensions/solo.md": "# solo\n"}


def plugin_map(root: Path) -> DecisionMap:
    guard, solo = (Overlay(name, None, None, None, (), root / "decisions" / "demo" / "extensions" / f"{name}.yaml", 1)
                   for name in ("guard", "solo"))
    return DecisionMap("demo", root / "decisions" / "demo", "<Demo> *map*", "https://example.org/demo", "1.0.0",
                       Source(), None, (), (), None, entries=(entry("D1", cites=(cite(), cite())),
                                                              entry("D2", cites=(cite(),)),
                                                              entry("P1", kind="problem", cites=())),
                       overlays=(guard, solo))


def mkdocs_project(root: Path, options: str = "", settings: str = "", rendered: bool = True):
    """A project folder with a mkdocs.yml using the plugin, loaded as MkDocs loads it, and the plugin
    with a site already rendered (the stages before it are other modules' tests)."""
    from mkdocs.config import load_config

    from generator.site.render import RenderedSite

    (root / "docs" / "extensions").mkdir(parents=True)
    (root / "docs" / "extensions" / "guard.md").write_text("# guard\n\n{{ overlay }}\n")
    (root / "docs" / "about.md").write_text("# About\n")
    (root / "docs" / ".drafts").mkdir()
    (root / "docs" / ".drafts" / "wip.md").write_text("# Not yet\n")
    (root / "mkdocs.yml").write_text("site_name: Test\n" + settings + "plugins:\n  - decision-map:\n"
                                     "      decisions: decisions\n" + options)
    config = load_config(str(root / "mkdocs.yml"))
    plugin = config.plugins["decision-map"]
    search = {"demo/D1.md": {"title": "D1 Who decides D1?", "question_words": "who decides"}}
    if rendered:
        plugin.site = RenderedSite((plugin_map(root),), dict(PAGES), search)
    return config, plugin


def configured(root: Path, options: str = "", settings: str = ""):
    config, plugin = mkdocs_project(root, options, settings)
    return config.plugins.on_config(config), plugin


def test_the_plugin_switches_on_what_the_pages_need_and_adds_its_assets_and_nav(tmp_path: Path, caplog) -> None:
    from generator.site.plugin import THEME

    caplog.set_level("INFO", logger="mkdocs.plugins.decision-map")
    config, _ = configured(tmp_path)
    extensions = config.markdown_extensions
    for name in ("attr_list", "md_in_html", "tables", "pymdownx.highlight", "pymdownx.superfences"):
        assert extensions.count(name) == 1
    assert config.theme.dirs[0] == str(THEME)  # before the theme's own templates
    assert config.extra_css[-1] == "assets/decision-map/decision-map.css"
    scripts = [(str(s), s.defer) for s in config.extra_javascript[-2:]]
    assert scripts == [("assets/decision-map/decision-map.js", True), ("assets/decision-map/extensions.js", True)]
    assert config.nav[0] == {"Home": "index.md"}
    assert config.nav[1] == {"&lt;Demo&gt; map": [{"Summary": "demo/index.md"}, {"The full map": "demo/map.md"}]}
    assert {"Extensions": [{"guard": "extensions/guard.md"}, {"solo": "extensions/solo.md"}]} in config.nav
    assert config.nav[-1] == "about.md"  # hand-written pages last; none from a hidden folder
    assert "demo: 3 entries, 3 citations, all ok at 1.0.0" in caplog.text


def test_the_plugin_keeps_a_custom_dir_first_and_a_nav_of_mkdocs_yml(tmp_path: Path) -> None:
    from generator.site.plugin import THEME

    (tmp_path / "overrides").mkdir()
    config, _ = configured(tmp_path, settings="theme:\n  name: mkdocs\n  custom_dir: overrides\n"
                                              "nav:\n  - about.md\nextra_javascript:\n  - own.js\n")
    assert config.theme.dirs[0] == str(tmp_path / "overrides") and config.theme.dirs[1] == str(THEME)
    assert config.nav == ["about.md"]
    # the site's own scripts stay as mkdocs.yml has them; the plugin's two are deferred
    assert [(str(s), getattr(s, "defer", False)) for s in config.extra_javascript] == [
        ("own.js", False), ("assets/decision-map/decision-map.js", True), ("assets/decision-map/extensions.js", True)]
    config, _ = configured(tmp_path / "no-nav", options="      nav: false\n")
    assert config.nav is None


def test_a_bad_map_fails_the_build_with_one_clean_line_per_problem(tmp_path: Path, monkeypatch) -> None:
    from mkdocs.exceptions import PluginError

    from generator.errors import DecisionMapError, InputError, Problem
    from generator.site import plugin as plugin_module

    config, plugin = mkdocs_project(tmp_path, rendered=False)
    problems = [Problem(tmp_path / "D1.yaml", 3, "answer: over 60 words"), Problem(tmp_path / "D2.yaml", 0, "bad")]
    monkeypatch.setattr(plugin_module, "render_folder", lambda *a, **k: (_ for _ in ()).throw(InputError(problems)))
    with pytest.raises(PluginError) as failed:
        config.plugins.on_config(config)
    assert str(failed.value) == (f"decision map: 2 problems:\n{tmp_path / 'D1.yaml'}:3: answer: over 60 words\n"
                                 f"{problems[1]}")
    assert plugin_module.failure_message(InputError(problems[:1])) == \
        f"decision map: {tmp_path / 'D1.yaml'}:3: answer: over 60 words"
    assert plugin_module.failure_message(DecisionMapError("the cache is locked")) == \
        "decision map: the cache is locked"


def test_the_plugin_renders_the_maps_next_to_mkdocs_yml_once_per_build(tmp_path: Path, monkeypatch) -> None:
    from generator.citations.verify import Trees
    from generator.site import plugin as plugin_module
    from generator.site.render import RenderedSite

    config, plugin = mkdocs_project(tmp_path, options="      progress: true\n      probes: false\n", rendered=False)
    assert plugin.site is None and plugin.files is None and plugin.leaks == []  # nothing rendered yet
    calls = []

    def render_folder(decisions, docs, *, quiet, trees_for, probes):
        calls.append((decisions, docs, quiet, trees_for(plugin_map(tmp_path)), probes([])))
        return RenderedSite((plugin_map(tmp_path),), dict(PAGES))

    monkeypatch.setattr(plugin_module, "render_folder", render_folder)
    monkeypatch.setattr(plugin_module, "_KEPT", {})
    site = plugin.prepare(config)
    assert plugin.prepare(config) is site and len(calls) == 1
    decisions, docs, quiet, trees, probe_results = calls[0]
    assert decisions == tmp_path / "decisions" and docs == tmp_path / "docs"
    assert quiet is False and isinstance(trees, Trees) and trees.quiet is False  # progress: true
    assert probe_results == {}  # probes: false


def test_the_site_build_runs_the_probes_unless_told_not_to(tmp_path: Path, monkeypatch) -> None:
    import generator.probes.run as probe_run

    _, plugin = mkdocs_project(tmp_path)
    asked = []
    monkeypatch.setattr(probe_run, "site_probes", lambda maps, quiet: asked.append((maps, quiet)) or {"D1": "ran"})
    assert plugin._probes(["m"]) == {"D1": "ran"} and asked == [(["m"], True)]


def test_a_rebuild_in_the_same_process_reuses_the_parsed_source_trees(tmp_path: Path, monkeypatch) -> None:
    from dataclasses import replace

    from generator.site import plugin as plugin_module

    monkeypatch.setattr(plugin_module, "_KEPT", {})
    first = plugin_map(tmp_path)
    trees = plugin_module.kept_trees(first, quiet=True)
    edited = replace(first, title="Edited")
    assert plugin_module.kept_trees(edited, quiet=True) is trees and trees.map is edited
    other = replace(first, source=Source(npm=(NpmPackage("x", "", shipped=True),)))
    assert plugin_module.kept_trees(other, quiet=True) is not trees


def built_files(config, plugin):
    from mkdocs.structure.files import File, Files

    hand_written = File("extensions/guard.md", config.docs_dir, config.site_dir, config.use_directory_urls)
    return config.plugins.on_files(Files([hand_written]), config=config)


def test_the_pages_are_added_as_files_and_replace_a_hand_written_extension_page(tmp_path: Path) -> None:
    from mkdocs.structure.files import InclusionLevel

    from generator.site.plugin import ASSETS

    import warnings

    config, plugin = configured(tmp_path)
    plugin.leaks = ["left from the last build"]
    with warnings.catch_warnings():  # MkDocs asks for a replaced file to be removed first
        warnings.simplefilter("error", DeprecationWarning)
        files = built_files(config, plugin)
    assert plugin.files is files and plugin.leaks == []
    paths = [f.src_uri for f in files]
    assert paths.count("extensions/guard.md") == 1
    assert files.get_file_from_path("extensions/guard.md").content_string == "# guard, generated\n"
    for path, text in PAGES.items():
        assert files.get_file_from_path(path).content_string == text
    download = files.get_file_from_path("downloads/demo-decision-map.md")
    assert not download.is_documentation_page() and files.get_file_from_path("demo/map.md").is_documentation_page()
    assert files.get_file_from_path("demo/D1.md").inclusion == InclusionLevel.NOT_IN_NAV
    assert files.get_file_from_path("demo/map.md").inclusion == InclusionLevel.UNDEFINED
    for asset in ASSETS.iterdir():
        assert files.get_file_from_path(f"assets/decision-map/{asset.name}").content_bytes == asset.read_bytes()


def test_the_404_page_offers_each_maps_main_pages_and_the_footer_its_links(tmp_path: Path) -> None:
    import jinja2

    import git

    config, plugin = configured(tmp_path, options="      repository: https://git.example/o/X/\n"
                                                  "      branch: trunk\n")
    files = built_files(config, plugin)
    env = config.plugins.on_env(jinja2.Environment(), config=config, files=files)
    links = env.globals["decision_map_links"]
    assert links == {"repository": "https://git.example/o/X", "branch": "trunk", "commit": "", "built": ""}
    # once the project is a git checkout, the footer names its commit (the one next to mkdocs.yml)
    repo = git.Repo.init(tmp_path)
    repo.git.add("--all")
    actor = git.Actor("t", "t@localhost")
    commit = repo.index.commit("site", author=actor, committer=actor, commit_date="2026-04-05T10:00:00")
    env = config.plugins.on_env(jinja2.Environment(), config=config, files=files)
    assert env.globals["decision_map_ways"] == [
        {"url": "demo/", "title": "&lt;Demo&gt; map, in short", "about": "the summary"},
        {"url": "demo/map/", "title": "The full map", "about": "every decision, one row each"}]
    assert env.globals["decision_map_example"] == "demo/D1/"
    assert env.globals["decision_map_links"] == {"repository": "https://git.example/o/X", "branch": "trunk",
                                                 "commit": commit.hexsha[:12], "built": "2026-04-05"}
    config.plugins["decision-map"].site = None
    assert config.plugins.on_env(jinja2.Environment(), config=config, files=files).globals == {
        **env.globals, "decision_map_ways": [], "decision_map_example": ""}


def test_the_problems_page_is_offered_when_there_is_one() -> None:
    from mkdocs.structure.files import Files

    from generator.site.plugin import not_found_ways

    class Found(SimpleNamespace):
        pass

    files = SimpleNamespace(get_file_from_path=lambda path: Found(url="" if path == "demo/index.md" else path))
    ways = not_found_ways([SimpleNamespace(name="demo", title="Demo")], files)
    assert ways == [{"url": ".", "title": "Demo, in short", "about": "the summary"},
                    {"url": "demo/map.md", "title": "The full map", "about": "every decision, one row each"},
                    {"url": "demo/problems.md", "title": "Problems in the code", "about": ""}]
    assert not_found_ways([SimpleNamespace(name="demo", title="Demo")], Files([])) == []


def test_the_footer_names_the_commit_built_and_its_date(tmp_path: Path) -> None:
    import git

    from generator.site.plugin import build_source

    repo = git.Repo.init(tmp_path)
    assert build_source(tmp_path) == ("", "")  # a checkout with no commit yet
    (tmp_path / "a.txt").write_text("a")
    repo.git.add("--all")
    actor = git.Actor("t", "t@localhost")
    commit = repo.index.commit("one", author=actor, committer=actor, author_date="2026-02-03T10:00:00",
                               commit_date="2026-02-03T10:00:00")
    assert build_source(tmp_path) == (commit.hexsha[:12], "2026-02-03")
    (tmp_path / "a.txt").write_text("c")
    repo.git.add("--all")
    commit = repo.index.commit("two", author=actor, committer=actor, author_date="2026-02-05T10:00:00",
                               commit_date="2026-02-05T10:00:00")
    assert build_source(tmp_path) == (commit.hexsha[:12], "2026-02-05")  # the last commit's day
    (tmp_path / "a.txt").write_text("b")
    assert build_source(tmp_path) == (f"{commit.hexsha[:12]} with local edits", "2026-02-05")
    (tmp_path / "a.txt").write_text("c")
    (tmp_path / "new.txt").write_text("untracked files are not edits")
    assert build_source(tmp_path)[0] == commit.hexsha[:12]
    assert build_source(tmp_path / "missing") == ("", "")


def test_without_git_the_footer_names_no_commit(tmp_path: Path, monkeypatch) -> None:
    from generator.site.plugin import build_source

    monkeypatch.setenv("PATH", str(tmp_path))  # no git to run
    assert build_source(tmp_path) == ("", "")


def test_a_git_that_never_answers_leaves_the_footer_without_a_commit(tmp_path: Path, monkeypatch) -> None:
    import shutil

    from generator.site import plugin

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "git").write_text(f"#!/bin/sh\nexec {shutil.which('sleep')} 600\n")  # a stale lock, say
    (tmp_path / "bin" / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    give_up_sooner(monkeypatch, plugin, "git is run with no time limit: a git that never answers hangs the build")
    assert plugin.build_source(tmp_path) == ("", "")


def test_each_page_knows_the_file_a_reader_can_edit(tmp_path: Path) -> None:
    from mkdocs.structure.pages import Page

    from generator.site.plugin import page_source

    config, plugin = configured(tmp_path)
    files = built_files(config, plugin)

    def source(path: str):
        page = Page(None, files.get_file_from_path(path), config)
        config.plugins.on_page_context({}, page=page, config=config, nav=None)
        return page.meta.get("dm_source")

    assert source("demo/D1.md") == "decisions/demo/D1.yaml"
    assert source("extensions/guard.md") == "docs/extensions/guard.md"  # hand-written
    assert source("demo/map.md") is None  # made from the whole map
    assert source("extensions/solo.md") == "decisions/demo/extensions/solo.yaml"  # generated: its overlay
    docs, site = tmp_path / "docs", plugin.site
    assert page_source("extensions/guard.md", tmp_path, tmp_path / "nowhere", "decisions", site) == \
        "decisions/demo/extensions/guard.yaml"  # generated: its overlay
    assert page_source("extensions/other.md", tmp_path, docs, "decisions", site) is None
    assert page_source("extensions/guard.md", tmp_path, tmp_path / "nowhere", "decisions", None) is None
    assert page_source("demo/D1.md", tmp_path / "docs", docs, "../elsewhere", site) is None  # outside the checkout


def test_links_to_pages_in_raw_html_are_resolved_and_leaks_fail_the_build(tmp_path: Path) -> None:
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.pages import Page

    config, plugin = configured(tmp_path)
    files = built_files(config, plugin)
    page = Page(None, files.get_file_from_path("demo/index.md"), config)
    html = ('<a href="D2.md#d2">D2</a> <a href="../extensions/guard.md">g</a> <a href="./D1.md">1</a> '
            '<a href="X9.md">gone</a> <a href="https://e.org/a.md">out</a> <a href="D1.md?x">q</a>')
    out = config.plugins.on_page_content(html, page=page, config=config, files=files)
    assert out == ('<a href="D2/#d2">D2</a> <a href="../extensions/guard/">g</a> <a href="D1/">1</a> '
                   '<a href="X9.md">gone</a> <a href="https://e.org/a.md">out</a> <a href="D1.md?x">q</a>')
    assert plugin.leaks == []
    config.plugins.on_post_build(config=config)  # no leak, no index: nothing to do
    config.plugins.on_page_content("<p>{{ x }}</p>", page=page, config=config, files=files)
    with pytest.raises(PluginError) as failed:
        config.plugins.on_post_build(config=config)
    lines = str(failed.value).split("\n")
    assert lines[0] == ("decision map: Markdown or template text shows on built pages; fix the template or page:")
    assert lines[1].startswith("demo/index.md: line 1: template text") and len(lines) == 2
    plugin.leaks = []
    for n in range(25):
        config.plugins.on_page_content(f"<p>{{{{ x{n} }}}}</p>", page=page, config=config, files=files)
    with pytest.raises(PluginError) as failed:
        config.plugins.on_post_build(config=config)
    lines = str(failed.value).split("\n")
    assert len(lines) == 22 and lines[-1] == "… and 5 more"
    for many, last in ((20, "p19: leak"), (21, "… and 1 more")):  # twenty shown in full, then a count
        plugin.leaks = [f"p{n}: leak" for n in range(many)]
        with pytest.raises(PluginError) as failed:
            config.plugins.on_post_build(config=config)
        lines = str(failed.value).split("\n")
        assert len(lines) == 22 - (many == 20) and lines[-1] == last


def test_after_the_build_the_search_index_finds_an_entry_by_its_id_first(tmp_path: Path) -> None:
    from generator.site.search_index import OTHER_PAGES, WORD_JOINER

    config, plugin = configured(tmp_path)
    built_files(config, plugin)
    index = Path(config.site_dir) / "search" / "search_index.json"
    index.parent.mkdir(parents=True)
    index.write_text(json.dumps({"config": {}, "docs": [
        {"location": "demo/D1/", "title": "D1", "text": "D1 is asked"},
        {"location": "demo/D2/", "title": "D2", "text": "D2"},
        {"location": "demo/", "title": "Summary", "text": "see D1"}]}))
    config.plugins.on_post_build(config=config)
    docs = {d["location"]: d for d in json.loads(index.read_text())["docs"]}
    assert docs["demo/D1/"]["title"] == f"D{WORD_JOINER}1 Who decides D{WORD_JOINER}1?"
    assert docs["demo/D1/"]["question_words"] == "who decides"
    assert "boost" not in docs["demo/D2/"]  # an entry's own page, without a hit of its own
    assert docs["demo/"]["boost"] == OTHER_PAGES and docs["demo/"]["text"] == f"see D{WORD_JOINER}1"


def test_editing_the_maps_rebuilds_the_served_site(tmp_path: Path) -> None:
    config, plugin = configured(tmp_path)
    watched = []
    server = SimpleNamespace(watch=watched.append)
    assert config.plugins.on_serve(server, config=config, builder=None) is server
    assert watched == [str(tmp_path / "decisions")]


def test_paths_inside_the_docs_folder_are_normalized_and_hidden_folders_skipped(tmp_path: Path) -> None:
    from pathlib import PurePosixPath

    from generator.site.plugin import _hand_written, _normalized

    assert _normalized(PurePosixPath("a/b/../c.md")) == "a/c.md"
    assert _normalized(PurePosixPath("../../x.md")) == "x.md"
    assert _normalized(PurePosixPath("./a/./b.md")) == "a/b.md"
    (tmp_path / "b" / ".git").mkdir(parents=True)
    for name in ("b/z.md", "a.md", "b/.git/x.md", ".hidden.md", "b/c.txt"):
        (tmp_path / name).write_text("x")
    assert _hand_written(tmp_path) == ["a.md", "b/z.md"]
    assert _hand_written(tmp_path / "missing") == []


def test_cited_code_loses_its_carriage_returns_tabs_and_common_indentation_only() -> None:
    from generator.site.pages.editions import code_at

    shown = code_at(edition_map(), "src/a.ts", "1.0.0", (4, 5), ["\tif (x) {  \r", "\t\ty(); // X\r"], (2,))
    assert shown.code == "if (x) {  \n    y(); // X" and shown.differs == (2,) and shown.language == "ts"
    assert (shown.start, shown.end, shown.version) == (4, 5, "1.0.0")
    assert code_at(edition_map(), "src/a.ts", "1.0.0", (4, 5), [], ()) is None


def test_only_the_lines_that_changed_are_marked_however_the_code_is_spaced_or_repeated() -> None:
    from generator.site.pages.editions import _differing

    # spacing inside a line is not a change; two edits apart are both marked
    assert _differing(["a = f(x);", "b();", "c();", "d();"], ["a=f( x );", "B();", "c();", "D();"]) == \
        ((2, 4), (2, 4))
    assert _differing(["return  y ;"], ["return y;"]) == ((), ())
    assert _differing(["a b;"], ["ab;"]) == ((), ())
    # a long excerpt of repeated lines (a table, a switch): only the changed line, not the rest after it
    old = ["  next();"] * 100 + ["  stop();"] + ["  next();"] * 100
    new = ["  next();"] * 100 + ["  halt();"] + ["  next();"] * 100
    assert _differing(old, new) == ((101,), (101,))


def test_pis_six_stages_go_round_a_ring_whose_bottom_row_runs_right_to_left() -> None:
    """pi's map: a start, a loop of four (next step, permission, tools, memory), an end."""
    six = (group("A", "Start", entry("A1")), group("C", "Next step", entry("C1", "model")),
           group("D", "Permission", entry("D1", "person")), group("E", "Tools", entry("E1")),
           group("F", "Memory", entry("F1")), group("G", "End", entry("G1")))
    svg = drawings(loop(six))["wide"]
    b = boxes(svg)
    start, nxt, permission, tools, memory, end = (b[s] for s in ("Start", "Next step", "Permission", "Tools",
                                                                 "Memory", "End"))
    assert start[1] == nxt[1] == permission[1] and start[0] < nxt[0] < permission[0]
    # the bottom row, right to left: tools under permission, memory under next step, the end bottom left
    assert tools[1] == memory[1] == end[1] > start[1]
    assert (tools[0], memory[0], end[0]) == (permission[0], nxt[0], start[0])
    into, across, down, along, back, out = arrows(svg)
    assert [kind for kind, _ in (into, across, down, along, back, out)] == [
        "dm-loop__flow", "dm-loop__flow", "dm-loop__flow", "dm-loop__flow", "dm-loop__return", "dm-loop__exit"]
    assert down[1] == [(permission[0] + permission[2] / 2, permission[1] + permission[3]),
                       (tools[0] + tools[2] / 2, tools[1])]
    # tools to memory: leftwards, from the left edge of one to the right edge of the other, level with their titles
    assert along[1] == [(tools[0], tools[1] + 23), (memory[0] + memory[2], tools[1] + 23)]
    # each turn: from memory straight up into the next step
    assert back[1] == [(memory[0] + memory[2] / 2, memory[1]), (nxt[0] + nxt[2] / 2, nxt[1] + nxt[3])]
    narrow = drawings(loop(six))["narrow"]
    assert [kind for kind, _ in arrows(narrow)] == ["dm-loop__flow"] * 4 + ["dm-loop__return", "dm-loop__exit"]
    four = (six[0], six[1], six[2], six[5])  # a loop of two still has its way back
    assert [kind for kind, _ in arrows(drawings(loop(four))["narrow"])] == [
        "dm-loop__flow", "dm-loop__flow", "dm-loop__return", "dm-loop__exit"]
    notes = [t.text for t in drawings(loop(four))["narrow"].iter(f"{SVG}text") if t.get("class") == "dm-loop__note"]
    assert notes == ["each turn", "the run ends"]


def test_a_full_stage_wraps_its_tiles_inside_its_box_on_a_phone() -> None:
    seven = (group("D", "Permission", *(entry(f"D{i}") for i in range(1, 8))),)
    svg = drawings(loop(seven))["narrow"]
    (box,) = boxes(svg).values()
    shown = {i: shape_box(t["shape"]) for i, t in tiles(svg).items()}
    assert all(inside(tile, box) for tile in shown.values())
    assert [shown[f"D{i}"][1] for i in range(1, 8)] == [shown["D1"][1]] * 6 + [shown["D1"][1] + 28 + 5]  # six a row
