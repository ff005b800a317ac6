"""The resolver, one small TypeScript fixture per citation shape pi's own map uses.

Each shape is resolved against edited copies of itself: unchanged, moved, re-indented, changed,
deleted, and duplicated (where nothing decides, where the anchor's declaration does, where the
neighbouring lines do). Ranges are 1-based and inclusive, as in the YAML. The last tests go end to
end: a git repository with two tagged versions, through `python -m generator verify`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import entry_yaml, make_project, resolve_text, run_cli, text_lines


@dataclass(frozen=True)
class Shape:
    name: str
    source: str
    lines: tuple[int, int]  # the citation
    symbol: str  # what verify shows for it
    change: tuple[str, str]  # a token inside the cited range, and its replacement
    delete: str  # the declaration(s) to remove: then nothing of the anchor is left
    declaration: tuple[int, int]  # the top-level declaration(s) holding the range


WHOLE_METHOD = Shape(
    name="whole method",
    source="""import { writeFileSync } from "node:fs";

export class Session {
\tprivate count = 0;

\tconstructor(private readonly name: string) {}

\tasync run(input: string): Promise<void> {
\t\tfor (const part of input.split(",")) {
\t\t\tthis.count += part.length;
\t\t}
\t\tawait this.flush();
\t}

\tprivate async flush(): Promise<void> {
\t\tif (this.count > 10) {
\t\t\twriteFileSync(this.name, String(this.count));
\t\t}
\t\tthis.count = 0;
\t}
}
""",
    lines=(15, 20),
    symbol="Session.flush",
    change=("> 10", "> 20"),
    delete="""
\tprivate async flush(): Promise<void> {
\t\tif (this.count > 10) {
\t\t\twriteFileSync(this.name, String(this.count));
\t\t}
\t\tthis.count = 0;
\t}
""",
    declaration=(3, 21),
)

WHOLE_FUNCTION = Shape(
    name="whole function",
    source="""import { readFileSync } from "node:fs";

const DEFAULTS = { theme: "dark" };

export function loadSettings(path: string): Settings {
\tconst text = readFileSync(path, "utf8");
\tconst parsed = JSON.parse(text) as Partial<Settings>;
\treturn { ...DEFAULTS, ...parsed };
}

export function settingsPath(home: string): string {
\treturn `${home}/.pi/settings.json`;
}
""",
    lines=(5, 9),
    symbol="loadSettings",
    change=('"utf8"', '"latin1"'),
    delete="""export function loadSettings(path: string): Settings {
\tconst text = readFileSync(path, "utf8");
\tconst parsed = JSON.parse(text) as Partial<Settings>;
\treturn { ...DEFAULTS, ...parsed };
}
""",
    declaration=(5, 9),
)

RUN_TURN = """export async function runTurn(session: Session, input: string): Promise<Result> {
\tconst started = Date.now();
\tlet attempts = 0;
\tconst messages = [...session.history, { role: "user", content: input }];
\twhile (attempts < 3) {
\t\tattempts++;
\t\tconst reply = await session.model.complete(messages);
\t\tif (reply.stopReason === "length") {
\t\t\tmessages.push({ role: "user", content: "continue" });
\t\t\tcontinue;
\t\t}
\t\tif (reply.toolCalls.length > 0) {
\t\t\tawait session.runTools(reply.toolCalls);
\t\t}
\t\treturn { reply, elapsed: Date.now() - started };
\t}
\tthrow new Error("no reply after 3 attempts");
}
"""

SUB_BLOCK = Shape(
    name="sub-block inside a long function",
    source=RUN_TURN,
    lines=(8, 11),
    symbol="runTurn",
    change=('"length"', '"max_tokens"'),
    delete=RUN_TURN,  # the function is the whole file
    declaration=(1, 18),
)

TWO_LINES_IN_METHOD = Shape(
    name="two lines inside a method",
    source="""export class Compactor {
\tconstructor(private readonly limit: number) {}

\tshouldCompact(tokens: number, reserve: number): boolean {
\t\tconst budget = this.limit - reserve;
\t\tconst threshold = budget * 0.8;
\t\tif (tokens <= threshold) return false;
\t\treturn true;
\t}

\tdescribe(): string {
\t\treturn `limit ${this.limit}`;
\t}
}
""",
    lines=(6, 7),
    symbol="Compactor.shouldCompact",
    change=("0.8", "0.9"),
    delete="""\tshouldCompact(tokens: number, reserve: number): boolean {
\t\tconst budget = this.limit - reserve;
\t\tconst threshold = budget * 0.8;
\t\tif (tokens <= threshold) return false;
\t\treturn true;
\t}

""",
    declaration=(1, 14),
)

ONE_LINE_OF_STATEMENT = Shape(
    name="one line of a multi-line statement",
    source="""export function visibleNames(entries: Entry[]): string[] {
\tconst visible = entries
\t\t.filter((entry) => !entry.hidden)
\t\t.map((entry) => entry.name);
\treturn visible.sort();
}
""",
    lines=(3, 3),
    symbol="visibleNames.visible",
    change=("!entry.hidden", "entry.shown"),
    delete="""\tconst visible = entries
\t\t.filter((entry) => !entry.hidden)
\t\t.map((entry) => entry.name);
\treturn visible.sort();
""",
    declaration=(1, 6),
)

OBJECT_PROPERTY = Shape(
    name="one property of an object literal",
    source="""export const DEFAULT_SETTINGS = {
\ttheme: "dark",
\tautoCompact: true,
\tmaxRetries: 3,
};
""",
    lines=(3, 3),
    symbol="DEFAULT_SETTINGS.autoCompact",
    change=("true", "false"),
    delete="\tautoCompact: true,\n",
    declaration=(1, 5),
)

THREE_SIBLINGS = Shape(
    name="three sibling top-level functions",
    source="""import type { Message } from "./types";

export function isAbort(error: Error): boolean {
\treturn error.name === "AbortError";
}

export function isTimeout(error: Error): boolean {
\treturn error.message.includes("timed out");
}

export function isOverflow(error: Error): boolean {
\treturn /context length/i.test(error.message);
}

export function describe(message: Message): string {
\treturn message.role;
}
""",
    lines=(3, 13),
    symbol="isAbort, isTimeout, isOverflow",
    change=('"timed out"', '"timeout"'),
    delete="""export function isAbort(error: Error): boolean {
\treturn error.name === "AbortError";
}

export function isTimeout(error: Error): boolean {
\treturn error.message.includes("timed out");
}

export function isOverflow(error: Error): boolean {
\treturn /context length/i.test(error.message);
}

""",
    declaration=(3, 13),
)

FROM_DOC_COMMENT = Shape(
    name="range starting inside a doc comment",
    source="""export const RATIO = 0.8;

/**
 * Decides whether to compact.
 * Returns true when the context is over the threshold.
 */
export function shouldCompact(tokens: number, limit: number): boolean {
\treturn tokens > limit * RATIO;
}

export function other(): void {}
""",
    lines=(5, 9),
    symbol="shouldCompact",
    change=("* RATIO", "* 2"),
    delete="""/**
 * Decides whether to compact.
 * Returns true when the context is over the threshold.
 */
export function shouldCompact(tokens: number, limit: number): boolean {
\treturn tokens > limit * RATIO;
}
""",
    declaration=(3, 9),
)

ACROSS_DECLARATIONS = Shape(
    name="range running from one declaration into the next",
    source="""export function first(items: string[]): string {
\tconst head = items[0];
\treturn head ?? "";
}

export function last(items: string[]): string {
\treturn items[items.length - 1] ?? "";
}

export const NONE = "";
""",
    lines=(3, 8),
    symbol="first, last",
    change=("- 1", "- 2"),
    delete="""export function first(items: string[]): string {
\tconst head = items[0];
\treturn head ?? "";
}

export function last(items: string[]): string {
\treturn items[items.length - 1] ?? "";
}
""",
    declaration=(1, 8),
)

SHAPES = [WHOLE_METHOD, WHOLE_FUNCTION, SUB_BLOCK, TWO_LINES_IN_METHOD, ONE_LINE_OF_STATEMENT,
          OBJECT_PROPERTY, THREE_SIBLINGS, FROM_DOC_COMMENT, ACROSS_DECLARATIONS]
by_shape = pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])

HEADER = 'import { a } from "a";\nimport { b } from "b";\n\n'  # three lines of code above


def shifted(lines: tuple[int, int], by: int) -> tuple[int, int]:
    return lines[0] + by, lines[1] + by


def test_fixtures_cite_what_they_say() -> None:
    """Guard the fixtures themselves: the edits hit the cited text, the deletions exist."""
    for shape in SHAPES:
        cited = text_lines(shape.source, shape.lines)
        assert shape.change[0] in cited, shape.name
        assert shape.source.count(shape.change[0]) == 1, shape.name
        assert shape.delete in shape.source, shape.name


@by_shape
def test_unchanged_is_ok(shape: Shape) -> None:
    assert resolve_text(shape.source, shape.source, shape.lines) == ("ok", shape.lines, shape.symbol)


@by_shape
def test_code_inserted_above_is_moved(shape: Shape) -> None:
    outcome = resolve_text(shape.source, HEADER + shape.source, shape.lines)
    assert outcome == ("moved", shifted(shape.lines, 3), shape.symbol)


@by_shape
def test_reindented_only_is_ok(shape: Shape) -> None:
    outcome = resolve_text(shape.source, shape.source.replace("\t", "  "), shape.lines)
    assert outcome == ("ok", shape.lines, shape.symbol)


@by_shape
def test_reindented_and_moved_is_moved(shape: Shape) -> None:
    outcome = resolve_text(shape.source, "\n" + shape.source.replace("\t", "    "), shape.lines)
    assert outcome == ("moved", shifted(shape.lines, 1), shape.symbol)


@by_shape
def test_token_edited_inside_is_changed(shape: Shape) -> None:
    outcome = resolve_text(shape.source, shape.source.replace(*shape.change), shape.lines)
    assert outcome == ("changed", shape.lines, shape.symbol)


@by_shape
def test_token_edited_and_moved_gives_the_new_range(shape: Shape) -> None:
    outcome = resolve_text(shape.source, HEADER + shape.source.replace(*shape.change), shape.lines)
    assert outcome == ("changed", shifted(shape.lines, 3), shape.symbol)


@by_shape
def test_declaration_deleted_is_missing(shape: Shape) -> None:
    outcome = resolve_text(shape.source, shape.source.replace(shape.delete, ""), shape.lines)
    assert outcome == ("missing", None, shape.symbol)


@by_shape
def test_file_deleted_is_missing(shape: Shape) -> None:
    assert resolve_text(shape.source, None, shape.lines) == ("missing", None, shape.symbol)


@by_shape
def test_duplicated_where_nothing_decides_is_ambiguous(shape: Shape) -> None:
    # The whole file twice: the same names, the same code, the same lines around it.
    outcome = resolve_text(shape.source, shape.source + shape.source, shape.lines)
    assert outcome == ("ambiguous", None, shape.symbol)


@by_shape
def test_duplicated_where_the_surrounding_lines_decide(shape: Shape) -> None:
    # The same declaration(s) again, under the same names: only the original still has the cited
    # code's neighbours (here, a first line) around it.
    source = "// first\n" + shape.source
    lines = shifted(shape.lines, 1)
    twin = text_lines(shape.source, shape.declaration)
    outcome = resolve_text(source, source + "\n" + twin + "\n", lines)
    assert outcome == ("ok", lines, shape.symbol)
    outcome = resolve_text(source, twin + "\n\n" + source, lines)
    assert outcome == ("moved", shifted(lines, twin.count("\n") + 2), shape.symbol)


@by_shape
def test_duplicated_where_the_anchor_decides(shape: Shape) -> None:
    # The same code again above, inside a namespace: its declaration path differs from the anchor's.
    twin = text_lines(shape.source, shape.declaration)
    decoy = "namespace legacy {\n" + twin + "\n}\n\n"
    outcome = resolve_text(shape.source, decoy + shape.source, shape.lines)
    assert outcome == ("moved", shifted(shape.lines, decoy.count("\n")), shape.symbol)
    outcome = resolve_text(shape.source, shape.source + "\n" + decoy, shape.lines)
    assert outcome == ("ok", shape.lines, shape.symbol)


# --- moves and edits inside the anchor ------------------------------------------------------------


def test_lines_inserted_inside_the_method_above_the_range() -> None:
    new = TWO_LINES_IN_METHOD.source.replace("\t\tconst budget", "\t\tlog(tokens);\n\t\tconst budget")
    assert resolve_text(TWO_LINES_IN_METHOD.source, new, (6, 7)) == ("moved", (7, 8), "Compactor.shouldCompact")


def test_method_moved_below_its_sibling() -> None:
    source = WHOLE_METHOD.source
    method = text_lines(source, (14, 20)) + "\n"  # the blank line above it, and the method
    new = source.replace(method, "").replace("\tconstructor", method.lstrip("\n") + "\n\tconstructor")
    outcome = resolve_text(source, new, (15, 20))
    assert outcome == ("moved", (6, 11), "Session.flush")
    assert text_lines(new, (6, 11)) == text_lines(source, (15, 20))


def test_rewrapped_statement_is_moved_with_its_new_length() -> None:
    old = "function f(a: number, b: number) {\n\treturn g(\n\t\ta,\n\t\tb,\n\t);\n}\n"
    new = "function f(a: number, b: number) {\n\treturn g(a, b,);\n}\n"
    assert resolve_text(old, new, (1, 6)) == ("moved", (1, 3), "f")
    assert resolve_text(old, new, (2, 5)) == ("moved", (2, 2), "f")


def test_whitespace_inside_a_string_is_a_change() -> None:
    old = 'export function greet(): string {\n\treturn "hello world";\n}\n'
    new = old.replace("hello world", "hello  world")
    assert resolve_text(old, new, (2, 2)).status == "changed"
    assert resolve_text(old, new.replace('"hello  world"', '"helloworld"'), (2, 2)).status == "changed"


def test_comment_edited_inside_the_range_is_a_change() -> None:
    old = FROM_DOC_COMMENT.source
    new = old.replace("over the threshold", "above the threshold")
    assert resolve_text(old, new, (5, 9)) == ("changed", (5, 9), "shouldCompact")


def test_blank_lines_around_the_cited_code_move_with_it() -> None:
    old = "const a = 1;\n\nfunction f() {\n\treturn a;\n}\n\nconst b = 2;\n"
    assert resolve_text(old, "// x\n" + old, (2, 6)) == ("moved", (3, 7), "f")
    # one or two of the three blank lines under a function: the blank lines left out do not count
    old = "function f() {\n\ta();\n}\n\n\n\nfunction g() {}\n"
    assert resolve_text(old, "// x\n" + old, (1, 4)) == ("moved", (2, 5), "f")
    assert resolve_text(old, "// x\n" + old, (1, 5)) == ("moved", (2, 6), "f")
    # two blank lines above it, under other code: the anchor starts at its code all the same
    old = "const a = 1;\n\n\nfunction f() {\n\treturn a;\n}\n"
    assert resolve_text(old, "// x\n" + old, (2, 6)) == ("moved", (3, 7), "f")


def test_same_lines_twice_in_one_method_keep_their_order() -> None:
    old = ("class A {\n\trun() {\n\t\tstep();\n\t\tcheck();\n\t\tlog();\n\t\tstep();\n\t\tcheck();\n\t}\n}\n")
    new = old.replace("\t\tlog();\n", "\t\tlog();\n\t\tlog();\n")
    assert resolve_text(old, new, (3, 4)) == ("ok", (3, 4), "A.run")
    assert resolve_text(old, new, (6, 7)) == ("moved", (7, 8), "A.run")
    # A third copy: the lines around each tell which one was meant.
    third = old.replace("\t\tlog();\n", "\t\tstep();\n\t\tcheck();\n\t\tlog();\n")
    assert resolve_text(old, third, (6, 7)) == ("moved", (8, 9), "A.run")
    # The first pair: one place has its neighbours above, another those below; nothing decides.
    assert resolve_text(old, third, (3, 4)) == ("ambiguous", None, "A.run")
    # Three pairs in a row, where there were two with a line between: the last one still ends the
    # method, as the cited one did.
    alike = old.replace("\t\tlog();\n", "\t\tstep();\n\t\tcheck();\n")
    assert resolve_text(old, alike, (6, 7)) == ("moved", (7, 8), "A.run")


def test_same_lines_twice_with_every_line_around_them_changed_keep_their_order() -> None:
    # Nothing around the two places is as it was: their order in the method decides.
    old = "function run() {\n\ta();\n\tstep();\n\tb();\n\tstep();\n\tc();\n}\n"
    new = "// h\nfunction run() {\n\tx();\n\tstep();\n\ty();\n\tstep();\n\tz();\n}\n"
    assert resolve_text(old, new, (3, 3)) == ("moved", (4, 4), "run")
    assert resolve_text(old, new, (5, 5)) == ("moved", (6, 6), "run")


def test_the_order_counts_only_the_places_inside_the_declaration_up_to_its_last_line() -> None:
    # `step();` and a closing brace: twice in run (the second time ending run), once in other;
    # nothing around them is as it was
    old = "function other() {\n\tstep();\n}\n\nfunction run() {\n\ta();\n\tif (x) {\n\t\tstep();\n\t}\n\tstep();\n}\n"
    new = ("// h\nfunction other() {\n\tstep();\n}\n\nfunction run() {\n\twhile (y) {\n\t\tstep();\n\t}\n"
           "\tz();\n\tstep();\n}\n")
    assert resolve_text(old, new, (10, 11)) == ("moved", (11, 12), "run")
    assert resolve_text(old, new, (8, 9)) == ("ok", (8, 9), "run")


def test_closing_braces_that_overlap_their_copies_are_found_at_their_own_place() -> None:
    # two closing braces, one under the other, are there twice in the three that end f: the second
    # copy starts on the first one's last line
    old = "function f() {\n\tif (a) {\n\t\tif (b) {\n\t\t\tg();\n\t\t}\n\t}\n}\n"
    assert resolve_text(old, "// h\n" + old, (6, 7)) == ("moved", (7, 8), "f")
    assert resolve_text(old, "// h\n" + old, (5, 6)) == ("moved", (6, 7), "f")


def test_same_lines_in_a_sibling_method_do_not_confuse() -> None:
    old = "class A {\n\tone() {\n\t\tstep();\n\t}\n\n\ttwo() {\n\t\tother();\n\t}\n}\n"
    new = old.replace("\t\tother();\n", "\t\tother();\n\t\tstep();\n").replace("\tone() {\n", "\tone() {\n\t\tprep();\n")
    assert resolve_text(old, new, (3, 3)) == ("moved", (4, 4), "A.one")


def test_nested_declaration_inside_the_anchor_decides() -> None:
    old = "function outer() {\n\tstep();\n\tfinish();\n}\n"
    new = ("function outer() {\n\tconst inner = () => {\n\t\tstep();\n\t\tfinish();\n\t};\n"
           "\tstep();\n\tfinish();\n}\n")
    assert resolve_text(old, new, (2, 3)) == ("moved", (6, 7), "outer")


def test_code_moved_into_a_function_nested_in_its_declaration_beats_a_copy_elsewhere() -> None:
    # Neither place is directly under `outer` and the lines around them do not decide: the one
    # inside `outer` is it.
    old = "function outer() {\n\tstep();\n}\n\nfunction other() {\n\tlog();\n}\n"
    new = "function outer() {\n\tfunction inner() {\n\t\tstep();\n\t}\n}\n\nfunction other() {\n\tstep();\n}\n"
    assert resolve_text(old, new, (2, 2)) == ("moved", (3, 3), "outer")


def test_method_renamed_with_its_body_unchanged_is_found() -> None:
    old = "class A {\n\tfirst() {\n\t\treturn compute(1);\n\t}\n}\n"
    new = old.replace("first()", "second()")
    # The cited body still stands, alone, in the file: only the anchor's name went.
    assert resolve_text(old, new, (3, 3)) == ("ok", (3, 3), "A.first")
    assert resolve_text(old, "\n" + new, (3, 3)) == ("moved", (4, 4), "A.first")
    # Citing the whole method includes the old name: that code is gone.
    assert resolve_text(old, new, (2, 4)) == ("missing", None, "A.first")


def test_one_of_three_siblings_deleted_is_changed() -> None:
    shape = THREE_SIBLINGS
    new = shape.source.replace('export function isTimeout(error: Error): boolean {\n'
                               '\treturn error.message.includes("timed out");\n}\n\n', "")
    outcome = resolve_text(shape.source, new, shape.lines)
    assert outcome.status == "changed"
    assert outcome.lines is not None and outcome.lines[0] == 3


def test_top_level_statements_without_a_declaration() -> None:
    old = 'import { main } from "./main";\n\nmain(process.argv);\nprocess.exitCode = 0;\n'
    assert resolve_text(old, "// header\n" + old, (3, 4)) == ("moved", (4, 5), "")
    assert resolve_text(old, old.replace("= 0", "= 1"), (3, 4)).status == "changed"


@pytest.mark.parametrize("path", ["src/view.tsx", "src/legacy.js", "src/module.mjs", "src/v1.2/lib.ts"])
def test_tsx_and_javascript_files(path: str) -> None:
    body = "\treturn <div>{props.label}</div>;\n" if path.endswith("tsx") else "\treturn props.label;\n"
    old = f"export function Label(props) {{\n{body}}}\n\nexport function Other() {{}}\n"
    assert resolve_text(old, old, (1, 3), path) == ("ok", (1, 3), "Label")
    assert resolve_text(old, "\n\n" + old, (2, 2), path) == ("moved", (4, 4), "Label")
    assert resolve_text(old, "\n" + old.replace("Label(props)", "Caption(props)"), (2, 2), path).status == "moved"
    assert resolve_text(old, old.replace("label", "text"), (2, 2), path) == ("changed", (2, 2), "Label")


def test_a_file_that_is_not_code_resolves_by_its_text() -> None:
    old = "# Title\n\nSome text.\nMore text.\n"
    assert resolve_text(old, "Intro.\n" + old, (3, 4), "README.md") == ("moved", (4, 5), "")


def test_crlf_line_endings() -> None:
    old = WHOLE_METHOD.source.replace("\n", "\r\n")
    assert resolve_text(old, old, (15, 20)) == ("ok", (15, 20), "Session.flush")
    assert resolve_text(old, WHOLE_METHOD.source, (15, 20)) == ("ok", (15, 20), "Session.flush")


# --- end to end: a git repository with two tagged versions, through the command line ------------


def test_verify_json_end_to_end(tmp_path) -> None:
    shapes = {"src/session.ts": WHOLE_METHOD, "src/settings.ts": WHOLE_FUNCTION, "src/turn.ts": SUB_BLOCK,
              "src/errors.ts": THREE_SIBLINGS, "src/compact.ts": FROM_DOC_COMMENT}
    v1 = {path: shape.source for path, shape in shapes.items()}
    v2 = {"src/session.ts": HEADER + WHOLE_METHOD.source,  # moved
          "src/settings.ts": WHOLE_FUNCTION.source.replace(*WHOLE_FUNCTION.change),  # changed
          "src/turn.ts": SUB_BLOCK.source.replace("\t", "  "),  # re-indented: ok
          "src/errors.ts": THREE_SIBLINGS.source.replace(THREE_SIBLINGS.delete, ""),  # missing
          "src/compact.ts": FROM_DOC_COMMENT.source * 2}  # ambiguous
    entries = {f"D{i}": entry_yaml(f"D{i}", [(path, f"{s.lines[0]}-{s.lines[1]}")])
               for i, (path, s) in enumerate(shapes.items(), 1)}
    project = make_project(tmp_path, {"1": v1, "2": v2}, entries)

    pinned = run_cli("verify", "--decisions", project.decisions, "--format", "json", "--quiet")
    assert pinned.code == 0, pinned.stderr
    report = pinned.json()
    assert report["target"] == "1"
    assert [row["status"] for row in report["citations"]] == ["ok"] * 5

    drift = run_cli("verify", "--decisions", project.decisions, "--target", "2", "--format", "json", "--quiet")
    assert drift.code == 1, drift.stderr
    same = {"detail": ""}  # nothing moved to another file, no range was edited by hand
    assert drift.json() == {"target": "2", "citations": [
        {"map": "demo", "id": "D1", "file": "src/session.ts", "recorded": [15, 20], "resolved": [18, 23],
         "status": "moved", "symbol": "Session.flush", "resolved_file": "src/session.ts", **same},
        {"map": "demo", "id": "D2", "file": "src/settings.ts", "recorded": [5, 9], "resolved": [5, 9],
         "status": "changed", "symbol": "loadSettings", "resolved_file": "src/settings.ts", **same},
        {"map": "demo", "id": "D3", "file": "src/turn.ts", "recorded": [8, 11], "resolved": [8, 11],
         "status": "ok", "symbol": "runTurn", "resolved_file": "src/turn.ts", **same},
        {"map": "demo", "id": "D4", "file": "src/errors.ts", "recorded": [3, 13], "resolved": None,
         "status": "missing", "symbol": "isAbort, isTimeout, isOverflow", "resolved_file": "src/errors.ts", **same},
        {"map": "demo", "id": "D5", "file": "src/compact.ts", "recorded": [5, 9], "resolved": None,
         "status": "ambiguous", "symbol": "shouldCompact", "resolved_file": "src/compact.ts", **same},
    ]}

    bad = run_cli("verify", "--decisions", project.decisions, "--format", "yaml")
    assert bad.code == 2 and "Traceback" not in bad.stderr


def test_rows_follow_entry_ids_and_their_cites_order(tmp_path) -> None:
    source = WHOLE_METHOD.source
    entries = {"D10": entry_yaml("D10", [("src/a.ts", "15-20")]),
               "D2": entry_yaml("D2", [("src/a.ts", "8-13"), ("src/a.ts", 4)]),
               "A3": entry_yaml("A3", [("src/a.ts", "3")])}
    project = make_project(tmp_path, {"1": {"src/a.ts": source}}, entries)
    run = run_cli("verify", "--decisions", project.decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    rows = run.json()["citations"]
    assert [(r["id"], r["recorded"]) for r in rows] == [("A3", [3, 3]), ("D2", [8, 13]), ("D2", [4, 4]),
                                                        ("D10", [15, 20])]
    assert [r["symbol"] for r in rows] == ["Session", "Session.run", "Session.count", "Session.flush"]


def test_citation_checked_at_its_own_version(tmp_path) -> None:
    # A citation that records `version: "2"` is resolved from 2, whatever the map's pin is.
    v2 = HEADER + WHOLE_METHOD.source
    cites = "  - file: src/a.ts\n    lines: 18-23\n    version: \"2\"\n"
    project = make_project(tmp_path, {"1": {"src/a.ts": WHOLE_METHOD.source}, "2": {"src/a.ts": v2},
                                      "3": {"src/a.ts": v2}}, {"D1": entry_yaml("D1", cites)})
    for target, code, resolved in (("2", 0, [18, 23]), ("3", 0, [18, 23]), ("1", 1, [15, 20])):
        run = run_cli("verify", "--decisions", project.decisions, "--target", target, "--format", "json", "--quiet")
        assert run.code == code, run.stderr
        assert run.json()["citations"][0]["resolved"] == resolved


def test_non_ascii_lines() -> None:
    old = ('export const MESSAGES = {\n\tgreeting: "héllo — wörld 🌍🌍🌍🌍🌍🌍",\n\tfarewell: "さようなら、世界",\n};\n\n'
           'export function pick(key: string): string {\n\treturn MESSAGES[key] ?? "—"; // — ✓\n}\n')
    assert resolve_text(old, old, (3, 3)) == ("ok", (3, 3), "MESSAGES.farewell")
    assert resolve_text(old, "\n" + old, (2, 2)) == ("moved", (3, 3), "MESSAGES.greeting")
    assert resolve_text(old, "\n" + old, (7, 7)) == ("moved", (8, 8), "pick")


# --- a property: code inserted only outside the cited range never loses it ----------------------------


@st.composite
def edited_file(draw):
    """A file of distinct functions, a cited range in it, and the file with lines inserted outside it."""
    count = draw(st.integers(2, 6))
    blocks = []
    for i in range(count):
        body = [f"\tconst value{i}_{j} = compute({i}, {j});" for j in range(draw(st.integers(1, 4)))]
        blocks.append([f"export function step{i}(input: number): number {{", *body, f"\treturn value{i}_0 + input;",
                       "}", ""])
    lines = [line for block in blocks for line in block]
    first = draw(st.integers(0, len(lines) - 1))
    last = draw(st.integers(first, min(len(lines) - 1, first + 8)))
    if not lines[first].strip() or not lines[last].strip():
        first, last = 0, 0  # a range that starts or ends on a blank line is another test's business
    inserted = draw(st.lists(st.tuples(st.integers(0, len(lines)), st.sampled_from(
        ["", "// a comment", "import { x } from \"x\";", "export const EXTRA = 1;"])), max_size=6))
    new = list(lines)
    above = 0
    for position, text in sorted(inserted, reverse=True):
        if first < position <= last:
            continue  # never inside the cited range
        new.insert(position, text)
        above += position <= first
    return "\n".join(lines) + "\n", "\n".join(new) + "\n", (first + 1, last + 1), above


@settings(max_examples=60, deadline=None)
@given(edited_file())
def test_insertions_outside_the_range_only_move_it(case) -> None:
    old, new, lines, above = case
    outcome = resolve_text(old, new, lines)
    assert outcome.lines == shifted(lines, above), outcome
    assert outcome.status == ("ok" if above == 0 else "moved")
    assert text_lines(new, outcome.lines) == text_lines(old, lines)
