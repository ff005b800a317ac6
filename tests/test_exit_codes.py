"""The command line's verdicts, run in this process (where mutation testing sees them): the exit
code of each command and the lines it prints for a person, for each way a run can end. The same
commands in a real subprocess are in test_cli.py."""

from __future__ import annotations

import io
import signal
import sys
from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_main
from generator.probes.run import ProbesStopped

CODE = "export function one(): number {\n  return 1;\n}\n"
CODE_2 = "// header\n" + CODE.replace("return 1", "return 11") + "export const two = 2;\n"


@pytest.fixture
def project(tmp_path: Path):
    return make_project(tmp_path, {"1": {"src/a.ts": CODE}, "2": {"src/a.ts": CODE_2}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})


def test_bad_input_is_exit_2_with_each_problem_and_a_count(capsys, tmp_path) -> None:
    run = run_main(capsys, "verify", "--decisions", tmp_path / "nowhere")
    assert run.code == 2
    assert run.stderr.splitlines() == [
        f"error: {tmp_path / 'nowhere'}: no such folder; pass --decisions DIR with one folder per map, each "
        "holding a map.yaml", "1 problem(s) found; nothing was changed"]


def test_a_usage_error_is_exit_2_with_one_line(project, capsys) -> None:
    run = run_main(capsys, "record", "--replace", "--decisions", project.decisions)
    assert run.code == 2 and run.stderr.startswith("error: --replace takes the records anew") and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize(("raised", "code", "said"), [
    (KeyboardInterrupt(), 130, "interrupted; nothing was changed"),
    (ProbesStopped(signal.SIGTERM), 143, "stopped by SIGTERM; nothing was changed"),
    (ProbesStopped(signal.SIGHUP), 129, "stopped by SIGHUP; nothing was changed"),
    (ModuleNotFoundError("no tree_sitter", name="tree_sitter"), 2,
     f"error: tree_sitter is not installed for {sys.executable}; run `make setup`, then use .venv/bin/python "
     "(or `. .venv/bin/activate`)"),
], ids=["interrupted", "sigterm", "sighup", "module-missing"])
def test_a_run_that_stops_half_way(project, capsys, monkeypatch, raised, code: int, said: str) -> None:
    import generator.citations.verify

    def stop(*args, **kwargs):
        raise raised

    monkeypatch.setattr(generator.citations.verify, "verify_map", stop)
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert (run.code, run.stderr.splitlines(), run.stdout) == (code, [said], "")


def test_a_reader_that_goes_away_is_exit_0_and_silent(project, capsys, monkeypatch) -> None:
    import generator.citations.report

    def gone(*args, **kwargs):
        raise BrokenPipeError

    monkeypatch.setattr(generator.citations.report, "citations_table", gone)
    errors = io.StringIO()
    monkeypatch.setattr(sys, "stderr", errors)
    from generator.cli import main

    assert main(["verify", "--decisions", str(project.decisions), "--quiet"]) == 0
    assert errors.closed, "stderr is closed, so Python prints nothing more at exit"


def test_no_command_prints_help_and_is_exit_2(capsys) -> None:
    run = run_main(capsys)
    assert run.code == 2 and run.stdout.startswith("usage: python -m generator")


def test_verify_notes_unrecorded_citations_on_stderr_but_not_in_json(project, capsys) -> None:
    note = ("note: 1 citation(s) have no record of the code they cite yet, so a range edited by hand cannot be "
            "caught; run `python -m generator record` to record them")
    for form in ("text", "github"):
        run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet", "--format", form)
        assert (run.code, run.stderr.splitlines()) == (0, [note])
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet", "--format", "json")
    assert (run.code, run.stderr) == (0, "")
    assert run_main(capsys, "record", "--decisions", project.decisions, "--quiet").code == 0
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").stderr == ""


def test_verify_of_a_file_that_does_not_exist(project, capsys) -> None:
    run = run_main(capsys, "verify", "--decisions", project.decisions, project.folder / "D1.yaml",
                   project.folder / "D9.yaml")
    assert (run.code, run.stderr) == (2, f"error: {project.folder / 'D9.yaml'}: no such file\n")


def test_fix_says_what_it_changed_and_what_it_left(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE + CODE.replace("one", "other")},
                                      "2": {"src/a.ts": "// header\n" + CODE + CODE.replace("one", "other").replace(
                                          "return 1", "return 9")}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3"), ("src/a.ts", "4-6")])})
    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 1
    assert run.stdout.splitlines() == ["D1: src/a.ts: 1-3 → 2-4",
                                       "D1: src/a.ts:4-6 is changed; left for a person",
                                       "fixed 1 moved citation(s) in 1 file(s); 1 need a person"]
    moved_only = make_project(tmp_path / "b", {"1": {"src/a.ts": CODE}, "2": {"src/a.ts": "// header\n" + CODE}},
                              {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    run = run_main(capsys, "fix", "--decisions", moved_only.decisions, "--target", "2", "--quiet")
    assert (run.code, run.stdout.splitlines()[-1]) == (0, "fixed 1 moved citation(s) in 1 file(s); 0 need a person")


def test_accept_refuses_a_citation_with_no_new_range_and_exits_1(tmp_path, capsys) -> None:
    project = make_project(tmp_path, {"1": {"src/a.ts": CODE + "export const keep = 1;\n"},
                                      "2": {"src/a.ts": "export const keep = 1;\n"}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-3")]), "D2": entry_yaml("D2", [("src/a.ts", 4)])})
    assert run_main(capsys, "bump", "2", "--decisions", project.decisions, "--quiet").code == 1
    run = run_main(capsys, "accept", "D1", "D2", "--decisions", project.decisions, "--quiet")
    assert run.code == 1
    assert run.stderr.splitlines() == ["D1: src/a.ts:1-3 is missing at 2; write its new `lines` by hand, then "
                                       "accept again"]
    assert run.stdout == ""  # D2 only moved and bump already took its new range: nothing to accept


def test_source_prints_the_pinned_tree_and_refuses_an_unknown_map(project, capsys) -> None:
    run = run_main(capsys, "source", "--decisions", project.decisions)
    assert run.code == 0
    assert (Path(run.stdout.strip()) / "src" / "a.ts").read_text() == CODE
    other = run_main(capsys, "source", "--decisions", project.decisions, "--version", "2", "--map", "demo")
    assert (Path(other.stdout.strip()) / "src" / "a.ts").read_text() == CODE_2
    run = run_main(capsys, "source", "--decisions", project.decisions, "--map", "nope")
    assert (run.code, run.stderr) == (2, f"error: no map named 'nope' under {project.decisions}\n")


def test_render_writes_inside_out_and_refuses_a_link_leading_outside(project, capsys, tmp_path) -> None:
    out = tmp_path / "out"
    run = run_main(capsys, "render", "--decisions", project.decisions, "--out", out, "--quiet")
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert (run.code, run.stdout) == (0, f"wrote {len(written)} files to {out}\n") and "demo/map.md" in written
    elsewhere, linked = tmp_path / "elsewhere", tmp_path / "linked"
    elsewhere.mkdir()
    linked.mkdir()
    (linked / "demo").symlink_to(elsewhere, target_is_directory=True)
    run = run_main(capsys, "render", "--decisions", project.decisions, "--out", linked, "--quiet")
    assert run.code == 2 and run.stderr.startswith("error: demo/") and "would be written outside" in run.stderr
    assert list(elsewhere.iterdir()) == []
