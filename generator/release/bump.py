"""Move a map to a new release: verify every citation at it, apply what is safe, pin it, and
record the edition (what changed between the two versions) for the site.

Safe means `moved`: the same code at other lines. Everything else keeps the version it was
checked at, so `verify` fails until a person has re-read it (`accept`, or an edit by hand).
"""

from __future__ import annotations

import difflib
import json
import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..errors import UsageError
from ..citations.leads import EntryLeads, new_leads
from ..map.model import DecisionMap, EditionCitation, EditionProbe, Entry
from ..probes.run import probe_flips
from ..citations.record import settle
from ..map.rewrite import apply_edits, format_lines, set_top_level
from ..citations.verify import Resolution, Trees, verify_map
from ..map.model import Citation, Edition


@dataclass(frozen=True)
class BumpReport:
    results: list[Resolution]
    edition: Path
    trees: Trees
    probes: tuple[EditionProbe, ...] = ()  # the probes whose outcome flipped
    leads: tuple[EntryLeads, ...] = ()  # for entries whose code changed: leads new at the target


def claim_digest(entry: Entry) -> str:
    """A short digest of what an entry claims, to tell later whether a person re-wrote it: its main
    text and every cited item. The levers' sentences take the place the one `changed_by` text had
    (so an entry without exceptions or overrides digests as it did before items existed, and the
    editions written then still read right); exceptions and overrides follow, each under its own
    name, so a sentence moved from one list to another counts as a change."""
    levers = "\n".join(item.text for item in entry.changed_by)
    parts = [x or "" for x in (entry.question, entry.answer, entry.title, entry.description, levers)]
    parts += [f"exception: {item.text}" for item in entry.exceptions]
    parts += [f"override by {o.by}{f' (can {o.can})' if o.can else ''}: {o.when}" for o in entry.overrides]
    text = "\n".join(parts)
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
    leads = new_leads(list(decision_map.entries), results, trees, decision_map.version, version)
    return BumpReport(results, edition, trees, flips, tuple(leads))


def bump_extension(extension: DecisionMap, version: str, trees: Trees, today: str | None = None) -> BumpReport:
    """Bump an extension pinned on npm (a map of its package, see ``with_extensions``) to its release
    ``version``, as a map is bumped; its `integrity` becomes the registry's for that release."""
    report = bump_map(extension, version, trees, today)
    integrity = trees.tree(version).integrity.get(extension.source.npm[0].package)
    if integrity is None:  # fetched before trees recorded integrities: ask the registry
        from ..source.fetch import registry_integrity

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
    # what each entry says at the old pin, kept for the edition page's before-and-after
    before = tuple((e.id, text) for e in decision_map.entries for text in [e.answer or e.description] if text)
    return edition_text(decision_map.version, version, today, rows, flips, before=before)


def edition_text(from_version: str, to_version: str, day: str, rows: list[EditionCitation],
                 probes: tuple[EditionProbe, ...] = (), settled: tuple[tuple[str, str], ...] = (),
                 before: tuple[tuple[str, str], ...] = ()) -> str:
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
    if before:  # JSON strings are YAML double-quoted scalars: any text, on one line
        lines.append("before:")
        lines += [f"  {entry_id}: {json.dumps(text, ensure_ascii=False)}" for entry_id, text in before]
    return "\n".join(lines) + "\n"


def settled_edition(decision_map: DecisionMap, accepted: set[str] = frozenset()) -> tuple[Path, str] | None:
    """The latest edition to the map's pin, with the ranges people settled on for its drifted
    citations (the entry's citation of the same file, in the same order, once checked at the pin)
    and, for the ``accepted`` entries, what they say now. None when there is no such edition or
    nothing to settle."""
    edition = next((e for e in reversed(decision_map.editions) if e.to_version == decision_map.version), None)
    if edition is None:
        return None
    found = _settled_ranges(decision_map, edition)
    rows, changed = [], False
    for index, row in enumerate(edition.citations):
        current = found.get(index)
        if current is not None and (current.start, current.end) != row.new:
            row = EditionCitation(row.id, row.file, row.old, (current.start, current.end), row.checked_at, row.status,
                                  row.claim, row.line, current.file if current.file != row.file else None)
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
                                      edition.probes, tuple(sorted(settled.items(), key=lambda kv: _id_order(kv[0]))),
                                      edition.before)


def _settled_ranges(decision_map: DecisionMap, edition: Edition) -> dict[int, Citation]:
    """For the edition's drifted rows (by index), the entry's citation a person settled each on.

    A row whose `new` range an entry's citation still holds is settled already. The others are
    paired, in order, with the entry's citations of the same file that no row of the edition holds
    and that are checked at the edition's version, when there are exactly as many of both: an entry
    whose citations were reordered or added to since the bump (as when its text became items) is
    never paired by position alone, which would give a row the range of another citation."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, row in enumerate(edition.citations):
        groups.setdefault((row.id, row.file), []).append(index)
    found: dict[int, Citation] = {}
    for (entry_id, file), indexes in groups.items():
        entry = decision_map.entry(entry_id)
        if entry is None:
            continue
        group = [edition.citations[i] for i in indexes]
        files = {file} | {row.new_file for row in group if row.new_file}
        same_file = [c for c in entry.cites if c.file in files and c.version in (None, edition.to_version)]
        held = {(c.file, c.start, c.end) for c in same_file}
        claimed = {(row.new_file or row.file, *row.new) for row in group if row.new}
        open_rows = [i for i in indexes if edition.citations[i].status not in ("ok", "moved")
                     and (edition.citations[i].new_file or file, *(edition.citations[i].new or (0, 0))) not in held]
        free = list({(c.file, c.start, c.end): c for c in same_file
                     if (c.file, c.start, c.end) not in claimed}.values())
        if open_rows and len(free) == len(open_rows):
            found.update(zip(open_rows, free))
    return found


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
                      f"   claim: {' '.join(claim.split())}", *_items_citing(r), *diff, ""])


def _items_citing(r: Resolution) -> list[str]:
    """The sentences of the entry's items that this citation backs: the clause to re-read first."""
    entry = r.entry
    items = [("exception", i.text, i.cites) for i in entry.exceptions]
    items += [(f"override by {o.by}", o.when, o.cites) for o in entry.overrides]
    items += [("lever", i.text, i.cites) for i in entry.changed_by]
    return [f"   {name}: {' '.join(text.split())}" for name, text, cites in items if r.citation in cites]
