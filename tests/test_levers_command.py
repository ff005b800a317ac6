"""`generator levers PACKAGE@VERSION` as a person runs it, with the registry faked in this process:
the spec refused before anything is fetched, a package or a version npm does not have named as such,
the text table and the JSON object printed, and where pi finds an extension in a package (its
manifest, its extensions/ folder) in the cases test_levers.py leaves out. The real registry's
answers are in test_levers.py's network tests; these run in a second, for mutation testing of
generator/extensions/levers.py."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path

import pytest

from conftest import ROOT, assert_clean_failure, run_main

from generator.errors import FetchError
from generator.extensions import levers
from generator.extensions.levers import LeverReport, NoExtension, extension_entries, reachable_files, report_text
from generator.extensions.patterns import LeverUse
from generator.source import fetch
from generator.source.fetch import SourceTree
from generator.map.load import load_lever_table

DECISIONS = ROOT / "decisions"


def package(folder: Path, files: dict[str, str | bytes]) -> SourceTree:
    """A package's files as npm ships them, as a source tree."""
    digests = {}
    for name, text in files.items():
        data = text.encode() if isinstance(text, str) else text
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        digests[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return SourceTree(folder, "1.0.0", digests)


INDEX = """\
import { spawn } from "node:child_process";
export default function (pi) {
  pi.registerTool({ name: "t" });
  pi.on("input", () => {});
  spawn("git", []);
  pi.on(pick(), () => {});
}
"""


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The registry, faked: ``fetched`` records each fetch (the map's name, its npm source, the version
    and whether quiet); ``trees`` are the packages it has, by spec; ``versions`` what `npm view
    PACKAGE versions --json` prints, by package (a missing one: npm's 404)."""
    state: dict = {"fetched": [], "trees": {}, "versions": {}, "views": []}

    def fetch_tree(decision_map, version, *, quiet=False):
        (npm,) = decision_map.source.npm
        state["fetched"].append((decision_map.name, npm.package, npm.shipped, version, quiet))
        spec = f"{npm.package}@{version}"
        if spec not in state["trees"]:
            raise FetchError(f"{spec} is not in the npm registry (unknown package or version)")
        return state["trees"][spec]

    def npm(args, what, npm=None, **run):
        state["views"].append((args, what))
        if args[1] not in state["versions"]:
            raise FetchError(f"{what} is not in the npm registry (unknown package or version)")
        return state["versions"][args[1]]

    monkeypatch.setattr(levers, "fetch_tree", fetch_tree)
    monkeypatch.setattr(fetch, "_npm", npm)
    state["trees"]["@scope/ext@1.2.3"] = package(tmp_path / "ext", {
        "package.json": json.dumps({"name": "@scope/ext", "pi": {"extensions": ["./index.ts"]}}), "index.ts": INDEX})
    return state


def levers_run(capsys, *args: str):
    return run_main(capsys, "levers", *args, "--decisions", DECISIONS)


def test_the_text_table_lists_each_lever_its_kind_place_and_decisions_then_what_to_read_by_hand(registry, capsys):
    run = levers_run(capsys, "@scope/ext@1.2.3", "--quiet")
    assert run.code == 0, run.stderr
    rows = {row.lever: ", ".join(row.decisions) for row in load_lever_table(DECISIONS)}
    assert rows["registerTool"] and rows["input"] and rows["child_process.spawn"] == ""
    lines = run.stdout.splitlines()
    assert lines[:5] == [
        "@scope/ext@1.2.3: 3 lever use(s) in 1 file(s); entries: index.ts",
        f"  registerTool         api      index.ts:3  {rows['registerTool']}",  # the widest lever sets the width
        f"  input                event    index.ts:4  {rows['input']}",
        "  child_process.spawn  process  index.ts:5  -",  # no decision in the table: a dash
        "  note: index.ts:6: `pi.on` with an event name that is not a literal; read it by hand"]
    assert re.fullmatch(r"\([0-9]+\.[0-9] s\)", lines[5]) and len(lines) == 6  # how long it took
    # fetched once, as a shipped npm package at the exact version, without a progress display
    assert registry["fetched"] == [("npm-scope+ext", "@scope/ext", True, "1.2.3", True)]
    levers_run(capsys, "@scope/ext@1.2.3")
    assert registry["fetched"][-1][-1] is False  # not quiet unless asked


def test_the_json_object_holds_the_package_its_levers_entries_and_unnamed_events(registry, capsys):
    run = levers_run(capsys, "@scope/ext@1.2.3", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    report = run.json()
    assert [(u["lever"], u["kind"], u["file"], u["line"]) for u in report.pop("levers")] == [
        ("registerTool", "api", "index.ts", 3), ("input", "event", "index.ts", 4),
        ("child_process.spawn", "process", "index.ts", 5)]
    assert report == {"package": "@scope/ext", "version": "1.2.3", "entries": ["index.ts"],
                      "unresolved": [{"file": "index.ts", "line": 6}]}


def test_the_table_ends_with_the_time_the_command_took(registry, monkeypatch, capsys):
    """From its start (before the lever table is read) to the levers found: 2.5 s on this clock."""
    import time

    ticks = iter([1000.0, 1002.5])
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks))
    run = levers_run(capsys, "@scope/ext@1.2.3", "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "(2.5 s)"


def test_the_lever_table_of_the_map_named_gives_the_decisions(registry, tmp_path, capsys):
    """Two maps under --decisions, each with its own lever table: --map picks the one whose
    decisions are shown; without it, the first map's."""
    for name, decision in (("first", "A1"), ("second", "B2")):
        folder = tmp_path / "decisions" / name
        folder.mkdir(parents=True)
        (folder / "map.yaml").write_text("title: not read\n")  # the lever table is read on its own
        (folder / f"{decision}.yaml").write_text("id: not read\n")
        (folder / "levers.yaml").write_text(f"levers:\n  - {{lever: input, kind: event, decisions: [{decision}]}}\n")

    def input_row(*args: str) -> str:
        run = run_main(capsys, "levers", "@scope/ext@1.2.3", "--decisions", tmp_path / "decisions", "--quiet", *args)
        assert run.code == 0, run.stderr
        return next(line for line in run.stdout.splitlines() if line.split()[0] == "input")

    assert input_row("--map", "second").endswith("index.ts:4  B2")
    assert input_row().endswith("index.ts:4  A1")
    assert input_row("--map", "first").endswith("index.ts:4  A1")


def test_a_table_with_no_lever_and_no_time_is_one_line():
    report = LeverReport("p", "1.0.0", (), ("a.ts", "b.ts"), ("a.ts", "b.ts", "c.ts"))
    assert report_text(report) == "p@1.0.0: 0 lever use(s) in 3 file(s); entries: a.ts, b.ts"
    use = LeverUse("on", "event", "a.ts", 2, ("A1", "B2"))
    assert report_text(LeverReport("p", "1.0.0", (use,), ("a.ts",), ("a.ts",)), 1.25).splitlines() == [
        "p@1.0.0: 1 lever use(s) in 1 file(s); entries: a.ts", "  on  event    a.ts:2  A1, B2", "(1.2 s)"]


@pytest.mark.parametrize("spec, words", [
    ("pi-web-access", "give PACKAGE@VERSION with an exact version, e.g. pi-web-access@0.28.0"),
    ("@scope/ext", "give PACKAGE@VERSION"),
    ("@1.2.3", "give PACKAGE@VERSION"),
    ("@@1.2.3", "give PACKAGE@VERSION"),
    ("pi-web-access@latest", "'latest' is not an exact version (like 1.2.3); the levers are read at one release"),
    ("pi-web-access@1.2", "'1.2' is not an exact version"),
    ("pi-web-access@^1.2.3", "'^1.2.3' is not an exact version"),
    ("pi-web-access@1.2.3 ", "'1.2.3 ' is not an exact version"),
    ("pi-web-access@", "'' is not an exact version"),
])
def test_a_spec_that_is_not_one_exact_release_is_refused_before_any_fetch(registry, capsys, spec, words):
    line = assert_clean_failure(levers_run(capsys, spec, "--quiet"), words)
    assert line.startswith(f"error: {spec!r}: ")
    assert registry["fetched"] == []


def test_a_prerelease_and_a_scoped_package_are_exact_releases(registry, tmp_path, capsys):
    registry["trees"]["@scope/ext@1.2.3-beta.1"] = registry["trees"]["@scope/ext@1.2.3"]
    run = levers_run(capsys, "@scope/ext@1.2.3-beta.1", "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("@scope/ext@1.2.3-beta.1: 3 lever use(s)")


def test_a_version_npm_does_not_have_is_named_with_the_latest_releases(registry, capsys):
    registry["versions"]["@scope/ext"] = json.dumps([f"0.{n}.0" for n in range(10)])
    line = assert_clean_failure(levers_run(capsys, "@scope/ext@9.9.9", "--quiet"))
    assert line == ("error: @scope/ext has no version 9.9.9 in the npm registry (its latest releases: "
                    "0.2.0, 0.3.0, 0.4.0, 0.5.0, 0.6.0, 0.7.0, 0.8.0, 0.9.0)")
    assert registry["views"][0][0][:4] == ["view", "@scope/ext", "versions", "--json"]
    registry["versions"]["one"] = json.dumps("0.1.0")  # npm prints a package's only version as a string
    line = assert_clean_failure(levers_run(capsys, "one@9.9.9", "--quiet"))
    assert line == "error: one has no version 9.9.9 in the npm registry (its latest releases: 0.1.0)"


def test_a_package_npm_does_not_have_is_named_as_missing(registry, capsys):
    line = assert_clean_failure(levers_run(capsys, "no-such@1.0.0", "--quiet"))
    assert line == "error: no-such does not exist in the npm registry"
    registry["versions"]["garbled"] = "not json"  # an answer npm's JSON cannot be read from: no versions known
    line = assert_clean_failure(levers_run(capsys, "garbled@1.0.0", "--quiet"))
    assert line == "error: garbled does not exist in the npm registry"
    registry["versions"]["empty"] = ""  # nothing printed: no versions
    line = assert_clean_failure(levers_run(capsys, "empty@1.0.0", "--quiet"))
    assert line == "error: empty has no version 1.0.0 in the npm registry (its latest releases: )"


def test_a_package_that_holds_no_extension_is_named(registry, tmp_path, capsys):
    registry["trees"]["left-pad@1.3.0"] = package(tmp_path / "left-pad", {"package.json": '{"name": "left-pad"}',
                                                                           "index.js": "module.exports = 1;\n"})
    line = assert_clean_failure(levers_run(capsys, "left-pad@1.3.0", "--quiet"))
    assert line.startswith("error: left-pad@1.3.0 holds no pi extension: its package.json has no `pi.extensions`")


def test_a_fetch_that_fails_otherwise_is_reported_as_it_is(registry, monkeypatch, capsys):
    def unreachable(decision_map, version, *, quiet=False):
        raise FetchError("the npm registry is unreachable while fetching x@1.0.0; check the network and run again")

    monkeypatch.setattr(levers, "fetch_tree", unreachable)
    line = assert_clean_failure(levers_run(capsys, "x@1.0.0", "--quiet"))
    assert line == "error: the npm registry is unreachable while fetching x@1.0.0; check the network and run again"
    assert registry["views"] == []  # npm is not asked for the versions


# --- where pi finds the extension ----------------------------------------------------------------


def entries(tmp_path: Path, files: dict[str, str | bytes]) -> list[str]:
    return extension_entries(package(tmp_path, files), "p@1")


def manifest(pi) -> str:
    return json.dumps({"name": "p", "pi": pi})


def test_a_manifest_lists_files_globs_and_folders_and_skips_switches_and_paths_out_of_the_package(tmp_path):
    files = {"package.json": manifest({"extensions": [
        "!./a.ts", "+./b.ts", "-./c.ts", "!a.ts", "+b.ts", "-c.ts", "../outside.ts", "./one.ts", "./src/*.ts", "./dir",
        "./one.ts", "./gone.ts", "./..two.ts", "./Xdir"]}),
        "a.ts": "", "b.ts": "", "c.ts": "", "!a.ts": "", "+b.ts": "", "-c.ts": "", "src/x.ts": "", "src/y.ts": "",
        "src/notes.md": "", "one.ts": "", "dir/index.ts": "", "dir/other.ts": "", "..two.ts": "", "Xdir/index.ts": ""}
    # a switch (`!`, `+`, `-`) turns files on or off, it names none, even when a file has its name
    assert entries(tmp_path, files) == ["one.ts", "src/x.ts", "src/y.ts", "dir/index.ts", "..two.ts", "Xdir/index.ts"]


@pytest.mark.parametrize("glob", ["./src/?.ts", "./src/[xy].ts"])
def test_every_glob_character_makes_a_pattern(tmp_path, glob):
    files = {"package.json": manifest({"extensions": [glob]}), "src/x.ts": "", "src/y.ts": "", "src/zz.ts": ""}
    assert entries(tmp_path, files) == ["src/x.ts", "src/y.ts"]


def test_a_manifest_whose_extensions_are_not_a_list_of_names_names_the_resources_it_lists(tmp_path):
    for n, listed in enumerate(({"extensions": "./index.ts", "skills": []}, {"extensions": [1], "themes": []},
                                {"prompts": ["./p"], "themes": ["./t"]})):
        with pytest.raises(NoExtension) as refused:
            entries(tmp_path / str(n), {"package.json": manifest(listed), "index.ts": "", "extensions/a.ts": ""})
        named = ", ".join(k for k in ("extensions", "skills", "prompts", "themes") if k in listed)
        assert str(refused.value) == (f"p@1 holds no pi extension: its package.json `pi` lists {named} but no "
                                      "extension file that exists in the package")


@pytest.mark.parametrize("text", ["{not json", b"\xff\xfe{}", json.dumps(["pi"]), json.dumps({"pi": ["extensions"]}),
                                  json.dumps({"pi": {"video": "x"}})])
def test_a_package_json_pi_cannot_read_falls_back_to_the_extensions_folder(tmp_path, text):
    assert entries(tmp_path, {"package.json": text, "extensions/a.ts": ""}) == ["extensions/a.ts"]


def test_a_package_json_with_a_byte_order_mark_is_read(tmp_path):
    text = "\ufeff" + manifest({"extensions": ["./main.ts"]})
    files = {"package.json": text.encode("utf-8"), "main.ts": "", "extensions/a.ts": ""}
    assert entries(tmp_path, files) == ["main.ts"]


def test_no_package_json_and_no_extensions_folder_is_no_extension(tmp_path):
    with pytest.raises(NoExtension, match=r"^p@1 holds no pi extension: its package.json has no `pi.extensions` and "
                                          r"it has no extensions/ folder with code in it, so pi would load no "
                                          r"extension from it$"):
        entries(tmp_path, {"index.ts": "", "extensionsx/a.ts": ""})
    assert entries(tmp_path / "b", {"extensions/a.ts": ""}) == ["extensions/a.ts"]


def test_the_extensions_folder_gives_its_code_files_and_each_subfolders_own_entries(tmp_path):
    files = {"extensions/a.ts": "", "extensions/b.js": "", "extensions/c.mjs": "", "extensions/d.md": "",
             "extensions/.e.ts": "", "extensions/.hidden/index.ts": "", "extensions/node_modules/m/index.ts": "",
             "extensions/node_modules/index.ts": "",
             "extensions/js/index.js": "", "extensions/both/index.ts": "", "extensions/both/index.js": "",
             "extensions/listed/package.json": manifest({"extensions": ["./main.ts", "./gone.ts"]}),
             "extensions/listed/main.ts": "", "extensions/listed/index.ts": "",
             "extensions/empty/package.json": manifest({"extensions": ["./gone.ts"]}), "extensions/empty/index.js": "",
             "extensions/loose/x.ts": "", "extensions/deep/sub/index.ts": ""}
    assert entries(tmp_path, files) == ["extensions/a.ts", "extensions/b.js", "extensions/both/index.ts",
                                        "extensions/empty/index.js", "extensions/js/index.js",
                                        "extensions/listed/main.ts"]


def test_a_manifest_naming_a_folder_takes_its_own_entries_first(tmp_path):
    files = {"package.json": manifest({"extensions": ["./ext", "./root/.."]}), "ext/index.ts": "", "ext/other.ts": "",
             "root/x.ts": ""}
    assert entries(tmp_path, files) == ["ext/index.ts"]  # "./root/.." is the package itself: not a folder pi reads
    files = {"package.json": manifest({"extensions": ["./ext"]}), "ext/one.ts": "", "ext/two.js": "",
             "ext/sub/index.js": ""}
    assert entries(tmp_path / "b", files) == ["ext/one.ts", "ext/sub/index.js", "ext/two.js"]


# --- the files an extension is made of -----------------------------------------------------------


def test_imports_exports_requires_and_started_files_are_read_and_nothing_else(tmp_path):
    index = """\
import "./side";
import { a } from "./a.js";
export { b } from "./b";
export * from "./lib";
export const answer = 42;
log("./logged.ts");
const c = require("./c.cjs");
const d = await import("./d.mjs");
const e = require(name);
const none = require();
const k = this.path.join(here, "helper.ts");
import x from "pkg";
import j from "./data.json";
const f = path.resolve(here, "runner.ts");
const g = path.join(here, "./tools/run.mts");
const h = join(here, "not/a/sibling.ts");
const i = path.join(here, "notes.txt");
const w = new URL("./worker.ts", import.meta.url);
new Other("./other.ts");
"""
    files = {"index.ts": index, "side.ts": "", "a.ts": 'import "./a";\n', "b.tsx": "", "lib/index.ts": "",
             "c.cjs": "", "d.mjs": "", "data.json": "{}", "runner.ts": "", "tools/run.mts": "", "notes.txt": "",
             "worker.ts": "", "other.ts": "", "not/a/sibling.ts": "", "readme.md": "see ./side", "logged.ts": "",
             "helper.ts": ""}
    # a string in another call is not a file the extension loads; a runner is named through any object
    assert sorted(reachable_files(package(tmp_path, files), ["index.ts", "readme.md"])) == [
        "a.ts", "b.tsx", "c.cjs", "d.mjs", "helper.ts", "index.ts", "lib/index.ts", "runner.ts", "side.ts",
        "tools/run.mts", "worker.ts"]


@pytest.mark.parametrize("target, files, read", [
    ("./m.js", {"m.js": "", "m.ts": ""}, "m.js"),  # the file named, when it is there
    ("./m.js", {"m.ts": ""}, "m.ts"),  # TypeScript's own: ./m.js in the source is m.ts
    ("./m.js", {"m.tsx": ""}, "m.tsx"),
    ("./m.mjs", {"m.mts": ""}, "m.mts"),
    ("./m.cjs", {"m.cts": ""}, "m.cts"),
    ("./m", {"m.tsx": "", "m.js": ""}, "m.tsx"),
    ("./m", {"m.mts": "", "m.js": ""}, "m.mts"),
    ("./m", {"m.cts": "", "m.js": ""}, "m.cts"),
    ("./m", {"m.jsx": ""}, "m.jsx"),
    ("./m", {"m.js": "", "m/index.ts": ""}, "m.js"),
    ("./m", {"m/index.tsx": "", "m/index.js": ""}, "m/index.tsx"),
    ("./m", {"m/index.js": "", "m/index.mjs": ""}, "m/index.js"),
    ("./m", {"m/index.mjs": ""}, "m/index.mjs"),
    ("./m", {"m/index.cjs": ""}, None),
    ("../up/m", {}, "../up/m.ts"),  # another folder of the package
    ("./sub/../m", {"m.ts": ""}, "m.ts"),
])
def test_an_import_is_read_from_the_file_typescript_or_node_would_load(tmp_path, target, files, read):
    beside = {f"src/{name}": text for name, text in files.items()}
    tree = package(tmp_path / "pkg", {"src/index.ts": f'import "{target}";\n', **beside, "up/m.ts": ""})
    assert reachable_files(tree, ["src/index.ts"]) == ["src/index.ts", *([posixpath.normpath(f"src/{read}")]
                                                                         if read else [])]


def test_each_file_is_read_once_in_the_order_it_is_reached(tmp_path):
    files = {"a.ts": 'import "./b";\nimport "./c";\n', "b.ts": 'import "./c";\nimport "./a";\n',
             "c.ts": 'import "./b";\n', "d.ts": ""}
    assert reachable_files(package(tmp_path, files), ["a.ts", "d.ts", "a.ts", "x.md"]) == ["a.ts", "d.ts", "b.ts",
                                                                                           "c.ts"]
