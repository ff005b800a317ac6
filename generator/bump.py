"""Move a map to a new release: verify every citation at it, apply what is safe, pin it, and
record the edition (what changed between the two versions) for the site.

Safe means `moved`: the same code at other lines. Everything else keeps the version it was
checked at, so `verify` fails until a person has re-read it (`accept`, or an edit by hand).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .errors import UsageError
from .model import DecisionMap, EditionCitation, EditionProbe, Entry
from .probe import probe_flips
from .record import settle
from .rewrite import apply_edits, format_lines, set_top_level
from .verify import Resolution, Trees, verify_map


@dataclass(frozen=True)
class BumpReport:
    results: list[Resolution]
    edition: Path
    trees: Trees
    probes: tuple[EditionProbe, ...] = ()  # the probes whose outcome flipped


def claim_digest(entry: Entry) -> str:
    """A short digest of what an entry claims, to tell later whether a person re-wrote it."""
    text = "\n".join(x or "" for x in (entry.question, entry.answer, entry.title, entry.description,
                                       entry.changed_by))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def bump_map(decision_map: DecisionMap, version: str, trees: Trees, today: str | None = None) -> BumpReport:
    """Bump one map to ``version``; rewrites its YAML in place and writes its edition record."""
    if version == decision_map.version:
        raise UsageError(f"{decision_map.path}: the map is already pinned at {version}")
    results = verify_map(decision_map, version, trees)
    flips = tuple(probe_flips(decision_map, version))  # before anything is written: pi may not install
    # moved and ok citations are recorded at the new pin; drifted ones keep the version they were checked at
    edits = settle(results, trees, version)
    edition = decision_map.folder / "editions" / f"{decision_map.version}-to-{version}.yaml"
    edition_text = _edition_yaml(decision_map, version, results, today or date.today().isoformat(), flips)
    _repinned(decision_map.path, decision_map.path.read_text(encoding="utf-8"), version)  # refuses a map without one
    pin = lambda text: set_top_level(_repinned(decision_map.path, text, version), "checked_at", version,  # noqa: E731
                                     after="version")
    edition.parent.mkdir(parents=True, exist_ok=True)
    apply_edits(edits, also={edition: edition_text, decision_map.path: pin})
    return BumpReport(results, edition, trees, flips)


def bump_extension(extension: DecisionMap, version: str, trees: Trees, today: str | None = None) -> BumpReport:
    """Bump an extension pinned on npm (a map of its package, see ``with_extensions``) to its release
    ``version``, as a map is bumped; its `integrity` becomes the registry's for that release."""
    report = bump_map(extension, version, trees, today)
    integrity = trees.tree(version).integrity.get(extension.source.npm[0].package)
    if integrity is None:  # fetched before trees recorded integrities: ask the registry
        from .fetch import registry_integrity

        integrity = registry_integrity(f"{extension.source.npm[0].package}@{version}")
    apply_edits([], also={extension.path: lambda text: set_top_level(text, "integrity", integrity, after="version")})
    return report


def _repinned(path: Path, text: str, version: str) -> str:
    found = re.search(r"^version:[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)", text, re.MULTILINE)
    if not found:
        raise UsageError(f"{path}: no top-level `version:` line to update")
    return text[:found.start(1)] + f'"{version}"' + text[found.end(1):]


def _edition_yaml(decision_map: DecisionMap, version: str, results: list[Resolution], today: str,
                  flips: tuple[EditionProbe, ...] = ()) -> str:
    rows = [EditionCitation(r.entry.id, r.citation.file, r.recorded, r.resolved, r.checked_at, r.status,
                            claim_digest(r.entry), 0, r.resolved_file if r.moved_file else None) for r in results]
    return edition_text(decision_map.version, version, today, rows, flips)


def edition_text(from_version: str, to_version: str, day: str, rows: list[EditionCitation],
                 probes: tuple[EditionProbe, ...] = (), settled: tuple[tuple[str, str], ...] = ()) -> str:
    """The edition record as YAML (it is generated, so it is written whole)."""
    lines = [
        "# Written by `python -m generator bump`: what changed in the map's code between two versions.",
        "# `new` is where the code was found; `accept` sets it to the range a person settled on.",
        f'from: "{from_version}"',
        f'to: "{to_version}"',
        f"date: {day}",
        "citations:",
    ]
    for row in rows:
        lines += [f"  - id: {row.id}", f"    file: {row.file}", f'    old: "{format_lines(*row.old)}"']
        if row.new_file:
            lines.append(f"    new_file: {row.new_file}")
        if row.new:
            lines.append(f'    new: "{format_lines(*row.new)}"')
        lines += [f'    checked_at: "{row.checked_at}"', f"    status: {row.status}", f"    claim: {row.claim}"]
    if probes:  # the probes whose outcome flipped: running pi shows a change of behaviour
        lines.append("probes:")
        lines += [f"  - {{id: {p.id}, before: {p.before}, after: {p.after}}}" for p in probes]
    if settled:  # what each accepted entry said when a person settled it (quoted: digits-only stay text)
        lines.append("settled:")
        lines += [f'  {entry_id}: "{digest}"' for entry_id, digest in settled]
    return "\n".join(lines) + "\n"


def settled_edition(decision_map: DecisionMap, accepted: set[str] = frozenset()) -> tuple[Path, str] | None:
    """The latest edition to the map's pin, with the ranges people settled on for its drifted
    citations (the entry's citation of the same file, in the same order, once checked at the pin)
    and, for the ``accepted`` entries, what they say now. None when there is no such edition or
    nothing to settle."""
    edition = next((e for e in reversed(decision_map.editions) if e.to_version == decision_map.version), None)
    if edition is None:
        return None
    seen: dict[tuple[str, str], int] = {}
    rows, changed = [], False
    for row in edition.citations:
        order = seen.get((row.id, row.file), 0)
        seen[(row.id, row.file)] = order + 1
        entry = decision_map.entry(row.id)
        same_file = [c for c in entry.cites if c.file in (row.file, row.new_file)] if entry else []
        current = same_file[order] if order < len(same_file) else None
        if row.status not in ("ok", "moved") and current is not None and current.version in (None, edition.to_version):
            settled = (current.start, current.end)
            if settled != row.new:
                row = EditionCitation(row.id, row.file, row.old, settled, row.checked_at, row.status, row.claim,
                                      row.line, current.file if current.file != row.file else None)
                changed = True
        rows.append(row)
    settled = dict(edition.settled)
    for entry_id in sorted(accepted & {row.id for row in edition.citations}, key=_id_order):
        if (entry := decision_map.entry(entry_id)) is not None:
            settled[entry_id] = claim_digest(entry)
    changed = changed or settled != dict(edition.settled)
    if not changed:
        return None
    return edition.path, edition_text(edition.from_version, edition.to_version, edition.date, rows,
                                      edition.probes, tuple(sorted(settled.items(), key=lambda kv: _id_order(kv[0]))))


def _id_order(entry_id: str) -> tuple[str, int]:
    return entry_id[0], int(entry_id[1:])


def review_text(r: Resolution, trees: Trees) -> str:
    """What a person needs to re-read one drifted citation: the claim and a diff of the code."""
    old = trees.file(r.checked_at, r.citation.file)  # there: verify_map's check_citations made sure
    new = trees.file(r.target, r.citation.file)
    old_lines = old.lines[r.recorded[0] - 1:r.recorded[1]]
    if r.resolved and new:
        new_lines = new.lines[r.resolved[0] - 1:r.resolved[1]]
        new_label = f"{r.citation.file}:{format_lines(*r.resolved)} at {r.target}"
    else:
        new_lines, new_label = [], f"{r.citation.file} at {r.target} (not found)"
    claim = r.entry.answer or r.entry.description or ""
    diff = difflib.unified_diff(old_lines, new_lines, f"{r.citation.file}:{format_lines(*r.recorded)} at "
                                f"{r.checked_at}", new_label, lineterm="", n=2)
    return "\n".join([f"── {r.entry.id} {r.status}: {r.entry.headline}",
                      f"   claim: {' '.join(claim.split())}", *diff, ""])
