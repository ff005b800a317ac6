"""Verify: resolve every citation of a map from the version it was checked at to a target.

Parsing is shared: each file is parsed once per version however many citations it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TypeVar

from .errors import InputError, Problem
from .fetch import CorruptTree, SourceTree, fetch_tree, refetch
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
            count = trees.file(version, cite.file).line_count
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
            source = trees.file(checked_at, cite.file)
            assert source is not None  # check_citations made sure
            if target == checked_at:  # the very code it was checked against: ok by definition
                placement = Placement("ok", (cite.start - 1, cite.end - 1),
                                      describe(source, cite.start - 1, cite.end - 1))
            else:
                anchor = anchor_for(source, cite.start - 1, cite.end - 1)
                placement = place(anchor, source, trees.file(target, cite.file))
            resolved = (to_line(placement.rows[0]), to_line(placement.rows[1])) if placement.rows else None
            results.append(Resolution(decision_map.name, entry, cite, placement.status,
                                      (cite.start, cite.end), resolved, placement.symbol, checked_at, target))
    return results


def excerpt(trees: Trees, version: str, path: str, first: int, last: int) -> list[str]:
    """Lines first..last (1-based, inclusive) of a file at a version."""
    source = trees.file(version, path)
    return source.lines[first - 1:last] if source else []


def summary_counts(results: list[Resolution]) -> dict[str, int]:
    counts = {s: 0 for s in STATUSES}
    for r in results:
        counts[r.status] += 1
    return counts
