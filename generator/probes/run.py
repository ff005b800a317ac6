"""Probes: executable evidence. Each probed entry's script runs pi's own code at a version, in a
sandbox (:mod:`generator.probes.sandbox`), and prints a JSON object; the probe *holds* when every
key of the entry's ``expect`` has that value in the result, *fails* when one does not, and is an
*error* when the script gives no result (it crashed, hung, printed no JSON, tried the network…).

Results are remembered in the cache by (script, the shared modules it imports from its folder,
version, the sha256 of every installed file, the harness and its sandbox, PROBE_* settings, the
limits), so a second run at the same version runs nothing, and an install edited since is refused
before anything is recalled (:mod:`generator.probes.install`). The same run made by another process
at that moment (the site's build and `probe`) is waited for, then recalled. A shared module
(``probes/_session.mjs``) runs read-only beside each probe that imports it
(:func:`generator.map.model.shared_modules`).

``probe`` stopped by SIGTERM, SIGHUP or SIGINT first ends every sandbox it runs, with all they
started, and removes their folders and groups (:func:`generator.probes.sandbox.stop_every_run`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import InputError, Problem, UsageError, display_path
from ..source.fetch import cache_root
from ..map.model import DecisionMap, EditionProbe, Entry, shared_modules
from .install import Node, PiInstall, find_node, install_pi
from .sandbox import (PRELOAD, WEAK_WARNING, Limits, Sandbox, SandboxRun, Stopped, allow_runs, choose_sandbox,
                            error_line, explain, run_sandboxed, stop_every_run, stopping)

STATUSES = ("holds", "fails", "error")
_HARNESS_FILES = (Path(__file__), Path(__file__).with_name("sandbox.py"), Path(__file__).with_name("limits.py"),
                  PRELOAD)


@dataclass(frozen=True)
class ProbeResult:
    """One probe run. ``seconds`` is the run's own time (a cached result keeps the time it took)."""

    map: str
    id: str
    status: str  # "holds" | "fails" | "error"
    claim: str  # the entry's `probe.shows`
    result: dict
    seconds: float
    version: str
    script: Path
    reason: str | None = None  # why it fails or could not run
    cached: bool = False  # remembered from an earlier run of the same installed code, not run now
    sandbox: str = ""  # the isolation it ran under (Sandbox.name)
    line: int = 0  # the line of the script an error points at (0: the script as a whole)
    expect: tuple = field(default=())

    @property
    def message(self) -> str | None:
        """``script[:line]: why``, or None when the probe holds."""
        if self.reason is None:
            return None
        where = display_path(self.script) + (f":{self.line}" if self.line else "")
        return f"{where}: {self.reason}"

    def as_json(self) -> dict:
        row = {"map": self.map, "id": self.id, "status": self.status, "claim": self.claim,
               "result": self.result, "seconds": round(self.seconds, 3), "sandbox": self.sandbox,
               "remembered": self.cached}
        if self.message:
            row["message"] = self.message
        return row


class ProbesStopped(KeyboardInterrupt):
    """``probe`` was told to stop (SIGTERM, SIGHUP); every sandbox it ran has been ended."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class ProbeFailure(InputError):
    """Probes that do not hold at the pinned version: the site is not built from a claim a run of
    pi contradicts (like a drifted citation)."""


def probed_entries(decision_map: DecisionMap, ids: list[str] | None = None) -> list[Entry]:
    """The map's entries that carry a probe (only ``ids`` when given, in the map's order)."""
    probed = [e for e in decision_map.entries if e.probe is not None]
    return probed if ids is None else [e for e in probed if e.id in set(ids)]


def run_probes(decision_map: DecisionMap, target: str | None = None, ids: list[str] | None = None, *,
               quiet: bool = True, use_cache: bool | None = None, limits: Limits | None = None,
               sandbox: Sandbox | None = None, install: PiInstall | None = None) -> list[ProbeResult]:
    """Run the map's probes (or those of ``ids``) with pi at ``target`` (default: the pin), in
    ``sandbox`` (default: bwrap, which must work here: see :func:`choose_sandbox`).

    Raises :class:`FetchError` when pi cannot be installed (``NodeMissing`` when no Node can be
    found, ``InstallChanged`` when the install was edited, ``SandboxMissing`` without bwrap); a
    probe that cannot run is a result with status "error", not an exception.
    """
    entries = probed_entries(decision_map, ids)
    if not entries:
        return []
    version = target or decision_map.version
    limits = limits or Limits.from_environment()
    sandbox = sandbox or _site_sandbox()
    node = find_node()
    # (an extension's probe brings its own install: pi and the extension, see probes.extension)
    install = install or install_pi(decision_map, version, node, quiet=quiet)
    return run_each(decision_map, [(e, lambda: install) for e in entries], version, node, limits, sandbox,
                    use_cache)


def _site_sandbox() -> Sandbox:
    """bwrap, for the site build and bump: DECISION_MAP_PROBE_SANDBOX=node-only is their explicit switch."""
    sandbox = choose_sandbox()
    if sandbox.kind != "bwrap":
        print(WEAK_WARNING, file=sys.stderr)
    return sandbox


def run_each(decision_map: DecisionMap, jobs: list[tuple[Entry, Callable[[], PiInstall]]], version: str, node: Node,
             limits: Limits, sandbox: Sandbox | None = None, use_cache: bool | None = None) -> list[ProbeResult]:
    """Run each entry's probe with the install its job gives, two at a time, in the jobs' order.

    An install is asked for (in this thread) just before its probe is started, so a probe whose
    install is still being written elsewhere (an extension's) waits for it while those before it
    run; an install that fails stops every probe and is raised."""
    sandbox = sandbox or _site_sandbox()
    if use_cache is None:
        use_cache = os.environ.get("DECISION_MAP_PROBE_CACHE", "on") != "off"
    passed = {k: v for k, v in sorted(os.environ.items()) if k.startswith("PROBE_")}
    harness = _harness_digest(node, sandbox)
    with _stopped_by_signals():
        allow_runs()
        # two at a time: a probe is mostly one Node process on one core
        pool = ThreadPoolExecutor(max_workers=2)
        try:
            runs = [pool.submit(_run_one, decision_map, entry, version, node, install(), limits, passed, harness,
                                use_cache, sandbox) for entry, install in jobs]
            return [awaited(run) for run in runs]
        except BaseException:
            stop_every_run()  # what runs is killed; what has not started never will
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def awaited(future: Future):
    """``future.result()``, for the main thread while probes run: it wakes every 0.2 s. A signal
    that stops probes (SIGTERM, SIGHUP, SIGINT) can reach another of the process's threads (sent
    to that thread's id, or while the main thread blocks signals for a moment), and Python runs
    its handler only when the main thread next runs, which a wait without a time limit puts off
    until the future is done: a probe's run or an extension's install (CPython issue #85300)."""
    while not future.done():
        wait([future], timeout=0.2)
    return future.result()


@contextlib.contextmanager
def _stopped_by_signals():
    """While probes run: SIGTERM and SIGHUP (what CI cancellation, `timeout` and a closed terminal
    send) raise :class:`ProbesStopped` in the main thread, as SIGINT raises KeyboardInterrupt, so
    every sandbox is ended and cleaned up before ``probe`` exits. (Only the main thread can catch
    signals; bwrap's --die-with-parent still ends the sandboxes of a process that dies.)"""
    def stop(signum, frame):
        stop_every_run()
        raise ProbesStopped(signum)

    kept = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            kept[signum] = signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)


def _run_one(decision_map: DecisionMap, entry: Entry, version: str, node: Node, install: PiInstall, limits: Limits,
             passed: dict[str, str], harness: str, use_cache: bool, sandbox: Sandbox) -> ProbeResult:
    probe = entry.probe
    assert probe is not None
    script = probe.script
    shown = display_path(script)
    base = dict(map=decision_map.name, id=entry.id, claim=probe.shows, version=version, script=script,
                expect=probe.expect, sandbox=sandbox.name)
    try:
        code = script.read_bytes()
    except OSError as err:
        return ProbeResult(status="error", result={}, seconds=0.0, reason=f"cannot read the probe: {err.strerror}; "
                           "write it (see CONTRIBUTING.md)", **base)
    try:  # the shared modules it imports (probes/_session.mjs…) go beside it, and into what is remembered
        beside = {m.name: (m.read_bytes(), display_path(m)) for m in shared_modules(script)}
    except OSError as err:
        return ProbeResult(status="error", result={}, seconds=0.0, reason=f"cannot read a module it imports: "
                           f"{err.strerror}", **base)
    # the limits too: a result remembered from a run with room to finish must not answer a run
    # given less (a probe that holds in 60 s may not in 3)
    ran = [code.hex(), version, install.digest, harness, passed, dataclasses.astuple(limits)]
    if beside:
        ran.append(sorted((name, module.hex()) for name, (module, _) in beside.items()))
    key = hashlib.sha256(json.dumps(ran).encode()).hexdigest()[:24]
    remembered = _recall(key) if use_cache else None
    if remembered is not None:
        return _judged(remembered["result"], remembered["seconds"], base, cached=True)
    stopped = ProbeResult(status="error", result={}, seconds=0.0, reason="not run: probe was stopped", **base)
    try:
        alone = _alone_with(key, limits) if use_cache else None
    except Stopped:
        return stopped
    try:
        remembered = _recall(key) if alone is not None else None  # by the run we waited for
        if remembered is not None:
            return _judged(remembered["result"], remembered["seconds"], base, cached=True)
        try:
            run = run_sandboxed(code, script.name, node, install, limits, shown, sandbox, passed, beside)
        except Stopped:
            return stopped
        result, why = _result_of(run, limits)
        if result is None:
            return ProbeResult(status="error", result={}, seconds=run.seconds, line=error_line(run, shown),
                               reason=f"the probe {why}{_in_shared(run, beside)} (run with pi {version})", **base)
        if use_cache:
            _remember(key, {"result": result, "seconds": run.seconds})
        return _judged(result, run.seconds, base)
    finally:
        if alone is not None:
            alone.release()


def _in_shared(run: SandboxRun, beside: dict[str, tuple[bytes, str]]) -> str:
    """`` at <shared module>:<line>`` when Node's error names a line of a shared module the probe
    imports (the first one its stderr names): the probe's own line, if any, is only the call."""
    named = [(run.stderr.find(f"{shown}:{line}"), shown, line)
             for shown in (where for _, where in beside.values()) if (line := error_line(run, shown))]
    if not named:
        return ""
    _, shown, line = min(named)
    return f" at {shown}:{line}"


def _result_of(run: SandboxRun, limits: Limits) -> tuple[dict | None, str]:
    why = explain(run, limits)
    if why:
        return None, why
    lines = [ln for ln in run.stdout.splitlines() if ln.strip()]
    if not lines:
        return None, "printed nothing; print one JSON object (the result) as the last line of its output"
    try:
        result = json.loads(lines[-1])
    except ValueError:
        return None, (f"did not end with a JSON object (its last line is {lines[-1].strip()[:60]!r}); print the "
                      "result with console.log(JSON.stringify(result)) last")
    if not isinstance(result, dict):
        return None, "printed JSON that is not an object as its last line; print an object such as {\"ran\": true}"
    return result, ""


def _judged(result: dict, seconds: float, base: dict, cached: bool = False) -> ProbeResult:
    wrong = [(k, v) for k, v in base["expect"] if k not in result or not same_value(v, result[k])]
    if not wrong:
        return ProbeResult(status="holds", result=result, seconds=seconds, cached=cached, **base)
    detail = "; ".join(f"{k}: expected {json.dumps(v)}, got " + (json.dumps(result[k]) if k in result else "nothing")
                       for k, v in wrong)
    return ProbeResult(status="fails", result=result, seconds=seconds, cached=cached,
                       reason=f"does not hold with pi {base['version']}: {detail}", **base)


def same_value(expected, actual) -> bool:
    """JSON equality: true is not 1, 1 is 1.0, and a string is never a number."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _harness_digest(node: Node, sandbox: Sandbox) -> str:
    digest = hashlib.sha256(node.version.encode())
    for path in _HARNESS_FILES:
        digest.update(path.read_bytes())
    digest.update(sandbox.name.encode())
    return digest.hexdigest()[:16]


def _alone_with(key: str, limits: Limits):
    """The lock of the run remembered by ``key``, once no other process (or thread) holds it: while
    one runs the very same probe (the site's build and `probe` at once, or two builds), the other
    waits, then reads what it remembered instead of running it a second time. Waits no longer than
    that run may last; then, or when the cache has no room for locks, None (run without it).
    Raises :class:`Stopped` when ``probe`` is being stopped meanwhile."""
    from filelock import FileLock, Timeout  # imported here: a remembered result never needs it

    folder = cache_root() / "locks"  # (beside the locks of the installs and trees)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    lock = FileLock(str(folder / f"probe-{key}.lock"))
    waited_until = time.monotonic() + limits.seconds + 30  # (its own start and its check of the install)
    while True:
        if stopping():
            raise Stopped()
        try:
            lock.acquire(timeout=0.5)
            return lock
        except Timeout:
            if time.monotonic() > waited_until:
                return None
        except OSError:
            return None


def _recall(key: str) -> dict | None:
    try:
        remembered = json.loads((cache_root() / "probes" / f"{key}.json").read_text())
        return remembered if isinstance(remembered.get("result"), dict) else None
    except (OSError, ValueError, AttributeError):
        return None


def _remember(key: str, value: dict) -> None:
    """Best effort: a cache that cannot be written only costs a re-run."""
    folder = cache_root() / "probes"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        with os.fdopen(handle, "w") as out:
            json.dump(value, out)
        os.replace(temporary, folder / f"{key}.json")
    except OSError as err:
        print(f"note: could not remember a probe result in {folder}: {err.strerror}", file=sys.stderr)


def require_holding(results: list[ProbeResult]) -> None:
    """Raise :class:`ProbeFailure` naming each probe that does not hold (for the site build)."""
    problems = [Problem(r.script, r.line, r.reason or r.status) for r in results if r.status != "holds"]
    if problems:
        raise ProbeFailure(problems)


def check_ids(maps: list[DecisionMap], ids: list[str]) -> None:
    """Every ID asked for is an entry with a probe; else a usage error saying which are not."""
    probed = {e.id for m in maps for e in m.entries if e.probe is not None}
    known = {e.id for m in maps for e in m.entries}
    unknown = [i for i in ids if i not in probed]
    if unknown:
        first = unknown[0]
        why = "has no probe: add `probe:` to it (see CONTRIBUTING.md)" if first in known else "is no entry's ID"
        raise UsageError(f"{first} {why}; probed entries: {', '.join(sorted(probed)) or 'none'}")


def site_probes(maps: list[DecisionMap], *, quiet: bool = True) -> dict[str, ProbeResult]:
    """For the site build: each map's probe results at its pin, by entry ID. Raises
    :class:`ProbeFailure` when one does not hold (the site would show a claim a run of pi
    contradicts), and ``NodeMissing`` (saying how to get Node) when probes exist but cannot run.
    With $DECISION_MAP_SKIP_PROBES set, nothing runs and the pages show no probe results."""
    if os.environ.get("DECISION_MAP_SKIP_PROBES"):
        if any(probed_entries(m) for m in maps):
            print("note: probes skipped (DECISION_MAP_SKIP_PROBES is set); the pages show no probe results",
                  file=sys.stderr)
        return {}
    from .extension import installing, run_extension_probes, start_installs

    # the extensions' installs (each a copy of pi's own install, written first, and what npm adds to
    # it) are written while the entries' probes run; their probes then run as they are done
    with _stopped_by_signals(), installing() as pool:
        installs = [start_installs(m, pool, quiet=quiet) for m in maps]
        results = [r for m in maps for r in run_probes(m, quiet=quiet)]
        results += [r for m, i in zip(maps, installs)
                    for r in run_extension_probes(m, quiet=quiet, installs=i)]  # by the extension's name
    require_holding(results)
    return {r.id: r for r in results}


def probe_flips(decision_map: DecisionMap, version: str, *, quiet: bool = True) -> list[EditionProbe]:
    """The probes whose outcome differs between the map's pin and ``version`` (for `bump`): each
    runs at both (the pin's results usually come from the cache). Empty, with a note, when
    $DECISION_MAP_SKIP_PROBES is set."""
    if not probed_entries(decision_map):
        return []
    if os.environ.get("DECISION_MAP_SKIP_PROBES"):
        print("note: probes skipped (DECISION_MAP_SKIP_PROBES is set); the edition records no probe flips",
              file=sys.stderr)
        return []
    before = {r.id: r.status for r in run_probes(decision_map, quiet=quiet)}
    after = run_probes(decision_map, version, quiet=quiet)
    return [EditionProbe(r.id, before[r.id], r.status) for r in after if before.get(r.id) != r.status]
