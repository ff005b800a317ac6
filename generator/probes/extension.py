"""Probes of extensions pinned on npm: the extension is loaded into pi, in the probe sandbox, with
the scripted model, and its script shows a change it makes (a tool now offered, a call blocked, a
command added, a model switched…).

The extension is installed next to pi, in one install of its own (``npm install --ignore-scripts``
of pi's packages at the map's pin and of the extension at its pin, peers left to pi's), so the
sandbox sees it where it sees pi: ``node_modules/<package>``. That install starts as a copy of pi's
own (:func:`generator.probes.install.install_pi`), so npm adds the extension and what it needs
instead of installing pi again. Every package in the lockfile must carry an integrity hash npm
checked; pi's must match those of pi's install (compared with the registry's when it was written)
and the extension's its pin.
The script (``extensions/probes/<name>.mjs``) loads the package from ``node_modules/<package>`` and
is run, judged and remembered by :func:`generator.probes.run.run_probes`, like an entry's probe.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from ..errors import FetchError
from ..source.fetch import _npm, allow_npm, cache_root, publish_once, stop_npm
from ..map.model import DecisionMap, Entry, Overlay, npm_package_key
from .run import ProbeResult, awaited, run_each
from .install import Node, PiInstall, find_node, install_pi
from .sandbox import Limits, Sandbox

INSTALL_FORMAT = 1
MANIFEST = ".decision-map-install.json"
# An extension's probe waits on its TypeScript being compiled: pi loads an extension through jiti,
# whose cache of compiled files lives in the temporary folder, and the sandbox gives every run an
# empty one. pi-subagents 0.67.0, 277 files compiled: 12.8 s of CPU with the cache empty, 1.6 s
# with it full, outside the sandbox (bench/extension-probe-times.md); 33 s of wall-clock time at a
# load of 14 on 2 cores, 74 s at 20. An entry's probe compiles nothing (pi ships JavaScript), so
# the default limit stays theirs; an extension's gets room for the compile under such a load.
EXTENSION_SECONDS = 180.0
# An install mostly waits on npm (a copy of pi's install, then what the extension adds, from npm's
# cache or the network); the site build writes two while the entries' probes run, and the
# extensions' probes then run as their installs are done.
INSTALLS_AT_ONCE = 2


def probed_extensions(decision_map: DecisionMap, names: list[str] | None = None) -> list[Overlay]:
    """The map's pinned extensions that carry a probe (only ``names`` when given)."""
    return [o for o in sorted(decision_map.overlays, key=lambda o: o.extension)
            if o.pinned and o.probe is not None and (names is None or o.extension in names)]


def run_extension_probes(decision_map: DecisionMap, names: list[str] | None = None, *, quiet: bool = True,
                         use_cache: bool | None = None, limits: Limits | None = None,
                         sandbox: Sandbox | None = None, installs: dict[str, Future] | None = None
                         ) -> list[ProbeResult]:
    """Run the probes of the map's pinned extensions (or those of ``names``) with pi at the map's pin.

    Each runs as one probed entry named after the extension, against the install that holds pi and
    the extension, two at a time (:func:`generator.probes.run.run_each`), while the installs still
    to come are written (``installs``: those :func:`start_installs` began; else they begin here)."""
    overlays = probed_extensions(decision_map, names)
    if not overlays:
        return []
    limits = extension_limits(limits or Limits.from_environment())
    with contextlib.ExitStack() as stack:
        if installs is None:
            installs = start_installs(decision_map, stack.enter_context(installing()), names, quiet=quiet)
        jobs = [(_as_entry(overlay), functools.partial(awaited, installs[overlay.extension])) for overlay in overlays]
        return run_each(decision_map, jobs, decision_map.version, find_node(), limits, sandbox, use_cache)


@contextlib.contextmanager
def installing() -> Iterator[ThreadPoolExecutor]:
    """A pool that writes installs INSTALLS_AT_ONCE at a time. Leaving it by an exception (Ctrl-C,
    SIGTERM, an install or a probe that failed) kills every npm it runs and starts no other; it is
    left once every install it started has ended (a killed one leaves only its staging folder,
    removed by :func:`generator.source.fetch.publish_once`)."""
    pool = ThreadPoolExecutor(max_workers=INSTALLS_AT_ONCE)
    try:
        yield pool
    except BaseException:
        stop_npm()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        allow_npm()  # every npm of the pool has ended; a later build in this process (serve's) runs its own


def start_installs(decision_map: DecisionMap, pool: ThreadPoolExecutor, names: list[str] | None = None, *,
                   quiet: bool) -> dict[str, Future]:
    """Begin, in ``pool``, the install of each probed extension of the map (of ``names``), in the
    order their probes run: by extension name, the install each will give its probe."""
    return {overlay.extension: pool.submit(install_extension, decision_map, overlay, quiet=quiet)
            for overlay in probed_extensions(decision_map, names)}


def _as_entry(overlay: Overlay) -> Entry:
    return Entry(id=overlay.extension, kind="extension", question=None, decided_by=None, answer=None,
                 title=overlay.extension, description=overlay.summary, changed_by=(), checks=None, failures=(),
                 upstream=None, cites=(), reviewed=None, path=overlay.path, line=1, probe=overlay.probe)


def extension_limits(limits: Limits) -> Limits:
    """An extension probe's limits: room for compiling it (EXTENSION_SECONDS), unless a person set
    the time limit ($DECISION_MAP_PROBE_TIMEOUT), which then holds for every probe alike."""
    if os.environ.get("DECISION_MAP_PROBE_TIMEOUT", "").strip():
        return limits
    return replace(limits, seconds=max(limits.seconds, EXTENSION_SECONDS))


def install_extension(decision_map: DecisionMap, overlay: Overlay, node: Node | None = None, *,
                      quiet: bool = True) -> PiInstall:
    """pi at the map's pin and the extension at its pin, installed together (from the cache or into it)."""
    pi = {p.package: decision_map.version for p in decision_map.source.npm}
    wanted = {**pi, overlay.package: overlay.version}
    ident = json.dumps([INSTALL_FORMAT, sorted(wanted.items()), overlay.integrity])
    final = (cache_root() / "installs" / f"ext-{npm_package_key(overlay.package)}"
             / hashlib.sha256(ident.encode()).hexdigest()[:16])
    install = _open(final, wanted)
    if install is not None:
        return install
    node = node or find_node()

    def write(staging: Path) -> None:
        pi_install = install_pi(decision_map, decision_map.version, node, quiet=quiet)
        if not quiet:
            print(f"installing {overlay.package}@{overlay.version} with pi {decision_map.version} for its probe",
                  file=sys.stderr, flush=True)
        _copy_of(pi_install, staging)
        env = {**os.environ, "PATH": os.pathsep.join([str(node.bin_dir), os.environ.get("PATH", os.defpath)]),
               "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
        what = ", ".join(f"{p}@{v}" for p, v in wanted.items())
        # --ignore-scripts: nothing of the extension's runs outside the sandbox; --legacy-peer-deps: its
        # peers are pi's own packages, installed here at the map's pin (pi hands them to extensions itself)
        _npm(["install", "--ignore-scripts", "--legacy-peer-deps", "--save-exact", "--no-audit", "--no-fund",
              "--package-lock=true", *(f"{p}@{v}" for p, v in wanted.items())], what, list(node.npm),
             cwd=staging, env=env)
        _check_lock(staging, wanted, overlay, pi_install)
        lock = (staging / "package-lock.json").read_bytes()
        (staging / MANIFEST).write_text(json.dumps({"format": INSTALL_FORMAT, "packages": wanted,
                                                    "lock_sha256": hashlib.sha256(lock).hexdigest()}))

    publish_once(final, f"install-{final.parent.name}-{final.name}", lambda: _open(final, wanted) is not None, write)
    install = _open(final, wanted)
    if install is None:
        raise FetchError(f"the install at {final} failed its own check right after it was written")
    return install


def _copy_of(pi_install: PiInstall, staging: Path) -> None:
    """pi's install copied into ``staging`` (its manifest aside), for npm to add an extension to:
    npm reads the tree and its lockfile and writes only what the extension adds (pi-subagents
    0.67.0 at pi 1.6.0: 4.5 CPU-s with the copy, 9.2 without, the same tree). A copy, not links:
    npm rewrites some files in place (node_modules/.package-lock.json), which would write into pi's
    own install through a link."""
    shutil.copytree(pi_install.node_modules, staging / "node_modules", symlinks=True)
    shutil.copyfile(pi_install.root / "package-lock.json", staging / "package-lock.json")
    manifest = json.loads((pi_install.root / "package.json").read_text(encoding="utf-8"))
    (staging / "package.json").write_text(json.dumps({**manifest, "name": "pi-extension-probe"}) + "\n")


def _check_lock(staging: Path, wanted: dict[str, str], overlay: Overlay, pi_install: PiInstall) -> None:
    try:
        installed = json.loads((staging / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    except (OSError, ValueError, KeyError):
        raise FetchError(f"npm wrote no readable package-lock.json for {overlay.package}@{overlay.version}") from None
    # pi's install compared each of its packages' integrity with the registry's when it was written,
    # and its lockfile is one of the files its manifest holds (install_pi opened it unchanged)
    pi_rows = json.loads((pi_install.root / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    for package, version in wanted.items():
        row = installed.get(f"node_modules/{package}") or {}
        spec = f"{package}@{version}"
        if row.get("version") != version:
            raise FetchError(f"{spec}: npm installed version {row.get('version')!r} instead")
        expected = overlay.integrity if package == overlay.package else pi_rows[f"node_modules/{package}"]["integrity"]
        if row.get("integrity") != expected:
            raise FetchError(f"{spec}: the installed package's integrity is not the "
                             f"{'pinned' if package == overlay.package else 'registry'}'s one; refusing to use it")
    missing = [name for name, row in installed.items() if name and not row.get("integrity") and not row.get("link")]
    if missing:
        raise FetchError(f"package-lock.json records no integrity for {missing[0]}; refusing to use the install")


def _open(final: Path, wanted: dict[str, str]) -> PiInstall | None:
    try:
        manifest = json.loads((final / MANIFEST).read_text())
        if manifest.get("format") != INSTALL_FORMAT or manifest.get("packages") != wanted:
            return None
        lock = (final / "package-lock.json").read_bytes()
        if hashlib.sha256(lock).hexdigest() != manifest["lock_sha256"]:
            return None
        for package, version in wanted.items():
            meta = json.loads((final / "node_modules" / package / "package.json").read_text(encoding="utf-8"))
            if meta.get("version") != version:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # (a manifest that is no JSON object)
        return None
    pi_version = next(iter(wanted.values()))
    return PiInstall(final, pi_version, tuple(sorted(wanted)), manifest["lock_sha256"][:16])
