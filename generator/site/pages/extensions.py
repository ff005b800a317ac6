"""What the site shows of the extensions: an extension on npm with its levers and their code, the
index of every extension by decision group, and, for a decision, the npm extensions that change it.

An extension pinned on npm is verified as a map of its own package (``load.with_extensions``);
its code is cut from that package at its pinned version, and links go to the file as npm serves
it (``https://unpkg.com/<package>@<version>/<file>``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ...map.model import Citation, DecisionMap, Overlay
from ...citations.verify import Trees, excerpt
from .editions import language
from .views import CitedCode, MapView, ProbeView, _probe


@dataclass(frozen=True)
class ExtensionItemView:
    """A lever, a process, a connection or a thing left alone, with the code it cites."""

    text: str
    code: tuple[CitedCode, ...]
    lever: str = ""
    kind: str = ""
    decisions: tuple[str, ...] = ()


@dataclass(frozen=True)
class NpmView:
    """An extension pinned on npm, as its page shows it."""

    overlay: Overlay
    levers: tuple[ExtensionItemView, ...]
    runs: tuple[ExtensionItemView, ...]
    connects: tuple[ExtensionItemView, ...]
    unchanged: tuple[ExtensionItemView, ...]
    probe: ProbeView | None = None  # its probe, when it has one and it ran in this build

    @property
    def package(self) -> str:
        return self.overlay.package or ""

    @property
    def version(self) -> str:
        return self.overlay.version or ""

    @property
    def npm_url(self) -> str:
        return f"https://www.npmjs.com/package/{self.package}/v/{self.version}"

    @property
    def citation_count(self) -> int:
        return len(self.overlay.cites)


def file_url(package: str, version: str, file: str) -> str:
    """The address of one of the package's files at a version, as npm's CDN serves it."""
    return f"https://unpkg.com/{quote(package, safe='@/')}@{quote(version)}/{quote(file)}"


def npm_view(overlay: Overlay, extension: DecisionMap, trees: Trees, probe: Any = None) -> NpmView:
    """The page's view of a pinned extension; its citations were verified at its pin before."""
    def code(cite: Citation) -> CitedCode:
        lines = [line.rstrip("\r") for line in excerpt(trees, extension.version, cite.file, cite.start, cite.end)]
        text = textwrap.dedent("\n".join(line.expandtabs(4) for line in lines))
        symbol = cite.record.symbol if cite.record and cite.record.symbol != "(top level)" else ""
        return CitedCode(cite, file_url(overlay.package, overlay.version, cite.file), symbol, language(cite.file),
                         cite.start, cite.end, text)

    def items(found) -> tuple[ExtensionItemView, ...]:
        return tuple(ExtensionItemView(i.text, tuple(code(c) for c in i.cites)) for i in found)

    levers = tuple(ExtensionItemView(lever.text, tuple(code(c) for c in lever.cites), lever.lever, lever.kind, lever.decisions)
                   for lever in overlay.levers)
    return NpmView(overlay, levers, items(overlay.runs), items(overlay.connects), items(overlay.unchanged),
                   _probe(overlay, probe))


@dataclass(frozen=True)
class IndexRow:
    """One extension on the index: the decisions it changes, by group letter."""

    overlay: Overlay
    by_group: dict[str, tuple[str, ...]]

    @property
    def name(self) -> str:
        return self.overlay.extension

    @property
    def groups(self) -> str:
        """The group letters it changes, for the index's filter ("CFG": one letter each)."""
        return "".join(letter for letter, ids in self.by_group.items() if ids)


def index_rows(view: MapView) -> tuple[IndexRow, ...]:
    """Every extension of a map with the decisions it changes (its changes' and its levers'), the
    shared-levers decision left out: every extension uses it."""
    shared = view.map.shared_levers
    rows = []
    for overlay in sorted(view.map.overlays, key=lambda o: o.extension):
        ids = [d for d in overlay.decisions if d != shared and view.map.entry(d) is not None]
        rows.append(IndexRow(overlay, {g.id: tuple(sorted((d for d in ids if d[0] == g.id), key=_id_order))
                                       for g in view.groups}))
    return tuple(rows)


def npm_changing(decision_map: DecisionMap) -> dict[str, list[tuple[Overlay, tuple[str, ...]]]]:
    """For each decision, the extensions pinned on npm whose levers change it, with those levers."""
    found: dict[str, list[tuple[Overlay, tuple[str, ...]]]] = {}
    for overlay in sorted(decision_map.overlays, key=lambda o: o.extension):
        if not overlay.pinned:
            continue
        by_decision: dict[str, list[str]] = {}
        for lever in overlay.levers:
            for decision in lever.decisions:
                by_decision.setdefault(decision, []).append(lever.lever)
        for change in overlay.changes:
            if change.decision:
                by_decision.setdefault(change.decision, [])
        for decision, levers in by_decision.items():
            found.setdefault(decision, []).append((overlay, tuple(dict.fromkeys(levers))))
    return found


def _id_order(entry_id: str) -> tuple[str, int]:
    return entry_id[0], int(entry_id[1:])
