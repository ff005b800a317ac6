"""`new --extension PACKAGE@VERSION` as a contributor runs it, with the registry a fake npm in a
folder (tests/test_fetch.py's FakeNpm): the overlay file it writes over the project's own map (the
package pinned with its integrity, each lever it uses an item citing every place, the rest TODO),
the name it picks, and what it refuses without writing. The real registry's answer is in
test_levers.py's network test; these run without it, for mutation testing of generator/scaffold.py."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, assert_clean_failure, run_main
from test_fetch import FakeNpm

INDEX = """\
import { spawn } from "node:child_process";
export default function (pi) {
  pi.registerTool({
    name: "short",

    run() {},
  });
  pi.on("input", () => {});
  spawn("git", []);
  fetch("https://example.org");
  pi.registerTool({
    name: "long",
    a: 1,
    b: 2,
    c: 3,
    d: 4,
    e: 5,
    run() {},
  });
}
"""


def project(tmp_path: Path, monkeypatch) -> tuple[Path, FakeNpm]:
    decisions = tmp_path / "decisions"
    shutil.copytree(ROOT / "decisions", decisions)
    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    npm.publish("@demo/pi-ext@1.2.3", {"package.json": json.dumps({"name": "@demo/pi-ext", "version": "1.2.3",
                                                                   "pi": {"extensions": ["./index.ts"]}}),
                                       "index.ts": INDEX})
    return decisions, npm


def overlay_of(decisions: Path, name: str = "pi-ext") -> Path:
    return decisions / "pi" / "extensions" / f"{name}.yaml"


def overlay_for(decisions: Path, npm: FakeNpm, capsys, name: str, index: str | bytes) -> Path:
    """``new --extension`` for @demo/<name>@1.0.0, an extension of one file, index.ts, published to
    the fake npm: the overlay written (the command must succeed)."""
    npm.publish(f"@demo/{name}@1.0.0", {"package.json": json.dumps({"name": f"@demo/{name}", "version": "1.0.0",
                                                                    "pi": {"extensions": ["./index.ts"]}}),
                                        "index.ts": index})
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", f"@demo/{name}@1.0.0")
    assert run.code == 0, run.stderr
    return overlay_of(decisions, name)


def test_the_overlay_pins_the_package_and_cites_every_lever_it_uses(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert run.code == 0, run.stderr
    path = overlay_of(decisions)
    assert run.stdout.startswith(f"wrote {path}: 5 citation(s) of the levers found")
    # the download is shown as it goes (the package's files: its package.json and index.ts)
    assert run.stderr == "fetching npm: @demo/pi-ext@1.2.3\nfetching npm: @demo/pi-ext@1.2.3: 2 source files\n"
    text = path.read_text()
    # the header a contributor reads first: where the file came from and what to do with it
    assert text.startswith(
        "# yaml-language-server: $schema=../../../schema/overlay.schema.json\n"
        "# Started by `python -m generator new --extension @demo/pi-ext@1.2.3`: every lever its\n"
        "# code uses, cited. Write each TODO from the cited code (merge or drop items that say the same),\n"
        "# then run `python -m generator verify` (see decisions/FORMAT.md, \"An extension on npm\").\n"
        "extension: pi-ext\n")
    written = yaml.safe_load(text)
    published = npm.registry["packages"]["@demo/pi-ext@1.2.3"]["integrity"]
    assert {k: written[k] for k in ("extension", "package", "version", "integrity", "checked_at")} == {
        "extension": "pi-ext", "package": "@demo/pi-ext", "version": "1.2.3", "integrity": published,
        "checked_at": "1.2.3"}
    table = {row["lever"]: row["decisions"] for row in yaml.safe_load(
        (decisions / "pi" / "levers.yaml").read_text())["levers"]}
    # an event's and an API call's lever: its decisions from levers.yaml, each place it is used cited;
    # a short call whole (a blank line inside it too), a long one (a tool's definition) by its first line
    assert [(i["lever"], i["kind"], i["decisions"], [(c["file"], str(c["lines"])) for c in i["cites"]])
            for i in written["levers"]] == [
        ("registerTool", "api", table["registerTool"], [("index.ts", "3-7"), ("index.ts", "11")]),
        ("input", "event", table["input"], [("index.ts", "8")])]
    # what it runs and where it connects: items of their own, each cited
    assert [[(c["file"], str(c["lines"])) for c in i["cites"]] for i in written["runs"]] == [[("index.ts", "9")]]
    assert [[(c["file"], str(c["lines"])) for c in i["cites"]] for i in written["connects"]] == [[("index.ts", "10")]]
    assert "child_process.spawn" in written["runs"][0]["text"] and "fetch" in written["connects"][0]["text"]
    # the first decision a lever can change that is not the one every extension changes (C10)
    assert [c["decision"] for c in written["changes"]] == [table["registerTool"][1]] != ["C10"]
    # every TODO left to write stops verify; once written, every citation holds as recorded
    todos = re.findall(r"TODO\b[^\n]*", text)
    assert len(todos) == 11  # the header's comment names it once
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet", path)
    assert run.code == 2 and "TODO" in run.stderr
    path.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", text))
    run = run_main(capsys, "verify", "--decisions", decisions, "--format", "json", "--quiet", path)
    assert run.code == 0, run.stderr
    assert [(r["file"], r["status"]) for r in json.loads(run.stdout)["citations"]] == [("index.ts", "ok")] * 5


def test_an_unscoped_package_names_its_overlay(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    manifest = {"name": "pi-plain", "pi": {"extensions": ["./index.ts"]}}
    npm.publish("pi-plain@2.0.0", {"package.json": json.dumps(manifest), "index.ts": INDEX})
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "pi-plain@2.0.0")
    assert run.code == 0, run.stderr
    written = yaml.safe_load(overlay_of(decisions, "pi-plain").read_text())
    assert (written["extension"], written["package"], written["version"]) == ("pi-plain", "pi-plain", "2.0.0")


def test_the_overlay_is_named_as_asked(tmp_path, monkeypatch, capsys) -> None:
    decisions, _ = project(tmp_path, monkeypatch)
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3", "--name", "my.ext-2")
    assert run.code == 0, run.stderr
    assert yaml.safe_load(overlay_of(decisions, "my.ext-2").read_text())["extension"] == "my.ext-2"
    assert not overlay_of(decisions).exists()


@pytest.mark.parametrize(("args", "words"), [
    (["--name", "My_Ext"], "'My_Ext' cannot name the overlay file; give --name"),
    (["--name", "pi-mermaid"], "pi-mermaid.yaml exists already; give another --name"),
    (["--map", "nope"], "no map named 'nope' under"),
])
def test_a_name_or_map_that_cannot_be_used_is_refused_and_nothing_written(tmp_path, monkeypatch, capsys, args,
                                                                        words) -> None:
    decisions, _ = project(tmp_path, monkeypatch)
    before = sorted(p.name for p in (decisions / "pi" / "extensions").iterdir())
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3", *args)
    assert words in assert_clean_failure(run)
    assert sorted(p.name for p in (decisions / "pi" / "extensions").iterdir()) == before


def test_a_map_without_a_lever_table_is_refused(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = project(tmp_path, monkeypatch)
    (decisions / "pi" / "levers.yaml").unlink()
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert "levers.yaml: no lever table to take the decisions from" in assert_clean_failure(run)
    assert not overlay_of(decisions).exists() and npm.calls == []


def test_a_broken_edition_record_does_not_stop_a_new_overlay(tmp_path, monkeypatch, capsys) -> None:
    """Edition records (written by `bump`) are read only by the pages: `new --extension` leaves them out."""
    decisions, _ = project(tmp_path, monkeypatch)
    (decisions / "pi" / "editions" / "9.9.9-to-9.9.10.yaml").write_text("from_version: [not, a, version\n")
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert run.code == 0, run.stderr
    assert yaml.safe_load(overlay_of(decisions).read_text())["package"] == "@demo/pi-ext"


def test_what_it_runs_and_where_it_connects_are_items_citing_each_place(tmp_path, monkeypatch, capsys) -> None:
    """Each process it starts and each address it reaches: one item per kind, its TODO saying what to
    write, every place it is used cited under it, the file still valid YAML."""
    decisions, npm = project(tmp_path, monkeypatch)
    index = ('import { spawn } from "node:child_process";\nexport default function (pi) {\n'
             '  spawn("git", []);\n  fetch("https://a.example");\n  spawn("gh", []);\n  fetch("https://b.example");\n}\n')
    written = yaml.safe_load(overlay_for(decisions, npm, capsys, "pi-two", index).read_text())
    assert [(i["text"], [(c["file"], str(c["lines"])) for c in i["cites"]]) for i in written["runs"]] == [
        ("TODO: what it runs (child_process.spawn)", [("index.ts", "3"), ("index.ts", "5")])]
    assert [(i["text"], [(c["file"], str(c["lines"])) for c in i["cites"]]) for i in written["connects"]] == [
        ("TODO: where it connects, and what for (fetch)", [("index.ts", "4"), ("index.ts", "6")])]
    assert written["unchanged"] == [{"text": "TODO: what it leaves as pi decides it, where a reader could think "
                                             "otherwise"}]
    # no lever it uses names a decision: the change to write starts at the one any extension changes
    assert [(c["decision"], c["how"]) for c in written["changes"]] == [("C10", "TODO: how it changes C10")]


def test_a_map_without_shared_levers_starts_the_changes_at_c10(tmp_path, monkeypatch, capsys) -> None:
    """A map whose map.yaml names no `shared_levers`, and an extension whose levers name no
    decision: the change to write is pi's C10, the decision that lists what any extension changes."""
    decisions, npm = project(tmp_path, monkeypatch)
    map_yaml = decisions / "pi" / "map.yaml"
    map_yaml.write_text(map_yaml.read_text().replace("shared_levers: C10\n", ""))
    index = 'export default function (pi) {\n  fetch("https://a.example");\n}\n'
    written = yaml.safe_load(overlay_for(decisions, npm, capsys, "pi-net", index).read_text())
    assert [(c["decision"], c["how"]) for c in written["changes"]] == [("C10", "TODO: how it changes C10")]


def test_code_that_is_not_utf8_is_cited_all_the_same(tmp_path, monkeypatch, capsys) -> None:
    """A byte that is not UTF-8 (a Latin-1 comment) in a call cited whole: the overlay is written,
    and its citations hold."""
    decisions, npm = project(tmp_path, monkeypatch)
    index = INDEX.encode().replace(b'name: "short",', b'name: "short", // caf\xe9')
    path = overlay_for(decisions, npm, capsys, "pi-latin", index)
    written = yaml.safe_load(path.read_text())
    assert [str(c["lines"]) for c in written["levers"][0]["cites"]] == ["3-7", "11"]
    path.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", path.read_text()))
    run = run_main(capsys, "verify", "--decisions", decisions, "--format", "json", "--quiet", path)
    assert run.code == 0, run.stderr
    assert [r["status"] for r in json.loads(run.stdout)["citations"]] == ["ok"] * 5
    # the table says at which release each overlay's code was read: its own, after the map's
    other = overlay_for(decisions, npm, capsys, "pi-other", INDEX)
    other.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", other.read_text()))
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet", path, other)
    assert run.stdout.splitlines()[-1] == ("10 citations at 1.6.0 (pi-latin 1.0.0, pi-other 1.0.0): 10 ok: all ok"), \
        run.stdout


def test_a_call_cited_whole_ends_on_its_last_line_whatever_blank_lines_are_near(tmp_path, monkeypatch,
                                                                               capsys) -> None:
    """A short call with a blank line just before its last line, the end of the file right after it,
    and blank lines above everything: cited from its first line to its last, no line more or less."""
    decisions, npm = project(tmp_path, monkeypatch)
    index = '\n' * 6 + 'export default (pi) => {\n  pi.registerTool({\n    name: "a",\n\n  });\n}\n'
    written = yaml.safe_load(overlay_for(decisions, npm, capsys, "pi-gaps", index).read_text())
    assert [(i["lever"], [str(c["lines"]) for c in i["cites"]]) for i in written["levers"]] == [
        ("registerTool", ["8-11"])]


def test_a_second_run_while_the_first_overlay_is_unfinished_is_refused(tmp_path, monkeypatch, capsys) -> None:
    """The overlay `new` wrote still holds its TODOs (so the map leaves it out): running `new` again
    for the same name is refused all the same, and the file is left as it was."""
    decisions, _ = project(tmp_path, monkeypatch)
    assert run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    path = overlay_of(decisions)
    path.write_text(path.read_text().replace("TODO: what it is, in one line", "TODO: my notes so far"))
    before = path.read_text()
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3")
    assert run.code == 2 and f"error: {path} exists already; give another --name" in run.errors, run.stderr
    assert path.read_text() == before


def test_a_package_once_fetched_needs_no_registry(tmp_path, monkeypatch, capsys) -> None:
    """The package's tree in the cache holds the integrity the registry gave: a second overlay of
    it is written offline, pinned with that integrity. A tree fetched before trees recorded it (its
    manifest without `integrity`): the registry is asked."""
    from generator.map.model import extension_map
    from generator.source.fetch import MANIFEST, fetch_tree

    decisions, npm = project(tmp_path, monkeypatch)
    published = npm.registry["packages"]["@demo/pi-ext@1.2.3"]["integrity"]
    assert run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    npm.fail("npm error code ENOTFOUND\n")
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3", "--name", "offline")
    assert run.code == 0, run.stderr
    assert yaml.safe_load(overlay_of(decisions, "offline").read_text())["integrity"] == published
    del npm.registry["fail"]
    npm.save()
    manifest = fetch_tree(extension_map("@demo/pi-ext", "1.2.3"), "1.2.3", quiet=True).root / MANIFEST
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "integrity"}))
    run = run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3", "--name", "asked")
    assert run.code == 0, run.stderr
    assert yaml.safe_load(overlay_of(decisions, "asked").read_text())["integrity"] == published


def overlay_with_a_new_release(tmp_path: Path, monkeypatch, capsys) -> tuple[Path, FakeNpm, Path]:
    """The overlay `new` wrote at 1.2.3, its TODOs written; 1.3.0 published: a line above
    everything, and the process it starts changed."""
    decisions, npm = project(tmp_path, monkeypatch)
    assert run_main(capsys, "new", "--decisions", decisions, "--extension", "@demo/pi-ext@1.2.3").code == 0
    path = overlay_of(decisions)
    path.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", path.read_text()))
    publish(npm, "1.3.0", "// 1.3.0\n" + INDEX.replace('spawn("git", [])', 'spawn("hg", [])'))
    monkeypatch.setenv("DECISION_MAP_SKIP_PROBES", "1")
    return decisions, npm, path


def publish(npm: FakeNpm, version: str, index: str) -> None:
    npm.publish(f"@demo/pi-ext@{version}", {"package.json": json.dumps({
        "name": "@demo/pi-ext", "version": version, "pi": {"extensions": ["./index.ts"]}}), "index.ts": index})


def test_bump_extension_pins_the_next_release_and_records_its_own_edition(tmp_path, monkeypatch, capsys) -> None:
    """`bump --extension NAME VERSION` as a maintainer runs it when the package has a new release:
    the overlay pinned at it with the registry's integrity, its edition written beside it, the
    citations whose code moved updated and the one whose code changed shown for a person, and
    nothing else in the project touched."""
    decisions, npm, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    others = {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file() and p != path}
    run = run_main(capsys, "bump", "--extension", "pi-ext", "1.3.0", "--decisions", decisions, "--quiet")
    assert run.code == 1, run.stderr  # the changed code waits for a person
    text = path.read_text()
    # the pin, its registry integrity and the version every citation is checked at, where they were
    published = npm.registry["packages"]["@demo/pi-ext@1.3.0"]["integrity"]
    assert text.split("tagline:")[0].endswith(
        f'extension: pi-ext\npackage: "@demo/pi-ext"\nversion: "1.3.0"\nintegrity: "{published}"\n'
        'checked_at: "1.3.0"\n')
    written = yaml.safe_load(text)
    assert [[(str(c["lines"]), c.get("version")) for c in i["cites"]] for i in written["levers"] + written["runs"]] == [
        [("4-8", None), ("12", None)], [("9", None)], [("9", "1.2.3")]]  # moved; changed: kept for a person
    assert 'pi-ext: index.ts: 3-7 → 4-8 (moved, updated)\n' in run.stdout
    review = next(b for b in run.stdout.split("\n\n") if b.startswith("── pi-ext"))
    assert review.splitlines()[0] == "── pi-ext changed: pi-ext" and review.splitlines()[-2:] == [
        '-  spawn("git", []);', '+  spawn("hg", []);']
    edition = decisions / "pi" / "extensions" / "pi-ext" / "editions" / "1.2.3-to-1.3.0.yaml"
    assert run.stdout.splitlines()[-1] == f"npm-demo+pi-ext: pinned at 1.3.0 (4 moved, 1 changed); edition written to {edition}"
    assert {p: p.read_bytes() for p in decisions.rglob("*") if p.is_file() and p not in (path, edition)} == others
    record = yaml.safe_load(edition.read_text())
    assert (record["from"], record["to"]) == ("1.2.3", "1.3.0")
    assert [(r["old"], r["new"], r["status"]) for r in record["citations"]] == [
        ("3-7", "4-8", "moved"), ("11", "12", "moved"), ("8", "9", "moved"), ("9", "10", "changed"),
        ("10", "11", "moved")]
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet", path).code == 1  # until a person accepts


def fetch_release(decisions: Path, version: str):
    """The overlay's package fetched at ``version`` into the cache, as a bump fetches it."""
    from generator.map.load import load_maps, pinned_extension_map
    from generator.source.fetch import fetch_tree

    [overlay] = [o for m in load_maps(decisions) for o in m.overlays if o.extension == "pi-ext"]
    return fetch_tree(pinned_extension_map(overlay), version, quiet=True)


def test_bump_extension_to_a_release_already_fetched_needs_no_registry(tmp_path, monkeypatch, capsys) -> None:
    """The release's tree, once fetched, holds the integrity the registry gave for it: a bump
    needs the registry no more (offline here). A tree fetched before trees recorded it (its
    manifest without `integrity`): the registry is asked."""
    from generator.source.fetch import MANIFEST

    decisions, npm, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    published = npm.registry["packages"]["@demo/pi-ext@1.3.0"]["integrity"]
    fetch_release(decisions, "1.3.0")
    npm.fail("npm error code ENOTFOUND\n")
    run = run_main(capsys, "bump", "--extension", "pi-ext", "1.3.0", "--decisions", decisions, "--quiet")
    assert run.code == 1 and f'\nintegrity: "{published}"\n' in path.read_text(), run.stderr
    del npm.registry["fail"]
    publish(npm, "1.4.0", "// 1.4.0\n// 1.3.0\n" + INDEX.replace('spawn("git", [])', 'spawn("hg", [])'))
    manifest = fetch_release(decisions, "1.4.0").root / MANIFEST
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "integrity"}))
    assert run_main(capsys, "bump", "--extension", "pi-ext", "1.4.0", "--decisions", decisions, "--quiet").code == 1
    assert f'\nintegrity: "{npm.registry["packages"]["@demo/pi-ext@1.4.0"]["integrity"]}"\n' in path.read_text()


def test_verify_refuses_an_overlay_whose_pinned_integrity_is_not_the_registrys(tmp_path, monkeypatch, capsys) -> None:
    """The integrity an overlay pins is checked, even with the package's tree already fetched: a
    package published again under the same version is not the one that was mapped."""
    decisions, npm, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    published = npm.registry["packages"]["@demo/pi-ext@1.2.3"]["integrity"]
    other = npm.registry["packages"]["@demo/pi-ext@1.3.0"]["integrity"]
    path.write_text(path.read_text().replace(published, other))
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet", path)
    assert_clean_failure(run, f"the registry's integrity hash is {published}, but the pin records {other}; "
                              "the published package is not the one that was mapped")


def test_an_overlay_pinned_at_a_new_release_is_checked_from_the_version_its_citations_were(
        tmp_path, monkeypatch, capsys) -> None:
    """`checked_at` is the release the citations were read at: pinned at 1.3.0 by hand, before a
    bump, they are found where they moved to in 1.3.0 (one line down), not read as if written for it."""
    decisions, npm, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    published = npm.registry["packages"]["@demo/pi-ext@1.2.3"]["integrity"]
    newer = npm.registry["packages"]["@demo/pi-ext@1.3.0"]["integrity"]
    path.write_text(path.read_text().replace(published, newer).replace('version: "1.2.3"', 'version: "1.3.0"'))
    run = run_main(capsys, "verify", "--decisions", decisions, "--format", "json", "--quiet", path)
    found = [(r["recorded"], r["resolved"], r["status"]) for r in json.loads(run.stdout)["citations"]]
    assert run.code == 1 and found == [
        ([3, 7], [4, 8], "moved"), ([11, 11], [12, 12], "moved"), ([8, 8], [9, 9], "moved"),
        ([9, 9], [10, 10], "changed"), ([10, 10], [11, 11], "moved")], run.stderr


def _line_of(text: str, start: str | None) -> int:
    """The line of the key ``start`` (``+1``: of a list's first item, where a list is), or 1."""
    key, _, below = (start or "").partition("+")
    if not key:
        return 1
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(key)) + int(below or 0)


@pytest.mark.parametrize(("edit", "at", "said"), [
    ((r'package: .*\n', ""), "integrity:", "`integrity` pins the extension on npm; give its `package` too"),
    ((r'version: .*\n', ""), "integrity:", "`integrity` pins the extension on npm; give its `version` too"),
    ((r'version: "1.2.3"', 'version: "^1.2.3"'), "version:",
     "version '^1.2.3' is not an exact release; a pinned extension names the version its integrity is of"),
    ((r"levers:\n(  .*\n)*", ""), None, "a pinned extension lists its levers, each cited; start from "
                                        "`python -m generator new --extension @demo/pi-ext@1.2.3`"),
    ((r"integrity: .*\n", ""), "levers:+1", "`levers` cites the extension's code, which needs the package pinned: "
                                          "add `integrity` (npm view PACKAGE@VERSION dist.integrity)"),
    ((r"integrity: .*\nchecked_at: .*\n((?s:.*))levers:\n(  .*\n)*", r"\1"), "runs:+1",
     "`runs` cites the extension's code, which needs the package pinned: add `integrity` (npm view "
     "PACKAGE@VERSION dist.integrity)"),
], ids=["no-package", "no-version", "a-range", "no-levers", "unpinned-levers", "unpinned-runs"])
def test_an_overlay_citing_code_must_be_pinned_whole(tmp_path, monkeypatch, capsys, edit, at, said) -> None:
    """Citations into an extension's code need the package pinned on npm (package, exact version,
    integrity), and a pinned one cites its levers: each refusal at its line."""
    from generator.errors import InputError
    from generator.map.load import load_maps

    decisions, _, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    text = re.sub(*edit, path.read_text(), count=1)
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_maps(decisions, editions=False)
    assert [str(p) for p in caught.value.problems] == [f"{path}:{_line_of(text, at)}: {said}"]


def test_an_overlays_probe_needs_its_script_and_the_package_pinned(tmp_path, monkeypatch, capsys) -> None:
    """A probe runs the extension installed from npm: its script must exist, and the package be pinned."""
    from generator.errors import InputError
    from generator.map.load import load_maps

    decisions, _, path = overlay_with_a_new_release(tmp_path, monkeypatch, capsys)
    text = path.read_text() + "probe:\n  shows: It runs.\n  expect: {ran: true}\n"
    path.write_text(text)
    probe = _line_of(text, "probe:")
    with pytest.raises(InputError) as caught:
        load_maps(decisions, editions=False)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:{probe}: the probe's script extensions/probes/pi-ext.mjs does not exist; write it (see "
        "CONTRIBUTING.md), or remove `probe:`"]
    (path.parent / "probes" / "pi-ext.mjs").write_text("console.log('{}')\n")
    text = re.sub(r"integrity: .*\n", "", text)
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_maps(decisions, editions=False)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:{_line_of(text, 'levers:+1')}: `levers` cites the extension's code, which needs the package "
        "pinned: add `integrity` (npm view PACKAGE@VERSION dist.integrity)",
        f"{path}:{probe - 1}: a probe loads the extension from npm, which needs the package pinned: add `integrity`"]
