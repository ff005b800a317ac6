"""Render: a loaded, verified map → the site's pages as data (relative path → Markdown text).

The pages go through Jinja2 templates in ``templates/``. Nothing here knows about MkDocs: the
plugin hands these pages to MkDocs, and ``python -m generator render --out DIR`` writes the same
pages for any other engine. Every value from YAML reaches a page only through the escaping
filters of :mod:`generator.prose`, so it is text, whatever it holds.

Page paths (for a map in ``decisions/pi/``)::

    index.md                       the gallery: what a decision map is, and the maps
    pi/index.md                    the summary page ("How pi decides")
    pi/map.md                      the full map: one card per decision
    pi/problems.md                 the problems in the mapped code
    pi/census.md                   counts, the pin, the last check
    pi/editions/index.md           every bump of the map, newest first
    pi/editions/<from>-to-<to>.md  one bump: each entry's verdict, the old and new code of what changed
    extensions/<name>.md           an extension's page, with its overlay table
    downloads/pi-decision-map.md   the whole map as one Markdown file (a download, not a page)
"""

from __future__ import annotations

import difflib
import html
import re
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from . import prose
from .edition import VERDICTS, EntryVerdict, entry_verdicts
from .errors import DriftError, InputError, Problem
from .model import Citation, DecisionMap, Edition, EditionCitation, Entry, Group, Overlay, OverlayChange
from .verify import Resolution, Trees, excerpt, verify_map

TEMPLATES = Path(__file__).parent / "templates"
DOWNLOADS = "downloads"  # pages under this folder are files to download, not pages to render
OVERLAY_SLOT = "{{ overlay }}"  # the line of a hand-written extension page the overlay replaces

WHO = ("code", "model", "person")
WHO_SHORT = {"code": "Plain code", "model": "AI model", "person": "Person", "none": "Nobody"}
WHO_PHRASE = {"code": "plain code", "model": "an AI model", "person": "a person", "none": "nobody"}
WHO_ABOUT = {
    "code": "a rule written into the program: the same situation always gets the same answer.",
    "model": "the language model judges, as part of its reply; it may judge differently next time.",
    "person": "you are asked, or you settle it yourself with a setting, a flag or a command.",
}
_LANGUAGES = {".ts": "ts", ".mts": "ts", ".cts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js",
              ".cjs": "js", ".jsx": "jsx", ".json": "json"}
_NUMBER_WORDS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")
EDITIONS = "editions"  # a map's edition pages go in this folder of the map's folder


# --- what the templates see ---------------------------------------------------------------------


@dataclass(frozen=True)
class CitedCode:
    """One citation with the code it cites, sliced from the pinned source (1-based, inclusive)."""

    citation: Citation
    permalink: str
    symbol: str  # the enclosing declaration, "" at the top level of the file
    language: str
    start: int
    end: int
    code: str  # the cited lines, common indentation removed

    @property
    def label(self) -> str:
        return self.citation.label

    @property
    def line_count(self) -> int:
        return self.end - self.start + 1


@dataclass(frozen=True)
class ExtensionLink:
    """An extension's change that touches a decision, as seen from that decision's card."""

    overlay: Overlay
    change: OverlayChange
    anchor: str  # the change's anchor on the extension's page
    direct: bool  # True: it changes this decision; False: it adds a related one


@dataclass(frozen=True)
class Card:
    """A decision or a problem, ready to render."""

    entry: Entry
    anchor: str
    cites: tuple[CitedCode, ...]
    extensions: tuple[ExtensionLink, ...]
    mark: str | None = None  # "changed" or "rewritten" in the latest edition, else None

    @property
    def changing(self) -> tuple[ExtensionLink, ...]:
        return tuple(link for link in self.extensions if link.direct)

    @property
    def touching(self) -> tuple[ExtensionLink, ...]:
        return tuple(link for link in self.extensions if not link.direct)


@dataclass(frozen=True)
class GroupView:
    id: str
    title: str
    about: str | None
    cards: tuple[Card, ...]

    @property
    def anchor(self) -> str:
        return f"group-{self.id.lower()}"

    def count(self, who: str) -> int:
        return sum(card.entry.decided_by == who for card in self.cards)


@dataclass(frozen=True)
class SectionView:
    title: str
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class ChangeView:
    """One change of an overlay, with its anchor on the extension's page."""

    change: OverlayChange
    anchor: str
    decision: Card | None  # the decision it changes, when it changes one


@dataclass(frozen=True)
class OverlayView:
    overlay: Overlay
    changes: tuple[ChangeView, ...]

    @property
    def name(self) -> str:
        return self.overlay.extension

    @property
    def page(self) -> str:
        return f"extensions/{self.overlay.extension}.md"


@dataclass(frozen=True)
class CodeAt:
    """Lines of a file at one version, as an edition page shows them (1-based, inclusive)."""

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


@dataclass(frozen=True)
class DriftView:
    """A citation whose code changed in an edition: its code before and after."""

    row: EditionCitation
    symbol: str  # the enclosing declaration at the earlier version, "" at the top level
    before: CodeAt | None  # None only when the earlier file cannot be read
    after: CodeAt | None  # None: no range at the later version, the code is gone


@dataclass(frozen=True)
class VerdictView:
    """One entry on an edition page."""

    verdict: EntryVerdict
    drifts: tuple[DriftView, ...]

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
    def moves(self) -> tuple[tuple[str, tuple[tuple[EditionCitation, ...], ...]], ...]:
        """The moved citations grouped by file, in the order the files first appear."""
        files: dict[str, list[EditionCitation]] = {}
        for row in self.verdict.moved:
            files.setdefault(row.file, []).append(row)
        return tuple((file, tuple(rows)) for file, rows in files.items())


@dataclass(frozen=True)
class EditionView:
    """An edition of a map, with each entry's verdict, ready to render."""

    edition: Edition
    entries: tuple[VerdictView, ...]

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
        return tuple(v for v in self.entries if v.verdict.needs_recheck)


@dataclass(frozen=True)
class Bar:
    label: str
    who: str
    count: int
    percent: int  # of the total, rounded to a whole number


@dataclass(frozen=True)
class Census:
    decisions: int
    problems: int
    citations: int
    files: tuple[tuple[str, int, int], ...]  # (file, citations, entries citing it), most cited first
    who: tuple[Bar, ...]
    groups: tuple[GroupView, ...]
    reviewed: int  # entries with a recorded independent reading
    last_reviewed: str | None
    last_upstream_check: str | None


@dataclass(frozen=True)
class MapView:
    """Everything the templates of one map need, computed once."""

    map: DecisionMap
    cards: dict[str, Card]
    groups: tuple[GroupView, ...]
    sections: tuple[SectionView, ...]
    problems: tuple[Card, ...]
    overlays: tuple[OverlayView, ...]
    census: Census
    editions: tuple[EditionView, ...] = ()  # newest first

    @property
    def name(self) -> str:
        return self.map.name

    @property
    def latest(self) -> EditionView | None:
        return self.editions[0] if self.editions else None

    @property
    def title_in_sentence(self) -> str:
        """The map's title to follow other words ("What changed in how pi decides")."""
        title = self.map.title
        if len(title) > 1 and title[0].isupper() and title[1].islower():
            return title[0].lower() + title[1:]
        return title

    @property
    def download(self) -> str:
        return f"{DOWNLOADS}/{self.map.name}-decision-map.md"

    @property
    def decision_count(self) -> int:
        return sum(len(g.cards) for g in self.groups)

    @property
    def marked_decision_count(self) -> int:
        """Decisions whose code changed or whose text was re-written in the latest edition."""
        return sum(card.mark is not None for g in self.groups for card in g.cards)

    @property
    def last_check(self) -> str | None:
        """The map's own check date, else the newest date recorded on its entries."""
        dates = [d for d in (self.map.checked, self.census.last_reviewed, self.census.last_upstream_check) if d]
        return max(dates) if dates else None

    @property
    def git_ref(self) -> str | None:
        """The git ref of the pin, with the version filled in (None for an npm source)."""
        git = self.map.source.git
        return git.ref.replace("{version}", self.map.version) if git else None

    def href(self, entry_id: str) -> str:
        """Where an entry's card is, relative to the map's folder."""
        card = self.cards.get(entry_id)
        page = "problems.md" if card and card.entry.kind == "problem" else "map.md"
        return f"{page}#{entry_id.lower()}"

    def issue_url(self, number: int) -> str:
        return f"{self.map.repo.rstrip('/')}/issues/{number}"


# --- the public entry points --------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedSite:
    """The loaded maps and every page rendered from them."""

    maps: tuple[DecisionMap, ...]
    pages: dict[str, str]  # relative path -> Markdown


def render_folder(decisions: Path, pages_dir: Path | None = None, *, quiet: bool = True,
                  trees_for: Callable[[DecisionMap], Trees] | None = None) -> RenderedSite:
    """Load every map under ``decisions``, verify it at its pin, and render the whole site.

    ``trees_for`` may hand out source trees kept from an earlier build (``mkdocs serve``).
    Raises :class:`InputError` for bad entries or hand-written pages that generated ones would
    replace, and :class:`DriftError` when a citation is not ``ok``.
    """
    from .load import load_maps

    maps = load_maps(decisions)
    pages = render_site(maps, trees_for or (lambda m: Trees(m, quiet=quiet)), pages_dir)
    if pages_dir is not None:
        collisions = hand_written_collisions(pages, pages_dir)
        if collisions:
            raise InputError(collisions)
    return RenderedSite(tuple(maps), pages)


def render_pages(decision_map: DecisionMap, trees: Trees, pages_dir: Path | None = None,
                 resolutions: list[Resolution] | None = None) -> dict[str, str]:
    """The pages of one map, as ``{relative path: Markdown}``.

    Every citation is resolved at the map's pinned version first; if any is not ``ok`` this
    raises :class:`DriftError` naming each one, and nothing is rendered. ``pages_dir`` holds
    the hand-written pages: ``extensions/<name>.md`` with an ``{{ overlay }}`` line becomes that
    extension's page, the line replaced by the generated overlay.
    """
    if resolutions is None:
        resolutions = verify_map(decision_map, None, trees)
    _require_ok(decision_map, resolutions)
    view = _map_view(decision_map, trees, resolutions)
    site, download = _environment("site"), _environment("markdown")
    name = decision_map.name
    pages = {
        f"{name}/index.md": site.get_template("summary.md.j2").render(m=view),
        f"{name}/map.md": site.get_template("map.md.j2").render(m=view),
        f"{name}/census.md": site.get_template("census.md.j2").render(m=view),
        view.download: download.get_template("export.md.j2").render(m=view),
    }
    if view.problems:
        pages[f"{name}/problems.md"] = site.get_template("problems.md.j2").render(m=view)
    if view.editions:
        pages[f"{name}/{EDITIONS}/index.md"] = site.get_template("editions.md.j2").render(m=view)
        for edition in view.editions:
            pages[f"{name}/{edition.page}"] = site.get_template("edition.md.j2").render(m=view, x=edition)
    for overlay in view.overlays:
        table = site.get_template("overlay.md.j2").render(m=view, o=overlay).strip("\n")
        pages[overlay.page] = _extension_page(overlay, table, pages_dir, site, view)
    return dict(sorted(pages.items()))


def render_site(maps: list[DecisionMap], trees_for: Callable[[DecisionMap], Trees],
                pages_dir: Path | None = None) -> dict[str, str]:
    """The gallery and the pages of every map; a page path generated twice is an error."""
    pages: dict[str, str] = {}
    owners: dict[str, Path] = {}
    problems: list[Problem] = []
    for decision_map in maps:
        for path, text in render_pages(decision_map, trees_for(decision_map), pages_dir).items():
            if path in pages:
                problems.append(Problem(decision_map.path, 0, f"generates {path}, which "
                                        f"{_shown(owners[path])} generates too; rename one of them"))
                continue
            pages[path] = text
            owners[path] = decision_map.path
    if problems:
        raise InputError(problems)
    pages["index.md"] = _environment("site").get_template("gallery.md.j2").render(
        maps=[_gallery_view(m) for m in maps], who_about=WHO_ABOUT)
    return dict(sorted(pages.items()))


def hand_written_collisions(pages: Iterable[str], pages_dir: Path) -> list[Problem]:
    """Hand-written pages that a generated page would silently replace (extension pages excepted)."""
    found = []
    for path in pages:
        if path.startswith("extensions/"):
            continue
        page = pages_dir / path
        if page.is_file():
            found.append(Problem(page, 0, f"is generated from decisions/ as {path}; move the "
                                 "hand-written page elsewhere"))
    return found


def is_download(path: str) -> bool:
    """Whether a rendered path is a file to download rather than a page of the site."""
    return PurePosixPath(path).parts[0] == DOWNLOADS


def site_nav(maps: list[DecisionMap], pages: Iterable[str], hand_written: Iterable[str] = ()) -> list:
    """A MkDocs ``nav``: home, each map's pages, the extensions, then other hand-written pages."""
    pages = set(pages)
    nav: list = [{"Home": "index.md"}]
    for decision_map in maps:
        name = decision_map.name
        items = [("Summary", f"{name}/index.md"), ("The full map", f"{name}/map.md"),
                 ("Problems in the code", f"{name}/problems.md"), ("Census", f"{name}/census.md")]
        # MkDocs themes print nav titles as they are, unescaped: give them escaped plain text
        label = html.escape(_plain(decision_map.title), quote=False)
        section: list = [{title: path} for title, path in items if path in pages]
        editions = [("All editions", f"{name}/{EDITIONS}/index.md")] + [
            (f"{e.from_version} → {e.to_version}", f"{name}/{EDITIONS}/{e.slug}.md")
            for e in reversed(decision_map.editions)]
        if editions[0][1] in pages:
            section.append({"What changed": [{title: path} for title, path in editions if path in pages]})
        nav.append({label: section})
    extensions = sorted({p for p in list(pages) + list(hand_written) if p.startswith("extensions/")})
    if extensions:
        nav.append({"Extensions": [{PurePosixPath(p).stem: p} for p in extensions]})
    listed = {p for item in nav for p in _nav_paths(item)}
    nav += sorted(p for p in hand_written if p not in listed)
    return nav


# --- building the views -------------------------------------------------------------------------


def _require_ok(decision_map: DecisionMap, resolutions: list[Resolution]) -> None:
    bad = [r for r in resolutions if r.status != "ok"]
    if not bad:
        return
    problems = []
    for r in bad:
        where = f", now at {r.resolved[0]}-{r.resolved[1]}" if r.resolved else ""
        problems.append(Problem(r.citation.path, r.citation.line,
                                f"{r.entry.id} cites {r.citation.file}:{r.recorded[0]}-{r.recorded[1]}, "
                                f"which is {r.status} at {r.target}{where} ({r.symbol or 'top level'})"))
    raise DriftError(problems, decision_map.version)


def _map_view(decision_map: DecisionMap, trees: Trees, resolutions: list[Resolution]) -> MapView:
    symbols = {(r.entry.id, r.citation): r.symbol for r in resolutions}
    links = _extension_links(decision_map)
    verdicts = [(edition, entry_verdicts(decision_map, edition)) for edition in reversed(decision_map.editions)]
    marks = {v.entry_id: v.verdict for v in verdicts[0][1]
             if v.verdict in ("changed", "rewritten")} if verdicts else {}
    cards = {}
    for entry in decision_map.entries:
        cites = tuple(_cited_code(decision_map, trees, cite, symbols.get((entry.id, cite), ""))
                      for cite in entry.cites)
        cards[entry.id] = Card(entry, entry.id.lower(), cites, tuple(links.get(entry.id, ())), marks.get(entry.id))
    decisions = [cards[e.id] for e in decision_map.decisions]
    groups = _group_views(decision_map.groups, decisions)
    sections = tuple(SectionView(s.title, tuple(cards[i] for i in s.ids if i in cards))
                     for s in decision_map.sections)
    problems = tuple(cards[e.id] for e in decision_map.problems)
    overlays = tuple(OverlayView(o, tuple(ChangeView(c, anchor, cards.get(c.decision) if c.decision else None)
                                          for c, anchor in zip(o.changes, _change_anchors(o))))
                     for o in sorted(decision_map.overlays, key=lambda o: o.extension))
    editions = tuple(EditionView(edition, tuple(VerdictView(v, _drift_views(decision_map, trees, edition, v))
                                                for v in found))
                     for edition, found in verdicts)
    return MapView(decision_map, cards, groups, sections, problems, overlays,
                   _census(decision_map, decisions, groups, problems), editions)


def _cited_code(decision_map: DecisionMap, trees: Trees, cite: Citation, symbol: str) -> CitedCode:
    # verification passed, so the recorded range holds the same code at the pin
    lines = [line.rstrip("\r") for line in excerpt(trees, decision_map.version, cite.file, cite.start, cite.end)]
    code = textwrap.dedent("\n".join(line.expandtabs(4) for line in lines))
    suffix = PurePosixPath(cite.file).suffix.lower()
    return CitedCode(cite, decision_map.permalink(cite), symbol, _LANGUAGES.get(suffix, "text"),
                     cite.start, cite.end, code)


def _drift_views(decision_map: DecisionMap, trees: Trees, edition: Edition,
                 verdict: EntryVerdict) -> tuple[DriftView, ...]:
    """The old and new code of each drifted citation of an entry, the lines that differ marked."""
    views = []
    for row in verdict.drifted:
        # the old range is where the code was when last checked, which may predate `from`
        old_lines = excerpt(trees, row.checked_at, row.file, *row.old)
        new_lines = excerpt(trees, edition.to_version, row.file, *row.new) if row.new else []
        # with nothing to compare against (the code is gone), no line is marked
        gone, added = _differing(old_lines, new_lines) if new_lines else ((), ())
        whole = len(old_lines) == row.old[1] - row.old[0] + 1
        symbol = trees.symbol(row.checked_at, row.file, *row.old) if whole else ""
        before = _code_at(decision_map, row.file, row.checked_at, row.old, old_lines, gone)
        after = _code_at(decision_map, row.file, edition.to_version, row.new, new_lines, added) if row.new else None
        views.append(DriftView(row, symbol, before, after))
    return tuple(views)


def _code_at(decision_map: DecisionMap, file: str, version: str, lines: tuple[int, int], text: list[str],
             differs: tuple[int, ...]) -> CodeAt | None:
    if not text:
        return None
    code = textwrap.dedent("\n".join(line.rstrip("\r").expandtabs(4) for line in text))
    start, end = lines
    anchor = f"#L{start}" if start == end else f"#L{start}-L{end}"
    # the permalink contract of DESIGN.md: {repo}/blob/v{version}/{file}#L{a}-L{b}
    permalink = f"{decision_map.repo.rstrip('/')}/blob/v{version}/{file}{anchor}"
    return CodeAt(version, start, end, permalink, _LANGUAGES.get(PurePosixPath(file).suffix.lower(), "text"),
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


def _change_anchors(overlay: Overlay) -> list[str]:
    anchors, seen, added = [], Counter(), 0
    for change in overlay.changes:
        if change.decision:
            base = change.decision.lower()
        else:
            added += 1
            base = f"added-{added}"
        seen[base] += 1
        anchors.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return anchors


def _extension_links(decision_map: DecisionMap) -> dict[str, list[ExtensionLink]]:
    links: dict[str, list[ExtensionLink]] = {}
    for overlay in sorted(decision_map.overlays, key=lambda o: o.extension):
        for change, anchor in zip(overlay.changes, _change_anchors(overlay)):
            if change.decision:
                links.setdefault(change.decision, []).append(ExtensionLink(overlay, change, anchor, True))
            for related in change.related:
                links.setdefault(related, []).append(ExtensionLink(overlay, change, anchor, False))
    return links


def _group_views(groups: tuple[Group, ...], decisions: list[Card]) -> tuple[GroupView, ...]:
    by_letter: dict[str, list[Card]] = {}
    for card in decisions:
        by_letter.setdefault(card.entry.group, []).append(card)
    known = {g.id: g for g in groups}
    order = [g.id for g in groups] + sorted(set(by_letter) - set(known))
    return tuple(GroupView(letter, known[letter].title if letter in known else f"Group {letter}",
                           known[letter].about if letter in known else None, tuple(by_letter[letter]))
                 for letter in order if by_letter.get(letter))


def _census(decision_map: DecisionMap, decisions: list[Card], groups: tuple[GroupView, ...],
            problems: tuple[Card, ...]) -> Census:
    total = len(decisions)
    who = tuple(Bar(WHO_SHORT[w], w, n, _percent(n, total))
                for w in WHO for n in [sum(c.entry.decided_by == w for c in decisions)])
    citations = Counter()
    citing: dict[str, set[str]] = {}
    for entry in decision_map.entries:
        for cite in entry.cites:
            citations[cite.file] += 1
            citing.setdefault(cite.file, set()).add(entry.id)
    files = tuple(sorted(((f, n, len(citing[f])) for f, n in citations.items()), key=lambda row: (-row[1], row[0])))
    reviewed = [e.reviewed.date for e in decision_map.entries if e.reviewed]
    upstream = [d for e in decision_map.entries
                for d in ([e.upstream.checked] if e.upstream else []) + [f.checked for f in e.failures if f.checked]]
    return Census(total, len(problems), sum(citations.values()), files, who, groups, len(reviewed),
                  max(reviewed) if reviewed else None, max(upstream) if upstream else None)


def _percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


def _gallery_view(decision_map: DecisionMap) -> dict:
    decisions = decision_map.decisions
    total = len(decisions)
    return {"map": decision_map, "decisions": total, "problems": len(decision_map.problems),
            "citations": sum(len(e.cites) for e in decision_map.entries),
            "who": [Bar(WHO_SHORT[w], w, n, _percent(n, total))
                    for w in WHO for n in [sum(e.decided_by == w for e in decisions)]],
            "overlays": sorted(decision_map.overlays, key=lambda o: o.extension)}


def _extension_page(overlay: OverlayView, table: str, pages_dir: Path | None, site: Environment,
                    view: MapView) -> str:
    hand_written = pages_dir / overlay.page if pages_dir else None
    if hand_written is None or not hand_written.is_file():
        return site.get_template("extension.md.j2").render(m=view, o=overlay, table=Markup(table))
    text = hand_written.read_text(encoding="utf-8")
    lines = text.split("\n")
    slots = [i for i, line in enumerate(lines) if line.strip() == OVERLAY_SLOT]
    if len(slots) != 1:
        how = "has no" if not slots else f"has {len(slots)}"
        raise InputError([Problem(hand_written, slots[1] + 1 if slots else 0,
                                  f"{how} `{OVERLAY_SLOT}` lines; it needs exactly one, where the generated "
                                  f"table of the decisions {overlay.name} changes goes")])
    lines[slots[0]] = table
    return "\n".join(lines)


def _nav_paths(item) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        return [p for value in item.values() for p in _nav_paths(value)]
    if isinstance(item, list):
        return [p for value in item for p in _nav_paths(value)]
    return []


def _shown(path: Path) -> str:
    return str(Problem(path, 0, "")).rstrip(": ")


# --- the two template environments --------------------------------------------------------------


def _environment(kind: str) -> Environment:
    """Templates for the site (``site``) or for the downloadable file (``markdown``).

    Both escape every plain value by default (``finalize``); the filters with the same names
    write the allowed prose and the code in the form each output needs.
    """
    site = kind == "site"
    text = prose.site_text if site else prose.markdown_text
    # autoescape is on so that macros return Markup; finalize does the escaping that fits Markdown
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True, undefined=StrictUndefined,
                      finalize=lambda value: value if isinstance(value, Markup) else Markup(text(str(value))))
    def entry_links(m: MapView | None, base: str):
        """Links from entry IDs in prose to their cards, for a page ``base`` away from the map folder."""
        if not site or m is None:
            return None
        return lambda entry_id: base + m.href(entry_id) if entry_id in m.cards else None

    env.filters.update(
        prose=lambda value, m=None, base="": Markup(
            prose.site_inline(value, entry_links(m, base)) if site else prose.markdown_inline(value)),
        prose_block=lambda value, m=None, base="": Markup(
            prose.site_block(value, entry_links(m, base)) if site else prose.markdown_block(value)),
        plain=lambda value: Markup(text(_plain(value))),
        url=lambda value: Markup(_url(value)),
        attr=lambda value: Markup(_attribute(str(value))),
        code=lambda value: Markup(_html_code(value) if site else prose.code_span(str(value))),
        fence=lambda cited, numbered=True: Markup(_fence(cited, numbered and site)),
        who_short=lambda who: WHO_SHORT[who],
        who_phrase=lambda who: WHO_PHRASE[who],
        count=_count,
    )
    env.globals.update(WHO=WHO, VERDICTS=VERDICTS, number_word=_number_word, count=_count, span=_span)
    return env


def _plain(value: str) -> str:
    """A prose field reduced to its words: for places that take no markup (an <option>, a title)."""
    def words(spans) -> str:
        return "".join(s.text if isinstance(s, (prose.Text, prose.Code)) else words(s.children) for s in spans)

    return " ".join(words(prose.parse(p)) for p in prose.paragraphs(value))


def _url(value: str) -> str:
    """A URL made safe inside a Markdown link or an HTML attribute."""
    if not re.match(r"^https?://", value, re.IGNORECASE) and not value.startswith(("../", "#")) \
            and "://" in value:
        raise ValueError(f"refusing to link to {value!r}")
    return re.sub(r"""[\s()<>"'`\\\[\]{}|^]""", lambda m: f"%{ord(m.group()):02X}", value)


def _attribute(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", value)


def _html_code(value: str) -> str:
    return f"<code>{prose.site_text(value)}</code>"


def _fence(cited: CitedCode | CodeAt, numbered: bool) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", cited.code)), default=2)
    ticks = "`" * max(3, longest + 1)
    options = f' linenums="{cited.start}"' if numbered else ""
    differs = getattr(cited, "differs", ())
    if numbered and differs:  # pymdownx.highlight counts these from 1 at the block's first line
        options += f' hl_lines="{" ".join(str(n) for n in differs)}"'
    return f"{ticks}{cited.language}{options}\n{cited.code}\n{ticks}"


def _span(lines: tuple[int, int]) -> str:
    """A 1-based inclusive range as a person writes it: "7" or "7-12"."""
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"


def _number_word(number: int) -> str:
    return _NUMBER_WORDS[number] if 0 <= number < len(_NUMBER_WORDS) else str(number)
