"""A file has as many lines as a reader counts: a final newline ends the last line, it does not
start another. No command reports, accepts or writes a line past the real last one.

Every count here is taken from the text itself (``len(text.splitlines())``), never from the
resolver, so a resolver that miscounts cannot agree with its own mistake.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conftest import entry_yaml, make_project, resolve_text, run_main

FIVE = "export function f(): number {\n  const x = 1;\n  return x;\n}\nexport const LAST = 2;"
ENDINGS = {"final-newline": "\n", "no-final-newline": ""}

# `f` and the blank line after it are cited; at 2, `f` is the last thing in the file.
OLD = "export function f(): number {\n  return 1;\n}\n\nexport function g(): number {\n  return 2;\n}\n"
NEW = "// moved\nexport function g(): number {\n  return 2;\n}\n\nexport function f(): number {\n  return 1;\n}\n"


def real_count(text: str) -> int:
    return len(text.splitlines())


@pytest.mark.parametrize("ending", ENDINGS.values(), ids=ENDINGS.keys())
def test_a_five_line_file_has_five_lines(tmp_path, capsys, ending: str) -> None:
    text = FIVE + ending
    assert real_count(text) == 5
    project = make_project(tmp_path, {"1": {"src/a.ts": text}}, {"D1": entry_yaml("D1", [("src/a.ts", "4-5")])})
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0

    project.write_entry("D1", entry_yaml("D1", [("src/a.ts", "5-6")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    assert run.code == 2
    assert "lines 5-6 run past the end of src/a.ts, which has 5 lines at 1" in run.stderr

    project.write_entry("D1", entry_yaml("D1", [("src/a.ts", "5")]))
    past = run_main(capsys, "new", "src/a.ts:6", "--decisions", project.decisions, "--group", "D")
    assert past.code == 2 and "src/a.ts has 5 lines at 1; 6 does not exist there" in past.stderr, past.stderr
    last = run_main(capsys, "new", "src/a.ts:5", "--decisions", project.decisions, "--group", "D")
    assert last.code == 0, last.stderr
    assert "lines: 5\n" in project.entry("D2").read_text()


@pytest.mark.parametrize("ending", ["\n", "", "\n\n"], ids=["final-newline", "no-final-newline", "blank-last-line"])
def test_fix_never_writes_a_range_past_the_last_line(tmp_path, capsys, ending: str) -> None:
    new = NEW.rstrip("\n") + ending
    project = make_project(tmp_path, {"1": {"src/a.ts": OLD}, "2": {"src/a.ts": new}},
                           {"D1": entry_yaml("D1", [("src/a.ts", "1-4")])})
    report = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "json")
    [row] = report.json()["citations"]
    assert row["status"] == "moved" and row["resolved"][1] <= real_count(new), (row, real_count(new))
    end = 9 if ending == "\n\n" else 8  # the blank line after `f` is cited only where there is one
    assert row["resolved"] == [6, end]

    run = run_main(capsys, "fix", "--decisions", project.decisions, "--target", "2", "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0] == f"D1: src/a.ts: 1-4 → 6-{end}"
    assert f"    lines: 6-{end}\n" in project.entry("D1").read_text()
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 0


# --- a property: whatever the edit, a resolved range lies inside the file -------------------------------

LINES = st.sampled_from(["export function a(): number {", "export function b(): number {", "\treturn 1;",
                         "\treturn 2;", "}", "", "// note", "export const C = 3;", "   "])


@st.composite
def edited(draw):
    """A file (lines drawn from a few, so repeats and blank runs are common), a cited range in it,
    and the file after random insertions, deletions and blank lines at its end; either file may
    end with or without a newline."""
    lines = draw(st.lists(LINES, min_size=1, max_size=14))
    old_text = "\n".join(lines) + draw(st.sampled_from(["\n", ""]))
    count = real_count(old_text)  # [.., ""] joined without a final newline is one line less
    assume(count > 0)  # an empty file has nothing to cite
    first = draw(st.integers(0, count - 1))
    last = draw(st.integers(first, count - 1))
    # a citation of blank lines only never reaches the resolver: verify and record refuse it
    assume(any(line.strip() for line in lines[first:last + 1]))
    new = list(lines)
    for position, text in draw(st.lists(st.tuples(st.integers(0, len(lines)), LINES), max_size=5)):
        new.insert(min(position, len(new)), text)
    for position in draw(st.lists(st.integers(0, 20), max_size=3)):
        if len(new) > 1:
            del new[position % len(new)]
    new += [""] * draw(st.integers(0, 2))
    new_text = "\n".join(new) + draw(st.sampled_from(["\n", ""]))
    return old_text, new_text, (first + 1, last + 1)


@settings(max_examples=150, deadline=None)
@given(edited())
# found by this test: a declaration cut off at the end of the file gave the reversed range 3-2
@example(("export function a(): number {\n\treturn 2;\n", "\treturn 1;\nexport function a(): number {\n", (2, 2)))
# and a cited blank line, next to code, in a file that is empty at the target, gave line 0
@example(("\nf();\n", "", (1, 2)))
def test_a_resolved_range_never_ends_past_the_last_line(case) -> None:
    old, new, lines = case
    outcome = resolve_text(old, new, lines)
    if outcome.lines is not None:
        first, last = outcome.lines
        assert 1 <= first <= last <= max(real_count(new), 1), (outcome, real_count(new))
    same = resolve_text(old, old, lines)  # at its own version a citation stays where it is
    assert same.lines is not None and same.lines[1] <= real_count(old)
