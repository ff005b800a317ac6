"""What `probe` prints and its exit code, from the results a run gives (pi itself is not run here:
the real probes are in test_probe.py). The table a person reads, the JSON a script reads, the
`fails:`/`error:` lines on stderr, and 0 / 1 / 2 for holds / fails / could not run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import entry_yaml, make_project, run_main
from generator.probes.run import ProbeResult
from generator.probes.sandbox import Sandbox


def result(entry_id: str, status: str, outcome: dict, seconds: float, **more) -> ProbeResult:
    return ProbeResult("demo", entry_id, status, f"what {entry_id} shows", outcome, seconds, "1",
                       Path(f"/elsewhere/probes/{entry_id}.mjs"), sandbox="bwrap+cgroup", **more)


HOLDS = result("D1", "holds", {"asked": False, "ran": True}, 1.234)
FAILS = result("D2", "fails", {"said": "x" * 100}, 0.5, cached=True, reason="expected said: y, got x")
ERROR = result("D3", "error", {}, 12.0, reason="exited with code 1", line=7)


@pytest.fixture
def decisions(tmp_path: Path) -> Path:
    cites = [("src/a.ts", 1)]
    return make_project(tmp_path, {"1": {"src/a.ts": "export const a = 1;\n"}},
                        {f"D{n}": entry_yaml(f"D{n}", cites) for n in (1, 2, 3)}).decisions


def probe(capsys, monkeypatch, decisions: Path, results: list[ProbeResult], *args: str,
          sandbox: Sandbox = Sandbox("bwrap", "cgroup1", "/usr/bin/bwrap")):
    import generator.probes.run
    import generator.probes.sandbox

    monkeypatch.setattr(generator.probes.run, "run_probes", lambda decision_map, target, ids, quiet=True, limits=None,
                        sandbox=None: [replace(r, version=target or "1") for r in results])
    monkeypatch.setattr(generator.probes.sandbox, "choose_sandbox",
                        lambda weak=False: Sandbox("node-only", sandbox.limits) if weak else sandbox)
    return run_main(capsys, "probe", "--decisions", decisions, *args)


def test_the_table_shows_each_probe_and_the_counts(capsys, monkeypatch, decisions) -> None:
    run = probe(capsys, monkeypatch, decisions, [HOLDS, FAILS, ERROR])
    assert run.stdout.splitlines() == [
        "ID  STATUS  SECONDS        RESULT",
        'D1  holds   1.23           {"asked": false, "ran": true}',
        'D2  fails   0.50 (cached)  {"said": "' + "x" * 80,
        "D3  error   12.00          -",
        "",
        "3 probe(s) with pi 1: 1 holds, 1 fails, 1 error (sandbox: bubblewrap: no network, read-only system, its own "
        "processes; memory and processes limited for the whole tree (cgroup v1))",
    ]
    assert run.stderr.splitlines() == ["fails: /elsewhere/probes/D2.mjs: expected said: y, got x",
                                       "error: /elsewhere/probes/D3.mjs:7: exited with code 1"]
    assert run.code == 2, "a probe that could not run is exit 2, whatever the others did"


def test_the_sandbox_named_is_the_one_used(capsys, monkeypatch, decisions) -> None:
    run = probe(capsys, monkeypatch, decisions, [HOLDS], "--target", "2", sandbox=Sandbox("bwrap", "rlimit", "b"))
    assert run.stdout.splitlines()[-1] == ("1 probe(s) with pi 2: 1 holds (sandbox: bubblewrap: no network, "
                                           "read-only system, its own processes; memory limited per process only "
                                           "(no control group can be made here))")
    assert run.code == 0 and run.stderr == ""


def test_without_the_sandbox_the_run_says_what_it_does_not_protect(capsys, monkeypatch, decisions) -> None:
    run = probe(capsys, monkeypatch, decisions, [HOLDS], "--no-sandbox")
    assert run.stdout.splitlines()[-1].endswith("(sandbox: Node's permission model only, NOT a sandbox for the "
                                                "processes a probe starts; memory and processes limited for the "
                                                "whole tree (cgroup v1))")
    [warning] = run.stderr.splitlines()
    assert warning.startswith("warning: probes run without the sandbox (--no-sandbox)")
    for unprotected in ("read and write every file you can", "reach the network", "environment (API keys)"):
        assert unprotected in warning


@pytest.mark.parametrize(("results", "code"), [([HOLDS], 0), ([HOLDS, FAILS], 1), ([FAILS], 1), ([ERROR], 2),
                                               ([], 0)], ids=["holds", "one-fails", "fails", "error", "none"])
def test_exit_code_says_whether_every_probe_holds(capsys, monkeypatch, decisions, results, code) -> None:
    run = probe(capsys, monkeypatch, decisions, results)
    assert run.code == code, run.stderr
    if not results:
        assert run.stdout.splitlines()[-1].startswith("0 probe(s) with pi 1: no probes (sandbox: ")


def test_the_json_holds_every_probe_with_its_message(capsys, monkeypatch, decisions) -> None:
    run = probe(capsys, monkeypatch, decisions, [HOLDS, ERROR], "--format", "json")
    assert run.stdout.startswith('{\n "target": "1",\n "probes": [\n  {\n   "map": "demo",')
    assert json.loads(run.stdout) == {"target": "1", "probes": [
        {"map": "demo", "id": "D1", "status": "holds", "claim": "what D1 shows", "result": {"asked": False, "ran": True},
         "seconds": 1.234, "sandbox": "bwrap+cgroup", "remembered": False},
        {"map": "demo", "id": "D3", "status": "error", "claim": "what D3 shows", "result": {}, "seconds": 12.0,
         "sandbox": "bwrap+cgroup", "remembered": False, "message": "/elsewhere/probes/D3.mjs:7: exited with code 1"}]}
    assert run.code == 2
