"""The probe sandbox against hostile probes: each attack below is a probe script written the way the
project's are, run by the real harness under bubblewrap, as the user running the tests (root in CI).
Each test fails when its attack is not contained.

Every attack starts with a guard: it compares its own user, mount, process and network namespaces
with the test's (passed in PROBE_HOST_NS) and, when any is the same, does nothing but say so, and
the test fails. An attack can therefore only act inside a sandbox, never on this machine.
Network attacks aim at a listener this test opens on 127.0.0.1 and at 192.0.2.1 (TEST-NET-1,
reserved for documentation: no host answers there), never at a real host.

Also here: SIGTERM, SIGHUP, SIGINT and SIGKILL to `probe` mid-run, an install edited after it was
made, P1 against an edited copy of pi's bundle, and the messages of issue 24's point 7.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, live_with, python_env, require, run_cli, run_main, send_signal
from generator.map.load import load_maps
from generator.probes.run import run_probes
from generator.probes.install import PiInstall, _open, find_node, install_pi
from generator.probes.limits import PREFIX, tree_limits
from generator.probes.sandbox import Limits, SandboxMissing, choose_sandbox, run_sandboxed
from test_probe import add_probe, needs_node, probe_map

NAMESPACES = ("user", "mnt", "pid", "net")

GUARD = """import { readlinkSync as __link } from "node:fs";
{
	const host = JSON.parse(process.env.PROBE_HOST_NS ?? "{}");
	const same = Object.keys(host).length !== 4 || Object.entries(host).some(([ns, id]) => __link(`/proc/self/ns/${ns}`) === id);
	if (same) {
		console.log(JSON.stringify({ guard_refused: "not in fresh user, mount, pid and network namespaces: the attack did not run" }));
		process.exit(0);
	}
}
"""

# Run a shell command in the probe (a child process: Node's permission model does not bind it)
SHELL = """import { spawnSync } from "node:child_process";
const sh = (command, timeout = 10000) => {
	const done = spawnSync("/bin/bash", ["-c", command], { encoding: "utf8", timeout });
	return { code: done.status, out: (done.stdout + done.stderr).trim().slice(0, 300) };
};
"""


def host_namespaces() -> str:
    return json.dumps({ns: os.readlink(f"/proc/self/ns/{ns}") for ns in NAMESPACES})


@pytest.fixture
def sandboxed(pi_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's pi install, bwrap (required: CI installs it), the guard's namespaces."""
    needs_node()
    try:
        choose_sandbox()
    except SandboxMissing as err:
        require("bubblewrap (bwrap)", False, str(err))
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    monkeypatch.setenv("PROBE_HOST_NS", host_namespaces())
    monkeypatch.delenv("DECISION_MAP_PROBE_SANDBOX", raising=False)
    return pi_cache


def attack(tmp_path: Path, body: str, limits: Limits | None = None, may_fail: bool = False):
    """Run ``body`` (after the guard) as a probe under bwrap; the result it printed, and the run."""
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", GUARD + body)
    [pi] = load_maps(decisions)
    [result] = run_probes(pi, use_cache=False, limits=limits)
    assert "guard_refused" not in result.result, "the attack did not run in a sandbox"
    assert result.status != "error" or may_fail, result.message
    return result


def installed(pi_cache: Path, tmp_path: Path) -> PiInstall:
    [pi] = load_maps(probe_map(tmp_path / "map", []))
    return install_pi(pi, pi.version, quiet=True)


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.open = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.open:
            try:
                connection, _ = self.server.accept()
                self.accepted += 1
                connection.close()
            except OSError:
                pass

    def close(self) -> None:
        self.open = False
        self.thread.join()
        self.server.close()


# --- the attacks ------------------------------------------------------------------------------------


@pytest.mark.network
def test_the_attack_guard_refuses_outside_a_sandbox(sandboxed: Path, tmp_path: Path) -> None:
    """The guard itself: with the test's own namespaces, a script under it does nothing."""
    script = tmp_path / "guarded.mjs"
    script.write_text(GUARD + 'console.log(JSON.stringify({ acted: true }));\n')
    done = subprocess.run([str(find_node().binary), str(script)], capture_output=True, text=True, timeout=60,
                          env={"PROBE_HOST_NS": host_namespaces(), "PATH": os.defpath})
    assert json.loads(done.stdout)["guard_refused"].startswith("not in fresh")


@pytest.mark.network
def test_remounting_read_write_is_refused(sandboxed: Path, tmp_path: Path) -> None:
    install = installed(sandboxed, tmp_path)
    result = attack(tmp_path, SHELL + """
const target = "/opt/pi/node_modules/@earendil-works/pi-coding-agent/dist/core/tools/edit-diff.js";
console.log(JSON.stringify({
	remount_root: sh("mount -o remount,bind,rw / 2>&1").code,
	remount_install: sh("mount -o remount,bind,rw /opt/pi 2>&1").code,
	remount_usr: sh("mount -o remount,rw /usr 2>&1").code,
	umount_proc: sh("umount -l /proc 2>&1").code,
	new_mount: sh("mount -t tmpfs none /probe/tmp 2>&1").code,
	wrote_install: sh(`echo 'globalThis.poisoned = 1;' >> ${target}`).code,
	wrote_usr: sh("touch /usr/decision-map-pwned").code,
	cap_eff: sh("grep CapEff /proc/self/status").out,
}));
""")
    r = result.result
    assert all(r[k] != 0 for k in ("remount_root", "remount_install", "remount_usr", "umount_proc", "new_mount",
                                   "wrote_install", "wrote_usr")), r
    assert r["cap_eff"].endswith("0000000000000000"), r
    assert _open(install.root, install.version, install.packages) == install  # not one file changed
    assert not Path("/usr/decision-map-pwned").exists()


@pytest.mark.network
def test_entering_other_namespaces_is_refused(sandboxed: Path, tmp_path: Path) -> None:
    listener = Listener()
    try:
        result = attack(tmp_path, SHELL + f"""
console.log(JSON.stringify({{
	nsenter_net_of_pid1: sh("nsenter --net=/proc/1/ns/net -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/{listener.port}' 2>&1").code,
	nsenter_all_of_pid1: sh("nsenter -t 1 -a true 2>&1").code,
	new_user_namespace: sh("unshare -Ur true 2>&1").code,
	new_net_namespace: sh("unshare -n true 2>&1").code,
	host_pid_visible: sh("test -e /proc/{os.getpid()}/environ").code === 0,
	processes_seen: sh("ls /proc | grep -c '^[0-9]'").out,
}}));
""")
    finally:
        listener.close()
    r = result.result
    assert r["nsenter_all_of_pid1"] != 0 and r["new_user_namespace"] != 0 and r["new_net_namespace"] != 0, r
    assert listener.accepted == 0, "the probe reached the test's listener"
    assert r["host_pid_visible"] is False and int(r["processes_seen"]) < 20, r


@pytest.mark.network
def test_other_processes_environment_is_out_of_reach(sandboxed: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sk-fake-{random.getrandbits(64):x}"
    monkeypatch.setenv("FAKE_API_KEY", secret)
    monkeypatch.setenv("GITHUB_TOKEN", secret)
    holder = subprocess.Popen(["sleep", "120"], env={"FAKE_API_KEY": secret})
    try:
        result = attack(tmp_path, SHELL + f"""
import {{ readdirSync, readFileSync }} from "node:fs";
let seen = 0;
for (const pid of readdirSync("/proc").filter((n) => /^\\d+$/.test(n))) {{
	try {{ if (readFileSync(`/proc/${{pid}}/environ`, "latin1").includes("{secret}")) seen++; }} catch {{}}
}}
console.log(JSON.stringify({{
	secret_seen: seen,
	own_environment_has_it: JSON.stringify(process.env).includes("{secret}"),
	holder_environ: sh("cat /proc/{holder.pid}/environ 2>&1").code,
	test_environ: sh("cat /proc/{os.getpid()}/environ 2>&1").code,
	grep_everything: sh("grep -rl {secret} /proc/*/environ /etc /tmp 2>/dev/null | head -3").out,
	shadow: sh("cat /etc/shadow 2>&1").code,
	root_home: sh("ls /root 2>&1").code,
	homes: sh("ls /home 2>&1").code,
	project: sh("ls {ROOT} 2>&1").code,
}}));
""")
    finally:
        holder.kill()
        holder.wait()
    r = result.result
    assert r["secret_seen"] == 0 and not r["own_environment_has_it"] and r["grep_everything"] == "", r
    assert all(r[k] != 0 for k in ("holder_environ", "test_environ", "shadow", "root_home", "homes", "project")), r


@pytest.mark.network
def test_ptrace_reaches_no_process_outside(sandboxed: Path, tmp_path: Path) -> None:
    require("python3 in /usr/bin (the attack's ptrace)", Path("/usr/bin/python3").exists(), "no /usr/bin/python3")
    target = subprocess.Popen(["sleep", "120"])
    try:
        result = attack(tmp_path, SHELL + f"""
const ptrace = (pid) => sh(`/usr/bin/python3 -c "import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); \\
r = libc.ptrace(16, {{}}, 0, 0); print(r, os.strerror(ctypes.get_errno())); sys.exit(0 if r == 0 else 1)"`.replace("{{}}", pid));
console.log(JSON.stringify({{
	attach_host_process: ptrace({target.pid}),
	attach_test: ptrace({os.getpid()}),
	strace_host: sh("strace -p {target.pid} -e trace=none 2>&1", 3000).code,
}}));
""")
        alive = target.poll() is None
        traced = Path(f"/proc/{target.pid}/status").read_text()
    finally:
        target.kill()
        target.wait()
    r = result.result
    assert r["attach_host_process"]["code"] != 0 and r["attach_test"]["code"] != 0, r
    assert r["strace_host"] != 0, r
    assert alive and "TracerPid:\t0" in traced


@pytest.mark.network
def test_a_setuid_binary_gains_nothing(sandboxed: Path, tmp_path: Path) -> None:
    mount = Path("/usr/bin/mount")
    require("a setuid-root /usr/bin/mount (util-linux)", mount.exists() and bool(mount.stat().st_mode & stat.S_ISUID),
            "no setuid mount here")
    install = installed(sandboxed, tmp_path)
    result = attack(tmp_path, SHELL + """
console.log(JSON.stringify({
	no_new_privs: sh("grep NoNewPrivs /proc/self/status").out,
	setuid_mount: sh("/usr/bin/mount -o remount,rw /opt/pi 2>&1").code,
	setuid_su: sh("/usr/bin/su -c id root < /dev/null 2>&1").code,
	euid_after_setuid: sh("/usr/bin/mount --version > /dev/null; id -u").out,
	copied_setuid: sh("cp /usr/bin/id /probe/id && chmod u+s /probe/id && /probe/id -u").out,
}));
""")
    r = result.result
    assert r["no_new_privs"].endswith("1") and r["setuid_mount"] != 0 and r["setuid_su"] != 0, r
    assert r["euid_after_setuid"] != "0" and r["copied_setuid"] != "0", r
    assert _open(install.root, install.version, install.packages) == install


@pytest.mark.network
def test_the_install_cache_cannot_be_written(sandboxed: Path, tmp_path: Path) -> None:
    install = installed(sandboxed, tmp_path)
    before = sorted(p.name for p in sandboxed.iterdir())
    result = attack(tmp_path, SHELL + f"""
import {{ writeFileSync }} from "node:fs";
const tool = "node_modules/@earendil-works/pi-coding-agent/dist/core/tools/edit-diff.js";
const attempt = (fn) => {{ try {{ fn(); return "wrote"; }} catch (e) {{ return e.code ?? "failed"; }} }};
console.log(JSON.stringify({{
	node_install: attempt(() => writeFileSync(`/opt/pi/${{tool}}`, "poisoned")),
	node_through_link: attempt(() => writeFileSync(`node_modules/../${{tool}}`, "poisoned")),
	child_install: sh(`echo poisoned > /opt/pi/${{tool}}`).code,
	child_through_link: sh(`echo poisoned > $(readlink -f node_modules)/@earendil-works/pi-ai/package.json`).code,
	child_host_cache: sh("mkdir -p {sandboxed}/installs/pwned && echo x > {install.root}/pwned").code,
	child_manifest: sh("echo {{}} > /opt/pi/.decision-map-install.json").code,
}}));
""")
    r = result.result
    assert r["node_install"] != "wrote" and r["node_through_link"] != "wrote", r
    assert all(r[k] != 0 for k in ("child_install", "child_through_link", "child_host_cache", "child_manifest")), r
    assert _open(install.root, install.version, install.packages) == install
    assert sorted(p.name for p in sandboxed.iterdir()) == before and not (install.root / "pwned").exists()


@pytest.mark.network
def test_no_connection_leaves_the_sandbox(sandboxed: Path, tmp_path: Path) -> None:
    listener = Listener()
    port = listener.port
    child_connect = ("const s = require('node:net').connect({port: +process.argv[2], host: process.argv[3]});"
                     "s.setTimeout(3000, () => { console.log('timeout'); process.exit(2); });"
                     "s.on('connect', () => { console.log('reached'); process.exit(0); });"
                     "s.on('error', (e) => { console.log(e.code); process.exit(1); });")
    try:
        result = attack(tmp_path, SHELL + f"""
import {{ connect }} from "node:net";
import {{ writeFileSync }} from "node:fs";
const viaNode = (port, host) => new Promise((resolve) => {{
	try {{
		const s = connect(port, host);
		s.setTimeout(3000, () => resolve("timeout"));
		s.on("connect", () => resolve("reached")).on("error", (e) => resolve(e.code ?? "error"));
	}} catch (e) {{ resolve(e.code ?? "refused"); }}
}});
// a Node started through the shell with an empty environment: without the harness's preload, and
// without the permission flags Node passes on to a Node it starts itself
writeFileSync("connect.cjs", {json.dumps(child_connect)});
const bare = (port, host) => {{
	const done = spawnSync("/bin/sh", ["-c", `env -i /opt/node/bin/node connect.cjs ${{port}} ${{host}}`],
		{{ encoding: "utf8", timeout: 10000 }});
	return {{ code: done.status, said: (done.stdout + done.stderr).trim().slice(0, 120) }};
}};
console.log(JSON.stringify({{
	node_local: await viaNode({port}, "127.0.0.1"),
	node_public: await viaNode(80, "192.0.2.1"),
	fetch_public: await (async () => fetch("http://192.0.2.1/", {{ signal: AbortSignal.timeout(3000) }}))()
		.then(() => "reached", (e) => e.code ?? e.name),
	bare_node_local: bare({port}, "127.0.0.1"),
	bare_node_public: bare(80, "192.0.2.1"),
	bash_local: sh("timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>&1"),
	bash_public: sh("timeout 3 bash -c 'exec 3<>/dev/tcp/192.0.2.1/80' 2>&1"),
	interfaces: sh("cat /proc/net/dev | tail -n +3 | cut -d: -f1").out,
}}));
""")
    finally:
        listener.close()
    r = result.result
    assert listener.accepted == 0, f"the probe reached the test's listener: {r}"
    assert "reached" not in (r["node_local"], r["node_public"], r["fetch_public"]), r
    for key in ("bare_node_local", "bare_node_public", "bash_local", "bash_public"):
        assert r[key]["code"] != 0 and "reached" not in r[key]["said" if "node" in key else "out"], (key, r)
    assert r["bare_node_public"]["said"] == "ENETUNREACH", r  # no route at all, not a slow timeout
    assert r["interfaces"].split() == ["lo"], r


@pytest.mark.network
def test_a_detached_child_does_not_outlive_the_probe(sandboxed: Path, tmp_path: Path) -> None:
    marker = f"{300 + random.randint(1, 10**6) / 10**7:.7f}"  # a unique sleep, to find it by
    result = attack(tmp_path, f"""
import {{ spawn }} from "node:child_process";
spawn("sleep", ["{marker}"], {{ detached: true, stdio: "ignore" }}).unref();
spawn("setsid", ["-f", "sh", "-c", "sleep {marker}"], {{ detached: true, stdio: "ignore" }}).unref();
spawn("sh", ["-c", "nohup sleep {marker} > /dev/null 2>&1 &"], {{ detached: true, stdio: "ignore" }}).unref();
await new Promise((resolve) => setTimeout(resolve, 500));
console.log(JSON.stringify({{ started: true }}));
""")
    assert result.result == {"started": True}
    assert live_with(marker) == [], "a process of the probe outlived it"


@pytest.mark.network
def test_a_fork_storm_stops_at_the_process_limit(sandboxed: Path, tmp_path: Path) -> None:
    require("control groups for a probe's whole tree (cgroup v2, or v1's memory and pids)",
            tree_limits() != "rlimit", "none can be made here; the process count is then limited per user only")
    marker = f"{200 + random.randint(1, 10**6) / 10**7:.7f}"
    result = attack(tmp_path, f"""
import {{ spawn }} from "node:child_process";
let started = 0, refused = 0;
for (let i = 0; i < 600; i++) {{  // bounded: 600 at most
	await new Promise((resolve) => {{
		const child = spawn("sleep", ["{marker}"], {{ stdio: "ignore" }});
		child.on("spawn", () => {{ started++; resolve(); }});
		child.on("error", () => {{ refused++; resolve(); }});
	}});
}}
console.log(JSON.stringify({{ started, refused }}));
process.exit(0);  // the sleeping children would keep Node's event loop alive
""")
    r = result.result
    assert r["started"] < Limits().processes and r["refused"] > 0, r
    assert live_with(marker) == []


@pytest.mark.network
def test_memory_spread_over_several_processes_is_limited_as_a_whole(sandboxed: Path, tmp_path: Path) -> None:
    require("control groups for a probe's whole tree (cgroup v2, or v1's memory and pids)",
            tree_limits() != "rlimit", "none can be made here; memory is then limited per process only")
    hold = ("const b = Buffer.alloc(200 * 2 ** 20, 1); console.log('held ' + b.length);"
            "setTimeout(() => {}, 4000);")
    result = None
    result = attack(tmp_path, f"""
import {{ spawn }} from "node:child_process";
const children = Array.from({{ length: 4 }}, () => new Promise((resolve) => {{
	const child = spawn("/opt/node/bin/node", ["-e", {json.dumps(hold)}], {{ stdio: ["ignore", "pipe", "ignore"] }});
	let said = "";
	child.stdout.on("data", (d) => {{ said += d; }});
	child.on("close", (code, signal) => resolve({{ held: said.startsWith("held"), code, signal }}));
}}));
const ended = await Promise.all(children);
console.log(JSON.stringify({{ held_to_the_end: ended.filter((c) => c.code === 0).length,
	killed: ended.filter((c) => c.signal === "SIGKILL").length }}));
""", limits=Limits(memory_mb=512), may_fail=True)
    if result.status == "error":  # the kernel chose the probe's own process
        assert "ran out of memory: its processes together passed 512 MiB" in result.message
    else:
        assert result.result["held_to_the_end"] * 200 <= 512 and result.result["killed"] >= 1, result.result


# --- `probe` stopped mid-run --------------------------------------------------------------------------


HANGS = """import { spawn } from "node:child_process";
spawn("sleep", ["MARKER"], { detached: true, stdio: "ignore" }).unref();
spawn("sleep", ["MARKER"]);
setInterval(() => {}, 1000);
"""


@pytest.mark.network
@pytest.mark.parametrize(("how", "kind", "to_another_thread"),
                         [(signal.SIGTERM, "bwrap", False), (signal.SIGHUP, "bwrap", False),
                          (signal.SIGINT, "bwrap", False), (signal.SIGKILL, "bwrap", False),
                          (signal.SIGTERM, "node-only", False), (signal.SIGTERM, "bwrap", True)],
                         ids=["SIGTERM", "SIGHUP", "SIGINT", "SIGKILL", "SIGTERM-node-only",
                              "SIGTERM-on-another-thread"])
def test_probe_stopped_mid_run_leaves_no_process_and_no_folder(how: signal.Signals, kind: str, to_another_thread: bool,
                                                               sandboxed: Path, tmp_path: Path) -> None:
    marker = f"{400 + random.randint(1, 10**6) / 10**7:.7f}"
    installed(sandboxed, tmp_path)  # before: run first, `probe` would install pi with npm, which writes in $TMPDIR
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", HANGS.replace("MARKER", marker))
    temp = tmp_path / "temp"
    temp.mkdir()
    # a time limit far off: on a busy machine the probe's start alone (the install checked, node
    # started in the sandbox) has taken over a minute, and the stop must come from the signal
    env = python_env(TMPDIR=str(temp), DECISION_MAP_PROBE_TIMEOUT="900", DECISION_MAP_PROBE_CACHE="off",
                     **({"DECISION_MAP_PROBE_SANDBOX": "node-only"} if kind == "node-only" else {}))
    started = time.monotonic()
    # started as from a terminal, where Ctrl-C interrupts: a suite launched in the background by a
    # script (`cmd &`, no job control) has SIGINT ignored, every child inherits that, and a `probe`
    # that keeps an ignored SIGINT ignored is right, not stuck
    process = subprocess.Popen([sys.executable, "-m", "generator", "probe", "--decisions", str(decisions), "--quiet"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while len(live_with(marker)) < 2 and time.monotonic() - started < 600 and process.poll() is None:
            time.sleep(0.1)
        assert len(live_with(marker)) == 2, f"the probe never started: {process.poll()}"
        send_signal(process.pid, how, to_another_thread=to_another_thread)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert time.monotonic() - signalled < 120, "stopped only at the time limit"
    if how == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 128 + how, stderr
        said = "interrupted" if how == signal.SIGINT else f"stopped by {how.name}"
        assert f"{said}; nothing was changed" in stderr and "Traceback" not in stderr, stderr
    deadline = time.monotonic() + 5
    while live_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_with(marker) == [], "a process of the probe outlived `probe`"
    assert list(temp.iterdir()) == [], "a folder of the probe was left behind"
    groups = [f for base in _group_bases() for f in base.glob(f"{PREFIX}{process.pid}-*")]
    if how == signal.SIGKILL:  # nothing could clean up: the next `probe` removes what is left
        add_probe(decisions, "D1", 'console.log(JSON.stringify({ ran: true }));\n')
        assert run_cli("probe", "--decisions", decisions, "--quiet", env={"TMPDIR": str(temp)}).code == 0
        groups = [f for f in groups if f.exists()]
    assert groups == [], "a control group of the probe was left behind"


def _group_bases() -> list[Path]:
    from generator.probes.limits import _found

    return list(_found()[1])


# --- installed code is verified -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def install_copy(tmp_path_factory: pytest.TempPathFactory, pi_cache: Path) -> Path:
    """A cache holding a copy of the session's pi install (tests edit the copy, never the install)."""
    needs_node()
    cache = tmp_path_factory.mktemp("copied-cache")
    saved = os.environ.get("DECISION_MAP_CACHE")
    os.environ["DECISION_MAP_CACHE"] = str(pi_cache)
    try:
        [pi] = load_maps(probe_map(tmp_path_factory.mktemp("map"), []))
        install = install_pi(pi, pi.version, quiet=True)
    finally:
        if saved is None:
            os.environ.pop("DECISION_MAP_CACHE")
        else:
            os.environ["DECISION_MAP_CACHE"] = saved
    target = cache / install.root.relative_to(pi_cache)
    shutil.copytree(install.root, target, symlinks=True)
    return cache


@pytest.mark.network
def test_an_edited_install_is_refused_not_answered_from_memory(install_copy: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECISION_MAP_CACHE", str(install_copy))
    monkeypatch.delenv("DECISION_MAP_PROBE_CACHE", raising=False)
    decisions = probe_map(tmp_path, ["E8"])
    first = run_cli("probe", "E8", "--decisions", decisions, "--format", "json", "--quiet")
    assert first.code == 0, first.stderr
    again = run_cli("probe", "E8", "--decisions", decisions, "--format", "json", "--quiet")
    assert again.json()["probes"][0]["remembered"] is True
    [tool] = install_copy.glob("installs/*/*/node_modules/@earendil-works/pi-coding-agent/dist/core/tools/edit-diff.js")
    tool.write_text(tool.read_text() + "\nglobalThis.poisoned = true;\n")
    started = time.monotonic()
    refused = run_cli("probe", "E8", "--decisions", decisions, "--format", "json", "--quiet")
    assert refused.code == 2 and refused.stdout == "", refused.stdout
    assert f"error: {tool}: was edited since pi 1.6.0 was installed; probes do not run code that differs" \
           in refused.stderr, refused.stderr
    assert "remove the folder" in refused.stderr and "Traceback" not in refused.stderr
    assert time.monotonic() - started < 30


def test_the_install_check_names_what_changed(tmp_path: Path) -> None:
    """Added, removed, edited, touched-only and re-linked files, on a small install made by hand."""
    from generator.probes.install import INSTALL_FORMAT, MANIFEST, InstallChanged, _entry, _tree, _tree_digest

    root = tmp_path / "1.0.0"
    (root / "node_modules" / "p" / ".bin").mkdir(parents=True)
    (root / "node_modules" / "p" / "package.json").write_text('{"version": "1.0.0"}')
    (root / "node_modules" / "p" / "index.js").write_text("export const a = 1;\n")
    os.symlink("../index.js", root / "node_modules" / "p" / ".bin" / "p")
    files = {path: _entry(root / path) for path in _tree(root)}
    (root / MANIFEST).write_text(json.dumps({"format": INSTALL_FORMAT, "version": "1.0.0", "packages": ["p"],
                                             "tree_sha256": _tree_digest(files), "files": files}))
    assert _open(root, "1.0.0", ("p",)).digest == _tree_digest(files)[:16]
    index = root / "node_modules" / "p" / "index.js"
    os.utime(index, ns=(0, 0))  # touched, same content: still the install
    assert _open(root, "1.0.0", ("p",)) is not None
    for change, says in ((lambda: index.write_text("export const a = 2;\n"), "index.js: was edited"),
                         (lambda: (root / "node_modules" / "p" / "new.js").write_text(""), "new.js: was added"),
                         (lambda: index.unlink(), "index.js: was removed"),
                         (lambda: index.chmod(0o755), "index.js: changed mode")):
        kept = {p: (root / p).read_bytes() for p in ("node_modules/p/index.js",)}
        change()
        with pytest.raises(InstallChanged) as refused:
            _open(root, "1.0.0", ("p",))
        assert says in str(refused.value) and "since pi 1.0.0 was installed" in str(refused.value)
        (root / "node_modules" / "p" / "new.js").unlink(missing_ok=True)
        index.write_bytes(kept["node_modules/p/index.js"])
        index.chmod(0o644)
        os.chmod(index, files["node_modules/p/index.js"][5])
    link = root / "node_modules" / "p" / ".bin" / "p"
    link.unlink()
    os.symlink("../package.json", link)
    with pytest.raises(InstallChanged, match=r"\.bin/p: was changed"):
        _open(root, "1.0.0", ("p",))
    # the manifest itself edited to match is caught by its own digest
    manifest = json.loads((root / MANIFEST).read_text())
    manifest["files"]["node_modules/p/.bin/p"] = ["->../package.json"]
    (root / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InstallChanged, match="the manifest of the install was edited"):
        _open(root, "1.0.0", ("p",))



def test_the_install_opened_is_the_one_asked_for_and_a_refusal_names_the_folder_to_remove(tmp_path: Path) -> None:
    """An install is used only for the version and packages its manifest names (a folder copied or
    renamed under another version is not it), its folder and version are the ones probes then run
    in, and every refusal says which folder to remove. A linked folder (npm links packages so) is
    part of the install: pointed elsewhere, it is refused."""
    from generator.probes.install import INSTALL_FORMAT, MANIFEST, InstallChanged, _entry, _tree, _tree_digest

    root = tmp_path / "1.0.0"
    (root / "node_modules" / "p").mkdir(parents=True)
    (root / "node_modules" / "p" / "index.js").write_text("export const a = 1;\n")
    (root / "node_modules" / "other").mkdir()
    os.symlink("p", root / "node_modules" / "q")  # a linked package: a link to a folder
    files = {path: _entry(root / path) for path in _tree(root)}
    assert "node_modules/q" in files and files["node_modules/q"] == ["->p"]
    (root / MANIFEST).write_text(json.dumps({"format": INSTALL_FORMAT, "version": "1.0.0", "packages": ["p"],
                                             "tree_sha256": _tree_digest(files), "files": files}))
    opened = _open(root, "1.0.0", ("p",))
    assert (opened.root, opened.version, opened.packages) == (root, "1.0.0", ("p",))
    assert _open(root, "2.0.0", ("p",)) is None  # another version: not this install
    assert _open(root, "1.0.0", ("p", "r")) is None  # other packages: not this install
    reinstall = f"remove the folder {root} to install it again from the registry"
    (root / "node_modules" / "q").unlink()
    os.symlink("other", root / "node_modules" / "q")
    with pytest.raises(InstallChanged) as refused:
        _open(root, "1.0.0", ("p",))
    assert str(refused.value) == (f"{root / 'node_modules' / 'q'}: was changed since pi 1.0.0 was installed; probes "
                                  f"do not run code that differs from the install; {reinstall}")
    manifest = json.loads((root / MANIFEST).read_text())
    manifest["files"]["node_modules/q"] = ["->other"]
    (root / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InstallChanged) as refused:
        _open(root, "1.0.0", ("p",))
    assert str(refused.value) == f"{root / MANIFEST}: the manifest of the install was edited; {reinstall}"


@pytest.mark.network
def test_p1_fails_when_pis_bundle_joins_the_parts_differently(install_copy: Path, sandboxed: Path) -> None:
    """P1 runs what `pi` runs: the same change made in dist/cli/initial-message.js alone (the file the
    probe used to import) would not reach it, so only the bundle is changed here."""
    [root] = install_copy.glob("installs/*/*")
    bundle = root / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle"
    [chunk] = [f for f in bundle.rglob("*.js") if "function buildInitialMessage" in f.read_text()]
    text = chunk.read_text()
    assert text.count('initialMessage:parts.length>0?parts.join("")') == 1
    chunk.write_text(text.replace('initialMessage:parts.length>0?parts.join("")',
                                  'initialMessage:parts.length>0?parts.join("\\n")'))
    node = find_node()
    script = ROOT / "decisions" / "pi" / "probes" / "P1.mjs"
    try:
        changed = PiInstall(root, "1.6.0", (), "edited")
        run = run_sandboxed(script.read_bytes(), "P1.mjs", node, changed, Limits(), "P1.mjs", choose_sandbox())
    finally:
        chunk.write_text(text)
    assert run.exit_code == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["message"] == "hello\nTranslate" and result["joined_without_separator"] is False, result


# --- messages (issue 24, point 7) -----------------------------------------------------------------------


@pytest.mark.network
@pytest.mark.parametrize(("script", "says"), [
    ('throw new Error("boom");\n', "failed (exit code 1): Error: boom"),
    ('import "./nowhere.mjs";\n', "failed (exit code 1): Error [ERR_MODULE_NOT_FOUND]: Cannot find module"),
    ('import { nothing } from "@earendil-works/pi-ai";\n', "SyntaxError: The requested module"),
], ids=["bare-error", "missing-file", "missing-export"])
def test_a_probe_that_throws_is_reported_by_its_error(script: str, says: str, sandboxed: Path, tmp_path: Path) -> None:
    decisions = probe_map(tmp_path, [])
    add_probe(decisions, "D1", script)
    [pi] = load_maps(decisions)
    [result] = run_probes(pi, use_cache=False)
    assert result.status == "error" and says in result.message, result.message
    assert "Node.js v" not in result.message


def test_a_dependency_missing_from_the_registry_is_named() -> None:
    from generator.source.fetch import _npm_failure

    # npm 11's words for `npm install @earendil-works/pi-coding-agent@0.99.1` (a dependency never published)
    said = ("npm error code ETARGET\nnpm error notarget No matching version found for @earendil-works/chord@^0.99.1.\n"
            "npm error notarget In most cases you or one of your dependencies are requesting\n")
    what = "@earendil-works/pi-agent-core@0.99.1, @earendil-works/pi-coding-agent@0.99.1"
    assert _npm_failure(said, what) == (f"{what} cannot be installed: a package it depends on, "
                                        "@earendil-works/chord@^0.99.1, is not in the npm registry")
    own = "npm error 404 Not Found - GET https://registry.npmjs.org/@earendil-works%2fpi-ai - Not found\n"
    assert _npm_failure(own, "@earendil-works/pi-ai@9.9.9") == ("@earendil-works/pi-ai@9.9.9 is not in the npm "
                                                                "registry (unknown package or version)")
    gone = "npm error 404  '@other/dep@2.0.0' is not in this registry.\n"
    assert "a package it depends on, @other/dep@2.0.0, is not in the npm registry" in _npm_failure(gone, what)


@pytest.mark.parametrize("target", ["1.6", "latest", "^1.6.0", "../../../x", "1.6.0/../../x", "1.6.0 "])
def test_a_target_that_is_not_an_exact_release_is_refused_at_once(target: str, tmp_path: Path, cache: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    decisions = probe_map(tmp_path, ["P1"])
    started = time.monotonic()
    run = run_main(capsys, "probe", "--decisions", decisions, "--target", target)
    assert run.code == 2 and time.monotonic() - started < 5
    assert f"error: --target {target}: give an exact pi release such as 1.6.0" in run.stderr, run.stderr
    assert not (cache / "installs").exists() and not (cache / "locks").exists()
    assert not list(tmp_path.parent.glob("x*")) and not (tmp_path / "x").exists()


@pytest.mark.parametrize("value, seconds", [("0.5", 0.5), ("1", 1.0), (" 90 ", 90.0), ("3600", 3600.0), ("", 60.0)])
def test_a_probe_timeout_above_0_and_up_to_an_hour_is_taken(value: str, seconds: float,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", value)
    assert Limits.from_environment() == Limits(seconds=seconds)


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "3601"])
def test_a_bad_probe_timeout_is_refused(value: str, tmp_path: Path, capsys: pytest.CaptureFixture,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", value)
    run = run_main(capsys, "probe", "--decisions", probe_map(tmp_path, ["P1"]))
    assert run.code == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"error: DECISION_MAP_PROBE_TIMEOUT={value}: give each probe's time limit in "
                                 "seconds, a number above 0"), run.stderr
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "2.5")
    assert Limits.from_environment().seconds == 2.5


def test_without_bwrap_probe_exits_2_saying_what_to_install(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(tmp_path / "no-bwrap"))
    run = run_main(capsys, "probe", "--decisions", probe_map(tmp_path, ["P1"]))
    assert run.code == 2 and "Traceback" not in run.stderr and run.stdout == ""
    [line] = [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]
    assert line.startswith("error: probes run pi's code in a sandbox, and bubblewrap (bwrap) is not installed at ")
    assert "apt-get install bubblewrap" in line and "--no-sandbox" in line
    monkeypatch.setenv("DECISION_MAP_PROBE_SANDBOX", "namespaces")
    run = run_main(capsys, "probe", "--decisions", probe_map(tmp_path / "again", ["P1"]))
    assert run.code == 2 and ("error: DECISION_MAP_PROBE_SANDBOX=namespaces: the sandbox is bwrap (the default) or "
                              "node-only (the same as --no-sandbox)\n") in run.stderr



def test_the_sandbox_chosen_is_the_one_asked_for_and_every_result_says_which(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-sandbox and DECISION_MAP_PROBE_SANDBOX=node-only each ask for Node's permission model
    alone, and the results say so; otherwise bwrap (here one that makes its sandbox: a stand-in
    that succeeds), named in every result."""
    monkeypatch.delenv("DECISION_MAP_PROBE_SANDBOX", raising=False)
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(fake))
    limited = "cgroup" if tree_limits().startswith("cgroup") else "rlimit"
    weak = choose_sandbox(weak=True)
    assert (weak.kind, weak.limits, weak.bwrap, weak.name) == ("node-only", tree_limits(), "", f"node-only+{limited}")
    assert weak.describe().startswith("Node's permission model only, NOT a sandbox")
    strong = choose_sandbox()
    assert (strong.kind, strong.limits, strong.bwrap, strong.name) == ("bwrap", tree_limits(), str(fake),
                                                                       f"bwrap+{limited}")
    assert strong.describe().startswith("bubblewrap: no network")
    monkeypatch.setenv("DECISION_MAP_PROBE_SANDBOX", "node-only")
    assert choose_sandbox() == weak
    monkeypatch.setenv("DECISION_MAP_PROBE_SANDBOX", "bwrap")
    assert choose_sandbox() == strong


def test_bwrap_that_cannot_make_its_sandbox_is_no_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A bwrap that fails (user namespaces restricted here) refuses the run too: no quiet fallback."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(fake))
    run = run_main(capsys, "probe", "--decisions", probe_map(tmp_path, ["P1"]))
    assert run.code == 2
    assert f"error: {fake} cannot make its sandbox here (bwrap: setting up uid map: Permission denied)" in run.stderr


@pytest.fixture
def bwrap_checked_anew(monkeypatch: pytest.MonkeyPatch):
    """Which bwrap works is found once per process (choose_sandbox keeps the answer): each test here
    has it found anew, with its own PATH and stand-ins, and leaves no stand-in's answer kept."""
    from generator.probes.sandbox import _working_bwrap

    monkeypatch.delenv("DECISION_MAP_BWRAP", raising=False)
    monkeypatch.delenv("DECISION_MAP_PROBE_SANDBOX", raising=False)
    _working_bwrap.cache_clear()
    yield
    _working_bwrap.cache_clear()


def stand_in_bwrap(folder: Path, script: str, name: str = "bwrap") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / name
    fake.write_text(script)
    fake.chmod(0o755)
    return fake


def test_the_bwrap_found_is_the_one_on_path_or_else_usr_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            bwrap_checked_anew: None) -> None:
    """Without DECISION_MAP_BWRAP, the bwrap on PATH makes the sandbox (here a stand-in that
    succeeds); without one on PATH, /usr/bin/bwrap, which must then make a real sandbox here,
    whatever else PATH holds: here not even `true` (the check once ran PATH's `true` in the
    sandbox, and refused a working bwrap where PATH had none)."""
    from generator.probes.sandbox import _working_bwrap

    require("bubblewrap in /usr/bin", os.access("/usr/bin/bwrap", os.X_OK), "no /usr/bin/bwrap")
    on_path = stand_in_bwrap(tmp_path / "bin", "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert choose_sandbox().bwrap == str(on_path)
    _working_bwrap.cache_clear()
    (tmp_path / "nothing").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert choose_sandbox().bwrap == "/usr/bin/bwrap"


def test_bwrap_not_installed_anywhere_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           bwrap_checked_anew: None) -> None:
    """No bwrap on PATH nor in /usr/bin (this machine's hidden): the message names no path, only
    what to install."""
    from generator.probes.sandbox import BWRAP_HINT

    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: path != "/usr/bin/bwrap" and access(path, mode))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SandboxMissing) as refused:
        choose_sandbox()
    assert str(refused.value) == f"probes run pi's code in a sandbox, and bubblewrap (bwrap) is not installed: {BWRAP_HINT}"


def test_the_real_bwrap_is_taken_once_it_makes_the_probes_sandbox_here(bwrap_checked_anew: None) -> None:
    """The check makes the sandbox the probes run in (every namespace, no capability, a read-only
    root): here it works, and the bwrap on PATH is the one chosen."""
    require("bubblewrap", shutil.which("bwrap") is not None, "apt-get install bubblewrap")
    assert choose_sandbox().bwrap == shutil.which("bwrap")


@pytest.mark.parametrize("script, said", [
    ("#!/bin/sh\necho 'bwrap: setting up' >&2\necho 'bwrap: No permissions to create new namespace' >&2\n"
     "echo '   ' >&2\necho >&2\nexit 3\n", "bwrap: No permissions to create new namespace"),
    ("#!/bin/sh\nexit 1\n", "no message"),
], ids=["its last line", "silent"])
def test_a_bwrap_that_fails_is_refused_with_its_last_words(script: str, said: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           bwrap_checked_anew: None) -> None:
    from generator.probes.sandbox import BWRAP_HINT

    fake = stand_in_bwrap(tmp_path, script)
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(fake))
    with pytest.raises(SandboxMissing) as refused:
        choose_sandbox()
    assert str(refused.value) == (f"{fake} cannot make its sandbox here ({said}); where user namespaces are restricted "
                                  "(Ubuntu 24.04's AppArmor, kernel.unprivileged_userns_clone=0), allow them for bwrap; "
                                  f"{BWRAP_HINT}")


def test_a_bwrap_that_cannot_be_run_or_hangs_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        bwrap_checked_anew: None) -> None:
    """A file that is not a program, and a bwrap that never answers (cut short here: its wait
    scaled down a hundredfold)."""
    from generator.probes import sandbox
    from generator.probes.sandbox import BWRAP_HINT

    garbage = stand_in_bwrap(tmp_path / "garbage", "not a program\n")
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(garbage))
    with pytest.raises(SandboxMissing) as refused:
        choose_sandbox()
    assert str(refused.value) == (f"{garbage} could not be run ([Errno 8] Exec format error: '{garbage}'); "
                                  f"{BWRAP_HINT}")
    hangs = stand_in_bwrap(tmp_path / "hangs", "#!/bin/sh\nexec sleep 60\n")
    monkeypatch.setenv("DECISION_MAP_BWRAP", str(hangs))
    run = subprocess.run
    monkeypatch.setattr(sandbox.subprocess, "run",
                        lambda *args, timeout=None, **kw: run(*args, timeout=timeout and timeout / 100, **kw))
    with pytest.raises(SandboxMissing) as refused:
        choose_sandbox()
    assert str(refused.value).startswith(f"{hangs} could not be run (Command '") and "timed out after" in str(refused.value)


# --- what went wrong, in a user's words (the line `probe` prints for a run that gave no result) -------------

NODE_END = "\n\nNode.js v24.1.0\n"
NETWORK = "tried to use the network ({}); probes run offline: script the model with pi-ai's fauxProvider instead"
OUTSIDE = "tried to write outside its folder{}; a probe may only write in its working folder (process.cwd()), TMPDIR and /tmp"


@pytest.mark.parametrize("stopped, exit_code, ran_out_of, stderr, said", [
    ("timeout", None, None, "", "did not finish within 2.5 s and was stopped with every process it started; make it "
     "finish sooner (a scripted model needs no waiting), or set DECISION_MAP_PROBE_TIMEOUT"),
    ("output", None, "memory", "", "printed more than 1,000,000 bytes and was stopped; print only the one JSON object "
     "of the result, on the last line"),
    (None, 0, None, "a warning", None),
    (None, 0, "memory", "", None),
    (None, -9, "memory", "Error: DECISION_MAP_PROBE_NETWORK: net.connect is blocked",
     "ran out of memory: its processes together passed 3072 MiB, and the kernel ended one of them"),
    (None, 1, None, "Error: DECISION_MAP_PROBE_NETWORK: http.request is blocked: probes run without the network"
     + NODE_END, NETWORK.format("http.request")),
    (None, 1, None, "Error: DECISION_MAP_PROBE_NETWORK" + NODE_END, NETWORK.format("a connection failed")),
    (None, 1, None, "Error: getaddrinfo EAI_AGAIN example.org", NETWORK.format("a connection failed")),
    (None, 1, None, "Error: connect ECONNREFUSED 127.0.0.1:80", NETWORK.format("a connection failed")),
    (None, 1, None, "Error: getaddrinfo ENOTFOUND example.org", NETWORK.format("a connection failed")),
    (None, 1, None, "Error: connect ENETUNREACH 192.0.2.1:80", NETWORK.format("a connection failed")),
    (None, 1, None, "Error: XENOTFOUNDX", "failed (exit code 1): Error: XENOTFOUNDX"),
    (None, 1, None, "Error: Access to this API has been restricted\n  code: 'ERR_ACCESS_DENIED',\n"
     "  permission: 'FileSystemWrite',\n  resource: '/etc/passwd'\n}" + NODE_END, OUTSIDE.format(" (/etc/passwd)")),
    (None, 1, None, "Error: EROFS: read-only file system, open '/usr/lib/x'", OUTSIDE.format(" (/usr/lib/x)")),
    (None, 1, None, "sh: 1: cannot create '/opt/pi/x': Read-only file system", OUTSIDE.format(" (/opt/pi/x)")),
    (None, 1, None, "Error: ERR_ACCESS_DENIED", OUTSIDE.format("")),
    (None, 134, None, "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
     "ran out of memory (limits: 512 MiB of JavaScript heap, 4096 MiB of address space a process, 3072 MiB in all)"),
    (None, 134, None, "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out "
     "of memory", "ran out of memory (limits: 512 MiB of JavaScript heap, 4096 MiB of address space a process, "
     "3072 MiB in all)"),
    (None, -6, None, "<--- Last few GCs --->\nFATAL ERROR: Reached heap limit", "ran out of memory (limits: 512 MiB of "
     "JavaScript heap, 4096 MiB of address space a process, 3072 MiB in all)"),
    (None, 1, None, "RangeError: Array buffer allocation failed", "ran out of memory (limits: 512 MiB of JavaScript "
     "heap, 4096 MiB of address space a process, 3072 MiB in all)"),
    (None, 1, None, "Fatal process out of memory: Failed to allocate memory", "ran out of memory (limits: 512 MiB of "
     "JavaScript heap, 4096 MiB of address space a process, 3072 MiB in all)"),
    (None, 1, "processes", "Error: spawn EAGAIN", "started more than 256 processes and threads at once, the limit "
     "for a probe"),
    (None, 1, None, "file:///probe/P1.mjs:3\n  throw new TypeError('bad');\n  ^\n\nTypeError: bad thing\n    at "
     "file:///probe/P1.mjs:3:9" + NODE_END, "failed (exit code 1): TypeError: bad thing"),
    (None, 1, None, "  SyntaxError: Unexpected token" + NODE_END, "failed (exit code 1): SyntaxError: Unexpected token"),
    (None, 3, None, "first\nsomething odd  \n" + NODE_END, "failed (exit code 3): something odd"),
    (None, -9, None, "", "failed (signal 9): no message on stderr"),
    (None, 1, None, "Error: " + "x" * 300, "failed (exit code 1): Error: " + "x" * 193),
])
def test_a_run_without_a_result_says_why_in_a_users_words(stopped, exit_code, ran_out_of, stderr, said) -> None:
    from generator.probes.sandbox import SandboxRun, explain

    run = SandboxRun("", stderr, exit_code, 1.0, stopped, "bwrap+cgroup", ran_out_of)
    assert explain(run, Limits(seconds=2.5)) == said


def test_the_line_a_failure_points_at_is_read_from_stderr() -> None:
    from generator.probes.sandbox import SandboxRun, error_line

    run = SandboxRun("", "decisions/pi/probes/P1.mjs:12\n  x();\n\nTypeError: x is not a function\n    at "
                     "decisions/pi/probes/P1.mjs:12:3\n", 1, 1.0, None, "bwrap+cgroup")
    assert error_line(run, "decisions/pi/probes/P1.mjs") == 12
    assert error_line(run, "decisions/pi/probes/P1+mjs") == 0  # the name as written, not a pattern
    assert error_line(run, "decisions/pi/probes/P2.mjs") == 0


@pytest.mark.parametrize("kind, limits, said", [
    ("bwrap", "cgroup2", "bubblewrap: no network, read-only system, its own processes; memory and processes limited "
     "for the whole tree (cgroup v2)"),
    ("bwrap", "cgroup1", "bubblewrap: no network, read-only system, its own processes; memory and processes limited "
     "for the whole tree (cgroup v1)"),
    ("node-only", "rlimit", "Node's permission model only, NOT a sandbox for the processes a probe starts; memory "
     "limited per process only (no control group can be made here)"),
])
def test_the_summary_says_how_probes_were_isolated_and_limited(kind: str, limits: str, said: str) -> None:
    from generator.probes.sandbox import Sandbox

    assert Sandbox(kind, limits).describe() == said


@pytest.mark.parametrize("kind, limits, name", [("bwrap", "cgroup2", "bwrap+cgroup"), ("bwrap", "cgroup1", "bwrap+cgroup"),
                                                ("bwrap", "rlimit", "bwrap+rlimit"),
                                                ("node-only", "rlimit", "node-only+rlimit")])
def test_every_result_names_the_sandbox_and_how_the_tree_was_limited(kind: str, limits: str, name: str) -> None:
    from generator.probes.sandbox import Sandbox

    assert Sandbox(kind, limits).name == name


@pytest.mark.parametrize("per_user", [True, False], ids=["without a control group", "in one"])
def test_the_limits_a_probe_inherits(per_user: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set in the probe's process before it starts (here recorded, not set: this is the test's own
    process); those the platform refuses leave the others set."""
    import resource

    from generator.probes import sandbox

    asked = []

    def setrlimit(which, values):
        asked.append((which, values))
        if which == resource.RLIMIT_FSIZE:
            raise ValueError("not on this platform")
        if which == resource.RLIMIT_CORE:
            raise OSError("not allowed here")

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    sandbox._limit_resources(Limits(address_space_mb=2048, folder_mb=64, processes=50), per_user=per_user)
    assert asked == [(resource.RLIMIT_AS, (2048 << 20, 2048 << 20)), (resource.RLIMIT_FSIZE, (64 << 20, 64 << 20)),
                     (resource.RLIMIT_CORE, (0, 0))] + ([(resource.RLIMIT_NPROC, (50, 50))] if per_user else [])


@pytest.mark.parametrize("in_group", [False, True], ids=["without a control group", "in one"])
def test_the_process_count_is_bounded_in_the_probe_only_without_a_control_group(in_group: bool) -> None:
    """What the probe's own process reads in /proc/self/limits: without a control group, RLIMIT_NPROC
    is the only bound on how many processes it starts; in one, the group bounds the tree and the
    user's own count (all of the user's processes, outside the probe too) is left as it was."""
    from generator.probes import sandbox

    class StandInGroup:  # joined in the child before it starts; killed when the run ends
        def join(self) -> None:
            pass

        def kill(self) -> None:
            pass

    run = sandbox._supervise(["cat", "/proc/self/limits"], None, {"PATH": os.defpath}, Limits(processes=77),
                             sandbox.Sandbox("node-only", "rlimit"), StandInGroup() if in_group else None, [])
    [processes] = [line.split()[2:4] for line in run.stdout.splitlines() if line.startswith("Max processes")]
    assert run.exit_code == 0 and (processes == ["77", "77"]) is not in_group
