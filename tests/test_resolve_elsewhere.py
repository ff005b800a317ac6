"""Code that left its file, as `verify` reports it (status, new file, new range, detail): what the
resolver looks for in the rest of the tree, and what it does not. Cases mutation testing showed
no other test pins; the main promises are in test_records.py."""

from __future__ import annotations

import pytest

from conftest import entry_yaml, make_project, run_main

ONE = "export function one(): number {\n  return 1;\n}\n"
TWO = "export function two(): number {\n  return 2;\n}\n"
THREE = "export function three(): number {\n  return 3;\n}\n"
FOUR = "export function four(): number {\n  return 4;\n}\n"
METHOD = "export namespace N {\n  export class A {\n    m(): number {\n      return 1;\n    }\n  }\n}\n"
OTHER_CODE = "".join(f"export const filler{n} = {n};\n" for n in range(20))

# name: (version 1, version 2, the cited lines of src/a.ts, what verify at 2 says of it)
CASES = {
    # a range over several declarations is looked for by all their names; more than three are
    # shown as the first three and an ellipsis
    "three-declarations-move-together": (
        {"src/a.ts": ONE + TWO + THREE + "const keep = 0;\n"},
        {"src/a.ts": "const keep = 0;\n", "src/b.ts": "// here now\n" + ONE + TWO + THREE},
        "1-9", ("moved", [2, 10], "src/b.ts", "one, two, three", "moved to src/b.ts")),
    "four-declarations-move-together": (
        {"src/a.ts": ONE + TWO + THREE + FOUR + "const keep = 0;\n"},
        {"src/a.ts": "const keep = 0;\n", "src/b.ts": "// here now\n" + ONE + TWO + THREE + FOUR},
        "1-12", ("moved", [2, 13], "src/b.ts", "one, two, three, …", "moved to src/b.ts")),
    # a method keeps its name when it moves into another class of another file; files that do
    # not hold the code (src/a2.ts, looked at first) are passed over
    "a-method-moves-to-another-class": (
        {"src/a.ts": "export class A {\n  m(): number {\n    return 1;\n  }\n}\n"},
        {"src/a.ts": "export class A {}\n", "src/a2.ts": "export const unrelated = 0;\n",
         "src/b.ts": "export class B {\n  x = 0;\n\n  m(): number {\n    return 1;\n  }\n}\n"},
        "2-4", ("moved", [4, 6], "src/b.ts", "B.m", "moved to src/b.ts")),
    "a-method-moves-to-another-namespace": (
        {"src/a.ts": "export namespace N {\n  export class A {\n    m(): number {\n      return 1;\n    }\n  }\n}\n"},
        {"src/a.ts": "export const gone = 1;\n",
         "src/b.ts": "export namespace M {\n  export class B {\n    m(): number {\n      return 1;\n    }\n  }\n}\n"},
        "3-5", ("moved", [3, 5], "src/b.ts", "M.B.m", "moved to src/b.ts")),
    # two methods of a class moved into another namespace's class: their last names are what count
    "two-methods-move-together": (
        {"src/a.ts": "export namespace N {\n  export class A {\n    p(): number {\n      return 1;\n    }\n"
                     "    q(): number {\n      return 2;\n    }\n  }\n}\n"},
        {"src/a.ts": "export const gone = 1;\n",
         "src/b.ts": "export namespace M {\n  export class B {\n    p(): number {\n      return 1;\n    }\n"
                     "    q(): number {\n      return 2;\n    }\n  }\n}\n"},
        "3-8", ("moved", [3, 8], "src/b.ts", "M.B.p, M.B.q", "moved to src/b.ts")),
    # cited blank lines come along where the new place has blank lines too; the code around stays
    "blank-lines-around-the-code": (
        {"src/a.ts": "const k = 0;\n\n" + ONE + "\nconst z = 9;\n"},
        {"src/a.ts": "const k = 0;\nconst z = 9;\n", "src/b.ts": "// b\n\n" + ONE + "\n// end\n"},
        "2-6", ("moved", [2, 6], "src/b.ts", "one", "moved to src/b.ts")),
    # a declaration that loses `export` on its way to another module has moved, not changed
    "export-dropped-in-the-move": (
        {"src/a.ts": ONE + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/a2.ts": "export const unrelated = 0;\n",
         "src/b.ts": "// b\n" + ONE.removeprefix("export ")},
        "1-3", ("moved", [2, 4], "src/b.ts", "one", "moved to src/b.ts")),
    # the line right after the cited code is not part of what is looked for
    "the-next-line-stays-behind": (
        {"src/a.ts": ONE + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": "// b\n" + ONE + "const other = 5;\n"},
        "1-3", ("moved", [2, 4], "src/b.ts", "one", "moved to src/b.ts")),
    # a method moved and changed is found by its whole path (N.A.m), not by a file that only
    # mentions its name
    "a-method-moved-and-changed": (
        {"src/a.ts": METHOD + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": METHOD.replace("return 1", "return 2"),
         "src/c.ts": "import { N } from './b';\nnew N.A().m();\n"},
        "3-5", ("changed", [3, 5], "src/b.ts", "N.A.m", "N.A.m is now in src/b.ts, and its code changed")),
    # top-level code found twice: the place that is at the top level too is the one
    "top-level-code-also-inside-a-function": (
        {"src/a.ts": "compute();\n"},
        {"src/a.ts": "function f() {\n  compute();\n}\ncompute();\n"},
        "1", ("moved", [4, 4], "src/a.ts", "", "")),
    # code at the top level of a deleted file names nothing to look for: it is missing, even
    # where the same line stands at the top level of another file
    "top-level-code-of-a-deleted-file": (
        {"src/a.ts": 'console.log("hi");\n', "src/b.ts": OTHER_CODE},
        {"src/b.ts": OTHER_CODE + 'console.log("hi");\n'},
        "1", ("missing", None, "src/a.ts", "", "")),
    # the same code in two other files, under other names: nothing decides, both are named
    "found-in-two-other-files": (
        {"src/a.ts": ONE + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/c.ts": "// c\n" + ONE, "src/b.ts": "// b\n\n" + ONE},
        "1-3", ("ambiguous", None, "src/a.ts", "one", "found in several files: src/b.ts, src/c.ts")),
    # two copies, one under the same declaration path: that one is it
    "two-copies-one-under-the-same-path": (
        {"src/a.ts": METHOD + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": METHOD.replace("namespace N", "namespace M"),
         "src/c.ts": "// c\n" + METHOD},
        "3-5", ("moved", [4, 6], "src/c.ts", "N.A.m", "moved to src/c.ts")),
    # three copies, two under the same declaration path: the path does not decide, all three are named
    "three-copies-two-under-the-same-path": (
        {"src/a.ts": METHOD + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": METHOD.replace("namespace N", "namespace M"),
         "src/c.ts": "// c\n" + METHOD, "src/d.ts": "// d\n\n" + METHOD},
        "3-5", ("ambiguous", None, "src/a.ts", "N.A.m", "found in several files: src/b.ts, src/c.ts, src/d.ts")),
    # the declaration went to two other files and its code changed in both
    "declared-in-two-other-files-and-changed": (
        {"src/a.ts": METHOD + "const k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": METHOD.replace("return 1", "return 2"),
         "src/c.ts": METHOD.replace("return 1", "return 3")},
        "3-5", ("missing", None, "src/a.ts", "N.A.m", "N.A.m is declared in several other files: src/b.ts, src/c.ts")),
    # an exported constant is declared by its declarator, inside `export const`: it is followed
    # by that name when it went to another file and changed
    "an-exported-constant-moved-and-changed": (
        {"src/a.ts": "export const LIMIT = 3;\nconst k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": "// b\nexport const LIMIT = 4;\n"},
        "1", ("changed", [2, 2], "src/b.ts", "LIMIT", "LIMIT is now in src/b.ts, and its code changed")),
    "an-exported-constant-with-a-comment-moved-and-changed": (
        {"src/a.ts": "export /* the cap */ const LIMIT = 3;\nconst k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": "// b\nexport /* the cap */ const LIMIT = 4;\n"},
        "1", ("changed", [2, 2], "src/b.ts", "LIMIT", "LIMIT is now in src/b.ts, and its code changed")),
    # a decorator is not a declaration either (cited from the line under it, the class is the anchor)
    "a-decorated-class-moved-and-changed": (
        {"src/a.ts": "@sealed\nexport class A {\n  run() {}\n}\nconst k = 0;\n"},
        {"src/a.ts": "const k = 0;\n", "src/b.ts": "// b\n@sealed\nexport class A {\n  run() { return; }\n}\n"},
        "2-4", ("changed", [3, 5], "src/b.ts", "A", "A is now in src/b.ts, and its code changed")),
    # the file was renamed, but the cited code left it for a third file: it is followed there
    "renamed-file-without-the-code": (
        {"src/a.ts": OTHER_CODE + ONE},
        {"src/renamed.ts": OTHER_CODE, "src/c.ts": "// c\n" + ONE},
        "21-23", ("moved", [2, 4], "src/c.ts", "one", "moved to src/c.ts")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_code_that_left_its_file(tmp_path, capsys, name: str) -> None:
    before, after, lines, expected = CASES[name]
    project = make_project(tmp_path, {"1": before, "2": after}, {"D1": entry_yaml("D1", [("src/a.ts", lines)])})
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "json", "--quiet")
    [row] = run.json()["citations"]
    assert (row["status"], row["resolved"], row["resolved_file"], row["symbol"], row["detail"]) == expected
    assert run.code == 1
