"""The search index on its own: what an entry's hit says (its shown text and its searched detail),
the forms of its words it carries, and the index file rewritten after the build. Fast: the demo
map's entries, loaded, and small indexes written in the test; the built site's index is checked in
test_site_build.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from generator.map.load import load_maps
from generator.map.model import Item, Override
from generator.site.pages.views import Card, ProbeView
from generator.site.search_index import (FIELDS, OTHER_PAGES, SEPARATOR, WORD_JOINER, entry_document,
                                         shape_search_index, shaped_docs, word_family)
from site_fixtures.demo_site import make_demo_site


@pytest.fixture(scope="module")
def demo_map(tmp_path_factory: pytest.TempPathFactory):
    return load_maps(make_demo_site(tmp_path_factory.mktemp("search") / "demo").decisions)[0]


def probed(entry, shows: str = "the call runs with no prompt") -> Card:
    """The entry's card with a probe that held at 1.0.0."""
    probe = ProbeView(shows=shows, expect=(), status="holds", version="1.0.0", script="", script_name="probe.mjs",
                      result="{}", seconds=1.0, message="", entry_id=entry.id)
    return Card(entry=entry, anchor=entry.id.lower(), cites=(), extensions=(), probe=probe)


# --- an entry's hit: what a result shows, and what search reads but never shows --------------------


def test_a_decisions_hit_shows_its_answer_and_searches_its_exceptions_levers_checks_and_extensions(demo_map):
    d1 = demo_map.entry("D1")
    hit = entry_document(d1, None, demo_map.overlays)
    # the answer as escaped text (emphasis and a link become their words), then how many exceptions it has
    assert hit["text"] == (
        "No. Plain code lets the call run unless a hook blocks it; see the hooks guide. Shown as text, never run: "
        "&lt;script&gt;window.__injected = \"script\"&lt;/script&gt; and &lt;img src=x onerror=\"window.__injected = "
        "'img'\"&gt; and a_snake_case name. 1. This second paragraph starts like a list, but it is text. "
        "(2 exceptions)")
    # searched, in this order: the exceptions, what changes it, what checks it, the extension that changes it
    assert hit["more"] == (
        "With no <code>tool_call</code> hook registered, the call runs without any check &lt;b&gt;at all&lt;/b&gt;. "
        "A hook that throws stops the call, and the error is the call's result (see D2). "
        "A hook registered for <code>tool_call</code> can block the call. "
        "The hook runner checks every call; a risky tool also waits for a person (see D2). "
        "extension demo-ext: The extension counts extensions of one run.")
    # an extension's change is searched under every decision it names, and only under those
    g1 = entry_document(demo_map.entry("G1"), None, demo_map.overlays)
    assert g1["more"] == ("extension demo-ext: The extension asks you whenever the model would stop. "
                          "extension demo-ext: The extension counts extensions of one run.")
    assert entry_document(demo_map.entry("D2"), None, demo_map.overlays)["more"] == \
        "upstream report issue 12 Approval asked twice for one call"  # a report about it, not an extension


def test_a_problems_hit_shows_its_description_and_says_how_it_is_known(demo_map):
    p1 = demo_map.entry("P1")
    hit = entry_document(p1, None, demo_map.overlays)
    assert hit == {
        "text": "<code>describe</code> returns markup, including &lt;b&gt;tags&lt;/b&gt; that must show as text. "
                "(1 exception)",
        "more": "A session that was never described shows nothing, so nothing breaks. upstream report issue 34 open, "
                "no fix proposed read in the code, not reproduced by a probe"}
    # with a probe: "reproduced", at the version it ran at, and what it shows
    assert entry_document(p1, probed(p1, "the markup <b> stays"))["more"].endswith(
        "upstream report issue 34 open, no fix proposed reproduced by running pi 1.0.0, evidence from a probe: "
        "the markup &lt;b&gt; stays")
    # a decision with a probe is "demonstrated"; one without says nothing of probes
    d2 = demo_map.entry("D2")
    assert entry_document(d2, probed(d2))["more"] == (
        "upstream report issue 12 Approval asked twice for one call demonstrated by running pi 1.0.0, evidence from "
        "a probe: the call runs with no prompt")
    assert "probe" not in entry_document(d2, Card(entry=d2, anchor="d2", cites=(), extensions=()))["more"]


def test_an_entrys_hit_with_nothing_to_search_beyond_its_answer(demo_map):
    d2 = demo_map.entry("D2")
    bare = dataclasses.replace(d2, failures=())
    assert entry_document(bare) == {"text": "You do, each time | a pipe, a {curly} brace and a # hash stay text.",
                                    "more": ""}  # no exceptions: nothing counted
    # who can overrule it is searched; one exception is counted in the singular
    ruled = dataclasses.replace(bare, overrides=(Override(by="person", when="You can `/approve` it for the session."),),
                                exceptions=(Item(text="Not in `--yes` mode.", cites=(), path=d2.path, line=3),))
    assert entry_document(ruled) == {
        "text": "You do, each time | a pipe, a {curly} brace and a # hash stay text. (1 exception)",
        "more": "Not in <code>--yes</code> mode. You can <code>/approve</code> it for the session."}
    # a problem with no description, no report and no probe still says how it is known
    problem = dataclasses.replace(demo_map.entry("P1"), description=None, exceptions=(), upstream=None)
    assert entry_document(problem) == {"text": "", "more": "read in the code, not reproduced by a probe"}
    # and a decision with no answer yet shows nothing
    assert entry_document(dataclasses.replace(bare, answer=None)) == {"text": "", "more": ""}


def test_a_long_answer_shows_its_opening_and_all_of_it_is_searched(demo_map):
    sentence = "The loop reads the next message from the queue and hands it to the model before any tool runs."
    answer = " ".join([sentence] * 5) + " At the very end, `compact` runs."  # 90 words
    long = dataclasses.replace(demo_map.entry("D2"), answer=answer, failures=())
    hit = entry_document(long)
    # whole sentences until 200 characters, the first three of them
    assert hit["text"] == " ".join([sentence] * 3)
    assert hit["more"] == " ".join([sentence] * 5) + " At the very end, <code>compact</code> runs."
    # a first sentence of exactly 200 characters is opening enough
    first = "step " * 38 + "concluded."
    assert len(first) == 200
    exact = dataclasses.replace(long, answer=first + " " + " ".join(["more"] * 29) + " end.")
    assert entry_document(exact)["text"] == first
    # sixty words or fewer: shown whole, not repeated in the detail
    sixty = " ".join(["steps"] * 44) + " end. " + " ".join(["more"] * 14) + " end."
    assert len(sixty.split()) == 60
    assert entry_document(dataclasses.replace(long, answer=sixty)) == {"text": sixty, "more": ""}


# --- the index file ------------------------------------------------------------------------------


def test_the_index_file_is_rewritten_with_the_entries_hits_and_the_sites_search_settings(tmp_path: Path):
    index = tmp_path / "search_index.json"
    index.write_text(json.dumps({
        "config": {"lang": ["en"], "separator": "[\\s\\-]+", "pipeline": ["stopWordFilter"]},
        "docs": [{"location": "pi/D1/", "title": "D1 Is a person asked?", "text": "the page's own text"},
                 {"location": "pi/map/", "title": "Full map", "text": "D1 asks nobody"},
                 {"location": "guide/", "title": "Guide", "text": "see D1", "boost": 2}]}), encoding="utf-8")
    shape_search_index(index, {"pi/D1/": "D1"}, {"pi/D1/": {"text": "No.", "more": "unless a hook blocks it"}})
    written = index.read_text(encoding="utf-8")
    shaped = json.loads(written)
    assert shaped["config"] == {"lang": ["en"], "separator": SEPARATOR, "pipeline": ["stopWordFilter"],
                                "fields": FIELDS}
    assert shaped["docs"] == [
        {"location": "pi/D1/", "title": f"D{WORD_JOINER}1 Is a person asked?", "text": "No.",
         "more": "unless a hook blocks it", "question_words": "asking confirm prompt"},
        {"location": "pi/map/", "title": "Full map", "text": f"D{WORD_JOINER}1 asks nobody", "boost": OTHER_PAGES},
        {"location": "guide/", "title": "Guide", "text": f"see D{WORD_JOINER}1", "boost": 2}]  # its own boost kept
    # every reader downloads the index: it is written compact, its characters as UTF-8 rather than escapes
    assert written == json.dumps(shaped, ensure_ascii=False, separators=(",", ":"))
    assert WORD_JOINER in written and "\\u2060" not in written


def test_an_index_without_entry_hits_keeps_mkdocs_settings_and_an_index_without_settings_gets_them(tmp_path: Path):
    index = tmp_path / "search_index.json"
    original = {"config": {"separator": "[\\s\\-]+"}, "docs": [{"location": "pi/D1/", "title": "D1 Asked?", "text": ""},
                                                              {"location": "pi/map/", "title": "Map", "text": "D1"}]}
    index.write_text(json.dumps(original))
    shape_search_index(index, {"pi/D1/": "D1"})  # the IDs still carry the joiner outside their page
    assert json.loads(index.read_text()) == {"config": {"separator": "[\\s\\-]+"}, "docs": [
        {"location": "pi/D1/", "title": f"D{WORD_JOINER}1 Asked?", "text": ""},
        {"location": "pi/map/", "title": "Map", "text": f"D{WORD_JOINER}1"}]}
    index.write_text(json.dumps({"docs": [{"location": "pi/D1/", "title": "D1 Asked?", "text": ""}]}))
    shape_search_index(index, {"pi/D1/": "D1"}, {"pi/D1/": {"text": "No.", "more": ""}})
    assert json.loads(index.read_text())["config"] == {"fields": FIELDS, "separator": SEPARATOR}


def test_the_index_file_is_read_and_written_as_utf_8_whatever_the_locale(tmp_path: Path, ascii_locale):
    """MkDocs writes the index in UTF-8 (a page's "café", "→"): it is read and rewritten as UTF-8
    under a locale of another encoding too, the word joiners with it."""
    index = tmp_path / "search_index.json"
    index.write_bytes(json.dumps({"docs": [{"location": "pi/D1/", "title": "D1 Asked?", "text": ""},
                                           {"location": "guide/", "title": "Caf\u00e9", "text": "D1 \u2192 D2"}]},
                                 ensure_ascii=False).encode("utf-8"))
    with ascii_locale():
        shape_search_index(index, {"pi/D1/": "D1"}, {"pi/D1/": {"text": "No.", "more": ""}})
    shaped = json.loads(index.read_bytes().decode("utf-8"))
    assert shaped["docs"][1] == {"location": "guide/", "title": "Caf\u00e9",
                                 "text": f"D{WORD_JOINER}1 \u2192 D2", "boost": OTHER_PAGES}


def test_a_site_with_no_entry_pages_keeps_its_index_as_it_was() -> None:
    docs = [{"location": "guide/", "title": "D1 in a guide", "text": "D1"}]
    assert shaped_docs(docs, {}) == docs and shaped_docs(docs, {}, {"guide/": {"text": "x"}}) == docs


# --- the other forms of an entry's words -----------------------------------------------------------


def test_the_forms_added_come_from_every_field_of_every_page_but_only_into_an_entrys_question_and_answer() -> None:
    docs = [{"location": "pi/D1/", "title": "D1 Is the file read when cached?",
             "text": "It is compacted, then blocked."},
            {"location": "pi/map/", "title": "Caching", "text": "compacting, reading and reads"},
            {"location": "guide/", "title": "Guide", "text": "stopping", "more": "blocking"}]
    shaped = {d["location"]: d for d in shaped_docs(docs, {"pi/D1/": "D1"},
                                                    {"pi/D1/": {"text": "It is compacted, then blocked.",
                                                                "more": "the call is stopped"}})}
    d1 = shaped["pi/D1/"]
    # "caching" from another page's title, "compacting" from its text, "blocking" from its detail; not
    # "reading", which starts with "read" (the question says it: a search for "reading" finds it), nor
    # "reads", neither a noun nor an "-ing" form
    assert d1["question_words"] == "caching" and d1["answer_words"] == "blocking compacting"
    # the detail gets the reader's words for what it says (not other forms: "stopping"), after its own
    # text; of "escape esc cancel", "esc" is left out: it starts "escape"
    assert d1["more"] == "the call is stopped cancel escape"
    assert set(shaped["pi/map/"]) == {"location", "title", "text", "boost"}


def test_an_entry_hit_without_a_detail_gets_no_reader_words_for_it() -> None:
    shaped = shaped_docs([{"location": "pi/D1/", "title": "D1 Is it done?", "text": "Yes."}], {"pi/D1/": "D1"},
                         {"pi/D1/": {"text": "Yes."}})
    assert "more" not in shaped[0]


# The family of a word decides which forms of it an entry carries: each row is a word and its family,
# the stem its forms share. A family changed by mistake files a word with forms that are not its own
# (or loses the ones that are).
FAMILIES = [
    ("D1", "d1"), ("ran", "ran"), ("Runs", "run"), ("read", "read"), ("Compacted", "compact"),
    ("compaction", "compact"), ("configurations", "configurat"), ("decisions", "decis"), ("decided", "decid"),
    ("decides", "decid"), ("retries", "retry"), ("retried", "retry"), ("retrying", "retry"), ("readings", "read"),
    ("reading", "read"), ("processes", "process"), ("pushes", "push"), ("matches", "match"), ("boxes", "box"),
    ("stopped", "stop"), ("running", "run"), ("called", "call"), ("passed", "pass"), ("buzzing", "buzz"),
    ("added", "add"), ("files", "fil"), ("file", "fil"), ("uses", "use"), ("ties", "tie"), ("status", "status"),
    ("process", "process"), ("analysis", "analysis"), ("make", "mak"), ("sessions", "sess"), ("session", "sess"),
    ("bash", "bash"), ("use", "use"),
    ("tool_calls", "tool_calls"), ("pi's", "pi's"),
]


def test_each_word_falls_in_its_family() -> None:
    assert [(word, word_family(word)) for word, _ in FAMILIES] == FAMILIES
