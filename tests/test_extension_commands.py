"""The commands on a pi extension's package as a contributor runs them, with the registry a fake npm
in a folder (tests/test_fetch.py's FakeNpm). `source --extension`: the folder of the package's tree it
prints, for an overlay pinned in the map (by its name), for one still being written (its TODOs left,
so the map leaves it out), and for any package at a version; a broken edition record stopping none
of them (nor the map's own `source`), and what it refuses. `new`: what it says it wrote, and its
refusal of a position and --extension together, or neither. `bump --extension` quiet, and refusing
a name that is no overlay pinned on npm; `fix --target` leaving a pinned extension at its own pin.
The real registry's answers are in test_levers.py's network tests; these run without it, for
mutation testing of generator/cli.py."""

from __future__ import annotations

import locale
import re
from pathlib import Path

from conftest import Run, assert_clean_failure, entry_yaml, make_project, run_main
from test_fetch import FakeNpm
from test_new_extension import INDEX, overlay_of, overlay_with_a_new_release, project, publish

BROKEN_EDITION = "from_version: [not, a, version\n"


def tree_of(run: Run) -> Path:
    """The folder `source` printed, its only line of output."""
    assert run.code == 0, run.stderr
    [line] = run.stdout.splitlines()
    return Path(line)


def test_a_pinned_overlay_is_read_by_its_name_at_its_pin_or_another_release(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    assert run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    path = overlay_of(decisions)
    path.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", path.read_text()))
    publish(npm, "1.3.0", "// 1.3.0\n" + INDEX)
    # the map's other overlays are pinned on npm too: only the one named is fetched (the fake npm has no other)
    pinned = tree_of(run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext"))
    assert (pinned / "index.ts").read_text() == INDEX
    later = tree_of(run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext", "--version", "1.3.0"))
    assert (later / "index.ts").read_text() == "// 1.3.0\n" + INDEX and later != pinned


def test_an_overlay_still_being_written_is_read_by_its_name(tmp_path, monkeypatch, capsys) -> None:
    """Reading the code is how its TODOs get written: the package and version `new` pinned in it."""
    decisions, npm = project(tmp_path, monkeypatch)
    assert run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    assert "TODO" in overlay_of(decisions).read_text()
    publish(npm, "1.3.0", "// 1.3.0\n" + INDEX)
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext")
    assert (tree_of(run) / "index.ts").read_text() == INDEX
    assert "pi-ext.yaml still holds placeholders" in run.stderr  # said, not hidden
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext", "--version", "1.3.0")
    assert (tree_of(run) / "index.ts").read_text() == "// 1.3.0\n" + INDEX
    # its notes so far in UTF-8, read on a machine whose locale is plain C (no UTF-8)
    path = overlay_of(decisions)
    written = path.read_text().replace("TODO: what it is, in one line", "TODO: à écrire — «vite»")
    assert "«vite»" in written
    path.write_text(written, encoding="utf-8")
    previous = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        run = run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext")
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)
    assert (tree_of(run) / "index.ts").read_text() == INDEX


def test_any_package_is_read_at_a_version_and_a_broken_edition_record_stops_nothing(tmp_path, monkeypatch,
                                                                                    capsys) -> None:
    """Edition records (written by `bump`) are read only by the pages: `source` leaves them out."""
    decisions, npm = project(tmp_path, monkeypatch)
    (decisions / "pi" / "editions" / "9.9.9-to-9.9.10.yaml").write_text(BROKEN_EDITION)
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert (tree_of(run) / "index.ts").read_text() == INDEX and run.stderr.endswith("2 source files\n")
    assert npm.calls and not overlay_of(decisions).exists()  # fetched, and no overlay written for it


def test_a_name_that_is_no_overlay_or_a_version_not_published_is_refused(tmp_path, monkeypatch, capsys) -> None:
    decisions, _ = project(tmp_path, monkeypatch)
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-ext")
    assert "'pi-ext': give PACKAGE@VERSION with an exact version" in assert_clean_failure(run)
    assert run.stdout == ""
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "@demo/pi-ext@9.9.9")
    assert "@demo/pi-ext@9.9.9" in assert_clean_failure(run) and run.stdout == ""
    # an overlay still being written of an extension that is no npm package (a version, no package)
    text = (decisions / "pi" / "extensions" / "pi-turn-limit.yaml").read_text()
    text = text.replace("extension: pi-turn-limit\n", "extension: pi-local\n").replace('package: "pi-turn-limit"\n', "")
    text = re.sub(r"tagline: >-\n  [^\n]*\n", 'tagline: "TODO: what it is"\n', text)
    overlay_of(decisions, "pi-local").write_text(text)
    run = run_main(capsys, "source", "--decisions", decisions, "--extension", "pi-local")
    assert 'version: "not stated"' in text and (run.code, run.stdout) == (2, "") and run.stderr.splitlines() == [
        f"note: {overlay_of(decisions, 'pi-local')} still holds placeholders; left out until it is written",
        "error: 'pi-local': give PACKAGE@VERSION with an exact version, e.g. pi-web-access@0.28.0"]


def test_the_maps_own_source_is_not_stopped_by_a_broken_edition_record(tmp_path, capsys) -> None:
    demo = make_project(tmp_path, {"1": {"src/a.ts": "export const a = 1;\n"}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "1")])})
    (demo.folder / "editions").mkdir()
    (demo.folder / "editions" / "9-to-10.yaml").write_text(BROKEN_EDITION)
    run = run_main(capsys, "source", "--decisions", demo.decisions)
    assert (tree_of(run) / "src" / "a.ts").read_text() == "export const a = 1;\n"


def test_bump_of_a_name_that_is_no_extension_pinned_on_npm_is_refused(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    before = {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file()}
    for name in ("nope", "pi-roundtable"):  # no overlay of that name; an overlay without `integrity`
        run = run_main(capsys, "bump", "--extension", name, "1.0.0", "--decisions", decisions, "--quiet")
        assert assert_clean_failure(run) == (f"error: no extension pinned on npm is named {name!r} (an overlay "
                                             "with `integrity`)")
    assert {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file()} == before and npm.calls == []


def test_new_says_what_it_wrote_and_what_to_do_then_and_refuses_both_or_neither(tmp_path, monkeypatch,
                                                                               capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    before = {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file()}
    for args, refusal in (
            (["packages/agent/src/agent.ts:10", "--extension", "@demo/pi-ext@1.2.3"],
             "error: give FILE:LINE for an entry, or --extension PACKAGE@VERSION for an overlay, not both"),
            ([], "error: give FILE:LINE (a new entry) or --extension PACKAGE@VERSION (a new overlay)")):
        assert assert_clean_failure(run_main(capsys, "new", "--decisions", decisions, *args)) == refusal
    assert {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file()} == before and npm.calls == []
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert (run.code, run.stdout) == (0, f"wrote {overlay_of(decisions)}: 5 citation(s) of the levers found; write "
                                         "every TODO from the cited code, then run `python -m generator verify`\n")


def test_a_quiet_bump_of_an_extension_fetches_its_release_without_a_word(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm, _ = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    run = run_main(capsys, "bump", "--extension", "pi-ext", "1.3.0", "--decisions", decisions, "--quiet")
    assert (run.code, run.stderr) == (1, "")  # the changed code waits for a person
    assert any("pack @demo/pi-ext@1.3.0" in call for call in npm.calls)  # fetched all the same


def test_fix_at_another_release_of_the_map_keeps_its_extensions_at_their_own_pin(tmp_path, monkeypatch,
                                                                                capsys) -> None:
    """`--target` names a release of the map's code (pi's); an extension pinned on npm is checked at
    its own version, which the registry has (the fake one has no 2 of it)."""
    demo = make_project(tmp_path, {"1": {"src/a.ts": "export const a = 1;\n"},
                                   "2": {"src/a.ts": "// moved\nexport const a = 1;\n"}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "1")])})
    (demo.folder / "levers.yaml").write_text("levers:\n  - {lever: input, kind: event, decisions: [D1]}\n"
                                             "  - {lever: registerTool, kind: api, decisions: [D1]}\n")
    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    publish(npm, "1.2.3", INDEX)
    assert run_main(capsys, "new", "--decisions", demo.decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    overlay = demo.folder / "extensions" / "pi-ext.yaml"
    overlay.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", overlay.read_text()))
    written = overlay.read_text()
    run = run_main(capsys, "fix", "--decisions", demo.decisions, "--target", "2", "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == ["D1: src/a.ts: 1-1 → 2-2",
                                       "fixed 1 moved citation(s) in 1 file(s); 0 need a person"]
    assert overlay.read_text() == written
