"""Fetch a map's pinned source tree (npm or git) into a shared, atomic, locked cache.

A tree is a folder laid out like the upstream git repository. Each cached tree carries a
manifest of its files (size, mtime, sha256); a tree is only ever published by renaming a
finished folder, so a killed fetch leaves nothing half-written.
"""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import json
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import FetchError, display_path
from ..map.model import DecisionMap, GitPin, NpmPackage

MANIFEST = ".decision-map-manifest.json"
FORMAT = 1  # bump when the tree layout changes, so old cache entries are rebuilt


def cache_root() -> Path:
    """The cache folder: $DECISION_MAP_CACHE, else the user cache directory (XDG)."""
    explicit = os.environ.get("DECISION_MAP_CACHE")
    if explicit:
        return Path(explicit)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pi-decision-map", appauthor=False))


class CorruptTree(FetchError):
    """A cached file no longer matches the digest recorded when it was written."""


@dataclass
class SourceTree:
    """A materialized source tree at one version. Paths are POSIX, relative to ``root``."""

    root: Path
    version: str
    files: dict[str, dict]  # path -> {"size", "sha256"}
    integrity: dict[str, str] = field(default_factory=dict)  # npm package -> the integrity its tarball matched
    _checked: set[str] = field(default_factory=set)
    _root_real: Path | None = None
    _verdicts: dict[str, str | None] = field(default_factory=dict)

    def _real_root(self) -> Path:
        if self._root_real is None:
            self._root_real = Path(os.path.realpath(self.root))
        return self._root_real

    def has_file(self, path: str) -> bool:
        return path in self.files

    def read(self, path: str) -> bytes:
        """The file's bytes, checked against the digest recorded at fetch time."""
        try:
            data = (self.root / path).read_bytes()
        except OSError:
            raise CorruptTree(f"cached file {self.root / path} is unreadable") from None
        if path not in self._checked:
            if hashlib.sha256(data).hexdigest() != self.files[path]["sha256"]:
                raise CorruptTree(f"cached file {self.root / path} does not match its recorded digest")
            self._checked.add(path)
        return data

    def classify(self, path: str) -> str | None:
        """Why ``path`` cannot be cited, or None when it is a regular file inside the tree."""
        if path not in self._verdicts:
            self._verdicts[path] = self._classify(path)
        return self._verdicts[path]

    def _classify(self, path: str) -> str | None:
        full = self.root / path
        if not Path(os.path.realpath(full)).is_relative_to(self._real_root()):
            return "leaves the source tree (through a symbolic link)"
        if full.is_dir():
            return "is a folder, not a file"
        if path not in self.files:
            return f"does not exist at {self.version}"
        if b"\0" in self.read(path)[:8000]:
            return "is a binary file"
        return None


def fetch_tree(decision_map: DecisionMap, version: str, *, quiet: bool = False) -> SourceTree:
    """The source tree of ``decision_map`` at ``version``, from the cache or fetched into it."""
    source = decision_map.source
    key = _source_key(decision_map)
    root = cache_root()
    final = root / "trees" / key / version
    # The pin's commit holds for the pinned version only; a cached tree of another commit is stale.
    pin_commit = source.git.commit if source.git is not None and version == decision_map.version else None
    # An integrity recorded in the pin holds for the pinned version only, as a pin's commit does.
    pinned = {p.package: p.integrity for p in source.npm if p.integrity} if version == decision_map.version else {}
    tree = _open(final, version, pin_commit, pinned)
    if tree is not None:
        return tree

    def write(staging: Path) -> None:
        with _Progress(quiet) as progress:
            integrities = None
            if source.git is not None:
                commit = _fetch_git(source.git, version, pin_commit, staging, progress, decision_map.path)
            else:
                commit = None
                integrities = _fetch_npm(source.npm, version, staging, progress, pinned)
        _write_manifest(staging, version, commit, integrities)

    publish_once(final, f"{key}-{version}", lambda: _open(final, version, pin_commit, pinned) is not None, write,
                 after=lambda: _record_history(root, key, version, final))
    tree = _open(final, version, pin_commit, pinned)
    if tree is None:
        raise FetchError(f"the fetched tree at {final} failed its own digest check")
    return tree


def publish_once(final: Path, lock_name: str, ready: Callable[[], bool], write: Callable[[Path], None],
                 after: Callable[[], None] | None = None) -> None:
    """Make sure a finished cache entry is at ``final``, writing it at most once between processes.

    Under the lock ``locks/<lock_name>.lock`` of the cache, ``ready()`` is asked again (another
    process may have finished while we waited); if it is still false, ``write`` fills a staging
    folder beside ``final`` that is then renamed into place, replacing a stale entry. A writer
    killed half-way leaves only a staging folder, which the next one clears. ``after`` runs under
    the lock once the entry is published.
    """
    root = cache_root()
    lock_path = root / "locks" / f"{lock_name}.lock"
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FetchError(f"cannot create the cache at {root}: {err.strerror}") from None
    from filelock import FileLock  # imported here: a warm run never needs it

    with FileLock(str(lock_path)):
        if ready():
            return
        for stale in final.parent.glob(f".tmp-{final.name}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=final.parent))
        try:
            write(staging)
            if final.exists():  # a corrupt or stale entry we are replacing
                shutil.rmtree(final)
            os.rename(staging, final)
        except OSError as err:
            shutil.rmtree(staging, ignore_errors=True)
            if err.errno == errno.ENOSPC:
                raise FetchError(f"no space left on the device while writing the cache at {root}; "
                                 "free some space and run again (the cache was left as it was)") from None
            raise FetchError(f"cannot write the cache at {root}: {err}") from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if after is not None:
            after()


def refetch(decision_map: DecisionMap, version: str, *, quiet: bool = False) -> SourceTree:
    """Drop a cached tree (found corrupt) and fetch it again."""
    final = cache_root() / "trees" / _source_key(decision_map) / version
    manifest = final / MANIFEST
    if manifest.exists():
        manifest.unlink()
    return fetch_tree(decision_map, version, quiet=quiet)


def _source_key(decision_map: DecisionMap) -> str:
    source = decision_map.source
    if source.git is not None:
        ident = {"git": source.git.url, "ref": source.git.ref}
        label = "git"
    else:
        # (a shipped package's files are another tree than a rebuilt one; pi's key stays as it was)
        ident = {"npm": sorted([p.package, p.path] + (["shipped"] if p.shipped else []) for p in source.npm)}
        label = "npm"
    digest = hashlib.sha256(json.dumps([FORMAT, ident]).encode()).hexdigest()[:16]
    return f"{decision_map.name}-{label}-{digest}"


def _open(final: Path, version: str, commit: str | None = None,
          integrities: dict[str, str] | None = None) -> SourceTree | None:
    """The cached tree, or None when absent, unfinished, or not of ``commit`` or of the packages'
    ``integrities`` (when given: a tree fetched before the pin recorded them is fetched again)."""
    try:
        manifest = json.loads((final / MANIFEST).read_text())
        if manifest.get("format") != FORMAT or manifest.get("version") != version:
            return None
        if commit and not str(manifest.get("commit")).startswith(commit):
            return None
        if integrities and any((manifest.get("integrity") or {}).get(name) != value
                               for name, value in integrities.items()):
            return None
        files = manifest["files"]  # each file's digest is checked when it is first read
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return SourceTree(final, version, files, dict(manifest.get("integrity") or {}))


def _write_manifest(staging: Path, version: str, commit: str | None = None,
                    integrities: dict[str, str] | None = None) -> None:
    files = {}
    for full in sorted(staging.rglob("*")):
        if full.is_file() and not full.is_symlink() and ".git" not in full.relative_to(staging).parts:
            data = full.read_bytes()
            files[full.relative_to(staging).as_posix()] = {"size": len(data),
                                                           "sha256": hashlib.sha256(data).hexdigest()}
    if not files:
        raise FetchError("the fetched source holds no files")
    manifest = {"format": FORMAT, "version": version, "commit": commit, "files": files}
    if integrities:
        manifest["integrity"] = integrities  # each package's, as the registry gave it and the tarball matched
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=0, sort_keys=True))


# --- npm -------------------------------------------------------------------------------------


_npm_running: set[subprocess.Popen] = set()
_npm_lock = threading.Lock()
_npm_stopping = threading.Event()


def stop_npm() -> None:
    """Kill every npm this process runs, with what it started (for SIGTERM, SIGINT: installs run in
    threads, which a signal does not reach); no npm starts after this, until :func:`allow_npm`."""
    _npm_stopping.set()
    with _npm_lock:
        running = list(_npm_running)
    for process in running:
        _kill_group(process)


def allow_npm() -> None:
    """Undo :func:`stop_npm` (for a later build in the same process, such as a test's)."""
    _npm_stopping.clear()


def _kill_group(process: subprocess.Popen) -> None:
    """Kill npm and every process under it. (npm stays in this process's group, so that a kill of
    the whole group, Ctrl-C in a terminal or `kill -9` of the group, ends it with the build; what it
    started is found through /proc, its descendants listed before any is killed.)"""
    if process.returncode is not None:  # reaped: its number may be another process's by now
        return
    for pid in [*_descendants(process.pid), process.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:  # (already gone)
            pass


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (Linux's /proc/<pid>/task/<tid>/children), children first."""
    found: list[int] = []
    waiting = [pid]
    while waiting:
        for children in Path(f"/proc/{waiting.pop()}/task").glob("*/children"):
            try:
                below = [int(n) for n in children.read_text().split()]
            except (OSError, ValueError):
                below = []
            found += below
            waiting += below
    return found


def _npm(args: list[str], what: str, npm: list[str] | None = None, **run) -> str:
    """npm's output; ``npm`` is the command that runs it (default: $DECISION_MAP_NPM, else `npm`),
    ``run`` more arguments for subprocess.Popen (cwd, env)."""
    # npm's default back-off waits about a minute before it calls a registry unreachable
    command = [*(npm or [os.environ.get("DECISION_MAP_NPM", "npm")]), *args, "--fetch-retries=2",
               "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000"]
    with _npm_lock:
        if _npm_stopping.is_set():
            raise FetchError(f"not fetching {what}: the build is being stopped")
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, **run)
        except FileNotFoundError:
            raise FetchError(f"cannot run '{command[0]}': install Node.js and npm to fetch {what}") from None
        _npm_running.add(process)
    try:
        stdout, stderr = process.communicate(timeout=300)
    except BaseException as err:  # the time limit, or Ctrl-C while npm runs in this thread
        _kill_group(process)
        process.communicate()
        if isinstance(err, subprocess.TimeoutExpired):
            raise FetchError(f"npm did not answer within 300 s while fetching {what}; check the network "
                             "and run again") from None
        raise
    finally:
        with _npm_lock:
            _npm_running.discard(process)
    if process.returncode != 0:
        raise FetchError(_npm_failure(stderr + stdout, what))
    return stdout


def _npm_failure(output: str, what: str) -> str:
    text = output.lower()
    if any(s in text for s in ("e404", "no matching version", "etarget", "404 not found", "not in this registry")):
        missing = _missing_package(output)
        if missing and missing[0] not in re.findall(r"(@?[^\s@,]+)@", what):
            name, wanted = missing
            return (f"{what} cannot be installed: a package it depends on, {name}{'@' + wanted if wanted else ''}, "
                    "is not in the npm registry")
        return f"{what} is not in the npm registry (unknown package or version)"
    if any(s in text for s in ("enotfound", "econnrefused", "etimedout", "eai_again", "network",
                               "econnreset", "unreachable")):
        return f"the npm registry is unreachable while fetching {what}; check the network and run again"
    last = next((ln for ln in reversed(output.strip().splitlines()) if ln.strip()), "no output")
    return f"npm failed while fetching {what}: {last.strip()}"


def _missing_package(output: str) -> tuple[str, str] | None:
    """The package (and the version range asked for) that npm says the registry does not have."""
    found = (re.search(r"No matching version found for (@?[^\s@]+)@(\S+?)\.?$", output, re.M)
             or re.search(r"'(@?[^\s@']+)@?([^\s']*)' is not in this registry", output)
             or re.search(r"404 Not Found - GET \S+?/(@[^/\s]+(?:%2[fF]|/)[^/\s]+|[^/\s]+) ", output))
    if not found:
        return None
    return found.group(1).replace("%2f", "/").replace("%2F", "/"), (found.group(2) if found.lastindex > 1 else "")


def _fetch_npm(packages: tuple[NpmPackage, ...], version: str, staging: Path, progress: "_Progress",
               pinned: dict[str, str] | None = None) -> dict[str, str]:
    """Fetch, check and lay out each package; returns each package's integrity hash."""
    download = staging.parent / f"{staging.name}-tarballs"
    download.mkdir()
    try:
        # npm spends most of its time starting and waiting on the registry: fetch every package at once
        with ThreadPoolExecutor(max_workers=max(1, len(packages))) as pool:
            for package in packages:
                progress.step(f"npm: {package.package}@{version}")
            downloads = [pool.submit(_download_npm, package, version, download / str(index))
                         for index, package in enumerate(packages)]
            tarballs = [job.result() for job in downloads]  # the first failure, in the pin's order
        for package, (tarball, integrity) in zip(packages, tarballs):
            spec = f"{package.package}@{version}"
            expected = (pinned or {}).get(package.package)
            if expected and expected != integrity:
                raise FetchError(f"{spec}: the registry's integrity hash is {integrity}, but the pin records "
                                 f"{expected}; the published package is not the one that was mapped")
            _check_integrity(tarball, integrity, spec)
            rebuild = _unpack_shipped if package.shipped else _rebuild_sources
            count = rebuild(tarball, staging / package.path, spec)
            progress.step(f"npm: {spec}: {count} source files")
        return {package.package: integrity for package, (_, integrity) in zip(packages, tarballs)}
    finally:
        shutil.rmtree(download, ignore_errors=True)


def _download_npm(package: NpmPackage, version: str, folder: Path) -> tuple[Path, str]:
    """The package's tarball (in ``folder``) and the integrity hash the registry gives for it."""
    spec = f"{package.package}@{version}"
    folder.mkdir()
    integrity = registry_integrity(spec)
    packed = _npm_json(_npm(["pack", spec, "--json", "--pack-destination", str(folder)], spec), spec)
    try:
        return folder / packed[0]["filename"], integrity
    except (LookupError, TypeError):
        raise FetchError(f"npm pack gave no tarball name for {spec}") from None


def registry_integrity(spec: str, npm: list[str] | None = None) -> str:
    """The integrity hash the registry gives for ``spec`` (package@exact-version)."""
    meta_text = _npm(["view", spec, "dist.integrity", "--json"], spec, npm).strip()
    if not meta_text:
        raise FetchError(f"{spec} is not in the npm registry (unknown package or version)")
    integrity = _npm_json(meta_text, spec)
    if isinstance(integrity, list):  # a range matched several versions: not an exact pin
        raise FetchError(f"{spec} names several versions; pin an exact version")
    return integrity


def _npm_json(output: str, spec: str):
    try:
        return json.loads(output)
    except ValueError:
        first = next((ln.strip() for ln in output.splitlines() if ln.strip()), "nothing")
        raise FetchError(f"npm gave an unreadable answer while fetching {spec}: {first[:80]}") from None


def _check_integrity(tarball: Path, integrity: str, spec: str) -> None:
    algorithm, _, expected = str(integrity).partition("-")
    if algorithm not in ("sha512", "sha384", "sha256", "sha1"):
        raise FetchError(f"{spec}: the registry gives no usable integrity hash ({integrity!r})")
    actual = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if actual != expected:
        raise FetchError(f"{spec}: the tarball does not match the registry's integrity hash "
                         f"({algorithm}); refusing to use it")


def _unpack_shipped(tarball: Path, destination: Path, spec: str) -> int:
    """Write the tarball's regular files, as shipped, under ``destination`` (its ``package/`` folder
    dropped); a path that would leave ``destination`` or a bundled dependency is skipped."""
    count = 0
    root = destination.resolve()
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            for member in archive:
                if not member.isfile() or "/" not in member.name:
                    continue  # links and devices are never extracted
                relative = posixpath.normpath(member.name.split("/", 1)[1])
                if relative.startswith(("../", "/")) or relative == ".." or "node_modules" in relative.split("/"):
                    continue
                target = (destination / relative)
                if not target.resolve().is_relative_to(root):
                    continue
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(handle.read())
                count += 1
    except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
        raise FetchError(f"{spec}: the tarball is truncated or corrupt ({err}); run again to re-download") from None
    if not count:
        raise FetchError(f"{spec}: the tarball holds no files")
    return count


def _rebuild_sources(tarball: Path, destination: Path, spec: str) -> int:
    """Write every source file held in the tarball's source maps under ``destination``."""
    written: dict[str, str] = {}
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            for member in archive:
                if not (member.isfile() and member.name.endswith(".js.map")):
                    continue
                handle = archive.extractfile(member)
                try:
                    source_map = json.loads(handle.read()) if handle else None
                except ValueError:
                    continue
                if not isinstance(source_map, dict) or not source_map.get("sourcesContent"):
                    continue
                base = posixpath.dirname(member.name.split("/", 1)[1] if "/" in member.name else "")
                root = source_map.get("sourceRoot") or ""
                for name, content in zip(source_map.get("sources", []), source_map["sourcesContent"]):
                    if content is None or not isinstance(name, str):
                        continue
                    relative = posixpath.normpath(posixpath.join(base, root, name))
                    if relative.startswith("../") or relative == ".." or relative.startswith("/") \
                            or "node_modules" in relative.split("/"):
                        continue  # sources of bundled dependencies, or outside the package
                    written.setdefault(relative, content)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
        raise FetchError(f"{spec}: the tarball is truncated or corrupt ({err}); run again to re-download") from None
    if not written:
        raise FetchError(f"{spec}: its source maps hold no sourcesContent, so its sources cannot be rebuilt")
    root = destination.resolve()
    for relative, content in written.items():
        target = destination / relative
        # Checked again on disk: the string test above cannot see a symlink on the way.
        if not target.resolve().is_relative_to(root):
            raise FetchError(f"{spec}: a source map names {relative!r}, which leads outside the "
                             f"package's folder; refusing to write it")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return len(written)


# --- git -------------------------------------------------------------------------------------


def _fetch_git(pin: GitPin, version: str, pin_commit: str | None, staging: Path, progress: "_Progress",
               map_file: Path) -> str:
    """Check out ``pin`` (written in ``map_file``) at ``version`` into ``staging``; returns the commit's hash."""
    ref = pin.ref.replace("{version}", version)
    # No branch, tag or commit name starts with `-`, and `git checkout` would read one that does as
    # an option (`--orphan=x` makes a branch, `--detach` checks out the default branch instead);
    # this git (2.39) does not take `--end-of-options` in `checkout`, so such a ref is refused here.
    if ref.startswith("-"):
        raise FetchError(f"{display_path(map_file)}: the git ref {ref!r} starts with '-', which git would read "
                         "as an option: write the branch, tag or commit it means in `source: git: ref` "
                         "(or pass the version without a leading '-')")
    # (GitPython, for its GitCommandError, cannot even be imported without git)
    if shutil.which("git") is None:
        raise FetchError(f"cannot run 'git': install git to fetch {pin.url}")
    import git

    progress.step(f"git: {pin.url} at {ref}")
    checkout = staging.parent / f"{staging.name}-clone"
    try:
        try:  # `--`: the address is never read as an option (`--upload-pack=…` would run a command)
            _git("clone", "--depth", "1", "--branch", ref, "--", pin.url, str(checkout))
        except git.GitCommandError:
            shutil.rmtree(checkout, ignore_errors=True)
            try:  # a commit hash cannot be cloned shallowly by name: clone, then check it out
                _git("clone", "--", pin.url, str(checkout))
                _git("checkout", ref, cwd=checkout)
            except git.GitCommandError as err:
                raise FetchError(_git_failure(err, pin.url, ref)) from None
        commit = _git("rev-parse", "HEAD", cwd=checkout)
        if pin_commit and not commit.startswith(pin_commit):
            raise FetchError(f"{pin.url} at {ref} is commit {commit[:12]}, but the pin records "
                             f"{pin_commit[:12]}: the ref was moved; check it, then update `commit`")
        for item in checkout.iterdir():
            if item.name != ".git":
                shutil.move(str(item), staging / item.name)
        return commit
    finally:
        shutil.rmtree(checkout, ignore_errors=True)


def _git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run git in the repository ``cwd`` or ``env`` names (never the caller's); its output, stripped.

    A fetch run by a git hook (a build in a pre-commit hook) inherits the variables git sets for
    the hook's own repository (GIT_INDEX_FILE, GIT_DIR, ...): a clone would check out into that
    repository's index. They are cleared as git clears them for a submodule. Its messages in
    English, which `_git_failure` reads; what it prints is captured (a failure's is in the error).
    Raises GitCommandError, as GitPython's calls did.
    """
    import git

    command = ["git", *args]
    variables = {name: value for name, value in os.environ.items() if name not in _repository_variables()}
    variables.update(LC_ALL="C", **(env or {}))  # the C locale: git's English (LANGUAGE is then ignored)
    run = subprocess.run(command, cwd=cwd, env=variables, capture_output=True, encoding="utf-8", errors="surrogateescape")
    if run.returncode != 0:
        raise git.GitCommandError(command, run.returncode, run.stderr.strip())
    return run.stdout.strip()


@functools.lru_cache(maxsize=None)
def _repository_variables() -> frozenset[str]:
    """The variables that tie git to one repository, as this git names them; asked once per process
    (`_git` reads it for each variable of the environment: uncached, that was sixty runs of git
    for each of its calls, and the tests that fetch from git took five times as long)."""
    listed = subprocess.run(["git", "rev-parse", "--local-env-vars"], capture_output=True, text=True, check=True)
    return frozenset(listed.stdout.split())


def _git_failure(err: Exception, url: str, ref: str) -> str:
    text = str(err).lower()
    if "not found" in text or "did not match" in text or "pathspec" in text or "reference" in text:
        return f"{url} has no ref {ref}"
    if ("does not appear to be a git repository" in text or "does not exist" in text or "could not read" in text
            or "unable to" in text):
        return f"cannot reach the git repository {url}"
    return f"git failed to fetch {url} at {ref}: {str(err).strip().splitlines()[-1].strip()}"


# --- the history repository -------------------------------------------------------------------


def history_path() -> Path:
    """One local git repository holding each fetched tree as a tagged commit."""
    return cache_root() / "history.git"


def _record_history(root: Path, key: str, version: str, tree: Path) -> None:
    """Commit ``tree`` as tag ``{key}/v{version}``; best effort, never fails a fetch."""
    try:
        from filelock import FileLock

        with FileLock(str(root / "locks" / "history.lock")):
            path = history_path()
            if not path.exists():
                _git("init", "--bare", str(path))
            tag = f"{key}/v{version}"
            if _git("tag", "--list", tag, env={"GIT_DIR": str(path)}):
                return
            with tempfile.TemporaryDirectory() as scratch:
                env = {"GIT_DIR": str(path), "GIT_INDEX_FILE": str(Path(scratch) / "index"), "GIT_WORK_TREE": str(tree),
                       "GIT_AUTHOR_NAME": "decision-map", "GIT_AUTHOR_EMAIL": "decision-map@localhost",
                       "GIT_COMMITTER_NAME": "decision-map", "GIT_COMMITTER_EMAIL": "decision-map@localhost"}
                _git("add", "--all", "--force", ".", cwd=tree, env=env)
                _git("reset", "--", MANIFEST, cwd=tree, env=env)
                sha = _git("write-tree", env=env)
                commit = _git("commit-tree", sha, "-m", f"{key} {version}", env=env)
                _git("tag", tag, commit, env=env)
    except Exception as err:  # the history is a convenience; the tree itself is what matters
        reason = str(err).strip().splitlines()[-1].strip()  # git's own message, after the command
        print(f"note: could not record {version} in {history_path()}: {reason}", file=sys.stderr)


def renamed_files(decision_map: DecisionMap, old: str, new: str) -> dict[str, str]:
    """Files git sees as renamed between two fetched versions (old path → new path), from the
    history repository; empty when either version is not recorded there."""
    key = _source_key(decision_map)
    try:
        output = _git("diff", "--name-status", "-M", "-z", f"{key}/v{old}", f"{key}/v{new}",
                      env={"GIT_DIR": str(history_path())})
    except Exception:  # no history (yet), or a version missing from it: renames are a bonus
        return {}
    fields = output.split("\0")
    renames, index = {}, 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")):
            if status.startswith("R"):
                renames[fields[index + 1]] = fields[index + 2]
            index += 3
        else:
            index += 2
    return renames


class _Progress:
    """A one-line progress display on stderr (a live spinner on a terminal, plain lines elsewhere)."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self._status = None

    def __enter__(self) -> "_Progress":
        if not self.quiet and sys.stderr.isatty():
            from rich.console import Console

            self._status = Console(stderr=True).status("fetching")
            self._status.__enter__()
        return self

    def step(self, message: str) -> None:
        if self.quiet:
            return
        if self._status is not None:
            self._status.update(f"fetching {message}")
        else:
            print(f"fetching {message}", file=sys.stderr, flush=True)

    def __exit__(self, *exc) -> None:
        if self._status is not None:
            self._status.__exit__(*exc)
