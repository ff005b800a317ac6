"""Load ``decisions/``: YAML files into a validated :class:`DecisionMap`.

Every problem names ``path:line``; all of them are collected and raised together in one
:class:`InputError`, so a contributor fixes everything in one round.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any, Callable

import yaml

from . import schema
from ..errors import InputError, Problem, UsageError, display_path
from .model import extension_map, is_shared_module, shared_modules
from .model import (Citation, CitationRecord, DecisionMap, Edition, EditionCitation, EditionProbe, Entry, Failure,
                    GitPin, Group, Item, LeverRow, NpmPackage, Overlay, OverlayChange, OverlayLever, Override, Probe,
                    Review, Section, Side, Source, Span, Upstream)
from .rewrite import finish_interrupted_writes

LEVERS_FILE = "levers.yaml"  # the lever table, next to map.yaml; not an entry
PLACEHOLDER = "TODO"  # what `new` writes where a person must write; never valid
MAX_FILE_BYTES = 256 * 1024  # an entry is a few hundred bytes; anything huge is a mistake
MAX_DEPTH = 12  # the deepest legitimate nesting is about five levels
# C0 controls (but tab and newline), DEL, and the bidirectional overrides that can disguise text
_FORBIDDEN_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069\u200e\u200f]")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]*)[^)]*\)")
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*)>")
_CODE_SPAN = re.compile(r"`[^`]*`")
# an address right after the colon ("a UTF-8 file: the tool" is prose, "file:///etc" is not)
_SCHEME = re.compile(r"\b(javascript|data|vbscript|file):(?=\S)", re.IGNORECASE)
# The tags YAML gives plain values by itself; any other (explicit) tag is refused.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp", "seq",
                                                   "map", "value", "merge")}


def find_map_folders(decisions: Path) -> list[Path]:
    """The map folders under ``decisions`` (or ``decisions`` itself when it holds a map.yaml)."""
    if (decisions / "map.yaml").is_file():
        return [decisions]
    if not decisions.is_dir():
        raise InputError([Problem(decisions, 0, "no such folder; pass --decisions DIR with one "
                                                "folder per map, each holding a map.yaml")])
    folders = sorted(p for p in decisions.iterdir() if (p / "map.yaml").is_file())
    if not folders:
        raise InputError([Problem(decisions, 0, "holds no map: expected a folder with a map.yaml "
                                                "(for example decisions/pi/map.yaml)")])
    return folders


def load_maps(decisions: Path, only: list[Path] | None = None, editions: bool = True,
              skip: frozenset[Path] = frozenset()) -> list[DecisionMap]:
    """Load every map under ``decisions``; with ``only`` (not empty), keep just the entries in those files.
    ``editions=False`` leaves out the edition records (written by `bump`; only pages read them). ``skip``
    (resolved paths) leaves out those entry and overlay files, whose IDs still count as taken."""
    problems: list[Problem] = []
    maps = []
    if decisions.is_dir():
        for path in finish_interrupted_writes(decisions):
            print(f"note: finished an interrupted write: {path}", file=sys.stderr)
    for folder in find_map_folders(decisions):
        loaded = _load_map(folder, problems, only, editions, skip)
        if loaded:
            maps.append(loaded)
    if problems:
        raise InputError(problems)
    return maps


def load_finished_maps(decisions: Path, editions: bool = True,
                       needed: Callable[[Path], bool] = lambda path: False) -> list[DecisionMap]:
    """Every map, leaving out the entries and overlays still being written: files whose every problem
    is a placeholder that `new` left for a person. A command that does not use such a file need not
    wait for it to be written; one that does (``needed(path)`` is true) gets its problems as
    ``load_maps`` gives them, and so does any other problem."""
    try:
        return load_maps(decisions, editions=editions)
    except InputError as err:
        unfinished = unfinished_files(err.problems)
        if not unfinished or any(needed(path) for path in unfinished):
            raise
        for path in sorted(unfinished):
            print(f"note: {display_path(path)} still holds placeholders; left out until it is written",
                  file=sys.stderr)
        return load_maps(decisions, editions=editions, skip=unfinished)


def unfinished_files(problems: list[Problem]) -> frozenset[Path]:
    """The entry and overlay files that are only unfinished; empty when any problem is of another kind
    (a broken file, or a placeholder in map.yaml or the lever table, which no command can do without)."""
    if any(not p.placeholder or p.path.name in ("map.yaml", LEVERS_FILE) for p in problems):
        return frozenset()
    return frozenset(p.path.resolve() for p in problems)


def load_lever_table(decisions: Path, map_name: str | None = None) -> tuple[LeverRow, ...]:
    """The lever table of one map (the first without ``map_name``), read on its own: reading an
    extension's levers needs no more of the map, so an entry or overlay still being written does not
    stand in its way. Its decision IDs are checked against the entry files' names (an entry's ID)."""
    folders = find_map_folders(decisions)
    folder = next((f for f in folders if f.name == map_name), None) if map_name else folders[0]
    if folder is None:
        raise UsageError(f"no map named {map_name!r} under {decisions}")
    problems: list[Problem] = []
    levers = _load_levers(folder / LEVERS_FILE, problems)
    ids = {p.stem for p in folder.glob("*.yaml") if p.name not in ("map.yaml", LEVERS_FILE)}
    _check_lever_links(folder / LEVERS_FILE, levers, ids, problems)
    if problems:
        raise InputError(problems)
    if not levers:
        raise UsageError(f"{folder / LEVERS_FILE}: no lever table; it says which decisions each lever can change "
                         "(see decisions/FORMAT.md)")
    return levers


def with_extensions(maps: list[DecisionMap], only: list[Path] | None = None) -> list[DecisionMap]:
    """``maps`` and, after each, its extensions pinned on npm, each as a map of its own package (see
    :func:`generator.map.model.extension_map`), so their citations are verified, fixed and recorded as the
    map's are. With ``only``, an extension comes only when its overlay file is one of them."""
    wanted = {p.resolve() for p in only} if only else None
    out = []
    for decision_map in maps:
        out.append(decision_map)
        out += [pinned_extension_map(o) for o in decision_map.overlays
                if o.pinned and (wanted is None or o.path.resolve() in wanted)]
    return out


def pinned_extension_map(overlay: Overlay) -> DecisionMap:
    return extension_map(overlay.package, overlay.version, integrity=overlay.integrity,
                         checked_at=overlay.checked_at, overlay=overlay)


def _load_map(folder: Path, problems: list[Problem], only: list[Path] | None,
              with_editions: bool, skip: frozenset[Path] = frozenset()) -> DecisionMap | None:
    map_path = folder / "map.yaml"
    head = _validated(map_path, schema.MAP, problems)
    entries: list[Entry] = []
    wanted = {p.resolve() for p in only} if only else None
    skipped: set[str] = set()  # IDs of entries unfinished (left out, or holding placeholders): links to them hold
    for path in sorted(folder.glob("*.yaml")):
        if path.name in ("map.yaml", LEVERS_FILE):
            continue
        if wanted is not None and path.resolve() not in wanted:
            continue
        if path.resolve() in skip:
            skipped.add(path.stem)
            continue
        # an entry's ID is its file's name (_load_entry refuses any other), so no two share one
        found = len(problems)
        entry = _load_entry(path, problems)
        if entry is not None:
            entries.append(entry)
        elif all(p.placeholder for p in problems[found:]):
            # unfinished, not broken: links to it hold, or they would stop load_finished_maps leaving it out
            skipped.add(path.stem)
    # (a folder that is not there globs to nothing)
    overlays = [o for p in sorted((folder / "extensions").glob("*.yaml"))
                if p.resolve() not in skip and (o := _load_overlay(p, problems))]
    _check_extension_probe_scripts(folder / "extensions", overlays, problems)
    editions = [e for p in sorted((folder / "editions").glob("*.yaml"))
                if (e := _load_edition(p, problems))] if with_editions else []
    if with_editions:  # an extension pinned on npm keeps its own, next to its overlay
        overlays = [replace(o, editions=_sorted_editions(
                        [e for p in sorted((folder / "extensions" / o.extension / "editions").glob("*.yaml"))
                         if (e := _load_edition(p, problems))])) if o.pinned else o for o in overlays]
    levers = _load_levers(folder / LEVERS_FILE, problems)
    if head is None:
        return None
    values, lines = head
    ids = {e.id for e in entries} | skipped if wanted is None else None
    if ids is not None:
        _check_probe_scripts(folder, entries, problems)
        _check_links(map_path, values, lines, ids, {e.id for e in entries if e.kind == "problem"}, overlays, problems)
        _check_lever_links(folder / LEVERS_FILE, levers, ids, problems)
    source = values["source"]
    return DecisionMap(
        name=folder.name, folder=folder, title=values["title"], repo=values["repo"],
        version=values["version"],
        source=Source(npm=tuple(NpmPackage(p["package"], p["path"].strip("/")) for p in source.get("npm", [])),
                      git=GitPin(source["git"]["url"], source["git"]["ref"], source["git"].get("commit"))
                      if "git" in source else None),
        summary=values.get("summary"),
        groups=tuple(Group(g["id"], g["title"], g.get("about")) for g in values.get("groups", [])),
        sections=tuple(Section(s["title"], tuple(s["ids"])) for s in values.get("sections", [])),
        checked=values.get("checked"), checked_at=values.get("checked_at"),
        shared_levers=values.get("shared_levers"),
        entries=tuple(sorted(entries, key=entry_order)), overlays=tuple(overlays), path=map_path, levers=levers,
        editions=_sorted_editions(editions))


def _sorted_editions(editions: list[Edition]) -> tuple[Edition, ...]:
    return tuple(sorted(editions, key=lambda e: (e.date, _version_key(e.to_version))))


def entry_order(entry: Entry) -> tuple[str, int]:
    """Entries are ordered by ID: group letter, then number (D2 before D10)."""
    return entry.group, entry.number


def _check_links(map_path: Path, values: dict, lines: dict, ids: set[str], problem_ids: set[str],
                 overlays: list[Overlay], problems: list[Problem]) -> None:
    for index, section in enumerate(values.get("sections", [])):
        for entry_id in section["ids"]:
            if entry_id not in ids:
                problems.append(Problem(map_path, lines[("sections", index)],
                                        f"section '{section['title']}' lists {entry_id}, which no entry has"))
            elif entry_id in problem_ids:  # a section's cards are decisions: each shows its answer
                problems.append(Problem(map_path, lines[("sections", index)],
                                        f"section '{section['title']}' lists {entry_id}, a problem; sections list "
                                        f"decisions (problems have their own page): remove it"))
    shared = values.get("shared_levers")
    if shared is not None and shared not in ids:
        problems.append(Problem(map_path, lines[("shared_levers",)],
                                f"shared_levers names {shared}, which no entry has; name an existing decision"))
    for overlay in overlays:
        for change in overlay.changes:
            for entry_id in change.linked:
                if entry_id not in ids:
                    problems.append(Problem(overlay.path, change.line,
                                            f"links to decision {entry_id}, which does not exist in "
                                            f"{map_path.parent.name}/; use an existing ID"))
        for lever in overlay.levers:
            for entry_id in lever.decisions:
                if entry_id not in ids:
                    problems.append(Problem(overlay.path, lever.line,
                                            f"lever {lever.lever} names decision {entry_id}, which does not exist "
                                            f"in {map_path.parent.name}/; use an existing ID"))


def _load_levers(path: Path, problems: list[Problem]) -> tuple[LeverRow, ...]:
    """The lever table (optional: a map without one has no `levers` command)."""
    if not path.is_file():
        return ()
    loaded = _validated(path, schema.LEVERS, problems)
    if loaded is None:
        return ()
    values, lines = loaded
    rows, seen = [], {}
    for index, row in enumerate(values["levers"]):
        line = lines[("levers", index)]
        if row["lever"] in seen:
            problems.append(Problem(path, line, f"lever {row['lever']} is listed twice (first at line "
                                    f"{seen[row['lever']]}); keep one row"))
            continue
        seen[row["lever"]] = line
        rows.append(LeverRow(row["lever"], row["kind"], tuple(row["decisions"]), line))
    return tuple(rows)


def _check_lever_links(path: Path, levers: tuple[LeverRow, ...], ids: set[str], problems: list[Problem]) -> None:
    for row in levers:
        for entry_id in row.decisions:
            if entry_id not in ids:
                problems.append(Problem(path, row.line, f"lever {row.lever} names decision {entry_id}, which "
                                        f"does not exist in {path.parent.name}/; use an existing ID"))


def _load_entry(path: Path, problems: list[Problem]) -> Entry | None:
    loaded = _validated(path, schema.ENTRY, problems, keep_nodes=True)
    if loaded is None:
        return None
    values, lines = loaded
    if path.stem != values["id"]:
        taken = path.with_name(f"{values['id']}.yaml")
        message = (f"duplicate ID {values['id']}: {taken.name} has it too; give this entry a free ID and "
                   "name its file after it") if taken.is_file() else (
            f"the entry's id is {values['id']} but its file is named {path.name}; name the file {values['id']}.yaml")
        problems.append(Problem(path, lines[("id",)], message))
        return None
    main_cites = _citations(path, values["cites"], lines, ("cites",))
    exceptions = _items(path, values.get("exceptions"), lines, "exceptions")
    changed_by = _items(path, values.get("changed_by"), lines, "changed_by")
    overrides = tuple(Override(o["by"], o["when"], tuple(_citations(path, o["cites"], lines, ("overrides", i, "cites"))),
                               o.get("can"))
                      for i, o in enumerate(values.get("overrides") or ()))
    # every citation of the entry in file order: verify, fix, record and bump walk this one
    cites = sorted(main_cites + [c for item in exceptions + changed_by + overrides for c in item.cites],
                   key=lambda c: c.mapping_span.start)
    up = values.get("upstream")
    rev = values.get("reviewed")
    return Entry(
        id=values["id"], kind=values["kind"], question=values.get("question"),
        decided_by=values.get("decided_by"), answer=values.get("answer"), title=values.get("title"),
        description=values.get("description"), changed_by=changed_by, exceptions=exceptions,
        checks=values.get("checks"),
        failures=tuple(Failure(f["issue"], f["title"], f.get("status"), f.get("checked"))
                       for f in values.get("failures", [])),
        upstream=Upstream(up["issue"], up["status"], up["checked"], up.get("fixed_in")) if up else None,
        cites=tuple(cites), reviewed=Review(rev["version"], rev["date"], rev.get("by"), rev.get("checked"))
        if rev else None,
        path=path, line=1, overrides=overrides, probe=_probe(path, values, problems), main_cites=tuple(main_cites))


def _probe(path: Path, values: dict, problems: list[Problem]) -> Probe | None:
    raw = values.get("probe")
    if not raw:
        return None
    probe = Probe(raw["shows"], tuple(raw["expect"]), path, values["__lines__"]["probe"])  # the key's line
    if not probe.script.is_file():
        problems.append(Problem(path, probe.line, f"the probe's script {path.parent.name}/probes/{path.stem}.mjs "
                                "does not exist; write it (see CONTRIBUTING.md), or remove `probe:`"))
    return probe


def _check_probe_scripts(folder: Path, entries: list[Entry], problems: list[Problem]) -> None:
    """Every script in probes/ belongs to an entry that has `probe:` (a stray one would never run)."""
    loaded = {e.id: e for e in entries}
    for script in sorted((folder / "probes").iterdir()) if (folder / "probes").is_dir() else []:
        if script.name.startswith(".") or script.is_dir():
            continue
        entry = folder / f"{script.stem}.yaml"
        if is_shared_module(script):
            _check_shared_module(script, problems)
        elif script.suffix != ".mjs":
            problems.append(Problem(script, 0, "a probe script must be an ES module named after its entry "
                                    "(<ID>.mjs); rename or remove this file"))
        elif not entry.is_file():
            problems.append(Problem(script, 0, f"no entry has the ID {script.stem}; name the script after its "
                                    "entry, or remove it"))
        elif script.stem in loaded and loaded[script.stem].probe is None:
            problems.append(Problem(script, 0, f"no entry runs this probe: add `probe:` (shows, expect) to "
                                    f"{folder.name}/{entry.name}"))
        # an entry that did not load has its own problems reported; its script waits for it


def _check_extension_probe_scripts(folder: Path, overlays: list[Overlay], problems: list[Problem]) -> None:
    """Every script in extensions/probes/ belongs to an overlay that has `probe:` (a stray one would never run)."""
    probed = {o.extension for o in overlays if o.probe is not None}
    for script in sorted((folder / "probes").iterdir()) if (folder / "probes").is_dir() else []:
        if script.name.startswith(".") or script.is_dir():
            continue
        if is_shared_module(script):
            _check_shared_module(script, problems)
        elif script.suffix != ".mjs" or script.stem not in probed:
            if (folder / f"{script.stem}.yaml").is_file() and script.suffix == ".mjs" and \
                    script.stem not in {o.extension for o in overlays}:
                continue  # its overlay did not load: its own problems are reported
            problems.append(Problem(script, 0, f"no overlay runs this probe: add `probe:` (shows, expect) to "
                                    f"extensions/{script.stem}.yaml, or name the script after an extension"))


def _check_shared_module(module: Path, problems: list[Problem]) -> None:
    """A shared module (``_<name>.mjs``) is imported by a probe of its folder: one nobody imports would
    never run, like a stray probe."""
    probes = [s for s in module.parent.iterdir() if s.suffix == ".mjs" and s.is_file() and not is_shared_module(s)]
    if not any(module in shared_modules(probe) for probe in probes):
        problems.append(Problem(module, 0, f"no probe imports this shared module: import it from a probe "
                                f"(`from \"./{module.name}\"`), or remove it"))


def _overrides(values: dict) -> tuple[Override, ...]:
    """An overlay side's overrides: uncited (the seed extensions have no source to cite)."""
    return tuple(Override(o["by"], o["when"], can=o.get("can")) for o in values.get("overrides") or ())


def _citations(path: Path, raws: list[dict], lines: dict, where: tuple) -> list[Citation]:
    return [_citation(path, raw, lines[where + (index,)]) for index, raw in enumerate(raws)]


def _items(path: Path, raws: list[dict] | None, lines: dict, key: str) -> tuple[Item, ...]:
    return tuple(Item(raw["text"], tuple(_citations(path, raw.get("cites", []), lines, (key, i, "cites"))), path,
                      lines[(key, i)])
                 for i, raw in enumerate(raws or ()))


def _citation(path: Path, raw: dict, line: int) -> Citation:
    node = raw["__node__"]
    start, end = raw["lines"]
    pure = PurePosixPath(raw["file"])
    values = {k.value: v for k, v in node.value}
    block = not node.flow_style
    record = raw.get("record")

    def span(key: str) -> Span | None:
        return Span(values[key].start_mark.index, values[key].end_mark.index) if key in values else None

    return Citation(file=str(pure), start=start, end=end, version=raw.get("version"),
                    note=raw.get("note"), path=path, line=line,
                    lines_span=span("lines"),
                    mapping_span=Span(node.start_mark.index, node.end_mark.index),
                    mapping_indent=node.start_mark.column if block else None,
                    record=CitationRecord(record["symbol"], record["length"], record["digest"]) if record else None,
                    file_span=span("file"), record_span=span("record"),
                    lines_line=values["lines"].start_mark.line + 1)


def _load_edition(path: Path, problems: list[Problem]) -> Edition | None:
    loaded = _validated(path, schema.EDITION, problems)
    if loaded is None:
        return None
    values, lines = loaded
    return Edition(values["from"], values["to"], values["date"], tuple(
        EditionCitation(c["id"], c["file"], c["old"], c.get("new"), c["checked_at"], c["status"], c["claim"],
                        lines[("citations", i)], c.get("new_file"))
        for i, c in enumerate(values["citations"])), path,
        tuple(EditionProbe(p["id"], p["before"], p["after"]) for p in values.get("probes", [])),
        tuple((str(k), str(v)) for k, v in values.get("settled") or ()),
        tuple((str(k), str(v)) for k, v in values.get("before") or ()))


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.+-]", version))


def _load_overlay(path: Path, problems: list[Problem]) -> Overlay | None:
    loaded = _validated(path, schema.OVERLAY, problems, keep_nodes=True)
    if loaded is None:
        return None
    values, lines = loaded
    if path.stem != values["extension"]:
        problems.append(Problem(path, lines[("extension",)], f"the extension is named "
                                f"{values['extension']} but its file is {path.name}; name them alike"))
        return None
    changes = tuple(
        OverlayChange(decision=c.get("decision"), question=c.get("question"),
                      related=tuple(c.get("related", [])), how=c["how"],
                      without=Side(c["without"]["decided_by"], c["without"]["answer"], _overrides(c["without"])),
                      with_=Side(c["with"]["decided_by"], c["with"]["answer"], _overrides(c["with"])),
                      line=lines[("changes", i)], overridden=tuple(c.get("overridden", [])))
        for i, c in enumerate(values["changes"]))
    rev = values.get("reviewed")

    def cites(raw: dict, where: tuple) -> tuple[Citation, ...]:
        return tuple(_citations(path, raw.get("cites", []), lines, where + ("cites",)))

    overlay = Overlay(
        extension=values["extension"], package=values.get("package"), version=values.get("version"),
        summary=values.get("summary"), tagline=values.get("tagline"), changes=changes, path=path, line=1,
        source=values.get("source"),
        reviewed=Review(rev["version"], rev["date"], rev.get("by"), rev.get("checked")) if rev else None,
        integrity=values.get("integrity"), checked_at=values.get("checked_at"),
        levers=tuple(OverlayLever(raw["lever"], raw["kind"], tuple(raw["decisions"]), raw["text"],
                                  cites(raw, ("levers", i)), lines[("levers", i)])
                     for i, raw in enumerate(values.get("levers", []))),
        runs=_items(path, values.get("runs"), lines, "runs"),
        connects=_items(path, values.get("connects"), lines, "connects"),
        unchanged=_items(path, values.get("unchanged"), lines, "unchanged"),
        probe=_probe(path, values, problems))
    return overlay if _pinned_overlay_ok(overlay, values, lines, problems) else None


def _pinned_overlay_ok(overlay: Overlay, values: dict, lines: dict, problems: list[Problem]) -> bool:
    """An overlay with citations must be pinned on npm (package, exact version, integrity), and one
    pinned must cite its levers: the citations have no tree to point into otherwise."""
    found = []
    if overlay.pinned:
        for key in ("package", "version"):
            if key not in values:
                found.append(Problem(overlay.path, lines[("integrity",)], f"`integrity` pins the extension on npm; "
                                     f"give its `{key}` too"))
        if "version" in values and not re.fullmatch(schema.VERSION_PATTERN, overlay.version):
            found.append(Problem(overlay.path, lines[("version",)], f"version {overlay.version!r} is not an exact "
                                 "release; a pinned extension names the version its integrity is of"))
        if not overlay.levers:
            found.append(Problem(overlay.path, 1, "a pinned extension lists its levers, each cited; start from "
                                 f"`python -m generator new --extension {overlay.package}@{overlay.version}`"))
    else:
        if overlay.probe is not None:
            found.append(Problem(overlay.path, overlay.probe.line, "a probe loads the extension from npm, which "
                                 "needs the package pinned: add `integrity`"))
        for key in ("levers", "runs", "connects", "unchanged", "checked_at"):
            if key in values and (key == "checked_at" or any(item.cites for item in getattr(overlay, key))):
                found.append(Problem(overlay.path, lines[(key,)], f"`{key}` cites the extension's code, which "
                                     "needs the package pinned: add `integrity` (npm view PACKAGE@VERSION "
                                     "dist.integrity)"))
                break
    problems.extend(found)
    return not found


# --- YAML to checked values ------------------------------------------------------------------


def _validated(path: Path, spec: schema.Record, problems: list[Problem],
               keep_nodes: bool = False) -> tuple[dict, dict] | None:
    """Parse and check one file; returns (values, {key path: 1-based line}) or None on error. Every
    key path the checker visited has its line, so a caller may index that table directly."""
    node = _parse(path, problems)
    if node is None:
        return None
    checker = _Checker(path, keep_nodes)
    values = checker.check(node, spec, ())
    problems.extend(checker.problems)
    if checker.problems:  # a failed check gave None in place of its value: nothing half-checked goes on
        return None
    return values, checker.lines


def _parse(path: Path, problems: list[Problem]) -> yaml.Node | None:
    try:
        data = path.read_bytes()
    except OSError as err:
        problems.append(Problem(path, 0, f"cannot read: {err.strerror}"))
        return None
    if len(data) > MAX_FILE_BYTES:
        # Named at the line where the limit is passed: that is where the huge value sits.
        problems.append(Problem(path, data[:MAX_FILE_BYTES].count(b"\n") + 1, f"file is {len(data):,} bytes; "
                                f"an entry holds {MAX_FILE_BYTES:,} bytes at most; shorten this line's value"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        problems.append(Problem(path, line, "is not UTF-8 text; save the file as UTF-8"))
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        problems.append(Problem(path, 0, "file is empty; write the entry's fields, or delete the file"))
        return None
    depth = _bracket_depth(text)
    if depth > MAX_DEPTH:
        problems.append(Problem(path, depth_line(text), f"nested {depth} levels deep; entries never nest "
                                f"deeper than {MAX_DEPTH}"))
        return None
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        if "&" in text or "*" in text:  # refuse anchors from the events, before any graph (alias bombs)
            shared = next((e for e in yaml.parse(text, Loader=loader)
                           if isinstance(e, yaml.AliasEvent) or getattr(e, "anchor", None)), None)
            if shared is not None:
                problems.append(Problem(path, shared.start_mark.line + 1, "YAML anchors and aliases (&, *) are "
                                        "not allowed; write the value out"))
                return None
        nodes = list(yaml.compose_all(text, Loader=loader))
    except RecursionError:  # the pure-Python composer recurses; libyaml has its own limit
        prefixes = [len(re.match(r"[\s?:-]*", ln).group()) for ln in text.splitlines()]
        problems.append(Problem(path, prefixes.index(max(prefixes)) + 1, "nested too deeply; entries never nest "
                                f"deeper than {MAX_DEPTH} levels"))
        return None
    except yaml.reader.ReaderError as err:  # a raw control character: the reader gives no line
        line = text[: text.find(chr(err.character))].count("\n") + 1  # the reader read it from text
        problems.append(Problem(path, line, f"holds the control character U+{err.character:04X}; remove it"))
        return None
    except yaml.MarkedYAMLError as err:  # a scanner or parser error: both always carry a problem and its mark
        problems.append(Problem(path, *_syntax_error(err, text)))
        return None
    if len(nodes) != 1:
        problems.append(Problem(path, 0, f"holds {len(nodes)} YAML documents; keep exactly one"))
        return None
    return nodes[0]


_INDENTATION = ("expected '-' indicator", "expected <block end>", "did not find expected key")


def _syntax_error(err: yaml.MarkedYAMLError, text: str) -> tuple[int, str]:
    """The line of a YAML syntax error and its wording, with a hint at the usual cause."""
    mark, what = err.problem_mark, err.problem
    if mark.index >= len(text) and err.context_mark is not None:
        # The end of the file: what was left open (a quote, a bracket) starts at the context mark.
        mark = err.context_mark
        what += f" ({err.context} that starts on this line; close it)"
    if "nesting depth" in what:
        what += f"; entries never nest deeper than {MAX_DEPTH} levels"
    indentation = text[: mark.index + 1].rpartition("\n")[2]  # the mark's line, up to the mark
    if "\t" in indentation and not indentation.strip():
        what += " (YAML does not allow tabs for indentation; indent with spaces)"
    elif "mapping values are not allowed" in what:
        what += " (a value holding ': ' must be quoted, or written as a block after `>-`)"
    elif any(message in what for message in _INDENTATION):
        what += " (check the indentation: list items and keys of one mapping line up)"
    return mark.line + 1, f"YAML syntax error: {what}"


_BRACKETS = re.compile(r"[\[\]{}]")


def _bracket_depth(text: str) -> int:
    """Deepest nesting of flow brackets or indentation, checked before the parser sees the text."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(text):  # only the brackets: most of a file is none
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - 1)
    indents = {len(ln) - len(ln.lstrip(" ")) for ln in text.splitlines() if ln.strip()}
    return max(deepest, len(indents))


def depth_line(text: str) -> int:
    """The line where the nesting passes MAX_DEPTH: by brackets, or by the indentations seen so far."""
    depth = 0
    indents: set[int] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            indents.add(len(line) - len(line.lstrip(" ")))
            if len(indents) > MAX_DEPTH:
                return number
        for char in line:
            depth += char in "[{"
            depth -= char in "]}" and depth > 0
            if depth > MAX_DEPTH:
                return number
    return 1


class _Checker:
    """Walks a composed YAML node against a spec, collecting problems with their lines. A failed
    check records its problem and gives None in place of the value; `_validated` then drops the
    values of the whole file, so a half-checked value never reaches the model."""

    def __init__(self, path: Path, keep_nodes: bool):
        self.path = path
        self.keep_nodes = keep_nodes
        self.problems: list[Problem] = []
        self.lines: dict[tuple, int] = {}

    def fail(self, node: yaml.Node, message: str, placeholder: bool = False) -> None:
        self.problems.append(Problem(self.path, node.start_mark.line + 1, message, placeholder))

    def check(self, node: yaml.Node, spec: schema.Spec, where: tuple) -> Any:
        # no node is shared: _parse refused every anchor and alias before the graph was composed
        self.lines[where] = node.start_mark.line + 1
        name = ".".join(str(w) for w in where) or "the file"
        if node.tag not in _PLAIN_TAGS:  # !!python/object, !!binary, !custom: never plain data
            self.fail(node, f"{name} has the YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')}; tags are "
                      "not allowed, write a plain value")
            return None
        if isinstance(spec, schema.Record):
            return self._record(node, spec, where, name)
        if isinstance(spec, schema.ListOf):
            if not isinstance(node, yaml.SequenceNode):
                self.fail(node, f"{name} must be a list" + (f"; {spec.not_a_list}" if spec.not_a_list else ""))
                return None
            if len(node.value) < spec.min_items:
                self.fail(node, f"{name} must list at least {spec.min_items} item(s)")
                return None
            return [self.check(item, spec.item, where + (i,)) for i, item in enumerate(node.value)]
        if isinstance(spec, schema.FlatMapping):
            return self._flat_mapping(node, spec, name)
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, f"{name} must be a single value, not a {'list' if isinstance(node, yaml.SequenceNode) else 'mapping'}")
            return None
        return self._scalar(node, spec, name)

    def _record(self, node: yaml.Node, spec: schema.Record, where: tuple, name: str) -> dict | None:
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{name} must be a mapping of keys to values")
            return None
        out: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):  # `? [a, b]` or `? {a: b}`
                self.fail(key_node, f"{name} has a key that is not a plain name")
                continue
            key = key_node.value
            if key in key_lines:
                self.fail(key_node, f"duplicate key '{key}' (first at line {key_lines[key]}); keep one")
                continue
            key_lines[key] = key_node.start_mark.line + 1
            if key not in spec.fields:
                hint = _closest(key, spec.fields)
                self.fail(key_node, f"unknown key '{key}'" + (f" in {name}" if where else "") +
                          (f"; did you mean '{hint}'?" if hint else f"; allowed: {', '.join(spec.fields)}"))
                continue
            out[key] = self.check(value_node, spec.fields[key], where + (key,))
        for key, default in spec.defaults.items():
            out.setdefault(key, default)
        needed = list(spec.required)
        for (key, value), keys in spec.required_when.items():
            if out.get(key) == value:
                needed += keys
        missing = [k for k in needed if k not in key_lines]
        if missing:
            self.fail(node, f"{name} is missing required key{'s' if len(missing) > 1 else ''}: "
                      f"{', '.join(missing)}")
        for keys in spec.one_of:
            present = [k for k in keys if k in key_lines]
            if len(present) != 1:
                self.fail(node, f"{name} must have exactly one of: {', '.join(keys)}")
        if spec is schema.CITATION and isinstance(out.get("file"), str) and _leaves_tree(out["file"]):
            self.problems.append(Problem(self.path, key_lines["file"], f"cited path '{out['file']}' leaves the "
                                         "source tree; give a path relative to the repository root, without '..'"))
        if self.keep_nodes:
            out["__node__"] = node
            out["__lines__"] = key_lines
        return out

    def _flat_mapping(self, node: yaml.Node, spec: schema.FlatMapping, name: str) -> list | None:
        """(key, value) pairs in the order written; values are JSON scalars (no dates, no nesting)."""
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{name} must be a mapping of names to values, e.g. {{ran: true}}")
            return None
        if not spec.min_items <= len(node.value) <= spec.max_items:
            self.fail(node, f"{name} must hold {spec.min_items} to {spec.max_items} names, not {len(node.value)}")
            return None
        pairs: list[tuple[str, Any]] = []
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str) or not re.match(spec.key_pattern, key):
                self.fail(key_node, f"{name} has the key {key!r}; keys are names such as `ran` or `exit_code`")
                return None
            if key in dict(pairs):
                self.fail(key_node, f"duplicate key '{key}' in {name}; keep one")
                return None
            value = _construct(value_node) if isinstance(value_node, yaml.ScalarNode) else value_node
            if value_node.tag not in _PLAIN_TAGS or not (value is None or isinstance(value, (str, bool, int, float))):
                self.fail(value_node, f"{name}.{key} must be text, a number, true, false or null (a JSON scalar)")
                return None
            if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
                self.fail(value_node, f"{name}.{key} is not a number JSON can hold; write a finite number")
                return None
            if isinstance(value, str) and (len(value) > schema.MAX_TEXT or _FORBIDDEN_CHARS.search(value)):
                self.fail(value_node, f"{name}.{key} is too long or holds a control character; write plain text")
                return None
            pairs.append((key, value))
        return pairs

    def _scalar(self, node: yaml.ScalarNode, spec: schema.Spec, name: str) -> Any:
        value = _construct(node)
        if isinstance(spec, schema.Integer):
            if isinstance(value, bool) or not isinstance(value, int) or value < spec.minimum \
                    or not re.fullmatch(r"[0-9]+", node.value.strip()):  # 0x10 or 12:30 are no issue numbers
                self.fail(node, f"{name} must be a whole number of at least {spec.minimum}, not {node.value!r}")
                return None
            return value
        if isinstance(spec, schema.LineRange):
            return self._line_range(node, name)
        if value is None:  # `key:` or `key: null`; a quoted "" is text
            self.fail(node, f"{name} is empty; give it a value or remove the key")
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float, date)):
            self.fail(node, f"{name} must be text, not {node.value!r}")
            return None
        text = node.value
        if text.strip().startswith(PLACEHOLDER):
            self.fail(node, f"{name} is still the placeholder {text.strip()[:40]!r}; write it (see decisions/FORMAT.md)",
                      placeholder=True)
            return None
        if isinstance(spec, schema.Choice):
            if text not in spec.options:
                self.fail(node, f"{name} must be one of {', '.join(spec.options)}, not {text!r}")
                return None
            return text
        assert isinstance(spec, schema.Text)
        if not text.strip():
            self.fail(node, f"{name} is empty; write it, or remove the key")
            return None
        if len(text) > spec.max_length:
            self.fail(node, f"{name} is {len(text):,} characters; shorten it to {spec.max_length:,} at most")
            return None
        if spec.max_words is not None and len(text.split()) > spec.max_words:
            self.fail(node, f"{name} is {len(text.split())} words, over the limit of {spec.max_words}; "
                      f"{spec.words_hint}")
            return None
        bad = _FORBIDDEN_CHARS.search(text)
        if bad:
            self.fail(node, f"{name} holds the invisible control character U+{ord(bad.group()):04X}; remove it")
            return None
        if spec.pattern and not re.match(spec.pattern, text):
            self.fail(node, f"{name} {text!r} does not have the expected form ({_describe(spec.pattern)})")
            return None
        if spec.prose:
            for match in list(_LINK.finditer(text)) + list(_AUTOLINK.finditer(text)):
                if not schema.is_safe_link(match.group(1)):
                    self.fail(node, f"{name} links to {match.group(1)[:40]!r}; links may only go to http(s)")
                    return None
            bare = _SCHEME.search(_CODE_SPAN.sub("", text))  # `file://` in code is text, not a link
            if bare:
                self.fail(node, f"{name} holds a {bare.group(1)}: address outside backticks; links may only "
                          "go to http(s)")
                return None
        return text

    def _line_range(self, node: yaml.ScalarNode, name: str) -> tuple[int, int] | None:
        # As written, not as YAML 1.1 reads it: 010 is line 10 (not octal 8), 6:8 is not 368, 0x6 is wrong.
        text = node.value.strip()
        match = re.fullmatch(r"(-?[0-9]+)(?:\s*-\s*(-?[0-9]+))?", text)
        if not match:
            self.fail(node, f"{name} must be a line (42) or a range (658-681), not {node.value!r}")
            return None
        start = int(match.group(1))
        end = int(match.group(2)) if match.group(2) else start
        if start < 1 or end < 1:
            self.fail(node, f"{name} {node.value!r}: lines count from 1")
            return None
        if end < start:
            self.fail(node, f"{name} {node.value!r} is reversed; write {end}-{start}")
            return None
        return start, end


def _leaves_tree(file: str) -> bool:
    """True for a cited path that is absolute or climbs out with '..' (symbolic links are checked
    against the fetched tree, which alone knows them)."""
    return (file.startswith("/") or re.match(r"^[A-Za-z]:", file) is not None
            or ".." in PurePosixPath(file).parts or "\\" in file)


def _construct(node: yaml.ScalarNode) -> Any:
    """The Python value of a scalar as YAML reads it (42 is a number, yes is a bool)."""
    construct = _CONSTRUCTOR.yaml_constructors.get(node.tag)
    try:
        # the tag's own function: construct_object() would also keep every node it ever saw
        return construct(_CONSTRUCTOR, node) if construct else node.value
    except (yaml.YAMLError, ValueError):
        return node.value


# One constructor for every scalar (making a loader per value cost more than the rest of loading).
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _closest(key: str, options: dict) -> str | None:
    import difflib

    found = difflib.get_close_matches(key, list(options), n=1, cutoff=0.7)
    return found[0] if found else None


def _describe(pattern: str) -> str:
    known = {schema.ID_PATTERN: "a capital letter and a number, e.g. D1",
             schema.DATE_PATTERN: "YYYY-MM-DD",
             schema.VERSION_PATTERN: "a version such as 1.4.0",
             schema.CAN_PATTERN: "the words that follow 'can', without a full stop, e.g. stop the run"}
    return known.get(pattern, f"pattern {pattern}")
