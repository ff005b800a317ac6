"""The loader's checks as a contributor meets them: the one error line `verify` prints for a bad
entry (which file, which line, what is wrong), and what it lets through. Cases mutation testing
(`make mutation`) showed no other test pins; the hostile corpus is in test_bad_inputs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_main

SOURCE = {"1": {"src/a.ts": "export const a = 1;\n"}}


def problems(capsys, tmp_path: Path, text: str, probe: bool = False) -> list[str]:
    """The error lines of `verify` for an entry D1 written as ``text`` (paths shown from the map)."""
    project = make_project(tmp_path, SOURCE)
    project.write_entry("D1", text)
    if probe:
        (project.folder / "probes").mkdir()
        (project.folder / "probes" / "D1.mjs").write_text("console.log('{}')\n")
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--quiet")
    lines = [line.replace(f"{project.folder}/", "") for line in run.errors if line.startswith("error: ")]
    assert (run.code == 2) == bool(lines), run.stderr
    return lines


GOOD = entry_yaml("D1", [("src/a.ts", 1)])


def test_the_error_names_the_line_where_nesting_passes_twelve(capsys, tmp_path) -> None:
    """Brackets that close again do not count; a stray `]` at the top does not make room for more;
    twelve levels are allowed, thirteen are not (and `X` is only a letter)."""
    text = GOOD + "\n".join([
        "note: XXXXXXXXXXXXXX ]",  # a stray closing bracket in plain text, and letters
        "a: [b, [c]]",
        "d: " + "[" * 12 + "]" * 12,  # twelve: allowed
        "e: " + "[" * 6 + "X, " + "[" * 7 + "1" + "]" * 13,  # thirteen: refused here
    ]) + "\n"
    assert text.count("\n") == 11
    assert problems(capsys, tmp_path, text) == [
        "error: D1.yaml:11: nested 13 levels deep; entries never nest deeper than 12"]


def test_nesting_over_many_lines_is_named_at_the_thirteenth_bracket(capsys, tmp_path) -> None:
    text = GOOD + "e: " + "[\n" * 13 + "]" * 13 + "\n"  # one bracket a line: the 13th is on line 8 + 12
    assert problems(capsys, tmp_path, text) == [
        "error: D1.yaml:20: nested 13 levels deep; entries never nest deeper than 12"]


def test_twelve_levels_of_nesting_are_not_too_deep(capsys, tmp_path) -> None:
    text = GOOD + "e: " + "[" * 12 + "]" * 12 + "\n"
    [error] = problems(capsys, tmp_path, text)
    assert error.startswith("error: D1.yaml:8: unknown key 'e'"), error


def test_a_probe_expect_may_hold_forty_names_not_forty_one(capsys, tmp_path) -> None:
    def with_expect(count: int) -> str:
        names = ", ".join(f"k{n}: true" for n in range(count))
        return GOOD.replace("cites:", f"probe:\n  shows: It runs.\n  expect: {{{names}}}\ncites:")

    assert problems(capsys, tmp_path / "40", with_expect(40), probe=True) == []
    assert problems(capsys, tmp_path / "41", with_expect(41), probe=True) == [
        "error: D1.yaml:7: probe.expect must hold 1 to 40 names, not 41"]


@pytest.mark.parametrize(("expect", "said"), [
    ("{ran: true, ran: false}", "duplicate key 'ran' in probe.expect; keep one"),
    ("\n    ? [ran]\n    : true", "probe.expect has the key None; keys are names such as `ran` or `exit_code`"),
    ("{ran: [true]}", "probe.expect.ran must be text, a number, true, false or null (a JSON scalar)"),
    ("[ran, true]", "probe.expect must be a mapping of names to values, e.g. {ran: true}"),
    ("{ran: !maybe yes}", "probe.expect.ran must be text, a number, true, false or null (a JSON scalar)"),
], ids=["duplicate-key", "key-not-a-name", "value-not-a-scalar", "a-list", "value-with-a-tag"])
def test_a_probe_expect_that_is_no_flat_mapping_of_names(capsys, tmp_path, expect: str, said: str) -> None:
    text = GOOD.replace("cites:", f"probe:\n  shows: It runs.\n  expect: {expect}\ncites:")
    [line] = problems(capsys, tmp_path, text, probe=True)
    assert line.startswith("error: D1.yaml:") and line.endswith(said), line
    assert line.split(":")[2] in ("7", "8"), line  # the expect's line (a complex key: the key's own)


@pytest.mark.parametrize(("key", "said"), [
    ("answr", "unknown key 'answr'; did you mean 'answer'?"),
    # two thirds alike is not alike enough to guess: the allowed keys are listed instead
    ("ansxxr", "unknown key 'ansxxr'; allowed: id, kind, question, decided_by, overrides, answer, "),
], ids=["close", "not-close-enough"])
def test_an_unknown_key_gets_a_guess_only_when_it_is_close(capsys, tmp_path, key: str, said: str) -> None:
    [line] = problems(capsys, tmp_path, GOOD + f"{key}: x\n")
    assert line.startswith(f"error: D1.yaml:8: {said}"), line


@pytest.mark.parametrize(("edit", "said"), [
    (("id: D1", "id: d1"), "id 'd1' does not have the expected form (a capital letter and a number, e.g. D1)"),
    (("    lines: 1\n", "    lines: 1\n    record: {symbol: a, length: 1, digest: XYZ}\n"),
     "cites.0.record.digest 'XYZ' does not have the expected form (pattern ^[0-9a-f]{12}$)"),
    (("cites:", "overrides:\n  - by: person\n    can: stop the run.\n    when: When it asks.\n    cites:\n"
                "      - {file: src/a.ts, lines: 1}\ncites:"),
     "overrides.0.can 'stop the run.' does not have the expected form (the words that follow 'can', without a "
     "full stop, e.g. stop the run)"),
    # a list with no hint of its own says just that (changed_by's hint: test_shape.py)
    (("cites:", "failures: an old bug\ncites:"), "failures must be a list"),
], ids=["entry-id", "record-digest", "override-can", "list-without-a-hint"])
def test_a_value_of_the_wrong_form_says_the_form(capsys, tmp_path, edit, said: str) -> None:
    [line] = problems(capsys, tmp_path, GOOD.replace(*edit))
    assert line.endswith(said), line


@pytest.mark.parametrize(("value", "said"), [
    (".nan", "probe.expect.n is not a number JSON can hold; write a finite number"),
    (".inf", "probe.expect.n is not a number JSON can hold; write a finite number"),
    ("-.inf", "probe.expect.n is not a number JSON can hold; write a finite number"),
    ("1.5", None), ("-2", None), ("null", None), ('"' + "x" * 4000 + '"', None),
    ('"' + "x" * 4001 + '"', "probe.expect.n is too long or holds a control character; write plain text"),
    ('"a\\u0001b"', "probe.expect.n is too long or holds a control character; write plain text"),
], ids=["nan", "inf", "minus-inf", "float", "negative", "null", "text-4000", "text-4001", "control-character"])
def test_a_probe_expects_json_scalars(capsys, tmp_path, value: str, said: str | None) -> None:
    text = GOOD.replace("cites:", f"probe:\n  shows: It runs.\n  expect: {{n: {value}}}\ncites:")
    assert problems(capsys, tmp_path, text, probe=True) == ([f"error: D1.yaml:7: {said}"] if said else [])


SYNTAX = "error: D1.yaml:{}: YAML syntax error: {}"
TABS = " (YAML does not allow tabs for indentation; indent with spaces)"
LINE_UP = " (check the indentation: list items and keys of one mapping line up)"


@pytest.mark.parametrize(("text", "error"), [
    # left open at the end of the file (with or without a last newline): named where it was opened
    (GOOD + 'notes: "open\n\n', SYNTAX.format(8, "found unexpected end of stream (while scanning a quoted "
                                               "scalar that starts on this line; close it)")),
    (GOOD + "notes: 'open", SYNTAX.format(8, "found unexpected end of stream (while scanning a quoted "
                                           "scalar that starts on this line; close it)")),
    (GOOD + "notes: [a,\n  b\n", SYNTAX.format(8, "did not find expected ',' or ']' (while parsing a flow "
                                               "sequence that starts on this line; close it)")),
    # a tab in the indentation, where the parser stops
    (GOOD.replace("answer: Plain code.", "answer: Plain\n\tcode: 1"),
     SYNTAX.format(5, "found a tab character that violates indentation" + TABS)),
    (GOOD.replace("  - file", "\t- file"), SYNTAX.format(6, "found character that cannot start any token" + TABS)),
    # a tab earlier on the line is not the cause
    (GOOD.replace("answer: Plain code.", "answer: a\tb: c"),
     SYNTAX.format(4, "mapping values are not allowed in this context (a value holding ': ' must be quoted, "
                      "or written as a block after `>-`)")),
    (GOOD.replace("    lines: 1", "   lines: 1"), SYNTAX.format(7, "did not find expected '-' indicator"
                                                                           + LINE_UP)),
    (GOOD.replace("cites:\n", "cites:\n  - a\n cited: no\n"), SYNTAX.format(7, "did not find expected key"
                                                                             + LINE_UP)),
    (GOOD.replace("answer: Plain code.", "answer:\n  " + "- " * 1100 + "x"),
     SYNTAX.format(5, "exceeded maximum nesting depth; entries never nest deeper than 12 levels")),
    # a raw control character is named at its line, even the file's first character
    ("\x01" + GOOD, "error: D1.yaml:1: holds the control character U+0001; remove it"),
    (GOOD.replace("Plain code.", "Plain \U0001f600 code \ufffe."),
     "error: D1.yaml:4: holds the control character U+FFFE; remove it"),
    # brackets opened and never closed count as nesting too; a closed one gives back one level
    (GOOD + "notes: " + "[" * 13 + "\n", "error: D1.yaml:8: nested 13 levels deep; entries never nest deeper than 12"),
    (GOOD + "notes: [[a], " + "[" * 12 + "b" + "]" * 13 + "\n",
     "error: D1.yaml:8: nested 13 levels deep; entries never nest deeper than 12"),
], ids=["quote-at-end", "quote-at-end-no-newline", "bracket-at-end", "tab-in-block", "tab-before-dash",
        "tab-inside-a-value", "key-out-of-line", "mapping-out-of-line", "libyaml-depth", "control-first",
        "control-non-ascii", "unclosed-brackets", "closed-then-deep"])
def test_yaml_syntax_errors_name_the_line_and_the_likely_cause(capsys, tmp_path, text: str, error: str) -> None:
    assert problems(capsys, tmp_path, text) == [error]


NOT_A_NAME = ["error: D1.yaml:1: the file is missing required key: answer",
              "error: D1.yaml:4: the file has a key that is not a plain name"]


@pytest.mark.parametrize(("change", "errors"), [
    ("answer: !!binary UGxhaW4=", ["error: D1.yaml:4: answer has the YAML tag !!binary; tags are not allowed, "
                                   "write a plain value"]),
    ("answer: !plain Plain code.", ["error: D1.yaml:4: answer has the YAML tag !plain; tags are not allowed, "
                                    "write a plain value"]),
    ("? [answer, again]\n: Plain code.", NOT_A_NAME),
    ("? {answer: 1}\n: Plain code.", NOT_A_NAME),
])
def test_a_tag_or_a_key_that_is_not_a_name_is_refused_at_its_line(capsys, tmp_path, change: str,
                                                                  errors: list[str]) -> None:
    assert problems(capsys, tmp_path, GOOD.replace("answer: Plain code.", change)) == errors


RECORD = "    lines: 1\n    record: {{symbol: a, length: {}, digest: 0123456789ab}}\n"


@pytest.mark.parametrize(("change", "error"), [
    # a whole number written in decimal digits, at least 1
    (("    lines: 1\n", RECORD.format("0")),
     "D1.yaml:8: cites.0.record.length must be a whole number of at least 1, not '0'"),
    (("    lines: 1\n", RECORD.format("0x10")),
     "D1.yaml:8: cites.0.record.length must be a whole number of at least 1, not '0x10'"),
    # the placeholder `new` writes, named by its first 40 characters
    (("Plain code.", "TODO - say who decides, in one sentence, then cite it"),
     "D1.yaml:4: answer is still the placeholder 'TODO - say who decides, in one sentence,'; "
     "write it (see decisions/FORMAT.md)"),
    # 4,000 characters are allowed, not one more
    (("Plain code.", "x" * 4001), "D1.yaml:4: answer is 4,001 characters; shorten it to 4,000 at most"),
])
def test_numbers_placeholders_and_lengths_are_checked_to_the_boundary(capsys, tmp_path, change, error) -> None:
    assert problems(capsys, tmp_path, GOOD.replace(*change)) == [f"error: {error}"]


def test_a_field_of_exactly_the_longest_length_loads(capsys, tmp_path) -> None:
    assert problems(capsys, tmp_path, GOOD.replace("Plain code.", "x" * 4000)) == []


MAP = ('title: {title}\nrepo: https://example.org/demo\nversion: "1"\n'
       "source:\n  git:\n    url: https://example.org/demo.git\n    ref: v1\n")
PLACEHOLDER_ANSWER = "TODO - say who decides, in one sentence, then cite it"


def test_a_placeholder_in_map_yaml_leaves_no_file_out(capsys, tmp_path) -> None:
    """An entry still being written is left out by the commands that do not need it, but not when
    map.yaml itself still holds a placeholder: no command can do without it, and none says it left
    a file out."""
    from generator.errors import InputError
    from generator.map.load import load_finished_maps

    folder = tmp_path / "decisions" / "demo"
    folder.mkdir(parents=True)
    # a section may list it meanwhile: it is there, only unfinished
    (folder / "map.yaml").write_text(MAP.format(title="Demo map") + "sections:\n  - {title: Start, ids: [D1]}\n")
    (folder / "D1.yaml").write_text(GOOD.replace("Plain code.", PLACEHOLDER_ANSWER))
    assert load_finished_maps(tmp_path / "decisions")[0].entries == ()
    assert "D1.yaml still holds placeholders; left out until it is written" in capsys.readouterr().err
    # a command that would use it (`probe D1`) is refused at the placeholder's line
    with pytest.raises(InputError) as caught:
        load_finished_maps(tmp_path / "decisions", needed=lambda path: path.stem == "D1")
    # only that: not "section 'Start' lists D1, which no entry has" (it has, only unfinished)
    assert [p.message.split(";")[0] for p in caught.value.problems] == [
        "answer is still the placeholder 'TODO - say who decides, in one sentence,'"]
    (folder / "map.yaml").write_text(MAP.format(title="TODO - name the map"))
    with pytest.raises(InputError) as caught:
        load_finished_maps(tmp_path / "decisions")
    assert "map.yaml:1: title is still the placeholder 'TODO - name the map'" in str(caught.value)
    assert "left out" not in capsys.readouterr().err


def lever_tables(tmp_path: Path) -> Path:
    """Two maps, `alpha` and `beta`, each with one entry and a lever table naming it."""
    for name, entry_id, lever in (("alpha", "C1", "input"), ("beta", "D7", "tool_call")):
        folder = tmp_path / "decisions" / name
        folder.mkdir(parents=True)
        (folder / "map.yaml").write_text(MAP.format(title=name))
        (folder / f"{entry_id}.yaml").write_text(entry_yaml(entry_id, [("src/a.ts", 1)]))
        (folder / "levers.yaml").write_text(f"levers:\n  - {{lever: {lever}, kind: event, decisions: [{entry_id}]}}\n")
    return tmp_path / "decisions"


def test_the_lever_table_is_the_named_maps_or_the_first(tmp_path) -> None:
    from generator.map.load import load_lever_table

    decisions = lever_tables(tmp_path)
    # its kind too: `levers` prints it for each use, and takes a method for pi's API by it
    assert [(row.lever, row.kind, row.decisions) for row in load_lever_table(decisions, "beta")] == [
        ("tool_call", "event", ("D7",))]
    assert [(row.lever, row.decisions) for row in load_lever_table(decisions, "alpha")] == [("input", ("C1",))]
    assert [(row.lever, row.decisions) for row in load_lever_table(decisions)] == [("input", ("C1",))]


def test_a_map_there_is_not_or_one_without_a_lever_table_is_named(tmp_path) -> None:
    """What `levers --map NAME` says before it fetches anything (called here directly, so that no
    mutant of the choice can reach for the registry)."""
    from generator.errors import UsageError
    from generator.map.load import load_lever_table

    decisions = lever_tables(tmp_path)
    with pytest.raises(UsageError) as caught:
        load_lever_table(decisions, "gamma")
    assert str(caught.value) == f"no map named 'gamma' under {decisions}"
    (decisions / "beta" / "levers.yaml").unlink()
    with pytest.raises(UsageError) as caught:
        load_lever_table(decisions, "beta")
    assert str(caught.value) == (f"{decisions / 'beta' / 'levers.yaml'}: no lever table; it says which decisions "
                                 "each lever can change (see decisions/FORMAT.md)")


def test_a_lever_listed_twice_is_refused_at_its_second_row(tmp_path) -> None:
    from generator.errors import InputError
    from generator.map.load import load_lever_table

    decisions = lever_tables(tmp_path)
    levers = decisions / "alpha" / "levers.yaml"
    levers.write_text(levers.read_text() + "  - {lever: input, kind: event, decisions: []}\n" * 2)
    with pytest.raises(InputError) as caught:
        load_lever_table(decisions)
    assert [str(p) for p in caught.value.problems] == [
        f"{levers}:{n}: lever input is listed twice (first at line 2); keep one row" for n in (3, 4)]


def test_a_lever_naming_a_decision_with_no_entry_file_is_refused_at_its_row(tmp_path) -> None:
    from generator.errors import InputError
    from generator.map.load import load_lever_table

    decisions = lever_tables(tmp_path)
    levers = decisions / "beta" / "levers.yaml"
    levers.write_text(levers.read_text() + "  - {lever: input, kind: event, decisions: [D7, C1]}\n")
    with pytest.raises(InputError) as caught:
        load_lever_table(decisions, "beta")
    assert [str(p) for p in caught.value.problems] == [
        f"{levers}:3: lever input names decision C1, which does not exist in beta/; use an existing ID"]


def test_links_to_an_unfinished_entry_hold_beside_a_broken_one(tmp_path) -> None:
    """A broken entry's problems (read first: A1 before D1) do not make an unfinished one look broken."""
    from generator.errors import InputError
    from generator.map.load import load_maps

    folder = tmp_path / "decisions" / "demo"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text(MAP.format(title="Demo map") + "sections:\n  - {title: Start, ids: [D1]}\n")
    broken = entry_yaml("A1", [("src/a.ts", 1)]).replace("decided_by: code", "decided_by: coder")
    (folder / "A1.yaml").write_text(broken)
    (folder / "D1.yaml").write_text(GOOD.replace("Plain code.", PLACEHOLDER_ANSWER))
    with pytest.raises(InputError) as caught:
        load_maps(tmp_path / "decisions")
    assert [(p.path.name, p.placeholder) for p in caught.value.problems] == [("A1.yaml", False), ("D1.yaml", True)]
