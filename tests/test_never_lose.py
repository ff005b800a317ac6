"""Never losing data.

1. `fix` and `bump` killed (SIGKILL, in a forked child) before each step of writing, and half-way
   through writing a file: every YAML file is then either exactly as it was or exactly as a full
   run writes it, never half. A failing write (a full disk) at each step instead: exit 2, one
   clear line, nothing changed, no temporary file left.
2. A property test (hypothesis): fixture TypeScript edited at random (lines inserted, deleted,
   re-indented, changed; declarations moved and renamed). Resolving a citation never crashes,
   never calls changed code `ok`, and a `moved` range (what `fix` writes) holds exactly the cited
   code, whitespace aside.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import Project, entry_yaml, make_project, run_main
from generator.citations.resolve import SourceFile, anchor_for, place

SESSION = """export class Session {
\tstart(): void {
\t\tthis.open = true;
\t}

\tstop(): void {
\t\tthis.open = false;
\t}
}
"""
TOOLS = "export function limit(turns: number): boolean {\n\treturn turns > 10;\n}\n"
HEADER = "// Version 2 adds a header,\n// so every line moves down.\n"
D1 = """# D1: who starts a session   (comments and layout must survive)
id: D1
question: Who starts a session?
decided_by: code
answer: >-
  Plain code,
  at start.
cites:
  - file: src/session.ts
    lines: 2-4        # Session.start
  - {file: src/tools.ts, lines: "1-3"}
"""


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """Versions 1 and 2 (every line moved down by two); entries D1 and D2 over two files."""
    root = tmp_path_factory.mktemp("never-lose")
    return make_project(root, {"1": {"src/session.ts": SESSION, "src/tools.ts": TOOLS},
                               "2": {"src/session.ts": HEADER + SESSION, "src/tools.ts": HEADER + TOOLS}},
                        {"D1": D1, "D2": entry_yaml("D2", [("src/session.ts", "6-8")])})


@pytest.fixture(scope="module")
def warm_cache(upstream: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module with both versions fetched, so forked children never fetch."""
    folder = tmp_path_factory.mktemp("never-lose-cache")
    os.environ["DECISION_MAP_CACHE"] = str(folder)
    try:
        from generator.source.fetch import fetch_tree
        from generator.map.load import load_maps

        [demo] = load_maps(upstream.decisions)
        for version in ("1", "2"):
            fetch_tree(demo, version, quiet=True)
    finally:
        del os.environ["DECISION_MAP_CACHE"]
    return folder


COMMANDS = {"fix": ["fix", "--target", "2", "--quiet"], "bump": ["bump", "2", "--quiet"]}


def fresh(upstream: Project, root: Path) -> Path:
    decisions = root / "decisions"
    shutil.copytree(upstream.decisions, decisions)
    return decisions


def files(decisions: Path) -> dict[str, bytes]:
    return {p.relative_to(decisions).as_posix(): p.read_bytes() for p in sorted(decisions.rglob("*")) if p.is_file()}


class Steps:
    """Wraps each step of writing a file (map/rewrite.py's temporary, write, fsync, chmod, rename) and
    calls ``at`` before step number ``k`` (counted from 0); with ``at`` None it only records them."""

    def __init__(self, decisions: Path, k: int | None = None, at=None, halfway: bool = False):
        self.decisions = decisions.resolve()
        self.k, self.at, self.halfway = k, at, halfway  # halfway: step k, a write, puts half down first
        self.seen: list[str] = []

    def due(self) -> bool:
        return self.at is not None and len(self.seen) == self.k

    def step(self, name: str) -> None:
        if self.due():
            self.at(name)
        self.seen.append(name)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_mkstemp, real_fdopen, real_fsync = tempfile.mkstemp, os.fdopen, os.fsync
        real_chmod, real_replace = os.chmod, os.replace
        steps = self

        def ours(path) -> bool:
            return Path(path).resolve().is_relative_to(steps.decisions)

        def mkstemp(*args, **kwargs):
            if ours(kwargs.get("dir", ".")):
                steps.step("create a temporary file")
            return real_mkstemp(*args, **kwargs)

        class Handle:
            def __init__(self, handle):
                self.handle = handle

            def write(self, text: str) -> int:
                if steps.halfway and steps.due():
                    self.handle.write(text[: len(text) // 2])
                    self.handle.flush()
                    real_fsync(self.handle.fileno())
                steps.step("write the new text")
                return self.handle.write(text)

            def __enter__(self):
                self.handle.__enter__()
                return self

            def __exit__(self, *exc):
                return self.handle.__exit__(*exc)

            def __getattr__(self, name):
                return getattr(self.handle, name)

        def fdopen(fd, *args, **kwargs):
            return Handle(real_fdopen(fd, *args, **kwargs))

        def fsync(fd):
            steps.step("fsync")
            return real_fsync(fd)

        def chmod(path, mode, **kwargs):
            if ours(path):
                steps.step("chmod")
            return real_chmod(path, mode, **kwargs)

        def replace(source, target, **kwargs):
            if ours(target):
                steps.step(f"rename over {Path(target).name}")
            return real_replace(source, target, **kwargs)

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
        monkeypatch.setattr(os, "fdopen", fdopen)
        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "chmod", chmod)
        monkeypatch.setattr(os, "replace", replace)


def reference(command: str, upstream: Project, root: Path, capsys, monkeypatch) -> tuple[dict, dict, list[str]]:
    """The files before and after a full run, and the steps it took."""
    decisions = fresh(upstream, root)
    before = files(decisions)
    steps = Steps(decisions)
    with monkeypatch.context() as patch:
        steps.install(patch)
        run = run_main(capsys, *COMMANDS[command], "--decisions", decisions)
    assert run.code in (0, 1), run.stderr
    after = files(decisions)
    assert after != before
    return before, after, steps.seen


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork() to kill a run for real")
@pytest.mark.parametrize("command", list(COMMANDS))
def test_killed_at_every_step(command: str, upstream: Project, warm_cache: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECISION_MAP_CACHE", str(warm_cache))
    before, after, seen = reference(command, upstream, tmp_path / "reference", capsys, monkeypatch)
    assert any(s.startswith("rename") for s in seen) and len(seen) >= 8, seen
    half = [False, True]  # kill right before the step, and (for writes) half-way through it
    for k, name in enumerate(seen):
        for halfway in half if name == "write the new text" else half[:1]:
            decisions = fresh(upstream, tmp_path / f"kill-{k}-{int(halfway)}")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the child: run the command, die at step k
                try:
                    def die(step: str) -> None:
                        os.kill(os.getpid(), signal.SIGKILL)

                    Steps(decisions, k, die, halfway).install(monkeypatch)
                    run_main(capsys, *COMMANDS[command], "--decisions", decisions)
                finally:
                    os._exit(0)  # never reached when killed; never runs pytest's teardown here
            _, status = os.waitpid(pid, 0)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"step {k} ({name})"
            now = files(decisions)
            where = f"killed at step {k} ({name}{', half-way' if halfway else ''}) of `{command}`"
            for path, data in now.items():
                if path.endswith(".yaml"):
                    assert data in (before.get(path), after.get(path)), f"{path} is half-written, {where}"
            assert {p for p in now if p.endswith(".yaml")} <= set(before) | set(after), where
            if not any(s.startswith("rename") for s in seen[:k]):
                # Killed before any file was replaced: the run can simply be made again.
                assert {p: d for p, d in now.items() if p.endswith(".yaml")} == before, where
                run = run_main(capsys, *COMMANDS[command], "--decisions", decisions)
                assert run.code in (0, 1), (where, run.stderr)
                assert {p: d for p, d in files(decisions).items() if p.endswith(".yaml")} == after, where
            # Whatever the kill left behind, the next run clears: no temporary (nor journal) stays.
            run_main(capsys, "verify", "--decisions", decisions, "--quiet")
            left = set(files(decisions)) - set(before) - set(after)
            assert not left, f"files left behind: {sorted(left)}, {where}"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_failing_write_at_every_step_changes_nothing(command: str, upstream: Project, warm_cache: Path,
                                                       tmp_path: Path, capsys: pytest.CaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk (ENOSPC) at any step before the renames: exit 2, one line naming the file,
    every YAML file as it was, no temporary file left behind."""
    monkeypatch.setenv("DECISION_MAP_CACHE", str(warm_cache))
    before, _, seen = reference(command, upstream, tmp_path / "reference", capsys, monkeypatch)
    writes = [k for k, name in enumerate(seen) if not name.startswith("rename")]
    for k in writes:
        decisions = fresh(upstream, tmp_path / f"full-{k}")

        def full(step: str) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        with monkeypatch.context() as patch:
            Steps(decisions, k, full).install(patch)
            run = run_main(capsys, *COMMANDS[command], "--decisions", decisions)
        where = f"disk full at step {k} ({seen[k]}) of `{command}`"
        assert run.code == 2, (where, run.stderr)
        assert "Traceback" not in run.stderr
        errors = [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]
        assert len(errors) == 1, (where, run.stderr)
        assert errors[0].startswith("error: cannot write ") and errors[0].endswith(
            ": No space left on device; nothing was changed"), errors[0]
        now = files(decisions)
        assert {p: d for p, d in now.items() if p.endswith(".yaml")} == before, where
        assert not [p for p in now if p.endswith(".tmp")], f"temporary files left, {where}"


def test_a_failing_rename_says_what_was_written(upstream: Project, warm_cache: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename refused half-way through `fix` (the second of two files): exit 2, one line naming
    the file written and the one left; each file whole; no temporary file left."""
    monkeypatch.setenv("DECISION_MAP_CACHE", str(warm_cache))
    before, after, seen = reference("fix", upstream, tmp_path / "reference", capsys, monkeypatch)
    second = [k for k, name in enumerate(seen) if name.startswith("rename") and "journal" not in name][1]
    decisions = fresh(upstream, tmp_path / "refused")

    def refuse(step: str) -> None:
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    with monkeypatch.context() as patch:
        Steps(decisions, second, refuse).install(patch)
        run = run_main(capsys, *COMMANDS["fix"], "--decisions", decisions)
    assert run.code == 2 and "Traceback" not in run.stderr, run.stderr
    [line] = [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]
    assert f"cannot replace {decisions / 'demo' / 'D2.yaml'}" in line
    assert f"already written: {decisions / 'demo' / 'D1.yaml'}" in line
    now = files(decisions)
    assert now["demo/D1.yaml"] == after["demo/D1.yaml"] and now["demo/D2.yaml"] == before["demo/D2.yaml"]
    assert not [p for p in now if p.endswith(".tmp")]


# --- the property test -------------------------------------------------------------------------------

SOURCE = """import { Queue } from "./queue";

export class Session {
\tprivate open = false;

\tstart(): void {
\t\tthis.open = true;
\t\tthis.queue.clear();
\t}

\tstop(reason: string): void {
\t\tif (reason) {
\t\t\tthis.log(reason);
\t\t}
\t\tthis.open = false;
\t}
}

export function limit(turns: number): boolean {
\tconst max = 10;
\treturn turns > max;
}

export const MODELS = {
\tfast: "small",
\tsmart: "large",
};
"""
LINES = SOURCE.split("\n")[:-1]
NAMES = ["Session", "start", "stop", "limit", "MODELS", "fast", "open", "max"]
INSERTS = ["", "// a comment", "\tconsole.log(\"x\");", "\t\tthis.open = true;", "\t}", "}",
           "export function extra(): void {}", "\treturn turns > max;"]


def _rename(lines: list[str], name: str, everywhere: bool) -> list[str]:
    import re

    pattern = re.compile(rf"\b{name}\b")
    if everywhere:
        return [pattern.sub(name + "2", ln) for ln in lines]
    for i, ln in enumerate(lines):  # only the first occurrence: a declaration renamed, its uses not
        if pattern.search(ln):
            return lines[:i] + [pattern.sub(name + "2", ln, count=1)] + lines[i + 1:]
    return lines


@st.composite
def edited(draw) -> list[str]:
    """The fixture source after 1 to 4 random edits."""
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "move", "rename", "reindent", "change", "duplicate"]))
        n = len(lines)
        if kind == "insert":
            lines.insert(draw(st.integers(0, n)), draw(st.sampled_from(INSERTS)))
        elif kind == "delete" and n > 1:
            del lines[draw(st.integers(0, n - 1))]
        elif kind == "move" and n > 1:
            first = draw(st.integers(0, n - 1))
            last = draw(st.integers(first, min(n - 1, first + 8)))
            block = lines[first:last + 1]
            rest = lines[:first] + lines[last + 1:]
            at = draw(st.integers(0, len(rest)))
            lines = rest[:at] + block + rest[at:]
        elif kind == "rename":
            lines = _rename(lines, draw(st.sampled_from(NAMES)), draw(st.booleans()))
        elif kind == "reindent" and n:
            i = draw(st.integers(0, n - 1))
            lines[i] = draw(st.sampled_from(["", "\t", "  ", "\t\t"])) + lines[i].lstrip()
        elif kind == "change" and n:
            i = draw(st.integers(0, n - 1))
            lines[i] = lines[i].replace("true", "false").replace("10", "11").replace("small", "tiny") + \
                draw(st.sampled_from(["", " // note", ";"]))
        elif kind == "duplicate" and n:
            first = draw(st.integers(0, n - 1))
            last = draw(st.integers(first, min(n - 1, first + 4)))
            at = draw(st.integers(0, n))
            lines = lines[:at] + lines[first:last + 1] + lines[at:]
    return lines


def squeezed(lines: list[str]) -> str:
    """Text without any whitespace: what counts as the same code."""
    return "".join("".join(ln.split()) for ln in lines)


# A citation: (first row, rows after it), 0-based; up to 7 lines.
CITATIONS = st.lists(st.tuples(st.integers(0, len(LINES) - 1), st.integers(0, 6)), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target_lines=edited(), cites=CITATIONS)
# Found by this test: a cited blank line above the code, deleted at the target, made `fix` take in
# the line above instead (2-3 became 1-2, the import line).
@example(target_lines=LINES[:1] + LINES[2:], cites=[(1, 1), (8, 1), (16, 1)])
def test_random_edits_never_fool_verify_or_fix(target_lines: list[str], cites: list[tuple[int, int]]) -> None:
    source = SourceFile("src/session.ts", SOURCE.encode())
    target = SourceFile("src/session.ts", ("\n".join(target_lines) + "\n").encode())
    for first, more in cites:
        last = min(first + more, len(LINES) - 1)
        if not squeezed(LINES[first:last + 1]):
            continue  # blank lines only: verify and record refuse such a citation before the resolver
        anchor = anchor_for(source, first, last)
        placement = place(anchor, source, target)
        cited = squeezed(LINES[first:last + 1])
        assert placement.status in ("ok", "moved", "changed", "missing", "ambiguous")
        if placement.rows is not None:
            assert 0 <= placement.rows[0] <= placement.rows[1] < max(target.line_count, 1)
        same_place = squeezed(target.lines[first:last + 1])
        if same_place != cited:
            assert placement.status != "ok", f"lines {first + 1}-{last + 1} changed, yet called ok"
        if placement.status in ("ok", "moved"):
            rows = placement.rows
            assert rows is not None
            found = squeezed(target.lines[rows[0]:rows[1] + 1])
            assert found == cited, (f"{placement.status}: lines {first + 1}-{last + 1} → {rows[0] + 1}-"
                                    f"{rows[1] + 1} holds other code")
