"""What counts as the same code: whitespace, comments and files the resolver cannot parse.

A citation whose code only changed its spacing still holds (`ok`, or `moved` when its lines
moved); a change inside a string or to a comment's words is a change. These are the cases the
resolver's token comparison decides, after the cheap line-by-line comparison has failed.
"""

from __future__ import annotations

import pytest

from conftest import resolve_text
from generator.resolve import has_grammar


def test_spacing_inside_a_line_of_a_text_file_is_not_a_change() -> None:
    old = "# Title\n\nkeep  two   spaces\nnext line\n"
    new = "# Title\n\nkeep two spaces\nnext line, edited\n"
    # Only the cited line: its words are the same, so it holds where it was.
    assert resolve_text(old, new, (3, 3), "docs/notes.md") == ("ok", (3, 3), "")
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
