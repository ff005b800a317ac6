"""Faults of the fetch and the cache, each simulated: the registry and git failing in every way
they can, a fetch killed half-way, a corrupted cache, two processes sharing one cache, a full disk.

The npm route runs against a fake npm (DECISION_MAP_NPM) that serves tarballs built here and logs
every call, so the tests can count fetches; the git route against local repositories.
Every failure must be exit 2 with one clear line, no traceback, no YAML file touched, and no
half-written tree left in the cache.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest

from conftest import ACTOR, ROOT, assert_clean_failure, entry_yaml, make_project, python_env, run_main, source_map, tarball
from generator.source.fetch import MANIFEST, cache_root

FAKE_NPM = '''#!{python}
"""A stand-in for npm, configured by registry.json beside it; logs each call to calls.log.

  npm view SPEC dist.integrity --json           the package's integrity, as JSON
  npm pack SPEC --json --pack-destination DIR   copies its tarball into DIR, prints [{{"filename": …}}]
"""
import json, os, shutil, sys, time
from pathlib import Path

here = Path(__file__).parent
registry = json.loads((here / "registry.json").read_text())
args = sys.argv[1:]
with open(here / "calls.log", "a") as log:
    log.write(" ".join(args[:2]) + "\\n")
if registry.get("unreachable"):
    sys.stderr.write("npm error code ENOTFOUND\\nnpm error syscall getaddrinfo\\nnpm error network request to "
                     "https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org\\n")
    sys.exit(1)
command, spec = args[0], args[1]
known = registry["packages"].get(spec)
if known is None:
    sys.stderr.write(f"npm error code E404\\nnpm error 404 No match found for version of {{spec}}\\n")
    sys.exit(1)
if command == "view":
    print(json.dumps(known["integrity"]) if known["integrity"] else "")
elif command == "pack":
    target = Path(args[args.index("--pack-destination") + 1]) / Path(known["tarball"]).name
    data = Path(known["tarball"]).read_bytes()
    if registry.get("hang_on") == spec:  # half the tarball written, then never finish (to be killed)
        target.write_bytes(data[: len(data) // 2])
        Path(registry["marker"]).write_text(str(os.getpid()))
        time.sleep(120)
    time.sleep(registry.get("delay", 0))
    target.write_bytes(data[: len(data) // 2] if known.get("cut_in_transit") else data)
    print(json.dumps([{{"filename": target.name}}]))
'''

AGENT_TS = "export class Agent {\n\trun(): void {\n\t\tthis.step();\n\t}\n\n\tstep(): void {}\n}\n"
MODELS_TS = "export const MODELS = {\n\tfast: \"small\",\n\tsmart: \"large\",\n};\n"
MAP_YAML = """title: Demo
repo: https://example.org/demo
version: "1.0.0"
source:
  npm:
    - package: "@demo/agent"
      path: packages/agent
    - package: "@demo/ai"
      path: packages/ai
"""
PACKAGES = ("@demo/agent", "@demo/ai")


class Registry:
    """The fake npm and what it serves."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir()
        self.npm = folder / "npm"
        self.npm.write_text(FAKE_NPM.format(python=sys.executable))
        self.npm.chmod(0o755)
        self.config: dict = {"packages": {}}
        for version, prefix in (("1.0.0", ""), ("1.1.0", "// moved down\n")):
            self.publish(f"@demo/agent@{version}", {
                "package.json": json.dumps({"name": "@demo/agent", "version": version}),
                "dist/agent.js": "export class Agent {}\n",
                "dist/agent.js.map": source_map({"../src/agent.ts": prefix + AGENT_TS})})
            self.publish(f"@demo/ai@{version}", {
                "dist/models.js.map": source_map({"../src/models.ts": MODELS_TS})})

    def save(self) -> None:
        (self.folder / "registry.json").write_text(json.dumps(self.config))

    def publish(self, spec: str, files: dict[str, str], *, integrity_of: bytes | None = None) -> Path:
        path = tarball(self.folder / (spec.replace("@", "").replace("/", "-") + ".tgz"), files)
        data = path.read_bytes() if integrity_of is None else integrity_of
        digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        self.config["packages"][spec] = {"tarball": str(path), "integrity": digest}
        self.save()
        return path

    def set(self, **options) -> None:
        self.config.update(options)
        self.save()

    def calls(self, command: str) -> list[str]:
        log = self.folder / "calls.log"
        return [ln for ln in (log.read_text().splitlines() if log.exists() else []) if ln.startswith(command)]


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Registry:
    fake = Registry(tmp_path / "registry")
    monkeypatch.setenv("DECISION_MAP_NPM", str(fake.npm))
    return fake


@pytest.fixture
def decisions(tmp_path: Path, registry: Registry) -> Path:
    """decisions/demo pinned to 1.0.0 of the two fake packages, citing both."""
    folder = tmp_path / "decisions" / "demo"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text(MAP_YAML)
    (folder / "D1.yaml").write_text(entry_yaml("D1", [("packages/agent/src/agent.ts", "2-4"),
                                                      ("packages/ai/src/models.ts", 3)]))
    return tmp_path / "decisions"


def yaml_files(decisions: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(decisions.rglob("*")) if p.is_file()}


def cached_versions() -> list[str]:
    trees = cache_root() / "trees"
    return sorted(p.name for p in trees.glob("*/*") if not p.name.startswith(".")) if trees.is_dir() else []


def leftovers() -> list[Path]:
    """Half-written things in the cache: staging folders, downloads, clones."""
    return sorted((cache_root() / "trees").glob("*/.tmp-*")) if (cache_root() / "trees").is_dir() else []


def failing(capsys: pytest.CaptureFixture, decisions: Path, *words: str, target: str | None = None) -> str:
    """verify fails cleanly (exit 2, one line holding ``words``), leaves the YAML and the cache clean."""
    before = yaml_files(decisions)
    args = ["verify", "--decisions", decisions, "--quiet"] + (["--target", target] if target else [])
    line = assert_clean_failure(run_main(capsys, *args), *words)
    assert yaml_files(decisions) == before
    assert (target or "1.0.0") not in cached_versions(), "a failed fetch must publish no tree"
    assert leftovers() == []
    return line


def tree_root(version: str) -> Path:
    [root] = (cache_root() / "trees").glob(f"*/{version}")
    return root


# --- the registry ---------------------------------------------------------------------------------


def test_registry_unreachable(registry, decisions, capsys) -> None:
    registry.set(unreachable=True)
    failing(capsys, decisions, "the npm registry is unreachable while fetching @demo/agent@1.0.0",
            "check the network and run again")


def test_registry_unreachable_after_a_fetch(registry, decisions, capsys) -> None:
    """The pin cached once, the network gone: verify needs no registry at all."""
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet").code == 0
    calls = len(registry.calls(""))
    registry.set(unreachable=True)
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet").code == 0
    assert len(registry.calls("")) == calls


def test_unknown_version(registry, decisions, capsys) -> None:
    failing(capsys, decisions, "@demo/agent@9.9.9 is not in the npm registry (unknown package or version)",
            target="9.9.9")


def test_truncated_tarball(registry, decisions, capsys) -> None:
    """The registry itself serves a truncated tarball (its hash matches those bytes)."""
    path = registry.publish("@demo/ai@1.0.0", {f"dist/m{i}.js.map": source_map({f"../src/m{i}.ts": "x\n" * 400})
                                               for i in range(20)})
    path.write_bytes(path.read_bytes()[:200])
    registry.config["packages"]["@demo/ai@1.0.0"]["integrity"] = \
        "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()  # of the cut bytes
    registry.save()
    failing(capsys, decisions, "@demo/ai@1.0.0: the tarball is truncated or corrupt", "run again to re-download")


def test_download_cut_in_transit(registry, decisions, capsys) -> None:
    """Half the tarball arrives: the integrity check refuses it before it is unpacked."""
    registry.config["packages"]["@demo/agent@1.0.0"]["cut_in_transit"] = True
    registry.save()
    failing(capsys, decisions, "@demo/agent@1.0.0: the tarball does not match the registry's integrity hash")


def test_integrity_mismatch(registry, decisions, capsys) -> None:
    registry.publish("@demo/ai@1.0.0", {"dist/models.js.map": source_map({"../src/models.ts": "evil"})},
                     integrity_of=b"the bytes that were published")
    line = failing(capsys, decisions, "@demo/ai@1.0.0: the tarball does not match the registry's integrity "
                   "hash (sha512); refusing to use it")
    assert "evil" not in line


def test_source_map_without_sources_content(registry, decisions, capsys) -> None:
    registry.publish("@demo/ai@1.0.0", {"dist/models.js.map": source_map({"../src/models.ts": "x"}, False)})
    failing(capsys, decisions, "@demo/ai@1.0.0: its source maps hold no sourcesContent")


# --- git ------------------------------------------------------------------------------------------


def git_project(tmp_path: Path):
    return make_project(tmp_path, {"1": {"src/a.ts": AGENT_TS}, "2": {"src/a.ts": "// two\n" + AGENT_TS}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "2-4")])})


def test_git_ref_that_does_not_exist(tmp_path, capsys) -> None:
    project = git_project(tmp_path)
    failing(capsys, project.decisions, f"{project.url} has no ref v7", target="7")


def test_git_tag_moved_away_from_the_pin(tmp_path, capsys) -> None:
    project = git_project(tmp_path)
    project.write_map("2", commit=project.commits["2"])
    repo = git.Repo(project.upstream)
    moved = repo.index.commit("rewritten history", author=ACTOR, committer=ACTOR)
    repo.create_tag("v2", ref=moved, force=True)
    failing(capsys, project.decisions, f"is commit {moved.hexsha[:12]}", "the ref was moved", target="2")


# --- the cache ------------------------------------------------------------------------------------------


def test_fetch_killed_half_way(registry, decisions) -> None:
    """SIGKILL while the second package downloads: the next run finds no half-written tree,
    clears what the killed run left, and fetches again."""
    marker = decisions.parent / "npm-is-packing"
    registry.set(hang_on="@demo/ai@1.0.0", marker=str(marker))
    command = [sys.executable, "-m", "generator", "verify", "--decisions", str(decisions), "--quiet"]
    env = python_env()
    killed = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert killed.poll() is None, "the fetch ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        os.killpg(killed.pid, signal.SIGKILL)  # the generator and the npm it started
        killed.wait()
    assert cached_versions() == [], "no tree is published before it is complete"
    left = leftovers()
    assert left, "the kill left a staging folder behind (else this test proves nothing)"
    # the packages download together, so what is left is a staging folder and the finished tarballs
    assert any(p.name.endswith("-tarballs") and any(p.rglob("*.tgz")) for p in left), "half a fetch"
    registry.set(hang_on=None)
    before = len(registry.calls("pack"))
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(registry.calls("pack")) == before + 2, "fetched again, both packages"
    assert leftovers() == []
    assert (tree_root("1.0.0") / "packages" / "ai" / "src" / "models.ts").read_text() == MODELS_TS


@pytest.mark.parametrize("damage", ["edit a file", "truncate a file", "delete a file", "break the manifest"])
def test_corrupted_cache_entry_is_fetched_again(damage, registry, decisions, capsys) -> None:
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet").code == 0
    root = tree_root("1.0.0")
    cached = root / "packages" / "agent" / "src" / "agent.ts"
    if damage == "edit a file":
        cached.write_text(AGENT_TS.replace("step", "stop"))  # the same size, other bytes
    elif damage == "truncate a file":
        cached.write_text(AGENT_TS[:10])
    elif damage == "delete a file":
        cached.unlink()
    else:
        (root / MANIFEST).write_text('{"format": 1, "vers')
    before = len(registry.calls("pack"))
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet", "--format", "json")
    assert run.code == 0, run.stderr
    assert [c["status"] for c in run.json()["citations"]] == ["ok", "ok"]
    assert len(registry.calls("pack")) == before + 2, "detected, and fetched again"
    assert cached.read_text() == AGENT_TS
    assert leftovers() == []


@pytest.mark.parametrize("command", ["verify", "build"])
def test_two_processes_fetching_at_once(command, registry, decisions) -> None:
    """Both succeed; the second waits on the lock and reuses the first's tree: one fetch."""
    registry.set(delay=0.5)  # each download takes a while, so the two runs overlap
    root = decisions.parent
    if command == "verify":
        args = [["verify", "--decisions", str(decisions), "--target", "1.1.0", "--format", "json", "--quiet"]] * 2
        versions = ("1.0.0", "1.1.0")
    else:
        (root / "mkdocs.yml").write_text("site_name: Demo\ndocs_dir: site_src\nplugins:\n  - decision-map:\n"
                                         "      decisions: decisions\n")
        (root / "site_src").mkdir()
        args = [["build", "--config", str(root / "mkdocs.yml"), "--site-dir", str(root / f"site-{i}"), "--quiet"]
                for i in range(2)]
        versions = ("1.0.0",)
    env = python_env(NO_MKDOCS_2_WARNING="1")
    runs = [subprocess.Popen([sys.executable, "-m", "generator", *a], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for a in args]
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert "Traceback" not in err
        if command == "verify":
            assert run.returncode == 1, err  # 1: the citation moved at 1.1.0, which is the point of the run
            assert [c["status"] for c in json.loads(out)["citations"]] == ["moved", "ok"]
        else:
            assert run.returncode == 0, err
    if command == "build":
        assert (root / "site-0" / "demo" / "map" / "index.html").is_file()
        assert (root / "site-1" / "demo" / "map" / "index.html").is_file()
    packs = registry.calls("pack")
    assert sorted(packs) == sorted(f"pack {p}@{v}" for p in PACKAGES for v in versions), \
        "each package fetched once per version, however many processes asked"
    assert cached_versions() == list(versions)
    assert leftovers() == []


def test_a_cache_that_cannot_be_written_says_why(registry, decisions, capsys, monkeypatch) -> None:
    """A write into the cache that fails for another reason than a full disk (a file system gone
    read-only): one line naming the cache and the system's reason; nothing is published."""
    real_write_text = Path.write_text

    def read_only(self: Path, *args, **kwargs):
        if "/.tmp-" in self.as_posix():
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", read_only)
    line = failing(capsys, decisions)
    assert line.startswith(f"error: cannot write the cache at {cache_root()}: [Errno {errno.EROFS}] "
                           f"{os.strerror(errno.EROFS)}: "), line


def test_full_disk_while_writing(registry, decisions, capsys, monkeypatch) -> None:
    """ENOSPC half-way through writing a new tree: one clear line; the cached tree of the pin is
    intact and used without the registry; the next run (with space) fetches the new version."""
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet").code == 0
    pinned = tree_root("1.0.0")
    pinned_files = {p: p.read_bytes() for p in pinned.rglob("*") if p.is_file()}
    real_write_text = Path.write_text
    written = []

    def disk_full(self: Path, *args, **kwargs):
        if "/.tmp-" in self.as_posix():  # only the staging folder of a fetch fills the disk
            written.append(self)
            if len(written) > 1:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", disk_full)
    line = failing(capsys, decisions, target="1.1.0")
    assert line == (f"error: no space left on the device while writing the cache at {cache_root()}; "
                    "free some space and run again (the cache was left as it was)")
    assert len(written) == 2, "the fault struck half-way through the tree"
    assert {p: p.read_bytes() for p in pinned.rglob("*") if p.is_file()} == pinned_files
    packs = len(registry.calls("pack"))
    assert run_main(capsys, "verify", "--decisions", decisions, "--quiet").code == 0
    assert len(registry.calls("pack")) == packs, "the previous cache serves the pin, untouched"
    monkeypatch.setattr(Path, "write_text", real_write_text)
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet", "--target", "1.1.0")
    assert run.code == 1, run.stderr  # fetched now: the citation moved at 1.1.0
    assert cached_versions() == ["1.0.0", "1.1.0"]
