"""What the pages of one map show, computed once from the loaded, verified map.

Everything a reader is told that is derived rather than written (a version, a count, whether a
problem is fixed at the pin, what a review covered) is computed here from the data, so a page can
never say something the data does not: the pinned version comes from ``map.yaml``, a problem
fixed in an earlier release is counted as fixed, and a review older than the pin says what
happened to the entry's code since.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .. import prose
from ...map.model import Citation, DecisionMap, Edition, Entry, Group, Overlay, OverlayChange, Review, shared_modules
from ...citations.verify import Resolution, Trees, excerpt
from .editions import EditionView, VerdictView, edition_views, language

WHO = ("code", "model", "person")
WHO_SHORT = {"code": "Plain code", "model": "AI model", "person": "Person", "none": "Nobody"}
WHO_PHRASE = {"code": "plain code", "model": "an AI model", "person": "a person", "none": "nobody"}
WHO_ABOUT = {
    "code": "a rule written into the program: the same situation always gets the same answer.",
    "model": "the language model judges, as part of its reply; it may judge differently next time.",
    "person": "you are asked, or you settle it yourself with a setting, a flag or a command.",
}
DOWNLOADS = "downloads"  # pages under this folder are files to download, not pages to render
SHORT_AT_MOST = 480  # characters of an answer a row shows; 60 words with code spans fit
OPEN_CODE_LINES = 40  # a cited range up to this long shows open on its entry's page
# An entry citing more lines than this in all shows its code as plain text, without colours or line
# numbers (each range says its lines): highlighted, C10's 1,155 lines made a 373 KB page of 12,000
# elements, 3.6 s to load on a slow phone.
PLAIN_CODE_LINES = 600
_SEVERITY = ("unchanged", "moved", "changed", "rewritten")  # what happened to an entry, mildest first


def version_key(version: str) -> tuple[int, ...]:
    """A release as numbers, for ordering ("1.10.0" after "1.9.2")."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


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

    @property
    def opens(self) -> bool:
        """Short enough to show open on the entry's page (longer ones open with a click)."""
        return self.line_count <= OPEN_CODE_LINES


@dataclass(frozen=True)
class ItemView:
    """One cited sentence of an entry (an exception, a lever, or an override), with its own code."""

    text: str
    cites: tuple[CitedCode, ...]
    by: str | None = None  # an override's holder
    can: str | None = None  # an override's short action, for its badge


@dataclass(frozen=True)
class ExtensionLink:
    """An extension's change that touches a decision, as seen from that decision's page."""

    overlay: Overlay
    change: OverlayChange
    anchor: str  # the change's anchor on the extension's page
    direct: bool  # True: it changes this decision; False: it adds a related one


@dataclass(frozen=True)
class ReviewView:
    """An entry's second reading, and what happened to its cited code since."""

    review: Review
    pin: str
    since: tuple[tuple[Edition, str], ...]  # each later move of the map, with this entry's verdict in it

    @property
    def current(self) -> bool:
        """Read against the pinned release itself."""
        return self.review.version == self.pin

    @property
    def worst(self) -> str | None:
        """The most a later move did to the entry: rewritten, changed, moved or unchanged."""
        found = [verdict for _, verdict in self.since if verdict in _SEVERITY]
        return max(found, key=_SEVERITY.index) if found else None


@dataclass(frozen=True)
class ProbeView:
    """What running pi showed for an entry: the claim, the script and its JSON result."""

    shows: str
    expect: tuple[tuple[str, Any], ...]
    status: str  # "holds" | "fails" | "error"
    version: str
    script: str  # the script's source
    script_name: str
    result: str  # the JSON result, indented
    seconds: float | None
    message: str
    observed: tuple[tuple[str, str], ...] = ()  # what pi printed or sent: (what it is, an excerpt)
    entry_id: str = ""
    # the modules it imports from its folder (probes/_session.mjs…), (name, source): the script alone
    # would not show a reader how its session is built
    shared: tuple[tuple[str, str], ...] = ()

    @property
    def command(self) -> str:
        """The one command that runs this probe again, from a checkout of this project."""
        return f"python -m generator probe {self.entry_id}"

    @property
    def expect_json(self) -> str:
        return ", ".join(f"{name}: {json.dumps(value)}" for name, value in self.expect)


@dataclass(frozen=True)
class Card:
    """A decision or a problem, ready to render."""

    entry: Entry
    anchor: str
    cites: tuple[CitedCode, ...]
    extensions: tuple[ExtensionLink, ...]
    mark: str | None = None  # "changed" or "rewritten" in the latest edition, else None
    history: tuple[tuple[EditionView, VerdictView], ...] = ()  # newest first
    review: ReviewView | None = None
    probe: ProbeView | None = None
    fixed_in: str | None = None  # a problem: the release that fixed it, when one did
    pin: str = ""
    main: tuple[CitedCode, ...] = ()  # the main path's citations (the entry's top-level `cites`)
    exceptions: tuple[ItemView, ...] = ()
    overrules: tuple[ItemView, ...] = ()  # the entry's overrides, each with its citations
    levers: tuple[ItemView, ...] = ()  # changed_by

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def page(self) -> str:
        """The entry's own page, relative to the map's folder (the ID as written)."""
        return f"{self.entry.id}.md"

    @property
    def headline(self) -> str:
        return self.entry.headline

    @property
    def search_boost(self) -> str:
        """Search weighs the page a hair more for a shorter ID: a search for "D1" also matches
        "D10", and then lists D1 first (see generator/site/search_index.py)."""
        return f"{1 + 0.05 / len(self.entry.id):.4f}"

    @property
    def page_description(self) -> str:
        """The opening of the answer (or a problem's description), as prose: a page's description."""
        return prose.first_sentences(self.entry.answer or self.entry.description or "", at_most=170)

    @property
    def short_answer(self) -> str:
        """The answer (or a problem's description) where only it shows, as in a row: whole, as it is
        short (the loader refuses one over 60 words), cut only past SHORT_AT_MOST characters."""
        return prose.first_sentences(self.entry.answer or self.entry.description or "", at_least=SHORT_AT_MOST,
                                     at_most=SHORT_AT_MOST)

    @property
    def overrides(self) -> tuple:
        return tuple(getattr(self.entry, "overrides", ()) or ())

    @property
    def exception_count(self) -> str:
        """"3 exceptions" (empty when there are none): what the short views say of the list."""
        n = len(self.exceptions)
        return f"{n} exception{'' if n == 1 else 's'}" if n else ""

    @property
    def excerpts(self) -> tuple[CitedCode, ...]:
        """The cited code, each range once (an item may cite what another item cites), in file order
        of its first citation; of several citations of one range, the first with a note speaks for it."""
        chosen: dict[tuple[str, int, int], CitedCode] = {}
        for c in self.cites:
            key = (c.citation.file, c.start, c.end)
            if key not in chosen or (chosen[key].citation.note is None and c.citation.note is not None):
                chosen[key] = c
        return tuple(chosen.values())

    def code_anchor(self, cited: CitedCode) -> str:
        """The anchor of a range's excerpt under *Where in the code*, for an item's link to it."""
        keys = [(c.citation.file, c.start, c.end) for c in self.excerpts]
        return f"code-{keys.index((cited.citation.file, cited.start, cited.end)) + 1}"

    @property
    def fixed(self) -> bool:
        """A problem fixed at or before the pinned release: no longer a problem of the pin."""
        return self.fixed_in is not None and version_key(self.fixed_in) <= version_key(self.pin)

    @property
    def plain_code(self) -> bool:
        """Its cited code is shown as plain text (see :data:`PLAIN_CODE_LINES`)."""
        return sum(c.line_count for c in self.cites) > PLAIN_CODE_LINES

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

    @property
    def stage(self) -> str:
        """The group's title cut to a stage name for the diagram ("Ending a run")."""
        return prose.words(re.split(r",|;|:", self.title, maxsplit=1)[0]).strip() or self.id

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
    # what it changes, as its page says and the extensions index shows it (changed_decisions)
    decisions: tuple[str, ...] = ()

    @property
    def through_levers(self) -> tuple[str, ...]:
        """The decisions it changes only through its levers, with no change of their own on its page."""
        linked = {d for change in self.overlay.changes for d in change.linked}
        return tuple(d for d in self.decisions if d not in linked)

    @property
    def overridden(self) -> tuple[str, ...]:
        """The decisions whose answer no longer holds with it, because a decision it adds takes their place."""
        named = {d for c in self.overlay.changes for d in c.overridden}
        return tuple(d for d in self.decisions if d in named)

    @property
    def touched(self) -> tuple[str, ...]:
        """The decisions its changes name as related, that no change is about and none overrides."""
        stated = {c.decision for c in self.overlay.changes} | {d for c in self.overlay.changes for d in c.overridden}
        related = {d for c in self.overlay.changes for d in c.related}
        return tuple(d for d in self.decisions if d in related and d not in stated)

    @property
    def name(self) -> str:
        return self.overlay.extension

    @property
    def page(self) -> str:
        return f"extensions/{self.overlay.extension}.md"


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
    open_problems: int
    citations: int
    files: tuple[tuple[str, int, int], ...]  # (file, citations, entries citing it), most cited first
    who: tuple[Bar, ...]
    overruled: tuple[Bar, ...]  # decisions another holder can overrule, by that holder
    groups: tuple[GroupView, ...]
    reviewed: int  # entries with a recorded independent reading
    reviewed_at_pin: int  # of those, read against the pinned release itself
    last_reviewed: str | None
    last_upstream_check: str | None
    probed: int = 0  # entries whose claim a probe demonstrated in this build


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
    order: tuple[str, ...] = field(default=())  # every entry, in the order of the map's pages

    @property
    def name(self) -> str:
        return self.map.name

    @property
    def version(self) -> str:
        return self.map.version

    @property
    def latest(self) -> EditionView | None:
        return self.editions[0] if self.editions else None

    @property
    def open_problems(self) -> tuple[Card, ...]:
        return tuple(c for c in self.problems if not c.fixed)

    @property
    def fixed_problems(self) -> tuple[Card, ...]:
        return tuple(c for c in self.problems if c.fixed)

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
    def overruled_decision_count(self) -> int:
        """Decisions that another holder than the default one can overrule."""
        return sum(bool(card.overrides) for g in self.groups for card in g.cards)

    @property
    def overruled_percent(self) -> int:
        return percent(self.overruled_decision_count, self.decision_count)

    @property
    def overruled_by_several(self) -> tuple[str, ...]:
        """Decisions that more than one other holder can overrule: the census counts each of them
        once per holder, so its rows add up to more than :attr:`overruled_decision_count`."""
        return tuple(card.id for g in self.groups for card in g.cards
                     if len({o.by for o in card.overrides}) > 1)

    @property
    def id_gaps(self) -> tuple[str, ...]:
        """Where the decisions' IDs skip (a group letter, or numbers in a group), as a reader would
        say it: "there is no group B", "A11 is followed by A16"."""
        letters = sorted(g.id for g in self.groups if len(g.id) == 1 and g.id.isalpha())
        gaps = []
        if letters:
            missing = [chr(c) for c in range(ord(letters[0]), ord(letters[-1]) + 1) if chr(c) not in letters]
            if missing:
                gaps.append("there is no group " + " or ".join(missing))
        for group in self.groups:
            numbers = sorted(int(c.id[1:]) for c in group.cards if c.id[1:].isdigit() and c.id[0] == group.id)
            if numbers and numbers[0] > 1:
                gaps.append(f"{group.id} starts at {group.id}{numbers[0]}")
            gaps += [f"{group.id}{a} is followed by {group.id}{b}" for a, b in zip(numbers, numbers[1:]) if b > a + 1]
        return tuple(gaps)

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
        """Where an entry's page is, relative to the map's folder."""
        return f"{entry_id}.md"

    def link(self, entry_id: str, base: str = "") -> tuple[str, str] | None:
        """An entry ID in prose as a link: its question from ``base``, and its headline (None: no such entry)."""
        card = self.cards.get(entry_id)
        # to the question itself (the page's heading), so landing on it marks it as the target
        return (f"{base}{self.href(entry_id)}#{card.anchor}", prose.words(card.headline)) if card else None

    def shared_levers_of(self, card: Card) -> str | None:
        """The entry listing what any extension can change, when this card's page points to it:
        every decision but that entry itself (problems are not decisions anyone holds)."""
        shared = self.map.shared_levers
        if card.entry.kind == "problem" or shared is None or shared == card.entry.id or shared not in self.cards:
            return None
        return shared

    def neighbours(self, card: Card) -> tuple[Card | None, Card | None]:
        """The entries before and after this one, in the order of the map's pages."""
        at = self.order.index(card.id)
        before = self.cards[self.order[at - 1]] if at > 0 else None
        after = self.cards[self.order[at + 1]] if at + 1 < len(self.order) else None
        return before, after

    def group_of(self, card: Card) -> GroupView | None:
        return next((g for g in self.groups if g.id == card.entry.group), None) if card.entry.kind == "decision" \
            else None

    def issue_url(self, number: int) -> str:
        return f"{self.map.repo.rstrip('/')}/issues/{number}"


# --- building the views -------------------------------------------------------------------------


def map_view(decision_map: DecisionMap, trees: Trees, resolutions: list[Resolution],
             probes: Mapping[str, Any] | None = None) -> MapView:
    """The views of one map; ``probes`` maps entry IDs to the results of their probes, when run."""
    symbols = {(r.entry.id, r.citation): r.symbol for r in resolutions}
    links = _extension_links(decision_map)
    editions = edition_views(decision_map, trees)
    marks = {v.id: v.verdict.verdict for v in editions[0].entries
             if v.verdict.verdict in ("changed", "rewritten")} if editions else {}
    probes = probes or {}
    cards = {}
    for entry in decision_map.entries:
        code = {id(cite): _cited_code(decision_map, trees, cite, symbols.get((entry.id, cite), ""))
                for cite in entry.cites}
        cites = tuple(code[id(cite)] for cite in entry.cites)

        def item(text: str, of: tuple[Citation, ...], by: str | None = None, can: str | None = None) -> ItemView:
            return ItemView(text, tuple(code[id(c)] for c in of), by, can)

        history = tuple((e, v) for e in editions for v in [e.entry(entry.id)] if v is not None)
        cards[entry.id] = Card(entry, entry.id.lower(), cites, tuple(links.get(entry.id, ())), marks.get(entry.id),
                               history, _review(decision_map, entry, editions), _probe(entry, probes.get(entry.id)),
                               fixed_in(entry), decision_map.version,
                               main=tuple(code[id(c)] for c in entry.main_cites),
                               exceptions=tuple(item(i.text, i.cites) for i in entry.exceptions),
                               overrules=tuple(item(o.when, o.cites, o.by, o.can) for o in entry.overrides),
                               levers=tuple(item(i.text, i.cites) for i in entry.changed_by))
    decisions = [cards[e.id] for e in decision_map.decisions]
    groups = _group_views(decision_map.groups, decisions)
    sections = tuple(SectionView(s.title, tuple(cards[i] for i in s.ids if i in cards))
                     for s in decision_map.sections)
    problems = tuple(cards[e.id] for e in decision_map.problems)
    overlays = tuple(OverlayView(o, tuple(ChangeView(worded(c, decision_map), anchor,
                                                     cards.get(c.decision) if c.decision else None)
                                          for c, anchor in zip(o.changes, change_anchors(o))),
                                 changed_decisions(o, decision_map))
                     for o in sorted(decision_map.overlays, key=lambda o: o.extension))
    order = tuple(c.id for g in groups for c in g.cards) + tuple(c.id for c in problems)
    return MapView(decision_map, cards, groups, sections, problems, overlays,
                   _census(decision_map, decisions, groups, problems, cards), editions, order)


def changed_decisions(overlay: Overlay, decision_map: DecisionMap) -> tuple[str, ...]:
    """The decisions an extension changes, the one set its page and the extensions index both show:
    its changes' (with the decisions they name as related or overridden), then its levers', in the
    order first seen. The shared-levers decision is left out (every extension uses it) unless a
    change is about it, and so is an ID the map does not hold."""
    about = {c.decision for c in overlay.changes}
    return tuple(d for d in overlay.decisions
                 if (d != decision_map.shared_levers or d in about) and decision_map.entry(d))


def fixed_in(entry: Entry) -> str | None:
    """The release that fixed a problem (its `upstream.fixed_in`): data, never read out of prose."""
    if entry.kind != "problem" or entry.upstream is None:
        return None
    return entry.upstream.fixed_in


def _review(decision_map: DecisionMap, entry: Entry, editions: tuple[EditionView, ...]) -> ReviewView | None:
    review = entry.reviewed
    if review is None:
        return None
    since = []
    for view in reversed(editions):  # oldest first
        if version_key(view.edition.from_version) < version_key(review.version):
            continue  # a move the reading already saw the result of
        verdict = view.entry(entry.id)
        if verdict is not None:
            since.append((view.edition, verdict.verdict.verdict))
    return ReviewView(review, decision_map.version, tuple(since))


def _probe(entry: Entry, result: Any) -> ProbeView | None:
    """The probe's view, only when it was run in this build (a result is given)."""
    probe = getattr(entry, "probe", None)
    if probe is None or result is None:
        return None
    script_path = Path(getattr(result, "script", "") or probe.script)
    try:
        script = script_path.read_text(encoding="utf-8")
        shared = tuple((m.name, m.read_text(encoding="utf-8").rstrip("\n")) for m in shared_modules(script_path))
    except OSError:
        script, shared = "", ()
    outcome = getattr(result, "result", None)
    shown = {k: v for k, v in outcome.items() if k != "observed"} if isinstance(outcome, dict) else outcome
    return ProbeView(probe.shows, tuple(probe.expect), str(getattr(result, "status", "error")),
                     str(getattr(result, "version", "")), script.rstrip("\n"), script_path.name,
                     json.dumps(shown, indent=2, ensure_ascii=False) if shown is not None else "",
                     getattr(result, "seconds", None), str(getattr(result, "message", "") or ""),
                     observed(outcome), getattr(entry, "id", None) or entry.extension,  # an overlay: its name
                     shared)


OBSERVED_CHARACTERS = 600  # the longest excerpt of what pi printed or sent a page shows


def observed(result: Any) -> tuple[tuple[str, str], ...]:
    """What pi printed or sent in a probe's run, as (what it is, an excerpt): the result's
    ``observed`` object when the probe gives one, else the result's text values (a probe that
    keeps pi's output as a value, such as ``cut_reply_stdout``), each cut to
    :data:`OBSERVED_CHARACTERS`."""
    if not isinstance(result, dict):
        return ()
    given = result.get("observed")
    pairs = given.items() if isinstance(given, dict) else [(k, v) for k, v in result.items() if k != "observed"]
    out = []
    for name, value in pairs:
        if isinstance(value, str) and value.strip():
            text = value if len(value) <= OBSERVED_CHARACTERS else value[:OBSERVED_CHARACTERS] + " …"
            out.append((str(name).replace("_", " "), text))
    return tuple(out)


def _cited_code(decision_map: DecisionMap, trees: Trees, cite: Citation, symbol: str) -> CitedCode:
    # verification passed, so the recorded range holds the same code at the pin
    lines = [line.rstrip("\r") for line in excerpt(trees, decision_map.version, cite.file, cite.start, cite.end)]
    code = textwrap.dedent("\n".join(line.expandtabs(4) for line in lines))
    return CitedCode(cite, decision_map.permalink(cite), symbol, language(cite.file), cite.start, cite.end, code)


def change_anchors(overlay: Overlay) -> list[str]:
    """The anchors of an overlay's changes on the extension's page: the decision's ID, lower case."""
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


def worded(change: OverlayChange, decision_map: DecisionMap) -> OverlayChange:
    """The change with its sides' overrides saying what the decision's own say it can do.

    The side without the extension is pi's own decision, so a holder there who can overrule it is
    named as on the decision's page ("Person can stop the run"), not as "can overrule", unless the
    overlay says what it can do itself. A lever the extension keeps (the same situation on the side
    with it) reads the same; one it adds keeps its own words."""
    entry = decision_map.entry(change.decision) if change.decision else None
    if entry is None:
        return change
    cans = {by: action for by, action in overrule_actions(entry.overrides) if action != "overrule"}

    def fill(override):
        return override if override.can or override.by not in cans else replace(override, can=cans[override.by])

    kept = {o.when for o in change.without.overrides}
    without = replace(change.without, overrides=tuple(fill(o) for o in change.without.overrides))
    with_ = replace(change.with_, overrides=tuple(fill(o) if o.when in kept else o for o in change.with_.overrides))
    return replace(change, without=without, with_=with_)


def _extension_links(decision_map: DecisionMap) -> dict[str, list[ExtensionLink]]:
    links: dict[str, list[ExtensionLink]] = {}
    for overlay in sorted(decision_map.overlays, key=lambda o: o.extension):
        for change, anchor in zip(overlay.changes, change_anchors(overlay)):
            change = worded(change, decision_map)
            if change.decision:
                links.setdefault(change.decision, []).append(ExtensionLink(overlay, change, anchor, True))
            for overridden in change.overridden:  # the added decision takes its place
                links.setdefault(overridden, []).append(ExtensionLink(overlay, change, anchor, True))
            # a decision an added one is next to (the change of a decision of the map names no question
            # to link: its related ones are shown on the extension's page only)
            for related in change.related if not change.decision else ():
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
            problems: tuple[Card, ...], cards: dict[str, Card]) -> Census:
    total = len(decisions)
    who = tuple(Bar(WHO_SHORT[w], w, n, percent(n, total))
                for w in WHO for n in [sum(c.entry.decided_by == w for c in decisions)])
    overruled = tuple(Bar(WHO_SHORT[w], w, n, percent(n, total))
                      for w in WHO for n in [sum(any(o.by == w for o in c.overrides) for c in decisions)] if n)
    citations = Counter()
    citing: dict[str, set[str]] = {}
    for entry in decision_map.entries:
        for cite in distinct_cites(entry):
            citations[cite.file] += 1
            citing.setdefault(cite.file, set()).add(entry.id)
    files = tuple(sorted(((f, n, len(citing[f])) for f, n in citations.items()), key=lambda row: (-row[1], row[0])))
    reviews = [e.reviewed for e in decision_map.entries if e.reviewed]
    upstream = [d for e in decision_map.entries
                for d in ([e.upstream.checked] if e.upstream else []) + [f.checked for f in e.failures if f.checked]]
    return Census(total, len(problems), sum(not c.fixed for c in problems), sum(citations.values()), files, who,
                  overruled, groups, len(reviews), sum(r.version == decision_map.version for r in reviews),
                  max(r.date for r in reviews) if reviews else None, max(upstream) if upstream else None,
                  sum(c.probe is not None for c in cards.values()))


def overrule_actions(overrides) -> list[tuple[str, str]]:
    """What each holder who can overrule can do: (holder, the words after "can"). The overrides'
    own `can` when every one of that holder's overrides names it ("stop the run"), else "overrule"."""
    actions = []
    for by in dict.fromkeys(o.by for o in overrides):
        cans = [getattr(o, "can", None) for o in overrides if o.by == by]
        actions.append((by, " or ".join(dict.fromkeys(prose.words(c) for c in cans)) if all(cans) else "overrule"))
    return actions


def overrule_labels(overrides, default: str | None = None) -> list[tuple[str, str]]:
    """One badge per holder who can overrule: (holder, "Person can stop the run"). Code that
    overrules code (the default holder) is other code: an extension's handler in place of pi's own."""
    return [(by, f"{'Other code' if by == default == 'code' else WHO_SHORT[by]} can {action}")
            for by, action in overrule_actions(overrides)]


def distinct_cites(entry: Entry) -> list[Citation]:
    """The entry's citations, each range once: an entry may cite the same lines for two of its
    statements (its answer and an exception), and a count of citations counts them once."""
    seen: dict[tuple[str, int, int], Citation] = {}
    for cite in entry.cites:
        seen.setdefault((cite.file, cite.start, cite.end), cite)
    return list(seen.values())


def percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


def gallery_view(decision_map: DecisionMap, view: MapView | None = None) -> dict:
    """What the home page shows of a map."""
    decisions = decision_map.decisions
    total = len(decisions)
    return {"map": decision_map, "view": view, "decisions": total, "problems": len(decision_map.problems),
            "citations": sum(len(distinct_cites(e)) for e in decision_map.entries),
            "open_problems": view.open_problems if view else (),
            "who": [Bar(WHO_SHORT[w], w, n, percent(n, total))
                    for w in WHO for n in [sum(e.decided_by == w for e in decisions)]],
            "overlays": sorted(decision_map.overlays, key=lambda o: o.extension)}
