"""Run one probe script with Node in a sandbox, and collect what it printed.

The sandbox is bubblewrap (``bwrap``, the tool Flatpak's sandbox is built on), not isolation
written here. The probe runs in namespaces of its own (user, mount, process, network, IPC, host
name, cgroup) with every capability dropped, ``no_new_privs`` set (a setuid program gains
nothing), further user namespaces refused, a terminal session of its own, and
``--die-with-parent`` (it is killed when ``probe`` dies, however that happens). Its file system is
built from nothing and read-only, except two size-limited tmpfs, ``/probe`` (its working folder,
holding the script read-only, its HOME, XDG folders and TMPDIR) and ``/tmp``. What is put there,
and why:

- ``/usr`` and the ``/bin``, ``/sbin``, ``/lib*`` links or folders beside it: the shell, coreutils
  and the C library, which Node, pi's bash tool and the probes' commands need;
- from ``/etc`` only ``ld.so.cache`` (how the dynamic linker finds those libraries on a multiarch
  system) and ``alternatives`` (Debian's links for commands such as ``awk``); ``passwd`` and
  ``group`` are written for it and name only root and the probe's user;
- the folder of the Node binary (``/opt/node/bin``), pi's install (``/opt/pi``, which the probe's
  ``node_modules`` points at) and the offline preload (``/opt/harness``);
- a private ``/proc`` (its own processes only) and a minimal ``/dev`` (null, zero, random, tty…).

Nothing else: no ``/root``, ``/home``, ``/etc/shadow``, other users' files, the project or the
cache; no network (an empty loopback). The environment is rebuilt from nothing (no API keys, no
proxies; the caller's ``PROBE_*`` settings are passed on). Node also runs with its permission
model (writes only to ``/probe`` and ``/tmp``) and the offline preload, which makes a network call
fail at once with a message saying so rather than as a slow timeout.

Limits: wall-clock time, enforced here (the sandbox is killed at the limit, and when ``probe``
itself is stopped, :func:`stop_every_run`); memory and number of processes of the whole tree
(:mod:`generator.probes.limits`); V8's heap; each process's address space and the size of a file
it writes; the output kept (more is an error, not a hang).

Without a working bwrap, probes do not run (:class:`SandboxMissing` says what to install) unless
the caller asks for the weaker ``node-only`` kind: Node's permission model and the preload, in a
temporary folder of the real file system. That binds the probe's own Node process only: its child
processes (pi's bash tool, a ``pi`` it starts) read and write whatever the user can, reach the
network, and see the environment of the user's other processes through /proc.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import FetchError, UsageError
from .install import Node, PiInstall
from .limits import TreeGroup, make_group, tree_limits

PRELOAD = Path(__file__).with_name("offline.mjs")
NETWORK_MARK = "DECISION_MAP_PROBE_NETWORK"
KINDS = ("bwrap", "node-only")
WEAK_WARNING = ("warning: probes run without the sandbox (--no-sandbox): only the probe's own Node process is "
                "bound by Node's permission model; the processes it starts can read and write every file you can, "
                "reach the network, read other processes' environment (API keys) through /proc, and outlive the "
                "time limit where no control group can be made")
BWRAP_HINT = ("install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
              "bubblewrap`; Arch: `pacman -S bubblewrap`), or pass --no-sandbox to run them under Node's permission "
              "model only (README, Probes: what that does not protect)")

WORK = Path("/probe")  # the probe's folder inside the sandbox
_SANDBOX_UID = 1000  # the probe's user inside; mapped to the caller's own user outside
_PASSWD = f"root:x:0:0:root:/:/bin/sh\nprobe:x:{_SANDBOX_UID}:{_SANDBOX_UID}:probe:{WORK}/home:/bin/sh\n"
_GROUP = f"root:x:0:\nprobe:x:{_SANDBOX_UID}:\n"


class SandboxMissing(FetchError):
    """bwrap is not installed or cannot make its sandbox here: probes do not run (exit 2)."""


@dataclass(frozen=True)
class Limits:
    """What one probe may use. Seconds of wall-clock time; sizes in MiB (output in bytes);
    ``memory_mb`` and ``processes`` hold for every process of the probe together (threads count as
    processes, as the kernel counts them)."""

    seconds: float = 60.0
    heap_mb: int = 512
    address_space_mb: int = 4096  # a session probe needs under 2 GiB of address space
    folder_mb: int = 256
    output_bytes: int = 1_000_000
    memory_mb: int = 3072  # A16 runs seven pi processes at once: about 1.2 GiB
    processes: int = 256  # a Node process has about a dozen threads; A16 needs about 100

    @classmethod
    def from_environment(cls) -> "Limits":
        """The defaults, or $DECISION_MAP_PROBE_TIMEOUT (seconds, above 0) when set."""
        timeout = os.environ.get("DECISION_MAP_PROBE_TIMEOUT")
        if timeout is None or not timeout.strip():
            return cls()
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds <= 3600:  # false for nan too
            raise UsageError(f"DECISION_MAP_PROBE_TIMEOUT={timeout}: give each probe's time limit in seconds, a "
                             "number above 0 and at most 3600 (unset, it is 60)")
        return cls(seconds=seconds)


@dataclass(frozen=True)
class Sandbox:
    """How probes are isolated: ``kind`` "bwrap" or "node-only", and ``limits`` how the whole
    tree is limited ("cgroup2", "cgroup1" or "rlimit", per process)."""

    kind: str
    limits: str
    bwrap: str = ""

    @property
    def name(self) -> str:
        """What every result says (JSON ``sandbox``): "bwrap+cgroup", "node-only+rlimit"…"""
        return f"{self.kind}+{'cgroup' if self.limits.startswith('cgroup') else 'rlimit'}"

    def describe(self) -> str:
        """In a person's words, for the summary line."""
        isolation = ("bubblewrap: no network, read-only system, its own processes" if self.kind == "bwrap"
                     else "Node's permission model only, NOT a sandbox for the processes a probe starts")
        limits = {"cgroup2": "memory and processes limited for the whole tree (cgroup v2)",
                  "cgroup1": "memory and processes limited for the whole tree (cgroup v1)",
                  "rlimit": "memory limited per process only (no control group can be made here)"}[self.limits]
        return f"{isolation}; {limits}"


def choose_sandbox(weak: bool = False) -> Sandbox:
    """The sandbox probes run in here. ``weak`` (``--no-sandbox``, or DECISION_MAP_PROBE_SANDBOX=node-only)
    asks for Node's permission model only; otherwise bwrap must work, or :class:`SandboxMissing`."""
    asked = os.environ.get("DECISION_MAP_PROBE_SANDBOX", "")
    if asked not in ("", *KINDS):
        raise UsageError(f"DECISION_MAP_PROBE_SANDBOX={asked}: the sandbox is bwrap (the default) or node-only "
                         "(the same as --no-sandbox)")
    if weak or asked == "node-only":
        return Sandbox("node-only", tree_limits())
    return Sandbox("bwrap", tree_limits(), _working_bwrap(os.environ.get("DECISION_MAP_BWRAP", "")))


@lru_cache(maxsize=None)
def _working_bwrap(explicit: str) -> str:
    """The bwrap binary, once it has made a sandbox here (about 10 ms, once per process)."""
    binary = explicit or shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.access(binary, os.X_OK):
        raise SandboxMissing(f"probes run pi's code in a sandbox, and bubblewrap (bwrap) is not installed"
                             f"{f' at {binary}' if explicit else ''}: {BWRAP_HINT}")
    try:  # bwrap itself runs in it: found where it was just found, it needs no `true` on the caller's PATH
        done = subprocess.run([binary, *_isolation_flags(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
                               binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SandboxMissing(f"{binary} could not be run ({err}); {BWRAP_HINT}") from None
    if done.returncode != 0:
        said = next((ln for ln in reversed(done.stderr.splitlines()) if ln.strip()), "no message")
        raise SandboxMissing(f"{binary} cannot make its sandbox here ({said.strip()}); where user namespaces are "
                             "restricted (Ubuntu 24.04's AppArmor, kernel.unprivileged_userns_clone=0), allow them "
                             f"for bwrap; {BWRAP_HINT}")
    return binary


def _isolation_flags() -> list[str]:
    return ["--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(_SANDBOX_UID), "--gid",
            str(_SANDBOX_UID), "--cap-drop", "ALL", "--new-session", "--die-with-parent", "--hostname", "probe"]


@dataclass(frozen=True)
class SandboxRun:
    """What a probe did. ``stopped`` says why the harness ended it: "timeout", "output" or None;
    ``ran_out_of`` what the whole tree hit: "memory", "processes" or None."""

    stdout: str
    stderr: str  # its last 8 KiB, with the sandbox's paths replaced by the script's
    exit_code: int | None
    seconds: float
    stopped: str | None
    sandbox: str
    ran_out_of: str | None = None


def run_sandboxed(code: bytes, name: str, node: Node, install: PiInstall, limits: Limits, shown_as: str,
                  sandbox: Sandbox, passed: dict[str, str] | None = None,
                  beside: dict[str, tuple[bytes, str]] | None = None) -> SandboxRun:
    """Run ``code`` (an ES module, the script ``name``) with ``node`` against ``install`` in ``sandbox``.

    ``shown_as`` replaces the sandbox's copy of the script in what stderr says; ``passed`` are
    extra environment variables (the caller's PROBE_* settings); ``beside`` are the modules it
    imports from its own folder (name: (code, shown as)), put read-only next to it."""
    beside = beside or {}
    group = make_group(limits.memory_mb, limits.processes) if sandbox.limits != "rlimit" else None
    top = None
    fds: list[int] = []
    try:
        if sandbox.kind == "bwrap":
            work = WORK
            fds = [_memory_file(code), _memory_file(_PASSWD.encode()), _memory_file(_GROUP.encode())]
            fds += [_memory_file(module) for module, _ in beside.values()]
            command = [*_bwrap_command(sandbox.bwrap, node, install, limits, fds, name, list(beside)),
                       *_node_command(Path("/opt/node/bin/node"), work, f"file:///opt/harness/{PRELOAD.name}",
                                      limits, name)]
            cwd = None
        else:
            top = Path(tempfile.mkdtemp(prefix="pi-probe-"))
            work = top / "run"
            for sub in _FOLDERS:
                (work / sub).mkdir(parents=True)
            os.chmod(work / "xdg/runtime", 0o700)
            (work / name).write_bytes(code)
            for other, (module, _) in beside.items():
                (work / other).write_bytes(module)
            os.symlink(install.node_modules, work / "node_modules")
            command = _node_command(node.binary, work, PRELOAD.as_uri(), limits, name)
            cwd = work
        env = _environment(node.bin_dir if sandbox.kind != "bwrap" else Path("/opt/node/bin"), work, passed or {})
        run = _supervise(command, cwd, env, limits, sandbox, group, fds)
        stderr = run.stderr
        for file, shown in [(work / name, shown_as), *((work / other, where) for other, (_, where) in beside.items())]:
            stderr = stderr.replace(file.as_uri(), shown).replace(str(file), shown)
        return SandboxRun(run.stdout, stderr, run.exit_code, run.seconds, run.stopped, sandbox.name,
                          group.ran_out_of() if group else None)
    finally:
        for fd in fds:
            os.close(fd)
        if group is not None:
            group.remove()
        if top is not None:
            shutil.rmtree(top, ignore_errors=True)


_FOLDERS = ("home", "tmp", "xdg/config", "xdg/cache", "xdg/data", "xdg/state", "xdg/runtime")


def _memory_file(data: bytes) -> int:
    """A file descriptor holding ``data`` from its start, for bwrap to copy into the sandbox."""
    fd = os.memfd_create("probe-data", 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _bwrap_command(bwrap: str, node: Node, install: PiInstall, limits: Limits, fds: list[int], name: str,
                   beside: list[str] | None = None) -> list[str]:
    script_fd, passwd_fd, group_fd, *beside_fds = fds
    command = [bwrap, *_isolation_flags()]
    command += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):  # a merged /usr: the same links as the machine's
            command += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            command += ["--ro-bind", top, top]
    command += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
                "--ro-bind-data", str(passwd_fd), "/etc/passwd", "--ro-bind-data", str(group_fd), "/etc/group",
                "--ro-bind", str(node.bin_dir), "/opt/node/bin",
                "--ro-bind", str(install.root), "/opt/pi",
                "--ro-bind", str(PRELOAD), f"/opt/harness/{PRELOAD.name}",
                "--proc", "/proc", "--dev", "/dev",
                "--size", str(limits.folder_mb << 20), "--tmpfs", "/tmp",
                "--size", str(limits.folder_mb << 20), "--tmpfs", str(WORK)]
    for sub in _FOLDERS:
        command += ["--dir", str(WORK / sub)]
    command += ["--chmod", "0700", str(WORK / "xdg/runtime"),
                "--symlink", "/opt/pi/node_modules", str(WORK / "node_modules"),
                "--perms", "0444", "--ro-bind-data", str(script_fd), str(WORK / name)]
    for other, fd in zip(beside or [], beside_fds):
        command += ["--perms", "0444", "--ro-bind-data", str(fd), str(WORK / other)]
    command += ["--remount-ro", "/", "--chdir", str(WORK), "--"]
    return command


def _node_command(binary: Path, work: Path, preload: str, limits: Limits, name: str) -> list[str]:
    writable = [f"--allow-fs-write={work}"] + (["--allow-fs-write=/tmp"] if work == WORK else [])
    return [str(binary), "--permission", "--allow-fs-read=*", *writable, "--allow-child-process", "--allow-worker",
            f"--max-old-space-size={limits.heap_mb}", "--disable-warning=ExperimentalWarning",
            "--disable-warning=SecurityWarning", "--import", preload, str(work / name)]


def _environment(node_bin: Path, work: Path, passed: dict[str, str]) -> dict[str, str]:
    """A clean environment: nothing of the caller's but the PROBE_* settings it passes on. The
    install's `.bin` comes first on PATH, so `pi` is the command the package names, as a user's."""
    env = {"PATH": os.pathsep.join([str(work / "node_modules/.bin"), str(node_bin), "/usr/local/bin", "/usr/bin",
                                    "/bin"]),
           "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), "TMP": str(work / "tmp"),
           "TEMP": str(work / "tmp"), "XDG_CONFIG_HOME": str(work / "xdg/config"),
           "XDG_CACHE_HOME": str(work / "xdg/cache"), "XDG_DATA_HOME": str(work / "xdg/data"),
           "XDG_STATE_HOME": str(work / "xdg/state"), "XDG_RUNTIME_DIR": str(work / "xdg/runtime"),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "NO_COLOR": "1", "TERM": "dumb",
           "SHELL": "/bin/sh", "USER": "probe", "LOGNAME": "probe"}
    env.update({k: v for k, v in passed.items() if k.startswith("PROBE_")})
    return env


# --- supervising a run, and ending it however `probe` ends ------------------------------------------


@dataclass
class _Run:
    stdout: str
    stderr: str
    exit_code: int | None
    seconds: float
    stopped: str | None


_live: dict[int, tuple[subprocess.Popen, TreeGroup | None]] = {}
_live_lock = threading.Lock()
_stopping = threading.Event()


def stop_every_run() -> None:
    """Kill every sandbox this process runs, with all it started (for SIGTERM, SIGHUP, SIGINT): the
    threads supervising them then see them end, and remove their folders and groups. No run
    starts after this."""
    _stopping.set()
    with _live_lock:
        runs = list(_live.values())
    for process, group in runs:
        if process.poll() is None:  # once reaped, its id may be another's: its own thread stops what it left
            _kill_leader(process)
        if group is not None:
            group.kill()


def stopping() -> bool:
    """Whether :func:`stop_every_run` was called (and no run may start)."""
    return _stopping.is_set()


def allow_runs() -> None:
    """Undo :func:`stop_every_run` (for a later run in the same process, such as a test's)."""
    _stopping.clear()


class Stopped(Exception):
    """A run was not started because ``probe`` is being stopped."""


def _supervise(command: list[str], cwd: Path | None, env: dict[str, str], limits: Limits, sandbox: Sandbox,
               group: TreeGroup | None, fds: list[int]) -> _Run:
    """Run ``command`` in its own session; stop it (with every process it started) at the time
    limit or when its output passes the cap."""
    start = time.monotonic()

    def before_exec() -> None:  # in the child: the group and limits every process of the probe inherits
        if group is not None:
            group.join()
        _limit_resources(limits, per_user=group is None)

    with _live_lock:
        if _stopping.is_set():
            raise Stopped()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True, pass_fds=fds,
                                   preexec_fn=before_exec)
        _live[process.pid] = (process, group)
    out, err = bytearray(), bytearray()
    stopped = None
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, out)
            selector.register(process.stderr, selectors.EVENT_READ, err)
            open_streams = 2
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
        try:
            _stop_tree(process, group)
        finally:  # however stopping it went, it is no run to stop later: its id may be reused
            with _live_lock:
                _live.pop(process.pid, None)
            process.stdout.close()
            process.stderr.close()
    return _Run(out.decode("utf-8", "replace"), err[-8192:].decode("utf-8", "replace"),
                process.returncode if stopped is None else None, time.monotonic() - start, stopped)


def _limit_resources(limits: Limits, per_user: bool) -> None:
    """In the child before it starts: limits that V8 and pi's child processes inherit. Without a
    control group, RLIMIT_NPROC is the only bound on the number of processes (the kernel does not
    apply it to root)."""
    import resource

    chosen = [(resource.RLIMIT_AS, limits.address_space_mb << 20), (resource.RLIMIT_FSIZE, limits.folder_mb << 20),
              (resource.RLIMIT_CORE, 0)]
    if per_user:
        chosen.append((resource.RLIMIT_NPROC, limits.processes))
    for which, value in chosen:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass  # a platform without this limit: the others still hold


def _kill_leader(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_tree(process: subprocess.Popen, group: TreeGroup | None) -> None:
    """Kill the probe and everything it started, and return once they are gone. With a control
    group, its members are killed until none is left. Without one, the descendants are found
    through /proc first (a detached child leaves the process group); under bwrap, killing bwrap
    ends its process namespace, and with it every process there."""
    family = _descendants(process.pid) if group is None else []
    _kill_leader(process)
    for pid in family:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if group is not None:
        group.kill()
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


# --- what went wrong, in a user's words --------------------------------------------------------------


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
    if run.ran_out_of == "memory":
        return (f"ran out of memory: its processes together passed {limits.memory_mb} MiB, and the kernel ended "
                "one of them")
    if NETWORK_MARK in text or re.search(r"\b(ENETUNREACH|EAI_AGAIN|ENOTFOUND|ECONNREFUSED)\b", text):
        call = re.search(rf"{NETWORK_MARK}: (\S+)", text)
        return (f"tried to use the network ({call.group(1) if call else 'a connection failed'}); probes run "
                "offline: script the model with pi-ai's fauxProvider instead")
    if "ERR_ACCESS_DENIED" in text or "EROFS" in text or "Read-only file system" in text:
        where = (re.search(r"resource: '([^']*)'", text) or re.search(r"EROFS[^'\n]*'([^']*)'", text)
                 or re.search(r"'([^'\n]*)': Read-only file system", text))
        path = where.group(1) if where else ""
        return (f"tried to write outside its folder{f' ({path})' if path else ''}; a probe may only write "
                "in its working folder (process.cwd()), TMPDIR and /tmp")
    if any(s in text for s in ("heap out of memory", "Reached heap limit", "Failed to allocate memory",
                               "Array buffer allocation failed")):
        return (f"ran out of memory (limits: {limits.heap_mb} MiB of JavaScript heap, "
                f"{limits.address_space_mb} MiB of address space a process, {limits.memory_mb} MiB in all)")
    if run.ran_out_of == "processes":
        return f"started more than {limits.processes} processes and threads at once, the limit for a probe"
    # Node ends an uncaught error with its version ("Node.js v24…"): the error's own line says more
    cause = next((ln.strip() for ln in text.splitlines() if re.match(r"\s*\w*(Error|Exception)\b", ln)), None)
    last = next((ln.strip() for ln in reversed(text.splitlines())
                 if ln.strip() and not re.fullmatch(r"\s*Node\.js v[\d.]+\s*", ln)), "no message on stderr")
    code = f"exit code {run.exit_code}" if run.exit_code is not None and run.exit_code >= 0 else \
        f"signal {-(run.exit_code or 0)}"
    return f"failed ({code}): {(cause or last)[:200]}"


def error_line(run: SandboxRun, shown_as: str) -> int:
    """The line of the script a failure points at (Node names it in stderr), or 0."""
    found = re.search(re.escape(shown_as) + r":(\d+)", run.stderr)
    return int(found.group(1)) if found else 0
