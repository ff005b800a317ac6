"""Editions as pages show them: each entry's verdict, and the old and new code of what drifted.

The code of a drifted citation is shown on the entry's own page (its history); an edition page
lists the verdicts and links there, so it stays light however many citations drifted.
"""

from __future__ import annotations

import difflib
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from ...release.edition import EntryVerdict, entry_verdicts
from ...map.model import DecisionMap, Edition, EditionCitation
from ...citations.verify import Trees, excerpt

EDITIONS = "editions"  # a map's edition pages go in this folder of the map's folder
LANGUAGES = {".ts": "ts", ".mts": "ts", ".cts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js",
             ".cjs": "js", ".jsx": "jsx", ".json": "json"}


def language(path: str) -> str:
    """The code-block language of a file, by its extension ("text" when unknown)."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


@dataclass(frozen=True)
class CodeAt:
    """Lines of a file at one version, as a page shows them (1-based, inclusive)."""

    version: str
    start: int
    end: int
    permalink: str
    language: str
    code: str  # the lines, common indentation removed
    differs: tuple[int, ...]  # lines the other version lacks, counted from 1 at ``start``

    @property
    def lines(self) -> str:
        return f"line {self.start}" if self.start == self.end else f"lines {self.start}-{self.end}"

    @property
    def line_count(self) -> int:
        return self.end - self.start + 1


@dataclass(frozen=True)
class DriftView:
    """A citation whose code changed in an edition: its code before and after."""

    row: EditionCitation
    symbol: str  # the enclosing declaration at the earlier version, "" at the top level
    before: CodeAt | None  # None only when the earlier file cannot be read
    after: CodeAt | None  # None: no range at the later version, the code is gone

    @property
    def file_after(self) -> str:
        return getattr(self.row, "new_file", None) or self.row.file


@dataclass(frozen=True)
class VerdictView:
    """One entry in one edition."""

    verdict: EntryVerdict
    drifts: tuple[DriftView, ...]
    probe: tuple[str, str] | None = None  # (before, after) when the entry's probe flipped
    before: str | None = None  # what the entry said at the old pin, when the edition records it

    @property
    def id(self) -> str:
        return self.verdict.entry_id

    @property
    def anchor(self) -> str:
        return self.id.lower()

    @property
    def kind(self) -> str:
        return self.verdict.entry.kind if self.verdict.entry else "decision"

    @property
    def moves(self) -> tuple[tuple[str, tuple[EditionCitation, ...]], ...]:
        """The moved citations grouped by file, in the order the files first appear."""
        files: dict[str, list[EditionCitation]] = {}
        for row in self.verdict.moved:
            files.setdefault(row.file, []).append(row)
        return tuple((file, tuple(rows)) for file, rows in files.items())


@dataclass(frozen=True)
class Coverage:
    """How the citations an edition covers relate to the map's citations today."""

    at_bump: int  # citations the edition records: those the map held when it moved
    now: int  # citations the map holds today
    added_entries: tuple[tuple[str, int], ...]  # entries added since, with their citations
    removed_entries: tuple[tuple[str, int], ...]  # entries removed since, with the citations they had
    changed_in_entries: int  # citations added (+) or removed (-) in entries the edition knows

    @property
    def same(self) -> bool:
        return self.at_bump == self.now and not self.added_entries and not self.removed_entries


@dataclass(frozen=True)
class EditionView:
    """An edition of a map, with each entry's verdict, ready to render."""

    edition: Edition
    entries: tuple[VerdictView, ...]
    coverage: Coverage

    @property
    def slug(self) -> str:
        return self.edition.slug

    @property
    def page(self) -> str:
        """Its page, relative to the map's folder."""
        return f"{EDITIONS}/{self.slug}.md"

    def of(self, verdict: str) -> tuple[VerdictView, ...]:
        return tuple(v for v in self.entries if v.verdict.verdict == verdict)

    def count(self, verdict: str, kind: str | None = None) -> int:
        return sum(kind is None or v.kind == kind for v in self.of(verdict))

    def statuses(self) -> dict[str, int]:
        """How many citations of the edition had each status."""
        return dict(Counter(row.status for row in self.edition.citations))

    @property
    def rechecks(self) -> tuple[VerdictView, ...]:
        """Problems whose cited code changed in this move and whose upstream status nobody has
        looked at since: a fix may have landed. One marked fixed, or whose status was checked on
        the day of the move or later, is settled (see :meth:`rechecked`), so no alarm is raised."""
        return tuple(v for v in self.entries if v.verdict.needs_recheck and not self.settled(v))

    @property
    def rechecked(self) -> tuple[VerdictView, ...]:
        """Problems whose cited code changed in this move, already settled: fixed, or re-checked."""
        return tuple(v for v in self.entries if v.verdict.needs_recheck and self.settled(v))

    def settled(self, view: VerdictView) -> str | None:
        """Why a problem's status needs no re-check: "fixed" (a release that fixed it is
        recorded) or "checked" (its upstream status was checked on or after the move's day)."""
        upstream = view.verdict.entry.upstream if view.verdict.entry is not None else None
        if upstream is None:
            return None
        if upstream.fixed_in:
            return "fixed"
        return "checked" if upstream.checked and str(upstream.checked) >= str(self.edition.date) else None

    def entry(self, entry_id: str) -> VerdictView | None:
        return next((v for v in self.entries if v.id == entry_id), None)


def edition_views(decision_map: DecisionMap, trees: Trees) -> tuple[EditionView, ...]:
    """Every edition of the map, newest first."""
    views = []
    for edition in reversed(decision_map.editions):
        flipped = {p.id: (p.before, p.after) for p in getattr(edition, "probes", ())}
        entries = tuple(VerdictView(v, drift_views(decision_map, trees, edition, v), flipped.get(v.entry_id),
                                    edition.said_before(v.entry_id))
                        for v in entry_verdicts(decision_map, edition))
        views.append(EditionView(edition, entries, coverage(decision_map, edition)))
    return tuple(views)


def coverage(decision_map: DecisionMap, edition: Edition) -> Coverage:
    then = Counter(row.id for row in edition.citations)
    now = {e.id: len(e.cites) for e in decision_map.entries}
    added = tuple((i, n) for i, n in now.items() if i not in then)
    removed = tuple((i, n) for i, n in then.items() if i not in now)
    changed = sum(now[i] - then[i] for i in then if i in now)
    return Coverage(len(edition.citations), sum(now.values()), added, removed, changed)


def drift_views(decision_map: DecisionMap, trees: Trees, edition: Edition,
                verdict: EntryVerdict) -> tuple[DriftView, ...]:
    """The old and new code of each drifted citation of an entry, the lines that differ marked."""
    views = []
    for row in verdict.drifted:
        after_file = getattr(row, "new_file", None) or row.file
        # the old range is where the code was when last checked, which may predate `from`
        old_lines = excerpt(trees, row.checked_at, row.file, *row.old)
        new_lines = excerpt(trees, edition.to_version, after_file, *row.new) if row.new else []
        # with nothing to compare against (the code is gone), no line is marked
        gone, added = _differing(old_lines, new_lines) if new_lines else ((), ())
        whole = len(old_lines) == row.old[1] - row.old[0] + 1
        symbol = trees.symbol(row.checked_at, row.file, *row.old) if whole else ""
        before = code_at(decision_map, row.file, row.checked_at, row.old, old_lines, gone)
        after = code_at(decision_map, after_file, edition.to_version, row.new, new_lines, added) if row.new else None
        views.append(DriftView(row, symbol, before, after))
    return tuple(views)


def permalink(decision_map: DecisionMap, file: str, version: str, lines: tuple[int, int]) -> str:
    """The permalink contract of DESIGN.md: {repo}/blob/v{version}/{file}#L{a}-L{b}."""
    start, end = lines
    anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
    return f"{decision_map.repo.rstrip('/')}/blob/v{version}/{file}{anchor}"


def code_at(decision_map: DecisionMap, file: str, version: str, lines: tuple[int, int], text: list[str],
            differs: tuple[int, ...]) -> CodeAt | None:
    if not text:
        return None
    code = textwrap.dedent("\n".join(line.rstrip("\r").expandtabs(4) for line in text))
    return CodeAt(version, lines[0], lines[1], permalink(decision_map, file, version, lines), language(file),
                  code, differs)


def _differing(old: list[str], new: list[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The lines (counted from 1) of ``old`` that ``new`` lacks, and of ``new`` that ``old`` lacks.

    Whitespace is not compared (re-indented code is the same code) and blank lines are never marked."""
    a, b = (["".join(line.split()) for line in lines] for lines in (old, new))
    gone, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            gone += [i + 1 for i in range(i1, i2) if a[i]]
        if tag in ("replace", "insert"):
            added += [j + 1 for j in range(j1, j2) if b[j]]
    return tuple(gone), tuple(added)
