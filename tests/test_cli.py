"""The command line as DESIGN.md fixes it: flags, exit codes 0/1/2, the JSON shape, the text table
and the GitHub annotations. Each command runs at least once as a subprocess, the way CI and
pre-commit hooks run it (its exit code, its streams, no traceback); the other checks of its output
run it in the test's process (`run_main`: the same code path, without a Python start each)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, assert_clean_failure, entry_yaml, make_project, python_env, run_cli, run_main

TOOLS = """export class Tools {
\tbefore(call: Call): Verdict | undefined {
\t\tif (this.blocked.has(call.name)) {
\t\t\treturn { block: true };
\t\t}
\t\treturn undefined;
\t}

\tafter(call: Call): void {
\t\tthis.log.push(call.name);
\t}
}
"""
TOOLS_2 = "// Tool hooks.\n\n" + TOOLS.replace("this.log.push", "this.history.push")


@pytest.fixture
def project(tmp_path: Path):
    return make_project(tmp_path, {"1.0.0": {"src/tools.ts": TOOLS}, "1.1.0": {"src/tools.ts": TOOLS_2}}, {
        "D1": entry_yaml("D1", [("src/tools.ts", "2-7")]),
        "D2": entry_yaml("D2", [("src/tools.ts", "9-11"), ("src/tools.ts", "3-5")]),
    })


def test_verify_at_the_pin_exits_0(project) -> None:
    run = run_cli("verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["ID", "FILE", "RECORDED", "→", "RESOLVED", "STATUS", "SYMBOL"]
    assert lines[1].split() == ["D1", "tools.ts", "2-7", "→", "2-7", "ok", "Tools.before"]
    assert lines[-1] == "3 citations at 1.0.0: 3 ok: all ok"


def test_verify_json_shape(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "1.1.0", "--format", "json")
    assert run.code == 1, run.stderr
    report = run.json()
    assert set(report) == {"target", "citations"}
    assert report["target"] == "1.1.0"
    for row in report["citations"]:
        assert set(row) == {"map", "id", "file", "recorded", "resolved", "status", "symbol", "resolved_file", "detail"}
        assert row["resolved_file"] == row["file"] and row["detail"] == ""  # nothing left its file
    assert [{k: v for k, v in row.items() if k not in ("resolved_file", "detail")}
            for row in report["citations"]] == [
        {"map": "demo", "id": "D1", "file": "src/tools.ts", "recorded": [2, 7], "resolved": [4, 9],
         "status": "moved", "symbol": "Tools.before"},
        {"map": "demo", "id": "D2", "file": "src/tools.ts", "recorded": [9, 11], "resolved": [11, 13],
         "status": "changed", "symbol": "Tools.after"},
        {"map": "demo", "id": "D2", "file": "src/tools.ts", "recorded": [3, 5], "resolved": [5, 7],
         "status": "moved", "symbol": "Tools.before"},
    ]


def test_verify_text_table_after_drift(project) -> None:
    run = run_cli("verify", "--decisions", project.decisions, "--target", "1.1.0", "--quiet")
    assert run.code == 1
    rows = [line.split() for line in run.stdout.splitlines()[1:4]]
    assert rows == [["D1", "tools.ts", "2-7", "→", "4-9", "moved", "Tools.before"],
                    ["D2", "tools.ts", "9-11", "→", "11-13", "changed", "Tools.after"],
                    ["D2", "tools.ts", "3-5", "→", "5-7", "moved", "Tools.before"]]
    assert run.stdout.splitlines()[-1] == "3 citations at 1.1.0: 2 moved, 1 changed: drift found"


def test_verify_github_annotations(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "1.1.0", "--format", "github")
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert len(lines) == 4
    d2 = project.entry("D2")
    assert lines[1] == (f"::error file={d2},line=6,title=citation changed::D2 src/tools.ts:9-11 is changed now "
                        "11-13 at 1.1.0 (Tools.after); re-read the code and update the entry")
    assert lines[0].startswith(f"::error file={project.entry('D1')},line=6,title=citation moved::")
    assert lines[-1] == "0 of 3 citations ok"


def test_verify_only_some_files(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "1.1.0", "--format", "json",
                  project.entry("D1"))
    assert run.code == 1
    assert [row["id"] for row in run.json()["citations"]] == ["D1"]
    missing = run_main(capsys, "verify", "--decisions", project.decisions, project.folder / "D9.yaml")
    assert_clean_failure(missing, "D9.yaml: no such file")


def test_one_map_folder_works_as_decisions(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.folder, "--quiet")
    assert run.code == 0, run.stderr


def test_default_decisions_folder_is_relative_to_the_working_directory(project) -> None:
    run = run_cli("verify", "--quiet", cwd=project.root)
    assert run.code == 0, run.stderr


@pytest.mark.parametrize("args", [
    ["verify", "--format", "xml"],
    ["verify", "--no-such-flag"],
    ["frobnicate"],
    [],
])
def test_bad_usage_exits_2(project, args, capsys) -> None:
    run = run_main(capsys, *args, "--decisions", project.decisions) if args else run_main(capsys)
    assert run.code == 2
    assert "Traceback" not in run.stderr


def test_help_exits_0(capsys) -> None:
    run = run_main(capsys, "--help")
    assert run.code == 0
    assert "python -m generator verify --target 1.7.0" in run.stdout and "generator new FILE:LINE" in run.stdout


def test_unknown_target_exits_2(project) -> None:
    assert_clean_failure(run_cli("verify", "--decisions", project.decisions, "--target", "2.0.0", "--quiet"),
                         "has no ref v2.0.0")


def test_fetch_progress_goes_to_stderr(project) -> None:
    run = run_cli("verify", "--decisions", project.decisions, "--format", "json")
    assert run.code == 0
    assert run.json()["target"] == "1.0.0"  # stdout holds the JSON alone
    assert f"fetching git: {project.url} at v1.0.0" in run.stderr


def test_fix_prints_what_it_changed(project, capsys) -> None:
    run = run_cli("fix", "--decisions", project.decisions, "--target", "1.1.0", "--quiet")
    assert run.code == 1
    assert run.stdout.splitlines() == [
        "D1: src/tools.ts: 2-7 → 4-9",
        "D2: src/tools.ts: 3-5 → 5-7",
        "D2: src/tools.ts:9-11 is changed; left for a person",
        "fixed 2 moved citation(s) in 2 file(s); 1 need a person",
    ]
    after = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "1.1.0", "--format", "json")
    assert [r["status"] for r in after.json()["citations"]] == ["ok", "changed", "ok"]


# --- source, render's folder, a closed pipe ----------------------------------------------------


def test_source_prints_the_folder_holding_the_cited_files(project, capsys) -> None:
    run = run_cli("source", "--decisions", project.decisions)
    assert run.code == 0, run.stderr
    [line] = run.stdout.splitlines()
    folder = Path(line)
    assert folder.is_dir() and (folder / "src" / "tools.ts").read_text() == TOOLS
    other = run_main(capsys, "source", "--decisions", project.decisions, "--version", "1.1.0")
    assert other.code == 0, other.stderr
    assert (Path(other.stdout.strip()) / "src" / "tools.ts").read_text() == TOOLS_2
    assert Path(other.stdout.strip()) != folder
    assert_clean_failure(run_main(capsys, "source", "--decisions", project.decisions, "--map", "nope"),
                         "no map named 'nope'")
    assert_clean_failure(run_main(capsys, "source", "--decisions", project.decisions, "--version", "9.9.9"),
                         "has no ref v9.9.9")


def test_render_writes_its_pages_inside_out(project, tmp_path) -> None:
    run = run_cli("render", "--decisions", project.decisions, "--out", tmp_path / "out", "--quiet")
    assert run.code == 0, run.stderr
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.md"))
    assert "demo/map.md" in written and run.stdout.strip() == f"wrote {len(written)} files to {tmp_path / 'out'}"
    assert run.stderr == ""  # --quiet: no fetching progress


def test_render_says_what_it_fetches_unless_quiet(project, tmp_path, capsys) -> None:
    run = run_main(capsys, "render", "--decisions", project.decisions, "--out", tmp_path / "out")
    assert run.code == 0, run.stderr
    assert f"fetching git: {project.url} at v1.0.0" in run.stderr


def test_render_refuses_to_write_outside_out_and_writes_nothing(project, tmp_path, capsys) -> None:
    """Page paths come from map folder and extension names, and the loader's patterns keep `/`
    out of both; what can still lead outside is a symbolic link already in the out folder, and a
    map folder reached through `..` (its name is then `..`). Both are refused before any write."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "demo").symlink_to(outside, target_is_directory=True)
    run = run_cli("render", "--decisions", project.decisions, "--out", out, "--quiet")
    line = assert_clean_failure(run, "would be written outside", str(out.resolve()))
    assert line.startswith("error: demo/"), line
    assert list(outside.iterdir()) == [] and sorted(p.name for p in out.iterdir()) == ["demo"]

    (project.folder / "sub").mkdir()
    dotted = run_main(capsys, "render", "--decisions", project.folder / "sub" / "..", "--out", tmp_path / "out2",
                      "--quiet")
    assert dotted.code == 2 and "Traceback" not in dotted.stderr, dotted.stderr
    assert [ln for ln in dotted.errors if ln.startswith("error: ")] == [
        f"error: ../D1.md: would be written outside {(tmp_path / 'out2').resolve()}"]
    assert not (tmp_path / "out2").exists() or list((tmp_path / "out2").rglob("*")) == []
    assert not list(tmp_path.glob("*.md")), "a page was written next to the out folder"


@pytest.mark.parametrize("form", ["text", "json", "github"])
def test_a_reader_that_goes_away_is_no_error(project, form) -> None:
    """`verify | head -1`: the reader closes the pipe; verify exits 0 and prints no traceback."""
    many = "".join(f"  - file: src/tools.ts\n    lines: {a}-{a + 1}\n" for a in range(1, 11))
    for n in range(3, 60):  # enough rows to overflow a pipe's buffer
        project.write_entry(f"D{n}", entry_yaml(f"D{n}", many))
    assert run_cli("verify", "--decisions", project.decisions, "--quiet").code == 0  # fetches once
    for reader in ("head -1", "true"):
        done = subprocess.run(
            f'"{sys.executable}" -m generator verify --decisions "{project.decisions}" --quiet --format {form} '
            f'2>"{project.root / "stderr"}" | {reader} >/dev/null; exit ${{PIPESTATUS[0]}}',
            shell=True, executable="/bin/bash", cwd=ROOT, env=python_env(), timeout=300)
        stderr = (project.root / "stderr").read_text()
        assert done.returncode == 0, (reader, done.returncode, stderr)
        assert "Traceback" not in stderr and "Exception ignored" not in stderr and "BrokenPipe" not in stderr, stderr


# A locale whose encoding is ASCII, as in a bare container where Python's UTF-8 defaults are off:
# files are still read and written as UTF-8, and what cannot be shown is escaped, not a traceback.
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}


def shown(run, text: str) -> str:
    """What a terminal with an ASCII locale gets: \\u escapes. (Run in the test's own process, under
    mutmut, the command prints with the test's locale.)"""
    return text if run.in_process else text.encode("ascii", "backslashreplace").decode("ascii")


def test_every_command_works_under_an_ascii_locale_and_keeps_utf_8(tmp_path) -> None:
    from conftest import DRIFT_V1, DRIFT_V2

    answer = "answer: Plain code → café, naïve.\n"
    p = make_project(tmp_path, {"1": {"src/lib.ts": DRIFT_V1}, "2": {"src/lib.ts": DRIFT_V2}}, {
        "A1": entry_yaml("A1", [("src/lib.ts", "1-3")]).replace("answer: Plain code.\n", answer),
        "A2": entry_yaml("A2", [("src/lib.ts", "5-8")]).replace("answer: Plain code.\n", answer),
    })
    p.map_yaml.write_text(p.map_yaml.read_text().replace("title: Demo map", "title: Démo map"), encoding="utf-8")
    premise = subprocess.run([sys.executable, "-c", "import locale; print(locale.getpreferredencoding(False))"],
                             env=python_env(**ASCII_LOCALE), capture_output=True, text=True)
    assert premise.stdout.strip() == "ANSI_X3.4-1968"  # ASCII

    bumped = run_cli("bump", "2", "--decisions", p.decisions, "--quiet", env=ASCII_LOCALE)
    assert bumped.code == 1 and "Traceback" not in bumped.stderr, bumped.stderr
    assert bumped.in_process or "1-3 \\u2192 4-6" in bumped.stdout
    assert shown(bumped, "A1: src/lib.ts: 1-3 → 4-6 (moved, updated)") in bumped.stdout
    assert shown(bumped, "── A2 changed: Who decides A2?") in bumped.stdout
    assert shown(bumped, "claim: Plain code → café, naïve.") in bumped.stdout
    for entry_id in ("A1", "A2"):
        assert answer in p.entry(entry_id).read_text(encoding="utf-8")
    assert 'title: Démo map\nrepo: https://example.org/demo\nversion: "2"\n' in p.map_yaml.read_text(encoding="utf-8")

    accepted = run_cli("accept", "A2", "--decisions", p.decisions, "--quiet", env=ASCII_LOCALE)
    assert accepted.code == 0, accepted.stderr
    assert answer in p.entry("A2").read_text(encoding="utf-8")
    assert "settled:" in (p.folder / "editions" / "1-to-2.yaml").read_text(encoding="utf-8")

    checked = run_cli("verify", "--decisions", p.decisions, "--quiet", "--format", "json", env=ASCII_LOCALE)
    assert checked.code == 0, checked.stderr
    assert [row["status"] for row in json.loads(checked.stdout)["citations"]] == ["ok", "ok"]

    out = tmp_path / "out"
    rendered = run_cli("render", "--decisions", p.decisions, "--out", out, "--quiet", env=ASCII_LOCALE)
    assert rendered.code == 0, rendered.stderr
    assert "café, naïve" in (out / "demo" / "A1.md").read_text(encoding="utf-8")
    assert "Démo map" in (out / "demo" / "map.md").read_text(encoding="utf-8")


# --- an extension pinned on npm: its citations verified with the map's ---------------------------

NPM_INDEX = 'export default function (pi) {\n  pi.on("tool_call", () => ({ block: true }));\n}\n'


def npm_extension_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The site tests' demo map (pi's code in a local git repository, releases 0.8.0 and 1.0.0) with
    an extension pinned on npm, demo-npm 1.2.0, from a fake npm in a folder."""
    from site_fixtures.demo_site import make_demo_site
    from test_fetch import FakeNpm, integrity

    site = make_demo_site(tmp_path / "site")
    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    npm.publish("demo-npm@1.2.0", {"package.json": json.dumps({"name": "demo-npm", "version": "1.2.0"}),
                                   "index.js": NPM_INDEX})
    hashed = npm.registry["packages"]["demo-npm@1.2.0"]["integrity"]
    assert hashed == integrity(Path(npm.registry["packages"]["demo-npm@1.2.0"]["tarball"]))
    overlay = site.map_folder / "extensions" / "demo-npm.yaml"
    overlay.write_text(f"""extension: demo-npm
package: "demo-npm"
version: "1.2.0"
integrity: {hashed}
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
""")
    return site, overlay


def test_verify_checks_an_npm_extensions_citations_with_the_maps_at_its_own_pin(tmp_path, monkeypatch, capsys) -> None:
    site, overlay = npm_extension_site(tmp_path, monkeypatch)
    run = run_main(capsys, "verify", "--decisions", site.decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    files = [c["file"] for c in run.json()["citations"]]
    assert "index.js" in files and "src/session.ts" in files, "the map's citations and the extension's, all of them"
    every = len(files)
    # --target moves the map, not the extension (its own release, 1.2.0, is still the one read)
    run = run_main(capsys, "verify", "--decisions", site.decisions, "--format", "json", "--quiet", "--target", "0.8.0")
    assert run.json()["target"] == "0.8.0" and len(run.json()["citations"]) == every, run.stderr
    assert [c["status"] for c in run.json()["citations"] if c["file"] == "index.js"] == ["ok"]
    # the files given: an entry's alone, or the overlay's alone
    run = run_main(capsys, "verify", "--decisions", site.decisions, "--format", "json", "--quiet",
                   site.map_folder / "D2.yaml")
    assert {c["id"] for c in run.json()["citations"]} == {"D2"}
    run = run_main(capsys, "verify", "--decisions", site.decisions, "--format", "json", "--quiet", overlay)
    assert {c["file"] for c in run.json()["citations"]} == {"index.js"}


def test_schema_writes_the_editors_schemas_into_schema_or_the_folder_given(tmp_path, monkeypatch, capsys) -> None:
    names = ["entry.schema.json", "levers.schema.json", "map.schema.json", "overlay.schema.json"]
    monkeypatch.chdir(tmp_path)
    run = run_main(capsys, "schema")
    assert run.code == 0 and sorted(p.name for p in (tmp_path / "schema").iterdir()) == names
    assert run.stdout.splitlines()[0] == "wrote schema/entry.schema.json"
    out = tmp_path / "editor" / "schemas"
    run = run_main(capsys, "schema", "--out", out)
    assert run.code == 0 and run.stdout.splitlines()[0] == f"wrote {out}/entry.schema.json"
    assert all((out / name).read_text() == (ROOT / "schema" / name).read_text() for name in names)


# --- the commands that hand over to a measured module: what reaches them from the command line -----


def test_leads_prints_text_by_default_and_takes_its_limit_as_a_number(project, capsys) -> None:
    run = run_main(capsys, "leads", "--decisions", project.decisions, "--quiet", "--limit", "1")
    assert run.code == 0, run.stderr
    assert "the best 1 of each entry (--limit 0 for all)" in run.stdout.splitlines()[0]
    every = run_main(capsys, "leads", "D1", "--decisions", project.decisions, "--quiet", "--format", "json")
    assert every.code == 0, every.stderr
    assert every.json()["target"] == "1.0.0" and {lead["id"] for lead in every.json()["leads"]} <= {"D1"}
    assert_clean_failure(run_main(capsys, "leads", "--decisions", project.decisions, "--limit", "-1"),
                         "--limit -1: give a number of leads per entry, or 0 for all of them")


def test_probe_refuses_an_id_no_entry_has_before_running_anything(project, capsys) -> None:
    run = run_main(capsys, "probe", "Q7", "--decisions", project.decisions, "--quiet")
    assert_clean_failure(run, "Q7 is no entry's ID")
    assert run.stdout == ""


def test_build_reads_mkdocs_yml_of_the_working_directory_by_default(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_main(capsys, "build", "--quiet")
    assert run.code == 2 and run.stderr == "error: mkdocs.yml: no such file; pass the site's mkdocs.yml\n"
    assert list(tmp_path.iterdir()) == []  # no site folder made


def test_render_takes_the_hand_written_pages_from_site_src_by_default(project, tmp_path, monkeypatch, capsys) -> None:
    """A hand-written page where a generated one goes is refused, here read from site_src/ of the
    working directory as no --pages was given, and nothing is written."""
    monkeypatch.chdir(project.root)
    (project.root / "site_src" / "demo").mkdir(parents=True)
    (project.root / "site_src" / "demo" / "map.md").write_text("# My own map page\n")
    out = tmp_path / "out"
    run = run_main(capsys, "render", "--decisions", project.decisions, "--out", out, "--quiet")
    assert run.code == 2, run.stderr
    assert run.errors[0] == ("error: site_src/demo/map.md: is generated from decisions/ as demo/map.md; move the "
                             "hand-written page elsewhere")
    assert not out.exists()


def test_verify_reads_no_edition_record(project, capsys) -> None:
    """The edition records (written by `bump`, read by the pages) play no part in checking the
    citations: one that cannot be read does not stop `verify`."""
    (project.folder / "editions").mkdir()
    (project.folder / "editions" / "1.0.0-to-1.1.0.yaml").write_text("from: [not, an, edition\n")
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "3 citations at 1.0.0: 3 ok: all ok"
