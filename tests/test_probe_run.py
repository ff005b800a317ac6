"""Running a map's probes (generator/probes/run.py) without the registry: tiny probe scripts run by
`probe`'s own code in the real sandbox against a stand-in for pi laid into the test's cache
(probe_fixtures.py). What a person reads of each run: holds, fails with what differed, or could
not run and why, at which line; what is remembered and when a probe runs again; the site build
and `bump` refusing or recording what the probes say; `probe` stopped mid-run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import live_with, require
from generator.errors import Problem, UsageError
from generator.map.model import EditionProbe
from generator.probes import run as probe_run
from generator.probes.install import PiInstall
from generator.probes.run import (ProbeFailure, ProbeResult, ProbesStopped, check_ids, probe_flips, probed_entries,
                                  require_holding, run_probes, same_value, site_probes)
from generator.probes.sandbox import WEAK_WARNING, Limits, SandboxMissing, SandboxRun, choose_sandbox, stop_every_run
from generator.probes.install import find_node
from probe_fixtures import PIN, FakeNpm, cached_pi, probed_map, use_fake_npm

HOLDS = 'console.log("starting");\nconsole.log(JSON.stringify({ran: true, count: 2}));\n'
RANDOM = "console.log(JSON.stringify({ran: true, n: Math.random()}));\n"
VERSION = ('import { version } from "pi-demo";\n'
           'console.log(JSON.stringify({old: version === "1.0.0", version}));\n')


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    monkeypatch.chdir(tmp_path)
    for name in ("DECISION_MAP_PROBE_CACHE", "DECISION_MAP_SKIP_PROBES", "DECISION_MAP_PROBE_SANDBOX",
                 "DECISION_MAP_PROBE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("PROBE_")]:
        monkeypatch.delenv(name)
    return tmp_path


def by_id(results: list[ProbeResult]) -> dict[str, ProbeResult]:
    return {r.id: r for r in results}


def script_of(tmp_path: Path, entry_id: str) -> Path:
    return tmp_path / "decisions" / "demo" / "probes" / f"{entry_id}.mjs"


# --- one run: holds, fails, or could not run --------------------------------------------------------


def test_each_probe_holds_fails_or_says_why_it_could_not_run(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {
        "D1": (HOLDS, (("ran", True), ("count", 2))),
        "D2": ('console.log(JSON.stringify({ran: 1, said: "x"}));\n',
               (("ran", True), ("said", "y"), ("missing", None))),
        "D3": ('const a = 1;\nthrow new Error("boom");\n', (("ran", True),)),
        "D4": (None, (("ran", True),)),
        "D5": ("\n", (("ran", True),)),
        "D6": ('console.log("{}");\nconsole.log("middle");\nconsole.log("  done with it" + " and more".repeat(20) + "  ");'
               '\n\n', ()),
        "D7": ("console.log(JSON.stringify([1, 2]));\n", ()),
    }, unprobed=("D8",))
    cached_pi(demo)
    results = run_probes(demo)
    assert [r.id for r in results] == ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], "the map's order, probed only"
    r = by_id(results)
    sandbox = choose_sandbox().name
    assert r["D1"] == ProbeResult("demo", "D1", "holds", "what D1 shows", {"ran": True, "count": 2}, r["D1"].seconds,
                                  PIN, script_of(tmp_path, "D1"), sandbox=sandbox, expect=(("ran", True), ("count", 2)))
    assert 0 < r["D1"].seconds < Limits().seconds and r["D1"].message is None  # it was not stopped
    assert r["D2"].status == "fails" and r["D2"].result == {"ran": 1, "said": "x"}
    assert r["D2"].message == ('decisions/demo/probes/D2.mjs: does not hold with pi 1.0.0: ran: expected true, got 1; '
                               'said: expected "y", got "x"; missing: expected null, got nothing')
    assert r["D2"].seconds > 0 and not r["D2"].cached and r["D2"].line == 0
    assert (r["D3"].status, r["D3"].line, r["D3"].result) == ("error", 2, {})
    assert r["D3"].message == ("decisions/demo/probes/D3.mjs:2: the probe failed (exit code 1): Error: boom "
                               "(run with pi 1.0.0)")
    assert r["D3"].seconds > 0 and r["D3"].sandbox == sandbox and r["D3"].claim == "what D3 shows"
    assert r["D4"].message == ("decisions/demo/probes/D4.mjs: cannot read the probe: No such file or directory; "
                               "write it (see CONTRIBUTING.md)")
    assert (r["D4"].status, r["D4"].seconds, r["D4"].result, r["D4"].sandbox) == ("error", 0.0, {}, sandbox)
    assert r["D5"].reason == ("the probe printed nothing; print one JSON object (the result) as the last line of its "
                              "output (run with pi 1.0.0)")
    assert r["D6"].reason == ("the probe did not end with a JSON object (its last line is 'done with it and more and "
                              "more and more and more and more an'); print the result with "
                              "console.log(JSON.stringify(result)) last (run with pi 1.0.0)")
    assert r["D7"].reason == ('the probe printed JSON that is not an object as its last line; print an object such as '
                              '{"ran": true} (run with pi 1.0.0)')
    assert all(r[i].status == "error" and r[i].result == {} for i in ("D5", "D6", "D7"))


def test_only_the_probes_asked_for_run_in_the_maps_order(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, ()), "D2": (HOLDS, ()), "D3": (None, ())}, unprobed=("D4",))
    cached_pi(demo)
    assert [r.id for r in run_probes(demo, ids=["D3", "D1", "D4"])] == ["D1", "D3"]
    assert [e.id for e in probed_entries(demo)] == ["D1", "D2", "D3"]
    assert [e.id for e in probed_entries(demo, ["D2"])] == ["D2"]
    assert run_probes(probed_map(tmp_path / "none", {}, unprobed=("D1",))) == [], "nothing to run, nothing installed"


def test_a_probe_past_its_time_or_output_is_stopped_and_says_so(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": ("setInterval(() => {}, 1000);\n", ()),
                                 "D2": ('console.log("x".repeat(5000));\n', ())})
    cached_pi(demo)
    r = by_id(run_probes(demo, ids=["D1"], limits=Limits(seconds=1, output_bytes=1000)))
    assert r["D1"].reason.startswith("the probe did not finish within 1 s and was stopped with every process it "
                                     "started")
    assert r["D1"].seconds >= 1
    # the output limit with room to start: on a loaded machine Node can take a second to print at all
    r = by_id(run_probes(demo, ids=["D2"], limits=Limits(seconds=120, output_bytes=1000)))
    assert r["D2"].reason.startswith("the probe printed more than 1,000 bytes and was stopped")


def test_a_probe_that_closes_its_output_is_still_waited_for_and_heard(tmp_path: Path) -> None:
    """What a probe says is read to its end on both streams, whichever closes first; a probe that
    closed them is waited for until it exits, or stopped at its time limit."""
    close = 'import { closeSync } from "node:fs";\n'
    demo = probed_map(tmp_path, {
        # its result printed, both streams closed, then a moment's work before it exits
        "D1": (close + 'console.log(JSON.stringify({ran: true}));\ncloseSync(1);\ncloseSync(2);\n'
               'setTimeout(() => process.exit(0), 500);\n', (("ran", True),)),
        # stdout closed first, then the reason it fails on stderr
        "D2": (close + 'closeSync(1);\nsetTimeout(() => { console.error("late words"); process.exit(3); }, 300);\n', ()),
        # both closed, then it never ends
        "D3": (close + 'closeSync(1);\ncloseSync(2);\nsetInterval(() => {}, 1000);\n', ()),
    })
    cached_pi(demo)
    # (under bwrap, bwrap itself holds both streams open until the probe ends: closed only without it)
    alone = choose_sandbox(weak=True)
    r = by_id(run_probes(demo, ids=["D1", "D2"], sandbox=alone))
    assert r["D1"].status == "holds", r["D1"].message
    assert r["D2"].reason == "the probe failed (exit code 3): late words (run with pi 1.0.0)"
    [stuck] = run_probes(demo, ids=["D3"], limits=Limits(seconds=1), sandbox=alone)
    assert stuck.reason.startswith("the probe did not finish within 1 s and was stopped"), stuck.reason


def test_what_a_probe_prints_is_read_whatever_its_bytes(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 show as replacement characters, on stdout and stderr; a result of
    exactly the output limit is taken; an error naming the script's path in the sandbox names it
    as the reader knows it."""
    result = 'console.log(JSON.stringify({ran: true}));\n'
    demo = probed_map(tmp_path, {
        "D1": ('process.stdout.write(Buffer.from([0xff, 0xfe, 0x0a]));\n' + result, (("ran", True),)),
        "D2": ('process.stderr.write(Buffer.from([0x62, 0x61, 0x64, 0xff, 0x0a]));\nprocess.exit(4);\n', ()),
        "D3": ('import { fileURLToPath } from "node:url";\nimport { shared } from "./_shared.mjs";\n'
               'throw new Error(`${process.argv[1]} with ${fileURLToPath(new URL("./_shared.mjs", import.meta.url))}`);\n',
               ()),
        "D4": (result, (("ran", True),)),
    })
    (script_of(tmp_path, "D3").parent / "_shared.mjs").write_text("export const shared = 1;\n")
    cached_pi(demo)
    r = by_id(run_probes(demo, ids=["D1", "D2", "D3"]))
    assert r["D1"].status == "holds", r["D1"].message
    assert r["D2"].reason == "the probe failed (exit code 4): bad\ufffd (run with pi 1.0.0)"
    assert r["D3"].reason.startswith("the probe failed (exit code 1): Error: decisions/demo/probes/D3.mjs with "
                                     "decisions/demo/probes/_shared.mjs"), r["D3"].reason
    [exact] = run_probes(demo, ids=["D4"], limits=Limits(output_bytes=len(b'{"ran":true}\n')))
    assert exact.status == "holds", exact.message


def test_a_probe_reads_no_input(tmp_path: Path) -> None:
    """The probe's stdin is empty, not the terminal or pipe `probe` was started from (here a pipe
    that never ends: read from it, the probe would wait until its time limit)."""
    demo = probed_map(tmp_path, {"D1": ('import { readFileSync } from "node:fs";\n'
                                        'console.log(JSON.stringify({input: readFileSync(0, "utf8")}));\n',
                                        (("input", ""),))})
    cached_pi(demo)
    own_stdin = os.dup(0)
    never_ends, writer = os.pipe()
    os.dup2(never_ends, 0)
    try:
        [result] = run_probes(demo, limits=Limits(seconds=20))
    finally:
        os.dup2(own_stdin, 0)
        for fd in (own_stdin, never_ends, writer):
            os.close(fd)
    assert result.status == "holds", result.message


def test_a_probe_that_starts_too_many_processes_is_refused_them_and_told(tmp_path: Path) -> None:
    """The process limit holds for the probe's whole tree (its control group): past it, a new
    process is refused, and the failure says which limit it hit."""
    from generator.probes.limits import tree_limits

    require("control groups for a probe's whole tree", tree_limits() != "rlimit", "none can be made here")
    demo = probed_map(tmp_path, {"D1": (
        'import { spawn } from "node:child_process";\nlet started = 0;\n'
        'for (let i = 0; i < 60; i++) {\n'  # bounded: 60 at most, each gone within a minute
        '  await new Promise((resolve, reject) => { const child = spawn("sleep", ["60"], {stdio: "ignore"});\n'
        '    child.on("spawn", () => { started++; resolve(); }); child.on("error", reject); });\n'
        '}\nconsole.log(JSON.stringify({started}));\nprocess.exit(0);\n', ())})
    cached_pi(demo)
    [result] = run_probes(demo, limits=Limits(processes=40))
    assert result.reason is not None and result.reason.startswith(
        "the probe started more than 40 processes and threads at once, the limit for a probe"), result.reason


def test_a_bad_time_limit_in_the_environment_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, ())})
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "0")
    with pytest.raises(UsageError, match="DECISION_MAP_PROBE_TIMEOUT=0"):
        run_probes(demo)


def test_an_error_in_a_shared_module_names_the_modules_line(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": ('import { open } from "./_session.mjs";\nopen();\n', ())})
    (script_of(tmp_path, "D1").parent / "_session.mjs").write_text(
        'export function open() {\n  const a = 1;\n  throw new Error("no session");\n}\n')
    cached_pi(demo)
    [result] = run_probes(demo)
    assert result.message == ("decisions/demo/probes/D1.mjs:2: the probe failed (exit code 1): Error: no session at "
                              "decisions/demo/probes/_session.mjs:3 (run with pi 1.0.0)")


def test_a_shared_module_that_cannot_be_read_is_an_error_before_anything_runs(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    demo = probed_map(tmp_path, {"D1": ('import { open } from "./_session.mjs";\nopen();\n', ())})
    shared = script_of(tmp_path, "D1").parent / "_session.mjs"
    shared.write_text("export function open() {}\n")
    cached_pi(demo)
    read_bytes = Path.read_bytes

    def unreadable(path: Path) -> bytes:  # as a user without the right to read it (the tests run as root)
        if path == shared:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    [result] = run_probes(demo)
    assert result == ProbeResult("demo", "D1", "error", "what D1 shows", {}, 0.0, PIN, script_of(tmp_path, "D1"),
                                 reason="cannot read a module it imports: Permission denied",
                                 sandbox=choose_sandbox().name)
    assert not (probe_run.cache_root() / "probes").exists(), "nothing ran, nothing is remembered"


def test_the_first_shared_module_node_names_is_the_one_shown(tmp_path: Path) -> None:
    run = SandboxRun("", "at b (probes/_b.mjs:7)\nat a (probes/_a.mjs:4)\nat probes/_b.mjs:7\n", 1, 0.1, None, "x")
    beside = {"_a.mjs": (b"", "probes/_a.mjs"), "_b.mjs": (b"", "probes/_b.mjs"), "_c.mjs": (b"", "probes/_c.mjs")}
    assert probe_run._in_shared(run, beside) == " at probes/_b.mjs:7"
    assert probe_run._in_shared(run, {"_c.mjs": (b"", "probes/_c.mjs")}) == ""
    assert probe_run._in_shared(run, {}) == ""


def test_without_bwrap_nothing_is_installed_for_probes_that_cannot_run(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, (("ran", True),))})
    npm = FakeNpm({})
    use_fake_npm(monkeypatch, npm, {})
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(tmp_path / "no-bwrap"))
    with pytest.raises(SandboxMissing, match="bubblewrap"):
        run_probes(demo)
    assert npm.calls == [], "pi was not installed first"


def test_without_the_sandbox_the_run_warns_what_it_does_not_protect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, (("ran", True),))})
    cached_pi(demo)
    monkeypatch.setenv("DECISION_MAP_PROBE_SANDBOX", "node-only")
    [result] = run_probes(demo)
    assert result.status == "holds" and result.sandbox.startswith("node-only+")
    assert WEAK_WARNING in capsys.readouterr().err
    monkeypatch.delenv("DECISION_MAP_PROBE_SANDBOX")
    [result] = run_probes(demo)
    assert result.sandbox.startswith("bwrap+") and WEAK_WARNING not in capsys.readouterr().err
    assert result.cached is False, "what ran without the sandbox is not taken for what runs in it"
    [result] = run_probes(demo, sandbox=choose_sandbox(weak=True))  # `probe --no-sandbox`, which warns itself
    assert result.sandbox.startswith("node-only+") and capsys.readouterr().err == ""


# --- remembered results ---------------------------------------------------------------------------


def test_a_result_is_remembered_until_what_ran_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = probed_map(tmp_path, {"D1": (RANDOM, (("ran", True),)), "D2": (RANDOM + "// D2\n", (("ran", False),))})
    cached_pi(demo)
    cached_pi(demo, "1.1.0")
    first = by_id(run_probes(demo))
    again = by_id(run_probes(demo))
    assert [again[i].cached for i in ("D1", "D2")] == [True, True], "a fail is remembered too"
    assert again["D1"] == replace(first["D1"], cached=True), "the same result, and the time it took then"
    assert again["D2"] == replace(first["D2"], cached=True)

    def n_now(**changes) -> tuple[bool, float]:
        [r] = run_probes(demo, ids=["D1"], **changes)
        return r.cached, r.result["n"]

    n = first["D1"].result["n"]
    assert n_now(use_cache=False)[0] is False
    assert n_now() == (True, n), "a run without the cache remembers nothing"
    monkeypatch.setenv("DECISION_MAP_PROBE_CACHE", "off")
    assert n_now()[0] is False
    monkeypatch.setenv("DECISION_MAP_PROBE_CACHE", "on")
    assert n_now() == (True, n)
    assert n_now(target="1.1.0")[0] is False, "another version of pi"
    install = PiInstall(cached_pi(demo), PIN, ("pi-demo",), "another-digest")
    assert n_now(install=install)[0] is False, "another install"
    monkeypatch.setenv("PROBE_DEPTH", "3")
    assert n_now()[0] is False, "other PROBE_* settings"
    monkeypatch.setenv("PROBE_DEPTH", "4")
    assert n_now()[0] is False
    monkeypatch.delenv("PROBE_DEPTH")
    monkeypatch.setenv("NOT_A_PROBE_SETTING", "1")
    assert n_now() == (True, n), "only PROBE_* settings count"
    script_of(tmp_path, "D1").write_text(RANDOM + "// edited\n")
    assert n_now()[0] is False, "an edited script"


def test_another_node_sandbox_or_harness_is_another_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node, sandbox = find_node(), choose_sandbox()
    digest = probe_run._harness_digest(node, sandbox)
    assert len(digest) == 16 and digest == probe_run._harness_digest(node, sandbox)
    assert probe_run._harness_digest(replace(node, version="24.0.1"), sandbox) != digest
    assert probe_run._harness_digest(node, replace(sandbox, kind="node-only")) != digest
    harness = tmp_path / "sandbox.py"
    harness.write_text("# the harness\n")
    monkeypatch.setattr(probe_run, "_HARNESS_FILES", (harness,))
    before = probe_run._harness_digest(node, sandbox)
    harness.write_text("# the harness, edited\n")
    assert probe_run._harness_digest(node, sandbox) != before


def test_pi_is_installed_for_the_probes_and_a_person_told_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture) -> None:
    fake = FakeNpm({"pi-demo": "sha512-pi"})
    use_fake_npm(monkeypatch, fake, {"pi-demo": "sha512-pi"})
    demo = probed_map(tmp_path, {"D1": (VERSION, (("old", True),))})
    assert [r.status for r in run_probes(demo)] == ["holds"]
    assert len(fake.calls) == 1 and capsys.readouterr().err == "", "quiet by default"
    later = probed_map(tmp_path / "later", {"D1": (VERSION, (("old", False),))}, version="1.2.0")
    assert site_probes([later])["D1"].status == "holds"
    assert capsys.readouterr().err == "", "the site build installs quietly by default"
    later = probed_map(tmp_path / "later", {"D1": (VERSION, (("old", False),))}, version="1.2.1")
    assert site_probes([later], quiet=False)["D1"].result == {"old": False, "version": "1.2.1"}
    assert capsys.readouterr().err == "installing pi-demo@1.2.1 for probes\n"
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "a-cache"))
    assert probe_flips(demo, "1.3.0") == [EditionProbe("D1", "holds", "fails")]
    assert capsys.readouterr().err == "", "bump installs quietly by default"
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "another-cache"))  # pi at the pin to install too
    assert probe_flips(demo, "1.3.0", quiet=False) == [EditionProbe("D1", "holds", "fails")]
    assert capsys.readouterr().err == "installing pi-demo@1.0.0 for probes\ninstalling pi-demo@1.3.0 for probes\n"
    assert run_probes(demo, "1.4.0", quiet=False)[0].version == "1.4.0"
    assert capsys.readouterr().err == "installing pi-demo@1.4.0 for probes\n"
    assert len(fake.calls) == 8


def test_a_probe_sees_the_probe_settings_and_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = probed_map(tmp_path, {"D1": ("console.log(JSON.stringify({depth: process.env.PROBE_DEPTH ?? null, "
                                        "key: process.env.SECRET_KEY ?? null}));\n", ())})
    cached_pi(demo)
    monkeypatch.setenv("PROBE_DEPTH", "3")
    monkeypatch.setenv("SECRET_KEY", "hunter2")
    assert run_probes(demo)[0].result == {"depth": "3", "key": None}


SURROUNDINGS = """import { writeFileSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync, statfsSync } from "node:fs";
import { hostname } from "node:os";
import { execFileSync } from "node:child_process";
import { shared } from "./_shared.mjs";
const tries = (path) => { try { writeFileSync(path, "x"); return true; } catch { return false; } };
// only in the sandbox (no /probe elsewhere): the writes to the system's folders, and what is there
const inside = process.cwd() === "/probe";
// what a process not bound by Node's permission model may write (access(2): nothing is written)
const writable = (paths) => execFileSync("/bin/sh", ["-c", 'for p in "$@"; do [ -w "$p" ] && echo "$p"; done; true',
	"sh", ...paths], {encoding: "utf8"}).split("\\n").filter(Boolean);
const top = inside ? readdirSync("/").sort() : [];
console.log(JSON.stringify({
	env: process.env, cwd: process.cwd(), uid: process.getuid(), gid: process.getgid(), host: hostname(),
	user: readFileSync("/etc/passwd", "utf8").split("\\n").find((l) => l.startsWith("probe:")) ?? null,
	pi: realpathSync("node_modules/pi-demo"), args: process.execArgv, shared,
	writes: {here: tries("here.txt"), tmp: tries("/tmp/x"), home: tries(`${process.env.HOME}/x`),
	         usr: tries("/usr/x"), pi: tries("node_modules/pi-demo/x")},
	child: execFileSync("/bin/sh", ["-c", "ulimit -c; ulimit -v; pwd"], {encoding: "utf8"}),
	runtime: (statSync(process.env.XDG_RUNTIME_DIR).mode & 0o777).toString(8),
	...(inside ? {
		top: Object.fromEntries(top.map((name) => [name, statSync(`/${name}`, {throwIfNoEntry: false}) === undefined ? "?"
			: (() => { try { return `-> ${readlinkSync(`/${name}`)}`; } catch { return "folder"; } })()])),
		etc: readdirSync("/etc").sort(), group: readFileSync("/etc/group", "utf8"),
		probe: readdirSync("/probe").sort(), xdg: readdirSync("/probe/xdg").sort(),
		modes: Object.fromEntries(["D1.mjs", "_shared.mjs", "xdg/runtime"].map((p) => [p, (statSync(p).mode & 0o777).toString(8)])),
		mib: Object.fromEntries(["/tmp", "/probe"].map((p) => { const s = statfsSync(p); return [p, s.blocks * s.bsize / 2 ** 20]; })),
		writable: writable(["/", "/etc", "/etc/passwd", "/etc/group", "/etc/ld.so.cache", "/etc/alternatives", "/opt",
			"/opt/node/bin", "/opt/harness", "/opt/harness/offline.mjs", "/opt/pi", "/opt/pi/node_modules", "/usr",
			"/usr/lib", "/bin/", "/sbin/", "/lib/", "/lib64/", "/probe", "D1.mjs", "_shared.mjs", "/probe/xdg/runtime",
			"/tmp"]),
	} : {}),
}));
"""


def test_a_probe_runs_in_its_own_folder_with_a_clean_environment(tmp_path: Path) -> None:
    """What a probe finds around it, in the sandbox and under Node's permission model alone: its
    folder, the environment it is given, where it may write, the limits its children inherit."""
    demo = probed_map(tmp_path, {"D1": (SURROUNDINGS, ())})
    (script_of(tmp_path, "D1").parent / "_shared.mjs").write_text('export const shared = "beside it";\n')
    install = cached_pi(demo)
    node = find_node()
    flags = ["--permission", "--allow-fs-read=*", "--allow-fs-write={}", "--allow-child-process", "--allow-worker",
             "--max-old-space-size=512", "--disable-warning=ExperimentalWarning", "--disable-warning=SecurityWarning",
             "--import"]

    def environment(work: str, node_bin: str) -> dict:
        return {"PATH": f"{work}/node_modules/.bin:{node_bin}:/usr/local/bin:/usr/bin:/bin", "HOME": f"{work}/home",
                "TMPDIR": f"{work}/tmp", "TMP": f"{work}/tmp", "TEMP": f"{work}/tmp",
                **{f"XDG_{k.upper()}_HOME": f"{work}/xdg/{k}" for k in ("config", "cache", "data", "state")},
                "XDG_RUNTIME_DIR": f"{work}/xdg/runtime", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
                "NO_COLOR": "1", "TERM": "dumb", "SHELL": "/bin/sh", "USER": "probe", "LOGNAME": "probe"}

    [inside] = run_probes(demo)
    seen = inside.result
    assert inside.status == "holds" and seen["cwd"] == "/probe" and seen["env"] == {
        **environment("/probe", "/opt/node/bin"), "PWD": "/probe"}
    assert (seen["uid"], seen["gid"], seen["host"]) == (1000, 1000, "probe")
    assert seen["user"] == "probe:x:1000:1000:probe:/probe/home:/bin/sh"
    assert seen["pi"] == "/opt/pi/node_modules/pi-demo"
    assert seen["writes"] == {"here": True, "tmp": True, "home": True, "usr": False, "pi": False}
    assert seen["child"] == "0\n4194304\n/probe\n"  # no core dumps; 4096 MiB of address space a process
    assert seen["args"] == [f.format("/probe") for f in flags[:3]] + ["--allow-fs-write=/tmp", *flags[3:],
                                                                     "file:///opt/harness/offline.mjs"]
    # built from nothing: the system's folders as the machine has them (links where /usr is merged),
    # from /etc only what the dynamic linker and Debian's command links need, and its own user and group
    system = {t.lstrip("/"): f"-> {os.readlink(t)}" if os.path.islink(t) else "folder"
              for t in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32") if os.path.lexists(t)}
    assert seen["top"] == {**system, **{t: "folder" for t in ("dev", "etc", "opt", "probe", "proc", "tmp", "usr")}}
    assert seen["etc"] == sorted(["ld.so.cache", "alternatives", "passwd", "group"])
    assert seen["group"] == "root:x:0:\nprobe:x:1000:\n"
    assert seen["probe"] == ["D1.mjs", "_shared.mjs", "here.txt", "home", "node_modules", "tmp", "xdg"]
    assert seen["xdg"] == ["cache", "config", "data", "runtime", "state"]
    assert seen["shared"] == "beside it"
    assert seen["modes"] == {"D1.mjs": "444", "_shared.mjs": "444", "xdg/runtime": "700"}
    assert seen["mib"] == {"/tmp": 256, "/probe": 256}  # the folders a probe writes are bounded
    assert seen["writable"] == ["/probe", "/probe/xdg/runtime", "/tmp"], "only its folder and /tmp can be written"

    [alone] = run_probes(demo, sandbox=choose_sandbox(weak=True))
    seen = alone.result
    work = seen["cwd"]
    assert Path(work).parent.name.startswith("pi-probe-") and Path(work).parent.parent == Path(tempfile.gettempdir())
    assert seen["env"] == environment(work, str(node.bin_dir))
    assert seen["pi"] == str((install / "node_modules" / "pi-demo").resolve())
    # (the install, linked into the folder, is not checked here: Node's permission model follows the link)
    assert {k: v for k, v in seen["writes"].items() if k != "pi"} == {"here": True, "tmp": False, "home": True,
                                                                      "usr": False}
    assert seen["child"] == f"0\n4194304\n{work}\n"
    assert seen["runtime"] == "700", "XDG_RUNTIME_DIR is the probe's alone"
    assert seen["args"] == [f.format(work) for f in flags] + [(Path(probe_run.__file__).parent / "offline.mjs").as_uri()]
    assert not Path(work).parent.exists(), "the probe's folder is removed after its run"


def test_without_a_merged_usr_the_system_folders_are_bound_read_only(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine whose /bin, /lib… are folders rather than links into /usr (here: this machine's
    links taken for folders), each is bound read-only: the probe's shell runs from there, and may
    write none of them (asked with access(2): nothing is written). The 32-bit library folders this
    machine lacks, taken for links into /usr, are the same links in the sandbox."""
    tops = [t for t in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32") if os.path.isdir(t)]
    links = {t: f"usr{t}" for t in ("/lib32", "/libx32") if t not in tops}
    islink, readlink = os.path.islink, os.readlink
    monkeypatch.setattr(os.path, "islink", lambda path: path in links or (path not in tops and islink(path)))
    monkeypatch.setattr(os, "readlink", lambda path, **kw: links[path] if path in links else readlink(path, **kw))
    demo = probed_map(tmp_path, {"D1": (
        'import { lstatSync, readlinkSync } from "node:fs";\n'
        'import { execFileSync } from "node:child_process";\n'
        f'const tops = {json.dumps([t.lstrip("/") for t in tops])};\n'
        f'const links = {json.dumps([t.lstrip("/") for t in links])};\n'
        'console.log(JSON.stringify({folders: tops.filter((t) => lstatSync(`/${t}`).isDirectory()),\n'
        '  links: links.map((t) => { try { return readlinkSync(`/${t}`); } catch { return null; } }),\n'
        '  writable: execFileSync("/bin/sh", ["-c", \'for t in "$@"; do [ -w "/$t" ] && echo "$t"; done; echo ran\', "sh",\n'
        '    ...tops], {encoding: "utf8"})}));\n', ())})
    cached_pi(demo)
    [result] = run_probes(demo)
    assert result.result == {"folders": [t.lstrip("/") for t in tops], "links": list(links.values()),
                             "writable": "ran\n"}, result.message


@pytest.mark.parametrize("kind", ["bwrap", "node-only"])
def test_without_a_control_group_a_detached_child_is_stopped_with_its_probe(kind: str, tmp_path: Path) -> None:
    """Where no control group can be made, the processes a stopped probe started are found through
    /proc and killed with it, a detached one too (it leaves the probe's process group)."""
    from generator.probes.sandbox import Sandbox

    marker = f"detached-{uuid.uuid4().hex}"
    leader = f"leader-{uuid.uuid4().hex[:8]}"  # the probe's own Node, renamed to be found by it
    # and a grandchild in a session of its own, under a name holding ")" (as /proc/PID/stat shows it)
    demo = probed_map(tmp_path, {"D1": (
        f'process.title = "{leader}";\nimport {{ spawn }} from "node:child_process";\n'
        f'spawn(process.execPath, ["-e", "setInterval(() => {{}}, 1000)", "{marker}"], {{detached: true, stdio: "ignore"}})'
        '.unref();\n'
        'spawn("/bin/sh", ["-c", \'ln -s "$(command -v sleep)" "./)$1" && setsid "./)$1" 120 & wait\', "sh",\n'
        f'  "{marker}-grandchild"], {{detached: true, stdio: "ignore"}}).unref();\n'
        'setInterval(() => {}, 1000);\n', ())})
    cached_pi(demo)
    chosen = choose_sandbox(weak=kind == "node-only")
    try:
        [result] = run_probes(demo, limits=Limits(seconds=2), sandbox=Sandbox(chosen.kind, "rlimit", chosen.bwrap))
        assert result.sandbox == f"{kind}+rlimit" and result.reason.startswith("the probe did not finish within 2 s")
        assert live_with(marker) == [], "the detached child is gone once the probe's run is over"
        assert live_with(leader) == [], "the probe itself is gone once its run is over"
    finally:
        for pid in live_with(marker) + live_with(leader):  # (what a failure left behind)
            os.kill(pid, signal.SIGKILL)


def test_an_edited_shared_module_runs_the_probes_that_import_it_again(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": ('import { n } from "./_session.mjs";\n'
                                        'console.log(JSON.stringify({n, r: Math.random()}));\n', ()),
                                 "D2": (RANDOM, ())})
    shared = script_of(tmp_path, "D1").parent / "_session.mjs"
    shared.write_text("export const n = 1;\n")
    cached_pi(demo)
    first = by_id(run_probes(demo))
    assert first["D1"].result["n"] == 1
    assert all(r.cached for r in run_probes(demo))
    shared.write_text("export const n = 2;\n")
    again = by_id(run_probes(demo))
    assert (again["D1"].cached, again["D1"].result["n"], again["D2"].cached) == (False, 2, True)


def test_the_same_run_asked_twice_at_once_is_made_once(tmp_path: Path) -> None:
    # two entries with one script start together (two run at a time), as one probe does in the site's
    # build and in `probe` at the same moment: the later one waits, then reads what the other remembered
    slow = "await new Promise(done => setTimeout(done, 1500));\n" + RANDOM
    demo = probed_map(tmp_path, {"D1": (slow, ()), "D2": (slow, ())})
    cached_pi(demo)
    first, second = run_probes(demo)
    assert sorted([first.cached, second.cached]) == [False, True]
    assert first.result == second.result and first.status == second.status == "holds"
    assert first.seconds == second.seconds > 0  # the time the one run took, for both


def test_a_probe_waiting_for_the_same_run_elsewhere_is_not_run_once_probe_is_stopped(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from filelock import FileLock

    from generator.probes.sandbox import allow_runs

    demo = probed_map(tmp_path, {"D1": (RANDOM, ())})
    cached_pi(demo)
    run_probes(demo)  # remembered, and its lock's file made
    [remembered] = (probe_run.cache_root() / "probes").glob("*.json")
    remembered.unlink()
    [lock_file] = (probe_run.cache_root() / "locks").glob("probe-*.lock")
    assert lock_file.name == f"probe-{remembered.stem}.lock"
    held = FileLock(str(lock_file))  # another process running the very same probe
    held.acquire()
    waiting = threading.Event()
    wait_for_it = probe_run._alone_with

    def waits(key, limits):
        waiting.set()
        return wait_for_it(key, limits)

    def stop_once_it_waits() -> None:
        waiting.wait(60)
        time.sleep(0.3)  # (inside its wait for the lock by then; stopped at any point of it, the same)
        stop_every_run()

    monkeypatch.setattr(probe_run, "_alone_with", waits)
    stopper = threading.Thread(target=stop_once_it_waits)
    try:
        stopper.start()
        [result] = run_probes(demo)
    finally:
        stopper.join()
        held.release()
        allow_runs()
    assert waiting.is_set()
    assert (result.status, result.reason, result.seconds) == ("error", "not run: probe was stopped", 0.0)
    assert not remembered.exists()


def test_a_cache_with_no_room_for_locks_runs_the_probe_without_one(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": (RANDOM, ())})
    cached_pi(demo)
    (probe_run.cache_root() / "locks").write_text("a file where the locks' folder would be")
    [result] = run_probes(demo)
    assert (result.status, result.cached, result.result["ran"]) == ("holds", False, True)
    assert run_probes(demo)[0].cached is True  # remembered all the same


def test_a_probe_that_could_not_run_is_not_remembered(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": ('throw new Error("flaky");\n', ())})
    cached_pi(demo)
    run_probes(demo)
    assert run_probes(demo)[0].cached is False
    assert not (probe_run.cache_root() / "probes").exists() or not list((probe_run.cache_root() / "probes").iterdir())


def test_a_damaged_remembered_result_is_run_again(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": (RANDOM, ())})
    cached_pi(demo)
    run_probes(demo)
    [remembered] = (probe_run.cache_root() / "probes").glob("*.json")
    for stored in ("not json", '{"result": [1], "seconds": 1}', "[1, 2]", '{"seconds": 1}'):
        remembered.write_text(stored)
        assert run_probes(demo)[0].cached is False, stored
        assert json.loads(remembered.read_text())["result"]["ran"] is True, "and remembered anew"


def test_a_cache_that_cannot_be_written_costs_only_a_rerun(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, (("ran", True),))})
    cached_pi(demo)
    (probe_run.cache_root() / "probes").write_text("a file where the folder goes")
    [result] = run_probes(demo)
    assert result.status == "holds"
    err = capsys.readouterr().err
    assert f"note: could not remember a probe result in {probe_run.cache_root() / 'probes'}: " in err
    assert run_probes(demo)[0].cached is False


def test_a_remembered_result_is_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, ())})
    cached_pi(demo)
    # written beside its final name and renamed: the system's temporary folder may be another file
    # system (a tmpfs), where the rename would fail; here it is not even there
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-temporary-folder"))
    [result] = run_probes(demo)
    folder = probe_run.cache_root() / "probes"
    [remembered] = folder.iterdir()
    assert remembered.suffix == ".json" and len(remembered.stem) == 24
    assert json.loads(remembered.read_text()) == {"result": {"ran": True, "count": 2}, "seconds": result.seconds}
    assert capsys.readouterr().err == ""


# --- stopping `probe` ----------------------------------------------------------------------------


@pytest.mark.parametrize("to_another_thread", [False, True], ids=["to the process", "to another thread"])
def test_probe_stopped_by_sigterm_ends_every_sandbox_and_gives_the_signal_back(tmp_path: Path,
                                                                               to_another_thread: bool) -> None:
    marker = f"probe-{uuid.uuid4().hex}"
    hang = ('import { spawn } from "node:child_process";\n'
            f'spawn("sh", ["-c", "sleep 60; echo {marker}"]);\nsetInterval(() => {{}}, 1000);\n')
    demo = probed_map(tmp_path, {"D1": (hang, ()), "D2": (hang + "// D2\n", ())})  # (two runs, not one)
    cached_pi(demo)
    heard = []

    def mine(signum, frame) -> None:
        heard.append(signum)

    kept = signal.signal(signal.SIGTERM, mine)

    sent = []

    def stop_when_running() -> None:
        deadline = time.monotonic() + 30
        while len(live_with(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        sent.append(time.monotonic())
        if to_another_thread:  # (this thread: Python runs the handler in the main one, when it next runs)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
        else:
            os.kill(os.getpid(), signal.SIGTERM)

    try:
        threading.Thread(target=stop_when_running, daemon=True).start()
        with pytest.raises(ProbesStopped) as stopped:
            run_probes(demo, limits=Limits(seconds=120))
        assert time.monotonic() - sent[0] < 60, "stopped only at the probes' time limit (120 s)"
        assert stopped.value.signum == signal.SIGTERM and heard == []
        deadline = time.monotonic() + 10
        while live_with(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live_with(marker) == []
        assert signal.getsignal(signal.SIGTERM) is mine, "the handler it found is back"
        [again] = run_probes(probed_map(tmp_path / "later", {"D1": (HOLDS, ())}))
        assert again.status == "holds", "a later run in the same process runs"
    finally:
        signal.signal(signal.SIGTERM, kept)


@pytest.mark.parametrize("limited", ["as here", "rlimit"], ids=["limits as here", "without a control group"])
def test_a_probe_not_started_when_probe_is_stopped_never_starts(limited: str, tmp_path: Path) -> None:
    from generator.probes.sandbox import Sandbox

    marker = f"probe-{uuid.uuid4().hex}"
    hang = ('import { spawn } from "node:child_process";\n'
            f'spawn("sh", ["-c", "sleep 60; echo {marker}"]);\nsetInterval(() => {{}}, 1000);\n')
    # three scripts (the same one would run once: see test_probe.py)
    demo = probed_map(tmp_path, {"D1": (hang, ()), "D2": (hang + "// D2\n", ()), "D3": (hang + "// D3\n", ())})
    cached_pi(demo)

    def stop_when_running() -> None:  # what SIGINT's handler does (two probes run at a time)
        deadline = time.monotonic() + 30
        while len(live_with(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        stop_every_run()

    chosen = choose_sandbox()
    sandbox = chosen if limited == "as here" else Sandbox(chosen.kind, "rlimit", chosen.bwrap)
    threading.Thread(target=stop_when_running, daemon=True).start()
    results = by_id(run_probes(demo, limits=Limits(seconds=20), sandbox=sandbox))
    assert [results[i].status for i in ("D1", "D2")] == ["error", "error"], "ended with what they started"
    assert all(results[i].reason.startswith("the probe failed (signal 9)") for i in ("D1", "D2")), \
        "both killed by the stop, not at their time limit"
    assert results["D3"] == ProbeResult("demo", "D3", "error", "what D3 shows", {}, 0.0, PIN, script_of(tmp_path, "D3"),
                                        reason="not run: probe was stopped", sandbox=sandbox.name)
    assert live_with(marker) == []


def test_outside_the_main_thread_no_signal_is_taken(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, ())})
    cached_pi(demo)
    kept = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    seen = []
    thread = threading.Thread(target=lambda: seen.extend(run_probes(demo)))
    thread.start()
    thread.join()
    assert [r.status for r in seen] == ["holds"]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == kept


# --- what the results say, and the site build and `bump` --------------------------------------------


def result(entry_id: str, status: str, reason: str | None = None, line: int = 0) -> ProbeResult:
    return ProbeResult("demo", entry_id, status, f"what {entry_id} shows", {"ran": True}, 1.23456, PIN,
                       Path(f"/elsewhere/{entry_id}.mjs"), reason=reason, line=line, sandbox="bwrap+cgroup")


def test_the_json_row_of_a_result() -> None:
    assert result("D1", "holds").as_json() == {"map": "demo", "id": "D1", "status": "holds", "claim": "what D1 shows",
                                               "result": {"ran": True}, "seconds": 1.235, "sandbox": "bwrap+cgroup",
                                               "remembered": False}
    row = replace(result("D2", "error", "it broke", 4), cached=True).as_json()
    assert row["message"] == "/elsewhere/D2.mjs:4: it broke" and row["remembered"] is True
    assert result("D3", "fails", "no").message == "/elsewhere/D3.mjs: no"


def test_the_site_build_is_refused_on_a_probe_that_does_not_hold() -> None:
    require_holding([result("D1", "holds")])
    with pytest.raises(ProbeFailure) as refused:
        require_holding([result("D1", "holds"), result("D2", "fails", "does not hold"), result("D3", "error", None, 7)])
    assert refused.value.problems == [Problem(Path("/elsewhere/D2.mjs"), 0, "does not hold"),
                                      Problem(Path("/elsewhere/D3.mjs"), 7, "error")]


def test_ids_asked_for_must_be_probed_entries(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D2": (None, ()), "D1": (None, ())}, unprobed=("D3",))
    check_ids([demo], ["D1", "D2"])
    with pytest.raises(UsageError) as unknown:
        check_ids([demo], ["D1", "X9", "D3"])
    assert str(unknown.value) == "X9 is no entry's ID; probed entries: D1, D2"
    with pytest.raises(UsageError) as unprobed:
        check_ids([demo], ["D3", "X9"])
    assert str(unprobed.value) == "D3 has no probe: add `probe:` to it (see CONTRIBUTING.md); probed entries: D1, D2"
    with pytest.raises(UsageError, match="probed entries: none$"):
        check_ids([probed_map(tmp_path / "other", {}, unprobed=("D1",))], ["D1"])


def test_the_site_shows_each_result_and_refuses_one_that_does_not_hold(tmp_path: Path) -> None:
    demo = probed_map(tmp_path, {"D1": (HOLDS, (("ran", True),)), "D2": (HOLDS, (("count", 2),))})
    cached_pi(demo)
    shown = site_probes([demo])
    assert sorted(shown) == ["D1", "D2"] and shown["D2"].status == "holds" and shown["D1"].claim == "what D1 shows"
    wrong = probed_map(tmp_path / "wrong", {"D1": (HOLDS, (("ran", False),))})
    with pytest.raises(ProbeFailure, match="does not hold with pi 1.0.0: ran: expected false, got true"):
        site_probes([wrong])


def test_skipped_probes_leave_the_pages_without_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("DECISION_MAP_SKIP_PROBES", "1")
    demo = probed_map(tmp_path, {"D1": (None, ())})  # nothing installed: nothing may run
    assert site_probes([demo]) == {}
    assert capsys.readouterr().err == ("note: probes skipped (DECISION_MAP_SKIP_PROBES is set); the pages show no "
                                       "probe results\n")
    assert site_probes([probed_map(tmp_path / "none", {}, unprobed=("D1",))]) == {}
    assert capsys.readouterr().err == "", "no note where no probe would have run"
    assert probe_flips(demo, "1.1.0") == []
    assert capsys.readouterr().err == ("note: probes skipped (DECISION_MAP_SKIP_PROBES is set); the edition records no "
                                       "probe flips\n")
    assert probe_flips(probed_map(tmp_path / "none", {}, unprobed=("D1",)), "1.1.0") == []
    assert capsys.readouterr().err == "", "no note where no probe would have run"


def test_bump_records_the_probes_whose_outcome_changes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    demo = probed_map(tmp_path, {"D1": (VERSION, (("old", True),)), "D2": (VERSION, ()),
                                 "D3": (VERSION, (("old", False),))})
    cached_pi(demo)
    cached_pi(demo, "1.1.0")
    assert probe_flips(demo, "1.1.0") == [EditionProbe("D1", "holds", "fails"), EditionProbe("D3", "fails", "holds")]
    assert probe_flips(probed_map(tmp_path / "none", {}, unprobed=("D1",)), "1.1.0") == []
    assert capsys.readouterr().err == ""


# --- JSON equality ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("expected", "actual", "same"), [
    (True, True, True), (True, 1, False), (1, True, False), (False, 0, False), (0, False, False),
    (1, 1.0, True), (2.5, 2.5, True), (1, 2, False), ("1", 1, False), (1, "1", False), (None, None, True),
    (None, 0, False), ("a", "a", True), ("a", "b", False), ([1], [1], True), ([1], (1,), False),
    ({"a": 1}, {"a": 1}, True), (False, False, True), (True, False, False),
])
def test_json_equality_is_strict_about_types(expected, actual, same: bool) -> None:
    assert same_value(expected, actual) is same


class _StandInGroup:
    """A control group that joins nothing and, asked to kill, does ``on_kill`` (the real one's kill
    can fail: cgroup.kill refused, the group gone)."""

    def __init__(self, on_kill) -> None:
        self.on_kill = on_kill

    def join(self) -> None:
        pass

    def kill(self) -> None:
        self.on_kill()


def _killed(process: subprocess.Popen) -> bool:
    """Whether ``process`` (this test's child, not waited for) was sent SIGKILL: at once, not once it
    has died (a SIGKILL is pending, it is exiting, or it is dead)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{process.pid}/status").read_text().splitlines())
    pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
    exiting = int(Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[6]) & 0x4  # PF_EXITING
    return fields["State"].strip()[0] in "ZX" or bool(pending & 1 << (signal.SIGKILL - 1)) or bool(exiting)


def _other_group() -> subprocess.Popen:
    """A process group of the test's own, asleep: the one a finished run's id could be given to next."""
    return subprocess.Popen(["sleep", "60"], start_new_session=True)


def _recorded_runs(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen]:
    """The processes started from now on, as they start."""
    started: list[subprocess.Popen] = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    return started


def test_a_run_whose_group_could_not_be_killed_is_no_run_to_stop_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Killing the run's control group fails (the error reaches the user); the run is over all the
    same: a later stop of `probe` neither fails on it again nor kills whatever process group now
    has its id (stood in for by one of this test's own: the kernel reuses ids)."""
    from generator.probes.sandbox import Sandbox, _supervise, allow_runs

    other = _other_group()
    started = _recorded_runs(monkeypatch)

    def refused() -> None:
        raise OSError(19, "No such device", "cgroup.kill")

    try:
        with pytest.raises(OSError, match="No such device"):
            _supervise(["/bin/sh", "-c", "exit 0"], None, {}, Limits(), Sandbox("node-only", "cgroup2"),
                       _StandInGroup(refused), [])
        started[0].pid = other.pid  # its id, given to another group
        stop_every_run()
        assert not _killed(other), "a stop killed the process group that took a finished run's id"
    finally:
        allow_runs()
        other.kill()
        other.wait()


def test_a_stop_while_a_finished_run_is_cleared_away_spares_its_old_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """`probe` is stopped (SIGTERM) while a run that ended on its own is still being cleared away:
    its leader is gone, its id may be another's by then (stood in for by one of this test's own
    process groups), and the stop kills only what still runs."""
    from generator.probes.sandbox import Sandbox, _supervise, allow_runs

    other = _other_group()
    started = _recorded_runs(monkeypatch)

    def stopped_meanwhile() -> None:  # what SIGTERM's handler does, arriving at this moment
        if started[0].pid == other.pid:
            return  # (the stop kills this group too)
        pid, started[0].pid = started[0].pid, other.pid
        try:
            stop_every_run()
        finally:
            started[0].pid = pid

    try:
        run = _supervise(["/bin/sh", "-c", "exit 0"], None, {}, Limits(), Sandbox("node-only", "cgroup2"),
                         _StandInGroup(stopped_meanwhile), [])
        assert run.exit_code == 0
        assert not _killed(other), "a stop killed the process group that took a finished run's id"
    finally:
        allow_runs()
        other.kill()
        other.wait()


def test_a_run_that_cannot_be_watched_is_stopped_not_left_running(monkeypatch: pytest.MonkeyPatch) -> None:
    """No file descriptor left to watch its output: the error reaches the user, and what was
    started is stopped, not left running unwatched for a later stop to find."""
    from generator.probes import sandbox

    sandbox.allow_runs()  # (a test before it may have left every run stopped)
    started = _recorded_runs(monkeypatch)

    def no_descriptor_left() -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(sandbox.selectors, "DefaultSelector", no_descriptor_left)
    with pytest.raises(OSError, match="Too many open files"):
        sandbox._supervise(["sleep", "60"], None, {"PATH": os.defpath}, Limits(), sandbox.Sandbox("node-only", "rlimit"),
                           None, [])
    try:
        assert started[0].poll() is not None, "the run was left running"
    finally:
        started[0].kill()
        started[0].wait()
