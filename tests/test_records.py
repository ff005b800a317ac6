"""Citations that remember their code: the record the tool writes on each citation catches a range
or a pin edited by hand, and code that moved to another file is followed there.

Small maps over local git repositories; the same promises on real pi are in test_real_pi.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_main

SESSION = """export class Session {
\tstart(): void {
\t\tthis.open = true;
\t\tthis.count = 0;
\t}

\tstop(): void {
\t\tthis.open = false;
\t}
}
"""
# Version 2: three lines added on top, so each citation moves down by three.
SESSION_2 = "// the session\n// kept in memory\n\n" + SESSION

HELPERS = """import { read } from "./io";

function normalize(url: string): string {
\tconst trimmed = url.trim();
\treturn trimmed.endsWith("/") ? trimmed.slice(0, -1) : trimmed;
}

export function fetchIt(url: string): string {
\treturn read(normalize(url));
}
"""
# Version 2: `normalize` leaves for its own module (and becomes exported there).
HELPERS_2 = """import { read } from "./io";
import { normalize } from "./url";

export function fetchIt(url: string): string {
\treturn read(normalize(url));
}
"""
URL_2 = """// URLs, one place.

export function normalize(url: string): string {
\tconst trimmed = url.trim();
\treturn trimmed.endsWith("/") ? trimmed.slice(0, -1) : trimmed;
}
"""


def verify(capsys, project, *args) -> tuple[int, list[dict]]:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet", *args)
    return run.code, run.json()["citations"]


@pytest.fixture
def project(tmp_path: Path, capsys):
    project = make_project(tmp_path, {
        "1": {"src/session.ts": SESSION, "src/helpers.ts": HELPERS},
        "2": {"src/session.ts": SESSION_2, "src/helpers.ts": HELPERS_2, "src/url.ts": URL_2},
    }, {"D1": entry_yaml("D1", [("src/session.ts", "2-5"), ("src/session.ts", "7-9")]),
        "D2": entry_yaml("D2", [("src/helpers.ts", "3-6")])})
    run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "recorded 3 citation(s) in 3 file(s)"
    return project


def test_record_writes_what_each_citation_cites_and_the_version(project, capsys) -> None:
    text = project.entry("D1").read_text()
    assert re.search(r"lines: 2-5\n    record: \{symbol: Session\.start, length: 4, digest: [0-9a-f]{12}\}\n", text)
    assert 'checked_at: "1"' in project.map_yaml.read_text()
    assert verify(capsys, project)[0] == 0
    again = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    assert again.stdout.splitlines()[-1] == "recorded 0 citation(s) in 0 file(s)"


@pytest.mark.parametrize("shift", [1, -1, 3])
def test_a_range_shifted_by_hand_is_moved_back_to_its_code(project, capsys, shift) -> None:
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("lines: 2-5", f"lines: {2 + shift}-{5 + shift}"))
    code, rows = verify(capsys, project)
    assert code == 1
    assert rows[0]["status"] == "moved" and rows[0]["resolved"] == [2, 5]
    assert "edited by hand" in rows[0]["detail"]
    assert [r["status"] for r in rows[1:]] == ["ok", "ok"]
    # the text table says the same, and the site is not built from the wrong lines
    table = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert table.code == 1 and "edited by hand" in table.stdout
    fixed = run_main(capsys, "fix", "--decisions", project.decisions, "--quiet")
    assert fixed.code == 0
    assert project.entry("D1").read_text() == text
    assert verify(capsys, project)[0] == 0


def test_a_range_edited_past_the_end_of_the_file_is_drift_not_bad_input(project, capsys) -> None:
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("lines: 7-9", "lines: 70-72"))
    code, rows = verify(capsys, project)
    assert code == 1 and rows[1]["status"] == "moved" and rows[1]["resolved"] == [7, 9]


def test_a_citation_without_a_record_is_checked_as_before_and_verify_says_how_to_record_it(project, capsys) -> None:
    project.write_entry("D3", entry_yaml("D3", [("src/session.ts", "8")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 0
    assert "1 citation(s) have no record" in run.stderr and "python -m generator record" in run.stderr
    # without a record, a range past the end cannot be found again: that is bad input, at its `lines:` line
    project.write_entry("D3", entry_yaml("D3", [("src/session.ts", "80")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 2 and "D3.yaml:7: lines 80-80 run past the end" in run.stderr


def test_a_range_changed_on_purpose_is_recorded_again_with_replace(project, capsys) -> None:
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("lines: 2-5", "lines: 3-4"))
    assert verify(capsys, project)[0] == 1  # the record still names the old range's code
    refused = run_main(capsys, "record", "--replace", "--decisions", project.decisions, "--quiet")
    assert refused.code == 2 and "name the entries" in refused.stderr
    run = run_main(capsys, "record", "--replace", "D1", "--decisions", project.decisions, "--quiet")
    assert run.code == 0
    assert "record: {symbol: Session.start, length: 2," in project.entry("D1").read_text()
    assert verify(capsys, project)[0] == 0


def test_a_record_that_matches_nothing_is_changed_and_says_what_to_do(project, capsys) -> None:
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(re.sub(r"digest: [0-9a-f]{12}", "digest: 000000000000", text, count=1))
    code, rows = verify(capsys, project)
    assert code == 1 and rows[0]["status"] == "changed" and rows[0]["resolved"] is None
    assert rows[0]["symbol"] == "Session.start" and rows[0]["resolved_file"] == "src/session.ts"  # as recorded
    assert rows[0]["detail"] == ("the recorded code is not in src/session.ts at 1; if the citation was changed on "
                                 "purpose, run `python -m generator record --replace D1`")


def test_a_record_of_blank_lines_is_bad_input(project, capsys) -> None:
    """The digest of no text, written by hand: it would match any blank lines anywhere. (And a
    citation without a record of blank lines only is refused too.)"""
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(re.sub(r"digest: [0-9a-f]{12}", "digest: e3b0c44298fc", text))
    project.write_entry("D3", entry_yaml("D3", [("src/session.ts", "6")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 2 and [line.replace(str(project.folder), "demo") for line in run.errors] == [
        "error: demo/D1.yaml:6: the record of src/session.ts:2-5 is of blank lines only, which `record` never "
        "writes; remove the `record:` and run `python -m generator record`",
        "error: demo/D1.yaml:9: the record of src/session.ts:7-9 is of blank lines only, which `record` never "
        "writes; remove the `record:` and run `python -m generator record`",
        "error: demo/D3.yaml:7: lines 6-6 of src/session.ts are blank at 1; cite the code the entry is about",
        "3 problem(s) found; nothing was changed"]


def test_a_pin_edited_by_hand_is_resolved_from_the_recorded_version(project, capsys, tmp_path) -> None:
    untouched = tmp_path / "untouched"
    shutil.copytree(project.decisions, untouched)
    project.map_yaml.write_text(project.map_yaml.read_text().replace('version: "1"', 'version: "2"'))
    code, rows = verify(capsys, project)
    assert code == 1
    run = run_main(capsys, "verify", "--decisions", untouched, "--target", "2", "--format", "json", "--quiet")
    assert rows == run.json()["citations"]
    assert [(r["status"], r["resolved"]) for r in rows] == [("moved", [5, 8]), ("moved", [10, 12]), ("moved", [3, 6])]

    # `fix` then does what `bump` would have done, but for the edition record
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--quiet").code == 0
    bumped = tmp_path / "bumped"
    shutil.copytree(untouched, bumped)
    assert run_main(capsys, "bump", "2", "--decisions", bumped, "--quiet").code == 0
    for path in sorted(project.folder.glob("*.yaml")):
        assert path.read_text() == (bumped / "demo" / path.name).read_text(), path.name
    assert 'checked_at: "2"' in project.map_yaml.read_text()
    assert verify(capsys, project)[0] == 0


def test_code_that_moved_to_another_file_is_followed_there(project, capsys) -> None:
    code, rows = verify(capsys, project, "--target", "2")
    assert code == 1
    moved = rows[2]
    assert moved["status"] == "moved" and moved["file"] == "src/helpers.ts"
    assert moved["resolved_file"] == "src/url.ts" and moved["resolved"] == [3, 6]
    assert moved["symbol"] == "normalize" and moved["detail"] == "moved to src/url.ts"
    assert all(r["resolved_file"] == r["file"] for r in rows[:2])
    # the table and the annotations name the new path
    table = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert "helpers.ts → src/url.ts" in table.stdout
    github = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "github")
    assert "is moved now src/url.ts:3-6 at 2" in github.stdout
    # `fix` rewrites the file and the lines in place; then verify at 2 is ok
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet").code == 0
    text = project.entry("D2").read_text()
    assert "  - file: src/url.ts\n    lines: 3-6\n" in text and 'version: "2"' in text
    assert verify(capsys, project, "--target", "2")[0] == 0


def test_code_found_in_two_other_files_is_ambiguous(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {
        "1": {"src/helpers.ts": HELPERS},
        "2": {"src/helpers.ts": HELPERS_2, "src/url.ts": URL_2, "src/url-copy.ts": URL_2},
    }, {"D2": entry_yaml("D2", [("src/helpers.ts", "3-6")])})
    code, rows = verify(capsys, project, "--target", "2")
    assert code == 1 and rows[0]["status"] == "ambiguous" and rows[0]["resolved"] is None
    assert "src/url-copy.ts" in rows[0]["detail"] and "src/url.ts" in rows[0]["detail"]


def test_a_declaration_that_moved_and_changed_is_changed_in_its_new_file(tmp_path, capsys) -> None:
    changed = URL_2.replace("url.trim()", "url.trim().toLowerCase()")
    project = make_project(tmp_path, {
        "1": {"src/helpers.ts": HELPERS},
        "2": {"src/helpers.ts": HELPERS_2, "src/url.ts": changed},
    }, {"D2": entry_yaml("D2", [("src/helpers.ts", "3-6")])})
    code, rows = verify(capsys, project, "--target", "2")
    assert code == 1 and rows[0]["status"] == "changed" and rows[0]["resolved_file"] == "src/url.ts"
    assert rows[0]["resolved"] == [3, 6]
    # nothing a person must re-read is rewritten
    before = project.entry("D2").read_text()
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet").code == 1
    assert project.entry("D2").read_text() == before


def test_a_file_git_sees_renamed_is_followed(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {
        "1": {"src/session.ts": SESSION},
        "2": {"src/session-state.ts": SESSION_2.replace("this.count = 0", "this.count = 1")},
    }, {"D1": entry_yaml("D1", [("src/session.ts", "2-5"), ("src/session.ts", "7-9")])})
    code, rows = verify(capsys, project, "--target", "2")
    assert code == 1
    assert [(r["status"], r["resolved_file"], r["resolved"]) for r in rows] == [
        ("changed", "src/session-state.ts", [5, 8]), ("moved", "src/session-state.ts", [10, 12])]
    assert "renamed to src/session-state.ts" in rows[1]["detail"]


def test_new_writes_a_record(project, capsys) -> None:
    run = run_main(capsys, "new", "src/session.ts:8", "--group", "D", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    assert re.search(r"lines: 7-9\n    record: \{symbol: Session\.stop, length: 3, digest: [0-9a-f]{12}\}",
                     project.entry("D3").read_text())


def test_accept_records_the_code_a_person_re_read(tmp_path, capsys) -> None:
    changed = SESSION_2.replace("this.count = 0", "this.count = 1")
    project = make_project(tmp_path, {"1": {"src/session.ts": SESSION}, "2": {"src/session.ts": changed}},
                           {"D1": entry_yaml("D1", [("src/session.ts", "2-5")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    old_record = re.search(r"record: .*", project.entry("D1").read_text()).group()
    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 1
    assert 'version: "1"' in project.entry("D1").read_text()  # kept for a person
    assert run_main(capsys, "accept", "D1", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    assert "lines: 5-8" in text and 'version: "2"' in text
    new_record = re.search(r"record: .*", text).group()
    assert new_record != old_record and "length: 4" in new_record
    assert verify(capsys, project)[0] == 0
    # the edition records what the entry said when it was accepted
    assert re.search(r'\nsettled:\n  D1: "[0-9a-f]{12}"\n', (project.folder / "editions" / "1-to-2.yaml").read_text())


def test_the_symbol_memo_keeps_at_most_its_limit(project, capsys, monkeypatch, cache) -> None:
    from generator.citations import verify as verify_module

    monkeypatch.setattr(verify_module.SymbolMemo, "LIMIT", 2)
    monkeypatch.setattr(verify_module, "_MEMO", None)
    for target in ("2", "1"):
        run_main(capsys, "verify", "--decisions", project.decisions, "--target", target, "--quiet")
    memo = json.loads(next(cache.glob("symbols-*.json")).read_text())
    # what the last run used is kept even past the limit; older entries are dropped
    assert all(len(table) <= 3 for table in memo.values()), {k: len(v) for k, v in memo.items()}


def test_a_digest_of_digits_only_is_written_as_text() -> None:
    import yaml

    from generator.map.model import CitationRecord
    from generator.map.rewrite import record_text

    for digest in ("128429153790", "8ac6539463fe", "000000000001"):
        written = yaml.safe_load(f"record: {record_text(CitationRecord('A.b', 3, digest))}")["record"]
        assert written == {"symbol": "A.b", "length": 3, "digest": digest}


def test_bump_records_a_citation_nobody_recorded_when_its_code_is_unchanged(tmp_path: Path, capsys) -> None:
    """A hand-written citation (no record yet) over code that stays put: `bump` takes it to the new
    version like any other, recorded there, with no `version:` line left behind."""
    steady = "export function steady(): number {\n  return 1;\n}\n"
    project = make_project(tmp_path, {"1": {"src/a.ts": steady}, "2": {"src/a.ts": steady + "export const more = 2;\n"}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    run = run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stdout + run.stderr
    text = project.entry("D1").read_text()
    assert "record: {symbol: steady, length: 3, digest: " in text and "version:" not in text
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0


def test_record_names_every_unknown_id(project, capsys) -> None:
    run = run_main(capsys, "record", "--replace", "Z9", "D1", "Y8", "--decisions", project.decisions, "--quiet")
    assert run.code == 2 and "no entry has the ID Y8, Z9" in run.stderr


def test_verify_json_names_the_version_it_checked_against(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet", "--target", "2")
    assert set(run.json()) == {"target", "citations"} and run.json()["target"] == "2"


def test_the_code_a_page_shows_is_the_cited_lines_exactly(project) -> None:
    """A decision's page shows the cited lines cut from the pinned tree (verify.excerpt): lines 2-5
    of session.ts are the body of `start`, nothing above or below; a file the version lacks shows
    nothing."""
    from generator.map.load import load_maps
    from generator.citations.verify import Trees, excerpt

    [demo] = load_maps(project.decisions)
    trees = Trees(demo, quiet=True)
    assert excerpt(trees, "1", "src/session.ts", 2, 5) == SESSION.splitlines()[1:5]
    assert excerpt(trees, "2", "src/session.ts", 1, 1) == ["// the session"]
    assert excerpt(trees, "1", "src/url.ts", 1, 3) == []


def test_two_ranges_that_end_on_the_same_line_get_their_own_records(tmp_path: Path, capsys) -> None:
    """Records are remembered by file, first and last line: 2-9, 7-9 and 2-5 cite different code."""
    from generator.citations.resolve import SourceFile

    project = make_project(tmp_path, {"1": {"src/session.ts": SESSION}}, {"D1": entry_yaml("D1", [
        ("src/session.ts", "2-9"), ("src/session.ts", "7-9"), ("src/session.ts", "2-5")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    records = re.findall(r"symbol: \"?([\w., ]+?)\"?, length: (\d+), digest: ([0-9a-f]{12})",
                         project.entry("D1").read_text())
    source = SourceFile("src/session.ts", SESSION.encode())
    assert records == [("Session.start, Session.stop", "8", source.digest(1, 8)),
                       ("Session.stop", "3", source.digest(6, 8)), ("Session.start", "4", source.digest(1, 4))]


def test_a_warm_verify_at_the_pin_parses_no_source_file(project, capsys, monkeypatch, cache, request) -> None:
    """Symbols and digests of cited ranges are remembered (in memory and in the cache folder), so
    checking the map again at its pin reads the files' lengths but parses none of them."""
    from generator.citations import verify as verify_module

    cold = verify(capsys, project)
    parsed = request.getfixturevalue("parsed_files")  # counted from here on
    assert verify(capsys, project) == cold and cold[0] == 0
    monkeypatch.setattr(verify_module, "_MEMO", None)  # a new process: the memo is read from the cache folder
    assert verify(capsys, project) == cold
    assert parsed == []


def test_the_symbol_memo_keeps_what_the_run_used_then_the_newest(tmp_path: Path, monkeypatch) -> None:
    """Past its limit the memo file keeps what this run used, then the newest others (the order
    they were added in survives the file); under the limit it keeps everything; a run that added
    nothing does not write the file."""
    from generator.citations.verify import SymbolMemo

    monkeypatch.setattr(SymbolMemo, "LIMIT", 3)
    path = tmp_path / "new" / "cache" / "symbols-test.json"

    def load() -> SymbolMemo:
        return SymbolMemo(path, json.loads(path.read_text()))

    first = SymbolMemo(path, {})
    for key in "edcba":  # newest last
        first.put("symbols", key, key.upper())
    first.save()  # all five were used by this run: kept, past the limit
    assert json.loads(path.read_text()) == {"symbols": {k: k.upper() for k in "edcba"}}

    second = load()
    assert second.get("symbols", "e") == "E" and second.get("symbols", "z") is None
    second.put("digests", "k", "1")
    second.save()  # used: e; the two places left go to the newest others, b and a
    assert json.loads(path.read_text()) == {"symbols": {"e": "E", "b": "B", "a": "A"}, "digests": {"k": "1"}}

    monkeypatch.setattr(SymbolMemo, "LIMIT", 5)
    fourth = load()
    fourth.put("digests", "m", "2")
    fourth.save()  # nothing past the limit: what this run did not use is kept too
    assert json.loads(path.read_text()) == {"symbols": {"e": "E", "b": "B", "a": "A"}, "digests": {"k": "1", "m": "2"}}

    blocked = SymbolMemo(tmp_path / "a-file" / "symbols.json", {})
    (tmp_path / "a-file").write_text("")  # where the memo's folder would be: it cannot be saved
    blocked.put("symbols", "k", "v")
    blocked.save()  # and that is no error: a memo is only a shortcut
    assert (tmp_path / "a-file").read_text() == ""

    path.unlink()
    third = SymbolMemo(path, {"symbols": {"a": "A"}})
    assert third.get("symbols", "a") == "A"
    third.save()  # nothing new: no write
    assert not path.exists()


def test_a_symbol_memo_that_cannot_be_written_or_read_is_only_a_lost_shortcut(project, capsys, monkeypatch,
                                                                               cache) -> None:
    from generator.citations import verify as verify_module

    cold = verify(capsys, project)
    [memo] = cache.glob("symbols-*.json")
    for damaged in ('["a list"]', '{"symbols": ["a list"]}', '{"symbols": {"k": "v"}, "digests": 3}'):
        memo.write_text(damaged)
        monkeypatch.setattr(verify_module, "_MEMO", None)
        assert verify(capsys, project) == cold
        assert isinstance(json.loads(memo.read_text())["symbols"], dict), damaged  # written anew
    memo.unlink()
    memo.mkdir()  # its place taken: the memo cannot be saved, and verify does not mind
    monkeypatch.setattr(verify_module, "_MEMO", None)
    assert verify(capsys, project) == cold
    assert sorted(p.name for p in cache.iterdir() if p.name.startswith(".")) == []  # no temporary file left


@pytest.mark.parametrize("target", ["1", "2"])
def test_a_damaged_cached_file_is_fetched_again_and_the_verdicts_hold(project, capsys, cache, target) -> None:
    """A cached source file whose bytes no longer match the digest taken at fetch time (the same
    size, other bytes) is not read as the code: the tree is fetched again, and verify says what
    it said before."""
    before = verify(capsys, project, "--target", target)
    [cached] = cache.glob("trees/*/1/src/session.ts")
    cached.write_text(SESSION.replace("true", "TRUE"))
    again = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet",
                     "--target", target)
    assert (again.code, again.json()["citations"], again.stderr) == (before[0], before[1], "")  # quiet: no fetch line
    assert cached.read_text() == SESSION


def test_citations_of_a_file_the_version_lacks_are_bad_input_each(project, capsys) -> None:
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("file: src/session.ts", "file: src/url.ts"))  # only at 2
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet", "--target", "2")
    assert run.code == 2 and [line.replace(str(project.folder), "demo") for line in run.errors] == [
        f"error: demo/D1.yaml:{line}: cited file src/url.ts does not exist at 1; fix the path (it is relative to "
        "the repository root)" for line in (6, 9)] + ["2 problem(s) found; nothing was changed"]


BLANK_TAIL = "export function f(): number {\n  return 1;\n}\n\n\nexport const k = 0;\n"
ONE_CALL = "f();\n\n\n\nexport const k = 0;\n"


@pytest.mark.parametrize(("source", "recorded", "edited"), [
    (BLANK_TAIL, "1-3", "1-5"),  # two blank lines more: the same text without whitespace, not the same range
    (BLANK_TAIL, "1-4", "1-3"),  # a cited blank line less
    (ONE_CALL, "1-4", "1-2"),
], ids=["blank-lines-added", "a-blank-line-dropped", "two-of-four"])
def test_a_range_edited_by_hand_over_blank_lines_is_caught_by_its_length(tmp_path, capsys, source, recorded,
                                                                         edited) -> None:
    """Blank lines add nothing to the digest, so only the record's length tells these ranges apart."""
    project = make_project(tmp_path, {"1": {"src/a.ts": source}}, {"D1": entry_yaml("D1", [("src/a.ts", recorded)])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    project.entry("D1").write_text(project.entry("D1").read_text().replace(f"lines: {recorded}", f"lines: {edited}"))
    code, [row] = verify(capsys, project)
    first, last = recorded.split("-")
    assert (code, row["status"], row["resolved"]) == (1, "moved", [int(first), int(last)])
    assert row["detail"] == f"the range was edited by hand; the recorded code is at {recorded}"


def test_a_range_edited_by_hand_is_judged_against_the_target(tmp_path, capsys) -> None:
    """ok means the range as written holds the code at the target, wherever the record found it at
    the pin: version 2 moves `start` down three lines, version 3 keeps it where version 1 had it."""
    project = make_project(tmp_path, {"1": {"src/session.ts": SESSION}, "2": {"src/session.ts": SESSION_2},
                                      "3": {"src/session.ts": SESSION + "// the end\n"}},
                           {"D1": entry_yaml("D1", [("src/session.ts", "2-5")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    project.entry("D1").write_text(text.replace("lines: 2-5", "lines: 5-8"))  # where the code is at 2
    assert [(r["status"], r["resolved"]) for r in verify(capsys, project, "--target", "2")[1]] == [("ok", [5, 8])]
    assert [(r["status"], r["resolved"]) for r in verify(capsys, project, "--target", "3")[1]] == [("moved", [2, 5])]
    assert [(r["status"], r["resolved"]) for r in verify(capsys, project, "--target", "1")[1]] == [("moved", [2, 5])]


TWIN_METHODS = ("export class A {\n  m(): number {\n    return 1;\n  }\n}\n"
                "export class B {\n  m(): number {\n    return 1;\n  }\n}\n")


def test_a_hand_edited_range_finds_its_code_under_its_recorded_symbol_first(tmp_path, capsys) -> None:
    """`return 1;` is in A.m (line 3) and in B.m (line 8); the citation recorded A.m's, then its
    range was edited to line 7, nearer B.m's: the record's symbol decides, not the distance."""
    project = make_project(tmp_path, {"1": {"src/a.ts": TWIN_METHODS}}, {"D1": entry_yaml("D1", [("src/a.ts", "3")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    assert "record: {symbol: A.m, length: 1," in project.entry("D1").read_text()
    project.entry("D1").write_text(project.entry("D1").read_text().replace("lines: 3", "lines: 7"))
    code, [row] = verify(capsys, project)
    assert (code, row["status"], row["resolved"], row["symbol"]) == (1, "moved", [3, 3], "A.m")


TWIN_CLASSES = "".join(f"export class {c} {{\n  m(): number {{\n    return 1;\n  }}\n  n(): number {{\n    return 2;\n"
                       "  }\n}\n" for c in "AB")


def test_a_hand_edited_range_over_two_methods_finds_the_copy_under_both_its_recorded_names(tmp_path, capsys) -> None:
    """Lines 3-6 run from A.m into A.n; B holds the same text at 11-14: the record names both
    methods, and the copy whose whole range is under those names is the one."""
    project = make_project(tmp_path, {"1": {"src/a.ts": TWIN_CLASSES}}, {"D1": entry_yaml("D1", [("src/a.ts", "3-6")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    assert 'record: {symbol: "A.m, A.n", length: 4,' in project.entry("D1").read_text()
    project.entry("D1").write_text(project.entry("D1").read_text().replace("lines: 3-6", "lines: 10-13"))
    code, [row] = verify(capsys, project)
    assert (code, row["status"], row["resolved"]) == (1, "moved", [3, 6])


TWICE = "export function f(): number {\n  let n = 1;\n  n += 1;\n  n *= 2;\n  n += 1;\n  return n;\n}\n"


@pytest.mark.parametrize(("edited", "found"), [("6", [5, 5]), ("2", [3, 3]), ("4", [3, 3])],
                         ids=["nearer-the-second", "nearer-the-first", "as-near-to-both"])
def test_a_hand_edited_range_over_code_that_is_there_twice_takes_the_nearest(tmp_path, capsys, edited, found) -> None:
    """`n += 1;` is on lines 3 and 5, both in f: the copy nearest the edited range is the one, the
    earlier when both are as near."""
    project = make_project(tmp_path, {"1": {"src/a.ts": TWICE}}, {"D1": entry_yaml("D1", [("src/a.ts", "5")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    project.entry("D1").write_text(project.entry("D1").read_text().replace("lines: 5", f"lines: {edited}"))
    code, [row] = verify(capsys, project)
    assert (code, row["status"], row["resolved"]) == (1, "moved", found)


TWICE_TWO_LINES = ("export function f(): number {\n  let n = 1;\n  n += 1;\n  n *= 2;\n"
                   "  n -= 3;\n  n += 1;\n  n *= 2;\n  return n;\n}\n")


def test_the_nearest_copy_is_measured_from_its_first_line(tmp_path, capsys) -> None:
    """`n += 1; n *= 2;` is at 3-4 and at 6-7: a range edited to start on line 5 is one line from the
    second copy's start (and one from the first copy's end): the second is the one."""
    project = make_project(tmp_path, {"1": {"src/a.ts": TWICE_TWO_LINES}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "6-7")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    project.entry("D1").write_text(project.entry("D1").read_text().replace("lines: 6-7", "lines: 5-6"))
    code, [row] = verify(capsys, project)
    assert (code, row["status"], row["resolved"]) == (1, "moved", [6, 7])


def test_the_symbol_memo_is_named_after_the_resolver_that_filled_it(project, capsys, cache) -> None:
    """A new version of the resolver may name symbols otherwise: it starts a memo of its own."""
    import hashlib

    from generator.citations import resolve

    verify(capsys, project)
    resolver = hashlib.sha256(Path(resolve.__file__).read_bytes()).hexdigest()[:12]
    assert [p.name for p in cache.glob("symbols-*.json")] == [f"symbols-{resolver}.json"]

