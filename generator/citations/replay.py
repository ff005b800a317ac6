"""Replay history: carry citations over real declarations forward release by release, as `bump`
would, and compare with resolving the first release straight to the last.

Used by the test suite and `make bench` to show, on pi's real releases, how citations fare:
per step, how many are ok, moved, moved to another file, changed, missing or ambiguous, and
that every `moved` one holds the same text (whitespace aside) where it was found.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..map.model import Citation, DecisionMap, Entry, Span
from .resolve import squeeze
from .verify import Resolution, Trees, resolve_citation

KINDS = ("ok", "moved", "moved to another file", "changed", "missing", "ambiguous")
_DECLARATIONS = {"method_definition", "function_declaration"}


@dataclass
class Carried:
    """One citation as `bump` leaves it after each step: where it points and the version it was
    checked at (drifted citations keep their old version and are tried again at the next step)."""

    entry: Entry
    citation: Citation


@dataclass
class Step:
    old: str
    new: str
    counts: Counter = field(default_factory=Counter)
    text_checked: int = 0  # moved citations whose whitespace-free text was compared
    text_differs: list[str] = field(default_factory=list)  # each one that did not hold the same text

    def row(self) -> dict:
        return {"step": f"{self.old} → {self.new}", **{k: self.counts[k] for k in KINDS},
                "text checked": self.text_checked, "text differs": len(self.text_differs)}


@dataclass
class Replay:
    versions: tuple[str, ...]
    citations: int
    steps: list[Step]
    direct: Counter  # statuses resolving the first release straight to the last
    agree: int  # landed both ways (release by release, and straight) at the same file and lines
    disagree: list[str]  # landed both ways, at different places
    only_direct: int  # the straight resolution found it, the chain stopped (a person would re-read it)
    only_chain: int


def sample_citations(trees: Trees, version: str, declarations: int = 200) -> list[tuple[str, int, int]]:
    """Citations over real declarations at ``version``: about ``declarations`` methods and functions
    spread evenly over the whole tree, each cited whole (when short) and by a few lines inside it;
    (file, first, last), 1-based."""
    found = []
    for path in sorted(trees.tree(version).files):
        source = trees.file(version, path) if path.endswith((".ts", ".js")) else None
        if source is None or source.tree is None:
            continue
        stack = [source.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type in _DECLARATIONS:
                found.append((path, node.start_point[0] + 1, node.end_point[0] + 1))
            stack.extend(reversed(node.named_children))
    citations = []
    for path, first, last in found[::max(1, len(found) // declarations)]:
        if last - first <= 80:
            citations.append((path, first, last))
        if last - first >= 4:
            citations.append((path, first + 1, first + min(5, last - first - 1)))
    return citations


def replay(decision_map: DecisionMap, versions: list[str], trees: Trees | None = None,
           declarations: int = 200) -> Replay:
    """Carry citations sampled at ``versions[0]`` through every later version in order."""
    trees = trees or Trees(decision_map, quiet=True)
    first = versions[0]
    base = replace(decision_map, entries=(), version=first, checked_at=None)
    template = decision_map.entries[0] if decision_map.entries else None
    carried = [_carried(trees, template, index, first, path, a, b)
               for index, (path, a, b) in enumerate(sample_citations(trees, first, declarations))]
    start = [Carried(c.entry, c.citation) for c in carried]
    steps = []
    for old, new in zip(versions, versions[1:]):
        step = Step(old, new)
        for item in carried:
            result = resolve_citation(base, trees, item.entry, item.citation, new)
            kind = "moved to another file" if result.status == "moved" and result.moved_file else result.status
            step.counts[kind] += 1
            if result.status in ("ok", "moved"):
                if result.status == "moved":
                    _check_text(trees, result, step)
                item.citation = _moved_on(trees, item.citation, result)
        steps.append(step)
    last = versions[-1]
    direct_results = [resolve_citation(base, trees, c.entry, c.citation, last) for c in start]
    direct = Counter("moved to another file" if r.status == "moved" and r.moved_file else r.status
                     for r in direct_results)
    agree, disagree, only_direct, only_chain = 0, [], 0, 0
    for chained, straight in zip(carried, direct_results):
        landed = chained.citation.version == last
        found = straight.status in ("ok", "moved")
        if landed and found:
            here = (chained.citation.file, chained.citation.start, chained.citation.end)
            there = (straight.resolved_file, *straight.resolved)
            if here == there:
                agree += 1
            else:
                disagree.append(f"{chained.entry.id}: release by release {here}, straight {there}")
        elif found:
            only_direct += 1
        elif landed:
            only_chain += 1
    return Replay(tuple(versions), len(carried), steps, direct, agree, disagree, only_direct, only_chain)


def _carried(trees: Trees, template: Entry | None, index: int, version: str, path: str, a: int, b: int) -> Carried:
    citation = Citation(path, a, b, version, None, Path(f"R{index}.yaml"), 1, Span(0, 0), Span(0, 0), None,
                        record=trees.record(version, path, a, b))
    entry = Entry(f"R{index + 1}", "decision", "replayed", "code", "replayed", None, None, None, None, (), None,
                  (citation,), None, Path(f"R{index}.yaml"), 1) if template is None else \
        replace(template, id=f"R{index + 1}", cites=(citation,))
    return Carried(entry, citation)


def _moved_on(trees: Trees, citation: Citation, result: Resolution) -> Citation:
    """The citation as `bump` writes it: its new file and lines, recorded at the new version."""
    file, (a, b) = result.resolved_file, result.resolved
    return replace(citation, file=file, start=a, end=b, version=result.target,
                   record=trees.record(result.target, file, a, b))


def _check_text(trees: Trees, result: Resolution, step: Step) -> None:
    """A moved citation must hold the same text, whitespace aside (and `export` when it changed
    files), at the lines it was found at."""
    cite = result.citation
    before = trees.file(result.checked_at, cite.file).lines[result.recorded[0] - 1:result.recorded[1]]
    after = trees.file(result.target, result.resolved_file).lines[result.resolved[0] - 1:result.resolved[1]]
    moved_file = result.moved_file
    same = "".join(squeeze(line, moved_file) for line in before) == "".join(squeeze(line, moved_file) for line in after)
    step.text_checked += 1
    if not same:
        step.text_differs.append(f"{cite.file}:{result.recorded[0]}-{result.recorded[1]} → "
                                 f"{result.resolved_file}:{result.resolved[0]}-{result.resolved[1]}")


def table(result: Replay) -> str:
    """The replay as a Markdown table, a row per step and one for the straight resolution."""
    head = ["step", *KINDS, "text checked", "text differs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for step in result.steps:
        row = step.row()
        lines.append("| " + " | ".join(str(row[h]) for h in head) + " |")
    direct = [f"{result.versions[0]} → {result.versions[-1]} straight", *(str(result.direct[k]) for k in KINDS), "", ""]
    lines.append("| " + " | ".join(direct) + " |")
    return "\n".join(lines)
