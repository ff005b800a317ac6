"""`bump` and `accept` on a fixture map across two versions of fixture sources."""

from __future__ import annotations

import hashlib
import os
import re

import pytest

from conftest import DRIFT_V1 as V1, DRIFT_V2 as V2, make_project, run_main


ENTRY = """\
# The entry's own comment stays.
id: {id}
question: Who decides {id}?   # trailing comment
decided_by: code
answer: >-
  Plain code.
cites:
  - file: src/lib.ts
    lines: {lines}   # keep me
"""


def project(tmp_path):
    entries = {"A1": ENTRY.format(id="A1", lines="1-3"), "A2": ENTRY.format(id="A2", lines="5-8"),
               "A3": ENTRY.format(id="A3", lines="10-12"), "A4": ENTRY.format(id="A4", lines="15")}
    return make_project(tmp_path, {"1": {"src/lib.ts": V1}, "2": {"src/lib.ts": V2}}, entries)


def test_bump_rewrites_moved_pins_the_map_and_keeps_the_rest_for_a_person(tmp_path, capsys):
    p = project(tmp_path)
    before = {i: p.entry(i).read_text() for i in ("A1", "A2", "A3", "A4")}
    map_before = p.map_yaml.read_text()
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 1  # some citations need a person
    # the map: the new pin, and the version the unchanged citations were checked at, right under it
    assert p.map_yaml.read_text() == map_before.replace('version: "1"\n', 'version: "2"\nchecked_at: "2"\n')
    # moved: the range rewritten in place, every other byte kept
    # and recorded where the code is now (the record line is the tool's)
    assert re.sub(r"digest: [0-9a-f]{12}", "digest: #", p.entry("A1").read_text()) == before["A1"].replace(
        "lines: 1-3   # keep me", "lines: 4-6   # keep me\n    record: {symbol: steady, length: 3, digest: #}")
    # changed: kept at the version it was checked at, with a diff printed for a person
    assert p.entry("A2").read_text() == before["A2"].replace(
        "lines: 5-8   # keep me", 'lines: 5-8   # keep me\n    version: "1"')
    assert "── A2 changed" in run.stdout and "-  const doubled = x * 2;" in run.stdout \
        and "+  const doubled = x * 3;" in run.stdout
    # missing: the declaration is gone
    assert 'version: "1"' in p.entry("A3").read_text()
    assert "── A3 missing" in run.stdout
    # ambiguous: the same code under the same name twice, and nothing decides between them
    assert p.entry("A4").read_text() == before["A4"].replace(
        "lines: 15   # keep me", 'lines: 15   # keep me\n    version: "1"')
    assert "── A4 ambiguous" in run.stdout
    assert p.map_yaml.read_text().count('version: "2"') == 1
    edition = (p.folder / "editions" / "1-to-2.yaml").read_text()
    assert "status: moved" in edition and "status: changed" in edition and "status: missing" in edition
    # after the bump, verify at the new pin fails until a person accepts
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 1


def test_accept_takes_the_new_range_and_verify_passes(tmp_path, capsys):
    p = project(tmp_path)
    p.entry("A3").unlink()  # missing and ambiguous citations need a range by hand; leave them out
    p.entry("A4").unlink()
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    run = run_main(capsys, "accept", "A2", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stderr
    text = p.entry("A2").read_text()
    assert "lines: 8-11   # keep me" in text and 'version: "2"' in text
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 0


def test_accept_takes_a_drifted_citation_listed_after_one_that_is_ok_at_the_pin(tmp_path, capsys):
    p = project(tmp_path)
    for other in ("A2", "A3", "A4"):
        p.entry(other).unlink()
    p.entry("A1").write_text(ENTRY.format(id="A1", lines="1-3") + "  - file: src/lib.ts\n    lines: 5-8\n")
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")  # 1-3 moved (now ok), 5-8 changed
    run = run_main(capsys, "accept", "A1", "--decisions", p.decisions, "--quiet")
    assert (run.code, run.stdout) == (0, "A1: src/lib.ts: now 8-11, checked at 2\n")
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 0


def test_accept_refuses_unknown_ids(tmp_path, capsys):
    p = project(tmp_path)
    run = run_main(capsys, "accept", "Z9", "--decisions", p.decisions, "--quiet")
    assert run.code == 2 and "Z9" in run.stderr


def test_bump_interrupted_while_writing_leaves_every_yaml_file_as_it_was(tmp_path, capsys, monkeypatch):
    p = project(tmp_path)
    files = sorted(p.folder.rglob("*.yaml"))
    before = {f: f.read_bytes() for f in files}
    calls = {"n": 0}
    real_fsync = os.fsync

    def dying_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 3:  # the third file being written: a kill, or a full disk
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", dying_fsync)
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 130
    assert {f: f.read_bytes() for f in files} == before
    assert not list(p.folder.rglob("*.tmp")) and not (p.folder / "editions" / "1-to-2.yaml").exists()


def test_bump_to_the_pinned_version_is_refused(tmp_path, capsys):
    p = project(tmp_path)
    run = run_main(capsys, "bump", "1", "--decisions", p.decisions, "--quiet")
    assert run.code == 2 and "already pinned" in run.stderr


@pytest.mark.parametrize("flow", [False, True])
def test_bump_keeps_the_style_of_block_and_flow_citations(tmp_path, capsys, flow):
    p = project(tmp_path)
    if flow:
        p.write_entry("A1", "id: A1\nquestion: Q?\ndecided_by: code\nanswer: A.\n"
                      "cites: [{file: src/lib.ts, lines: 1-3}]\n")
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    text = p.entry("A1").read_text()
    assert ("cites: [{file: src/lib.ts, lines: 4-6, record: {symbol: steady, length: 3, digest: " in text) if flow \
        else ("lines: 4-6" in text)


def test_bump_killed_between_two_renames_is_finished_by_the_next_run(tmp_path, capsys, monkeypatch):
    p = project(tmp_path)
    real_replace = os.replace
    calls = {"n": 0}

    def dying_replace(source, target):
        if str(source).endswith(".tmp") and not str(target).endswith(".json"):
            calls["n"] += 1
            if calls["n"] == 2:  # one entry renamed, the rest (and the pin) not yet
                raise KeyboardInterrupt
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", dying_replace)
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 130
    monkeypatch.setattr(os, "replace", real_replace)
    run = run_main(capsys, "verify", "--decisions", p.decisions, "--quiet")
    assert "finished an interrupted write" in run.stderr
    assert 'version: "2"' in p.map_yaml.read_text() and "lines: 4-6" in p.entry("A1").read_text()
    assert not list(p.folder.rglob(".decision-map-journal*"))


@pytest.mark.parametrize("refused", ["A3", "A4"])  # missing, ambiguous: no new range to take
def test_accept_exits_1_when_it_refuses_an_entry_and_leaves_that_entry_alone(tmp_path, capsys, refused):
    p = project(tmp_path)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    before = p.entry(refused).read_text()
    status = {"A3": "missing", "A4": "ambiguous"}[refused]

    alone = run_main(capsys, "accept", refused, "--decisions", p.decisions, "--quiet")
    assert alone.code == 1, (alone.stdout, alone.stderr)
    assert f"{refused}: src/lib.ts:" in alone.stderr and f"is {status} at 2" in alone.stderr
    assert "write its new `lines` by hand" in alone.stderr
    assert p.entry(refused).read_text() == before

    # With an entry it can accept: that one is accepted, the exit still says one was refused.
    mixed = run_main(capsys, "accept", "A2", refused, "--decisions", p.decisions, "--quiet")
    assert mixed.code == 1
    assert "A2: src/lib.ts: now 8-11, checked at 2" in mixed.stdout
    assert "lines: 8-11   # keep me" in p.entry("A2").read_text()
    assert p.entry(refused).read_text() == before
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 1


def edition_record(p) -> dict:
    import yaml

    return yaml.safe_load((p.folder / "editions" / "1-to-2.yaml").read_text())


def test_accept_writes_the_ranges_people_settled_on_into_the_edition(tmp_path, capsys):
    """The edition page shows, for each drifted citation, the code a person chose at the new
    version: `accept` writes those ranges into the edition record, and the claims it accepted."""
    p = project(tmp_path)
    two = ENTRY.format(id="A10", lines="5-8").replace(
        "    lines: 5-8   # keep me\n",
        "    lines: 5-8   # keep me\n  - file: src/lib.ts\n    lines: 10-12\n  - file: src/lib.ts\n    lines: 15\n")
    (p.folder / "A10.yaml").write_text(two)
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 1
    before = edition_record(p)
    # A person re-reads A3 (its code is gone) and cites other lines by hand; A10's second
    # citation the same way; then accepts A2 and A10, whose first citation takes bump's range.
    p.entry("A3").write_text(p.entry("A3").read_text().replace('lines: 10-12   # keep me\n    version: "1"',
                                                               "lines: 13-14"))
    a10 = (p.folder / "A10.yaml").read_text()
    (p.folder / "A10.yaml").write_text(a10.replace('lines: 10-12\n    version: "1"', "lines: 12-14")
                                       .replace('lines: 15\n    version: "1"', "lines: 16-17"))
    # A moved citation edited by hand afterwards: the edition keeps the range bump found.
    p.entry("A1").write_text(p.entry("A1").read_text().replace("lines: 4-6", "lines: 4-5"))
    run = run_main(capsys, "accept", "A10", "A2", "A3", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stderr
    after = edition_record(p)
    rows = {(r["id"], r["old"]): r for r in after["citations"]}
    assert rows[("A2", "5-8")]["new"] == "8-11"
    assert rows[("A3", "10-12")]["new"] == "13-14"
    assert rows[("A10", "5-8")]["new"] == "8-11"
    assert rows[("A10", "10-12")]["new"] == "12-14"
    assert rows[("A10", "15")]["new"] == "16-17"
    assert "new" not in rows[("A4", "15")]  # nobody settled it: still no range
    assert rows[("A1", "1-3")] == next(r for r in before["citations"] if r["id"] == "A1")  # moved: as bump wrote it
    # every other field of each row is bump's
    for old, new in zip(before["citations"], after["citations"]):
        assert {k: v for k, v in old.items() if k != "new"} == {k: v for k, v in new.items() if k != "new"}
    # the accepted claims, in ID order (A2 before A10)
    assert list(after["settled"]) == ["A2", "A3", "A10"]
    assert after["settled"]["A2"] == rows[("A2", "5-8")]["claim"]
    assert (after["from"], after["to"], after["date"]) == (before["from"], before["to"], before["date"])


def test_accept_with_nothing_new_to_settle_leaves_the_edition_as_it_is(tmp_path, capsys):
    p = project(tmp_path)
    p.entry("A3").unlink()
    p.entry("A4").unlink()
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run_main(capsys, "accept", "A2", "--decisions", p.decisions, "--quiet").code == 0
    # a note a maintainer added to the record is not written over by an accept with nothing to add
    settled = (p.folder / "editions" / "1-to-2.yaml").read_text() + "# A2 re-read on the release day\n"
    (p.folder / "editions" / "1-to-2.yaml").write_text(settled)
    assert run_main(capsys, "accept", "A2", "--decisions", p.decisions, "--quiet").code == 0
    assert (p.folder / "editions" / "1-to-2.yaml").read_text() == settled
    assert edition_record(p)["settled"] == {"A2": edition_record(p)["citations"][1]["claim"]}


@pytest.mark.parametrize("command", ["record", "accept", "bump", "fix", "verify"])
def test_quiet_commands_say_nothing_about_fetching(tmp_path, capsys, monkeypatch, command):
    """`--quiet` (what CI and scripts use) keeps the fetch messages off stderr, for every command
    that reads source trees; without it, a fetch says so."""
    p = project(tmp_path)
    if command == "accept":
        p.entry("A3").unlink()
        p.entry("A4").unlink()
        run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
        args = ["accept", "A2"]
    else:
        args = {"bump": ["bump", "2"]}.get(command, [command])
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "empty-cache"))  # every tree fetched anew
    quiet = run_main(capsys, *args, "--decisions", p.decisions, "--quiet")
    assert "fetching" not in quiet.stderr, quiet.stderr
    assert quiet.code in (0, 1), quiet.stderr
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "another-empty-cache"))
    if command in ("bump", "accept"):  # their first run already changed the map: start again
        return
    loud = run_main(capsys, *args, "--decisions", p.decisions)
    assert "fetching" in loud.stderr


def test_bump_prints_each_drifted_citation_as_a_person_reads_it(tmp_path, capsys):
    """The review a maintainer reads after a bump: the question, the claim, and a diff of exactly
    the cited lines at the old version against the lines found at the new one."""
    p = project(tmp_path)
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    blocks = run.stdout.split("\n\n")
    assert blocks[0] == "A1: src/lib.ts: 1-3 → 4-6 (moved, updated)"
    assert blocks[1] == ("3 citation(s) need a person: re-read each, update the entry where pi's behaviour "
                         "changed, then `python -m generator accept ID`")
    edition = p.folder / "editions" / "1-to-2.yaml"
    assert run.stdout.splitlines()[-1] == (f"demo: pinned at 2 (1 moved, 1 changed, 1 missing, 1 ambiguous); "
                                           f"edition written to {edition}")
    changed = next(b for b in blocks if b.startswith("── A2"))
    assert changed.splitlines() == [
        "── A2 changed: Who decides A2?",
        "   claim: Plain code.",
        "--- src/lib.ts:5-8 at 1",
        "+++ src/lib.ts:8-11 at 2",
        "@@ -1,4 +1,4 @@",
        " export function drifting(x: number): number {",
        "-  const doubled = x * 2;",
        "+  const doubled = x * 3;",
        "   return doubled;",
        " }",
    ]
    missing = next(b for b in blocks if b.startswith("── A3"))
    assert missing.splitlines() == [
        "── A3 missing: Who decides A3?",
        "   claim: Plain code.",
        "--- src/lib.ts:10-12 at 1",
        "+++ src/lib.ts at 2 (not found)",
        "@@ -1,3 +0,0 @@",
        "-export function doomed(): string {",
        '-  return "bye";',
        "-}",
    ]


def test_accept_after_an_entry_or_a_citation_was_removed(tmp_path, capsys):
    """The edition still lists what bump found; an entry deleted since, or a citation taken out of
    one, is simply not settled."""
    p = project(tmp_path)
    two = ENTRY.format(id="A10", lines="5-8").replace(
        "    lines: 5-8   # keep me\n", "    lines: 5-8   # keep me\n  - file: src/lib.ts\n    lines: 10-12\n")
    (p.folder / "A10.yaml").write_text(two)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A3").unlink()
    p.entry("A4").unlink()
    a10 = (p.folder / "A10.yaml").read_text()
    (p.folder / "A10.yaml").write_text(a10.replace('  - file: src/lib.ts\n    lines: 10-12\n    version: "1"\n', ""))
    run = run_main(capsys, "accept", "A2", "A10", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stderr
    rows = {(r["id"], r["old"]): r for r in edition_record(p)["citations"]}
    assert rows[("A10", "5-8")]["new"] == "8-11"
    assert "new" not in rows[("A10", "10-12")] and "new" not in rows[("A3", "10-12")]


def test_bump_writes_the_edition_record_of_what_it_found(tmp_path, capsys):
    """The edition record is what the edition page and a later `accept` read: for each citation,
    where it was, where bump found it (none when it could not), the version it was checked at,
    its status and a digest of the claim, under two lines saying what the file is."""
    p = project(tmp_path)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    text = (p.folder / "editions" / "1-to-2.yaml").read_text()
    assert text.splitlines()[:2] == [
        "# Written by `python -m generator bump`: what changed in the map's code between two versions.",
        "# `new` is where the code was found; `accept` sets it to the range a person settled on.",
    ]
    record = edition_record(p)
    assert (record["from"], record["to"]) == ("1", "2") and "probes" not in record and "settled" not in record
    rows = [{k: v for k, v in r.items() if k != "claim"} for r in record["citations"]]
    assert rows == [
        {"id": "A1", "file": "src/lib.ts", "old": "1-3", "new": "4-6", "checked_at": "1", "status": "moved"},
        {"id": "A2", "file": "src/lib.ts", "old": "5-8", "new": "8-11", "checked_at": "1", "status": "changed"},
        {"id": "A3", "file": "src/lib.ts", "old": "10-12", "checked_at": "1", "status": "missing"},
        {"id": "A4", "file": "src/lib.ts", "old": "15", "checked_at": "1", "status": "ambiguous"},
    ]
    assert len({r["claim"] for r in record["citations"]}) == 4  # one digest per entry's claim


def test_bump_records_a_citation_that_moved_to_another_file(tmp_path, capsys):
    from conftest import entry_yaml

    one = "export function one(): number {\n  return 1;\n}\n"
    p = make_project(tmp_path, {"1": {"src/a.ts": one + "const k = 0;\n"},
                                "2": {"src/a.ts": "const k = 0;\n", "src/b.ts": "// b\n" + one}},
                     {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 0
    [row] = edition_record(p)["citations"]
    assert {k: row[k] for k in ("file", "old", "new", "new_file", "status")} == {
        "file": "src/a.ts", "old": "1-3", "new": "2-4", "new_file": "src/b.ts", "status": "moved"}
    assert "file: src/b.ts" in p.entry("D1").read_text()


SAME = "export function same(): number {\n  return 0;\n}\n"


def test_bump_records_the_probes_that_flipped_and_accept_keeps_them(tmp_path, capsys, monkeypatch):
    """A probe whose outcome differs at the new version is printed, fails the bump like a drifted
    citation, and is listed in the edition record, which a later `accept` keeps."""
    from generator.release import bump
    from generator.map.model import EditionProbe

    asked = []

    def flips(decision_map, version):
        asked.append((decision_map.name, version))
        return [EditionProbe("A1", "holds", "fails")]

    monkeypatch.setattr(bump, "probe_flips", flips)
    p = project(tmp_path)
    p.entry("A2").unlink()
    p.entry("A3").unlink()
    p.entry("A4").unlink()
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert asked == [("demo", "2")]
    assert run.code == 1  # the citations all moved, but running pi shows a change
    assert run.stdout.split("\n\n", 1)[1].splitlines()[:3] == [
        "1 probe(s) flipped: running pi 2 shows a change in what the entry claims; re-read it, then run "
        "`python -m generator probe ID`", "", "── A1 probe holds → fails: Who decides A1?"]
    assert run.stdout.splitlines()[-1].startswith("demo: pinned at 2 (1 moved, 1 probe(s) flipped)")
    record = edition_record(p)
    assert record["probes"] == [{"id": "A1", "before": "holds", "after": "fails"}]
    assert "\nprobes:\n  - {id: A1, before: holds, after: fails}\nbefore:\n" in \
        (p.folder / "editions" / "1-to-2.yaml").read_text()
    assert run_main(capsys, "accept", "A1", "--decisions", p.decisions, "--quiet").code == 0
    assert edition_record(p)["probes"] == record["probes"] and "A1" in edition_record(p)["settled"]


def test_bump_into_a_folder_that_already_has_editions(tmp_path, capsys):
    p = project(tmp_path)
    (p.folder / "editions").mkdir()
    (p.folder / "editions" / "README.md").write_text("editions of this map\n")
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 1
    assert (p.folder / "editions" / "1-to-2.yaml").is_file()
    assert (p.folder / "editions" / "README.md").read_text() == "editions of this map\n"


def test_bump_refuses_a_map_whose_version_line_it_cannot_rewrite(tmp_path, capsys):
    """A quoted `"version":` key is valid YAML the loader accepts, but not a line bump can edit in place."""
    p = project(tmp_path)
    p.map_yaml.write_text(p.map_yaml.read_text().replace('version: "1"', '"version": "1"'))
    before = {f: f.read_bytes() for f in p.folder.rglob("*.yaml")}
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 2
    assert run.stderr.strip().endswith(f"{p.map_yaml}: no top-level `version:` line to update")
    assert {f: f.read_bytes() for f in p.folder.rglob("*.yaml")} == before
    assert not (p.folder / "editions").exists()


def test_accept_leaves_an_ok_citation_edited_by_hand_as_bump_found_it(tmp_path, capsys):
    """The edition says where bump found each citation; only drifted ones take the range a person
    settled on. An `ok` citation narrowed by hand after the bump keeps bump's range there."""
    p = make_project(tmp_path, {"1": {"src/lib.ts": V1, "src/same.ts": SAME},
                                "2": {"src/lib.ts": V2, "src/same.ts": SAME}},
                     {"A2": ENTRY.format(id="A2", lines="5-8"),
                      "A5": ENTRY.format(id="A5", lines="1-3").replace("src/lib.ts", "src/same.ts")})
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A5").write_text(p.entry("A5").read_text().replace("lines: 1-3", "lines: 1-2"))
    assert run_main(capsys, "accept", "A2", "--decisions", p.decisions, "--quiet").code == 0
    rows = {r["id"]: r for r in edition_record(p)["citations"]}
    assert (rows["A5"]["status"], rows["A5"]["new"]) == ("ok", "1-3")
    assert rows["A2"]["new"] == "8-11"


def gone_elsewhere_and_changed(tmp_path):
    """D1 cites `one`, which at version 2 is in another file, with other code."""
    from conftest import entry_yaml

    return make_project(tmp_path, {"1": {"src/a.ts": "export function one(): number {\n  return 1;\n}\nconst k = 0;\n"},
                                   "2": {"src/a.ts": "const k = 0;\n",
                                         "src/b.ts": "// b\nexport function one(): number {\n  return 2;\n}\n"}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})


def test_accept_records_a_drifted_citation_settled_in_the_file_its_code_went_to(tmp_path, capsys):
    """`one` went to another file and changed there: bump records the file, a person cites narrower
    lines of it, and the edition's row names that file with the person's range."""
    p = gone_elsewhere_and_changed(tmp_path)
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 1
    [row] = edition_record(p)["citations"]
    assert (row["status"], row["new_file"], row["new"]) == ("changed", "src/b.ts", "2-4")
    text = p.entry("D1").read_text()
    p.entry("D1").write_text(text.replace('file: src/a.ts\n    lines: 1-3\n    version: "1"',
                                          "file: src/b.ts\n    lines: 3"))
    assert "src/b.ts" in p.entry("D1").read_text()
    assert run_main(capsys, "accept", "D1", "--decisions", p.decisions, "--quiet").code == 0
    [row] = edition_record(p)["citations"]
    assert (row["file"], row["new_file"], row["new"], row["status"]) == ("src/a.ts", "src/b.ts", "3", "changed")


def test_a_range_settled_by_hand_is_written_into_the_edition_without_accepting_anything(tmp_path, capsys):
    from generator.release.bump import settled_edition
    from generator.map.load import load_maps

    p = project(tmp_path)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A3").write_text(p.entry("A3").read_text().replace('lines: 10-12   # keep me\n    version: "1"',
                                                               "lines: 13-14"))
    [decision_map] = load_maps(p.decisions)
    path, text = settled_edition(decision_map)
    assert path == p.folder / "editions" / "1-to-2.yaml"
    assert '  - id: A3\n    file: src/lib.ts\n    old: "10-12"\n    new: "13-14"\n' in text
    assert "settled:" not in text  # nothing accepted: no claim recorded


def test_the_review_of_a_drifted_problem_shows_its_description_and_two_lines_of_context(tmp_path, capsys):
    """A problem has no answer: its description is the claim. The diff keeps two unchanged lines on
    each side of a change, so a long cited range shows only the lines around what changed."""
    body = "".join(f"  const v{i} = {i};\n" for i in range(1, 8))
    old = f"export function long(): number {{\n{body}  return 0;\n}}\n"
    new = old.replace("const v4 = 4;", "const v4 = 40;")
    problem = ("id: P1\nkind: problem\ntitle: A long function\ndescription: >-\n  It is long,\n  and"
               " it changes.\ncites:\n  - file: src/long.ts\n    lines: 1-10\n")
    p = make_project(tmp_path, {"1": {"src/long.ts": old}, "2": {"src/long.ts": new}}, {"P1": problem})
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    review = next(b for b in run.stdout.split("\n\n") if b.startswith("── P1"))
    assert review.splitlines() == [
        "── P1 changed: A long function",
        "   claim: It is long, and it changes.",
        "--- src/long.ts:1-10 at 1",
        "+++ src/long.ts:1-10 at 2",
        "@@ -3,5 +3,5 @@",
        "   const v2 = 2;",
        "   const v3 = 3;",
        "-  const v4 = 4;",
        "+  const v4 = 40;",
        "   const v5 = 5;",
        "   const v6 = 6;",
    ]


def test_accept_takes_what_it_can_of_an_entry_and_refuses_the_rest(tmp_path, capsys):
    p = project(tmp_path)
    two = ENTRY.format(id="A10", lines="10-12").replace(
        "    lines: 10-12   # keep me\n", "    lines: 10-12   # keep me\n  - file: src/lib.ts\n    lines: 5-8\n")
    (p.folder / "A10.yaml").write_text(two)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    run = run_main(capsys, "accept", "A10", "--decisions", p.decisions, "--quiet")
    assert run.code == 1  # the first citation's code is gone: refused
    assert run.stdout == "A10: src/lib.ts: now 8-11, checked at 2\n"
    text = (p.folder / "A10.yaml").read_text()
    assert 'lines: 10-12   # keep me\n    version: "1"\n' in text
    assert '    lines: 8-11\n    record: {symbol: drifting, length: 4, digest: ' in text and text.endswith('version: "2"\n')


def test_accept_follows_code_that_went_to_another_file_and_changed(tmp_path, capsys):
    p = gone_elsewhere_and_changed(tmp_path)
    assert run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet").code == 1
    run = run_main(capsys, "accept", "D1", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout == "D1: src/a.ts: now src/b.ts:2-4, checked at 2\n"
    assert "  - file: src/b.ts\n    lines: 2-4\n    record: {symbol: one, length: 3, digest: " in p.entry("D1").read_text()
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 0


def test_accept_at_the_pin_takes_the_code_a_range_edited_by_hand_lost(tmp_path, capsys):
    """Checked at the pin, but its range no longer holds its recorded code: `accept` takes the
    range where that code is (a range changed on purpose is `record --replace`'s)."""
    from conftest import entry_yaml

    p = make_project(tmp_path, {"1": {"src/lib.ts": V1}}, {"D1": entry_yaml("D1", [("src/lib.ts", "1-3")])})
    assert run_main(capsys, "record", "--decisions", p.decisions, "--quiet").code == 0
    recorded = p.entry("D1").read_text()
    p.entry("D1").write_text(recorded.replace("lines: 1-3", "lines: 2-4"))
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 1
    run = run_main(capsys, "accept", "D1", "--decisions", p.decisions, "--quiet")
    assert (run.code, run.stdout) == (0, "D1: src/lib.ts: now 1-3, checked at 1\n")
    assert run_main(capsys, "verify", "--decisions", p.decisions, "--quiet").code == 0


def test_bump_keeps_what_each_entry_said_and_accept_keeps_it_after_a_rewrite(tmp_path, capsys):
    """The edition's `before`: every entry's answer at the old pin, written by bump and kept by
    accept, so the edition page can set the old text beside the new one without git history."""
    from generator.map.load import load_maps

    p = project(tmp_path)
    p.entry("A3").unlink()
    p.entry("A4").unlink()
    p.entry("A2").write_text(p.entry("A2").read_text().replace("  Plain code.", '  Plain code: "x: y" and `z`.'))
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A2").write_text(p.entry("A2").read_text().replace('  Plain code: "x: y" and `z`.', "  Now other code."))
    assert run_main(capsys, "accept", "A2", "--decisions", p.decisions, "--quiet").code == 0
    [loaded] = load_maps(p.decisions)
    edition = loaded.editions[-1]
    assert edition.said_before("A2") == 'Plain code: "x: y" and `z`.' and edition.said_before("A1") == "Plain code."
    assert loaded.entry("A2").answer == "Now other code."


ITEMS = """\
id: A5
question: Who decides A5?
decided_by: code
answer: >-
  Plain code.
cites:
  - file: src/lib.ts
    lines: 1-3
exceptions:
  - text: >-
      When   the code
      drifts.
    cites:
      - file: src/lib.ts
        lines: 5-8
overrides:
  - by: person
    when: >-
      A person picks
      another.
    cites:
      - file: src/lib.ts
        lines: 10-12
  - by: code
    can: decide alone
    when: >-
      A setting says so.
    cites:
      - file: src/lib.ts
        lines: 1-3
changed_by:
  - text: >-
      A setting   turns
      it off.
    cites:
      - file: src/lib.ts
        lines: 15
  - text: Another lever.
    cites:
      - file: src/lib.ts
        lines: 1-3
"""


def test_the_review_of_a_drifted_citation_names_the_items_it_backs(tmp_path, capsys):
    """An entry's exceptions, overrides and levers each cite their own code: the review of a drifted
    citation quotes the sentences that citation backs (on one line), the clause to re-read first."""
    p = make_project(tmp_path, {"1": {"src/lib.ts": V1}, "2": {"src/lib.ts": V2}}, {"A5": ITEMS})
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 1, run.stderr
    reviews = {b.split(":")[0]: b.splitlines()[:3] for b in run.stdout.split("\n\n") if b.startswith("── A5")}
    assert reviews == {
        "── A5 changed": ["── A5 changed: Who decides A5?", "   claim: Plain code.",
                          "   exception: When the code drifts."],
        "── A5 missing": ["── A5 missing: Who decides A5?", "   claim: Plain code.",
                          "   override by person: A person picks another."],
        "── A5 ambiguous": ["── A5 ambiguous: Who decides A5?", "   claim: Plain code.",
                            "   lever: A setting turns it off."]}


def test_the_claim_digest_of_an_entry_with_items_is_the_one_editions_were_written_with(tmp_path, capsys):
    """The edition page tells a re-worded entry by comparing the digest an edition recorded with the
    entry's own: the digest of the same text must not change from one version of the tool to the
    next, or every entry with levers or overrides would show as re-worded. Its levers one per line,
    each override with what it can do where it says so."""
    p = make_project(tmp_path, {"1": {"src/lib.ts": V1}, "2": {"src/lib.ts": V2}}, {"A5": ITEMS})
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    said = "\n".join(["Who decides A5?", "Plain code.", "", "", "A setting   turns it off.\nAnother lever.",
                      "exception: When   the code drifts.", "override by person: A person picks another.",
                      "override by code (can decide alone): A setting says so."])
    assert {row["claim"] for row in edition_record(p)["citations"]} == {hashlib.sha256(said.encode()).hexdigest()[:12]}


def test_an_answer_in_any_script_is_kept_in_the_edition_as_written(tmp_path, capsys):
    """The edition's `before` is the entry's text as a person reads it in the file, and loads back
    whole: accents and a character outside the Basic Multilingual Plane (as JSON escapes, a pair of
    surrogates, which YAML cannot read back)."""
    from generator.map.load import load_maps

    p = project(tmp_path)
    p.entry("A1").write_text(p.entry("A1").read_text().replace("  Plain code.", "  Plain code: naïve 🙂."))
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert '  A1: "Plain code: naïve 🙂."\n' in (p.folder / "editions" / "1-to-2.yaml").read_text()
    [loaded] = load_maps(p.decisions)
    assert loaded.editions[-1].said_before("A1") == "Plain code: naïve 🙂."


def test_an_entry_deleted_since_the_bump_does_not_stop_the_next_ones_range_being_recorded(tmp_path, capsys):
    p = project(tmp_path)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A2").unlink()  # its rows come before A3's in the edition
    p.entry("A3").write_text(p.entry("A3").read_text().replace('lines: 10-12   # keep me\n    version: "1"',
                                                               "lines: 13-14"))
    assert run_main(capsys, "accept", "A3", "--decisions", p.decisions, "--quiet").code == 0
    rows = {(r["id"], r["old"]): r for r in edition_record(p)["citations"]}
    assert rows[("A3", "10-12")]["new"] == "13-14" and rows[("A2", "5-8")]["new"] == "8-11"


def test_citations_added_to_an_entry_since_the_bump_are_not_taken_for_its_drifted_one(tmp_path, capsys):
    """A2's changed citation still waits for a person; two new citations of the same file, at the
    pin, are not the range a person settled it on (which of the two would it be?)."""
    from generator.release.bump import settled_edition
    from generator.map.load import load_maps

    p = project(tmp_path)
    run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    p.entry("A2").write_text(p.entry("A2").read_text().replace(
        "cites:\n", "cites:\n  - file: src/lib.ts\n    lines: 1-2\n  - file: src/lib.ts\n    lines: 13-14\n"))
    [decision_map] = load_maps(p.decisions)
    assert settled_edition(decision_map) is None  # nothing settled: the edition stays as bump wrote it
