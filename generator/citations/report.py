"""What a person or CI reads of a run: the table, GitHub annotations and JSON of `verify`, and
the table and JSON of `probe`. Each function returns the text; the command line prints it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import display_path

if TYPE_CHECKING:  # the command line imports this module before it knows the dependencies are there
    from .leads import EntryLeads
    from .verify import Resolution

ADVICE = {"moved": "run `python -m generator fix` to update it",
          "changed": "re-read the code and update the entry",
          "missing": "the cited code is gone; cite where the behaviour lives now",
          "ambiguous": "the code appears several times; pick the right range by hand"}


def where(r: Resolution) -> str:
    """Where a citation's code is at the target, as a person writes it ("" when nowhere)."""
    if r.resolved is None:
        return ""
    lines = f"{r.resolved[0]}-{r.resolved[1]}"
    return f"{r.resolved_file}:{lines}" if r.moved_file else lines


def citations_json(results: list[Resolution], target: str) -> str:
    return json.dumps({"target": target, "citations": [r.as_json() for r in results]}, indent=1)


def github_annotations(results: list[Resolution]) -> str:
    """One `::error` annotation per citation that is not ok, at its YAML line, then a count."""
    lines = []
    for r in results:
        if r.status == "ok":
            continue
        now = f" now {where(r)}" if r.resolved else ""
        detail = f"; {r.detail}" if r.detail else ""
        message = (f"{r.entry.id} {r.citation.file}:{r.recorded[0]}-{r.recorded[1]} is {r.status}{now} "
                   f"at {r.target} ({r.symbol or 'top level'}){detail}; {ADVICE[r.status]}")
        lines.append(f"::error file={display_path(r.citation.path)},line={r.citation.line},"
                     f"title=citation {r.status}::{message}")
    bad = sum(r.status != "ok" for r in results)
    return "\n".join(lines + [f"{len(results) - bad} of {len(results)} citations ok"])


def citations_table(results: list[Resolution], target: str) -> str:
    """A row per citation (a new path shown as `old.ts → new/path.ts`), then the counts and verdict."""
    from .verify import summary_counts

    rows = [("ID", "FILE", "RECORDED → RESOLVED", "STATUS", "SYMBOL")]
    for r in results:
        resolved = "-" if r.resolved is None else f"{r.resolved[0]}-{r.resolved[1]}"
        name = r.citation.file.rsplit("/", 1)[-1]
        if r.moved_file:
            name += f" → {r.resolved_file}"
        rows.append((r.entry.id, name, f"{r.recorded[0]}-{r.recorded[1]} → {resolved}", r.status,
                     (r.symbol or "(top level)") + (f"  [{r.detail}]" if r.detail else "")))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4] for row in rows]
    counts = summary_counts(results)
    parts = [f"{counts[s]} {s}" for s in counts if counts[s]]
    verdict = "all ok" if counts["ok"] == len(results) else "drift found"
    # an extension pinned on npm is resolved at its own release: say which, after the map's target
    others = sorted({f"{r.entry.id} {r.target}" for r in results if r.target != target})
    at = f"{target} ({', '.join(others)})" if others else target
    return "\n".join(lines + ["", f"{len(results)} citations at {at}: {', '.join(parts) or 'none'}: {verdict}"])


def probes_json(results, target: str) -> str:
    return json.dumps({"target": target, "probes": [r.as_json() for r in results]}, indent=1)


def probes_table(results, target: str, sandbox) -> str:
    """A row per probe (its result cut to fit a line), then the counts and how pi was sandboxed."""
    rows = [("ID", "STATUS", "SECONDS", "RESULT")]
    for r in results:
        seconds = f"{r.seconds:.2f}" + (" (cached)" if r.cached else "")
        rows.append((r.id, r.status, seconds, json.dumps(r.result, separators=(", ", ": "))[:90] if r.result else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3] for row in rows]
    counts = {s: sum(r.status == s for r in results) for s in ("holds", "fails", "error")}
    parts = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no probes"
    return "\n".join(lines + ["", f"{len(results)} probe(s) with pi {target}: {parts} "
                               f"(sandbox: {sandbox.describe()})"])


def leads_json(found: list[EntryLeads], target: str) -> str:
    return json.dumps({"target": target, "leads": [lead.as_json() for e in found for lead in e.leads]}, indent=1)


def leads_text(found: list[EntryLeads], target: str, limit: int | None) -> str:
    """Each entry's leads, best first, under a line that says how many there are and how many show."""
    shown = ("all of them" if limit == 0 else f"the best {limit} of each entry (--limit 0 for all)" if limit
             else "the best two per citation of each entry, at least 15 (--limit N for N, 0 for all)")
    lines = [f"leads at {target}: code no citation of the entry covers that names what its cited code names; "
             f"ranked, best first, {shown}"]
    for e in found:
        count = f"{len(e.leads)} of {e.total}" if len(e.leads) < e.total else f"{e.total}"
        lines.append(f"\n{e.entry.id}: {count} lead(s): {e.entry.headline}")
        width = max((len(f"{lead.file}:{lead.line}") for lead in e.leads), default=0)
        for rank, lead in enumerate(e.leads, 1):
            lines.append(f"  {rank:>2}. {f'{lead.file}:{lead.line}':<{width}}  {lead.why}")
    return "\n".join(lines)
