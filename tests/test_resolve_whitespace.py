"""What counts as the same code: whitespace, comments and files the resolver cannot parse.

A citation whose code only changed its spacing still holds (`ok`, or `moved` when its lines
moved); a change inside a string or to a comment's words is a change. These are the cases the
resolver's token comparison decides, after the cheap line-by-line comparison has failed.
"""

from __future__ import annotations

import pytest

from conftest import resolve_text
from generator.citations.resolve import has_grammar


def test_spacing_inside_a_line_of_a_text_file_is_not_a_change() -> None:
    old = "# Title\n\nkeep  two   spaces\nnext line\n"
    new = "# Title\n\nkeep two spaces\nnext line, edited\n"
    # Only the cited line: its words are the same, so it holds where it was.
    assert resolve_text(old, new, (3, 3), "docs/notes.md") == ("ok", (3, 3), "")
    # Spaces added where there were none are not a change either.
    assert resolve_text("a+b\nz\n", "a + b\nz\n", (1, 1), "notes.txt") == ("ok", (1, 1), "")
    # With the edited line after it, the citation covers a real change.
    assert resolve_text(old, new, (3, 4), "docs/notes.md").status == "changed"


def test_a_doc_comment_reflowed_with_its_code_still_holds() -> None:
    old = ("export function limit(a: number, b: number): number {\n"
           "\t/*  the smaller\n"
           "\t    of the two */\n"
           "\treturn Math.min(\n\t\ta,\n\t\tb\n\t);\n}\n")
    new = ("export function limit(a: number, b: number): number {\n"
           "\t/* the smaller\n"
           "\t   of the  two */\n"
           "\treturn Math.min(a, b);\n}\n")
    assert resolve_text(old, new, (2, 7)) == ("moved", (2, 4), "limit")


def test_a_comment_whose_words_changed_is_a_change_even_when_reflowed() -> None:
    old = "export function f(): number {\n\t/* keep\n\t   this */\n\treturn g(\n\t\t1,\n\t);\n}\n"
    new = "export function f(): number {\n\t/* drop\n\t   this */\n\treturn g(1);\n}\n"
    assert resolve_text(old, new, (2, 6)).status == "changed"


@pytest.mark.parametrize("path, parsed", [
    ("packages/agent/src/agent-loop.ts", True),
    ("src/view.tsx", True),
    ("src/old.cjs", True),
    ("src/session.test.ts", True),  # the last suffix decides
    ("src/types.d.ts", True),
    ("README.md", False),
    ("package.json", False),
    ("Makefile", False),  # no suffix at all
    ("v1.0/Makefile", False),  # a dot in a folder name is not a suffix
    ("src/ts", False),
    ("src/file.ts.orig", False),
])
def test_which_files_are_parsed_as_code(path: str, parsed: bool) -> None:
    assert has_grammar(path) is parsed


# --- where changed code is now ------------------------------------------------------------------
# A `changed` citation still gets a range: the lines that now stand where the cited ones were,
# mapped through a line diff of its declaration. `bump` writes it into the edition record and
# shows it to the person who re-reads the entry; these are hand-computed.

STEPS = "export function f(a: number): number {\n\tconst x = a + 1;\n\tconst y = x * 2;\n\tconst z = y - 3;\n\treturn z;\n}\n"


def test_a_line_inserted_at_the_start_of_changed_code_joins_its_range() -> None:
    new = STEPS.replace("\tconst y = x * 2;\n", "\tlog(a);\n\tconst y = x * 5;\n")
    assert resolve_text(STEPS, new, (3, 4)) == ("changed", (3, 5), "f")


def test_a_deleted_first_line_shrinks_the_range() -> None:
    assert resolve_text(STEPS, STEPS.replace("\tconst y = x * 2;\n", ""), (3, 4)) == ("changed", (3, 3), "f")


def test_a_last_line_replaced_by_two_grows_the_range() -> None:
    new = STEPS.replace("\tconst z = y - 3;\n", "\tconst z = y - 4;\n\tcheck(z);\n")
    assert resolve_text(STEPS, new, (3, 4)) == ("changed", (3, 5), "f")


def test_changed_top_level_code_follows_lines_added_above_it() -> None:
    old = "setup();\nconst a = 1;\nconst b = 2;\nrun(a, b);\n"
    assert resolve_text(old, "// one\n// two\n" + old.replace("run(a, b)", "run(b, a)"), (3, 4)).lines == (5, 6)


def test_changed_code_in_the_second_of_two_same_named_methods_stays_in_the_second() -> None:
    old = "class A {\n\ttwin(): number {\n\t\treturn 7;\n\t}\n\n\ttwin(): number {\n\t\tconst k = 1;\n\t\treturn 8;\n\t}\n}\n"
    new = old.replace("return 8", "return 9").replace("\t\tconst k = 1;\n", "\t\tconst k = 1;\n\t\tlog();\n")
    assert resolve_text(old, new, (7, 8)) == ("changed", (7, 9), "A.twin")


def test_changed_code_in_a_long_function_of_repeated_lines() -> None:
    # 300 lines, most of them one of three repeated calls: a diff that treats frequent lines as
    # noise would lose its place here.
    body = "".join(f"\tstep({i % 3});\n" if i % 10 else f"\tmark({i});\n" for i in range(300))
    old = "export function big(): void {\n" + body + "}\n"
    new = old.replace("\tmark(250);\n", "\tmark(250);\n\textra();\n").replace("\tmark(280);\n", "\tmark(281);\n")
    assert resolve_text(old, new, (280, 284)) == ("changed", (281, 285), "big")


def test_changed_code_whose_same_named_sibling_was_deleted() -> None:
    # The second of two same-named methods is cited; the first is deleted and the cited one changed:
    # the range is read in the one left.
    old = "class A {\n\ttwin(): number {\n\t\treturn 7;\n\t}\n\n\ttwin(): number {\n\t\tconst k = 1;\n\t\treturn 8;\n\t}\n}\n"
    new = "class A {\n\ttwin(): number {\n\t\tconst k = 1;\n\t\treturn 9;\n\t}\n}\n"
    assert resolve_text(old, new, (7, 8)) == ("changed", (3, 4), "A.twin")
