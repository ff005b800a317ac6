"""`new`: start an entry from a citation, with the symbol named and the rest left to a person."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from .errors import UsageError
from .map.load import PLACEHOLDER, find_map_folders, load_finished_maps
from .map.model import DecisionMap
from .citations.resolve import symbol_path, to_line
from .map.rewrite import format_lines, record_text, write_atomically
from .citations.verify import Trees


def parse_position(text: str) -> tuple[str, int, int | None]:
    """``FILE:LINE`` or ``FILE:A-B`` → (file, first, last or None)."""
    match = re.fullmatch(r"(.+?):([0-9]+)(?:-([0-9]+))?", text)
    if not match:
        raise UsageError(f"{text!r}: give FILE:LINE or FILE:A-B, e.g. "
                         "packages/coding-agent/src/core/agent-session.ts:658")
    first = int(match.group(2))
    last = int(match.group(3)) if match.group(3) else None
    if first < 1 or (last is not None and last < first):
        raise UsageError(f"{text!r}: lines count from 1, and a range goes from low to high")
    return match.group(1), first, last


def new_entry(decisions: Path, position: str, map_name: str | None, entry_id: str | None,
              group: str | None) -> tuple[Path, str, str]:
    """Write a new entry file; returns (path, ID, cited symbol)."""
    file, first, last = parse_position(position)
    folders = find_map_folders(decisions)
    folder = next((f for f in folders if f.name == map_name), None) if map_name else folders[0]
    if folder is None:
        raise UsageError(f"no map named {map_name!r} under {decisions}")
    decision_map = _loaded_map(decisions, folder)
    tree_source = Trees(decision_map, quiet=False)  # `new` shows its fetch
    why = tree_source.tree(decision_map.version).classify(file)
    if why:
        raise UsageError(f"{file} {why}")
    source = tree_source.file(decision_map.version, file)
    if first > source.line_count or (last or first) > source.line_count:
        raise UsageError(f"{file} has {source.line_count} lines at {decision_map.version}; "
                         f"{format_lines(first, last or first)} does not exist there")
    if not any(line.strip() for line in source.lines[first - 1:(last or first)]):
        raise UsageError(f"{file}:{format_lines(first, last or first)} is blank at {decision_map.version}; "
                         "point at the code that decides")
    if last is None:  # one line: cite the whole declaration around it
        node = source.enclosing(first - 1, first - 1)
        if node is None:
            last = first
        else:
            first, last = to_line(node.start_point[0]), to_line(node.end_point[0])
    node = source.enclosing(first - 1, last - 1)
    symbol = symbol_path(node) if node is not None else "(top level)"
    if entry_id is None and group is None:
        group = guess_group(decision_map, file)
        print(f"note: group {group} guessed from the entries that cite {file.rsplit('/', 1)[-1]}; "
              "give --group or --id to choose", file=sys.stderr)
    entry_id = entry_id or next_id(decision_map, group, folder)
    for entry in decision_map.entries:
        for cite in entry.cites:
            if cite.file == file and cite.start <= last and first <= cite.end:
                print(f"note: {entry.id} already cites {cite.label}: {entry.headline}", file=sys.stderr)
    if not re.fullmatch(r"[A-Z][0-9]{1,4}", entry_id):
        raise UsageError(f"{entry_id!r} is not an ID: a capital letter and a number, e.g. D12")
    if decision_map.entry(entry_id) or (folder / f"{entry_id}.yaml").exists():
        raise UsageError(f"{entry_id} exists already; choose another --id")
    path = folder / f"{entry_id}.yaml"
    record = tree_source.record(decision_map.version, file, first, last)
    lines = format_lines(first, last)
    if decision_map.recorded_version != decision_map.version:  # the pin was edited and not yet fixed
        lines += f'\n    version: "{decision_map.version}"'
    write_atomically(path, ENTRY_TEMPLATE.format(id=entry_id, file=file, lines=lines,
                                                 record=record_text(record), todo=PLACEHOLDER))
    return path, entry_id, symbol


def guess_group(decision_map: DecisionMap, file: str) -> str:
    """The group whose entries cite this file most; none does: the group letter must be given."""
    best = Counter(e.group for e in decision_map.decisions for c in e.cites if c.file == file).most_common(1)
    if not best:
        groups = ", ".join(f"{g.id} ({g.title})" for g in decision_map.groups) or "see map.yaml"
        raise UsageError(f"no entry cites {file} yet, so its group cannot be guessed; give --group: {groups}")
    return best[0][0]


def next_id(decision_map: DecisionMap, group: str, folder: Path) -> str:
    """The next free number in ``group``, counting unfinished entry files too."""
    used = {e.number for e in decision_map.entries if e.group == group}
    used |= {int(p.stem[1:]) for p in folder.glob(f"{group}*.yaml") if re.fullmatch(r"[A-Z][0-9]{1,4}", p.stem)}
    return f"{group}{max(used, default=0) + 1}"


def _loaded_map(decisions: Path, folder: Path) -> DecisionMap:
    """The map, leaving out entries and overlays that are still unfinished (holding placeholders), so
    that starting one does not wait for another to be written."""
    return next(m for m in load_finished_maps(decisions) if m.folder == folder)


ENTRY_TEMPLATE = """\
# yaml-language-server: $schema=../../schema/entry.schema.json
id: {id}
kind: decision
# The judgment, as a user would ask it (see CONTRIBUTING.md for good examples).
question: {todo}
# code (plain code decides), model (the AI model's output decides) or person
decided_by: {todo}
# The main path in one or two sentences (aim at 40 words; over 60 is refused), true of the cited
# code at the pinned version as written: scope it ("by default", "in print mode") rather than
# writing "only" or "never" that an exception takes back.
answer: >-
  {todo}
cites:
  - file: {file}
    lines: {lines}
    record: {record}
# When the answer does not hold, one cited sentence per case; levers set in advance go in
# `changed_by` the same way, and `overrides` items take `by`, `can`, `when` and `cites`
# (see decisions/FORMAT.md). Then `python -m generator record {id}` records the new citations.
# exceptions:
#   - text: >-
#       When ..., ... instead.
#     cites:
#       - file: {file}
#         lines: {lines}
"""


# --- an extension on npm ---------------------------------------------------------------------------

SHORT_CALL = 8  # lines: a call this long is cited whole; a longer one (a tool's definition) by its first line


def new_extension(decisions: Path, spec: str, map_name: str | None, name: str | None = None) -> tuple[Path, int]:
    """Write ``decisions/<map>/extensions/<name>.yaml`` for the npm extension ``spec`` (PACKAGE@VERSION):
    pinned (version, integrity), every lever `levers` finds as an item citing each place it is used,
    each with its text left to write. Returns the path and the number of citations written."""
    from collections import defaultdict

    from .extensions.levers import package_levers
    from .map.load import with_extensions  # noqa: F401  (the overlay, once written, is verified through it)
    from .map.model import extension_map, npm_package_key
    from .map.schema import EXTENSION_NAME_PATTERN

    folders = find_map_folders(decisions)
    folder = next((f for f in folders if f.name == map_name), None) if map_name else folders[0]
    if folder is None:
        raise UsageError(f"no map named {map_name!r} under {decisions}")
    decision_map = next(m for m in load_finished_maps(decisions, editions=False) if m.folder == folder)
    if not decision_map.levers:
        raise UsageError(f"{folder}/levers.yaml: no lever table to take the decisions from")
    report = package_levers(spec, decision_map.levers, quiet=False)
    name = name or npm_package_key(report.package).rsplit("+", 1)[-1].lower()
    if not re.fullmatch(EXTENSION_NAME_PATTERN, name):
        raise UsageError(f"{name!r} cannot name the overlay file; give --name (lower-case letters, digits, . _ -)")
    path = folder / "extensions" / f"{name}.yaml"
    if path.exists() or any(o.extension == name for o in decision_map.overlays):
        raise UsageError(f"{path} exists already; give another --name")
    ext = extension_map(report.package, report.version)
    trees = Trees(ext, quiet=True)
    tree = trees.tree(report.version)
    integrity = tree.integrity.get(report.package)
    if integrity is None:
        from .source.fetch import registry_integrity

        integrity = registry_integrity(f"{report.package}@{report.version}")
    grouped: dict[str, list] = defaultdict(list)
    for use in report.levers:
        grouped[use.lever].append(use)
    sections = {"levers": [], "runs": [], "connects": []}
    count = 0
    for lever, uses in grouped.items():
        kind = uses[0].kind
        cites = []
        for use in uses:
            last = use.last if use.last - use.line < SHORT_CALL else use.line
            while last > use.line and not tree.read(use.file).decode("utf-8", "replace").split("\n")[last - 1].strip():
                last -= 1
            record = trees.record(report.version, use.file, use.line, last)
            cites.append(f"      - file: {use.file}\n        lines: {format_lines(use.line, last)}\n"
                         f"        record: {record_text(record)}")
        count += len(cites)
        if kind in ("event", "api"):
            decided = ", ".join(uses[0].decisions)
            head = (f"  - lever: {lever}\n    kind: {kind}\n"
                    f"    # what {lever} can change (levers.yaml); keep the decisions this extension's use changes\n"
                    f"    decisions: [{decided}]\n    text: >-\n      {PLACEHOLDER}: what it does with {lever}\n")
            sections["levers"].append(head + "    cites:\n" + "\n".join(cites))
        else:
            what = "what it runs" if kind == "process" else "where it connects, and what for"
            head = f"  - text: >-\n      {PLACEHOLDER}: {what} ({lever})\n"
            sections["runs" if kind == "process" else "connects"].append(head + "    cites:\n" + "\n".join(cites))
    first = next((d for use in report.levers for d in use.decisions if d != decision_map.shared_levers),
                 decision_map.shared_levers or "C10")
    body = ["# yaml-language-server: $schema=../../../schema/overlay.schema.json",
            f"# Started by `python -m generator new --extension {report.package}@{report.version}`: every lever its",
            "# code uses, cited. Write each TODO from the cited code (merge or drop items that say the same),",
            "# then run `python -m generator verify` (see decisions/FORMAT.md, \"An extension on npm\").",
            f"extension: {name}", f'package: "{report.package}"', f'version: "{report.version}"',
            f"integrity: {integrity}", f'checked_at: "{report.version}"',
            f"tagline: >-\n  {PLACEHOLDER}: what it is, in one line (the extensions index shows it)",
            f"summary: >-\n  {PLACEHOLDER}: what installing it changes, in two sentences"]
    for key in ("levers", "runs", "connects"):
        if sections[key]:
            body.append(f"{key}:\n" + "\n".join(sections[key]))
    body.append(f"unchanged:\n  - text: >-\n      {PLACEHOLDER}: what it leaves as pi decides it, where a reader "
                "could think otherwise")
    body.append(f"changes:\n  - decision: {first}\n    how: >-\n      {PLACEHOLDER}: how it changes {first}\n"
                f"    without:\n      decided_by: code\n      answer: >-\n        {PLACEHOLDER}\n"
                f"    with:\n      decided_by: code\n      answer: >-\n        {PLACEHOLDER}")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, "\n".join(body) + "\n")
    return path, count
