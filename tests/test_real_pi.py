"""The real thing: pi's packages from the npm registry, and the real map in decisions/pi.

These need the registry (CI reaches it). Trees are fetched once per session into a temporary
cache, never the user's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from generator.source.fetch import fetch_tree
from generator.map.load import load_maps
from generator.citations.resolve import SourceFile, squeeze

pytestmark = pytest.mark.network

DECISIONS = ROOT / "decisions"
PACKAGES = {"@earendil-works/pi-coding-agent": "packages/coding-agent",
            "@earendil-works/pi-agent-core": "packages/agent", "@earendil-works/pi-ai": "packages/ai"}
OFFLINE = {"npm_config_registry": "http://127.0.0.1:9", "npm_config_fetch_retries": "0"}


@pytest.fixture
def pi_map(pi_cache: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    [pi] = [m for m in load_maps(DECISIONS) if m.name == "pi"]
    return pi


def squeezed(lines: list[str]) -> str:
    return "".join("".join(lines).split())


def test_the_map_pins_pi_1_6_0_from_npm(pi_map) -> None:
    assert pi_map.version == "1.6.0"
    assert {p.package: p.path for p in pi_map.source.npm} == PACKAGES


def test_pi_1_4_0_has_its_three_packages(pi_map) -> None:
    tree = fetch_tree(pi_map, "1.4.0", quiet=True)
    for path in PACKAGES.values():
        assert any(f.startswith(f"{path}/src/") and f.endswith(".ts") for f in tree.files), path
    assert tree.has_file("packages/agent/src/agent-loop.ts")
    assert not any("node_modules" in f.split("/") for f in tree.files)
    source = SourceFile("agent-session.ts", tree.read("packages/coding-agent/src/core/agent-session.ts"))
    [method] = source.declarations("AgentSession._beforeToolCall")
    assert (method.start_point[0] + 1, method.end_point[0] + 1) == (658, 681)
    assert "_beforeToolCall" in source.lines[657]


def test_every_citation_is_ok_at_the_pin(pi_map) -> None:
    run = run_cli("verify", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr[-2000:]
    report = run.json()
    assert report["target"] == pi_map.version
    assert report["citations"], "the map cites something"
    assert {row["status"] for row in report["citations"]} == {"ok"}
    assert all(row["resolved"] == row["recorded"] for row in report["citations"])


def test_verify_at_1_5_2_moves_ranges_onto_the_same_code(pi_map) -> None:
    run = run_cli("verify", "--target", "1.5.2", "--format", "json", "--quiet")
    assert run.code in (0, 1), run.stderr[-2000:]
    report = run.json()
    assert report["target"] == "1.5.2"
    cites = [(e, c) for e in pi_map.entries for c in e.cites]
    rows = [row for row in report["citations"] if row["map"] == "pi"]
    assert [(r["id"], r["file"], r["recorded"]) for r in rows] == [
        (e.id, c.file, [c.start, c.end]) for e, c in cites], "one row per citation, in the map's order"
    new = fetch_tree(pi_map, "1.5.2", quiet=True)
    old_trees = {}
    seen = set()
    for row, (entry, cite) in zip(rows, cites):
        assert set(row) == {"map", "id", "file", "recorded", "resolved", "status", "symbol", "resolved_file", "detail"}
        assert row["map"] == "pi" and isinstance(row["symbol"], str)
        status = row["status"]
        seen.add(status)
        checked_at = cite.version or pi_map.version
        old_tree = old_trees.setdefault(checked_at, fetch_tree(pi_map, checked_at, quiet=True))
        old = old_tree.read(cite.file).decode().split("\n")[cite.start - 1:cite.end]
        if status in ("missing", "ambiguous"):
            assert row["resolved"] is None, row
            continue
        if status == "changed" and row["resolved"] is None:
            continue
        first, last = row["resolved"]
        assert 1 <= first <= last, row
        assert new.has_file(row["resolved_file"]), row
        current = new.read(row["resolved_file"]).decode().split("\n")
        assert last <= len(current), row
        if status == "ok":
            assert row["resolved"] == row["recorded"] and row["resolved_file"] == row["file"], row
        if status in ("ok", "moved"):  # (code that changed files may gain or lose `export`)
            moved_file = row["resolved_file"] != row["file"]
            assert "".join(squeeze(ln, moved_file) for ln in current[first - 1:last]) == \
                "".join(squeeze(ln, moved_file) for ln in old), row
        else:
            assert status == "changed", row
            assert current[first - 1:last] != old, row
    assert "moved" in seen, "1.5.2 moved code around: some citation must say so"


def test_fix_to_1_5_2_makes_the_moved_ones_ok(pi_map, tmp_path: Path) -> None:
    decisions = tmp_path / "decisions"
    shutil.copytree(DECISIONS, decisions)
    before = run_cli("verify", "--decisions", decisions, "--target", "1.5.2", "--format", "json", "--quiet")
    fix = run_cli("fix", "--decisions", decisions, "--target", "1.5.2", "--quiet")
    assert fix.code in (0, 1), fix.stderr[-2000:]
    after = run_cli("verify", "--decisions", decisions, "--target", "1.5.2", "--format", "json", "--quiet")
    for old, new in zip(before.json()["citations"], after.json()["citations"]):
        if old["status"] == "moved":
            assert new["status"] == "ok" and new["recorded"] == old["resolved"], (old, new)
        else:
            assert new == old, (old, new)


def test_the_cache_is_used_without_the_registry(pi_map) -> None:
    fetch_tree(pi_map, pi_map.version, quiet=True)
    run = run_cli("verify", "--quiet", env=OFFLINE)
    assert run.code == 0, run.stderr[-2000:]


def test_an_unknown_pi_version(pi_map) -> None:
    run = run_cli("verify", "--target", "0.0.0-does-not-exist", "--quiet")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == ["error: @earendil-works/pi-coding-agent@0.0.0-does-not-exist is not in the "
                                       "npm registry (unknown package or version)"]


SEED = {  # the seed page's citations, true at pi 1.4.0 (short file name, first line, last line)
    "D1": ("agent-session.ts", 658, 681), "D2": ("runner.ts", 1249, 1267), "D7": ("project-trust.ts", 25, 45),
    "G1": ("agent-loop.ts", 303, 326), "G4": ("agent-session.ts", 850, 851), "A16": ("print-mode.ts", 139, 160),
    "E9": ("bash.ts", 42, 42), "F1": ("compaction.ts", 267, 270), "F5": ("compaction.ts", 696, 753),
    "C1": ("agent-loop.ts", 412, 412), "E3": ("agent-loop.ts", 518, 533), "E8": ("edit-diff.ts", 300, 362),
}


def test_the_map_as_it_was_at_1_4_0_resolves_at_1_5_2(pi_map, tmp_path: Path) -> None:
    """Rebuild the 1.4.0 map from the edition record (every citation's range before the bump),
    then check every seed citation resolves at 1.5.2 onto the same code or is called changed."""
    [edition] = [e for e in pi_map.editions if e.from_version == "1.4.0"]
    folder = tmp_path / "decisions" / "pi"
    folder.mkdir(parents=True)
    text = pi_map.path.read_text().replace(f'version: "{pi_map.version}"', 'version: "1.4.0"').replace(
        f'checked_at: "{pi_map.checked_at}"', 'checked_at: "1.4.0"').replace(
        f"\nshared_levers: {pi_map.shared_levers}", "")  # the rebuilt map has no such entry
    (folder / "map.yaml").write_text(text.split("\nsections:")[0] + "\n")
    by_id: dict[str, list] = {}
    for row in edition.citations:
        if row.checked_at == "1.4.0":
            by_id.setdefault(row.id, []).append(row)
    for entry_id, rows in by_id.items():
        cites = "".join(f"  - file: {r.file}\n    lines: {r.old[0]}-{r.old[1]}\n" for r in rows)
        (folder / f"{entry_id}.yaml").write_text(
            f"id: {entry_id}\nquestion: As at 1.4.0?\ndecided_by: code\nanswer: Rebuilt.\ncites:\n{cites}")
    at_pin = run_cli("verify", "--decisions", folder.parent, "--format", "json", "--quiet")
    assert at_pin.code == 0, at_pin.stderr[-2000:]
    for entry_id, (name, first, last) in SEED.items():
        assert any(r.file.endswith("/" + name) and r.old == (first, last) for r in by_id[entry_id]), entry_id
    run = run_cli("verify", "--decisions", folder.parent, "--target", "1.5.2", "--format", "json", "--quiet")
    assert run.code in (0, 1), run.stderr[-2000:]
    old_tree, new_tree = fetch_tree(pi_map, "1.4.0", quiet=True), fetch_tree(pi_map, "1.5.2", quiet=True)
    for row in run.json()["citations"]:
        old = old_tree.read(row["file"]).decode().split("\n")[row["recorded"][0] - 1:row["recorded"][1]]
        if row["status"] in ("ok", "moved"):
            first, last = row["resolved"]
            assert squeezed(new_tree.read(row["file"]).decode().split("\n")[first - 1:last]) == squeezed(old), row
        elif row["status"] == "changed" and row["resolved"]:
            first, last = row["resolved"]
            assert new_tree.read(row["file"]).decode().split("\n")[first - 1:last] != old, row
