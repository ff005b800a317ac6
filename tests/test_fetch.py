"""Fetching pinned trees: the git route against local repositories, the npm route against a fake
npm (DECISION_MAP_NPM) for every failure the registry can produce, and the cache."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest

from conftest import ACTOR, ROOT, assert_clean_failure, entry_yaml, make_project, python_env, run_cli, run_main, source_map, tarball
from generator.source.fetch import MANIFEST, _repository_variables, cache_root, fetch_tree, history_path
from generator.map.load import load_maps

SOURCE = "export function hello(name: string): string {\n\treturn `hello ${name}`;\n}\n"


def two_versions(tmp_path: Path):
    return make_project(tmp_path, {"1": {"src/a.ts": SOURCE, "README.md": "one\n"},
                                   "2": {"src/a.ts": "// two\n" + SOURCE}},
                        {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})


# --- git -------------------------------------------------------------------------------------------


def test_git_route_two_tagged_versions(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    one, two = fetch_tree(demo, "1", quiet=True), fetch_tree(demo, "2", quiet=True)
    assert sorted(one.files) == ["README.md", "src/a.ts"]
    assert sorted(two.files) == ["src/a.ts"]  # each version is exactly its commit's tree
    assert one.read("src/a.ts") == SOURCE.encode()
    assert two.read("src/a.ts") == ("// two\n" + SOURCE).encode()
    assert not (one.root / ".git").exists()
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "json")
    assert run.code == 1
    assert run.json()["citations"][0]["resolved"] == [2, 4]


def test_a_version_whose_commit_holds_no_files_is_refused(tmp_path: Path) -> None:
    from generator.errors import FetchError
    project = make_project(tmp_path, {"1": {}}, {"D1": entry_yaml("D1", [("src/a.ts", "1-3")])})
    [demo] = load_maps(project.decisions)
    with pytest.raises(FetchError) as refused:
        fetch_tree(demo, "1", quiet=True)
    assert str(refused.value) == "the fetched source holds no files"
    assert not list((cache_root() / "trees").glob("*/1"))


def test_a_git_fetch_says_what_it_clones(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "2")
    ref = demo.source.git.ref.replace("{version}", "2")
    assert capsys.readouterr().err == f"fetching git: {demo.source.git.url} at {ref}\n"


def test_a_tagged_version_is_cloned_without_the_history_before_it(tmp_path: Path) -> None:
    """A version pinned by a tag is cloned alone (depth 1): none of the earlier history is
    downloaded, so a repository whose earlier history cannot be read (here a file of version 1
    gone from its objects) still gives version 2."""
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    upstream = git.Repo(project.upstream)
    readme = upstream.git.rev_parse("v1:README.md")
    (project.upstream / ".git" / "objects" / readme[:2] / readme[2:]).unlink()
    assert fetch_tree(demo, "2", quiet=True).read("src/a.ts") == ("// two\n" + SOURCE).encode()


def test_git_route_at_a_commit(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    project.write_map("1", ref=project.commits["2"])  # a commit hash cannot be cloned shallowly by name
    project.write_entry("D1", entry_yaml("D1", [("src/a.ts", "2-4")]))
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    [demo] = load_maps(project.decisions)
    assert fetch_tree(demo, "1", quiet=True).read("src/a.ts").startswith(b"// two\n")


def test_git_ref_that_does_not_exist(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    run = run_cli("verify", "--decisions", project.decisions, "--target", "9", "--quiet")
    assert_clean_failure(run, project.url, "has no ref v9")
    assert run.stdout == ""
    assert not list((cache_root() / "trees").glob("*/9")), "nothing half-written is left"
    assert not list((cache_root() / "trees").glob("*/.tmp-*"))


def test_git_failures_are_told_apart_whatever_language_the_user_reads(tmp_path: Path, monkeypatch) -> None:
    """git speaks the user's language (LANGUAGE=de: German, where its translations are installed);
    the fetch asks it for English, the words it tells failures apart by."""
    from generator.errors import FetchError
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    with pytest.raises(FetchError) as refused:
        fetch_tree(demo, "9", quiet=True)
    assert str(refused.value) == f"{project.url} has no ref v9"


def test_git_pin_commit_that_matches(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    project.write_map("1", commit=project.commits["1"][:12])
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0


def test_git_tag_moved_away_from_the_pinned_commit(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    project.write_map("1", commit=project.commits["1"])
    repo = git.Repo(project.upstream)
    (project.upstream / "src" / "a.ts").write_text(SOURCE.replace("hello", "bye"))
    moved = repo.index.commit("rewrite", author=ACTOR, committer=ACTOR)
    repo.create_tag("v1", ref=moved, force=True)
    run = run_cli("verify", "--decisions", project.decisions)
    line = assert_clean_failure(run, f"is commit {moved.hexsha[:12]}", f"the pin records "
                                f"{project.commits['1'][:12]}", "the ref was moved")
    # each commit shown by its first 12 characters
    assert line == (f"error: {project.url} at v1 is commit {moved.hexsha[:12]}, but the pin records "
                    f"{project.commits['1'][:12]}: the ref was moved; check it, then update `commit`")


def test_git_pin_updated_to_the_moved_tag_is_fetched_again(tmp_path: Path, capsys) -> None:
    # A person checks the moved tag and records its new commit: the cached tree of the old commit
    # must not be used for it.
    project = two_versions(tmp_path)
    project.write_map("1", commit=project.commits["1"])
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--quiet").code == 0
    repo = git.Repo(project.upstream)
    (project.upstream / "src" / "a.ts").write_text("// moved tag\n" + SOURCE)
    repo.git.add("--all")
    moved = repo.index.commit("rewrite", author=ACTOR, committer=ACTOR)
    repo.create_tag("v1", ref=moved, force=True)
    project.write_map("1", commit=moved.hexsha)
    [demo] = load_maps(project.decisions)
    assert fetch_tree(demo, "1", quiet=True).read("src/a.ts").startswith(b"// moved tag\n")
    # And a changed ref pattern is another source altogether.
    project.write_map("1", ref="v{version}", commit=None)
    repo.create_tag("release-1", ref=project.commits["1"])
    project.write_map("1", ref="release-{version}")
    [demo] = load_maps(project.decisions)
    assert fetch_tree(demo, "1", quiet=True).read("src/a.ts") == SOURCE.encode()


def test_git_repository_that_cannot_be_reached(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    project.url = (tmp_path / "no-such-repo").as_uri()
    project.write_map("1")
    assert_clean_failure(run_cli("verify", "--decisions", project.decisions, "--quiet"),
                         "cannot reach the git repository", project.url)


def test_an_address_that_reads_as_an_option_runs_nothing(tmp_path: Path) -> None:
    """A map's git address is handed to git as an address, never as an option: one written
    `--upload-pack=…` (an option git would run as a command) is told as a repository that cannot
    be reached (git: "repository … does not exist"), and the command does not run."""
    project = two_versions(tmp_path)
    ran = tmp_path / "the-command-ran"
    project.url = f"--upload-pack=touch {ran};false"
    project.write_map("1")
    assert_clean_failure(run_cli("verify", "--decisions", project.decisions, "--quiet"),
                         f"cannot reach the git repository {project.url}")
    assert not ran.exists()


@pytest.mark.parametrize("ref", ["--orphan=x", "-b", "--detach"])
def test_a_ref_that_reads_as_an_option_is_refused_and_git_never_runs(tmp_path: Path, monkeypatch, capsys, ref) -> None:
    """No branch, tag or commit name starts with `-`; `git checkout` would read one that does as an
    option (`--orphan=x` made a branch, `--detach` fetched the default branch's files as if they
    were the ref's). Such a ref is refused, naming the map file, before git runs at all (the `git`
    on the PATH notes each run)."""
    project = two_versions(tmp_path)
    project.write_map("1", ref=ref)
    bin_folder, runs = tmp_path / "bin", tmp_path / "git-runs"
    bin_folder.mkdir()
    (bin_folder / "git").write_text(f'#!/bin/sh\necho "$@" >> {runs}\nexec {shutil.which("git")} "$@"\n')
    (bin_folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_folder))
    monkeypatch.chdir(tmp_path)
    line = assert_clean_failure(run_main(capsys, "verify", "--decisions", project.decisions, "--quiet"))
    assert line == (f"error: decisions/demo/map.yaml: the git ref {ref!r} starts with '-', which git would read as "
                    "an option: write the branch, tag or commit it means in `source: git: ref` (or pass the version "
                    "without a leading '-')")
    assert not runs.exists()
    assert not list((cache_root() / "trees").glob("*/1"))


def test_a_git_fetch_without_git_installed_says_to_install_it(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    (tmp_path / "bin").mkdir()  # a PATH where no git is found
    run = run_cli("verify", "--decisions", project.decisions, "--quiet", env={"PATH": str(tmp_path / "bin")})
    assert_clean_failure(run, f"cannot run 'git': install git to fetch {project.url}")
    assert not list((cache_root() / "trees").glob("*/1"))


@pytest.mark.parametrize("caller", ["pre-commit hook", "GIT_DIR set"])
def test_a_fetch_run_by_a_git_hook_leaves_the_callers_repository_alone(tmp_path: Path, monkeypatch, caller) -> None:
    # git runs a hook with the variables of its own repository set (the pre-commit hook of
    # `git commit -a`: the index being committed, index.lock, at the top of the work tree, where
    # the hook runs); a build run from the hook fetches into the cache, never into that repository.
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    user = git.Repo.init(tmp_path / "user")
    (tmp_path / "user" / "notes.txt").write_text("mine\n")
    user.index.add(["notes.txt"])
    user.index.commit("notes", author=ACTOR, committer=ACTOR)
    index = Path(user.git_dir) / "index"
    monkeypatch.chdir(tmp_path / "user")
    if caller == "pre-commit hook":
        index = Path(shutil.copy(index, Path(user.git_dir) / "index.lock"))
        monkeypatch.setenv("GIT_INDEX_FILE", str(index))
        monkeypatch.setenv("GIT_PREFIX", "")
    else:
        monkeypatch.setenv("GIT_DIR", str(user.git_dir))
        monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "user"))
        monkeypatch.setenv("GIT_INDEX_FILE", str(index))
    before = index.read_bytes()
    # as in the hook's own process, git's list of repository variables is asked afresh (it is kept
    # for the process: one asked by an earlier test would not be this git's answer under test)
    _repository_variables.cache_clear()
    tree = fetch_tree(demo, "1", quiet=True)
    assert sorted(tree.files) == ["README.md", "src/a.ts"]
    assert tree.read("src/a.ts") == SOURCE.encode()
    assert index.read_bytes() == before
    for name in ("GIT_INDEX_FILE", "GIT_PREFIX", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    assert sorted(p.name for p in (tmp_path / "user").iterdir()) == [".git", "notes.txt"]
    assert not user.tags and user.git.status("--porcelain") == ""
    assert [t.name.rsplit("/", 1)[1] for t in git.Repo(history_path()).tags] == ["v1"]


# --- the cache ------------------------------------------------------------------------------------


def test_cache_is_reused_without_the_source(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 1
    trees = list((cache_root() / "trees").glob("*/*"))
    assert sorted(t.name for t in trees) == ["1", "2"]
    # The repository goes away (no network): both versions still verify from the cache.
    shutil.rmtree(project.upstream)
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2", "--format", "json")
    assert run.code == 1 and run.json()["citations"][0]["status"] == "moved"
    assert "fetching" not in run.stderr


def test_cache_history_holds_each_version_as_a_tag(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    fetch_tree(demo, "2", quiet=True)
    history = git.Repo(history_path())
    tags = sorted(t.name for t in history.tags)
    assert [t.rsplit("/", 1)[1] for t in tags] == ["v1", "v2"]
    diff = history.git.diff(tags[0], tags[1], "--", "src/a.ts")
    assert "+// two" in diff
    assert MANIFEST not in history.git.ls_tree("-r", "--name-only", tags[0])


def test_cache_entry_tampered_with_is_fetched_again(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    tree = fetch_tree(demo, "1", quiet=True)
    cached = tree.root / "src" / "a.ts"
    cached.write_text(SOURCE.replace("hello", "HELLO"))  # same size, other bytes
    run = run_main(capsys, "verify", "--decisions", project.decisions, "--format", "json")
    assert run.code == 0, run.stderr
    assert cached.read_text() == SOURCE
    cached.write_text("x")  # another size
    assert run_main(capsys, "verify", "--decisions", project.decisions).code == 0
    assert cached.read_text() == SOURCE


def test_killed_fetch_leaves_nothing_half_written(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    tree = fetch_tree(demo, "1", quiet=True)
    # What a fetch killed half-way leaves: a staging folder, never a published tree.
    leftover = tree.root.parent / ".tmp-2-killed"
    (leftover / "src").mkdir(parents=True)
    (leftover / "src" / "a.ts").write_text("half")
    assert run_main(capsys, "verify", "--decisions", project.decisions, "--target", "2").code == 1
    assert not leftover.exists()
    assert (tree.root.parent / "2" / "src" / "a.ts").read_text() == "// two\n" + SOURCE


def test_two_processes_fetching_at_once(tmp_path: Path) -> None:
    project = two_versions(tmp_path)
    command = [sys.executable, "-m", "generator", "verify", "--decisions", str(project.decisions),
               "--target", "2", "--format", "json", "--quiet"]
    runs = [subprocess.Popen(command, cwd=ROOT, env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
            for _ in range(3)]
    results = [(r.wait(timeout=120), r.stdout.read(), r.stderr.read()) for r in runs]
    for run in runs:
        run.stdout.close()
        run.stderr.close()
    for code, out, err in results:
        assert code == 1, err
        assert json.loads(out)["citations"][0]["status"] == "moved"
    assert sorted(p.name for p in (cache_root() / "trees").glob("*/*")) == ["1", "2"]


# --- npm, through a fake npm --------------------------------------------------------------------------


FAKE_NPM = '''#!{python}
"""A stand-in for npm: answers `view SPEC dist.integrity --json` and `pack SPEC --json
--pack-destination DIR` from registry.json next to it, and logs every call."""
import json, shutil, sys
from pathlib import Path

here = Path(__file__).parent
registry = json.loads((here / "registry.json").read_text())
args = sys.argv[1:]
with open(here / "calls.log", "a") as log:
    log.write(" ".join(args) + "\\n")
if "fail" in registry:
    sys.stderr.write(registry["fail"])
    sys.exit(1)
spec = args[1]
known = registry["packages"].get(spec)
if known is None:
    sys.stderr.write(f"npm error code E404\\nnpm error 404 No match found for version of {{spec}}\\n")
    sys.exit(1)
if args[0] == "view":
    print(json.dumps(known["integrity"]) if known["integrity"] else "")
elif args[0] == "pack":
    target = Path(args[args.index("--pack-destination") + 1]) / Path(known["tarball"]).name
    shutil.copy(known["tarball"], target)
    print(json.dumps([{{"filename": target.name}}]))
'''


def integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


class FakeNpm:
    """A fake npm in a folder; ``publish`` puts a tarball in its registry."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir()
        self.script = folder / "npm"
        self.script.write_text(FAKE_NPM.format(python=sys.executable))
        self.script.chmod(0o755)
        self.registry: dict = {"packages": {}}
        self.save()

    def save(self) -> None:
        (self.folder / "registry.json").write_text(json.dumps(self.registry))

    def publish(self, spec: str, files: dict[str, str | bytes], *, truncate: bool = False,
                wrong_hash: bool = False, no_hash: bool = False) -> None:
        path = tarball(self.folder / (spec.replace("@", "").replace("/", "-") + ".tgz"), files)
        if truncate:  # the registry itself serves a broken tarball, with the hash of those bytes
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        hashed = integrity(path)
        if wrong_hash:
            hashed = "sha512-" + base64.b64encode(hashlib.sha512(b"other bytes").digest()).decode()
        self.registry["packages"][spec] = {"tarball": str(path), "integrity": None if no_hash else hashed}
        self.save()

    def fail(self, stderr: str) -> None:
        self.registry["fail"] = stderr
        self.save()

    @property
    def calls(self) -> list[str]:
        log = self.folder / "calls.log"
        return log.read_text().splitlines() if log.exists() else []


AGENT_TS = "export class Agent {\n\trun(): void {\n\t\tthis.step();\n\t}\n\n\tstep(): void {}\n}\n"
AI_TS = "export const MODELS = {\n\tfast: \"small\",\n\tsmart: \"large\",\n};\n"


def npm_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, FakeNpm]:
    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    for version, agent in (("1.0.0", AGENT_TS), ("1.1.0", "// new\n" + AGENT_TS)):
        npm.publish(f"@demo/agent@{version}", {
            "package.json": json.dumps({"name": "@demo/agent", "version": version}),
            "dist/agent.js": "export class Agent {}\n",
            "dist/agent.js.map": source_map({"../src/agent.ts": agent,
                                             "../node_modules/dep/index.ts": "bundled",
                                             "../../outside.ts": "outside"}),
        })
        npm.publish(f"@demo/ai@{version}", {
            "dist/models/index.js.map": json.dumps({"version": 3, "sourceRoot": "../../src/",
                                                    "sources": ["models/index.ts", "gone.ts"],
                                                    "sourcesContent": [AI_TS, None]}),
        })
    decisions = tmp_path / "decisions"
    folder = decisions / "demo"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text("""title: Demo
repo: https://example.org/demo
version: "1.0.0"
source:
  npm:
    - package: "@demo/agent"
      path: packages/agent
    - package: "@demo/ai"
      path: packages/ai/
""")
    (folder / "D1.yaml").write_text(entry_yaml("D1", [("packages/agent/src/agent.ts", "2-4"),
                                                      ("packages/ai/src/models/index.ts", 3)]))
    return decisions, npm


def test_npm_route_rebuilds_sources_from_source_maps(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    [demo] = load_maps(decisions)
    tree = fetch_tree(demo, "1.0.0", quiet=True)
    assert sorted(tree.files) == ["packages/agent/src/agent.ts", "packages/ai/src/models/index.ts"]
    assert tree.read("packages/agent/src/agent.ts") == AGENT_TS.encode()
    run = run_main(capsys, "verify", "--decisions", decisions, "--target", "1.1.0", "--format", "json")
    assert run.code == 1
    assert [(r["status"], r["resolved"], r["symbol"]) for r in run.json()["citations"]] == [
        ("moved", [3, 5], "Agent.run"), ("ok", [3, 3], "MODELS.smart")]
    calls = [c.split()[:2] for c in npm.calls]  # the packages of one version are fetched at once
    assert sorted(calls[:4]) == [["pack", "@demo/agent@1.0.0"], ["pack", "@demo/ai@1.0.0"],
                                 ["view", "@demo/agent@1.0.0"], ["view", "@demo/ai@1.0.0"]]
    assert sorted(calls[4:]) == [["pack", "@demo/agent@1.1.0"], ["pack", "@demo/ai@1.1.0"],
                                 ["view", "@demo/agent@1.1.0"], ["view", "@demo/ai@1.1.0"]]
    for spec in ("@demo/agent@1.0.0", "@demo/ai@1.0.0"):  # each package: its hash before its tarball
        assert calls.index(["view", spec]) < calls.index(["pack", spec])
    # npm gives up on an unreachable registry after two short retries, not its default minute
    assert {tuple(c.split()[-3:]) for c in npm.calls} == {
        ("--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000")}


def test_npm_cache_is_reused_without_the_registry(tmp_path, monkeypatch, capsys) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    assert run_main(capsys, "verify", "--decisions", decisions).code == 0
    calls = len(npm.calls)
    npm.fail("npm error code ECONNREFUSED\n")
    run = run_main(capsys, "verify", "--decisions", decisions)
    assert run.code == 0, run.stderr
    assert len(npm.calls) == calls, "the cached tree needs no npm at all"


def test_npm_integrity_mismatch(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.publish("@demo/ai@1.0.0", {"dist/x.js.map": source_map({"../src/x.ts": "x"})}, wrong_hash=True)
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "@demo/ai@1.0.0: the tarball does not match the registry's integrity hash (sha512)")
    assert not list((cache_root() / "trees").glob("*/1.0.0"))


def test_npm_no_integrity_hash(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.registry["packages"]["@demo/agent@1.0.0"]["integrity"] = "md5-abc"
    npm.save()
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "@demo/agent@1.0.0: the registry gives no usable integrity hash ('md5-abc')")


def test_npm_truncated_tarball(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    big = {"dist/x.js.map": source_map({f"../src/f{i}.ts": f"export const v{i} = {i};\n" * 50
                                        for i in range(40)})}
    npm.publish("@demo/agent@1.0.0", big, truncate=True)
    line = assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                                "@demo/agent@1.0.0: the tarball is truncated or corrupt")
    assert line.endswith("run again to re-download")


def test_npm_source_map_without_sources_content(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.publish("@demo/ai@1.0.0", {"dist/x.js": "x", "dist/x.js.map": source_map({"../src/x.ts": "x"},
                                                                                  with_content=False)})
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "@demo/ai@1.0.0: its source maps hold no sourcesContent, so its sources cannot be rebuilt")


@pytest.mark.parametrize("target", ["9.9.9", "1.0.0-nope"])
def test_npm_unknown_version(tmp_path, monkeypatch, target) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    run = run_cli("verify", "--decisions", decisions, "--target", target, "--quiet")
    assert_clean_failure(run, f"@demo/agent@{target} is not in the npm registry (unknown package or version)")


def test_npm_version_without_metadata(tmp_path, monkeypatch) -> None:
    # Real npm prints nothing (and exits 0) for an unknown version of a known package.
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.registry["packages"]["@demo/ai@1.0.0"]["integrity"] = None
    npm.save()
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "@demo/ai@1.0.0 is not in the npm registry (unknown package or version)")


def test_npm_that_answers_garbage(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.script.write_text(f"#!{sys.executable}\nprint('npm notice: hello')\n")
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "npm gave an unreadable answer while fetching @demo/agent@1.0.0: npm notice: hello")


def test_npm_that_answers_a_long_line_is_quoted_to_80_characters(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.script.write_text(f"#!{sys.executable}\nprint('npm notice ' + 'x' * 100)\n")
    line = assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"))
    said = "npm notice " + "x" * 100
    assert line == "error: npm gave an unreadable answer while fetching @demo/agent@1.0.0: " + said[:80]


def test_npm_pack_that_answers_nothing(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    hashes = {spec: known["integrity"] for spec, known in npm.registry["packages"].items()}
    # the registry's hash as it is, then an `npm pack` that prints nothing at all
    npm.script.write_text(f"#!{sys.executable}\nimport json, sys\nif sys.argv[1] == 'view':\n"
                          f"    print(json.dumps({hashes!r}[sys.argv[2]]))\n")
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "npm gave an unreadable answer while fetching @demo/agent@1.0.0: nothing")



@pytest.mark.parametrize("answer", ["[]", "{}", '[{"name": "@demo/agent"}]', "null"])
def test_npm_pack_that_names_no_tarball(tmp_path, monkeypatch, answer) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    hashes = {spec: known["integrity"] for spec, known in npm.registry["packages"].items()}
    npm.script.write_text(f"#!{sys.executable}\nimport json, sys\nif sys.argv[1] == 'view':\n"
                          f"    print(json.dumps({hashes!r}[sys.argv[2]]))\nelse:\n    print({answer!r})\n")
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "npm pack gave no tarball name for @demo/agent@1.0.0")


def test_a_version_range_for_a_pin_is_refused(tmp_path, monkeypatch) -> None:
    """npm view answers a list when the version matches several: the pin must name one."""
    decisions, npm = npm_project(tmp_path, monkeypatch)
    npm.script.write_text(f"#!{sys.executable}\nprint('[\"sha512-a\", \"sha512-b\"]')\n")
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         "@demo/agent@1.0.0 names several versions; pin an exact version")


def test_npm_is_asked_for_the_hash_and_the_tarball_as_json(tmp_path, monkeypatch) -> None:
    """The command lines npm gets: its answers are read as JSON, the hash alone from `view`, each
    tarball written into a folder of the fetch's own."""
    decisions, npm = npm_project(tmp_path, monkeypatch)
    [demo] = load_maps(decisions)
    fetch_tree(demo, "1.0.0", quiet=True)
    retries = ["--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000"]
    calls = sorted(c.split() for c in npm.calls)
    assert [c for c in calls if c[0] == "view"] == [["view", f"@demo/{n}@1.0.0", "dist.integrity", "--json", *retries]
                                                    for n in ("agent", "ai")]
    packs = [c for c in calls if c[0] == "pack"]
    assert [c[:4] + c[5:] for c in packs] == [["pack", f"@demo/{n}@1.0.0", "--json", "--pack-destination", *retries]
                                              for n in ("agent", "ai")]
    # each tarball in a folder of the fetch's own, in the cache, removed once the tree is written
    assert all(Path(c[4]).is_relative_to(cache_root() / "trees") and not Path(c[4]).exists() for c in packs)
    assert len({c[4] for c in packs}) == 2


def test_npm_that_fails_while_packing_names_the_package(tmp_path, monkeypatch) -> None:
    decisions, npm = npm_project(tmp_path, monkeypatch)
    hashes = {spec: known["integrity"] for spec, known in npm.registry["packages"].items()}
    npm.script.write_text(f"#!{sys.executable}\nimport json, sys\nif sys.argv[1] == 'view':\n"
                          f"    print(json.dumps({hashes!r}[sys.argv[2]]))\nelse:\n"
                          "    sys.exit('npm error code EACCES\\nnpm error permission denied')\n")
    line = assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"))
    assert line == "error: npm failed while fetching @demo/agent@1.0.0: npm error permission denied"


def test_the_registry_is_asked_with_the_npm_given(tmp_path, monkeypatch) -> None:
    """An extension's probe asks the registry with the npm of the Node it runs on, not another npm."""
    from generator.source.fetch import registry_integrity
    decisions, npm = npm_project(tmp_path, monkeypatch)
    monkeypatch.setenv("DECISION_MAP_NPM", str(tmp_path / "no-npm-here"))
    assert registry_integrity("@demo/agent@1.0.0", [str(npm.script)]) == \
        npm.registry["packages"]["@demo/agent@1.0.0"]["integrity"]


def test_npm_runs_where_and_as_asked_and_never_reads_the_builds_input(tmp_path, monkeypatch) -> None:
    """npm runs in the folder and with the environment its caller gives (an install's), and gets no
    input: what is typed at the terminal the build runs in never reaches it (nor can a prompt wait)."""
    import os
    from generator.source.fetch import _npm
    show = [sys.executable, "-c", "import os, sys; print(os.getcwd(), os.environ.get('SETTING'), repr(sys.stdin.read()))"]
    typed, keys = os.pipe()
    kept = os.dup(0)
    os.write(keys, b"yes\n")
    os.close(keys)
    os.dup2(typed, 0)
    try:
        said = _npm([], "x@1", show, cwd=tmp_path, env={**os.environ, "SETTING": "given"})
    finally:
        os.dup2(kept, 0)
        os.close(kept)
        os.close(typed)
    assert said == f"{tmp_path} given ''\n"


def test_npm_that_does_not_answer_within_300_s_is_stopped_and_named(tmp_path, monkeypatch) -> None:
    """npm that hangs (a registry that never answers) is given 300 s, then killed with what it
    started, and the fetch fails saying so (the wait stood in for: no test waits five minutes)."""
    from conftest import live_with
    from generator.errors import FetchError
    from generator.source.fetch import _npm
    npm, marker = hanging_npm(tmp_path)
    waits = []
    communicate = subprocess.Popen.communicate

    def waited(self, input=None, timeout=None):
        waits.append(timeout)
        if len(waits) == 1:
            wait_for(lambda: len(live_with(marker)) == 7, "npm, its two shells and their sleeps")
            raise subprocess.TimeoutExpired(self.args, timeout)
        return communicate(self, input, timeout)

    monkeypatch.setattr(subprocess.Popen, "communicate", waited)
    try:
        with pytest.raises(FetchError) as stopped:
            _npm(["pack", f"a@{marker}"], "a@1", [str(npm)])
        assert str(stopped.value) == "npm did not answer within 300 s while fetching a@1; check the network and run again"
        assert waits[0] == 300
        wait_for(lambda: not live_with(marker), "a process npm started outlived its time limit")
    finally:
        import os
        import signal
        for pid in live_with(marker):
            os.kill(pid, signal.SIGKILL)

def test_npm_not_installed(tmp_path, monkeypatch) -> None:
    decisions, _ = npm_project(tmp_path, monkeypatch)
    monkeypatch.setenv("DECISION_MAP_NPM", str(tmp_path / "no-npm-here"))
    assert_clean_failure(run_cli("verify", "--decisions", decisions, "--quiet"),
                         f"cannot run '{tmp_path / 'no-npm-here'}': install Node.js and npm to fetch @demo/")


def test_npm_registry_unreachable(tmp_path, monkeypatch) -> None:
    """Real npm, pointed at a port where nothing listens (no retries, an empty npm cache)."""
    decisions, _ = npm_project(tmp_path, monkeypatch)
    monkeypatch.delenv("DECISION_MAP_NPM")
    env = {"npm_config_registry": "http://127.0.0.1:9", "npm_config_fetch_retries": "0",
           "npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_update_notifier": "false"}
    run = run_cli("verify", "--decisions", decisions, "--quiet", env=env)
    assert_clean_failure(run, "the npm registry is unreachable while fetching @demo/agent@1.0.0")


# --- a source map cannot write outside the package's folder --------------------------------------


ESCAPES = ["/abs/evil.ts", "../../../evil.ts", "../src/../../../evil.ts", "src/../../../../evil.ts",
           "../node_modules/dep/evil.ts"]


@pytest.mark.parametrize("name", ESCAPES)
def test_source_map_path_leading_outside_is_skipped(tmp_path: Path, name: str) -> None:
    """An absolute path, a `../` escape (plain or hidden behind a folder) and a bundled dependency
    are skipped; the package's own sources are still written, and nothing lands outside."""
    from generator.source.fetch import _rebuild_sources
    package = tarball(tmp_path / "pkg.tgz", {
        "dist/agent.js.map": source_map({"../src/agent.ts": AGENT_TS, name: "stolen = 1\n"})})
    box = tmp_path / "box"
    destination = box / "packages" / "agent"
    destination.mkdir(parents=True)
    assert _rebuild_sources(package, destination, "@demo/agent@1.0.0") == 1
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["box/packages/agent/src/agent.ts", "pkg.tgz"]
    assert (destination / "src/agent.ts").read_text() == AGENT_TS


def test_source_map_path_through_a_symlink_is_refused(tmp_path: Path) -> None:
    """A folder on the way that is a symlink out of the package is caught on disk, not by the
    path's text: the fetch fails and the file outside is not written."""
    from generator.errors import FetchError
    from generator.source.fetch import _rebuild_sources
    outside = tmp_path / "outside"
    outside.mkdir()
    destination = tmp_path / "packages" / "agent"
    destination.mkdir(parents=True)
    (destination / "src").symlink_to(outside, target_is_directory=True)
    package = tarball(tmp_path / "pkg.tgz", {"dist/agent.js.map": source_map({"../src/agent.ts": AGENT_TS})})
    with pytest.raises(FetchError, match="leads outside the package's folder"):
        _rebuild_sources(package, destination, "@demo/agent@1.0.0")
    assert list(outside.iterdir()) == []


# --- a shipped package: its files as they are (an extension's own map) -------------------------------


def shipped_package(tmp_path: Path, monkeypatch, members: list[tuple[str, bytes | str]]) -> tuple[FakeNpm, object]:
    """A fake registry holding @demo/ext@1.0.0, a tarball of ``members`` (name, bytes; or name, "->target"
    for a symlink), and the map `levers` and an extension's overlay read it through."""
    import io
    import tarfile
    from generator.map.model import extension_map
    npm = FakeNpm(tmp_path / "fake-npm")
    monkeypatch.setenv("DECISION_MAP_NPM", str(npm.script))
    path = tmp_path / "ext.tgz"
    with tarfile.open(path, "w:gz") as archive:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if isinstance(content, str):
                info.type, info.linkname = tarfile.SYMTYPE, content.removeprefix("->")
                archive.addfile(info)
            else:
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
    npm.registry["packages"]["@demo/ext@1.0.0"] = {"tarball": str(path), "integrity": integrity(path)}
    npm.save()
    return npm, extension_map("@demo/ext", "1.0.0")


def test_a_shipped_package_is_its_files_as_published_and_nothing_outside_it(tmp_path, monkeypatch, capsys) -> None:
    """Every regular file under the tarball's package/ folder, byte for byte; a link, a bundled
    dependency, a name that climbs out, and a file beside package/ are left out, and nothing lands
    outside the tree."""
    binary = bytes(range(256))
    npm, ext = shipped_package(tmp_path, monkeypatch, [
        ("README", b"beside package/"), ("package/link.ts", f"->{tmp_path / 'secret.ts'}"),
        ("package/node_modules/dep/index.js", b"bundled"), ("package/lib/../../../evil.ts", b"climbed out"),
        ("package/../evil2.ts", b"climbed out"), ("package/package.json", b'{"name": "@demo/ext"}'),
        ("package/index.ts", AGENT_TS.encode()), ("package/lib/./data.bin", binary),
        ("package/src/deep/er/x.ts", b"deep"), ("package/z.ts", b"last")])
    (tmp_path / "secret.ts").write_text("secret")
    tree = fetch_tree(ext, "1.0.0")
    assert capsys.readouterr().err == "fetching npm: @demo/ext@1.0.0\nfetching npm: @demo/ext@1.0.0: 5 source files\n"
    assert sorted(tree.files) == ["index.ts", "lib/data.bin", "package.json", "src/deep/er/x.ts", "z.ts"]
    assert tree.read("index.ts") == AGENT_TS.encode() and tree.read("lib/data.bin") == binary
    assert tree.integrity == {"@demo/ext": npm.registry["packages"]["@demo/ext@1.0.0"]["integrity"]}
    written = sorted(p.name for p in tmp_path.rglob("*") if p.is_file() and "fake-npm" not in p.parts)
    assert "evil.ts" not in written and "evil2.ts" not in written and "README" not in written
    assert not any(p.name == "link.ts" or p.is_symlink() for p in tree.root.rglob("*"))
    assert [c.split()[:2] for c in npm.calls] == [["view", "@demo/ext@1.0.0"], ["pack", "@demo/ext@1.0.0"]]


def test_a_package_whose_registry_hash_is_not_the_pinned_one_is_refused(tmp_path, monkeypatch) -> None:
    """An extension pinned with its integrity: the registry now gives another hash (the package was
    published again), so nothing is fetched; at another version the pin's hash does not hold."""
    from dataclasses import replace
    from generator.errors import FetchError
    from generator.map.model import extension_map
    npm, ext = shipped_package(tmp_path, monkeypatch, [("package/index.ts", b"x")])
    published = npm.registry["packages"]["@demo/ext@1.0.0"]["integrity"]
    pinned = extension_map("@demo/ext", "1.0.0", integrity="sha512-mapped")
    with pytest.raises(FetchError) as refused:
        fetch_tree(pinned, "1.0.0", quiet=True)
    assert str(refused.value) == (f"@demo/ext@1.0.0: the registry's integrity hash is {published}, but the pin "
                                  "records sha512-mapped; the published package is not the one that was mapped")
    assert not list((cache_root() / "trees").glob("*/1.0.0"))
    assert fetch_tree(replace(pinned, version="0.9.0"), "1.0.0", quiet=True).integrity == {"@demo/ext": published}
    assert fetch_tree(extension_map("@demo/ext", "1.0.0", integrity=published), "1.0.0", quiet=True).files
    # the tree is in the cache now: a pin recording another hash does not take it from there either
    with pytest.raises(FetchError, match="but the pin records sha512-mapped; the published package is not"):
        fetch_tree(pinned, "1.0.0", quiet=True)


def test_a_package_pinned_with_the_registrys_hash_is_fetched_at_its_version(tmp_path, monkeypatch) -> None:
    """The pin records the hash the registry gives: the tree of the pinned version is fetched,
    checked against it and used (not refused as failing its own check once written)."""
    from generator.map.model import extension_map
    npm, ext = shipped_package(tmp_path, monkeypatch, [("package/index.ts", b"x")])
    published = npm.registry["packages"]["@demo/ext@1.0.0"]["integrity"]
    tree = fetch_tree(extension_map("@demo/ext", "1.0.0", integrity=published), "1.0.0", quiet=True)
    assert tree.read("index.ts") == b"x" and tree.integrity == {"@demo/ext": published}


def test_a_git_folder_in_a_shipped_package_is_not_part_of_its_tree(tmp_path, monkeypatch) -> None:
    """npm pack never ships a `.git` folder; a tarball made by hand that holds one does not make a
    repository's internals citable: the tree is the package's own files."""
    npm, ext = shipped_package(tmp_path, monkeypatch, [
        ("package/.git/config", b"[core]\n"), ("package/src/.git/HEAD", b"ref: refs/heads/main\n"),
        ("package/index.ts", b"x")])
    tree = fetch_tree(ext, "1.0.0", quiet=True)
    assert sorted(tree.files) == ["index.ts"]
    assert tree.classify(".git/config") == "does not exist at 1.0.0"


def test_a_file_is_binary_when_a_nul_byte_is_among_its_first_8000_as_git_reads_it(tmp_path, monkeypatch) -> None:
    """A citation into a binary file is refused as one. Binary is what git calls binary (its diff
    looks for a NUL byte in the first 8000 bytes): a file whose first NUL comes later is text."""
    npm, ext = shipped_package(tmp_path, monkeypatch, [
        ("package/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ("package/late.ts", b"x" * 8000 + b"\0"),
        ("package/index.ts", b"x")])
    tree = fetch_tree(ext, "1.0.0", quiet=True)
    assert tree.classify("logo.png") == "is a binary file"
    assert tree.classify("late.ts") is None and tree.classify("index.ts") is None


@pytest.mark.parametrize("members, words", [
    ([("package/node_modules/dep/index.js", b"bundled"), ("index.js", b"beside package/")],
     "@demo/ext@1.0.0: the tarball holds no files"),
    ([("package/index.js", b"x" * 4000)] * 3, "@demo/ext@1.0.0: the tarball is truncated or corrupt"),
])
def test_a_shipped_package_with_no_files_or_a_broken_tarball_is_refused(tmp_path, monkeypatch, members, words) -> None:
    from generator.errors import FetchError
    npm, ext = shipped_package(tmp_path, monkeypatch, members)
    if "truncated" in words:  # the registry serves half the tarball, with the hash of those bytes
        entry = npm.registry["packages"]["@demo/ext@1.0.0"]
        tgz = Path(entry["tarball"])
        tgz.write_bytes(tgz.read_bytes()[: tgz.stat().st_size // 2])
        entry["integrity"] = integrity(tgz)
        npm.save()
    with pytest.raises(FetchError) as refused:
        fetch_tree(ext, "1.0.0", quiet=True)
    assert str(refused.value).startswith(words)
    assert not list((cache_root() / "trees").glob("*/1.0.0"))


# --- renames, as the history repository's git reports them ------------------------------------------


def test_every_rename_among_other_changes_is_found(tmp_path: Path) -> None:
    from generator.source.fetch import renamed_files
    files = {name: f"export const {name[0]} = '{name}';\n" * 8 for name in ("a.ts", "b.ts", "c.ts", "gone.ts")}
    project = make_project(tmp_path, {"1": files, "2": {"a.ts": files["a.ts"] + "// edited\n", "b2.ts": files["b.ts"],
                                                        "c2.ts": files["c.ts"], "new.ts": "export const n = 1;\n"}})
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    fetch_tree(demo, "2", quiet=True)
    assert renamed_files(demo, "1", "2") == {"b.ts": "b2.ts", "c.ts": "c2.ts"}
    assert renamed_files(demo, "1", "3") == {}  # a version never fetched: no renames known


def test_renames_are_found_beside_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    """A file named in Latin-1 (byte 0xE9, which Python spells as the surrogate U+DCE9) changed
    between two versions: git prints its name's bytes as they are, and the other renames are
    still found. (GitPython cannot write such a name: each version's tag is moved by git itself.)"""
    from generator.source.fetch import renamed_files
    latin = "caf\udce9.ts"
    text = "export const b = 'b';\n" * 8
    project = make_project(tmp_path, {"1": {"b.ts": text}, "2": {"b2.ts": text}})
    for version in ("1", "2"):
        subprocess.run(["git", "checkout", "-q", f"v{version}"], cwd=project.upstream, check=True)
        (project.upstream / latin).write_text(f"version {version}\n")
        subprocess.run(["git", "add", "-A"], cwd=project.upstream, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", version],
                       cwd=project.upstream, check=True)
        subprocess.run(["git", "tag", "-f", f"v{version}"], cwd=project.upstream, check=True, capture_output=True)
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    assert fetch_tree(demo, "2", quiet=True).read(latin) == b"version 2\n"
    assert renamed_files(demo, "1", "2") == {"b.ts": "b2.ts"}


def test_a_renamed_file_with_a_non_ascii_name_is_found_whatever_the_locale(tmp_path: Path, ascii_locale) -> None:
    """git prints file names as UTF-8 bytes (the names of the repository): they are read as UTF-8
    under a locale of another encoding too, so the renamed file is the tree's file of that name."""
    from generator.source.fetch import renamed_files
    text = "export const café = 'café';\n" * 8
    project = make_project(tmp_path, {"1": {"café.ts": text}, "2": {"cafés.ts": text}})
    [demo] = load_maps(project.decisions)
    with ascii_locale():
        fetch_tree(demo, "1", quiet=True)
        assert "cafés.ts" in fetch_tree(demo, "2", quiet=True).files
        assert renamed_files(demo, "1", "2") == {"café.ts": "cafés.ts"}


@pytest.mark.parametrize("setting", ["false", "copies"])
def test_renames_are_found_whatever_the_users_git_configuration_says(tmp_path: Path, monkeypatch, setting) -> None:
    """Rename detection is asked for, not left to `diff.renames`: off, or set to report copies too
    (each copy is a line of its own that must be read past)."""
    from generator.source.fetch import renamed_files
    config = tmp_path / "gitconfig"
    config.write_text(f"[diff]\n\trenames = {setting}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    body = "".join(f"export const v{n} = {n};\n" for n in range(12))
    project = make_project(tmp_path, {"1": {"a.ts": body, "b.ts": "export const b = 'b';\n" * 8},
                                      "2": {"a.ts": body + "// edited\n", "copy.ts": body,
                                            "b2.ts": "export const b = 'b';\n" * 8}})
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    fetch_tree(demo, "2", quiet=True)
    assert renamed_files(demo, "1", "2") == {"b.ts": "b2.ts"}


# --- rebuilding sources from the tarball's source maps ----------------------------------------------


def test_a_broken_source_map_or_one_without_sources_does_not_stop_the_others(tmp_path: Path) -> None:
    from generator.source.fetch import _rebuild_sources
    package = tarball(tmp_path / "pkg.tgz", {
        "dist/broken.js.map": "{not json",
        "dist/empty.js.map": source_map({"../src/empty.ts": "x"}, with_content=False),
        "dist/data.json": source_map({"../src/data.ts": "not a source map's source\n"}),
        "dist/agent.js.map": source_map({"../src/agent.ts": AGENT_TS}),
    })
    destination = tmp_path / "packages" / "agent"
    assert _rebuild_sources(package, destination, "@demo/agent@1.0.0") == 1
    assert sorted(p.relative_to(destination).as_posix() for p in destination.rglob("*") if p.is_file()) == [
        "src/agent.ts"]


def test_a_source_map_at_the_top_of_the_tarball_is_read(tmp_path: Path) -> None:
    import io
    import tarfile

    from generator.source.fetch import _rebuild_sources
    package = tmp_path / "pkg.tgz"
    data = source_map({"src/agent.ts": AGENT_TS}).encode()
    with tarfile.open(package, "w:gz") as archive:
        info = tarfile.TarInfo("agent.js.map")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    destination = tmp_path / "packages" / "agent"
    assert _rebuild_sources(package, destination, "@demo/agent@1.0.0") == 1
    assert (destination / "src" / "agent.ts").read_text() == AGENT_TS


def test_sources_are_rebuilt_as_utf8_whatever_the_locale(tmp_path: Path, ascii_locale) -> None:
    """A source's text (non-ASCII here) is written as the UTF-8 the source map's JSON holds, not in
    the locale's encoding: the cited lines are the package's."""
    from generator.source.fetch import _rebuild_sources
    text = "export const arrow = '→'; // café\n"
    package = tarball(tmp_path / "pkg.tgz", {"dist/agent.js.map": source_map({"../src/agent.ts": text})})
    destination = tmp_path / "packages" / "agent"
    with ascii_locale():
        assert _rebuild_sources(package, destination, "@demo/agent@1.0.0") == 1
    assert (destination / "src" / "agent.ts").read_bytes() == text.encode("utf-8")


def test_source_maps_with_gaps_still_give_every_source_they_hold(tmp_path: Path) -> None:
    """A map without `sources`, a source without content, one that resolves to the folder above or
    to a bundled dependency: each is passed over, and the sources after it are still written, two
    of them in one folder."""
    from generator.source.fetch import _rebuild_sources
    package = tarball(tmp_path / "pkg.tgz", {
        "dist/nameless.js.map": json.dumps({"version": 3, "sourcesContent": ["lost"]}),
        "dist/agent.js.map": source_map({"../node_modules/dep/index.ts": "bundled", "../..": "the folder above",
                                         "../src/gone.ts": None, "../src/agent.ts": AGENT_TS,
                                         "../src/tools.ts": "export const tools = [];\n"}),
    })
    destination = tmp_path / "box" / "packages" / "agent"
    assert _rebuild_sources(package, destination, "@demo/agent@1.0.0") == 2
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "box/packages/agent/src/agent.ts", "box/packages/agent/src/tools.ts", "pkg.tgz"]


@pytest.mark.parametrize("algorithm", ["sha512", "sha384", "sha256", "sha1"])
def test_every_integrity_algorithm_the_registry_gives_is_checked(tmp_path: Path, algorithm: str) -> None:
    from generator.errors import FetchError
    from generator.source.fetch import _check_integrity
    package = tmp_path / "pkg.tgz"
    package.write_bytes(b"the tarball's bytes")

    def hashed(data: bytes) -> str:
        return f"{algorithm}-" + base64.b64encode(hashlib.new(algorithm, data).digest()).decode()

    _check_integrity(package, hashed(b"the tarball's bytes"), "@demo/agent@1.0.0")  # accepted
    with pytest.raises(FetchError, match=rf"the tarball does not match the registry's integrity hash \({algorithm}\)"):
        _check_integrity(package, hashed(b"other bytes"), "@demo/agent@1.0.0")


# --- the cache's own folders ----------------------------------------------------------------------


def test_a_cache_folder_that_does_not_exist_yet_is_made_with_its_lock(tmp_path: Path, monkeypatch) -> None:
    project = two_versions(tmp_path)
    cache = tmp_path / "home" / ".cache" / "pi-decision-map"  # a first run: none of it exists
    monkeypatch.setenv("DECISION_MAP_CACHE", str(cache))
    monkeypatch.chdir(tmp_path)
    [demo] = load_maps(project.decisions)
    assert fetch_tree(demo, "1", quiet=True).has_file("src/a.ts")
    assert any(p.name.endswith("-1.lock") for p in (cache / "locks").iterdir())  # the tree's own lock
    assert not (tmp_path / "None").exists()


def test_a_cache_that_cannot_be_made_is_named(tmp_path: Path, monkeypatch) -> None:
    from generator.errors import FetchError
    project = two_versions(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "a-file" / "cache"))
    [demo] = load_maps(project.decisions)
    with pytest.raises(FetchError) as refused:
        fetch_tree(demo, "1", quiet=True)
    assert str(refused.value) == f"cannot create the cache at {tmp_path / 'a-file' / 'cache'}: Not a directory"


def test_a_cached_tree_of_another_layout_or_version_is_not_used(tmp_path: Path) -> None:
    from generator.source.fetch import FORMAT, _open
    entry = tmp_path / "1"
    entry.mkdir()
    for manifest in ({"format": FORMAT - 1, "version": "1", "files": {}},  # before the layout changed
                     {"format": FORMAT, "version": "2", "files": {}}):
        (entry / MANIFEST).write_text(json.dumps(manifest))
        assert _open(entry, "1") is None
    (entry / MANIFEST).write_text(json.dumps({"format": FORMAT, "version": "1", "files": {}}))
    assert _open(entry, "1") is not None


def test_a_cache_on_a_first_run_is_the_users_cache_folder(tmp_path: Path, monkeypatch) -> None:
    """Without DECISION_MAP_CACHE the trees and their history go to the user's cache folder (XDG)."""
    monkeypatch.delenv("DECISION_MAP_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "pi-decision-map"
    assert history_path() == tmp_path / "xdg" / "pi-decision-map" / "history.git"
    monkeypatch.setenv("DECISION_MAP_CACHE", "")  # set but empty: as if not set
    assert cache_root() == tmp_path / "xdg" / "pi-decision-map"


def test_a_cached_tree_is_read_without_taking_its_lock(tmp_path: Path, capsys) -> None:
    """A warm run only reads the cache: it neither waits on the lock of a process fetching nor needs
    a cache it may write. A lock that cannot be opened (as on a read-only cache) is played by a
    folder in its place: the tests run as root, which permissions do not stop."""
    from generator.source.fetch import _source_key
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    lock = cache_root() / "locks" / f"{_source_key(demo)}-1.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    assert fetch_tree(demo, "1").read("src/a.ts") == SOURCE.encode()
    assert capsys.readouterr().err == ""


def test_a_fetch_that_waited_on_the_lock_uses_the_tree_published_meanwhile(tmp_path: Path, monkeypatch, capsys) -> None:
    """Two fetches of one tree at once: the one that waited on the lock finds, under it, the tree the
    other published meanwhile and uses it, fetching nothing (the repository is gone here, so a
    second fetch would fail). The race is played without timing: the cache holds the tree, and the
    first look, before the lock, misses it as it would have before the other process finished."""
    import generator.source.fetch as fetch
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    fetch_tree(demo, "1", quiet=True)
    shutil.rmtree(project.upstream)
    looks, cached = [], fetch._open

    def first_look_misses(*args):
        looks.append(args)
        return None if len(looks) == 1 else cached(*args)

    monkeypatch.setattr(fetch, "_open", first_look_misses)
    assert fetch_tree(demo, "1").read("src/a.ts") == SOURCE.encode()
    assert capsys.readouterr().err == ""


# --- the cache's key: one folder for each pin -----------------------------------------------------


def test_each_pin_has_its_own_cache_folder_and_a_pin_keeps_the_one_it_had(tmp_path: Path) -> None:
    """The trees of two pins never mix (another repository, ref pattern, package, place in the tree,
    or a package's shipped files rather than its rebuilt sources), and a pin keeps the folder
    earlier versions of the generator filled: an upgrade does not fetch every tree again."""
    from dataclasses import replace
    from generator.map.model import GitPin, NpmPackage, Source, extension_map
    from generator.source.fetch import _source_key

    def with_source(name: str, source: Source):
        return replace(extension_map("@demo/ext", "1.0.0"), name=name, source=source)

    git_pin = Source(git=GitPin("https://example.org/demo.git", "v{version}", None))
    npm_pin = Source(npm=(NpmPackage("@demo/agent", "packages/agent"), NpmPackage("@demo/ai", "packages/ai")))
    assert _source_key(with_source("demo", git_pin)) == "demo-git-0c58677278d7bdc5"
    assert _source_key(with_source("demo", npm_pin)) == "demo-npm-c7d23ba3b7c4242c"
    assert _source_key(extension_map("@demo/ext", "1.0.0")) == "npm-demo+ext-npm-90c34778b3eaf999"
    # the packages' order in the pin, its commit and the integrities it records: the same tree
    same = [Source(npm=npm_pin.npm[::-1]),
            Source(npm=tuple(replace(p, integrity="sha512-x") for p in npm_pin.npm)),
            Source(git=replace(git_pin.git, commit="0123abcd"))]
    assert [_source_key(with_source("demo", s)) for s in same] == [
        "demo-npm-c7d23ba3b7c4242c", "demo-npm-c7d23ba3b7c4242c", "demo-git-0c58677278d7bdc5"]
    others = [Source(git=replace(git_pin.git, url="https://example.org/fork.git")),
              Source(git=replace(git_pin.git, ref="release-{version}")),
              Source(npm=(replace(npm_pin.npm[0], package="@demo/agent2"), npm_pin.npm[1])),
              Source(npm=(replace(npm_pin.npm[0], path="agent"), npm_pin.npm[1])),
              Source(npm=(replace(npm_pin.npm[0], shipped=True), npm_pin.npm[1]))]
    keys = [_source_key(with_source("demo", s)) for s in others] + [_source_key(with_source("other", git_pin))]
    assert len(set(keys)) == len(keys) and not {"demo-git-0c58677278d7bdc5", "demo-npm-c7d23ba3b7c4242c"} & set(keys)
    assert keys[-1].startswith("other-git-")


# --- the history repository -----------------------------------------------------------------------


def test_the_history_tags_each_version_once_under_the_pins_key_by_decision_map(tmp_path: Path, monkeypatch,
                                                                            capsys) -> None:
    """Each version fetched is one commit of its tree (the manifest left out), tagged `<key>/v<version>`,
    written by decision-map whatever git identity the user has (or lacks); a tree fetched again (a
    corrupt copy) keeps its tag and says nothing about the history."""
    from generator.source.fetch import _source_key, refetch
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))  # no user.name, no user.email
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    tree = fetch_tree(demo, "1", quiet=True)
    history = git.Repo(history_path())
    key = _source_key(demo)
    [tag] = history.tags
    assert tag.name == f"{key}/v1"
    commit = tag.commit
    assert commit.message.strip() == f"{key} 1"
    assert (commit.author.name, commit.author.email, commit.committer.name, commit.committer.email) == (
        "decision-map", "decision-map@localhost", "decision-map", "decision-map@localhost")
    assert sorted(b.path for b in commit.tree.traverse() if b.type == "blob") == ["README.md", "src/a.ts"]
    assert (commit.tree / "src/a.ts").data_stream.read() == SOURCE.encode()
    (tree.root / "src" / "a.ts").write_text("damaged")
    assert refetch(demo, "1", quiet=True).read("src/a.ts") == SOURCE.encode()
    assert [t.name for t in git.Repo(history_path()).tags] == [f"{key}/v1"]
    assert git.Repo(history_path()).tags[0].commit == commit
    assert capsys.readouterr().err == ""



def test_the_history_holds_every_file_of_the_tree_even_those_its_gitignore_names(tmp_path, monkeypatch) -> None:
    """A package that ships a .gitignore naming its own files: the history (one bare repository,
    history.git) still holds each file of the tree, so renames among them are found."""
    npm, ext = shipped_package(tmp_path, monkeypatch, [
        ("package/.gitignore", b"*.js\nlib/\n"), ("package/index.js", b"code"), ("package/lib/x.ts", b"x"),
        ("package/a.ts", b"a")])
    tree = fetch_tree(ext, "1.0.0", quiet=True)
    history = git.Repo(history_path())
    assert history.bare
    [tag] = history.tags
    assert sorted(b.path for b in tag.commit.tree.traverse() if b.type == "blob") == sorted(tree.files) == [
        ".gitignore", "a.ts", "index.js", "lib/x.ts"]


def test_recording_the_history_from_a_git_hook_leaves_the_hooks_index_alone(tmp_path, monkeypatch) -> None:
    """git runs a hook (pre-commit) with GIT_INDEX_FILE set to the repository's index: the history
    is written through an index of its own, never that one."""
    npm, ext = shipped_package(tmp_path, monkeypatch, [("package/a.ts", b"a")])
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "hook-index"))
    fetch_tree(ext, "1.0.0", quiet=True)
    assert not (tmp_path / "hook-index").exists()
    [tag] = git.Repo(history_path()).tags
    assert [b.path for b in tag.commit.tree.traverse()] == ["a.ts"]

def test_a_history_that_cannot_be_written_does_not_fail_the_fetch_and_says_so(tmp_path: Path, capsys) -> None:
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    history_path().parent.mkdir(parents=True, exist_ok=True)
    history_path().write_text("not a repository")
    assert fetch_tree(demo, "1", quiet=True).read("src/a.ts") == SOURCE.encode()
    err = capsys.readouterr().err
    assert err.startswith(f"note: could not record 1 in {history_path()}: ") and err.count("\n") == 1, err
    assert "fatal: " in err, "git's own words, not the command it ran"


# --- a refetch: a corrupt tree fetched again --------------------------------------------------------


def test_a_refetch_fetches_the_tree_again_and_leaves_the_other_versions(tmp_path: Path, capsys) -> None:
    from generator.source.fetch import refetch
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    first, second = fetch_tree(demo, "1", quiet=True), fetch_tree(demo, "2", quiet=True)
    (first.root / "src" / "a.ts").write_text("damaged, same manifest")
    (second.root / "src" / "a.ts").write_text("damaged too")
    again = refetch(demo, "1")
    assert again.root == first.root and again.read("src/a.ts") == SOURCE.encode()
    assert capsys.readouterr().err == f"fetching git: {demo.source.git.url} at v1\n"
    assert (second.root / "src" / "a.ts").read_text() == "damaged too", "only the version asked for"
    assert refetch(demo, "1", quiet=True).read("src/a.ts") == SOURCE.encode()
    assert capsys.readouterr().err == ""


# --- npm stopped with the build -------------------------------------------------------------------

# npm that never ends: it starts two shells that start two sleeps each, and waits for a signal (a
# killed child does not end it); each has the marker in its command line (npm in its arguments)
HANGING_NPM = """#!{python}
import signal, subprocess
for _ in range(2):
    subprocess.Popen(["sh", "-c", "sleep MARKER & sleep MARKER; :"])
while True:
    signal.pause()
"""


def hanging_npm(tmp_path: Path) -> tuple[Path, str]:
    import random
    marker = f"{600 + random.randint(1, 10**6) / 10**7:.7f}"
    npm = tmp_path / "npm"
    npm.write_text(HANGING_NPM.format(python=sys.executable).replace("MARKER", marker))
    npm.chmod(0o755)
    return npm, marker


def wait_for(condition, what: str) -> None:
    import time
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < 60, what
        time.sleep(0.05)


def test_a_stopped_build_leaves_no_npm_nor_what_it_started_and_starts_no_other(tmp_path: Path) -> None:
    """stop_npm (SIGTERM or Ctrl-C while installs run in threads) kills every npm running, with its
    children and theirs; no npm starts until allow_npm, then npm runs again."""
    import os
    import signal
    import threading
    from conftest import live_with
    from generator.errors import FetchError
    from generator.source.fetch import _npm, allow_npm, stop_npm
    npm, marker = hanging_npm(tmp_path)
    failed: list[str] = []

    def fetch(name: str) -> None:
        try:
            _npm(["pack", f"{name}@{marker}"], name, [str(npm)])
        except FetchError:
            failed.append(name)

    fetches = [threading.Thread(target=fetch, args=(name,)) for name in ("a", "b")]
    try:
        for thread in fetches:
            thread.start()
        wait_for(lambda: len(live_with(marker)) == 14, "two npm, each with two shells and their sleeps")
        stop_npm()
        for thread in fetches:
            thread.join(60)
        assert not any(t.is_alive() for t in fetches) and sorted(failed) == ["a", "b"]
        wait_for(lambda: not live_with(marker), "a process npm started outlived the stop")
        with pytest.raises(FetchError, match=r"^not fetching c@1: the build is being stopped$"):
            _npm([], "c@1", [sys.executable, "-c", "print('ran')"])
        allow_npm()
        assert _npm([], "c@1", [sys.executable, "-c", "print('ran')"]) == "ran\n"
    finally:
        allow_npm()
        for pid in live_with(marker):  # (whatever a failed run left)
            os.kill(pid, signal.SIGKILL)


def test_npm_is_killed_when_a_process_ends_while_its_tree_is_listed(monkeypatch) -> None:
    """npm's processes are found through /proc while they run: one that ends between the listing of
    its threads and the read of their children (the read then fails, played here without timing)
    has no children to kill, and npm is killed all the same, without an error."""
    import errno
    import signal
    from generator.source.fetch import _kill_group
    npm = subprocess.Popen(["sleep", "600"])
    real_read_text = Path.read_text

    def ended_meanwhile(self: Path, *args, **kwargs):
        if self.name == "children":
            raise ProcessLookupError(errno.ESRCH, "No such process", str(self))
        return real_read_text(self, *args, **kwargs)

    try:
        with monkeypatch.context() as patched:
            patched.setattr(Path, "read_text", ended_meanwhile)
            _kill_group(npm)
        assert npm.wait(60) == -signal.SIGKILL
    finally:
        npm.kill()
        npm.wait()


def test_ctrl_c_while_npm_runs_kills_it_with_what_it_started(tmp_path: Path) -> None:
    import os
    import signal
    import threading
    from conftest import live_with
    from generator.source.fetch import _npm
    npm, marker = hanging_npm(tmp_path)

    def interrupt() -> None:
        wait_for(lambda: len(live_with(marker)) == 7, "npm, its two shells and their sleeps")
        os.kill(os.getpid(), signal.SIGINT)

    # Ctrl-C as a person's terminal delivers it: pytest-xdist's workers ignore SIGINT, so the
    # handler Python starts with is put back for this test
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _npm(["pack", f"a@{marker}"], "a", [str(npm)])
        wait_for(lambda: not live_with(marker), "a process npm started outlived Ctrl-C")
    finally:
        interrupter.join(60)
        signal.signal(signal.SIGINT, previous)
        for pid in live_with(marker):
            os.kill(pid, signal.SIGKILL)


# --- what a person sees while a tree is fetched ---------------------------------------------------


class Terminal:
    """stderr as a terminal: what is written to it, kept."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("not a real terminal")

    @property
    def text(self) -> str:
        return "".join(self.written)


def test_on_a_terminal_the_fetch_is_one_live_line_that_goes_away(tmp_path: Path, monkeypatch, capsys) -> None:
    """On a terminal the fetch shows as one spinner line, updated and then cleared, with the cursor
    given back; quiet, nothing; elsewhere (a log), plain lines (the other tests)."""
    project = two_versions(tmp_path)
    [demo] = load_maps(project.decisions)
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "300")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    fetch_tree(demo, "1")
    text = terminal.text
    assert f"fetching git: {demo.source.git.url} at v1" in text and text.count("\n") == 1, "one line, redrawn"
    assert text.startswith("\x1b[?25l"), "the cursor hidden while the line is live"
    assert text.endswith("\n\x1b[?25h\r\x1b[1A\x1b[2K"), "then the cursor back, and the line cleared"
    assert capsys.readouterr().out == ""
    terminal.written.clear()
    fetch_tree(demo, "2", quiet=True)
    assert terminal.text == "" and capsys.readouterr().out == ""
