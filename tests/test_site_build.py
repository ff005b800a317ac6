"""Real builds: `mkdocs build` and `python -m generator build` of the demo site, what a failure
looks like, and that a failed build leaves the previous site as it was.

A test that only reads a built site reads the run's one build of it (``built_demo_site``,
``built_real_site`` in conftest); a test that edits the inputs or the site builds its own."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import QUIET_MKDOCS as QUIET, ROOT, BuiltDemo, mkdocs_build, require, run_cli, templates_compiled_once
from generator.site.plugin import DecisionMapPlugin
from generator.map.load import load_maps
from generator.site.page_check import find_leaks
from generator.site.render import render_folder
from generator.site.search_index import SEPARATOR, STOP_WORDS, shaped_docs, word_family, words
from site_fixtures.demo_site import DEMO_SITE_URL, make_demo_site, replace_in, tag_version


@pytest.fixture(scope="module", autouse=True)
def compiled_once():
    """The renders in this process compile the templates once (see conftest)."""
    with templates_compiled_once():
        yield


@pytest.fixture
def demo(tmp_path: Path):
    return make_demo_site(tmp_path / "demo")


def drift(demo) -> int:
    """Make G1's second citation drift (checked at 0.9.0, moved by 1.0.0); returns its YAML line."""
    tag_version(demo.upstream, "0.9.0", "src/session.ts", lambda text: "// one\n// two\n" + text)
    replace_in(demo.map_folder / "G1.yaml", "    lines: 21-23", '    lines: 23-25\n    version: "0.9.0"')
    return (demo.map_folder / "G1.yaml").read_text().split("\n").index("  - file: src/session.ts") + 1


def tree_digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# --- mkdocs build ------------------------------------------------------------------------------


def test_mkdocs_build_writes_every_page(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    for page in ("index.html", "demo/index.html", "demo/map/index.html", "demo/problems/index.html",
                 "demo/census/index.html", "extensions/demo-ext/index.html", "demo/editions/index.html",
                 "demo/editions/0.8.0-to-1.0.0/index.html",
                 "assets/decision-map/decision-map.css", "assets/decision-map/decision-map.js"):
        assert (site / page).is_file(), page
    assert "INFO    -  demo: 4 entries, 11 citations, all ok at 1.0.0" in built_demo_site.stderr


def test_the_download_is_served_as_markdown_not_rendered(built_demo_site: BuiltDemo) -> None:
    demo, site = built_demo_site.demo, built_demo_site.site
    download = site / "downloads" / "demo-decision-map.md"
    assert download.read_text() == render_folder(demo.decisions, demo.pages).pages["downloads/demo-decision-map.md"]
    assert not (site / "downloads" / "demo-decision-map").exists()
    summary = (site / "demo" / "index.html").read_text()
    assert '<a download="download" href="../downloads/demo-decision-map.md">Download as Markdown</a>' in summary \
        or '<a download href="../downloads/demo-decision-map.md">Download as Markdown</a>' in summary


def test_the_built_entry_page_links_the_pinned_code_and_escapes_the_answer(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    html = (site / "demo" / "D1" / "index.html").read_text()
    assert 'href="https://github.com/example/demo/blob/v1.0.0/src/session.ts#L9-L14"' in html
    assert '<h1 class="dm-question-title dm-question-title--code" id="d1">' in html
    assert "<title>D1 · Is a person asked before a tool&#95;call runs? - Demo decision map</title>" in html
    assert "<script>window.__injected" not in html
    assert "&lt;script&gt;window.&#95;&#95;injected" in html
    assert "onerror=" not in html.replace("onerror&#61;", "")
    assert "decision-map.js" in html and "decision-map.css" in html
    index = (site / "demo" / "map" / "index.html").read_text()
    assert '<div class="dm-row" data-group="D" data-id="D1" data-who="code" id="d1">' in index \
        or 'id="d1"' in index and 'id="D1"' in index  # the old anchors, in either case, still land here
    assert 'href="../D1/"' in index


def test_a_drifted_citation_fails_the_mkdocs_build_naming_it(demo, tmp_path: Path) -> None:
    line = drift(demo)
    done = mkdocs_build(demo.config, tmp_path / "site")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (f"decisions/demo/G1.yaml:{line}: G1 cites src/session.ts:23-25, which is moved at 1.0.0, "
            "now at 21-23 (Session.isDone)") in done.stderr


def test_a_bad_entry_fails_the_mkdocs_build_with_one_clean_line_per_problem(demo, tmp_path: Path) -> None:
    replace_in(demo.map_folder / "D2.yaml", "decided_by: person", "decided_by: person\nanwser: typo")
    done = mkdocs_build(demo.config, tmp_path / "site")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert "decisions/demo/D2.yaml:4: unknown key 'anwser'; did you mean 'answer'?" in lines
    assert [ln for ln in lines if ln.startswith("ERROR")] == ["ERROR   -  decision map: 2 problems:"]


# --- python -m generator build (make site) -------------------------------------------------------


def test_generator_build_replaces_the_previous_site(demo, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "stale.html").write_text("from an older build")
    run = run_cli("build", "--config", demo.config, "--site-dir", site, "--quiet", env=QUIET)
    assert run.code == 0, run.stderr
    assert not (site / "stale.html").exists()
    assert (site / "demo" / "map" / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo", "site"]  # nothing left behind
    assert site.stat().st_mode & 0o755 == 0o755  # a web server running as another user can read it


def test_a_failed_build_leaves_the_previous_site_untouched(demo, built_demo_site: BuiltDemo, tmp_path: Path) -> None:
    site = tmp_path / "site"
    # the previous site: the run's build of these inputs (a build that succeeds is the test above)
    shutil.copytree(built_demo_site.site, site)
    before = tree_digest(site)
    line = drift(demo)
    run = run_cli("build", "--config", demo.config, "--site-dir", site, "--quiet", env=QUIET)
    assert run.code == 2
    assert "Traceback" not in run.stderr
    assert (f"error: {demo.map_folder / 'G1.yaml'}:{line}: G1 cites src/session.ts:23-25, which is moved at "
            "1.0.0, now at 21-23 (Session.isDone)") in run.stderr
    assert tree_digest(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo", "site"]


def test_two_builds_give_the_same_site(built_demo_site: BuiltDemo, tmp_path: Path) -> None:
    """The run's demo site and a second build of the same inputs, from another (empty) cache."""
    first, second = built_demo_site.site, tmp_path / "second"
    assert mkdocs_build(built_demo_site.demo.config, second).returncode == 0
    a, b = tree_digest(first), tree_digest(second)
    for dated in ("sitemap.xml", "sitemap.xml.gz"):  # MkDocs stamps these with the build date
        a.pop(dated), b.pop(dated)
    assert a == b


def test_render_writes_the_same_pages_for_another_engine(demo, tmp_path: Path) -> None:
    out = tmp_path / "pages"
    run = run_cli("render", "--decisions", demo.decisions, "--pages", demo.pages, "--out", out, "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == f"wrote 14 files to {out}"
    written = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*.md")}
    assert written == render_folder(demo.decisions, demo.pages).pages


def test_serve_watches_the_decisions_folder(demo) -> None:
    class Server:
        watched: list[str] = []

        def watch(self, path: str) -> None:
            self.watched.append(path)

    class Settings:
        config_file_path = str(demo.config)

    plugin = DecisionMapPlugin()
    plugin.load_config({"decisions": "decisions"})
    server = Server()
    assert plugin.on_serve(server, config=Settings(), builder=None) is server
    assert [Path(p) for p in server.watched] == [demo.decisions]


# --- the real map --------------------------------------------------------------------------------


@pytest.mark.network
def test_make_site_builds_the_real_map(built_real_site: Path) -> None:
    """`python -m generator build` of the real map (the run's one build of it, see conftest)."""
    site = built_real_site
    d1 = (site / "pi" / "D1" / "index.html").read_text()
    assert ('href="https://github.com/earendil-works/pi/blob/v1.6.0/packages/coding-agent/src/core/'
            'agent-session.ts#L723-L746"') in d1
    assert (site / "downloads" / "pi-decision-map.md").is_file()
    [pi] = [m for m in load_maps(ROOT / "decisions") if m.name == "pi"]
    for entry in pi.entries:  # every decision and problem has its page, at its ID as written
        assert (site / "pi" / entry.id / "index.html").is_file(), entry.id
    edition = (site / "pi" / "editions" / "1.4.0-to-1.6.0" / "index.html").read_text()
    assert "What changed in pi 1.6.0, since 1.4.0" in edition and "What pi does differently" in edition
    assert 'href="https://github.com/earendil-works/pi/blob/v1.4.0/packages/' in edition  # the old lines
    # a problem whose code changed is flagged, unless the map records it as fixed or re-checked since
    from generator.release.edition import entry_verdicts
    edition_date = str(pi.editions[-1].date)
    settled, unsettled = [], []
    for v in entry_verdicts(pi, pi.editions[-1]):
        if v.needs_recheck:
            u = v.entry.upstream
            done = u is not None and (u.fixed_in or str(u.checked) >= edition_date)
            (settled if done else unsettled).append(v.entry_id)
    assert settled or unsettled
    assert ("Status re-check: a fix may have landed." in edition) == bool(unsettled)
    for entry_id in settled:
        assert f'<a href="#{entry_id.lower()}">{entry_id}</a>' in edition.split("already re-checked:")[1].split("</p>")[0]
    assert 'href="1.4.0-to-1.6.0/"' in (site / "pi" / "editions" / "index.html").read_text()
    index = (site / "pi" / "map" / "index.html").read_text()
    assert 'data-dm-changed' in index and 'data-edition="rewritten"' in index
    # the budgets of a light site (the DOM is counted in a browser, tests/test_browser.py)
    assert len(index.encode()) <= 400_000
    assert len(edition.encode()) <= 400_000
    assert (site / "search" / "search_index.json").stat().st_size <= 400_000
    # a fixed problem is shown as fixed, and the count of what goes wrong leaves it out
    problems = (site / "pi" / "problems" / "index.html").read_text()
    assert re.search(r'<span class="dm-status dm-status--fixed">Fixed in pi 1\.5\.1</span>', problems)
    assert "bump" not in re.sub(r"<[^>]+>", "", edition + problems + index).lower()


# --- what a reader gets from the built site ---------------------------------------------------------


def test_the_loop_links_resolve_to_the_entry_pages_on_every_page_that_draws_it(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    for page, prefix in (("index.html", "demo/"), ("demo/index.html", ""),
                         ("extensions/demo-ext/index.html", "../../demo/")):
        html = (site / page).read_text()
        figure = html[html.index("<figure"):html.index("</figure>")]
        links = re.findall(r'<a class="dm-node[^"]*" href="([^"]+)"', figure)
        assert sorted(links) == [f"{prefix}{i}/" for i in ("D1", "D2", "G1")], page
        for link in links:  # each one leads to a built page
            assert (site / page).parent.joinpath(link, "index.html").resolve().is_file(), (page, link)


def test_entry_pages_are_built_but_not_listed_in_the_navigation(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    assert (site / "demo" / "P1" / "index.html").is_file()
    html = (site / "demo" / "map" / "index.html").read_text()
    nav = html[html.index('<nav class="md-nav md-nav--primary"'):html.index('<div class="md-content"')]
    assert "D1/" not in nav and "P1/" not in nav and 'href="../problems/"' in nav
    assert "not included in the" not in built_demo_site.stderr  # strict mode: no page is left out by mistake


def test_a_leaked_attribute_list_or_template_text_fails_the_build(demo, tmp_path: Path) -> None:
    page = demo.pages / "extensions" / "demo-ext.md"
    page.write_text(page.read_text() + "\nA paragraph.\n\n{: .dm-where }\n\nAnd {{ a_variable }} left over.\n")
    done = mkdocs_build(demo.config, tmp_path / "site")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "Markdown or template text shows on built pages" in done.stderr
    assert "extensions/demo-ext.md: line" in done.stderr
    assert "an attribute list ({: …}) that Markdown did not apply" in done.stderr
    assert "template text" in done.stderr


def test_a_list_or_table_markdown_did_not_read_fails_the_build(demo, tmp_path: Path) -> None:
    """A list or a table right under a paragraph, with no blank line, is read as more of the
    paragraph: the reader sees "- " and "|" as text (as on the edition page once, where each
    changed citation ran into the one before it). The build must refuse it."""
    page = demo.pages / "extensions" / "demo-ext.md"
    kept = page.read_text()
    # one build, both kinds: every leak found is listed, each on its own line with its page and line
    page.write_text(kept + "\nWhat changed:\n- `loop.js` lines 2-4\n- `loop.js` lines 9-12\n"
                    "\nThe counts:\n| Holder | Decisions |\n|---|---|\n| code | 2 |\n")
    done = mkdocs_build(demo.config, tmp_path / "site")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    leaks = [ln for ln in done.stderr.splitlines() if "extensions/demo-ext.md: line" in ln]
    assert any("a Markdown list item that was not turned into a list" in ln for ln in leaks), done.stderr
    assert any("a Markdown table row that was not turned into a table" in ln for ln in leaks), done.stderr
    page.write_text(kept + "\nWhat changed:\n\n- `loop.js` lines 2-4\n- `loop.js` lines 9-12\n")  # a real list
    assert mkdocs_build(demo.config, tmp_path / "site").returncode == 0


def test_the_leak_check_tells_leaks_from_text_and_code() -> None:
    assert find_leaks("<p>{: .dm-where }</p>") and find_leaks("<p>x {{ y }}</p>") and find_leaks("<li>[a](b.md)</li>")
    assert find_leaks("<p>## <span>P1</span> a title { #p1 data-search-exclude }</p>")
    # a list or a table Markdown did not read: a marker or a row at the start of a line
    assert find_leaks("<p>All 2 citations changed.\n- <code>a.ts</code>: lines 1-2</p>")
    assert find_leaks("<p>Steps:\n1. <em>open</em> it</p>") and find_leaks("<div>\n* one\n+ two\n</div>")
    assert find_leaks("<p>Counts\n| a | b |\n|---|---|</p>") and find_leaks("<td>|---|---|</td>")
    # a dash, a number or a bar inside a sentence is text; so are the entities prose writes
    assert find_leaks("<p>lines 2 - 4, <code>a</code> - b, 1. 2. 3, <a>x</a> | y</p><td>-</td><td>3.</td>") == []
    assert find_leaks("<p>&#45; not a list\n&#124; a &#124; b &#124;</p>") == []
    # braces and hashes from YAML reach the page as entities; code shows what it shows
    assert find_leaks("<p>&#123;&#123; config &#125;&#125; &#123;: x &#125; &#35;&#35; y, issue #34, C#</p>") == []
    assert find_leaks("<pre><code>const a = {{b: 1}}; {: x}</code></pre><p>ok</p>") == []


def test_the_search_index_has_one_hit_per_entry_and_no_code(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    entry_docs = [d for d in docs if re.match(r"demo/[A-Z]\d+/", d["location"])]
    assert sorted(d["location"] for d in entry_docs) == ["demo/D1/", "demo/D2/", "demo/G1/", "demo/P1/"]
    d1 = next(d for d in entry_docs if d["location"] == "demo/D1/")
    assert d1["title"].startswith("D\u20601 Is a person asked") and d1["tags"] == ["D1"]
    assert "lets the call run" in d1["text"]
    # a result shows the short answer and how many exceptions it has; the exceptions are searched, not shown
    assert d1["text"].endswith("(2 exceptions)") and "without any check" in d1["more"]
    config = json.loads((site / "search" / "search_index.json").read_text())["config"]
    # searched, never shown in a result: the detail, and other forms of the question's and answer's words
    assert "more" in d1 and set(config["fields"]) == {"title", "question_words", "text", "answer_words", "more", "tags"}
    assert config["separator"] == SEPARATOR
    everything = json.dumps(docs)
    assert "beforeToolCall(call" not in everything and "approvals = new Map" not in everything  # no code
    # an ID is a search term only in its entry's tags: everywhere else it carries a word joiner
    assert not any(re.search(r"(?<![\w-])D1(?![\w-])", d["title"] + d["text"] + d.get("more", "")) for d in docs)
    assert any("D\u20601" in d["title"] + d["text"] for d in docs if d not in entry_docs)


def test_shaping_the_search_index_keeps_each_id_on_its_own_page() -> None:
    docs = [{"location": "pi/D1/", "title": "D1 Is it asked?", "text": "see D10 and D1"},
            {"location": "pi/D10/", "title": "D10 Other", "text": "unlike D1"},
            {"location": "pi/map/#group-d", "title": "D Permission", "text": "D1, D10, PD1 and D1x"}]
    shaped = shaped_docs(docs, {"pi/D1/": "D1", "pi/D10/": "D10"},
                         {"pi/D1/": {"text": "No.", "more": "unless D10"}})
    assert shaped[0] == {"location": "pi/D1/", "title": "D\u20601 Is it asked?", "text": "No.", "more": "unless D\u206010",
                         "question_words": "asking confirm prompt"}  # a reader's words for "asked"
    assert shaped[1]["text"] == "unlike D\u20601" and shaped[1]["title"] == "D\u206010 Other"
    assert shaped[2]["text"] == "D\u20601, D\u206010, PD1 and D1x" and shaped[2]["boost"] < 1  # not an entry


def test_the_stop_words_are_the_ones_material_search_leaves_out_of_the_index() -> None:
    """The separator drops from a query the words lunr's filter drops from the index, no more
    (a word it dropped that the index holds could no longer be found), no fewer."""
    import material

    worker = next((Path(material.__file__).parent / "templates" / "assets" / "javascripts" / "workers").glob(
        "search.*.min.js"))
    lunr_list = re.search(r"generateStopWordFilter\((\[[^\]]*\])\)", worker.read_text(encoding="utf-8"))
    assert lunr_list and sorted(STOP_WORDS) == sorted(json.loads(lunr_list.group(1)))


def test_search_words_are_split_as_materials_search_splits_them() -> None:
    # stop words go, at the start of a sentence too; punctuation and entities split; a version, a
    # file name's parts, an apostrophe and an identifier stay as a reader types them
    assert words("When does auto-compaction start? (see /compact) &quot;Command aborted&quot;") == \
        ["auto", "compaction", "start", "see", "compact", "command", "aborted"]
    assert words("pi's v1.6.0 reads <code>AGENTS.md</code>, then tool_call; a the what") == \
        ["pi's", "v1.6.0", "reads", "agents", "md", "tool_call"]
    assert words("theme whatever another") == ["theme", "whatever", "another"]  # a stop word inside a word stays
    # Material's highlighter rebuilds the separator from its "|"-split parts and blanks any part
    # that is all lookahead or lookbehind: none is, so the page a result opens marks the same words
    parts = SEPARATOR.split("|")
    assert not [p for p in parts if re.sub(r"(\(\?[!=<][^)]+\))", "", p) == ""]


def test_a_word_family_holds_the_forms_a_reader_types() -> None:
    same = [("compaction", "compacted"), ("compacts", "compacting"), ("retries", "retrying"), ("retried", "retry"),
            ("reading", "read"), ("stopped", "stop"), ("running", "runs"), ("finished", "finishes"),
            ("files", "file"), ("sessions", "session"), ("processes", "process"), ("decides", "decided")]
    assert [(a, b) for a, b in same if word_family(a) != word_family(b)] == []
    apart = [("status", "stat"), ("region", "reg"), ("process", "proces"), ("general", "generation"), ("d1", "d10")]
    assert [(a, b) for a, b in apart if word_family(a) == word_family(b)] == []


def test_an_entry_hit_carries_the_other_forms_of_its_words_where_they_weigh_as_its_own() -> None:
    docs = [{"location": "pi/F1/", "title": "F1 When must the conversation be compacted?", "text": "Once it is large."},
            {"location": "pi/F6/", "title": "F6 What happens when a compaction fails?", "text": "It is retried."},
            {"location": "pi/map/", "title": "Map", "text": "compacting, compacts and compact; fail"}]
    shaped = {d["location"]: d for d in shaped_docs(docs, {"pi/F1/": "F1", "pi/F6/": "F6"},
                                                    {"pi/F1/": {"text": "Once it is large.", "more": "stopped"},
                                                     "pi/F6/": {"text": "It is retried.", "more": ""}})}
    f1, f6 = shaped["pi/F1/"], shaped["pi/F6/"]
    # the noun and "-ing" forms found anywhere in the index ("compacts" is not added: "compact" finds it)
    assert f1["question_words"].split() == ["compacting", "compaction"]
    assert f1["title"] == "F\u20601 When must the conversation be compacted?" and "big" in f1["answer_words"]
    assert "escape" in f1["more"] and f1["more"].startswith("stopped")  # reader words of the detail join it
    # "compaction" brings "compacting"; "fails" brings nothing: "failing" is nowhere in the index
    assert f6["question_words"].split() == ["compacting"]
    assert "retrying" in f6["answer_words"].split()
    assert "question_words" not in shaped["pi/map/"]  # only an entry's own hit


def test_materials_own_search_finds_the_entry_for_a_question_with_filler_words(built_demo_site: BuiltDemo) -> None:
    """The built demo index, searched by the search worker the site ships (bench/search_rank.mjs runs
    it in Node): filler words match nothing, a word the entry says in another form finds it."""
    require("node", shutil.which("node") is not None, "the search worker is run in Node")
    site = built_demo_site.site
    worker = next((site / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    asked = ["is the work done", "what is the", "who approves a risky tool", "ending"]
    run = subprocess.run(["node", str(ROOT / "bench" / "search_rank.mjs")], capture_output=True, text=True,
                         input=json.dumps({"worker": str(worker), "index": str(site / "search" / "search_index.json"),
                                           "queries": asked}), timeout=120)
    assert run.returncode == 0, run.stderr
    links = {row["query"]: row["links"] for row in json.loads(run.stdout)}
    assert links["is the work done"][:1] == ["demo/G1/"], links["is the work done"]  # "finished", read as "done"
    assert links["what is the"] == []  # only stop words: nothing to look for
    assert links["who approves a risky tool"][:1] == ["demo/D2/"]
    # "ending" finds first the two entries that say "ends" (in the question, then in the answer)
    assert links["ending"][:2] == ["demo/P1/", "demo/G1/"], links["ending"]


def test_the_sitemap_lists_every_page_and_the_404_page_works_under_a_sub_path(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    sitemap = (site / "sitemap.xml").read_text()
    for page in ("", "demo/", "demo/map/", "demo/D1/", "demo/P1/", "extensions/demo-ext/"):
        assert f"<loc>{DEMO_SITE_URL}{page}</loc>" in sitemap, page
    missing = (site / "404.html").read_text()
    # the 404 page is served at any address: its links are absolute paths under the site's sub-path
    assert 'href="/demo-site/assets/decision-map/decision-map.css"' in missing
    assert 'href="/demo-site/."' in missing and 'href="/demo-site/demo/map/"' in missing
    assert not re.search(r'(?:href|src)="\.\.?/', missing)
    # and it offers a way on: home, the map's summary and full map, search
    ways = missing[missing.index('<ul class="dm-not-found">'):]
    ways = ways[:ways.index("</ul>")]
    assert re.findall(r'href="([^"]*)"', ways) == ["/demo-site/.", "/demo-site/demo/", "/demo-site/demo/map/",
                                                   "/demo-site/demo/problems/", "/demo-site/.?q="]
    assert ">How demo decides, in short</a>" in ways and ">Search the site</a>" in ways


def test_the_site_address_is_the_local_preview_unless_the_environment_names_one(monkeypatch, demo,
                                                                              tmp_path: Path) -> None:
    """Unset, the address is the local preview's, so a build never names a host it is not on;
    DECISION_MAP_SITE_URL gives the published one (or a fork's), whose 404 page works under a
    sub-path."""
    from mkdocs.config import load_config

    monkeypatch.delenv("DECISION_MAP_SITE_URL", raising=False)
    assert load_config(str(ROOT / "mkdocs.yml")).site_url == "http://127.0.0.1:8000/"
    monkeypatch.setenv("DECISION_MAP_SITE_URL", "https://owner.github.io/repo/")
    assert load_config(str(ROOT / "mkdocs.yml")).site_url == "https://owner.github.io/repo/"
    replace_in(demo.config, f"site_url: {DEMO_SITE_URL}", "site_url: http://127.0.0.1:8000/")
    site = tmp_path / "site"
    assert mkdocs_build(demo.config, site).returncode == 0
    assert '<link rel="canonical" href="http://127.0.0.1:8000/demo/D1/">' in (site / "demo/D1/index.html").read_text()
    assert "<loc>http://127.0.0.1:8000/demo/map/</loc>" in (site / "sitemap.xml").read_text()
    missing = (site / "404.html").read_text()
    assert 'href="/assets/decision-map/decision-map.css"' in missing and 'href="/demo/map/"' in missing
    assert "example.org" not in missing


def test_the_logo_and_favicon_are_the_sites_own(built_demo_site: BuiltDemo) -> None:
    site = built_demo_site.site
    html = (site / "index.html").read_text()
    assert '<link rel="icon" href="assets/decision-map/favicon.svg">' in html
    assert 'src="assets/decision-map/logo.svg"' in html
    assert "assets/images/favicon.png" not in html
    for asset in ("logo.svg", "favicon.svg"):
        svg = (site / "assets" / "decision-map" / asset).read_text()
        assert svg.startswith("<svg") and "<script" not in svg and "href" not in svg


# --- an extension pinned on npm, moved to another release ------------------------------------------

EXTENSION_CODE = """export default function (pi) {
\tpi.on("tool_call", async (event) => {
\t\tif (event.toolName === "bash") return { block: true, reason: "no shell" };
\t});
\tpi.on("agent_end", async () => {
\t\tconsole.log("done");
\t});
}
"""

EXTENSION_OVERLAY = """extension: demo-npm
package: "demo-npm"
version: "1.0.0"
integrity: {integrity}
tagline: >-
  Keeps the model away from the shell.
summary: >-
  Blocks every `bash` call the model makes.
levers:
  - lever: tool_call
    kind: event
    decisions: [D1]
    text: >-
      Blocks `bash` calls.
    cites:
      - file: index.ts
        lines: 2-4
  - lever: agent_end
    kind: event
    decisions: []
    text: >-
      Prints a line when a run ends.
    cites:
      - file: index.ts
        lines: 5-7
changes:
  - decision: D1
    how: >-
      A `bash` call is blocked before it runs.
    without:
      decided_by: code
      answer: >-
        It runs.
    with:
      decided_by: code
      answer: >-
        It is blocked.
"""


def test_an_extension_moved_to_another_release_has_its_edition_page_linked_from_its_own(
        demo, tmp_path: Path, monkeypatch) -> None:
    from test_fetch import FakeNpm

    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    monkeypatch.setenv("DECISION_MAP_SKIP_PROBES", "1")
    # 1.1.0: a line on top (every citation moves) and the block's reason reworded (one changes)
    for version, code in (("1.0.0", EXTENSION_CODE),
                          ("1.1.0", "// 1.1.0\n" + EXTENSION_CODE.replace('"no shell"', '"no shell here"'))):
        npm.publish(f"demo-npm@{version}", {"package.json": json.dumps(
            {"name": "demo-npm", "version": version, "pi": {"extensions": ["./index.ts"]}}), "index.ts": code})
    overlay = demo.map_folder / "extensions" / "demo-npm.yaml"
    overlay.write_text(EXTENSION_OVERLAY.format(integrity=npm.registry["packages"]["demo-npm@1.0.0"]["integrity"]))
    assert run_cli("record", "--decisions", demo.decisions, "--quiet").code == 0
    run = run_cli("bump", "--extension", "demo-npm", "1.1.0", "--decisions", demo.decisions, "--quiet")
    assert run.code == 1, run.stderr  # the changed handler waits for a person
    assert run_cli("accept", "demo-npm", "--decisions", demo.decisions, "--quiet").code == 0
    site = tmp_path / "site"
    done = mkdocs_build(demo.config, site)
    assert done.returncode == 0, done.stderr
    page = (site / "extensions" / "demo-npm" / "index.html").read_text()
    assert "Its releases" in page and 'href="editions/1.0.0-to-1.1.0/"' in page
    edition = (site / "extensions" / "demo-npm" / "editions" / "1.0.0-to-1.1.0" / "index.html").read_text()
    assert "What changed in demo-npm 1.1.0, since 1.0.0" in edition
    assert "1 changed" in edition and "1 moved" in edition
    # the changed handler's code at both releases, each linked to its file as npm serves it
    assert "no shell here" in edition and "https://unpkg.com/demo-npm@1.0.0/index.ts" in edition
    assert "https://unpkg.com/demo-npm@1.1.0/index.ts" in edition
    assert 'href="../../#editions"' in edition  # back to the extension's page, at its releases
    assert '<a href="editions/1.0.0-to-1.1.0/" class="md-nav__link">' in page  # in the navigation too
    assert "demo-npm 1.0.0 → 1.1.0" in page
