"""The migration to short answers with cited items (issue 28) keeps every citation.

``migration/citations-2c08cb2.json`` is a snapshot of every citation of every entry of the pi map
at commit 2c08cb2, the last one before the migration: its file, its lines and its record's digest.
Each must still be a citation of the same entry, in `cites` or in one of its items (a citation
cited in two places counts once here; a new citation is allowed). Rewrite the snapshot from git,
should it ever need it, with ``.venv/bin/python tests/test_migration.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = Path(__file__).resolve().parent / "migration" / "citations-2c08cb2.json"
COMMIT = "2c08cb2605631a1334be4586207d9210ebaccfaf"

Citation = tuple[str, int, int, "str | None"]  # file, first line, last line, record digest


def _lines(value) -> tuple[int, int]:
    first, _, last = str(value).partition("-")
    return int(first), int(last or first)


def snapshot_from_git() -> dict[str, list[list]]:
    """Every entry's citations at COMMIT, read from git (the entries then had one `cites` list)."""
    names = subprocess.run(["git", "ls-tree", "--name-only", COMMIT, "decisions/pi/"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    entries = {}
    for name in names:
        if not name.endswith(".yaml") or name.endswith("/map.yaml"):
            continue
        text = subprocess.run(["git", "show", f"{COMMIT}:{name}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
        entry = yaml.safe_load(text)
        entries[entry["id"]] = [[c["file"], *_lines(c["lines"]), (c.get("record") or {}).get("digest")]
                                for c in entry["cites"]]
    return dict(sorted(entries.items(), key=lambda kv: (kv[0][0], int(kv[0][1:]))))


def current_citations() -> dict[str, list[Citation]]:
    """Every entry's citations now, as the loader reads them (main path and items alike)."""
    from generator.map.load import load_maps

    [pi] = [m for m in load_maps(ROOT / "decisions", editions=False) if m.name == "pi"]
    return {e.id: [(c.file, c.start, c.end, c.record.digest if c.record else None) for c in e.cites]
            for e in pi.entries}


def test_the_snapshot_is_the_one_git_holds() -> None:
    """The committed snapshot is what commit 2c08cb2 held: 83 entries, none without citations."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert snapshot["commit"] == COMMIT
    assert snapshot["entries"] == snapshot_from_git()
    assert len(snapshot["entries"]) == 83 and all(snapshot["entries"].values())


def test_every_citation_of_the_snapshot_is_still_a_citation_of_its_entry() -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["entries"]
    now = current_citations()
    lost = {}
    for entry_id, before in snapshot.items():
        kept = set(now.get(entry_id, ()))
        missing = [c for c in (tuple(c) for c in before) if c not in kept]
        if missing:
            lost[entry_id] = missing
    assert not lost, "citations lost in the migration (entry: file, first, last, digest): " + "; ".join(
        f"{i}: " + ", ".join(f"{f}:{a}-{b} ({d})" for f, a, b, d in cs) for i, cs in lost.items())


def new_citations() -> Counter:
    """How many citations each entry has that the snapshot did not (for the closing note)."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["entries"]
    return Counter({i: len(set(cs) - {tuple(c) for c in snapshot.get(i, ())}) for i, cs in current_citations().items()})


if __name__ == "__main__":
    if sys.argv[1:] == ["--new"]:
        counts = new_citations()
        print(f"{sum(counts.values())} new citations in {sum(1 for n in counts.values() if n)} entries")
        for entry_id, n in counts.most_common():
            if n:
                print(f"  {entry_id}: {n}")
    else:
        SNAPSHOT.parent.mkdir(exist_ok=True)
        entries = snapshot_from_git()
        body = ",\n".join(f"  {json.dumps(i)}: [\n" + ",\n".join(f"   {json.dumps(c)}" for c in cs) + "\n  ]"
                          for i, cs in entries.items())  # one citation a line: a diff reads as one
        SNAPSHOT.write_text(f'{{\n "commit": "{COMMIT}",\n "entries": {{\n{body}\n }}\n}}\n', encoding="utf-8")
        print(f"wrote {SNAPSHOT}")
