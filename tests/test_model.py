"""The decision map's data model (generator/map/model.py) as readers and contributors meet it: a
citation's label and its link upstream, the order of a map's entries and the headline each shows,
the version a citation is checked at, an overlay's decisions and citations, the shared modules a
probe takes into its sandbox (and the loader's refusal of one no probe imports), and an npm
extension seen as a map of its own. Objects are built inline or loaded from a map written here:
the file runs in about a second, for mutation testing of model.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import InputError
from generator.map.load import load_maps
from generator.map.model import (
    Citation, DecisionMap, Edition, EditionCitation, Entry, GitPin, Item, NpmPackage, Overlay, OverlayChange,
    OverlayLever, Probe, Review, Side, Source, Span, extension_map, is_shared_module, npm_package_key, shared_modules)

YAML = Path("decisions/demo/D1.yaml")


def cite(file: str = "src/a.ts", start: int = 3, end: int = 3, line: int = 1, version: str | None = None) -> Citation:
    return Citation(file=file, start=start, end=end, version=version, note=None, path=YAML, line=line,
                    lines_span=Span(0, 1), mapping_span=Span(0, 1), mapping_indent=None)


def entry(entry_id: str = "D1", kind: str = "decision", question: str | None = "Who stops?",
          title: str | None = None) -> Entry:
    return Entry(id=entry_id, kind=kind, question=question, decided_by="code", answer="The loop.", title=title,
                 description=None, changed_by=(), checks=None, failures=(), upstream=None, cites=(), reviewed=None,
                 path=YAML, line=1)


def demo_map(repo: str = "https://github.com/acme/pi", version: str = "1.2.0", checked_at: str | None = None,
             entries: tuple[Entry, ...] = ()) -> DecisionMap:
    return DecisionMap(name="pi", folder=YAML.parent, title="pi", repo=repo, version=version,
                       source=Source(git=GitPin("https://github.com/acme/pi.git", "v{version}", None)), summary=None,
                       groups=(), sections=(), checked=None, entries=entries, checked_at=checked_at)


# --- what a reader sees of a citation ------------------------------------------------------------


def test_a_citation_is_labelled_by_its_file_name_and_lines():
    assert cite("packages/agent/src/loop.ts", 12, 12).label == "loop.ts:12"
    assert cite("packages/agent/src/loop.ts", 12, 30).label == "loop.ts:12-30"
    assert cite("loop.ts", 1, 2).label == "loop.ts:1-2"  # a file at the top of the tree


def test_a_citation_links_to_its_lines_upstream_at_the_pin_or_another_release():
    pinned = demo_map()
    assert pinned.permalink(cite("src/a.ts", 7, 7)) == "https://github.com/acme/pi/blob/v1.2.0/src/a.ts#L7"
    assert pinned.permalink(cite("src/a.ts", 7, 9)) == "https://github.com/acme/pi/blob/v1.2.0/src/a.ts#L7-L9"
    assert pinned.permalink(cite("src/a.ts", 7, 9), "1.0.0") == "https://github.com/acme/pi/blob/v1.0.0/src/a.ts#L7-L9"
    slash = demo_map(repo="https://github.com/acme/pi//")  # a repo written with a slash at its end
    assert slash.permalink(cite("b.ts", 1, 1)) == "https://github.com/acme/pi/blob/v1.2.0/b.ts#L1"
    named = demo_map(repo="https://github.com/acme/X")  # only slashes are taken off its end
    assert named.permalink(cite("b.ts", 1, 1)) == "https://github.com/acme/X/blob/v1.2.0/b.ts#L1"


def test_a_citation_is_checked_at_its_own_version_else_the_maps_checked_at_else_the_pin():
    assert demo_map().recorded_version == "1.2.0"
    assert demo_map().checked_version(cite()) == "1.2.0"
    assert demo_map(checked_at="1.1.0").recorded_version == "1.1.0"
    assert demo_map(checked_at="1.1.0").checked_version(cite()) == "1.1.0"
    assert demo_map(checked_at="1.1.0").checked_version(cite(version="0.9.0")) == "0.9.0"


# --- entries -------------------------------------------------------------------------------------


def test_an_entry_shows_its_question_or_a_problem_its_title_and_belongs_to_its_letters_group():
    assert entry("D12", question="Who stops the loop?").headline == "Who stops the loop?"
    assert entry("P3", kind="problem", question="not shown", title="The loop never ends").headline == \
        "The loop never ends"
    assert entry("P3", kind="problem", question="not shown", title=None).headline == ""
    assert entry("D12", question=None, title="not shown").headline == ""
    assert (entry("D12").group, entry("D12").number) == ("D", 12)
    assert (entry("A1").group, entry("A1").number) == ("A", 1)


def test_a_map_tells_its_decisions_from_its_problems_and_finds_an_entry_by_id():
    d1, p1, d2 = entry("D1"), entry("P1", kind="problem", title="t"), entry("D2")
    found = demo_map(entries=(d1, p1, d2))
    assert found.decisions == (d1, d2) and found.problems == (p1,)
    assert found.entry("D2") is d2 and found.entry("P1") is p1 and found.entry("D3") is None


def write_map(root: Path, entries: dict[str, str], probes: dict[str, bytes | str] | None = None) -> Path:
    folder = root / "decisions" / "demo"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text('title: Demo\nrepo: https://example.org/demo\nversion: "1"\n'
                                     'source:\n  git:\n    url: https://example.org/demo.git\n    ref: "v{version}"\n')
    for entry_id, text in entries.items():
        (folder / f"{entry_id}.yaml").write_text(text)
    if probes is not None:
        (folder / "probes").mkdir()
        for name, text in probes.items():
            (folder / "probes" / name).write_bytes(text.encode() if isinstance(text, str) else text)
    return root / "decisions"


def decision(entry_id: str, probe: bool = False) -> str:
    text = (f"id: {entry_id}\nquestion: Who decides {entry_id}?\ndecided_by: code\nanswer: Plain code.\n"
            "cites:\n  - file: src/a.ts\n    lines: 1\n")
    return text + ("probe:\n  shows: What pi does.\n  expect:\n    ok: true\n" if probe else "")


def test_a_maps_entries_are_in_group_then_number_order(tmp_path):
    decisions = write_map(tmp_path, {i: decision(i) for i in ("D10", "B2", "D2", "A7", "D1")})
    (loaded,) = load_maps(decisions, editions=False)
    assert [e.id for e in loaded.entries] == ["A7", "B2", "D1", "D2", "D10"]


# --- probes and the modules they share -----------------------------------------------------------


def test_a_probes_script_is_named_after_its_entry_in_the_probes_folder_beside_it(tmp_path):
    probe = Probe("What pi does.", (("ok", True),), tmp_path / "demo" / "D4.yaml", 7)
    assert probe.script == tmp_path / "demo" / "probes" / "D4.mjs"
    decisions = write_map(tmp_path / "b", {"D4": decision("D4", probe=True)}, {"D4.mjs": "console.log('{}')\n"})
    (loaded,) = load_maps(decisions, editions=False)
    assert loaded.entries[0].probe.script.read_text() == "console.log('{}')\n"


def test_a_shared_module_is_an_underscored_es_module():
    assert is_shared_module(Path("probes/_session.mjs"))
    assert not is_shared_module(Path("probes/_session.js"))
    assert not is_shared_module(Path("probes/session.mjs"))
    assert not is_shared_module(Path("probes/D1_.mjs"))
    assert not is_shared_module(Path("_probes/D1.mjs"))


def test_a_probe_takes_along_the_shared_modules_it_imports_and_theirs_in_name_order(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    for name, text in {
        "D1.mjs": 'import { open } from "./_session.mjs";\nimport "./_zeta.mjs";\nimport("./_dyn.mjs");\n'
                  'import x from "./_missing.mjs";\nimport y from "./sub/_deep.mjs";\nimport z from "./_other.js";\n'
                  "// _stray.mjs is only named in a comment\n",
        "_session.mjs": "import { run } from './_alpha.mjs';\nimport './_session.mjs';\n",  # and itself: once
        "_alpha.mjs": 'import  (  "./_zeta.mjs")\n',
        "_zeta.mjs": "", "_dyn.mjs": "", "_stray.mjs": "", "_other.js": "",
    }.items():
        (probes / name).write_text(text)
    (probes / "sub").mkdir()
    (probes / "sub" / "_deep.mjs").write_text("")
    assert [m.name for m in shared_modules(probes / "D1.mjs")] == ["_alpha.mjs", "_dyn.mjs", "_session.mjs",
                                                                   "_zeta.mjs"]
    assert all(m.parent == probes for m in shared_modules(probes / "D1.mjs"))
    assert shared_modules(probes / "_alpha.mjs") == (probes / "_zeta.mjs",)
    assert shared_modules(probes / "gone.mjs") == ()  # a script that is not there imports nothing


def test_a_probe_that_is_not_valid_utf8_still_takes_its_shared_modules(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "D1.mjs").write_bytes(b'const s = "\xff\xfe";\nimport "./_a.mjs";\n')
    (probes / "_a.mjs").write_bytes(b'// \xe9t\xe9\nimport "./_b.mjs";\n')
    (probes / "_b.mjs").write_text("")
    assert [m.name for m in shared_modules(probes / "D1.mjs")] == ["_a.mjs", "_b.mjs"]


def test_a_shared_module_that_cannot_be_read_does_not_hide_the_others(tmp_path, monkeypatch):
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "D1.mjs").write_text('import "./_a.mjs";\nimport "./_b.mjs";\n')
    (probes / "_a.mjs").write_text('import "./_c.mjs";\n')
    (probes / "_b.mjs").write_text("")  # read first (the last found), and refused
    (probes / "_c.mjs").write_text("")
    real_read = Path.read_text

    def refused(path, *args, **kwargs):
        if path.name == "_b.mjs":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refused)
    assert [m.name for m in shared_modules(probes / "D1.mjs")] == ["_a.mjs", "_b.mjs", "_c.mjs"]


def test_the_loader_refuses_a_shared_module_no_probe_imports_and_no_other(tmp_path):
    decisions = write_map(tmp_path, {"D1": decision("D1", probe=True)}, {
        "D1.mjs": b'const s = "\xff";\nimport { open } from "./_session.mjs";\n',
        "_session.mjs": "import './_deep.mjs';\n", "_deep.mjs": "", "_stray.mjs": "import './_deep.mjs';\n"})
    with pytest.raises(InputError) as refused:
        load_maps(decisions, editions=False)
    assert [(p.path.name, p.message) for p in refused.value.problems] == [
        ("_stray.mjs", 'no probe imports this shared module: import it from a probe (`from "./_stray.mjs"`), or '
                       "remove it")]


# --- overlays and editions -----------------------------------------------------------------------


def side() -> Side:
    return Side("code", "pi does it.")


def overlay(**fields) -> Overlay:
    return Overlay(**{"extension": "turn-limit", "package": "@acme/turn-limit", "version": "1.0.0", "summary": "Stops.",
                      "changes": (), "path": Path("decisions/demo/extensions/turn-limit.yaml"), "line": 1, **fields})


def test_an_overlay_changes_its_changes_decisions_then_its_levers_each_once_in_first_seen_order():
    changes = (OverlayChange("D2", None, ("D5", "D1"), "how", side(), side(), 3),
               OverlayChange(None, "Who stops at ten turns?", ("D1",), "how", side(), side(), 9, overridden=("G7",)))
    assert changes[0].linked == ("D2", "D5", "D1") and changes[1].linked == ("D1", "G7")
    levers = (OverlayLever("tool_call", "event", ("E3", "D2"), "t", (), 20),
              OverlayLever("registerTool", "api", ("C7",), "t", (), 25))
    assert overlay(changes=changes, levers=levers).decisions == ("D2", "D5", "D1", "G7", "E3", "C7")
    assert overlay().decisions == ()


def test_an_overlays_citations_are_in_file_order_whatever_part_holds_them():
    a, b, c, d, e = (cite(line=n) for n in (30, 12, 41, 5, 18))
    found = overlay(levers=(OverlayLever("tool_call", "event", (), "t", (a, b), 10),),
                    runs=(Item("runs git", (c,), YAML, 40),), connects=(Item("fetches", (d,), YAML, 4),),
                    unchanged=(Item("same", (e,), YAML, 17),))
    assert found.cites == (d, b, e, a, c)


def test_an_overlay_is_pinned_when_it_records_the_packages_integrity():
    assert overlay(integrity="sha512-abc").pinned
    assert not overlay().pinned
    assert overlay(integrity="").pinned  # the loader refuses an empty one; the model only asks whether it is there


def test_an_edition_names_its_page_and_tells_what_a_person_settled_and_what_an_entry_said_before():
    edition = Edition("1.0.0", "1.1.0", "2026-01-02", (), Path("e.yaml"), settled=(("D1", "abc"), ("D2", "def")),
                      before=(("D1", "It stops."),))
    assert edition.slug == "1.0.0-to-1.1.0"
    assert edition.settled_claim("D2") == "def" and edition.settled_claim("D3") is None
    assert edition.said_before("D1") == "It stops." and edition.said_before("D2") is None
    row = EditionCitation("D1", "src/a.ts", (1, 2), (3, 4), "1.0.0", "moved", "abc", 5)
    assert row.file_now == "src/a.ts"
    assert EditionCitation("D1", "src/a.ts", (1, 2), (3, 4), "1.0.0", "moved", "abc", 5, new_file="src/b.ts").file_now \
        == "src/b.ts"


# --- an npm extension as a map of its own ------------------------------------------------------------


def test_a_package_name_becomes_a_folder_name():
    assert npm_package_key("@acme/turn-limit") == "acme+turn-limit"
    assert npm_package_key("turn-limit") == "turn-limit"
    assert npm_package_key("XMLHttpRequest") == "XMLHttpRequest"  # an old package's capitals are kept


def test_an_extension_on_npm_is_a_map_of_its_shipped_files_at_its_version():
    plain = extension_map("@acme/turn-limit", "1.0.0")
    assert (plain.name, plain.title, plain.repo, plain.version) == (
        "npm-acme+turn-limit", "@acme/turn-limit", "https://www.npmjs.com/package/@acme/turn-limit", "1.0.0")
    assert plain.source == Source(npm=(NpmPackage("@acme/turn-limit", "", shipped=True, integrity=None),))
    assert (plain.entries, plain.folder, plain.path, plain.checked_at, plain.editions) == ((), Path(), Path(), None, ())
    assert plain.recorded_version == "1.0.0"


def test_a_pinned_overlay_is_one_entry_named_after_its_extension_holding_every_citation():
    path = Path("decisions/demo/extensions/turn-limit.yaml")
    first, second = cite(line=12), cite(line=30)
    review = Review("1.0.0", "2026-01-02", "a reader")
    edition = Edition("1.0.0", "1.1.0", "2026-01-02", (), Path("e.yaml"))
    found = overlay(path=path, integrity="sha512-abc", checked_at="0.9.0", reviewed=review, editions=(edition,),
                    levers=(OverlayLever("tool_call", "event", (), "Stops a tool.", (second,), 28),),
                    runs=(Item("Runs git.", (first,), path, 10),), connects=(Item("Calls home.", (), path, 40),),
                    unchanged=(Item("Leaves the prompt.", (), path, 50),))
    extension = extension_map("@acme/turn-limit", "1.1.0", integrity="sha512-abc", checked_at="0.9.0", overlay=found)
    assert extension.source.npm[0].integrity == "sha512-abc" and extension.recorded_version == "0.9.0"
    assert (extension.path, extension.folder, extension.editions) == (path, path.parent / "turn-limit", (edition,))
    (only,) = extension.entries
    assert (only.id, only.kind, only.title, only.path, only.line, only.reviewed) == (
        "turn-limit", "extension", "turn-limit", path, 1, review)
    assert only.cites == (first, second)
    # its text is what a bump compares: the summary, then each lever, run, connection and unchanged part
    assert only.description == "Stops.\nStops a tool.\nRuns git.\nCalls home.\nLeaves the prompt."
    assert (only.question, only.answer, only.decided_by, only.checks, only.upstream) == (None,) * 5
    assert (only.changed_by, only.failures) == ((), ())
    assert extension_map("x", "1.0.0", overlay=overlay(summary=None)).entries[0].description == ""
