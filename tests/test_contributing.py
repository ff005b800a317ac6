"""What a contributor touches: `new`, the JSON Schemas, the pre-commit hook, the CI workflow."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import ROOT, run_main
from generator.map import schema
from generator.errors import InputError
from generator.map.load import load_maps

PI = "packages/coding-agent/src/core"


class _DatesAsText(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's parser, as the loader's
    """Editors see `date: 2026-11-29` as text; so does the loader. Read it the same way here."""


_DatesAsText.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: node.value)


def _yaml(path: Path):
    return yaml.load(path.read_text(), Loader=_DatesAsText)


@pytest.fixture
def pi_map(tmp_path_factory, pi_cache, monkeypatch):
    """A decisions/ folder pinned like the real map, with the run's cache of real pi trees (a worker's
    own base folder would hold a second copy of pi 1.6.0, fetched again)."""
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    folder = tmp_path_factory.mktemp("contrib") / "decisions"
    shutil.copytree(ROOT / "decisions" / "pi", folder / "pi")
    return folder


def _next_e(folder: Path) -> str:
    numbers = [int(p.stem[1:]) for p in (folder / "pi").glob("E*.yaml")]
    return f"E{max(numbers) + 1}"


@pytest.mark.network
@pytest.mark.parametrize("position, lines, symbol", [
    (f"{PI}/agent-session.ts:725", "723-746", "AgentSession._beforeToolCall"),  # a method (pi 1.6.0)
    (f"{PI}/agent-session.ts:731-732", "731-732", "AgentSession._beforeToolCall"),  # lines inside it
    (f"{PI}/tools/truncate.ts:11", "11", "DEFAULT_MAX_LINES"),  # a constant
])
def test_new_cites_the_declaration_and_verify_refuses_the_placeholders(pi_map, capsys, position, lines, symbol):
    expected = _next_e(pi_map)
    run = run_main(capsys, "new", position, "--decisions", pi_map, "--group", "E")
    assert run.code == 0, run.stderr
    path = pi_map / "pi" / f"{expected}.yaml"
    text = path.read_text()
    assert f"lines: {lines}\n    record: {{symbol: {symbol}, length: " in text  # the tool's record, not a comment
    assert text.startswith("# yaml-language-server: $schema=../../schema/entry.schema.json")
    refused = run_main(capsys, "verify", "--decisions", pi_map, "--quiet")
    assert refused.code == 2 and "placeholder" in refused.stderr and f"{expected}.yaml:" in refused.stderr
    for field, value in (("question: TODO", "question: Is this filled?"), ("decided_by: TODO", "decided_by: code"),
                         ("  TODO", "  Yes.")):
        text = text.replace(field, value)
    path.write_text(text)
    assert run_main(capsys, "verify", "--decisions", pi_map, "--quiet", path).code == 0


@pytest.mark.network
def test_new_refuses_a_range_that_does_not_exist_at_the_pin(pi_map, capsys):
    before = sorted(p.name for p in (pi_map / "pi").iterdir())
    run = run_main(capsys, "new", f"{PI}/agent-session.ts:999999", "--decisions", pi_map)
    assert run.code == 2 and "does not exist" in run.stderr and "Traceback" not in run.stderr
    assert sorted(p.name for p in (pi_map / "pi").iterdir()) == before, "a refused `new` wrote a file"


def test_committed_schemas_are_the_generated_ones(tmp_path, capsys):
    assert run_main(capsys, "schema", "--out", tmp_path).code == 0
    for name in ("entry", "map", "overlay"):
        assert (tmp_path / f"{name}.schema.json").read_text() == \
            (ROOT / "schema" / f"{name}.schema.json").read_text(), "run `python -m generator schema`"


def _validator(shape) -> jsonschema.protocols.Validator:
    """What `jsonschema.validate` does for each file, with the schema checked and compiled once:
    the schema is valid JSON Schema, and a file it rejects raises its best-matching error."""
    json_schema = schema.json_schema(shape)
    kind = jsonschema.validators.validator_for(json_schema)
    kind.check_schema(json_schema)
    return kind(json_schema)


def _validate(document, validator) -> None:
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        raise error


def test_every_file_in_decisions_validates_against_its_schema():
    kinds = {"entry": _validator(schema.ENTRY), "map": _validator(schema.MAP),
             "overlay": _validator(schema.OVERLAY), "levers": _validator(schema.LEVERS)}
    files = sorted((ROOT / "decisions").glob("*/*.yaml")) + sorted((ROOT / "decisions").glob("*/extensions/*.yaml"))
    assert len(files) > 45
    for path in files:
        kind = "map" if path.name == "map.yaml" else "levers" if path.name == "levers.yaml" else \
            "overlay" if path.parent.name == "extensions" else "entry"
        _validate(_yaml(path), kinds[kind])
        assert "$schema=" in path.read_text().splitlines()[0] or kind != "entry", path


GOOD_ENTRY = {"id": "D1", "question": "Q?", "decided_by": "code", "answer": "A.",
              "cites": [{"file": "a.ts", "lines": "1-2"}]}
MAP_YAML = 'title: T\nrepo: https://example.org/r\nversion: "1"\nsource:\n  git:\n    url: file:///x\n    ref: v1\n'


def _loader_problems(entry: dict, root: Path) -> list[str]:
    """What the loader says of ``entry`` written as D1.yaml in a map (no problem: an empty list)."""
    folder = root / "decisions" / "demo"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text(MAP_YAML)
    (folder / "D1.yaml").write_text(yaml.safe_dump(entry, sort_keys=False))
    try:
        load_maps(root / "decisions")
    except InputError as err:
        return [p.message for p in err.problems]
    return []


@pytest.mark.parametrize(("change", "said"), [
    ({"anwser": "typo"}, "unknown key 'anwser'"),
    ({"decided_by": None}, "missing required key: decided_by"),
    ({"decided_by": "robot"}, "decided_by must be one of"),
    ({"id": "d1"}, "'d1'"),
    ({"cites": [{"file": "a.ts", "lines": "x"}]}, "cites.0.lines must be a line"),
    ({"cites": []}, "cites must list at least 1"),
    ({"answer": " ".join(["word"] * 61)}, "answer is 61 words, over the limit of 60"),
    ({"changed_by": "An extension."}, "write changed_by as a list of items, each with text and cites"),
    ({"exceptions": [{"text": "Not in print mode."}]}, "exceptions.0 is missing required key: cites"),
    ({"overrides": [{"by": "person", "when": "At a prompt."}]}, "overrides.0 is missing required key: cites"),
    ({"overrides": [{"by": "person", "can": "stop the run.", "when": "W.", "cites": [{"file": "a.ts", "lines": 1}]}]},
     "overrides.0.can 'stop the run.' does not have the expected form"),
], ids=["unknown-key", "no-decided_by", "bad-choice", "bad-id", "bad-lines", "no-cites", "answer-61-words",
        "changed_by-text", "exception-uncited", "override-uncited", "can-full-stop"])
def test_the_schema_rejects_what_the_loader_rejects(change, said, tmp_path):
    bad = {k: v for k, v in {**GOOD_ENTRY, **change}.items() if v is not None}
    problems = _loader_problems(bad, tmp_path)
    assert any(said in p for p in problems), problems
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema.json_schema(schema.ENTRY))


SHAPED_ENTRY = {**GOOD_ENTRY, "answer": " ".join(["word"] * 60),  # the most words an answer may have
                "exceptions": [{"text": "Not in print mode.", "cites": [{"file": "a.ts", "lines": 3}]}],
                "overrides": [{"by": "person", "can": "stop the run", "when": "At a prompt.",
                               "cites": [{"file": "a.ts", "lines": 4}]}],
                "changed_by": [{"text": "A flag.", "cites": [{"file": "a.ts", "lines": "5-6"}]}]}


@pytest.mark.parametrize("entry", [GOOD_ENTRY, SHAPED_ENTRY], ids=["minimal", "every-item"])
def test_the_schema_and_the_loader_accept_the_same_good_entry(entry, tmp_path):
    assert _loader_problems(entry, tmp_path) == []
    jsonschema.validate(entry, schema.json_schema(schema.ENTRY))


def test_the_workflow_runs_make_targets_that_exist():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE))
    commands = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    used = {m for c in commands for m in re.findall(r"\bmake ([a-z-]+)", c)}
    assert {"test", "verify"} <= used and used <= targets
    assert "--format $(VERIFY_FORMAT)" in makefile
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads the key `on` as True
    assert {"push", "schedule"} <= set(triggers), triggers


def test_the_scheduled_mutation_jobs_cover_every_module_make_mutation_knows():
    """`make mutation` knows the core and the guards (bench/mutation.py); the scheduled job runs one
    module per matrix entry, and together they must be all of them."""
    mutation = _mutation_script()
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())["jobs"]["mutation"]
    assert job["if"] == "github.event_name == 'schedule'"
    modules = {f"generator/{row['module']}.py" for row in job["strategy"]["matrix"]["include"]}
    assert len({row["name"] for row in job["strategy"]["matrix"]["include"]}) == len(modules)  # one report each
    assert modules == set(mutation.MODULES)
    [run] = [step["run"] for step in job["steps"] if "run" in step]
    assert run == "make mutation MUTATION_MODULES=generator/${{ matrix.module }}.py"


def _mutation_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mutation", ROOT / "bench" / "mutation.py")
    mutation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation)
    return mutation


def test_mutmut_runs_where_a_mutants_signal_reaches_no_other_process(capsys: pytest.CaptureFixture):
    """As root, mutmut runs in a PID namespace of its own, and not as its first process (that one
    inherits every orphan, and mutmut would take their ends for its mutants'); else a warning."""
    command = _mutation_script().isolation()
    if os.geteuid() != 0:
        assert command == [] and "without a PID namespace" in capsys.readouterr().err
        return
    seen = subprocess.run([*command, sys.executable, "-c", "import os; print(os.getpid(), "
                           "sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"],
                          capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert seen[0] == "2" and seen[1].strip() == "[1, 2]", seen  # sh, then mutmut's place: nothing else seen


def test_a_mutation_run_again_tests_the_survivors_with_the_current_code_and_tests(tmp_path: Path):
    """`--again` brings today's generator/, tests/ and test selection into the copy of the last run,
    mutates that one module only, and leaves mutmut the survivors to test again (killed ones and
    those explained as equivalent keep their verdict)."""
    mutation = _mutation_script()
    work = tmp_path / "verify"
    for folder in ("generator", "tests", "bench", "mutants/generator/citations"):
        (work / folder).mkdir(parents=True)
    (work / "generator" / "stale.py").write_text("# an older copy\n")
    (work / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    explained = next(iter(mutation.read_equivalents()))  # a survivor explained as equivalent
    names = {"generator.citations.verify.x_a__mutmut_1": 1, "generator.citations.verify.x_a__mutmut_2": 0,
             "generator.citations.verify.x_a__mutmut_3": 33, "generator.citations.verify.x_a__mutmut_4": None, explained: 0}
    (work / "mutants" / "generator" / "citations" / "verify.py.meta").write_text(json.dumps({"exit_code_by_key": names}))
    mutation.bring_in_current(work, "generator/citations/verify.py", ["tests/test_records.py", "tests/test_new.py"])
    codes = json.loads((work / "mutants" / "generator" / "citations" / "verify.py.meta").read_text())["exit_code_by_key"]
    assert list(codes.values()) == [1, None, None, None, 0]
    assert not (work / "generator" / "stale.py").exists()
    assert (work / "generator" / "citations" / "verify.py").read_text() == (ROOT / "generator" / "citations" / "verify.py").read_text()
    assert (work / "tests" / "conftest.py").is_file() and (work / "bench" / "mutation_order.py").is_file()
    config = (work / "pyproject.toml").read_text()
    assert 'only_mutate = ["generator/citations/verify.py"]' in config and "generator/citations/resolve.py" not in config
    assert 'pytest_add_cli_args_test_selection = ["tests/test_records.py", "tests/test_new.py"]' in config


def test_a_mutation_run_again_takes_up_a_function_listed_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`--again` on a module run on part of its functions tests the mutants without a verdict, and a
    function added to the list since (or freed of its decorator), of which the last run made no
    mutant, by its glob: mutmut then mutates it; nothing else is tested again."""
    mutation = _mutation_script()
    module = "generator/probes/install.py"
    monkeypatch.setitem(mutation.MODULES, module, ["_open", "PiInstall.node_modules"])
    meta = tmp_path / "mutants" / f"{module}.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"generator.probes.install.x__open__mutmut_1": 1,
                                                     "generator.probes.install.x__open__mutmut_2": None,
                                                     "generator.probes.install.x__tree__mutmut_1": None}}))
    assert mutation.untested(tmp_path, module) == ["generator.probes.install.x__open__mutmut_2",
                                                  "generator.probes.install.xǁPiInstallǁnode_modules__mutmut_*"]


def test_a_mutation_copy_unwraps_the_listed_decorated_functions_for_mutmut(tmp_path: Path):
    """mutmut leaves a decorated function alone: the copy of a module writes a listed one's decorator
    as an assignment after it (the same objects), and leaves the others as they are."""
    mutation = _mutation_script()
    module = tmp_path / "views.py"
    module.write_text("from functools import lru_cache\n\n\nclass Card:\n    @property\n    def page(self) -> str:\n"
                      "        return 'D1.md'\n\n    @property\n    def anchor(self) -> str:\n        return 'd1'\n\n\n"
                      "@lru_cache(maxsize=None)\ndef node(path: str) -> str:\n    \"\"\"Found once.\"\"\"\n"
                      "    return path\n")
    mutation.unwrap_decorators(module, ["Card.page", "node", "map_view"])
    text = module.read_text()
    assert text == ("from functools import lru_cache\n\n\nclass Card:\n    def page(self) -> str:\n        return 'D1.md'\n"
                    "    page = property(page)\n\n    @property\n    def anchor(self) -> str:\n        return 'd1'\n\n\n"
                    "def node(path: str) -> str:\n    \"\"\"Found once.\"\"\"\n    return path\n"
                    "node = lru_cache(maxsize=None)(node)\n")
    scope: dict = {}
    exec(compile(text, str(module), "exec"), scope)
    assert scope["Card"]().page == "D1.md" and scope["node"]("x") == "x" and scope["node"].cache_info().hits == 0


def test_the_pre_commit_hook_checks_only_changed_entries():
    hook = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert hook["entry"].endswith("generator verify --quiet") and re.match(hook["files"], "decisions/pi/D1.yaml")
    assert re.match(hook["exclude"], "decisions/pi/map.yaml")


@pytest.mark.network
def test_new_needs_a_group_for_a_file_no_entry_cites_and_notes_overlaps(pi_map, capsys):
    uncited = f"{PI}/auth-guidance.ts:1"  # a file no entry cites (yet)
    assert not any(uncited.split(":")[0] in p.read_text() for p in (pi_map / "pi").glob("*.yaml"))
    run = run_main(capsys, "new", uncited, "--decisions", pi_map)
    assert run.code == 2 and "give --group" in run.stderr and "C (" in run.stderr
    run = run_main(capsys, "new", f"{PI}/agent-session.ts:731-732", "--decisions", pi_map, "--group", "D")
    assert run.code == 0 and "D1 already cites agent-session.ts:723-746" in run.stderr


@pytest.mark.network
def test_an_unfinished_entry_does_not_block_starting_another(pi_map, capsys):
    first = run_main(capsys, "new", f"{PI}/skills.ts:428-454", "--decisions", pi_map, "--group", "C")
    second = run_main(capsys, "new", f"{PI}/skills.ts:428-430", "--decisions", pi_map, "--group", "C")
    assert first.code == 0 and second.code == 0, second.stderr
    numbers = sorted(int(p.stem[1:]) for p in (pi_map / "pi").glob("C*.yaml"))
    assert numbers[-2] + 1 == numbers[-1]


def test_the_command_line_explains_a_python_without_the_dependencies(tmp_path):
    import subprocess
    import sys as system

    # a Python that cannot import tree_sitter: a stub module that fails, first on the path
    (tmp_path / "tree_sitter.py").write_text("raise ModuleNotFoundError(name='tree_sitter')\n")
    done = subprocess.run([system.executable, "-m", "generator", "verify"], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and "Traceback" not in done.stderr and "make setup" in done.stderr
