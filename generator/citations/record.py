"""Keep each citation's record current: plan the edits that `record`, `fix`, `bump` and `accept`
write (the YAML is edited in place by :mod:`generator.map.rewrite`).

A record says what a citation cites (symbol, length, digest of the text without whitespace) at
the version it was checked at: the citation's own ``version``, else the map's ``checked_at``.
"""

from __future__ import annotations

from ..errors import UsageError
from ..map.model import DecisionMap
from ..map.rewrite import Edit, set_top_level
from .verify import Resolution, Trees, recorded_rows


def settle(results: list[Resolution], trees: Trees, checked_at: str) -> list[Edit]:
    """The safe part of moving a map to ``checked_at`` (what `bump` does, and `fix` after a pin was
    edited by hand): citations that are ok or only moved take their new file and range and are
    recorded there; the others keep the version they were checked at, for a person to re-read."""
    edits = []
    for r in results:
        cite = r.citation
        if r.status in ("ok", "moved") and r.resolved is not None:
            # an explicit version is kept explicit; otherwise the map's checked_at speaks for it
            version = r.target if cite.version is not None or r.target != checked_at else None
            # a citation nobody recorded yet is left to `record`, unless it was just resolved anew
            fresh = cite.record is not None or r.status == "moved" or r.target != r.checked_at
            edits.append(Edit(cite, lines=r.resolved, file=r.resolved_file, version=version,
                              record=trees.record(r.target, r.resolved_file, *r.resolved) if fresh else None))
        elif cite.version is None and r.checked_at != checked_at:
            edits.append(Edit(cite, version=r.checked_at))  # still checked at the old version
    return [e for e in edits if e.changes_anything]


def checked_at_change(decision_map: DecisionMap, version: str, explicit: bool = False):
    """A change of map.yaml's text (for ``apply_edits``'s ``also``) that sets ``checked_at`` to
    ``version``, or None when the map already says so (with ``explicit``, only when the map's own
    `checked_at:` line says so)."""
    if decision_map.checked_at == version or (not explicit and decision_map.recorded_version == version):
        return None
    return lambda text: set_top_level(text, "checked_at", version, after="version")


def record_edits(decision_map: DecisionMap, trees: Trees, ids: set[str] | None = None,
                 replace: bool = False) -> tuple[list[Edit], list[str]]:
    """Records for the citations that have none (with ``replace``, also for those of ``ids`` that
    have one: a range changed on purpose). Returns the edits and what could not be recorded."""
    edits, refused = [], []
    for entry in decision_map.entries:
        if ids is not None and entry.id not in ids:
            continue
        for cite in entry.cites:
            if cite.record is not None and not replace:
                continue
            version = decision_map.checked_version(cite)
            if cite.record is not None and recorded_rows(trees, version, cite) == (cite.start, cite.end):
                continue  # the record already says what the range holds
            count = trees.line_count(version, cite.file)
            if cite.end > count:
                refused.append(f"{entry.id}: {cite.file}:{cite.start}-{cite.end} runs past the end of the file "
                               f"({count} lines at {version}); fix the range first")
                continue
            if trees.blank(version, cite.file, cite.start, cite.end):
                refused.append(f"{entry.id}: {cite.file}:{cite.start}-{cite.end} holds only blank lines at "
                               f"{version}; cite the code the entry is about")
                continue
            edits.append(Edit(cite, record=trees.record(version, cite.file, cite.start, cite.end)))
    return [e for e in edits if e.changes_anything], refused


def require_known(decision_maps: list[DecisionMap], ids: set[str]) -> None:
    known = {e.id for m in decision_maps for e in m.entries}
    unknown = sorted(ids - known)
    if unknown:
        raise UsageError(f"no entry has the ID {', '.join(unknown)}")
