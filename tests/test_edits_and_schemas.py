"""YAML edits (generator/map/rewrite.py) and the JSON Schemas (generator/map/schema.py): the cases mutation
testing (`make mutation`) showed no other test pins. Each asserts what lands in a file a person
reads and edits: the YAML a command rewrote, read back the way the loader reads it."""

from __future__ import annotations

import errno
import json
import locale
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from conftest import entry_yaml, make_project, run_cli, run_main
from generator.map import schema
from generator.map.model import CitationRecord
from generator.map.rewrite import record_text, set_top_level

CONFIG = "export const CONFIG = {\n\tretries: 3,\n\ttimeout: 10,\n};\n"
CONFIG_2 = "// settings\n" + CONFIG  # everything one line down
HEAD = "id: D1\nquestion: Q?\ndecided_by: code\nanswer: A.\n"


def fixed(tmp_path, capsys, cites: str, newline: str = "\n") -> tuple[str, dict]:
    """An entry with ``cites`` over CONFIG, after `fix --target 2`: its text, and its citations as
    the loader's YAML reads them."""
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}})
    project.entry("D1").write_bytes((HEAD + cites).replace("\n", newline).encode())
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 0, run.stderr
    text = project.entry("D1").read_bytes().decode()
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--quiet").code == 0
    return text, yaml.safe_load(text)["cites"]


# --- fix: where new keys go -------------------------------------------------------------------------


def test_a_key_added_to_a_flow_citation_goes_after_its_last_value(tmp_path, capsys) -> None:
    text, [cite] = fixed(tmp_path, capsys, 'cites: [{file: src/config.ts, lines: 2, note: "a } b"}]\n')
    assert (cite["note"], cite["lines"], cite["version"]) == ("a } b", 3, "2")
    assert text.startswith(HEAD + 'cites: [{file: src/config.ts, lines: 3, note: "a } b", version: "2"')


def test_a_key_added_to_the_last_line_of_a_file_without_a_final_newline(tmp_path, capsys) -> None:
    text, [cite] = fixed(tmp_path, capsys, "cites:\n  - file: src/config.ts\n    lines: 2")
    assert (cite["lines"], cite["version"]) == (3, "2")
    assert text.startswith(HEAD + 'cites:\n  - file: src/config.ts\n    lines: 3\n    version: "2"')


def test_keys_added_to_a_crlf_file_end_their_lines_with_crlf(tmp_path, capsys) -> None:
    text, [cite] = fixed(tmp_path, capsys, "cites:\n  - file: src/config.ts\n    lines: 2\n    note: n\n",
                         newline="\r\n")
    assert cite["version"] == "2" and cite["note"] == "n"
    assert text.count("\n") == text.count("\r\n"), repr(text)


def test_a_quoted_range_keeps_its_quotes(tmp_path, capsys) -> None:
    text, cites = fixed(tmp_path, capsys, "cites:\n  - file: src/config.ts\n    lines: \"2-3\"\n"
                                          "  - file: src/config.ts\n    lines: '1-4'\n")
    assert [c["lines"] for c in cites] == ["3-4", "2-5"]
    assert '    lines: "3-4"\n' in text and "    lines: '2-5'\n" in text


# --- leftovers of an interrupted write ----------------------------------------------------------------


def test_a_live_writers_temporary_is_kept_and_a_dead_ones_removed(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}}, {"D1": entry_yaml("D1", [("src/config.ts", 2)])})
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    try:
        live = project.folder / f".D1.yaml.{writer.pid}.k3j2.tmp"
        dead = project.folder / f".D1.yaml.{gone.pid}.x9q1.tmp"
        for temporary in (live, dead):
            temporary.write_text("half a file\n")
        assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0
        assert live.exists(), "a running writer's temporary was removed"
        assert not dead.exists(), "a dead writer's temporary was left behind"
        assert writer.poll() is None, "the running writer was signalled"
    finally:
        writer.kill()
        writer.wait()


def test_another_users_live_writers_temporary_is_kept() -> None:
    """A checkout shared by two people: one's `bump` is mid-write when the other's command starts.
    The second may not signal the first's process (EPERM), which says it is alive: its temporary
    stays. As root (CI), the writer runs as `daemon` and the reader drops to `nobody` while it
    loads; as anyone else, pid 1 is another user's live process."""
    from generator.map.load import load_maps

    shared = Path(tempfile.mkdtemp())  # not under pytest's folder, which only its owner may enter
    try:
        shared.chmod(0o777)
        project = make_project(shared, {"1": {"src/config.ts": CONFIG}}, {"D1": entry_yaml("D1", [("src/config.ts", 2)])})
        for folder in (shared, project.decisions, project.folder):
            folder.chmod(0o777)
        as_root = os.geteuid() == 0
        writer = subprocess.Popen(["sleep", "120"], user=1) if as_root else None
        gone = subprocess.Popen(["true"])
        gone.wait()
        live = project.folder / f".D1.yaml.{writer.pid if writer else 1}.k3j2.tmp"
        dead = project.folder / f".D1.yaml.{gone.pid}.x9q1.tmp"
        for temporary in (live, dead):
            temporary.write_text("half a file\n")
            temporary.chmod(0o666)
        try:
            if as_root:
                os.seteuid(65534)
            with pytest.raises(PermissionError):
                os.kill(writer.pid if writer else 1, 0)
            load_maps(project.decisions)
        finally:
            if as_root:
                os.seteuid(0)
                writer.kill()
                writer.wait()
        assert live.exists(), "another user's running writer lost its temporary"
        assert not dead.exists(), "a dead writer's temporary was left behind"
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_live_writers_temporary_is_kept_and_the_writer_left_alone(tmp_path) -> None:
    """Two commands of one user at once: the second finds the first's temporary mid-write. Asking
    whether that writer runs must not disturb it (signal 0 only), and its temporary stays."""
    from generator.map.load import load_maps

    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}}, {"D1": entry_yaml("D1", [("src/config.ts", 2)])})
    # a writer that those signals end, even when this run inherited them ignored (under nohup)
    writer = subprocess.Popen(["sleep", "120"], preexec_fn=lambda: [
        signal.signal(s, signal.SIG_DFL) for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)])
    try:
        live = project.folder / f".D1.yaml.{writer.pid}.k3j2.tmp"
        live.write_text("half a file\n")
        load_maps(project.decisions)
        assert live.exists(), "a running writer lost its temporary"
        with pytest.raises(subprocess.TimeoutExpired):  # still running: nothing was sent that ends it
            writer.wait(timeout=0.5)
    finally:
        writer.kill()
        writer.wait()


# --- the map's checked_at line -------------------------------------------------------------------------

MAP = 'title: T\nrepo: https://example.org/r\nversion: "2"   # the pin\nsource:\n  git: {url: x, ref: y}\n'


@pytest.mark.parametrize(("before", "after"), [
    (MAP, MAP.replace('# the pin\n', '# the pin\nchecked_at: "2"\n')),
    (MAP.replace("\n", "\r\n"), MAP.replace('# the pin\n', '# the pin\nchecked_at: "2"\n').replace("\n", "\r\n")),
    (MAP + "checked_at: 1.4.0  # by bump\n", MAP + 'checked_at: "2"  # by bump\n'),
    (MAP + "checked_at: '1.4.0'\n", MAP + 'checked_at: "2"\n'),
    (MAP + 'checked_at: "1.4.0"\n', MAP + 'checked_at: "2"\n'),
    (MAP.replace('version: "2"   # the pin\n', ""), MAP.replace('version: "2"   # the pin\n', "") + 'checked_at: "2"\n'),
    (MAP.replace('version: "2"   # the pin\n', "").rstrip("\n"),
     MAP.replace('version: "2"   # the pin\n', "") + 'checked_at: "2"\n'),
    ("  checked_at: nested\n" + MAP, "  checked_at: nested\n" + MAP.replace('# the pin\n', '# the pin\nchecked_at: "2"\n')),
], ids=["added-after-version", "crlf", "replaced-keeping-comment", "single-quoted", "double-quoted",
        "no-version-line", "no-final-newline", "nested-key-untouched"])
def test_checked_at_is_set_in_place_or_added_after_the_version(before: str, after: str) -> None:
    assert set_top_level(before, "checked_at", "2", after="version") == after


def test_bump_writes_checked_at_under_the_new_pin(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                           {"D1": entry_yaml("D1", [("src/config.ts", 2)])})
    before = project.map_yaml.read_text()
    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 0
    assert project.map_yaml.read_text() == before.replace('version: "1"\n', 'version: "2"\nchecked_at: "2"\n')


# --- records: read back as they were written -----------------------------------------------------------


@pytest.mark.parametrize("symbol", ["Session.start", "", "yes", "No", "TRUE", "False", "null", "on", "Off",
                                    "Ünïcode.näme", "a: b", "#x", "Counter.#count", "x, y", "[0]"])
@pytest.mark.parametrize("digest", ["9f3e2a1b7c4d", "128429153790", "000000000001"])
def test_a_record_reads_back_as_written(symbol: str, digest: str) -> None:
    record = CitationRecord(symbol, 24, digest)
    text = record_text(record)
    assert yaml.safe_load(f"record: {text}")["record"] == {"symbol": symbol or "(top level)", "length": 24,
                                                           "digest": digest}
    assert "\\u" not in text, "non-ASCII is written as it is"
    if symbol == "Session.start":
        assert text == "{symbol: Session.start, length: 24, digest: 9f3e2a1b7c4d}" or digest != "9f3e2a1b7c4d"


# --- the JSON Schemas editors use ------------------------------------------------------------------------


def test_links_may_go_to_http_and_https_in_any_case_and_nowhere_else() -> None:
    for url in ("https://example.org", "http://example.org/a", "HTTPS://EXAMPLE.ORG", "Http://x"):
        assert schema.is_safe_link(url), url
    for url in ("javascript:alert(1)", "data:text/html,x", "ftp://x", " https://x", "xhttps://x", "https:/x",
                "//example.org", ""):
        assert not schema.is_safe_link(url), url


@pytest.mark.parametrize("answer, code", [
    ("Read as UTF-8 in a UTF-8 file: the tool writes it back.", 0),  # a colon in a sentence
    ("Open file:///etc/passwd to see.", 2),  # an address
    ("Or javascript:alert(1) here.", 2),
])
def test_a_scheme_word_is_refused_only_when_an_address_follows_its_colon(tmp_path, capsys, answer, code) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": A_TS}}, {"D1": HEAD.replace("answer: A.", f"answer: '{answer}'")
                                                                + "cites:\n  - file: src/a.ts\n    lines: 1-3\n"})
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == code, run.stderr
    assert ("address outside backticks" in run.stderr) == (code == 2)


# --- fix: code that moved to another file --------------------------------------------------------------

A_TS = "export function f(): number {\n\treturn 1;\n}\n\nexport function g(): number {\n\treturn 2;\n}\n"
A_TS_2 = "export function g(): number {\n\treturn 2;\n}\n"
B_TS_2 = "// f lives here now\n\nexport function f(): number {\n\treturn 1;\n}\n"


@pytest.mark.parametrize("style", ["block", "flow"])
def test_fix_follows_code_into_another_file(tmp_path, capsys, style: str) -> None:
    cites = ("cites:\n  - file: src/a.ts   # f\n    lines: 1-3\n" if style == "block"
             else "cites: [{file: src/a.ts, lines: 1-3}]\n")
    project = make_project(tmp_path, {"1": {"src/a.ts": A_TS}, "2": {"src/a.ts": A_TS_2, "src/b.ts": B_TS_2}},
                           {"D1": HEAD + cites})
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 0, (run.stdout, run.stderr)
    text = project.entry("D1").read_text()
    [cite] = yaml.safe_load(text)["cites"]
    assert (cite["file"], cite["lines"], cite["version"]) == ("src/b.ts", "3-5", "2")
    assert ("  - file: src/b.ts   # f\n    lines: 3-5\n" if style == "block"
            else "cites: [{file: src/b.ts, lines: 3-5, ") in text
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--quiet").code == 0


def test_record_replaces_a_comment_that_only_names_the_symbol(tmp_path, capsys) -> None:
    cites = ("cites:\n  - file: src/config.ts\n    lines: 2\n    # CONFIG.retries\n"
             "  - file: src/config.ts\n    lines: 3\n    # why: the timeout\n  - {file: src/config.ts, lines: 1-4}\n")
    project = make_project(tmp_path, {"1": {"src/config.ts": CONFIG}}, {"D1": HEAD + cites})
    run = run_main(capsys, "record", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    text = project.entry("D1").read_text()
    records = [c["record"] for c in yaml.safe_load(text)["cites"]]
    assert [(r["symbol"], r["length"]) for r in records] == [("CONFIG.retries", 1), ("CONFIG.timeout", 1), ("CONFIG", 4)]
    assert "# CONFIG.retries" not in text, "the comment said what the record now says"
    assert "    lines: 3\n    record: {symbol: CONFIG.timeout, length: 1, digest: " in text
    assert "}\n    # why: the timeout\n" in text, "any other comment stays where it was"
    assert text.startswith(HEAD + "cites:\n  - file: src/config.ts\n    lines: 2\n    record: {symbol: CONFIG.retries, ")


RUN = "export function run(a: number): number {\n  return a + 1;\n}\n"
RUN_IN_NAMESPACE = "export namespace Tools {\n  export function run(a: number): number {\n    return a + 1;\n  }\n}\n"


def test_accept_drops_a_comment_naming_the_symbol_the_record_said_before(tmp_path, capsys) -> None:
    """The pin moved by hand to a release where `run` sits in a namespace: `accept` records
    `Tools.run` and adds the version; the comment that named the old symbol (`run`) goes with it."""
    project = make_project(tmp_path, {"1": {"src/a.ts": RUN}, "2": {"src/a.ts": RUN_IN_NAMESPACE}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    recorded = project.entry("D1").read_text()
    assert "    record: {symbol: run, " in recorded
    project.entry("D1").write_text(recorded.replace("    lines: 1-3\n", "    lines: 1-3\n    # run\n"))
    project.map_yaml.write_text(project.map_yaml.read_text().replace('version: "1"', 'version: "2"'))
    assert run_main(capsys, "accept", "D1", "--decisions", project.decisions, "--quiet").code == 0
    text = project.entry("D1").read_text()
    assert "# run" not in text, text
    assert text.endswith('    lines: 2-4\n    version: "2"\n    record: {symbol: Tools.run, length: 3, digest: '
                         + yaml.safe_load(text)["cites"][0]["record"]["digest"] + "}\n")


# --- records through record, bump and accept ------------------------------------------------------------

LIB = "export function steady(a: number): number {\n  return a + 1;\n}\n\nexport function drifting(x: number): number {\n  const doubled = x * 2;\n  return doubled;\n}\n"
LIB_2 = "// header\n" + LIB.replace("x * 2", "x * 3")


def test_records_survive_a_bump_and_are_replaced_by_accept(tmp_path, capsys) -> None:
    cites = ("cites:\n  - file: src/lib.ts\n    lines: 1-3\n  - file: src/lib.ts\n    lines: 5-8\n"
             "    # drifting, the one that changes\n  - file: src/lib.ts\n    lines: 2\n    version: \"1\"\n")
    project = make_project(tmp_path, {"1": {"src/lib.ts": LIB}, "2": {"src/lib.ts": LIB_2}}, {"D1": HEAD + cites})
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    recorded = yaml.safe_load(project.entry("D1").read_text())["cites"]
    assert [c.get("version") for c in recorded] == [None, None, "1"], "record keeps an explicit version"
    assert [c["record"]["symbol"] for c in recorded] == ["steady", "drifting", "steady"]
    assert "    # drifting, the one that changes\n" in project.entry("D1").read_text()

    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 1
    bumped_text = project.entry("D1").read_text()
    bumped = yaml.safe_load(bumped_text)["cites"]
    assert bumped[1]["record"] == recorded[1]["record"] and bumped[1]["version"] == "1", "changed: kept for a person"
    assert "    # drifting, the one that changes\n" in bumped_text
    assert bumped_text.count("record:") == 3

    assert run_main(capsys, "accept", "D1", "--decisions", project.decisions, "--quiet").code == 0
    accepted_text = project.entry("D1").read_text()
    accepted = yaml.safe_load(accepted_text)["cites"]
    assert accepted[1]["version"] == "2" and accepted[1]["lines"] == "6-9"
    assert accepted[1]["record"]["digest"] != recorded[1]["record"]["digest"], "re-read: recorded anew"
    assert accepted_text.count("record:") == 3, "the record was replaced in place, not added"
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0


def test_a_crlf_file_without_a_final_newline_keeps_crlf(tmp_path, capsys) -> None:
    text, [cite] = fixed(tmp_path, capsys, "cites:\n  - file: src/config.ts\n    lines: 2\n    note: n", newline="\r\n")
    assert cite["version"] == "2"
    assert text.count("\n") == text.count("\r\n"), repr(text)


def test_a_write_of_several_files_works_when_the_temporary_folder_is_another_filesystem(
        tmp_path, capsys, monkeypatch) -> None:
    """Every temporary is made beside the file it replaces (a rename cannot cross filesystems);
    here the system's temporary folder is /dev/shm, a tmpfs on Linux."""
    elsewhere = Path(tempfile.mkdtemp(dir="/dev/shm")) if Path("/dev/shm").is_dir() else tmp_path / "tmp"
    elsewhere.mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    try:
        project = make_project(tmp_path, {"1": {"src/lib.ts": LIB}, "2": {"src/lib.ts": LIB_2}},
                               {"D1": entry_yaml("D1", [("src/lib.ts", "1-3")]),
                                "D2": entry_yaml("D2", [("src/lib.ts", "5-8")])})
        run = run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet")
        assert run.code == 1, run.stderr  # D2 changed: left for a person; the rest written
        assert 'version: "2"' in project.map_yaml.read_text() and "lines: 2-4" in project.entry("D1").read_text()
        assert list(elsewhere.iterdir()) == []
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)


def test_bump_keeps_a_comment_under_a_drifted_citation(tmp_path, capsys) -> None:
    cites = "cites:\n  - file: src/lib.ts\n    lines: 5-8\n    # drifting: what doubles\n"
    project = make_project(tmp_path, {"1": {"src/lib.ts": LIB}, "2": {"src/lib.ts": LIB_2}}, {"D1": HEAD + cites})
    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 1
    assert project.entry("D1").read_text() == HEAD + cites.replace(
        "lines: 5-8\n", 'lines: 5-8\n    version: "1"\n')


# --- writes that fail or are cut short ------------------------------------------------------------------


def two_moved_entries(tmp_path):
    return make_project(tmp_path, {"1": {"src/config.ts": CONFIG}, "2": {"src/config.ts": CONFIG_2}},
                        {"D1": entry_yaml("D1", [("src/config.ts", 2)]), "D2": entry_yaml("D2", [("src/config.ts", 3)])})


def test_a_refused_first_rename_says_nothing_was_written_and_leaves_no_file(tmp_path, capsys, monkeypatch) -> None:
    project = two_moved_entries(tmp_path)
    before = {p.name: p.read_bytes() for p in project.folder.iterdir()}
    real_replace = os.replace

    def refuse(source, target):
        if str(source).endswith(".tmp") and str(target).endswith(".yaml"):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", refuse)
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 2
    assert run.errors == [f"error: cannot replace {project.entry('D1')}: Device or resource busy; already written: "
                          "none; the others were left as they were"]
    assert {p.name: p.read_bytes() for p in project.folder.iterdir()} == before, "a file changed or was left"


def test_a_refused_third_rename_names_the_two_written(tmp_path, capsys, monkeypatch) -> None:
    project = two_moved_entries(tmp_path)
    real_replace = os.replace
    renames = []

    def refuse(source, target):
        if str(source).endswith(".tmp") and str(target).endswith(".yaml"):
            renames.append(target)
            if len(renames) == 3:
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", refuse)
    run = run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet")
    assert run.code == 2
    written = ", ".join(str(p) for p in renames[:2])
    assert run.errors == [f"error: cannot replace {renames[2]}: Device or resource busy; already written: {written}; "
                          "the others were left as they were"]
    assert not list(project.folder.rglob(".*")), "a temporary or the journal was left"


def test_text_is_written_as_utf_8_whatever_the_locale(tmp_path) -> None:
    """A machine whose locale is plain C (no UTF-8): non-ASCII answers and folder names still
    round-trip through `fix` (several files at once: with a journal)."""
    root = tmp_path / "décisions-ü"
    root.mkdir()
    project = two_moved_entries(root)
    for entry_id in ("D1", "D2"):
        path = project.entry(entry_id)
        path.write_text(path.read_text().replace("Plain code.", "Ça décide — «vite»."), encoding="utf-8")
    before = {entry_id: project.entry(entry_id).read_bytes() for entry_id in ("D1", "D2")}
    run = run_cli("fix", "--decisions", project.decisions, "--target", "2", "--quiet",
                  env={"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
                       "PYTHONIOENCODING": "utf-8"})
    assert run.code == 0, run.stderr
    for entry_id in ("D1", "D2"):
        after = project.entry(entry_id).read_bytes()
        assert "Ça décide — «vite».".encode() in after and after != before[entry_id]


def test_text_is_written_as_utf_8_under_a_c_locale_set_at_run_time(tmp_path, capsys) -> None:
    """The same in this process (where mutation testing sees it): LC_CTYPE set to C while `fix` runs."""
    project = two_moved_entries(tmp_path)
    path = project.entry("D1")
    path.write_text(path.read_text().replace("Plain code.", "Ça décide."), encoding="utf-8")
    previous = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)
    assert run.code == 0, run.stderr
    assert "Ça décide.".encode() in path.read_bytes() and "lines: 3" in path.read_text(encoding="utf-8")


def test_two_files_cut_short_between_their_renames_are_finished_by_the_next_run(tmp_path, capsys, monkeypatch) -> None:
    project = two_moved_entries(tmp_path)
    real_replace = os.replace
    renames = []

    def killed(source, target):
        if str(source).endswith(".tmp") and str(target).endswith(".yaml"):
            renames.append(target)
            if len(renames) == 2:
                raise KeyboardInterrupt  # a kill between the two renames
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", killed)
    assert run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet").code == 130
    monkeypatch.setattr(os, "replace", real_replace)
    assert "    lines: 3\n" in project.entry("D2").read_text()  # not yet renamed
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert f"note: finished an interrupted write: {project.entry('D2')}" in run.stderr
    assert run.code == 0, run.stderr
    assert sorted(p.name for p in project.folder.iterdir()) == ["D1.yaml", "D2.yaml", "map.yaml"]


def test_a_damaged_journal_does_not_stop_another_maps_from_being_finished(tmp_path, capsys) -> None:
    project = two_moved_entries(tmp_path)
    other = project.decisions / "other"
    shutil.copytree(project.folder, other)
    (project.folder / ".decision-map-journal.json").write_text("not json")
    finished = entry_yaml("D1", [("src/config.ts", 2)]).replace("Plain code.", "Finished by the next run.")
    temporary = other / f".D1.yaml.{os.getpid()}.abcd.tmp"
    temporary.write_text(finished)
    (other / ".decision-map-journal.json").write_text(json.dumps([[str(temporary), str(other / "D1.yaml")]]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert f"note: finished an interrupted write: {other / 'D1.yaml'}" in run.stderr, run.stderr
    assert (other / "D1.yaml").read_text() == finished


def test_leftovers_in_the_folder_given_as_decisions_are_cleared(tmp_path, capsys) -> None:
    project = two_moved_entries(tmp_path)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = project.folder / f".D1.yaml.{gone.pid}.x9q1.tmp"
    dead.write_text("half a file\n")
    assert run_main(capsys, "verify", "--decisions", project.folder, "--quiet").code == 0
    assert not dead.exists()


def test_a_new_file_is_readable_by_all_and_executable_by_none(tmp_path, capsys) -> None:
    project = two_moved_entries(tmp_path)
    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 0
    [edition] = (project.folder / "editions").glob("*.yaml")
    assert edition.stat().st_mode & 0o777 == 0o644
