"""The replay `make bench` prints (generator/citations/replay.py), on a fixture map of three versions: which
citations it samples, how each step counts them, and how the chain compares with resolving the
first version straight to the last. The replay over pi's real releases is in test_real_records.py
(network); this one is what mutation testing of generator/citations/replay.py runs."""

from __future__ import annotations

import dataclasses

from generator.map.load import load_maps
from generator.citations import replay as replay_module
from generator.citations.replay import replay, sample_citations, table
from generator.citations.verify import Resolution, Trees, resolve_citation

from conftest import entry_yaml, make_project

ALPHA = ("export function alpha(x: number): number {\n"
         "  const y = x + 1;\n"
         "  const z = y * 2;\n"
         "  const w = z - 1;\n"
         "  const v = w + 3;\n"
         "  return v;\n"
         "}\n")
BETA = "export function beta(): string {\n  return \"b\";\n}\n"
GAMMA = "export function gamma(): number {\n  return 3;\n}\n"
SHORT = "export function short(a: number): number {\n  const b = a;\n  const c = b;\n  return c;\n}\n"
# 1 → 2: everything moved (three lines above), beta to another file; gamma is a method-less
# function left where it was. 2 → 3: alpha's body edited; beta and gamma as they were.
VERSIONS = {
    "1": {"src/a.ts": ALPHA + "\n" + BETA + "\n" + GAMMA, "src/short.ts": SHORT, "README.md": "# not code\n"},
    "2": {"src/a.ts": "// one\n// two\n// three\n" + ALPHA + "\n" + GAMMA, "src/b.ts": BETA, "src/short.ts": SHORT},
    "3": {"src/a.ts": "// one\n// two\n// three\n" + ALPHA.replace("y * 2", "y * 3") + "\n" + GAMMA,
          "src/b.ts": BETA, "src/short.ts": SHORT},
}


def demo_map(tmp_path, entries: bool = True):
    project = make_project(tmp_path, VERSIONS, {"D1": entry_yaml("D1", [("src/a.ts", "1-7")])} if entries else {})
    [decision_map] = load_maps(project.decisions)
    return decision_map


def test_citations_are_sampled_whole_and_by_a_few_lines_inside(tmp_path) -> None:
    decision_map = demo_map(tmp_path)
    trees = Trees(decision_map, quiet=True)
    assert sample_citations(trees, "1") == [("src/a.ts", 1, 7), ("src/a.ts", 2, 6), ("src/a.ts", 9, 11),
                                            ("src/a.ts", 13, 15), ("src/short.ts", 1, 5), ("src/short.ts", 2, 4)]
    # about `declarations` of them, spread over the tree: every second declaration of four
    assert sample_citations(trees, "1", declarations=2) == [("src/a.ts", 1, 7), ("src/a.ts", 2, 6),
                                                            ("src/a.ts", 13, 15)]


def test_each_step_counts_every_citation_and_the_chain_agrees_with_the_straight_resolution(tmp_path) -> None:
    decision_map = demo_map(tmp_path)
    result = replay(decision_map, ["1", "2", "3"])
    assert result.versions == ("1", "2", "3") and result.citations == 6
    first, second = result.steps
    assert (first.old, first.new, second.old, second.new) == ("1", "2", "2", "3")
    # alpha (whole and inside) and gamma moved down, beta to src/b.ts, short.ts untouched
    assert dict(first.counts) == {"moved": 3, "ok": 2, "moved to another file": 1}
    assert (first.text_checked, first.text_differs) == (4, [])  # every moved one holds the same code
    assert dict(second.counts) == {"changed": 2, "ok": 4}  # alpha's edit; the rest where step 1 left them
    assert (second.text_checked, second.text_differs) == (0, [])
    assert dict(result.direct) == {"changed": 2, "ok": 2, "moved to another file": 1, "moved": 1}
    # alpha's two citations stop at the edit both ways; the other four land at the same place both ways
    assert (result.agree, result.disagree, result.only_direct, result.only_chain) == (4, [], 0, 0)
    assert first.row() == {"step": "1 → 2", "ok": 2, "moved": 3, "moved to another file": 1, "changed": 0,
                           "missing": 0, "ambiguous": 0, "text checked": 4, "text differs": 0}


def test_a_map_without_entries_is_replayed_too(tmp_path) -> None:
    decision_map = demo_map(tmp_path, entries=False)
    result = replay(decision_map, ["1", "3"], declarations=2)
    assert result.citations == 3
    assert dict(result.steps[0].counts) == {"changed": 2, "moved": 1}
    assert [c for c in result.direct.elements()].count("changed") == 2


def test_the_table_has_a_row_per_step_and_one_straight(tmp_path) -> None:
    decision_map = demo_map(tmp_path)
    result = replay(decision_map, ["1", "2", "3"])
    lines = table(result).split("\n")
    assert lines[0] == ("| step | ok | moved | moved to another file | changed | missing | ambiguous | text checked "
                        "| text differs |")
    assert lines[1] == "|---|---|---|---|---|---|---|---|---|"
    assert lines[2:] == ["| 1 → 2 | 2 | 3 | 1 | 0 | 0 | 0 | 4 | 0 |",
                         "| 2 → 3 | 4 | 0 | 0 | 2 | 0 | 0 | 0 | 0 |",
                         "| 1 → 3 straight | 2 | 1 | 1 | 2 | 0 | 0 |  |  |"]


def test_about_two_hundred_declarations_are_sampled_by_default(tmp_path, capsys) -> None:
    many = "".join(f"export function f{n}(): number {{\n  return {n};\n}}\n" for n in range(400))
    project = make_project(tmp_path, {"1": {"src/many.ts": many}, "2": {"src/many.ts": many}})
    [decision_map] = load_maps(project.decisions)
    assert len(sample_citations(Trees(decision_map, quiet=True), "1")) == 200  # every second of 400
    result = replay(decision_map, ["1", "2"])
    assert result.citations == 200 and dict(result.steps[0].counts) == {"ok": 200}
    assert capsys.readouterr().err == ""  # the fetch of each version is not shown


def test_long_declarations_are_cited_by_a_few_lines_inside_only(tmp_path) -> None:
    def function(name: str, body: int) -> str:
        return f"function {name}() {{\n" + "".join(f"  step{n}();\n" for n in range(body)) + "}\n"

    # edge: lines 1-81, 80 apart (the longest cited whole); over: 82-163, 81 apart; ten: 164-173
    code = function("edge", 79) + function("over", 80) + function("ten", 8)
    project = make_project(tmp_path, {"1": {"lib/code.js": code, "lib/notes.md": "# notes\n"}})
    [decision_map] = load_maps(project.decisions)
    assert sample_citations(Trees(decision_map, quiet=True), "1") == [
        ("lib/code.js", 1, 81), ("lib/code.js", 2, 6), ("lib/code.js", 83, 87),
        ("lib/code.js", 164, 173), ("lib/code.js", 165, 169)]


def function(name: str, value: int) -> str:
    return f"function {name}(): number {{\n  return {value};\n}}\n"


# Three versions where going release by release and going straight part ways. A file holding the
# same function twice at version 3 leaves the place to the lines around each copy, and the lines
# around the cited code differ between versions 1 and 2:
# - apart.ts: f lies above a at 1 and below b at 2; at 3 one copy lies above a, the other below b:
#   straight from 1 takes the first, release by release (from 2) the second.
# - chain0.ts, chain1.ts: g (k) alone at 1, below c at 2: at 3 only the chain tells the copies apart.
# - straight0.ts, straight1.ts: h (m) above e at 1, above a constant at 2 (not moved): at 3 only
#   the straight resolution tells the copies apart, the chain stops.
# - beta leaves beta.ts for gamma.ts at 2 and drops its `export` there (a move, not a change).
BETA = "export function beta(): string {\n  return \"b\";\n}\n"
PARTING = {
    "1": {"src/apart.ts": function("f", 1) + "\n" + function("a", 2), "src/beta.ts": BETA,
          **{f"src/chain{n}.ts": function(name, 4) for n, name in enumerate("gk")},
          **{f"src/straight{n}.ts": function(name, 7) + "\n" + function("e", 8) for n, name in enumerate("hm")}},
    "2": {"src/apart.ts": function("b", 3) + "\n" + function("f", 1), "src/gamma.ts": BETA.replace("export ", ""),
          **{f"src/chain{n}.ts": function("c", 5) + "\n" + function(name, 4) for n, name in enumerate("gk")},
          **{f"src/straight{n}.ts": function(name, 7) + "\nconst x = 9;\n" for n, name in enumerate("hm")}},
    "3": {"src/apart.ts": function("f", 1) + "\n" + function("a", 2) + "\n" + function("b", 3) + "\n"
          + function("f", 1), "src/gamma.ts": BETA.replace("export ", ""),
          **{f"src/chain{n}.ts": function(name, 4) + "\n" + function("c", 5) + "\n" + function(name, 4)
             for n, name in enumerate("gk")},
          **{f"src/straight{n}.ts": function(name, 7) + "\n" + function("e", 8) + "\n" + function(name, 7)
             for n, name in enumerate("hm")}},
}


def test_where_the_chain_and_the_straight_resolution_part_ways_each_is_counted(tmp_path) -> None:
    # once with the map's entry as the template of the carried ones, once with none: R<n> either way
    for entries in (True, False):
        root = tmp_path / str(entries)
        project = make_project(root, PARTING, {"D1": entry_yaml("D1", [("src/apart.ts", "1-3")])} if entries else {})
        [decision_map] = load_maps(project.decisions)
        result = replay(decision_map, ["1", "2", "3"])
        # R1 f, R2 a, R3 beta, R4 g, R5 k, R6 h, R7 e (h's file), R8 m, R9 e (m's file)
        assert result.citations == 9
        first, second = result.steps
        # f, g, k moved down; beta to gamma.ts, its text the same but for `export`; h, m stay; a, e, e gone
        assert dict(first.counts) == {"moved": 3, "moved to another file": 1, "ok": 2, "missing": 3}
        assert (first.text_checked, first.text_differs) == (4, [])
        # beta, carried to gamma.ts and recorded there, is where it was; a, e, e are back where they were
        # at 1; h and m, carried to 2, have two copies and nothing to choose between them
        assert dict(second.counts) == {"moved": 3, "ok": 4, "ambiguous": 2}
        assert dict(result.direct) == {"ok": 6, "moved to another file": 1, "ambiguous": 2}
        assert result.disagree == ["R1: release by release ('src/apart.ts', 13, 15), straight ('src/apart.ts', 1, 3)"]
        assert (result.agree, result.only_direct, result.only_chain) == (4, 2, 2)


def test_a_moved_citation_that_holds_other_code_is_named(tmp_path, monkeypatch) -> None:
    # The replay checks the resolver: a resolver that moved citations onto other code (here, a line
    # short) would show in the step's text differs, each citation from where to where.
    def a_line_short(*args) -> Resolution:
        result = resolve_citation(*args)
        if result.status != "moved":
            return result
        return dataclasses.replace(result, resolved=(result.resolved[0], result.resolved[1] - 1))

    monkeypatch.setattr(replay_module, "resolve_citation", a_line_short)
    [step] = replay(demo_map(tmp_path), ["1", "2"]).steps
    assert step.text_checked == 4
    assert step.text_differs == ["src/a.ts:1-7 → src/a.ts:4-9", "src/a.ts:2-6 → src/a.ts:5-8",
                                 "src/a.ts:9-11 → src/b.ts:1-2", "src/a.ts:13-15 → src/a.ts:12-13"]
