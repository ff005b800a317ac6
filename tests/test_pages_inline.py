"""The renderer in this process, on inputs built inline: what a reader sees on each page.

The demo map of tests/site_fixtures (or a variant of it edited here) is rendered with its source
trees read from the fixture folders (no git, no fetch), so a render takes a few hundredths of a
second: these tests are the ones mutation testing runs against the renderer
(generator/site/render.py and generator/site/pages/views.py). The same pages built from a real git
repository, and through MkDocs, are tested in test_render.py and test_site_build.py.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from conftest import templates_compiled_once
from generator.citations.verify import Trees, verify_map
from generator.errors import DriftError, InputError
from generator.map.load import load_maps
from generator.site.render import (hand_written_collisions, is_download, is_entry_page, render_folder, render_pages,
                                   render_site, site_nav)
from generator.source.fetch import SourceTree
from site_fixtures.demo_site import FIXTURES, MAP_YAML, URL_PLACEHOLDER, replace_in

GOLDEN = Path(__file__).parent / "golden"
SOURCES = {"1.0.0": FIXTURES / "upstream", "0.8.0": FIXTURES / "upstream-0.8.0"}  # the demo's releases
SOME_LINE = "[{file: src/session.ts, lines: 5}]"


@pytest.fixture(scope="module", autouse=True)
def compiled_once():
    """The templates are compiled once for this file's renders, in memory (see conftest): only the
    first render of the module pays for it, and an environment set up differently (a mutant's)
    compiles its own. What the templates produce is the same."""
    with templates_compiled_once():
        yield


def tree(folder: Path, version: str) -> SourceTree:
    """A folder's files as the source tree of one release (as fetch leaves it in the cache)."""
    files = {p.relative_to(folder).as_posix(): {"size": p.stat().st_size,
                                                 "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
             for p in folder.rglob("*") if p.is_file()}
    return SourceTree(folder, version, files)


def trees_from(sources: dict[str, Path]):
    """``trees_for`` of render_folder: each map's releases read from ``sources`` (version -> folder)."""
    return lambda decision_map: Trees(decision_map, quiet=True,
                                      fetch=lambda m, version: tree(sources[version], version))


@dataclass(frozen=True)
class Inputs:
    decisions: Path
    pages: Path  # the hand-written pages
    sources: dict[str, Path]

    @property
    def folder(self) -> Path:
        return self.decisions / "demo"

    def render(self, pages: Path | None | str = "default", **kwargs):
        return render_folder(self.decisions, self.pages if pages == "default" else pages,
                             trees_for=trees_from(self.sources), **kwargs)


def make_demo(root: Path) -> Inputs:
    shutil.copytree(FIXTURES / "decisions", root / "decisions")
    (root / "decisions" / "demo" / "map.yaml").write_text(MAP_YAML.format(url=URL_PLACEHOLDER))
    shutil.copytree(FIXTURES / "site_src", root / "site_src")
    return Inputs(root / "decisions", root / "site_src", dict(SOURCES))


@pytest.fixture
def demo(tmp_path: Path) -> Inputs:
    """The demo map (tests/site_fixtures), its hand-written extension page, and its two releases."""
    return make_demo(tmp_path)


def release(tmp_path: Path, version: str, change) -> Path:
    """A release of the demo's code whose src/session.ts is ``change(text)`` of 1.0.0's."""
    folder = tmp_path / f"upstream-{version}"
    shutil.copytree(SOURCES["1.0.0"], folder)
    session = folder / "src" / "session.ts"
    session.write_text(change(session.read_text()))
    return folder


def section(page: str, start: str, end: str | None = None) -> str:
    """The part of a page from ``start`` to ``end`` (or to the end)."""
    at = page.index(start)
    return page[at:page.index(end, at)] if end else page[at:]


# --- the whole site -----------------------------------------------------------------------------------


@pytest.fixture
def demo_site(demo):
    """The demo site as rendered, in the fixture: a mutation run orders a mutant's tests by the time
    of their own calls, so the golden pages, which tell the most, come first (and the first render
    of the run, which loads the parsers, is not counted in any test's call)."""
    return demo.render()


def test_every_page_is_as_in_the_golden_files(demo_site) -> None:
    """The golden pages of test_render.py (built there from a git repository), here in this process."""
    site = demo_site
    expected = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.md")}
    assert set(site.pages) == expected
    for path, text in site.pages.items():
        assert text == (GOLDEN / path).read_text(encoding="utf-8"), path
    assert [m.name for m in site.maps] == ["demo"]


def test_each_entry_page_has_its_search_hit(demo) -> None:
    site = demo.render()
    assert sorted(site.search) == ["demo/D1.md", "demo/D2.md", "demo/G1.md", "demo/P1.md"]
    assert site.search["demo/D1.md"]["text"].endswith("(2 exceptions)")
    assert site.search["demo/D2.md"]["text"].startswith("You do, each time | a pipe")
    # what an extension changes about an entry is found on the entry's own hit
    assert "extension demo-ext: The extension asks you whenever the model would stop." in \
        site.search["demo/G1.md"]["more"]
    assert "extension demo-ext" not in site.search["demo/D2.md"]["more"]
    assert "read in the code, not reproduced by a probe" in site.search["demo/P1.md"]["more"]


def test_without_trees_given_the_pinned_source_is_fetched_quietly(tmp_path, capfd) -> None:
    """The one test here that fetches: the demo's git repository (site_fixtures.demo_site), by file://."""
    from site_fixtures.demo_site import make_demo_site

    built = make_demo_site(tmp_path)
    capfd.readouterr()
    site = render_folder(built.decisions, built.pages)
    assert site.pages["demo/D2.md"] == (GOLDEN / "demo" / "D2.md").read_text(encoding="utf-8")
    assert capfd.readouterr() == ("", "")


def test_a_site_rendered_without_a_place_for_the_views_has_every_page(demo) -> None:
    maps = load_maps(demo.decisions)
    assert render_site(maps, trees_from(demo.sources), demo.pages) == demo.render().pages


def test_the_pages_are_in_path_order(demo) -> None:
    site = demo.render()
    assert list(site.pages) == sorted(site.pages)
    [demo_map] = load_maps(demo.decisions)
    pages = render_pages(demo_map, trees_from(demo.sources)(demo_map), demo.pages)
    assert list(pages) == sorted(pages)
    assert pages == {p: t for p, t in site.pages.items() if p not in ("index.md", "extensions/index.md")}
    # with the probes' results, by entry ID
    script = with_probe(demo)
    [demo_map] = load_maps(demo.decisions)
    pages = render_pages(demo_map, trees_from(demo.sources)(demo_map), demo.pages, probes={"D1": ProbeResult(script)})
    assert "## Demonstrated by running demo 1.0.0" in pages["demo/D1.md"]


# --- probes -----------------------------------------------------------------------------------------


class ProbeResult:
    """What generator.probes.run's ProbeResult carries, as far as the renderer reads it."""

    def __init__(self, script: Path, **fields) -> None:
        self.map, self.id, self.status, self.version = "demo", "D1", "holds", "1.0.0"
        self.seconds, self.message = 1.5, ""
        self.result, self.script, self.claim = {"asked": False, "ran": True}, script, ""
        self.__dict__.update(fields)


def with_probe(demo: Inputs, entry: str = "D1") -> Path:
    script = demo.folder / "probes" / f"{entry}.mjs"
    script.parent.mkdir(exist_ok=True)
    script.write_text("const ran = true;\nconsole.log(JSON.stringify({asked: false, ran}));\n")
    replace_in(demo.folder / f"{entry}.yaml", "\ncites:", "\nprobe:\n  shows: A tool call runs with nobody asked.\n"
               "  expect: {asked: false, ran: true}\ncites:")
    return script


def test_probes_given_as_a_function_run_once_the_maps_are_loaded(demo) -> None:
    script = with_probe(demo)
    asked = []

    def run(maps):
        asked.append([m.name for m in maps])
        return {"D1": ProbeResult(script)}

    site = demo.render(probes=run)
    assert asked == [["demo"]]
    assert "## Demonstrated by running demo 1.0.0 { #probe data-search-exclude }" in site.pages["demo/D1.md"]
    assert "demonstrated by running pi 1.0.0, evidence from a probe: A tool call runs with nobody asked." in \
        site.search["demo/D1.md"]["more"]


def test_a_probe_result_of_another_map_is_not_shown(demo) -> None:
    script = with_probe(demo)
    elsewhere = demo.render(probes={"D1": ProbeResult(script, map="other")})
    assert "{ #probe" not in elsewhere.pages["demo/D1.md"]
    assert "evidence from a probe" not in elsewhere.search["demo/D1.md"]["more"]
    unnamed = ProbeResult(script)
    del unnamed.map  # a result that names no map belongs to the one being built
    assert "{ #probe" in demo.render(probes={"D1": unnamed}).pages["demo/D1.md"]


# --- what stops a render -------------------------------------------------------------------------------


def test_a_citation_not_ok_at_the_pin_stops_the_render_naming_it(demo, tmp_path) -> None:
    # G1's second citation was checked at 0.9.0, where two more lines opened the file
    demo.sources["0.9.0"] = release(tmp_path, "0.9.0", lambda text: "// one\n// two\n" + text)
    replace_in(demo.folder / "G1.yaml", "    lines: 21-23", '    lines: 23-25\n    version: "0.9.0"')
    [demo_map] = load_maps(demo.decisions)
    with pytest.raises(DriftError) as caught:
        render_pages(demo_map, trees_from(demo.sources)(demo_map))
    [problem] = caught.value.problems
    line = (demo.folder / "G1.yaml").read_text().split("\n").index("  - file: src/session.ts") + 1
    assert (problem.path.name, problem.line) == ("G1.yaml", line)
    assert problem.message == "G1 cites src/session.ts:23-25, which is moved at 1.0.0, now at 21-23 (Session.isDone)"
    assert caught.value.version == "1.0.0"


def test_every_citation_not_ok_is_named_and_nothing_is_rendered(demo) -> None:
    [demo_map] = load_maps(demo.decisions)
    trees = trees_from(demo.sources)(demo_map)
    resolutions = verify_map(demo_map, None, trees)
    assert {r.status for r in resolutions} == {"ok"}
    gone = replace(resolutions[0], status="changed", resolved=None, symbol="")
    twice = replace(resolutions[-1], status="ambiguous", resolved=(3, 4), symbol="Session.run")
    with pytest.raises(DriftError) as caught:
        render_pages(demo_map, trees, resolutions=[gone, *resolutions[1:-1], twice])
    assert sorted(p.message for p in caught.value.problems) == sorted([
        f"{gone.entry.id} cites {gone.citation.file}:{gone.recorded[0]}-{gone.recorded[1]}, which is changed at 1.0.0 "
        "(top level)",
        f"{twice.entry.id} cites {twice.citation.file}:{twice.recorded[0]}-{twice.recorded[1]}, which is ambiguous at "
        "1.0.0, now at 3-4 (Session.run)"])


# --- hand-written pages ---------------------------------------------------------------------------------


def test_a_hand_written_page_where_a_generated_one_goes_is_an_error(demo) -> None:
    (demo.pages / "demo").mkdir()
    (demo.pages / "demo" / "map.md").write_text("# Mine\n")
    (demo.pages / "index.md").write_text("# My home\n")
    with pytest.raises(InputError) as caught:
        demo.render()
    assert [(p.path, p.line, p.message) for p in caught.value.problems] == [
        (demo.pages / "demo" / "map.md", 0, "is generated from decisions/ as demo/map.md; move the hand-written page "
                                            "elsewhere"),
        (demo.pages / "index.md", 0, "is generated from decisions/ as index.md; move the hand-written page elsewhere")]
    # an extension's hand-written page is its page, the overlay put in it; a folder is not a page
    (demo.pages / "demo" / "map.md").unlink()
    (demo.pages / "index.md").unlink()
    (demo.pages / "demo" / "census.md").mkdir()
    assert hand_written_collisions(["extensions/demo-ext.md", "demo/census.md", "demo/map.md"], demo.pages) == []
    assert "A hand-written page about the demo extension." in demo.render().pages["extensions/demo-ext.md"]


def test_without_hand_written_pages_an_extension_gets_a_generated_page(demo) -> None:
    page = demo.render(pages=None).pages["extensions/demo-ext.md"]
    assert page.startswith('# demo-ext\n\n<span class="dm-pin">demo 1.0.0</span> · [Summary](../demo/index.md)')
    assert "Asks you before a run may end, &lt;em&gt;whatever&lt;/em&gt; the model says." in page
    assert "A hand-written page" not in page
    assert "| [G1](#g1) Is the work finished, so the run may stop?" in page


def write_page(demo: Inputs, text: str) -> None:
    (demo.pages / "extensions" / "demo-ext.md").write_text(text)


@pytest.mark.parametrize("slots, line", [(0, 0), (2, 7), (3, 7)])
def test_an_extension_page_needs_exactly_one_overlay_line(demo, slots, line) -> None:
    """The error names the second slot's line in the page as written (a description and the map's
    strip are added above it before the slot is put in: the line is not theirs)."""
    write_page(demo, "# demo-ext\n\nText.\n" + "\n{{ overlay }}\n" * slots)
    with pytest.raises(InputError) as caught:
        demo.render()
    [problem] = caught.value.problems
    how = "has no" if slots == 0 else f"has {slots}"
    assert (problem.path, problem.line) == (demo.pages / "extensions" / "demo-ext.md", line)
    assert problem.message == (f"{how} `{{{{ overlay }}}}` lines; it needs exactly one, where the generated table of "
                               "the decisions demo-ext changes goes")


def test_the_overlay_line_may_be_indented_and_the_text_around_it_stays(demo) -> None:
    write_page(demo, "# demo-ext\n\nBefore.\n\n  {{ overlay }}  \n\nAfter.\n")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert "{{ overlay }}" not in page
    assert page.index("\nBefore.\n") < page.index('<div class="dm-overlay" data-extension="demo-ext" markdown>') \
        < page.index("\nAfter.\n")
    assert page.endswith("\nAfter.\n")


def test_a_hand_written_page_is_read_as_utf_8_whatever_the_locale(demo, ascii_locale) -> None:
    """A hand-written page is UTF-8 (its "·", "→", "’"): it is read so under a locale of another
    encoding too, and shown as written."""
    (demo.pages / "extensions" / "demo-ext.md").write_bytes(
        "# demo-ext\n\nIt\u2019s asked \u2192 once \u00b7 caf\u00e9.\n\n{{ overlay }}\n".encode("utf-8"))
    with ascii_locale():
        page = demo.render().pages["extensions/demo-ext.md"]
    assert "\nIt\u2019s asked \u2192 once \u00b7 caf\u00e9.\n" in page


PIN = ('<span class="dm-pin">demo 1.0.0</span> · [Summary](../demo/index.md) · [The full map](../demo/map.md) · '
       '[Problems](../demo/problems.md) · [Census](../demo/census.md) · [What changed](../demo/editions/index.md) · '
       '[Download as Markdown](../demo/../downloads/demo-decision-map.md){ download }')


def test_a_hand_written_page_gets_a_description_and_the_map_s_strip_under_its_heading(demo) -> None:
    write_page(demo, "Intro.\n\n# demo-ext\n\nText.\n\n{{ overlay }}\n")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith('---\ndescription: "demo-ext: Asks you before a run may end, &lt;em&gt;whatever&lt;/em&gt; '
                           'the model says."\n---\n\nIntro.\n\n# demo-ext\n\n' + PIN)
    assert "\n{: .dm-pinline }\n\n\nText.\n" in page


def test_a_page_without_a_heading_gets_the_strip_first(demo) -> None:
    write_page(demo, "Text.\n\n{{ overlay }}\n")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith('---\ndescription: "demo-ext: Asks')
    assert "the model says.\"\n---\n\n" + PIN + " (10 KB)\n{: .dm-pinline }\n\n\nText.\n" in page
    # without a description either: the strip is the page's first line
    replace_in(demo.folder / "extensions" / "demo-ext.yaml",
               "summary: Asks you before a run may end, <em>whatever</em> the model says.\n", "")
    assert demo.render().pages["extensions/demo-ext.md"].startswith("\n" + PIN)


def test_a_page_with_front_matter_keeps_it_and_gets_the_strip_after_it(demo) -> None:
    write_page(demo, "---\ntitle: Mine\n---\nText.\n\n{{ overlay }}\n")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith("---\ntitle: Mine\n---\n\n" + PIN)
    assert "description:" not in page
    assert page.index(PIN) < page.index("Text.")


def test_a_page_opening_with_a_rule_gets_the_strip_first(demo) -> None:
    write_page(demo, "---\nText.\n\n{{ overlay }}\n")  # a thematic break, not front matter: it never closes
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith("\n" + PIN + " (10 KB)\n{: .dm-pinline }\n\n---\nText.\n")
    assert page.count("Text.") == 1


def test_the_description_keeps_every_character_as_written(demo) -> None:
    replace_in(demo.folder / "extensions" / "demo-ext.yaml", "the model says.", "the model says — l’extension.")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith('---\ndescription: "demo-ext: Asks you before a run may end, &lt;em&gt;whatever&lt;/em&gt; '
                           'the model says — l’extension."\n---\n')


def test_an_overlay_without_a_summary_adds_no_description(demo) -> None:
    replace_in(demo.folder / "extensions" / "demo-ext.yaml",
               "summary: Asks you before a run may end, <em>whatever</em> the model says.\n", "")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert page.startswith("# demo-ext\n\n" + PIN)


# --- several maps --------------------------------------------------------------------------------------


def second_map(demo: Inputs, name: str = "other", overlays: bool = False) -> Path:
    """A copy of the demo map as a second map, ``name``, with or without its extensions."""
    folder = demo.decisions / name
    shutil.copytree(demo.folder, folder)
    replace_in(folder / "map.yaml", "title: How demo decides", f"title: How {name} decides")
    replace_in(folder / "map.yaml", "repo: https://github.com/example/demo", f"repo: https://github.com/example/{name}")
    if not overlays:
        shutil.rmtree(folder / "extensions")
    return folder


def test_two_maps_share_the_home_page_and_the_extensions_index(demo) -> None:
    second_map(demo)
    site = demo.render()
    assert {p for p in site.pages if p.startswith("other/")} == {p.replace("demo/", "other/", 1) for p in site.pages
                                                                 if p.startswith("demo/")}
    assert "downloads/other-decision-map.md" in site.pages
    home = site.pages["index.md"]
    assert "[demo](https://github.com/example/demo) and [other](https://github.com/example/other) are coding agents" \
        in home
    # each map's loop, linking from the site's root
    assert 'id="dm-loop-home-demo"' in home and 'id="dm-loop-home-other"' in home
    assert 'href="demo/D1.md"' in home and 'href="other/D1.md"' in home
    assert "### [How other decides](other/index.md)" in home
    # the extensions index: only the map with extensions
    index = site.pages["extensions/index.md"]
    assert "How demo decides" not in index and "How other decides" not in index  # one map: no heading
    assert "demo-ext" in index and "../other/" not in index
    assert sorted(site.search) == sorted(f"{m}/{e}.md" for m in ("demo", "other") for e in ("D1", "D2", "G1", "P1"))


def test_the_extensions_index_shows_a_tagline_as_the_site_s_prose(demo) -> None:
    replace_in(demo.folder / "extensions" / "demo-ext.yaml", "summary:",
               "tagline: Asks about a `run_end`, <b>always</b> (see D1).\nsummary:")
    index = demo.render().pages["extensions/index.md"]
    assert ('<span class="dm-ext-index__tagline">Asks about a <code>run&#95;end</code>, &lt;b&gt;always&lt;/b&gt; (see '
            '[D1](../demo/D1.md#d1 "Is a person asked before a tool&#95;call runs?"){ .dm-ref }).</span>') in index


def test_two_maps_with_extensions_each_get_a_part_of_the_index(demo) -> None:
    folder = second_map(demo, overlays=True)
    (folder / "extensions" / "demo-ext.yaml").rename(folder / "extensions" / "other-ext.yaml")
    replace_in(folder / "extensions" / "other-ext.yaml", "extension: demo-ext", "extension: other-ext")
    index = demo.render().pages["extensions/index.md"]
    assert index.index("## How demo decides") < index.index("## How other decides")
    assert "other-ext" in index[index.index("## How other decides"):]


def test_two_maps_generating_the_same_page_is_an_error_naming_both(demo) -> None:
    folder = second_map(demo, overlays=True)
    shutil.copy(folder / "extensions" / "demo-ext.yaml", folder / "extensions" / "more-ext.yaml")
    replace_in(folder / "extensions" / "more-ext.yaml", "extension: demo-ext", "extension: more-ext")
    shutil.copy(folder / "extensions" / "more-ext.yaml", demo.folder / "extensions" / "more-ext.yaml")
    (demo.pages / "extensions" / "demo-ext.md").unlink()
    with pytest.raises(InputError) as caught:
        demo.render()
    assert [str(p) for p in caught.value.problems] == [
        f"{folder / 'map.yaml'}: generates extensions/{name}.md, which {demo.folder / 'map.yaml'} generates too; "
        "rename one of them" for name in ("demo-ext", "more-ext")]


# --- the navigation ------------------------------------------------------------------------------------


def test_the_navigation_lists_each_map_s_pages_then_the_extensions_then_the_rest(demo) -> None:
    second_map(demo)
    site = demo.render()
    nav = site_nav(list(site.maps), site.pages, ["extensions/demo-ext.md", "extensions/hand.md", "about.md", "a.md"])
    pages = [{"Summary": "{}/index.md"}, {"The full map": "{}/map.md"}, {"Problems in the code": "{}/problems.md"},
             {"Census": "{}/census.md"}, {"What changed": [{"All editions": "{}/editions/index.md"},
                                                           {"0.8.0 → 1.0.0": "{}/editions/0.8.0-to-1.0.0.md"}]}]

    def of(name):
        return [{k: (v.format(name) if isinstance(v, str) else [{t: p.format(name) for t, p in e.items()} for e in v])
                 for k, v in item.items()} for item in pages]

    assert nav == [{"Home": "index.md"}, {"How demo decides": of("demo")}, {"How other decides": of("other")},
                   {"Extensions": [{"All extensions": "extensions/index.md"}, {"demo-ext": "extensions/demo-ext.md"},
                                   {"hand": "extensions/hand.md"}]},
                   "a.md", "about.md"]


def test_the_navigation_leaves_out_pages_a_map_does_not_have() -> None:
    class Edition:
        def __init__(self, old, new):
            self.from_version, self.to_version, self.slug = old, new, f"{old}-to-{new}"

    class Map:
        name, title, editions = "x", "How *x* <b>decides</b>", (Edition("1", "2"), Edition("2", "3"))

    nav = site_nav([Map()], ["x/map.md", "x/editions/index.md", "x/editions/2-to-3.md",
                             "extensions/e/editions/1.0.0-to-1.1.0.md", "extensions/e.md"])
    assert nav == [{"Home": "index.md"},
                   {"How x &lt;b&gt;decides&lt;/b&gt;": [{"The full map": "x/map.md"}, {"What changed": [
                       {"All editions": "x/editions/index.md"}, {"2 → 3": "x/editions/2-to-3.md"}]}]},
                   {"Extensions": [{"e": "extensions/e.md"},
                                   {"e 1.0.0 → 1.1.0": "extensions/e/editions/1.0.0-to-1.1.0.md"}]}]
    assert site_nav([Map()], ["x/census.md"])[1:] == [{"How x &lt;b&gt;decides&lt;/b&gt;": [{"Census": "x/census.md"}]}]
    # a map that never moved to another release; quotes stay as they are (a nav title is text, not an attribute)
    Map.editions, Map.title = (), "How \"x\" & 'y' decide"
    assert site_nav([Map()], ["x/map.md"]) == [{"Home": "index.md"},
                                               {"How \"x\" &amp; 'y' decide": [{"The full map": "x/map.md"}]}]
    # a page listed under a map is not listed again as another page
    assert site_nav([Map()], ["x/map.md"], ["x/map.md", "b.md"])[2:] == ["b.md"]


@pytest.mark.parametrize("path, download, entry", [
    ("downloads/pi-decision-map.md", True, False), ("pi/D1.md", False, True), ("pi/P12.md", False, True),
    ("pi/A1234.md", False, True), ("pi/A12345.md", False, False), ("pi/d1.md", False, False),
    ("pi/D.md", False, False), ("D1.md", False, False), ("pi/x/D1.md", False, False), ("pi/D1.mdx", False, False),
    ("pi/DD1.md", False, False), ("xpi/downloads/D1.md", False, False), ("pi/downloads.md", False, False)])
def test_which_paths_are_downloads_and_which_are_entry_pages(path, download, entry) -> None:
    assert (is_download(path), is_entry_page(path)) == (download, entry)


def test_the_home_page_names_three_maps_in_one_sentence(demo) -> None:
    second_map(demo, "other")
    second_map(demo, "third")
    home = demo.render().pages["index.md"]
    assert ("[demo](https://github.com/example/demo), [other](https://github.com/example/other) and "
            "[third](https://github.com/example/third) are coding agents: you give one a task") in home


# --- the loop, drawn ----------------------------------------------------------------------------------------


def add_decision(demo: Inputs, entry_id: str, question: str, who: str = "code", extra: str = "") -> None:
    (demo.folder / f"{entry_id}.yaml").write_text(
        f"id: {entry_id}\nquestion: {question}\ndecided_by: {who}\nanswer: It is {who}.\n{extra}"
        "cites:\n  - file: src/session.ts\n    lines: 5\n")


def caption(page: str, name: str) -> str:
    return section(page, f'<figcaption id="dm-loop-{name}-caption">', " <span class=\"dm-legend\">")


def test_with_three_stages_or_more_the_loop_says_where_a_run_starts_and_ends(demo) -> None:
    replace_in(demo.folder / "map.yaml", "  - id: G\n", "  - id: T\n    title: API calls, and what they send\n"
               "  - id: U\n    title: Tools; the rest\n  - id: G\n")
    add_decision(demo, "T1", "Which API is called?")
    add_decision(demo, "U1", "Which tool runs?")
    site = demo.render()
    assert caption(site.pages["demo/index.md"], "summary") == (
        '<figcaption id="dm-loop-summary-caption">How a run of demo goes: it starts (permission), goes round the loop '
        "once per turn (API calls, tools) and ends (ending a run). Each tile is one decision, placed where it happens; "
        "its colour and its shape say who decides. Select one to read it.")
    assert caption(site.pages["index.md"], "home-demo").startswith(
        '<figcaption id="dm-loop-home-demo-caption">How a run of demo goes: it starts (permission)')
    assert caption(site.pages["extensions/demo-ext.md"], "ext-demo-ext") == (
        '<figcaption id="dm-loop-ext-demo-ext-caption">The decisions demo-ext changes, in demo’s loop: 1 drawn with '
        "who decides once demo-ext is installed; the others faded. How a run of demo goes: it starts (permission), "
        "goes round the loop once per turn (API calls, tools) and ends (ending a run). Each tile is one decision, "
        "placed where it happens; its colour and its shape say who decides. Select one to read it.")


def test_a_stage_named_by_an_abbreviation_keeps_its_capital_in_the_loop_s_caption(demo) -> None:
    replace_in(demo.folder / "map.yaml", "  - id: G\n", "  - id: K\n    title: K8s jobs, and where they run\n"
               "  - id: G\n")
    add_decision(demo, "K1", "Which cluster runs the job?")
    assert "goes round the loop once per turn (K8s jobs) and ends (ending a run)" in caption(
        demo.render().pages["demo/index.md"], "summary")  # an ordinary word lower-cased, a name kept as written


def test_a_stage_s_first_word_alone_is_lower_cased_in_the_loop_s_caption(demo) -> None:
    replace_in(demo.folder / "map.yaml", "  - id: G\n", "  - id: R\n    title: \"A\\tsecond try at the LLM; backoff\"\n"
               "  - id: O\n    title: OAuth tokens\n  - id: G\n")
    add_decision(demo, "R1", "Is the call tried again?")
    add_decision(demo, "O1", "Is the token refreshed?")
    # a one-letter word too (a tab after it read as a space); the name after it kept; a name with a capital inside kept
    assert "goes round the loop once per turn (a second try at the LLM, OAuth tokens) and ends (ending a run)" in \
        caption(demo.render().pages["demo/index.md"], "summary")


def test_with_fewer_stages_the_loop_names_the_map(demo) -> None:
    assert caption(demo.render().pages["demo/index.md"], "summary") == (
        '<figcaption id="dm-loop-summary-caption">The decisions of demo, stage by stage; the colour and the shape of '
        "each tile say who decides. Select one to read it.")


def node(page: str, entry_id: str, href: str | None = None) -> str:
    """The tile of one decision in a page's first drawing: its class and its label."""
    figure = section(page, "<figure", "</figure>")
    return re.search(rf'<a class="([^"]*)" href="{re.escape(href or entry_id + ".md")}" aria-label="([^"]*)"',
                     figure).groups()


def test_an_extension_s_drawing_shows_who_decides_once_it_is_installed(demo) -> None:
    overlay = demo.folder / "extensions" / "demo-ext.yaml"
    replace_in(overlay, "      decided_by: person\n      answer: You decide",
               "      decided_by: person\n      overrides:\n"
               "        - by: code\n          can: end it after three asks\n          when: It stops asking.\n"
               "        - by: model\n          when: It may stop anyway.\n"
               "        - by: code\n          can: end it at once\n          when: On an error.\n"
               "      answer: You decide")
    replace_in(overlay, "    related: [G1, D1]\n", "    related: [G1, D1]\n    overridden: [D2]\n")
    replace_in(overlay, "      decided_by: code\n      answer: Code stops", "      decided_by: code\n      overrides:\n"
               "        - by: person\n          can: stop counting\n          when: At any time.\n"
               "      answer: Code stops")
    page = demo.render().pages["extensions/demo-ext.md"]
    assert node(page, "G1", "../demo/G1.md") == (
        "dm-node dm-node--person dm-node--changed",
        "G1: Is the work finished, so the run may stop? Decided by a person; plain code can end it after three asks "
        "or end it at once; an AI model can overrule; changed by this extension.")
    # D2's answer no longer holds with it: drawn in the holder of the decision that takes its place
    assert node(page, "D2", "../demo/D2.md") == (
        "dm-node dm-node--code dm-node--changed",
        "D2: Who approves a tool that is marked risky? Decided by plain code; a person can stop counting; changed by "
        "this extension.")
    assert node(page, "D1", "../demo/D1.md") == (
        "dm-node dm-node--code dm-node--related",
        "D1: Is a person asked before a tool&#95;call runs? Decided by plain code; this extension adds a decision next "
        "to it.")
    assert "in demo’s loop: 2 drawn with who decides once demo-ext is installed" in page


# --- an extension pinned on npm ------------------------------------------------------------------------------

NPM_OVERLAY = """\
extension: demo-npm
package: "demo-npm"
version: "1.2.0"
integrity: sha512-AAAA
checked_at: "1.2.0"
summary: Blocks every tool call.
levers:
  - lever: tool_call
    kind: event
    decisions: [D1]
    text: It blocks every call.
    cites:
      - file: index.js
        lines: 2
connects: []
runs: []
unchanged: []
changes:
  - decision: D1
    how: It blocks.
    without:
      decided_by: code
      answer: Runs.
    with:
      decided_by: code
      answer: Blocked.
"""
NPM_INDEX = 'export default function (pi) {\n  pi.on("tool_call", () => ({ block: true }));\n}\n'


@pytest.fixture
def npm_demo(demo, tmp_path, monkeypatch) -> Inputs:
    """The demo with an extension pinned on npm, demo-npm 1.2.0, whose package is read from a folder
    (1.1.0: the same code one line lower)."""
    import generator.site.render as render

    packages = {("npm-demo-npm", "1.2.0"): tmp_path / "demo-npm-1.2.0",
                ("npm-demo-npm", "1.1.0"): tmp_path / "demo-npm-1.1.0"}
    for (_, version), folder in packages.items():
        folder.mkdir()
        (folder / "index.js").write_text(("// 1.1.0\n" if version == "1.1.0" else "") + NPM_INDEX)
    (demo.folder / "extensions" / "demo-npm.yaml").write_text(NPM_OVERLAY)
    real = render.Trees

    def npm_trees(extension, quiet):
        assert quiet is True, "an npm extension's package is fetched quietly (the map's own fetch speaks for the build)"
        return real(extension, quiet, fetch=lambda m, v: tree(packages[(m.name, v)], v))

    monkeypatch.setattr(render, "Trees", npm_trees)
    return demo


def test_an_extension_pinned_on_npm_shows_its_levers_with_their_code(npm_demo) -> None:
    site = npm_demo.render()
    page = site.pages["extensions/demo-npm.md"]
    assert page.startswith("# demo-npm\n\n" + PIN + " (10 KB)\n{: .dm-pinline }\n")  # as on every page of the map
    lever = section(page, "### <code>tool&#95;call</code> · event { #lever-1", "## Its probe")
    assert "[index.js:2](https://unpkg.com/demo-npm@1.2.0/index.js){ .dm-permalink }" in lever
    assert '```js linenums="2"\npi.on("tool_call", () => ({ block: true }));\n```' in lever
    assert "It has no probe yet." in page
    assert ("**Mapped npm extensions that change it:** [demo-npm](../extensions/demo-npm.md) "
            "(<code>tool&#95;call</code>) · [all extensions](../extensions/index.md)") in site.pages["demo/D1.md"]
    assert "Mapped npm extensions" not in site.pages["demo/D2.md"]


def test_an_extension_pinned_on_npm_shows_its_probe_when_it_ran(npm_demo) -> None:
    script = npm_demo.folder / "extensions" / "probes" / "demo-npm.mjs"
    script.parent.mkdir()
    script.write_text("console.log(JSON.stringify({blocked: true}));\n")
    replace_in(npm_demo.folder / "extensions" / "demo-npm.yaml", "changes:\n",
               "probe:\n  shows: A call is blocked.\n  expect: {blocked: true}\nchanges:\n")
    assert "Its probe did not run for this build" in npm_demo.render().pages["extensions/demo-npm.md"]
    result = ProbeResult(script, id="demo-npm", result={"blocked": True}, version="1.2.0")
    page = npm_demo.render(probes={"demo-npm": result}).pages["extensions/demo-npm.md"]
    probe = section(page, "## Its probe")
    assert "A call is blocked." in probe
    assert '<span class="dm-probe dm-probe--holds">Holds with demo 1.2.0</span>' in probe
    assert '```json\n{\n  "blocked": true\n}\n```' in probe


def test_each_move_of_an_npm_extension_has_its_page(npm_demo) -> None:
    editions = npm_demo.folder / "extensions" / "demo-npm" / "editions"
    editions.mkdir(parents=True)
    (editions / "1.1.0-to-1.2.0.yaml").write_text(
        'from: "1.1.0"\nto: "1.2.0"\ndate: 2026-11-20\ncitations:\n  - {id: demo-npm, file: index.js, old: "3", '
        'new: "2", checked_at: "1.1.0", status: moved, claim: 123456789abc}\n')
    site = npm_demo.render()
    page = site.pages["extensions/demo-npm/editions/1.1.0-to-1.2.0.md"]
    assert page.startswith("# What changed in demo-npm 1.2.0, since 1.1.0\n\n"
                           + PIN.replace("../demo/", "../../../demo/"))
    assert "moved from <code>demo-npm</code> 1.1.0 to 1.2.0" in page
    nav = site_nav(list(site.maps), site.pages)
    assert nav[-1] == {"Extensions": [{"All extensions": "extensions/index.md"}, {"demo-ext": "extensions/demo-ext.md"},
                                      {"demo-npm": "extensions/demo-npm.md"},
                                      {"demo-npm 1.1.0 → 1.2.0": "extensions/demo-npm/editions/1.1.0-to-1.2.0.md"}]}


def test_code_of_an_npm_extension_not_ok_at_its_pin_stops_the_render(npm_demo) -> None:
    replace_in(npm_demo.folder / "extensions" / "demo-npm.yaml", "        lines: 2\n", '        lines: 3\n'
               '        version: "1.1.0"\n')
    with pytest.raises(DriftError) as caught:
        npm_demo.render()
    [problem] = caught.value.problems
    assert problem.message.startswith("demo-npm cites index.js:3-3, which is moved at 1.2.0, now at 2-2")
    assert caught.value.version == "1.2.0"


# --- an entry's page: its code ------------------------------------------------------------------------------


@pytest.fixture
def long_source(demo, tmp_path) -> Inputs:
    """The demo's 1.0.0 with src/long.ts: 700 numbered lines, indented by a tab, with CRLF line ends."""
    folder = tmp_path / "upstream-long"
    shutil.copytree(SOURCES["1.0.0"], folder)
    (folder / "src" / "long.ts").write_bytes(b"".join(b"\tconst line%d = %d;\r\n" % (n, n) for n in range(1, 701)))
    demo.sources["1.0.0"] = folder
    return demo


def cite(entry: Path, lines: str, file: str = "src/long.ts", note: str | None = None) -> None:
    """Add a citation to an entry's top-level `cites` (its last key)."""
    extra = f"    note: {note}\n" if note else ""
    entry.write_text(entry.read_text().rstrip("\n") + f"\n  - file: {file}\n    lines: {lines}\n{extra}")


def test_a_short_range_shows_open_and_a_long_one_closed(long_source) -> None:
    cite(long_source.folder / "D2.yaml", "1-40")
    cite(long_source.folder / "D2.yaml", "41-81")
    page = long_source.render().pages["demo/D2.md"]
    code = section(page, "## Where in the code")
    assert ('<details class="dm-code" open markdown>\n<summary>40 lines of <code>src/long.ts</code> at demo '
            "1.0.0</summary>") in code
    assert '<details class="dm-code" markdown>\n<summary>41 lines of <code>src/long.ts</code> at demo 1.0.0</summary>' \
        in code
    # the lines as they are, without the carriage returns, their common indentation (a tab) removed
    assert '```ts linenums="41"\nconst line41 = 41;\nconst line42 = 42;\n' in code
    assert "\r" not in page


def test_more_than_600_cited_lines_show_as_plain_text(long_source) -> None:
    cite(long_source.folder / "D2.yaml", "1-599")
    page = long_source.render().pages["demo/D2.md"]  # with D2's own line: 600
    assert "linenums" in section(page, "## Where in the code") and ", lines 1-599</summary>" not in page
    cite(long_source.folder / "D2.yaml", "650-700")
    page = long_source.render().pages["demo/D2.md"]
    code = section(page, "## Where in the code")
    assert "linenums" not in code
    assert "<summary>599 lines of <code>src/long.ts</code> at demo 1.0.0, lines 1-599</summary>" in code
    assert "<summary>1 line of <code>src/session.ts</code> at demo 1.0.0, lines 5</summary>" in code
    assert "```text\nconst line650 = 650;\n" in code


def test_tabs_are_four_columns_and_the_common_indentation_goes(long_source) -> None:
    (long_source.sources["1.0.0"] / "src" / "long.ts").write_text("\t\tdeep();\n\tshallow();\n\tconst X\n")
    cite(long_source.folder / "D2.yaml", "1-3")
    page = long_source.render().pages["demo/D2.md"]
    assert '```ts linenums="1"\n    deep();\nshallow();\nconst X\n```' in page  # a line's last letter too


def test_a_range_cited_twice_shows_once_with_the_note_of_the_citation_that_has_one(long_source) -> None:
    d2 = long_source.folder / "D2.yaml"
    cite(d2, "3-4", note="the third line")
    d2.write_text(d2.read_text() + "exceptions:\n  - text: Not always.\n    cites:\n      - file: src/long.ts\n"
                  "        lines: 3-4\n      - file: src/long.ts\n        lines: 9\n")
    page = long_source.render().pages["demo/D2.md"]
    code = section(page, "## Where in the code")
    assert code.count('<div class="dm-cite"') == 3
    assert "[long.ts:3-4](https://github.com/example/demo/blob/v1.0.0/src/long.ts#L3-L4){ .dm-permalink } in " \
           "<code>line3, line4</code> · the third line" in code
    # the exception links to the excerpts by their places under *Where in the code*
    assert "- Not always. [long.ts:3-4](#code-2){ .dm-item-cite } [long.ts:9](#code-3){ .dm-item-cite }\n" in page
    assert '<div class="dm-cite" id="code-3" markdown>\n\n[long.ts:9]' in code
    assert "**Exception:** when the answer above does not hold" in page
    assert '<span class="dm-count">1 exception</span>' in page


def test_of_two_notes_on_one_range_the_first_speaks_for_it(long_source) -> None:
    d2 = long_source.folder / "D2.yaml"
    cite(d2, "5-6", note="the fifth line")
    cite(d2, "5-6", note="the sixth line")
    code = section(long_source.render().pages["demo/D2.md"], "## Where in the code")
    assert "in <code>line5, line6</code> · the fifth line" in code and "the sixth line" not in code


# --- an entry's page: its probe ---------------------------------------------------------------------------


def probe_section(page: str) -> str:
    return section(page, "{ #probe data-search-exclude }", "## Where in the code")


def test_a_probe_that_ran_shows_its_claim_script_result_and_command(demo) -> None:
    script = with_probe(demo)
    without = demo.render().pages["demo/D1.md"]
    assert "{ #probe" not in without  # not run in this build: nothing is claimed
    page = demo.render(probes={"D1": ProbeResult(script, message="Took the slow path.")}).pages["demo/D1.md"]
    assert "## Demonstrated by running demo 1.0.0 { #probe data-search-exclude }" in page
    probe = probe_section(page)
    assert "A tool call runs with nobody asked.\n{: .dm-fact }" in probe
    assert ('<span class="dm-probe dm-probe--holds">Holds at demo 1.0.0</span> The script runs demo\'s own code at '
            "1.0.0, installed from npm, and prints one JSON object; the claim holds when the result has "
            "<code>asked: false, ran: true</code>. It took 1.5 s in this build. Took the slow path.\n") in probe
    assert "```sh\npython -m generator probe D1\n```" in probe
    assert "<summary>The script, <code>D1.mjs</code></summary>\n\n```js\nconst ran = true;\n" \
           "console.log(JSON.stringify({asked: false, ran}));\n```" in probe
    assert ('<summary>Its result at demo 1.0.0</summary>\n\n```json\n{\n  "asked": false,\n  "ran": true\n}\n```'
            in probe)
    assert "The module it imports" not in probe and "printed or sent" not in probe


def test_a_probe_script_and_its_module_are_shown_as_written_whatever_the_locale(demo, ascii_locale) -> None:
    """A probe script and the module it imports are UTF-8 (a comment's "→", a string's "é"): the page
    shows them so under a locale of another encoding too."""
    script = with_probe(demo)
    (script.parent / "_session.mjs").write_bytes("export const ran = 'caf\u00e9';\n".encode("utf-8"))
    script.write_bytes('import { ran } from "./_session.mjs";\n// asked \u2192 never\n'
                       "console.log(JSON.stringify({asked: false, ran}));\n".encode("utf-8"))
    with ascii_locale():
        probe = probe_section(demo.render(probes={"D1": ProbeResult(script)}).pages["demo/D1.md"])
    assert "\n// asked \u2192 never\nconsole.log(" in probe
    assert "```js\nexport const ran = 'caf\u00e9';\n```" in probe


@pytest.mark.parametrize("status, shown", [("fails", "Does not hold"), ("error", "Could not run"),
                                           (None, "Could not run")])
def test_a_probe_that_did_not_hold_says_so(demo, status, shown) -> None:
    result = ProbeResult(with_probe(demo), status=status, seconds=None, version="1.1.0")
    if status is None:
        del result.status
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    # the badge's colour: a result without a status is an error too
    assert f'<span class="dm-probe dm-probe--{status or "error"}">{shown} at demo 1.1.0</span>' in probe
    assert "It took" not in probe


def test_what_pi_printed_is_shown_cut_to_600_characters(demo) -> None:
    script = with_probe(demo)
    long = "x" * 601
    result = ProbeResult(script, result={"asked": False, "observed": {"reply_stdout": long, "code": 0, "empty": " ",
                                                                        "stderr": "warning"}})
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert "**What demo printed or sent** in this run, an excerpt:" in probe
    observed = section(probe, '<div class="dm-observed"', "</div>")
    assert re.findall(r'<p class="dm-observed__label">(.*?)</p>', observed) == ["reply stdout", "stderr"]
    assert f"```text\n{'x' * 600} …\n```" in observed and "```text\nwarning\n```" in observed
    # the result shown is the rest of it
    assert '```json\n{\n  "asked": false\n}\n```' in probe


def test_without_an_observed_object_the_text_values_of_the_result_are_shown(demo) -> None:
    script = with_probe(demo)
    exact = "y" * 600
    result = ProbeResult(script, result={"asked": False, "cut_reply": exact, "n": 3})
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert re.findall(r'<p class="dm-observed__label">(.*?)</p>', probe) == ["cut reply"]
    assert f"```text\n{exact}\n```" in probe
    assert '"cut_reply": "' in probe  # the result keeps it too
    # an `observed` that is no object is not what pi printed: it is left out with the rest of the result
    result = ProbeResult(script, result={"observed": "not an object", "cut_reply": "z"})
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert re.findall(r'<p class="dm-observed__label">(.*?)</p>', probe) == ["cut reply"]
    for outcome in (None, ["a list"]):
        probe = probe_section(demo.render(probes={"D1": ProbeResult(script, result=outcome)}).pages["demo/D1.md"])
        assert "printed or sent" not in probe
        shown = ('```json\n[\n  "a list"\n]\n```' if outcome
                 else "<summary>Its result at demo 1.0.0</summary>\n\n```json\n\n```")
        assert shown in probe


def test_a_probe_shows_the_modules_it_imports_and_survives_a_missing_script(demo) -> None:
    script = with_probe(demo)
    (script.parent / "_session.mjs").write_text("export const ran = true;\n\n")
    script.write_text('import { ran } from "./_session.mjs";\nconsole.log(JSON.stringify({asked: false, ran}));\n')
    probe = probe_section(demo.render(probes={"D1": ProbeResult(script)}).pages["demo/D1.md"])
    assert ('<summary>The module it imports, <code>&#95;session.mjs</code></summary>\n\n```js\nexport const ran = true;'
            "\n```") in probe
    # the script the result names is the one shown; one that cannot be read shows empty
    other = demo.decisions.parent / "other.mjs"
    other.write_text("console.log(1);\n")
    probe = probe_section(demo.render(probes={"D1": ProbeResult(other)}).pages["demo/D1.md"])
    assert "<summary>The script, <code>other.mjs</code></summary>\n\n```js\nconsole.log(1);\n```" in probe
    probe = probe_section(demo.render(probes={"D1": ProbeResult(script.parent / "gone.mjs")}).pages["demo/D1.md"])
    assert "<summary>The script, <code>gone.mjs</code></summary>\n\n```js\n\n```" in probe
    assert "The module it imports" not in probe
    # a result without a script of its own: the entry's
    result = ProbeResult(script)
    result.script = None
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert "<summary>The script, <code>D1.mjs</code></summary>" in probe
    del result.script  # nor when it carries no script at all
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert "<summary>The script, <code>D1.mjs</code></summary>" in probe


def test_the_script_and_its_module_are_shown_to_their_last_character(demo) -> None:
    script = with_probe(demo)
    (script.parent / "_limits.mjs").write_text("export const MAX = 3;\nexport const LIMIT = MAX\n")
    script.write_text('import { LIMIT } from "./_limits.mjs";\nconsole.log(JSON.stringify({asked: false, ran: true}))'
                      '\n// LIMIT is MAX\n')
    probe = probe_section(demo.render(probes={"D1": ProbeResult(script)}).pages["demo/D1.md"])
    assert "```js\nexport const MAX = 3;\nexport const LIMIT = MAX\n```" in probe
    assert "ran: true}))\n// LIMIT is MAX\n```" in probe


def test_a_result_s_text_is_shown_as_written_not_escaped(demo) -> None:
    result = ProbeResult(with_probe(demo), result={"asked": False, "said": "l’extension"})
    probe = probe_section(demo.render(probes={"D1": result}).pages["demo/D1.md"])
    assert '```json\n{\n  "asked": false,\n  "said": "l’extension"\n}\n```' in probe
    assert "It took 1.5 s in this build.\n" in probe  # and no message after it: the run said nothing more


def test_the_probe_s_expectation_is_shown_as_json(demo) -> None:
    script = with_probe(demo)
    replace_in(demo.folder / "D1.yaml", "expect: {asked: false, ran: true}", 'expect: {said: "no", n: 2, gone: null}')
    probe = probe_section(demo.render(probes={"D1": ProbeResult(script)}).pages["demo/D1.md"])
    assert 'the claim holds when the result has <code>said: "no", n: 2, gone: null</code>.' in probe


# --- what an entry's page says of its review, its problem, its holders -----------------------------------


def older_edition(demo: Inputs) -> None:
    """An earlier move, 0.7.0 → 0.8.0, in which D1 and D2 held (no 0.7.0 source is needed)."""
    (demo.folder / "editions" / "0.7.0-to-0.8.0.yaml").write_text(
        'from: "0.7.0"\nto: "0.8.0"\ndate: 2026-10-01\ncitations:\n'
        '  - {id: D2, file: src/session.ts, old: "5", new: "5", checked_at: "0.7.0", status: ok, claim: 9a1b64d9f957}\n'
        '  - {id: D1, file: src/session.ts, old: "7-12", new: "7-12", checked_at: "0.7.0", status: ok,'
        ' claim: 5a1bd959adf6}\n')


def review_line(page: str) -> str:
    return section(page, "**Second reading:**", "\n{: .dm-reviewed }")


def reviewed(demo: Inputs, entry: str, version: str, date: str = "2026-11-01", extra: str = "") -> None:
    path = demo.folder / f"{entry}.yaml"
    text = re.sub(r"reviewed:\n(  .*\n)+", "", path.read_text())
    path.write_text(text + f'reviewed:\n  version: "{version}"\n  date: {date}\n{extra}')


@pytest.mark.parametrize("entry, version, said", [
    ("D1", "1.0.0", ""),
    ("D2", "0.8.0", " When the map moved to 1.0.0, this entry's cited code stayed the same, at the same lines, so that "
                    "reading still applies to the code shown here."),
    ("D1", "0.8.0", " When the map moved to 1.0.0, this entry's cited code only moved to other lines (the same code), "
                    "so that reading still applies to the code shown here."),
    ("D1", "0.7.0", " When the map moved to 1.0.0, this entry's cited code only moved to other lines (the same code), "
                    "so that reading still applies to the code shown here."),
    ("P1", "0.8.0", " When the map moved to 1.0.0, some of this entry's cited code changed; it was re-read against "
                    "1.0.0 and the text kept, but that re-reading has not had a second reader yet."),
    ("G1", "0.8.0", " When the map moved to 1.0.0, this entry's text was re-written for 1.0.0; the new text has not "
                    "had a second reader yet."),
    ("D1", "0.9.0", " The code shown here is from 1.0.0."),
    ("D1", "0.10.0", " The code shown here is from 1.0.0."),  # 0.10.0 comes after 0.8.0
])
def test_the_review_line_says_what_happened_to_the_code_since_it_was_read(demo, entry, version, said) -> None:
    older_edition(demo)
    reviewed(demo, entry, version)
    page = demo.render().pages[f"demo/{entry}.md"]
    assert review_line(page) == f"**Second reading:** against the code of demo {version}, on 2026-11-01.{said}"


def test_the_review_line_says_who_read_what_and_the_census_counts_them(demo) -> None:
    reviewed(demo, "G1", "1.0.0", "2026-11-05", "  by: a *careful* reader\n  checked: every claim\n")
    reviewed(demo, "P1", "0.8.0", "2026-10-30")
    site = demo.render()
    assert review_line(site.pages["demo/G1.md"]) == (
        "**Second reading:** against the code of demo 1.0.0, on 2026-11-05, by a <em>careful</em> reader. What was "
        "checked: every claim.")
    census = site.pages["demo/census.md"]
    assert "| Entries checked by a second reader | 3 of 4, 2 of them against 1.0.0, the latest on 2026-11-05 |" \
        in census
    assert "| Last check | 2026-11-05 |" in census
    assert "No second reader has signed this entry yet." in site.pages["demo/D2.md"]


def test_the_last_check_is_the_newest_date_the_map_records(demo) -> None:
    for path in demo.folder.glob("*.yaml"):
        path.write_text(re.sub(r"\n *checked: 20\S+", "", re.sub(r"reviewed:\n(  .*\n)+", "", path.read_text())))
    replace_in(demo.folder / "P1.yaml", "upstream:\n", "upstream:\n  checked: 2026-10-01\n")
    census = demo.render().pages["demo/census.md"]
    assert "| Last check | 2026-10-01 |" in census
    assert "| Entries checked by a second reader | 0 of 4 |" in census
    replace_in(demo.folder / "D2.yaml", "    status: closed as fixed\n", "    status: closed as fixed\n"
               "    checked: 2026-10-15\n")
    assert "| Last check | 2026-10-15 |" in demo.render().pages["demo/census.md"]
    replace_in(demo.folder / "map.yaml", "summary:", "checked: 2026-12-01\nsummary:")
    assert "| Last check | 2026-12-01 |" in demo.render().pages["demo/census.md"]


def test_a_map_that_records_no_date_says_its_last_check_is_not_recorded(demo) -> None:
    (demo.folder / "P1.yaml").unlink()  # a problem records when its upstream report was checked
    shutil.rmtree(demo.folder / "editions")  # (whose edition names it)
    for path in demo.folder.glob("*.yaml"):
        path.write_text(re.sub(r"\n *checked: 20\S+", "", re.sub(r"reviewed:\n(  .*\n)+", "", path.read_text())))
    pages = demo.render().pages
    assert "| Last check | not recorded |" in pages["demo/census.md"]
    assert "| Last check | not recorded |" in pages["downloads/demo-decision-map.md"]


@pytest.mark.parametrize("title, heading", [
    ("Pi decides", "pi decides"), ("Pi", "pi"),  # a capital that only starts the sentence goes lower
    ("PI decisions", "PI decisions"), ("P", "P"),  # an acronym, a single letter: kept
])
def test_the_editions_page_puts_the_map_s_title_into_its_heading(demo, title, heading) -> None:
    replace_in(demo.folder / "map.yaml", "title: How demo decides", f"title: {title}")
    page = demo.render().pages["demo/editions/index.md"]
    assert page.startswith(f"# What changed in {heading}: every edition\n")


def test_a_problem_fixed_at_or_before_the_pin_is_fixed_and_one_fixed_later_is_open(demo) -> None:
    for fixed_in, fixed in (("1.0.0", True), ("0.10.0", True), ("1.0.1", False), ("1.10", False)):
        path = demo.folder / "P1.yaml"
        path.write_text(re.sub(r"  fixed_in: .*\n", "", path.read_text()).replace(
            "  status: open, no fix proposed\n", "  status: open, no fix proposed\n").replace(
            "upstream:\n", f'upstream:\n  fixed_in: "{fixed_in}"\n'))
        site = demo.render()
        badge = (f'<span class="dm-status dm-status--fixed">Fixed in demo {fixed_in}</span>' if fixed else
                 f'<span class="dm-status dm-status--open">Open at demo 1.0.0; fixed upstream in {fixed_in}</span>')
        assert badge in site.pages["demo/P1.md"], fixed_in
        assert ("| Problems | 1: 0 open at 1.0.0, 1 fixed in an earlier release |" in site.pages["demo/census.md"]) \
            == fixed, fixed_in
        assert ("| Problems | 1 |" in site.pages["demo/census.md"]) != fixed
        assert ('title: "P1 · The description' in site.pages["demo/P1.md"])
        description = site.pages["demo/P1.md"].split("\n")[2]
        assert description.startswith(f'description: "P1: The description of a session ends in raw &lt;/details&gt; '
                                      f'markup {"Fixed in demo " + fixed_in if fixed else "Open at demo 1.0.0"}. ')


def test_only_a_problem_s_own_record_makes_it_fixed(demo) -> None:
    # a decision's record of a fix is not a problem's
    replace_in(demo.folder / "D2.yaml", "failures:", 'upstream:\n  issue: 3\n  status: fixed\n  checked: 2026-11-02\n'
               '  fixed_in: "0.9.0"\nfailures:')
    site = demo.render()
    assert "Fixed in" not in site.pages["demo/D2.md"]
    assert "| Problems | 1 |" in site.pages["demo/census.md"]


def override(demo: Inputs, entry: str, by: str, when: str, can: str | None = None) -> None:
    """Add an override to an entry (before its top-level `cites`)."""
    path = demo.folder / f"{entry}.yaml"
    text = path.read_text()
    item = f"  - by: {by}\n" + (f"    can: {can}\n" if can else "") + f"    when: {when}\n    cites: {SOME_LINE}\n"
    if "\noverrides:\n" in text:
        text = text.replace("\noverrides:\n", "\noverrides:\n" + item, 1)
    else:
        text = text.replace("\ncites:\n", "\noverrides:\n" + item + "cites:\n", 1)
    path.write_text(text)


def test_who_can_overrule_is_counted_once_per_decision_and_once_per_holder(demo) -> None:
    override(demo, "D1", "person", "at a prompt", "stop the call")
    override(demo, "D1", "model", "when it asks")
    override(demo, "D1", "person", "in a setting", "stop the call")
    override(demo, "G1", "code", "when a hook says so")
    site = demo.render()
    census = site.pages["demo/census.md"]
    assert ("| Can overrule the default holder | Decisions | Share |\n|---|--:|--:|\n| Plain code | 1 | 33% |\n"
            "| AI model | 1 | 33% |\n| Person | 1 | 33% |\n| Any of them (another holder, or other code) | 2 | 67% |") \
        in census
    assert "because 1 decision (D1) can be overruled by two holders and is counted in both rows" in census
    index = site.pages["demo/map.md"]
    assert 'data-dm-overrule aria-pressed="false">Can be overruled <span class="dm-chip__count">2</span>' in index
    rows = {m.group(1): m.group(0) for m in re.finditer(r'<div class="dm-row" id="\w+" data-id="(\w+)"[^\n]*', index)}
    assert "data-overrule=" in rows["D1"] and "data-overrule=" in rows["G1"] and "data-overrule=" not in rows["D2"]
    assert 'data-overrule="person model"' in rows["D1"]  # each holder once, as a list of words
    d1 = site.pages["demo/D1.md"]
    # one badge per holder, saying what it can do (the person's two overrides name the same action)
    assert ('<span class="dm-badge dm-badge--person dm-badge--overrule">Person can stop the call</span> '
            '<span class="dm-badge dm-badge--model dm-badge--overrule">AI model can overrule</span>') in d1
    assert "**Who can overrule it:** <span class=\"dm-badge dm-badge--code\">Plain code</span> decides by default" in d1
    assert ("- <span class=\"dm-badge dm-badge--person\">Person</span> **can stop the call:** at a prompt "
            "[session.ts:5](#code-") in d1
    assert "- <span class=\"dm-badge dm-badge--model\">AI model</span> **can overrule it:** when it asks " in d1
    # code that overrules the model is plain code; code that overrules code is other code
    assert '<span class="dm-badge dm-badge--code dm-badge--overrule">Plain code can overrule</span>' in \
        site.pages["demo/G1.md"]


def test_code_that_overrules_code_is_other_code(demo) -> None:
    override(demo, "D1", "code", "an extension's handler", "replace the check")
    assert '<span class="dm-badge dm-badge--code dm-badge--overrule">Other code can replace the check</span>' in \
        demo.render().pages["demo/D1.md"]


def test_with_no_overrides_the_census_has_no_overrule_table(demo) -> None:
    census = demo.render().pages["demo/census.md"]
    assert "Can overrule the default holder" not in census and "Can be overruled" not in census


def test_the_most_cited_files_come_first_and_files_cited_as_often_by_name(demo, tmp_path: Path) -> None:
    upstream = tmp_path / "upstream-with-zeta"
    shutil.copytree(SOURCES["1.0.0"], upstream)
    (upstream / "src" / "zeta.js").write_text("// Risky tools.\nexport const risky = new Set();\n")
    demo.sources["1.0.0"] = upstream
    # D2, which comes before G1 (the one entry citing src/loop.js), cites a file named after it
    replace_in(demo.folder / "D2.yaml", "    lines: 5", "    lines: 5\n  - file: src/zeta.js\n    lines: 2")
    census = demo.render().pages["demo/census.md"]
    assert ("| <code>src/session.ts</code> | 8 | 4 |\n| <code>src/loop.js</code> | 1 | 1 |\n"
            "| <code>src/zeta.js</code> | 1 | 1 |\n") in census


@pytest.mark.parametrize("ids, gaps", [
    (["D1", "D2", "G1"], "there is no group E or F"),
    (["D1", "D3", "D4", "D9", "G1"], "there is no group E or F; D1 is followed by D3; D4 is followed by D9"),
    (["D2", "G1", "G3"], "there is no group E or F; D starts at D2; G1 is followed by G3"),
    (["D1", "E1", "F1", "G1"], None),
    (["E1", "F1", "G2"], "G starts at G2"),
])
def test_the_full_map_explains_the_gaps_in_its_ids(demo, ids, gaps) -> None:
    replace_in(demo.folder / "map.yaml", "  - id: G\n", "  - id: E\n    title: Early\n  - id: F\n    title: Far\n"
               "  - id: G\n")
    for path in demo.folder.glob("[DG]*.yaml"):
        path.unlink()
    (demo.folder / "extensions" / "demo-ext.yaml").unlink()
    (demo.pages / "extensions" / "demo-ext.md").unlink()
    shutil.rmtree(demo.folder / "editions")
    replace_in(demo.folder / "map.yaml", "    ids: [D1, D2]\n", f"    ids: [{ids[0]}]\n")
    replace_in(demo.folder / "map.yaml", "    ids: [G1]\n", f"    ids: [{ids[-1]}]\n")
    for entry_id in ids:
        add_decision(demo, entry_id, f"Who decides {entry_id}?")
    page = demo.render().pages["demo/map.md"]
    if gaps is None:
        assert "The IDs have gaps" not in page
    else:
        assert f"The IDs have gaps ({gaps}) because an ID is kept as it was first given" in page


# --- the map's structure: groups, sections, neighbours, titles -----------------------------------------------


def test_a_group_map_yaml_does_not_name_comes_after_the_named_ones(demo) -> None:
    add_decision(demo, "B1", "Who picks the branch?", "model")
    add_decision(demo, "A2", "Who picks the model?")
    site = demo.render()
    index = site.pages["demo/map.md"]
    headings = re.findall(r'^## <span class="dm-id">(\w+)</span> (.*?) \{ #(group-\w+) \}$', index, re.MULTILINE)
    assert headings == [("D", "Permission", "group-d"), ("G", "Ending a run", "group-g"), ("A", "Group A", "group-a"),
                        ("B", "Group B", "group-b")]
    assert "What runs without asking you." in index and index.count('<div class="dm-rows"') == 4
    # pages in the map's order: each entry's page leads to the next, problems last
    assert "[<span class=\"dm-id\">A2</span> Who picks the model? →](A2.md)" in site.pages["demo/G1.md"]
    assert "[<span class=\"dm-id\">P1</span> The description" in site.pages["demo/B1.md"]
    a2 = site.pages["demo/A2.md"]
    assert "[The full map](map.md) › [A · Group A](map.md#group-a)" in a2
    assert '[← <span class="dm-id">G1</span>' in a2
    assert '[<span class="dm-id">B1</span> Who picks the branch? →]' in a2
    d1, p1 = site.pages["demo/D1.md"], site.pages["demo/P1.md"]
    assert "{ .dm-neighbours__before }" not in d1 and "{ .dm-neighbours__after }" in d1
    assert "{ .dm-neighbours__before }" in p1 and "{ .dm-neighbours__after }" not in p1
    assert "[Problems in the code](problems.md)" in p1 and "[The full map](map.md)" not in p1
    census = site.pages["demo/census.md"]
    assert "| Decisions | 5 in 4 groups |" in census
    assert "| [A · Group A](map.md#group-a) | 1 | 1 | 0 | 0 |" in census
    assert "| [B · Group B](map.md#group-b) | 1 | 0 | 1 | 0 |" in census
    assert "| AI model | 2 | 40% |" in census


def test_an_entry_alone_has_no_neighbours(demo) -> None:
    for path in demo.folder.glob("[DGP]*.yaml"):
        if path.stem != "D1":
            path.unlink()
    shutil.rmtree(demo.folder / "extensions")
    (demo.pages / "extensions" / "demo-ext.md").unlink()
    shutil.rmtree(demo.folder / "editions")
    replace_in(demo.folder / "map.yaml", "    ids: [D1, D2]\n", "    ids: [D1]\n")
    replace_in(demo.folder / "map.yaml", "    ids: [G1]\n", "    ids: [D1]\n")
    site = demo.render()
    assert "dm-neighbours" not in site.pages["demo/D1.md"]
    assert "demo/problems.md" not in site.pages and "demo/editions/index.md" not in site.pages
    assert "extensions/index.md" not in site.pages


def test_a_section_shows_its_entries_in_its_own_order(demo) -> None:
    replace_in(demo.folder / "map.yaml", "    ids: [D1, D2]\n", "    ids: [D2, D1]\n")
    summary = demo.render().pages["demo/index.md"]
    part = section(summary, "## What it does without asking you", "## How it decides it is done")
    assert part.index('data-id="D2"') < part.index('data-id="D1"')


@pytest.mark.parametrize("title, shown", [("How demo decides", "how demo decides"), ("API of demo", "API of demo"),
                                          ("X", "X"), ("decisions of demo", "decisions of demo")])
def test_the_map_s_title_inside_a_sentence_starts_lower_case(demo, title, shown) -> None:
    replace_in(demo.folder / "map.yaml", "title: How demo decides", f"title: {title}")
    page = demo.render().pages["demo/editions/index.md"]
    assert page.startswith(f"# What changed in {shown}: every edition\n")


def test_an_entry_s_page_links_its_map_s_issues(demo) -> None:
    replace_in(demo.folder / "map.yaml", "repo: https://github.com/example/demo",
               "repo: https://github.com/example/demo/")
    site = demo.render()
    assert "[#12](https://github.com/example/demo/issues/12) Approval asked twice" in site.pages["demo/D2.md"]
    assert ("**Upstream:** [#34](https://github.com/example/demo/issues/34) · open, no fix proposed · checked "
            "2026-11-03") in site.pages["demo/P1.md"]
    replace_in(demo.folder / "map.yaml", "repo: https://github.com/example/demo/", "repo: https://example.org/X")
    assert "[#12](https://example.org/X/issues/12)" in demo.render().pages["demo/D2.md"]


def test_a_longer_id_weighs_a_little_less_in_search(demo) -> None:
    add_decision(demo, "D10", "Who decides ten?")
    add_decision(demo, "D100", "Who decides a hundred?")
    site = demo.render()
    assert "search:\n  boost: 1.0250\n" in site.pages["demo/D1.md"]
    assert "search:\n  boost: 1.0167\n" in site.pages["demo/D10.md"]
    assert "search:\n  boost: 1.0125\n" in site.pages["demo/D100.md"]


def test_a_long_answer_is_cut_in_short_views_and_in_the_description(demo) -> None:
    sentence = "Abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij. "  # 56 characters, five words
    replace_in(demo.folder / "D2.yaml", 'answer: "You do, each time | a pipe, a {curly} brace and a # hash stay text."',
               f"answer: {sentence * 12}")
    site = demo.render()
    description = site.pages["demo/D2.md"].split("\n")[2]
    said = description.removeprefix('description: "D2: Who approves a tool that is marked risky? Decided by a person '
                                    'in demo 1.0.0. ').removesuffix('"')
    assert said == sentence.strip()  # whole sentences, 40 characters at least
    row = section(site.pages["demo/map.md"], 'data-id="D2"', "{: .dm-row__answer }")
    assert (sentence * 9)[:480] + " …\n" in row  # cut at a word, 480 characters at most


def test_one_long_sentence_is_cut_at_the_last_word_that_fits(demo) -> None:
    words = ["Abcdefghijk"] + ["abcdefghi"] * 59  # a space after 11 characters, then every 10th: 171, 481
    replace_in(demo.folder / "D2.yaml", 'answer: "You do, each time | a pipe, a {curly} brace and a # hash stay text."',
               f"answer: {' '.join(words)}.")
    site = demo.render()
    text = " ".join(words)
    assert site.pages["demo/D2.md"].split("\n")[2].endswith(f" {text[:161]} …\"")  # 170 characters at most
    row = section(site.pages["demo/map.md"], 'data-id="D2"', "{: .dm-row__answer }")
    assert f" {text[:471]} …\n" in row  # 480 at most


def test_the_home_page_counts_each_map(demo) -> None:
    replace_in(demo.folder / "P1.yaml", "status: open, no fix proposed", 'status: fixed\n  fixed_in: "0.9.0"')
    home = demo.render().pages["index.md"]
    assert ('<span class="dm-pin">demo 1.0.0</span> · 3 decisions · 0 open problems (and 1 fixed) · 9 citations · '
            "1 extension\n{: .dm-pinline }") in home
    assert 'aria-label="Who decides: Plain code 1, AI model 1, Person 1"' in home
    assert "<a class=\"dm-id\" href=\"demo/P1.md\">P1</a> was fixed in 0.9.0." in home
    assert "**Extensions that change its decisions:** [demo-ext](extensions/demo-ext.md)" in home


# --- what an extension changes -----------------------------------------------------------------------------


def about_line(page: str) -> str:
    return section(page, "**This page describes**", "\n{: .dm-fact .dm-overlay-about }")


def test_an_extension_s_page_names_what_it_changes_adds_overrides_and_bears_on(demo) -> None:
    overlay = demo.folder / "extensions" / "demo-ext.yaml"
    replace_in(overlay, "    related: [G1, D1]\n", "    related: [G1, D1]\n    overridden: [D2]\n")
    site = demo.render()
    page = site.pages["extensions/demo-ext.md"]
    assert about_line(page) == (
        "**This page describes** demo-ext 0.1.0, package name <code>demo-ext</code>. It changes [G1](#g1), and adds "
        "1 decision of its own, which overrides [D2](../demo/D2.md): demo's own answer there no longer holds. Its "
        "changes also bear on [D1](../demo/D1.md). Marked <span class=\"dm-badge dm-badge--overrule dm-badge--added\">"
        "<span aria-hidden=\"true\">+ </span>added</span>: who can overrule a decision once demo-ext is installed.")
    assert "| [Added](#added-1): How many times may the run be extended?; overrides [D2](../demo/D2.md) |" in page
    # D2's page: the extension overrides it (a change of its own); D1's: it adds a decision next to it
    d2 = site.pages["demo/D2.md"]
    assert ("**demo-ext overrides it:** installed, it adds a decision that takes this one's place, [How many times "
            "may the run be extended?](../extensions/demo-ext.md#added-1)") in d2
    assert "**With [demo-ext](../extensions/demo-ext.md#added-1)** <span class=\"dm-badge dm-badge--code\">" in d2
    assert "Extensions add a decision next to it" not in d2
    d1 = site.pages["demo/D1.md"]
    assert "**Extensions add a decision next to it:** [How many times may the run be extended?](" \
           "../extensions/demo-ext.md#added-1) (demo-ext)" in d1
    assert "dm-sides" not in d1 and "overrides it:**" not in d1
    index = site.pages["extensions/index.md"]
    assert '[D1](../demo/D1.md)</span> · <span class="dm-ext-index__group" title="Permission">[D2](../demo/D2.md)' \
        in index or "[D2](../demo/D2.md)" in index
    assert "| [demo-ext](../extensions/demo-ext.md#added-1) | Added: How many times may the run be extended? | " \
           "Nobody | Plain code |" in site.pages["demo/census.md"]


def test_two_changes_of_one_decision_get_two_anchors(demo) -> None:
    overlay = demo.folder / "extensions" / "demo-ext.yaml"
    text = overlay.read_text()
    first = text[text.index("  - decision: G1"):text.index("  - question:")]
    overlay.write_text(text + first.replace("The extension asks you whenever", "Again, it asks whenever")
                       + text[text.index("  - question:"):].replace("How many times", "How long"))
    site = demo.render()
    page = site.pages["extensions/demo-ext.md"]
    assert re.findall(r"\{ #([\w-]+)(?: data-toc-label=\"[^\"]*\")? \}\n", page) == ["g1", "added-1", "g1-2", "added-2"]
    assert "| [G1](#g1-2) Is the work finished" in page and "| [Added](#added-2): How long may" in page
    g1 = site.pages["demo/G1.md"]
    assert "**With [demo-ext](../extensions/demo-ext.md#g1)**" in g1
    assert "**With [demo-ext](../extensions/demo-ext.md#g1-2)**" in g1
    assert "[How long may the run be extended?](../extensions/demo-ext.md#added-2) (demo-ext)" in \
        site.pages["demo/D1.md"]


def test_the_side_without_the_extension_says_what_the_decision_s_own_holders_can_do(demo) -> None:
    override(demo, "G1", "person", "The person can stop the run at any turn.", "stop the run")
    override(demo, "G1", "code", "A hook ends it.")
    overlay = demo.folder / "extensions" / "demo-ext.yaml"
    replace_in(overlay, "      decided_by: model\n      answer: A reply",
               "      decided_by: model\n      overrides:\n        - by: person\n          when: You can stop it.\n"
               "        - by: code\n          when: A hook ends it.\n"
               "      answer: A reply")
    replace_in(overlay, "      decided_by: person\n      answer: You decide",
               "      decided_by: person\n      overrides:\n        - by: person\n          when: You can stop it.\n"
               "        - by: person\n          when: You can also pause it.\n"
               "      answer: You decide")
    page = demo.render().pages["extensions/demo-ext.md"]
    without = section(page, "**Without demo-ext**", "**With demo-ext**")
    with_ = section(page, "**With demo-ext**", "</div>\n\n</div>")
    stop = '<span class="dm-badge dm-badge--person dm-badge--overrule">Person can stop the run</span>'
    assert stop in without
    assert '<span class="dm-badge dm-badge--code dm-badge--overrule">Plain code can overrule</span>' in without
    # on the side with it, the lever it keeps reads the same; the one it adds says only that it can overrule
    assert stop in with_
    assert ('<span class="dm-badge dm-badge--person dm-badge--overrule dm-badge--added"><span aria-hidden="true">+ '
            '</span>Person can overrule<span class="dm-visually-hidden"> (added)</span></span>') in with_
    assert "**can stop the run:** You can stop it." in with_ and "**can overrule it:** You can also pause it." in with_
    # a holder of the decision's own that only overrules is said to overrule it, as on the decision's page
    assert "**can overrule it:** A hook ends it." in without


def test_the_shared_levers_entry_is_linked_from_every_decision_but_itself(demo) -> None:
    replace_in(demo.folder / "map.yaml", "summary:", "shared_levers: G1\nsummary:")
    site = demo.render()
    line = ("a loaded extension can reshape any run through the events and calls that [G1 · Is the work finished, so "
            "the run may stop?](G1.md#g1) lists.")
    assert f"**Any extension, too:** the levers above are the ones particular to this decision; besides them, {line}" \
        in site.pages["demo/D1.md"]  # D1 has levers of its own
    assert f"**Any extension, too:** {line}" in site.pages["demo/D2.md"]
    assert "Any extension, too" not in site.pages["demo/G1.md"] and "Any extension, too" not in site.pages["demo/P1.md"]
    # the extension changes G1 itself: G1 is still among what it changes
    assert "[G1](../demo/G1.md)" in site.pages["extensions/index.md"]


def test_an_extension_that_only_bears_on_the_shared_levers_entry_does_not_list_it(demo) -> None:
    replace_in(demo.folder / "map.yaml", "summary:", "shared_levers: D1\nsummary:")
    site = demo.render()
    row = section(site.pages["extensions/index.md"], "[demo-ext](demo-ext.md)", "</tr>")
    assert "[G1](../demo/G1.md)" in row and "D1" not in row


def test_an_npm_extension_changes_some_decisions_through_its_levers_only(npm_demo) -> None:
    replace_in(npm_demo.folder / "extensions" / "demo-npm.yaml", "    decisions: [D1]\n",
               "    decisions: [D1, D2, G1]\n")
    replace_in(npm_demo.folder / "extensions" / "demo-npm.yaml", "  - decision: D1\n", "  - decision: D1\n"
               "    related: [G1]\n")
    site = npm_demo.render()  # a change of a decision that names related ones: once, an error rendering them
    page = site.pages["extensions/demo-npm.md"]
    assert "[D1: the decision in full, with its code](../demo/D1.md) · [G1](../demo/G1.md)" in page
    assert "(demo-npm)" not in site.pages["demo/G1.md"]
    assert about_line(page).startswith(
        "**This page describes** demo-npm 1.2.0, package name <code>demo-npm</code>. It changes [D1](#d1) and, "
        "through its levers, [D2](../demo/D2.md). Its changes also bear on [G1](../demo/G1.md).")
    assert "**Changes:** [D1](../demo/D1.md) · [D2](../demo/D2.md) · [G1](../demo/G1.md)" in page


# --- the census ------------------------------------------------------------------------------------------


def test_the_census_lists_the_15_most_cited_files_most_cited_first(demo, tmp_path) -> None:
    folder = tmp_path / "upstream-many"
    shutil.copytree(SOURCES["1.0.0"], folder)
    for n in range(1, 18):
        (folder / "src" / f"f{n:02}.ts").write_text("const a = 1;\nconst b = 2;\n")
    demo.sources["1.0.0"] = folder
    for n in range(1, 18):
        cite(demo.folder / "D2.yaml", "1", f"src/f{n:02}.ts")
    cite(demo.folder / "D2.yaml", "2", "src/f17.ts")  # twice in one entry
    cite(demo.folder / "G1.yaml", "1", "src/f09.ts")
    cite(demo.folder / "G1.yaml", "1", "src/f09.ts")  # the same range twice counts once
    census = demo.render().pages["demo/census.md"]
    rows = re.findall(r"^\| <code>(\S+)</code> \| (\d+) \| (\d+) \|$", census, re.MULTILINE)
    assert rows == [("src/session.ts", "8", "4"), ("src/f09.ts", "2", "2"), ("src/f17.ts", "2", "1"),
                    ("src/f01.ts", "1", "1"), ("src/f02.ts", "1", "1"), ("src/f03.ts", "1", "1"),
                    ("src/f04.ts", "1", "1"), ("src/f05.ts", "1", "1"), ("src/f06.ts", "1", "1"),
                    ("src/f07.ts", "1", "1"), ("src/f08.ts", "1", "1"), ("src/f10.ts", "1", "1"),
                    ("src/f11.ts", "1", "1"), ("src/f12.ts", "1", "1"), ("src/f13.ts", "1", "1")]
    assert "And 4 more files, each cited less often." in census
    assert "| Files cited | 19 |" in census
    assert "| Citations | 28, every one at the same code at 1.0.0" in census


def test_a_map_whose_code_comes_from_npm_names_its_packages(demo) -> None:
    replace_in(demo.folder / "map.yaml", "source:\n  git:\n    url: file:///UPSTREAM\n    ref: \"v{version}\"\n",
               "source:\n  npm:\n    - package: \"@demo/core\"\n      path: packages/core\n"
               "    - package: demo-tools\n      path: packages/tools\n")
    for path in demo.folder.glob("*.yaml"):
        path.write_text(path.read_text().replace("file: src/", "file: packages/core/src/"))
    shutil.rmtree(demo.folder / "editions")
    folder = demo.decisions.parent / "npm-tree"
    shutil.copytree(SOURCES["1.0.0"] / "src", folder / "packages" / "core" / "src")
    demo.sources["1.0.0"] = folder
    census = demo.render().pages["demo/census.md"]
    assert ("| Source | <code>@demo/core@1.0.0</code> in <code>packages/core</code><br><code>demo-tools@1.0.0</code> "
            "in <code>packages/tools</code> |") in census


def test_a_stage_is_named_by_its_group_s_title_up_to_its_first_pause(demo) -> None:
    replace_in(demo.folder / "map.yaml", "title: Permission", "title: \"*Permission*: what runs\"")
    replace_in(demo.folder / "map.yaml", "title: Ending a run", 'title: ": the end"')
    figure = section(demo.render().pages["demo/index.md"], "<figure", "</figure>")
    assert 'aria-label="Stage 1 of 2: Permission, 2 decisions"' in figure
    assert 'aria-label="Stage 2 of 2: G, 1 decision"' in figure  # no words before the colon: the group's letter


def test_markup_in_a_group_s_title_is_text_in_the_loop_s_caption(demo) -> None:
    replace_in(demo.folder / "map.yaml", "  - id: G\n",
               "  - id: T\n    title: \"<script>alert(1)</script> & {{ x }}\"\n  - id: G\n")
    add_decision(demo, "T1", "Which tool runs?")
    figure = section(demo.render().pages["demo/index.md"], "<figure", "</figure>")
    assert "<script" not in figure and "{{" not in figure
    assert ("goes round the loop once per turn (&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#123;&#123; x "
            "&#125;&#125;) and ends (ending a run)") in figure
