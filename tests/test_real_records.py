"""Records on the real map and real pi releases: every range shifted by hand is caught and put
back, a pin edited by hand agrees with `--target`, code that moved between files (and packages) in
real releases is followed, and a replay over every release from 0.99.1 to 1.6.0 holds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from generator.map.load import load_maps
from generator.citations.replay import replay, table
from generator.citations.resolve import squeeze

pytestmark = pytest.mark.network

DECISIONS = ROOT / "decisions"
RELEASES = ["0.99.1", "1.0.3", "1.3.0", "1.4.0", "1.5.0", "1.5.2", "1.6.0"]


@pytest.fixture
def decisions(pi_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    copy = tmp_path / "decisions"
    shutil.copytree(DECISIONS, copy)
    return copy


def rows(decisions: Path, *args: str) -> tuple[int, list[dict]]:
    run = run_cli("verify", "--decisions", decisions, "--format", "json", "--quiet", *args)
    assert run.code in (0, 1), run.stderr[-2000:]
    return run.code, run.json()["citations"]


def test_every_citation_of_the_map_carries_a_record(decisions: Path) -> None:
    [pi] = load_maps(decisions)
    cites = [c for e in pi.entries for c in e.cites]
    assert cites and all(c.record is not None for c in cites)
    assert pi.checked_at == pi.version


def test_every_range_shifted_by_hand_is_moved_back(decisions: Path) -> None:
    [pi] = load_maps(decisions)
    originals = []
    for path in sorted({c.path for e in pi.entries for c in e.cites}):
        text = path.read_text(encoding="utf-8")
        cites = [c for e in pi.entries for c in e.cites if c.path == path]
        for cite in sorted(cites, key=lambda c: c.lines_span.start, reverse=True):
            text = text[:cite.lines_span.start] + f"{cite.start + 1}-{cite.end + 1}" + text[cite.lines_span.end:]
        path.write_text(text, encoding="utf-8")
    originals = [(c.start, c.end) for e in pi.entries for c in e.cites]
    code, found = rows(decisions)
    assert code == 1
    source = {}
    same_text = 0
    for row, (start, end) in zip(found, originals):
        if row["status"] == "ok":  # the shifted range holds the very same text (a blank line swapped)
            lines = source.setdefault(row["file"], (pi_tree(decisions) / row["file"]).read_text().split("\n"))
            assert squeeze("".join(lines[start:end + 1]), False) == squeeze("".join(lines[start - 1:end]), False), row
            same_text += 1
            continue
        assert row["status"] == "moved" and row["resolved"] == [start, end], row
    assert same_text <= len(found) // 50, f"{same_text} of {len(found)} shifted ranges held the same text"
    fix = run_cli("fix", "--decisions", decisions, "--quiet")
    assert fix.code == 0, fix.stdout[-2000:]
    assert rows(decisions)[0] == 0


def pi_tree(decisions: Path) -> Path:
    run = run_cli("source", "--decisions", decisions)
    return Path(run.stdout.strip())


def test_a_pin_edited_by_hand_agrees_with_target(decisions: Path, tmp_path: Path) -> None:
    untouched = tmp_path / "untouched"
    shutil.copytree(decisions, untouched)
    map_yaml = decisions / "pi" / "map.yaml"
    map_yaml.write_text(map_yaml.read_text().replace('\nversion: "1.6.0"', '\nversion: "1.5.2"'))
    code, edited = rows(decisions)
    assert code == 1
    assert edited == rows(untouched, "--target", "1.5.2")[1]
    assert sum(r["status"] == "moved" for r in edited) > 100


MOVES = [  # (from, to, file, lines at `from`, file at `to`, lines there): found by hand in real releases
    ("0.99.1", "1.0.3", "packages/ai/src/api/azure-openai-responses.ts", "191-209",
     "packages/ai/src/api/azure-openai-config.ts", [37, 55]),
    ("1.5.0", "1.5.2", "packages/coding-agent/src/modes/interactive/components/login-dialog.ts", "21-30",
     "packages/coding-agent/src/utils/web-url.ts", [3, 12]),
    ("1.3.0", "1.4.0", "packages/coding-agent/src/core/provider-attribution.ts", "11-17",
     "packages/ai/src/utils/identity.ts", [84, 90]),
    ("1.5.0", "1.5.2", "packages/coding-agent/src/core/cache-warmer.ts", "39-46",
     "packages/ai/src/cache-warming.ts", [55, 62]),
    ("1.0.3", "1.3.0", "packages/ai/src/api/system-one-shared.ts", "160-172",
     "packages/ai/src/api/classifier-shared.ts", [41, 53]),
]


@pytest.mark.parametrize(("old", "new", "file", "lines", "new_file", "new_lines"), MOVES,
                         ids=[f"{m[2].rsplit('/', 1)[1]}@{m[0]}" for m in MOVES])
def test_real_moves_to_another_file(pi_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    old, new, file, lines, new_file, new_lines) -> None:
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    folder = tmp_path / "decisions" / "pi"
    folder.mkdir(parents=True)
    # the real map's header (title, repository, source, pin), without the link to an entry this
    # one-entry map does not have
    head = re.sub(r"\nshared_levers: \S+", "", (DECISIONS / "pi" / "map.yaml").read_text().split("\nsummary:")[0])
    (folder / "map.yaml").write_text(head.replace('version: "1.6.0"', f'version: "{old}"')
                                     .replace('checked_at: "1.6.0"', f'checked_at: "{old}"') + "\n")
    (folder / "X1.yaml").write_text(f"id: X1\nquestion: Moved?\ndecided_by: code\nanswer: A move.\ncites:\n"
                                    f"  - file: {file}\n    lines: {lines}\n")
    assert run_cli("record", "--decisions", folder.parent, "--quiet").code == 0
    code, [row] = rows(folder.parent, "--target", new)
    assert code == 1
    assert (row["status"], row["resolved_file"], row["resolved"]) == ("moved", new_file, new_lines), row
    fix = run_cli("fix", "--decisions", folder.parent, "--target", new, "--quiet")
    assert fix.code == 0, fix.stdout
    assert f"file: {new_file}\n" in (folder / "X1.yaml").read_text()


def test_a_replay_over_every_release_from_0_99_1_to_1_6_0(pi_cache: Path, monkeypatch) -> None:
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    [pi] = load_maps(DECISIONS)
    result = replay(pi, RELEASES, declarations=150)
    print("\n" + table(result))
    assert result.citations > 200
    for step in result.steps:
        assert step.text_checked == step.counts["moved"] + step.counts["moved to another file"]
        assert not step.text_differs, step.text_differs  # every moved citation holds the same code
    assert result.steps[0].counts["moved to another file"] > 0  # 0.99.1 → 1.0.3 moved modules
    # release by release agrees with straight from the first to the last, wherever both land
    assert result.agree > 100 and not result.disagree, result.disagree[:5]
