"""Run one probe script with Node in a sandbox, and collect what it printed.

Each run gets a fresh temporary folder as its working directory, holding the script, a
``node_modules`` link to pi's install, and its own HOME, XDG folders and TMPDIR; the environment
is rebuilt from nothing (no API keys, no proxies). Two layers keep the rest of the machine out:

- **Linux namespaces** (``unshare``, when it works here): a network namespace with nothing in it,
  a process namespace (killing its first process kills every process the probe started, however
  detached), and a mount namespace in which every file system is read-only except the probe's
  folder, a size-limited tmpfs. This holds for pi's child processes too (its bash tool).
- **Node itself**, everywhere: the permission model (``--permission``) lets the script read only
  its folder, the install and the preload, and write only its folder; the preload
  (``probe_offline.mjs``) makes every network call throw. Child processes are allowed (pi's bash
  tool needs them) and are not bound by Node's permission model: without the namespaces they
  can read and write wherever the user can.

Limits: wall-clock time (the whole process tree is killed), V8's heap (``--max-old-space-size``),
the address space (RLIMIT_AS, which V8 tolerates at a few GiB), the size of a written file
(RLIMIT_FSIZE) and the output kept (more is an error, not a hang or an out-of-memory).
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .probe_install import Node, PiInstall

PRELOAD = Path(__file__).with_name("probe_offline.mjs")
NETWORK_MARK = "DECISION_MAP_PROBE_NETWORK"

# Run inside the namespaces, as root of them: a tmpfs for the probe's folder, filled from the
# template the harness wrote, then every other mount made read-only (in this namespace only).
_ENTER = r"""
set -eu
template="$1"; run="$2"; size="$3"; shift 3
mount -t tmpfs -o "size=${size}m,mode=0755" probe "$run"
cp -a "$template/." "$run/"
awk '{print $2}' /proc/self/mounts | sort -u | while read -r mount; do
  case "$mount" in "$run"|/proc|/proc/*|/dev/pts) continue;; esac
  mount -o remount,bind,ro "$mount" 2>/dev/null || { echo "sandbox: cannot make $mount read-only" >&2; exit 97; }
done
cd "$run"
exec "$@"
"""


@dataclass(frozen=True)
class Limits:
    """What one probe may use. Seconds of wall-clock time; sizes in MiB (output in bytes)."""

    seconds: float = 60.0
    heap_mb: int = 512
    address_space_mb: int = 4096  # a session probe needs under 2 GiB of address space
    folder_mb: int = 256
    output_bytes: int = 1_000_000

    @classmethod
    def from_environment(cls) -> "Limits":
        """The defaults, or $DECISION_MAP_PROBE_TIMEOUT (seconds) when set."""
        timeout = os.environ.get("DECISION_MAP_PROBE_TIMEOUT")
        try:
            return cls(seconds=float(timeout)) if timeout else cls()
        except ValueError:
            return cls()


@dataclass(frozen=True)
class SandboxRun:
    """What a probe did. ``stopped`` says why the harness ended it: "timeout", "output" or None."""

    stdout: str
    stderr: str  # its last 8 KiB, with the sandbox's paths replaced by the script's
    exit_code: int | None
    seconds: float
    stopped: str | None
    isolation: str


def isolation() -> str:
    """How probes are kept apart here: "namespaces" (Linux, see the module's docstring), or
    "node" (Node's permission model and the offline preload only)."""
    if os.environ.get("DECISION_MAP_PROBE_SANDBOX") == "node":
        return "node"
    return "namespaces" if _namespaces_work() else "node"


def run_sandboxed(script: Path, node: Node, install: PiInstall, limits: Limits, shown_as: str,
                  passed: dict[str, str] | None = None) -> SandboxRun:
    """Run ``script`` (an ES module) with ``node`` against ``install`` inside the sandbox.

    ``shown_as`` replaces the sandbox's copy of the script in what stderr says; ``passed`` are
    extra environment variables (the caller's PROBE_* settings)."""
    top = Path(tempfile.mkdtemp(prefix="pi-probe-"))
    try:
        mode = isolation()
        template = top / "template"
        work = top / "run" if mode == "namespaces" else template
        for folder in (template, top / "run"):
            folder.mkdir()
        for sub in ("home", "tmp", "xdg/config", "xdg/cache", "xdg/data", "xdg/state", "xdg/runtime"):
            (template / sub).mkdir(parents=True)
        os.chmod(template / "xdg/runtime", 0o700)
        name = script.name
        shutil.copyfile(script, template / name)
        os.symlink(install.node_modules, template / "node_modules")
        env = _environment(node, work, passed or {})
        # Reads stay open: pi walks up from its folder looking for `.git`, AGENTS.md and settings,
        # and treats a denied read as an error where the real file system gives "not found".
        command = [str(node.binary), "--permission", "--allow-fs-read=*", f"--allow-fs-write={work}",
                   "--allow-child-process",
                   "--allow-worker", f"--max-old-space-size={limits.heap_mb}", "--disable-warning=ExperimentalWarning",
                   "--disable-warning=SecurityWarning",
                   "--import", PRELOAD.as_uri(), str(work / name)]
        if mode == "namespaces":
            command = [*_unshare(), "sh", "-c", _ENTER, "enter", str(template), str(work), str(limits.folder_mb),
                       *command]
        run = _supervise(command, work, env, limits, mode)
        stderr = run.stderr.replace((work / name).as_uri(), shown_as).replace(str(work / name), shown_as)
        return SandboxRun(run.stdout, stderr, run.exit_code, run.seconds, run.stopped, mode)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _environment(node: Node, work: Path, passed: dict[str, str]) -> dict[str, str]:
    """A clean environment: nothing of the caller's but the PROBE_* settings it passes on."""
    env = {"PATH": os.pathsep.join([str(node.bin_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
           "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), "TMP": str(work / "tmp"),
           "TEMP": str(work / "tmp"), "XDG_CONFIG_HOME": str(work / "xdg/config"),
           "XDG_CACHE_HOME": str(work / "xdg/cache"), "XDG_DATA_HOME": str(work / "xdg/data"),
           "XDG_STATE_HOME": str(work / "xdg/state"), "XDG_RUNTIME_DIR": str(work / "xdg/runtime"),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "NO_COLOR": "1", "TERM": "dumb",
           "SHELL": "/bin/sh", "USER": "probe", "LOGNAME": "probe"}
    env.update({k: v for k, v in passed.items() if k.startswith("PROBE_")})
    return env


def _unshare() -> list[str]:
    flags = ["unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
             "--propagation", "private"]
    return flags if os.geteuid() == 0 else flags[:1] + ["--user", "--map-root-user"] + flags[1:]


@lru_cache(maxsize=None)
def _namespaces_work() -> bool:
    """Whether the namespaces can be made here (tried once per process, about 20 ms)."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    top = Path(tempfile.mkdtemp(prefix="pi-probe-check-"))
    try:
        (top / "template").mkdir()
        (top / "run").mkdir()
        done = subprocess.run([*_unshare(), "sh", "-c", _ENTER, "enter", str(top / "template"), str(top / "run"), "1",
                               "sh", "-c", f"touch ok && ! touch {top}/outside 2>/dev/null"],
                              capture_output=True, timeout=30)
        return done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(top, ignore_errors=True)


@dataclass
class _Run:
    stdout: str
    stderr: str
    exit_code: int | None
    seconds: float
    stopped: str | None


def _supervise(command: list[str], work: Path, env: dict[str, str], limits: Limits, mode: str) -> _Run:
    """Run ``command`` in its own session; stop it (with every process it started) at the time
    limit or when its output passes the cap."""
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=lambda: _limit_resources(limits))
    out, err = bytearray(), bytearray()
    stopped = None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, out)
    selector.register(process.stderr, selectors.EVENT_READ, err)
    open_streams = 2
    try:
        while open_streams:
            left = limits.seconds - (time.monotonic() - start)
            if left <= 0:
                stopped = "timeout"
                break
            for key, _ in selector.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                key.data.extend(chunk)
                if key.data is err and len(err) > 65536:
                    del err[:-16384]  # the end of stderr says why a probe failed
            if len(out) > limits.output_bytes:
                stopped = "output"
                break
        if stopped is None:
            try:
                process.wait(timeout=max(0.1, limits.seconds - (time.monotonic() - start)))
            except subprocess.TimeoutExpired:
                stopped = "timeout"
    finally:
        selector.close()
        _stop_tree(process, mode)
        process.stdout.close()
        process.stderr.close()
    return _Run(out.decode("utf-8", "replace"), err[-8192:].decode("utf-8", "replace"),
                process.returncode if stopped is None else None, time.monotonic() - start, stopped)


def _limit_resources(limits: Limits) -> None:
    """In the child before it starts: limits that V8 and pi's child processes inherit."""
    import resource

    for which, value in ((resource.RLIMIT_AS, limits.address_space_mb << 20),
                         (resource.RLIMIT_FSIZE, limits.folder_mb << 20), (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass  # a platform without this limit: the others still hold


def _stop_tree(process: subprocess.Popen, mode: str) -> None:
    """Kill the probe and everything it started, and return once they are gone. In the process
    namespace, killing its first process ends them all; without it, the descendants are found
    through /proc first, since a detached child leaves the process group. Either way the kernel
    ends them a moment later, so their exit is waited for."""
    family = _descendants(process.pid)
    for kill in (lambda: os.killpg(process.pid, signal.SIGKILL), *(
            (lambda pid=pid: os.kill(pid, signal.SIGKILL)) for pid in ([] if mode == "namespaces" else family))):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_running(pid) for pid in family):
        time.sleep(0.02)


def _running(pid: int) -> bool:
    """Whether a process is still there, not only its exit status (a zombie has no command line)."""
    try:
        return bool(Path(f"/proc/{pid}/cmdline").read_bytes())
    except OSError:
        return False


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def explain(run: SandboxRun, limits: Limits) -> str | None:
    """Why the run gave no result, in a user's words (None when it exited 0)."""
    if run.stopped == "timeout":
        return (f"did not finish within {limits.seconds:g} s and was stopped with every process it started; "
                "make it finish sooner (a scripted model needs no waiting), or set DECISION_MAP_PROBE_TIMEOUT")
    if run.stopped == "output":
        return (f"printed more than {limits.output_bytes:,} bytes and was stopped; print only the one JSON "
                "object of the result, on the last line")
    if run.exit_code == 0:
        return None
    text = run.stderr
    if NETWORK_MARK in text or re.search(r"\b(ENETUNREACH|EAI_AGAIN|ENOTFOUND|ECONNREFUSED)\b", text):
        call = re.search(rf"{NETWORK_MARK}: (\S+)", text)
        return (f"tried to use the network ({call.group(1) if call else 'a connection failed'}); probes run "
                "offline: script the model with pi-ai's fauxProvider instead")
    if "ERR_ACCESS_DENIED" in text or "EROFS" in text or "Read-only file system" in text:
        where = (re.search(r"resource: '([^']*)'", text) or re.search(r"EROFS[^'\n]*'([^']*)'", text)
                 or re.search(r"'([^'\n]*)': Read-only file system", text))
        path = where.group(1) if where else ""
        return (f"tried to write outside its folder{f' ({path})' if path else ''}; a probe may only write "
                "in its working folder (process.cwd()) and TMPDIR")
    if any(s in text for s in ("heap out of memory", "Reached heap limit", "Failed to allocate memory",
                               "Array buffer allocation failed")):
        return (f"ran out of memory (limits: {limits.heap_mb} MiB of JavaScript heap, "
                f"{limits.address_space_mb} MiB of address space)")
    cause = next((ln.strip() for ln in text.splitlines() if re.match(r"\s*[A-Z]\w*(Error|Exception)\b", ln)), None)
    last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "no message on stderr")
    code = f"exit code {run.exit_code}" if run.exit_code is not None and run.exit_code >= 0 else \
        f"signal {-(run.exit_code or 0)}"
    return f"failed ({code}): {(cause or last)[:200]}"


def error_line(run: SandboxRun, shown_as: str) -> int:
    """The line of the script a failure points at (Node names it in stderr), or 0."""
    found = re.search(re.escape(shown_as) + r":(\d+)", run.stderr)
    return int(found.group(1)) if found else 0
