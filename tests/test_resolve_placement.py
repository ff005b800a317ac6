"""Where the resolver puts a citation whose code changed, how it names a range, and how the
lines around two equal places decide between them: the cases a whole-file fixture leaves out."""

from __future__ import annotations

import pytest

from conftest import resolve_text
from generator.citations.resolve import SourceFile, anchor_for, describe, place_elsewhere

STEPS = "function run() {\n" + "".join(f"\tstep{i}();\n" for i in range(1, 9)) + "}\n"


@pytest.mark.parametrize("new, cited, found", [
    # lines added right above the cited first line, with a change inside: they come along
    (STEPS.replace("\tstep3();\n", "\tinserted();\n\tstep3x();\n"), (4, 6), (4, 7)),
    (STEPS.replace("step3()", "step3x()"), (4, 6), (4, 6)),
    # lines added right above it, with a change further in: they come along too
    (STEPS.replace("\tstep3();\n", "\tinserted();\n\tstep3();\n").replace("step5()", "step5x()"), (4, 6), (4, 7)),
    # the cited first or last line deleted, another changed: the range shrinks from that side
    (STEPS.replace("\tstep3();\n", "").replace("step4()", "step4x()"), (4, 6), (4, 5)),
    (STEPS.replace("\tstep5();\n", "").replace("step4()", "step4x()"), (4, 6), (4, 5)),
    # the cited last lines deleted, nothing else: it ends on the line above them
    (STEPS.replace("\tstep5();\n", ""), (4, 6), (4, 5)),
    (STEPS.replace("\tstep4();\n\tstep5();\n", ""), (4, 6), (4, 4)),
    # the cited first lines deleted: it starts on the line after them
    (STEPS.replace("\tstep3();\n\tstep4();\n", ""), (4, 6), (4, 4)),
    # a line added right below the cited last line: it stays out
    (STEPS.replace("\tstep5();\n", "\tstep5();\n\tmore();\n").replace("step4()", "step4x()"), (4, 6), (4, 6)),
    # a range running past its declaration's end, moved down a line
    ("// h\n" + STEPS.replace("step8()", "step8x()") + "// note\n", (9, 11), (10, 12)),
])
def test_a_changed_citation_maps_its_lines_through_the_diff(new: str, cited, found) -> None:
    old = STEPS + ("// note\n" if cited == (9, 11) else "")
    assert resolve_text(old, new, cited) == ("changed", found, "run")


def test_a_changed_citation_that_cited_a_blank_line_above_starts_at_its_code() -> None:
    """(A moved one keeps its blank edges; a changed one is mapped from its declaration's lines.)"""
    old = STEPS + "\nfunction two() {\n\tstepA();\n}\n"
    assert resolve_text(old, "// h\n" + old.replace("stepA", "stepB"), (11, 14)) == ("changed", (13, 15), "two")


def test_a_changed_declaration_cited_with_blank_lines_around_it_is_mapped_whole() -> None:
    """Blank lines cited past the declaration have no row in its diff: the range ends (or starts)
    with the declaration's new text."""
    old = "function f() {\n\ta();\n\tb();\n}\n\nfunction g() {}\n"
    assert resolve_text(old, old.replace("a()", "a2()"), (1, 5)) == ("changed", (1, 4), "f")
    longer = old.replace("\ta();\n", "\ta();\n\ta();\n\ta();\n").replace("b()", "b2()")
    assert resolve_text(old, longer, (1, 5)) == ("changed", (1, 6), "f")
    assert resolve_text(old, old.replace("{}", "{\n\treturn 1;\n}"), (5, 6)) == ("changed", (6, 8), "g")


def test_the_lines_after_a_changed_declaration_do_not_pull_its_range() -> None:
    """The diff is of the declaration's old and new text: lines like the new ones that stood after
    it in the old file are no match for them."""
    old = "function f() {\n\tc();\n}\ng();\nb();\n"
    new = "function f() {\n\tg();\n\tb();\n}\ng();\nb();\n"
    assert resolve_text(old, new, (2, 2)) == ("changed", (2, 3), "f")
    # a body rewritten whole is shown whole, though the blank line after the old one is like one in it
    old = "function f() {\n\n\treturn 1;\n\tc();\n}\n\nc();\n"
    new = "function f() {\n\tif (x) {\n\t\tg();\n\t}\n\n\tg();\n}\n\nc();\n"
    assert resolve_text(old, new, (2, 4)) == ("changed", (2, 6), "f")


def test_changed_top_level_code_maps_through_the_whole_file() -> None:
    old = "import x from 'y';\n\nmain(1);\nmain(2);\nmain(3);\nmain(4);\n"
    assert resolve_text(old, "// a\n// b\n" + old.replace("main(3)", "main(33)"), (3, 5)) == ("changed", (5, 7), "")
    assert resolve_text(old, "// a\n" + old.replace("main(4)", "main(44)"), (5, 6)) == ("changed", (6, 7), "")
    # the file's first line is in it too
    assert resolve_text("main(1);\nmain(2);\n", "main(11);\nmain(2);\n", (1, 1)) == ("changed", (1, 1), "")


def test_a_changed_citation_in_a_long_function_of_repeated_lines_stays_its_size() -> None:
    """Past 200 lines difflib's default would treat a line repeated often as noise and match
    nothing around it: the cited five lines would become the whole function."""
    lines = ["\tcount++;"] * 240
    lines[120] = "\tmark();"
    old = "function run() {\n" + "\n".join(lines) + "\n}\n"
    new = old.replace("\tcount++;\n" * 3, "\tother();\n", 1).replace("\tmark();", "\tmarked();")
    outcome = resolve_text(old, new, (120, 124))
    marked = new.split("\n").index("\tmarked();") + 1
    assert outcome.status == "changed" and outcome.lines[0] <= marked <= outcome.lines[1]
    assert outcome.lines[1] - outcome.lines[0] < 5


def test_a_moved_range_over_more_than_three_declarations_names_three_and_an_ellipsis() -> None:
    functions = "".join(f"function f{i}() {{\n\treturn {i};\n}}\n" for i in range(1, 6))
    assert resolve_text(functions, "// h\n" + functions, (1, 12)) == ("moved", (2, 13), "f1, f2, f3, …")
    assert resolve_text(functions, "// h\n" + functions, (1, 9)) == ("moved", (2, 10), "f1, f2, f3")


def test_code_spelled_the_same_without_its_spaces_is_a_change() -> None:
    """`typeof v` and `typeofv` have the same characters but not the same tokens."""
    old = "function kind(v) {\n\treturn typeof v;\n}\n"
    new = "// h\n" + old.replace("typeof v", "typeofv")
    assert resolve_text(old, new, (1, 3)) == ("changed", (2, 4), "kind")


def _describe(text: str, first: int, last: int) -> str:
    return describe(SourceFile("src/x.ts", text.encode()), first - 1, last - 1)


def test_a_range_is_named_by_its_code_not_its_blank_edges() -> None:
    text = "const a = 1;\n\n\nfunction f() {\n\treturn a;\n}\n\n\nconst b = 2;\n"
    assert _describe(text, 2, 8) == "f"
    assert _describe(text, 2, 3) == "" and _describe(text, 7, 8) == ""
    # one blank line on either side of a method: the method, not its class
    methods = "class A {\n\tone() {}\n\n\ttwo() {}\n}\n"
    assert _describe(methods, 2, 3) == "A.one" and _describe(methods, 3, 4) == "A.two"


def test_a_range_over_many_declarations_names_three() -> None:
    text = "".join(f"function f{i}() {{\n\treturn {i};\n}}\n" for i in range(4))
    assert _describe(text, 1, 12) == "f0, f1, f2, …"
    assert _describe(text, 1, 9) == "f0, f1, f2"


def _twins(above_x: list[str], above_y: list[str]) -> str:
    twin = "function twin() {\n\treturn 7;\n}\n"
    return "".join(f"{line}\n" for line in reversed(above_x)) + twin + \
        "".join(f"{line}\n" for line in reversed(above_y)) + twin


CONTEXT = [f"const c{i} = {i};" for i in range(1, 32)]  # nearest first


@pytest.mark.parametrize("x_differs_at, decided", [
    (1, True),    # the line right above differs: the other place is the one
    (30, True),   # thirty lines are compared above each place
    (31, False),  # not thirty-one: nothing decides
])
def test_the_lines_above_two_equal_places_decide_up_to_thirty_lines(x_differs_at: int, decided: bool) -> None:
    old = "".join(f"{line}\n" for line in reversed(CONTEXT)) + "function twin() {\n\treturn 7;\n}\n"
    cited = (len(CONTEXT) + 1, len(CONTEXT) + 3)
    x = list(CONTEXT)
    x[x_differs_at - 1] = "const other = 0;"
    new = _twins(x, CONTEXT)
    second = 2 * len(CONTEXT) + 3 + 1
    expected = ("moved", (second, second + 2), "twin") if decided else ("ambiguous", None, "twin")
    assert resolve_text(old, new, cited) == expected


def test_code_that_left_its_file_is_found_past_a_near_copy() -> None:
    """The other file holds the code twice under the same name: first with other spaces inside its
    string (a different string), then as cited."""
    source = SourceFile("src/a.ts", b'export function one(): string {\n\treturn "a b";\n}\n')
    other = SourceFile("src/b.ts", b'function one(): string {\n\treturn "a  b";\n}\n\n'
                                   b'export function one(): string {\n\treturn "a b";\n}\n')
    [(target, placement)] = place_elsewhere(anchor_for(source, 0, 2), source, [other])
    assert (target.path, placement.status, placement.rows) == ("src/b.ts", "moved", (4, 6))


def test_a_cited_blank_line_above_is_not_taken_for_the_context() -> None:
    """The lines compared above a place start above the cited code, past its blank lines."""
    old = "".join(f"{line}\n" for line in reversed(CONTEXT)) + "\nfunction twin() {\n\treturn 7;\n}\n"
    cited = (len(CONTEXT) + 1, len(CONTEXT) + 4)  # the blank line and the function
    x = list(CONTEXT)
    x[0] = "const other = 0;"
    new = _twins(x, CONTEXT).replace("function twin", "\nfunction twin")
    second = 2 * len(CONTEXT) + 4 + 1
    assert resolve_text(old, new, cited) == ("moved", (second, second + 3), "twin")


def test_the_lines_below_a_cited_blank_line_decide_between_two_places() -> None:
    """The lines compared below a place start below the cited code, at its blank lines; one line
    alike on one side is enough when every other place has none."""
    old = "step();\n\nbeta();\n"
    new = "step();\n\ngamma();\nstep();\n\nbeta();\n"
    assert resolve_text(old, new, (1, 2)) == ("moved", (4, 5), "")


def test_a_file_that_is_not_code_rewrapped_is_changed() -> None:
    """Without a grammar, lines are compared as lines: the same words wrapped otherwise are a change."""
    old = "# Notes\n\nSome text here.\nMore.\n"
    assert resolve_text(old, old.replace("Some text here.", "Some text\nhere."), (3, 3), "NOTES.md").status == "changed"


def test_source_bytes_that_are_not_utf_8_are_compared_all_the_same() -> None:
    """A Latin-1 byte in a string: its code is read with a replacement character, not refused."""
    old = SourceFile("src/a.ts", b'function f() {\n\treturn "caf\xe9" + x;\n}\n')
    new = SourceFile("src/a.ts", b'// h\nfunction f() {\n\treturn "caf\xe9"+x;\n}\n')
    from generator.citations.resolve import place
    placement = place(anchor_for(old, 0, 2), old, new)
    assert (placement.status, placement.rows) == ("moved", (1, 3))


@pytest.mark.parametrize("text, rows, name", [
    ("export const LIMIT = 3;\n", (1, 1), "LIMIT"),
    ("export /* the cap */ const LIMIT = 3;\n", (1, 1), "LIMIT"),  # a comment is not a declaration
    ("export const A = 1, B = 2;\n", (1, 1), "A, B"),
    ("@sealed\nexport class A {\n\trun() {}\n}\n", (1, 4), "A"),  # nor is a decorator
    ("export const f = () => {\n\treturn 1;\n};\n", (1, 3), "f"),
])
def test_a_whole_exported_declaration_is_named_by_its_declarator(text: str, rows, name: str) -> None:
    assert _describe(text, *rows) == name


@pytest.mark.parametrize("text, row, name", [
    ("class A {\n\t[Symbol.iterator]() {\n\t\treturn 1;\n\t}\n}\n", 3, "A"),  # a computed name names nothing
    ("const A = class {\n\trun() {\n\t\treturn 1;\n\t}\n};\n", 3, "A.run"),  # nor does a class without one
    ("export default function () {\n\treturn 1;\n}\n", 2, ""),
    ('const config = {\n\t"max-turns": () => {\n\t\treturn 1;\n\t},\n};\n', 3, "config.max-turns"),
    ("const o = {\n\t'quoted': 1,\n};\n", 2, "o.quoted"),
    ("class XBox {\n\trun() {\n\t\treturn 1;\n\t}\n}\n", 3, "XBox.run"),
    ("namespace N {\n\tfunction inner() {\n\t\treturn 1;\n\t}\n}\n", 4, "N.inner"),  # its closing brace alone
])
def test_a_range_is_named_by_the_declarations_around_it(text: str, row: int, name: str) -> None:
    assert _describe(text, row, row) == name


def test_a_range_from_inside_a_method_to_a_comment_after_it_is_named_by_the_class() -> None:
    assert _describe("class A {\n\tm() {\n\t\treturn 1;\n\t}\n\t// end\n}\n", 3, 5) == "A"


def test_a_name_that_is_not_utf_8_is_read_with_a_replacement_character() -> None:
    text = b'const o = {\n\t"caf\xe9": () => {\n\t\treturn 1;\n\t},\n};\n'
    assert describe(SourceFile("src/x.ts", text), 2, 2) == "o.caf\ufffd"


def test_cited_blank_lines_at_the_top_of_a_file_move_with_the_code_and_no_further() -> None:
    old = "\n\nfunction f() {\n\treturn 1;\n}\n"
    assert resolve_text(old, "\nfunction f() {\n\treturn 1;\n}\n\n", (1, 5)) == ("moved", (1, 4), "f")


def test_a_declaration_that_gained_export_in_its_own_file_is_changed() -> None:
    """`export` is ignored only for code that went to another module (where it often comes or goes)."""
    old = "function f() {\n\treturn 1;\n}\n"
    assert resolve_text(old, "// h\n" + old.replace("function f", "export function f"), (1, 3)) == \
        ("changed", (2, 4), "f")
