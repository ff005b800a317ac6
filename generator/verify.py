"""Verify: resolve every citation of a map from the version it was checked at to a target.

Parsing is shared: each file is parsed once per version however many citations it holds, and at
the pin (where a citation is ok by definition) only to name its symbol, which is remembered.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from .errors import InputError, Problem
from . import resolve as resolve_module
from .fetch import CorruptTree, SourceTree, cache_root, fetch_tree, refetch
from .model import Citation, DecisionMap, Entry
from .resolve import Placement, SourceFile, anchor_for, describe, place, to_line

STATUSES = ("ok", "moved", "changed", "missing", "ambiguous")
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

    def as_json(self) -> dict:
        return {"map": self.map, "id": self.entry.id, "file": self.citation.file,
                "recorded": list(self.recorded), "resolved": list(self.resolved) if self.resolved else None,
                "status": self.status, "symbol": self.symbol}


class Trees:
    """Source trees and parsed files, fetched and parsed at most once per version."""

    def __init__(self, decision_map: DecisionMap, quiet: bool = False,
                 fetch: Callable[[DecisionMap, str], SourceTree] | None = None):
        self.map = decision_map
        self.quiet = quiet
        self._fetch = fetch or (lambda m, v: fetch_tree(m, v, quiet=quiet))
        self._trees: dict[str, SourceTree] = {}
        self._files: dict[tuple[str, str], SourceFile | None] = {}
        self._counts: dict[tuple[str, str], int] = {}

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
        key = f"{self.tree(version).files[path]['sha256']}:{first}:{last}"
        memo = symbol_memo()
        if key not in memo.symbols:
            memo.symbols[key] = describe(self.file(version, path), first - 1, last - 1)
            memo.dirty = True
        return memo.symbols[key]

    def classify(self, version: str, path: str) -> str | None:
        """Why ``path`` cannot be cited at ``version``, or None (see :meth:`SourceTree.classify`)."""
        return self._repaired(version, lambda tree: tree.classify(path))

    def _repaired(self, version: str, read: Callable[[SourceTree], T]) -> T:
        """``read`` the tree; a cached file found corrupt has the tree fetched again, once."""
        try:
            return read(self.tree(version))
        except CorruptTree:
            self._trees[version] = refetch(self.map, version, quiet=self.quiet)
            self._files = {k: v for k, v in self._files.items() if k[0] != version}
            return read(self._trees[version])


def check_citations(decision_map: DecisionMap, trees: Trees) -> None:
    """Raise InputError for citations that cannot be right at the version they were checked at."""
    problems = []
    for entry in decision_map.entries:
        for cite in entry.cites:
            version = cite.version or decision_map.version
            why = trees.classify(version, cite.file)
            if why is not None:
                problems.append(Problem(cite.path, cite.line, f"cited file {cite.file} {why}; "
                                        "fix the path (it is relative to the repository root)"))
                continue
            count = trees.line_count(version, cite.file)
            if cite.end > count:
                problems.append(Problem(cite.path, cite.line, f"lines {cite.start}-{cite.end} run past the "
                                        f"end of {cite.file}, which has {count} lines at {version}"))
    if problems:
        raise InputError(problems)


def verify_map(decision_map: DecisionMap, target: str | None = None, trees: Trees | None = None) -> list[Resolution]:
    """Resolve every citation of ``decision_map`` at ``target`` (default: its pinned version)."""
    target = target or decision_map.version
    trees = trees or Trees(decision_map)
    check_citations(decision_map, trees)
    results = []
    for entry in decision_map.entries:
        for cite in entry.cites:
            checked_at = cite.version or decision_map.version
            if target == checked_at:  # the very code it was checked against: ok by definition
                placement = Placement("ok", (cite.start - 1, cite.end - 1),
                                      trees.symbol(checked_at, cite.file, cite.start, cite.end))
            else:
                source = trees.file(checked_at, cite.file)
                assert source is not None  # check_citations made sure
                anchor = anchor_for(source, cite.start - 1, cite.end - 1)
                placement = place(anchor, source, trees.file(target, cite.file))
            resolved = (to_line(placement.rows[0]), to_line(placement.rows[1])) if placement.rows else None
            results.append(Resolution(decision_map.name, entry, cite, placement.status,
                                      (cite.start, cite.end), resolved, placement.symbol, checked_at, target))
    symbol_memo().save()
    return results


@dataclass
class SymbolMemo:
    """Symbols of cited ranges, by file digest and range; kept in the cache folder. The resolver's
    own digest is in the file name, so a change to how symbols are found starts a new memo."""

    path: Path
    symbols: dict[str, str]
    dirty: bool = False

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(self.symbols, sort_keys=True))
            os.replace(temporary, self.path)  # two runs at once: the last one wins, both are right
            self.dirty = False
        except OSError:
            pass  # a memo is only a shortcut


_MEMO: SymbolMemo | None = None


def symbol_memo() -> SymbolMemo:
    global _MEMO
    root = cache_root()
    if _MEMO is None or not _MEMO.path.is_relative_to(root):
        resolver = hashlib.sha256(Path(resolve_module.__file__).read_bytes()).hexdigest()[:12]
        path = root / f"symbols-{resolver}.json"
        try:
            symbols = json.loads(path.read_text())
        except (OSError, ValueError):
            symbols = {}
        _MEMO = SymbolMemo(path, symbols if isinstance(symbols, dict) else {})
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
