"""Verify: resolve every citation of a map from the version it was checked at to a target.

Parsing is shared: each file is parsed once per version however many citations it holds, and at
the pin (where a citation is ok by definition) only to name its symbol, which is remembered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from ..errors import InputError, Problem
from . import resolve as resolve_module
from ..source.fetch import CorruptTree, SourceTree, cache_root, fetch_tree, refetch, renamed_files
from ..map.model import Citation, CitationRecord, DecisionMap, Entry
from .resolve import (Placement, SourceFile, anchor_for, declared_elsewhere, describe, has_grammar, place,
                      place_elsewhere, text_digest, to_line)

STATUSES = ("ok", "moved", "changed", "missing", "ambiguous")
BLANK_DIGEST = text_digest("")  # the digest of lines with nothing but whitespace
T = TypeVar("T")


@dataclass(frozen=True)
class Resolution:
    """One citation's verdict. Ranges are 1-based and inclusive."""

    map: str
    entry: Entry
    citation: Citation
    status: str
    recorded: tuple[int, int]
    resolved: tuple[int, int] | None
    symbol: str
    checked_at: str  # the version the citation was checked at
    target: str
    resolved_file: str  # the path at the target; the cited file unless the code moved to another
    detail: str = ""  # why, in a few words, when the status alone does not say

    @property
    def moved_file(self) -> bool:
        return self.resolved_file != self.citation.file

    def as_json(self) -> dict:
        return {"map": self.map, "id": self.entry.id, "file": self.citation.file,
                "recorded": list(self.recorded), "resolved": list(self.resolved) if self.resolved else None,
                "status": self.status, "symbol": self.symbol, "resolved_file": self.resolved_file,
                "detail": self.detail}


class Trees:
    """Source trees and parsed files, fetched and parsed at most once per version."""

    def __init__(self, decision_map: DecisionMap, quiet: bool,
                 fetch: Callable[[DecisionMap, str], SourceTree] | None = None):
        self.map = decision_map
        self.quiet = quiet
        self._fetch = fetch or (lambda m, v: fetch_tree(m, v, quiet=quiet))
        self._trees: dict[str, SourceTree] = {}
        self._files: dict[tuple[str, str], SourceFile | None] = {}
        self._counts: dict[tuple[str, str], int] = {}
        self._renames: dict[tuple[str, str], dict[str, str]] = {}

    def tree(self, version: str) -> SourceTree:
        if version not in self._trees:
            self._trees[version] = self._fetch(self.map, version)
        return self._trees[version]

    def file(self, version: str, path: str) -> SourceFile | None:
        key = (version, path)
        if key not in self._files:
            if not self.tree(version).has_file(path):
                self._files[key] = None
            else:
                self._files[key] = SourceFile(path, self._repaired(version, lambda tree: tree.read(path)))
        return self._files[key]

    def line_count(self, version: str, path: str) -> int:
        """How many lines a file has at ``version``, without parsing it."""
        key = (version, path)
        if key not in self._counts:
            parsed = self._files.get(key)
            if parsed is not None:
                self._counts[key] = parsed.line_count
            else:
                data = self._repaired(version, lambda tree: tree.read(path))
                self._counts[key] = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
        return self._counts[key]

    def symbol(self, version: str, path: str, first: int, last: int) -> str:
        """What a reader is shown for lines first..last (1-based) of a file at ``version``.

        Remembered across runs by the file's digest, so a warm `verify` at the pin parses nothing."""
        memo, key = symbol_memo(), self._memo_key(version, path, first, last)
        found = memo.get("symbols", key)
        if found is None:
            found = memo.put("symbols", key, describe(self.file(version, path), first - 1, last - 1))
        return found

    def digest(self, version: str, path: str, first: int, last: int) -> str:
        """The record digest of lines first..last (1-based) of a file at ``version`` (remembered)."""
        memo, key = symbol_memo(), self._memo_key(version, path, first, last)
        found = memo.get("digests", key)
        if found is None:
            found = memo.put("digests", key, self.file(version, path).digest(first - 1, last - 1))
        return found

    def record(self, version: str, path: str, first: int, last: int) -> CitationRecord:
        """The record of lines first..last (1-based) of a file at ``version``."""
        return CitationRecord(self.symbol(version, path, first, last), last - first + 1,
                              self.digest(version, path, first, last))

    def blank(self, version: str, path: str, first: int, last: int) -> bool:
        """Whether lines first..last (1-based) of a file at ``version`` hold nothing but whitespace."""
        return not any(line.strip() for line in self.file(version, path).lines[first - 1:last])

    def _memo_key(self, version: str, path: str, first: int, last: int) -> str:
        return f"{self.tree(version).files[path]['sha256']}:{first}:{last}"

    def others(self, version: str, besides: set[str]) -> list[SourceFile]:
        """Every parsable file of the tree at ``version`` but ``besides``: where moved code may be."""
        return [f for path in sorted(self.tree(version).files)
                if path not in besides and has_grammar(path) and (f := self.file(version, path)) is not None]

    def renames(self, old: str, new: str) -> dict[str, str]:
        key = (old, new)
        if key not in self._renames:
            self.tree(old), self.tree(new)  # both recorded in the history repository by their fetch
            self._renames[key] = renamed_files(self.map, old, new)
        return self._renames[key]

    def classify(self, version: str, path: str) -> str | None:
        """Why ``path`` cannot be cited at ``version``, or None (see :meth:`SourceTree.classify`)."""
        return self._repaired(version, lambda tree: tree.classify(path))

    def _repaired(self, version: str, read: Callable[[SourceTree], T]) -> T:
        """``read`` the tree; a cached file found corrupt has the tree fetched again, once."""
        try:
            return read(self.tree(version))
        except CorruptTree:  # (files parsed before were checked against their digests when read: they stay)
            self._trees[version] = refetch(self.map, version, quiet=self.quiet)
            return read(self._trees[version])


def check_citations(decision_map: DecisionMap, trees: Trees) -> None:
    """Raise InputError for citations that cannot be right at the version they were checked at.

    A range past the end of its file, or of blank lines only, is bad input only when the citation
    has no record: with one, it is drift (a hand edit), and the record says where the code is. A
    record of blank lines is bad input: a citation always anchors to code."""
    problems = []
    for entry in decision_map.entries:
        for cite in entry.cites:
            version = decision_map.checked_version(cite)
            why = trees.classify(version, cite.file)
            if why is not None:
                problems.append(Problem(cite.path, cite.line, f"cited file {cite.file} {why}; "
                                        "fix the path (it is relative to the repository root)"))
                continue
            if cite.record is not None:
                if cite.record.digest == BLANK_DIGEST:  # it would match any blank lines anywhere
                    problems.append(Problem(cite.path, cite.line, f"the record of {cite.file}:{cite.start}-{cite.end} "
                                            "is of blank lines only, which `record` never writes; remove the "
                                            "`record:` and run `python -m generator record`"))
                continue
            count = trees.line_count(version, cite.file)
            if cite.end > count:
                problems.append(Problem(cite.path, cite.lines_line or cite.line,
                                        f"lines {cite.start}-{cite.end} run past the end of {cite.file}, "
                                        f"which has {count} lines at {version}"))
            elif trees.blank(version, cite.file, cite.start, cite.end):
                # nothing there to anchor to: it would read as drift at every version, the pin included
                problems.append(Problem(cite.path, cite.lines_line or cite.line,
                                        f"lines {cite.start}-{cite.end} of {cite.file} are blank at {version}; "
                                        "cite the code the entry is about"))
    if problems:
        raise InputError(problems)


def verify_map(decision_map: DecisionMap, target: str | None, trees: Trees) -> list[Resolution]:
    """Resolve every citation of ``decision_map`` at ``target`` (None: its pinned version)."""
    target = target or decision_map.version
    check_citations(decision_map, trees)
    results = [resolve_citation(decision_map, trees, entry, cite, target)
               for entry in decision_map.entries for cite in entry.cites]
    symbol_memo().save()
    return results


def resolve_citation(decision_map: DecisionMap, trees: Trees, entry: Entry, cite: Citation,
                     target: str) -> Resolution:
    """Find one citation's code at ``target``, starting from where its record says the code was."""
    checked_at = decision_map.checked_version(cite)
    recorded = (cite.start, cite.end)

    def verdict(status: str, resolved: tuple[int, int] | None, symbol: str, file: str, detail: str) -> Resolution:
        return Resolution(decision_map.name, entry, cite, status, recorded, resolved, symbol, checked_at, target,
                          file, detail)

    rows = recorded_rows(trees, checked_at, cite)
    if rows is None:
        return verdict("changed", None, cite.record.symbol, cite.file,
                       f"the recorded code is not in {cite.file} at {checked_at}; if the citation was "
                       f"changed on purpose, run `python -m generator record --replace {entry.id}`")
    hand_edited = rows != recorded
    detail = f"the range was edited by hand; the recorded code is at {rows[0]}-{rows[1]}" if hand_edited else ""
    if target == checked_at:  # the very code it was checked against
        return verdict("moved" if hand_edited else "ok", rows, trees.symbol(checked_at, cite.file, *rows), cite.file,
                       detail)
    source = trees.file(checked_at, cite.file)
    anchor = anchor_for(source, rows[0] - 1, rows[1] - 1)
    file, placement = cite.file, place(anchor, source, trees.file(target, cite.file))
    if placement.status == "missing":
        file, placement, detail = _elsewhere(trees, cite.file, checked_at, target, anchor, source, placement, detail)
    resolved = (to_line(placement.rows[0]), to_line(placement.rows[1])) if placement.rows else None
    status = placement.status
    if status in ("ok", "moved"):
        status = "ok" if resolved == recorded and file == cite.file else "moved"
    return verdict(status, resolved, placement.symbol, file, detail)


def recorded_rows(trees: Trees, version: str, cite: Citation) -> tuple[int, int] | None:
    """Where the code a citation recorded is at the version it was recorded at (1-based): its own
    range unless that was edited by hand, None when the recorded code is not in the file at all."""
    record = cite.record
    if record is None:
        return cite.start, cite.end  # nothing recorded: the range is taken as it is
    count = trees.line_count(version, cite.file)
    if cite.end <= count and cite.end - cite.start + 1 == record.length \
            and trees.digest(version, cite.file, cite.start, cite.end) == record.digest:
        return cite.start, cite.end
    places = trees.file(version, cite.file).places_of(record.digest, record.length)  # the file is there (checked)
    if not places:
        return None
    # Several places hold the same text: the one under the recorded symbol, then the nearest.
    same = [p for p in places if trees.symbol(version, cite.file, p[0] + 1, p[1] + 1) == record.symbol]
    first, last = min(same or places, key=lambda p: (abs(p[0] + 1 - cite.start), p[0]))
    return first + 1, last + 1


def _elsewhere(trees: Trees, file: str, checked_at: str, target: str, anchor, source: SourceFile,
               placement: Placement, detail: str) -> tuple[str, Placement, str]:
    """Code gone from its file: follow a rename git sees, else look for it in the rest of the tree."""
    tried = {file}
    renamed = trees.renames(checked_at, target).get(file) if trees.file(target, file) is None else None
    if renamed:
        tried.add(renamed)
        moved = place(anchor, source, trees.file(target, renamed))
        if moved.status != "missing":
            return renamed, moved, f"{file} was renamed to {renamed}"
    others = trees.others(target, tried)
    found = place_elsewhere(anchor, source, others)
    if len(found) > 1:  # the same declaration path decides between several, if it can
        same = [(f, p) for f, p in found if p.symbol == anchor.display]
        found = same if len(same) == 1 else found
    if len(found) == 1:
        target_file, moved = found[0]
        return target_file.path, moved, f"moved to {target_file.path}"
    if found:
        where = ", ".join(sorted({f.path for f, _ in found}))
        return file, Placement("ambiguous", None, anchor.display), f"found in several files: {where}"
    # The code is nowhere, but its anchor may be: the declaration went to another file and changed.
    declared = declared_elsewhere(anchor, others)
    if len(declared) == 1:
        changed = place(anchor, source, declared[0])
        return declared[0].path, changed, f"{anchor.symbol} is now in {declared[0].path}, and its code changed"
    if declared:
        where = ", ".join(sorted(f.path for f in declared))
        return file, placement, f"{anchor.symbol} is declared in several other files: {where}"
    return file, placement, detail


@dataclass
class SymbolMemo:
    """Symbols and digests of cited ranges, by file digest and range; kept in the cache folder. The
    resolver's own digest is in the file name, so a change to how symbols are found starts a new
    memo. It keeps what this run used and the newest others, up to ``LIMIT`` of each kind."""

    path: Path
    tables: dict[str, dict[str, str]]
    dirty: bool = False
    used: set[tuple[str, str]] = field(default_factory=set)
    LIMIT = 20_000

    def get(self, table: str, key: str) -> str | None:
        found = self.tables.setdefault(table, {}).get(key)
        if found is not None:
            self.used.add((table, key))
        return found

    def put(self, table: str, key: str, value: str) -> str:
        self.tables.setdefault(table, {})[key] = value
        self.used.add((table, key))
        self.dirty = True
        return value

    def save(self) -> None:
        if not self.dirty:
            return
        for name, table in self.tables.items():
            # oldest first in a dict: past the limit, drop the oldest of what this run did not use
            older = [k for k in table if (name, k) not in self.used]
            for key in older[:max(0, len(table) - self.LIMIT)]:
                del table[key]
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(self.tables))  # in the order of the dicts: oldest first
            os.replace(temporary, self.path)  # two runs at once: the last one wins, both are right
            self.dirty = False
        except OSError:  # a memo is only a shortcut
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


_MEMO: SymbolMemo | None = None


def symbol_memo() -> SymbolMemo:
    global _MEMO
    root = cache_root()
    if _MEMO is None or not _MEMO.path.is_relative_to(root):
        resolver = hashlib.sha256(Path(resolve_module.__file__).read_bytes()).hexdigest()[:12]
        path = root / f"symbols-{resolver}.json"
        try:
            tables = json.loads(path.read_text())
        except (OSError, ValueError):
            tables = {}
        valid = isinstance(tables, dict) and all(isinstance(t, dict) for t in tables.values())
        _MEMO = SymbolMemo(path, tables if valid else {})
    return _MEMO


def excerpt(trees: Trees, version: str, path: str, first: int, last: int) -> list[str]:
    """Lines first..last (1-based, inclusive) of a file at a version."""
    source = trees.file(version, path)
    return source.lines[first - 1:last] if source else []


def summary_counts(results: list[Resolution]) -> dict[str, int]:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        counts[r.status] += 1
    return counts
