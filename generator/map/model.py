"""The loaded decision map. Every object knows the YAML file and line it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Span:
    """Where a YAML scalar sits in its file: 0-based character offsets, for in-place edits."""

    start: int
    end: int


@dataclass(frozen=True)
class CitationRecord:
    """What a citation cites, written by the tool so that a hand edit or a move can be caught.

    ``digest`` is a short digest of the cited text without whitespace; ``length`` the number of
    cited lines; ``symbol`` the declaration a reader is shown. It holds at the version the citation
    was checked at (its own ``version``, else the map's ``checked_at``)."""

    symbol: str
    length: int
    digest: str


@dataclass(frozen=True)
class Citation:
    """A ``file:lines`` citation. ``start`` and ``end`` are 1-based and inclusive."""

    file: str
    start: int
    end: int
    version: str | None  # the version it was checked at; None means the map's checked version
    note: str | None
    path: Path  # the YAML file
    line: int  # 1-based line of the citation in the YAML file
    lines_span: Span  # the `lines` value, for `fix`
    mapping_span: Span  # the whole citation mapping, for adding keys
    mapping_indent: int | None  # column of its keys when written in block style, else None
    record: CitationRecord | None = None
    file_span: Span | None = None  # the `file` value, for a move to another file
    record_span: Span | None = None  # the `record` value, to replace it
    lines_line: int = 0  # 1-based line of the `lines` key in the YAML file

    @property
    def label(self) -> str:
        name = self.file.rsplit("/", 1)[-1]
        return f"{name}:{self.start}" if self.start == self.end else f"{name}:{self.start}-{self.end}"


@dataclass(frozen=True)
class Failure:
    issue: int
    title: str
    status: str | None
    checked: str | None


@dataclass(frozen=True)
class Upstream:
    issue: int
    status: str
    checked: str
    fixed_in: str | None = None  # the release that fixed the problem, when one did


@dataclass(frozen=True)
class Review:
    version: str
    date: str
    by: str | None
    checked: str | None = None  # what the second reader checked


@dataclass(frozen=True)
class Probe:
    """What running pi shows for an entry: its script is ``<map folder>/probes/<ID>.mjs``.

    ``expect`` holds the result that makes the claim hold, as (name, JSON scalar) pairs in the
    order written; ``line`` is the 1-based line of ``probe:`` in the entry's YAML file."""

    shows: str
    expect: tuple[tuple[str, str | int | float | bool | None], ...]
    path: Path  # the entry's YAML file
    line: int

    @property
    def script(self) -> Path:
        return self.path.parent / "probes" / f"{self.path.stem}.mjs"


@dataclass(frozen=True)
class Item:
    """One cited sentence of an entry: an exception to its main path, or a lever that changes it."""

    text: str
    cites: tuple[Citation, ...]
    path: Path  # the entry's YAML file
    line: int  # 1-based line of the item in it


@dataclass(frozen=True)
class Override:
    """A holder who can overrule the default one (``decided_by``), and in what situation. An entry's
    overrides are cited; an overlay side's are not (its extension has no pinned source)."""

    by: str  # "code" | "model" | "person"
    when: str
    cites: tuple[Citation, ...] = ()
    can: str | None = None  # what the holder can do, a few words after "can": its badge says it


@dataclass(frozen=True)
class Entry:
    """A decision or a problem."""

    id: str
    kind: str  # "decision" | "problem"
    question: str | None
    decided_by: str | None
    answer: str | None
    title: str | None
    description: str | None
    changed_by: tuple[Item, ...]  # one item per lever
    checks: str | None
    failures: tuple[Failure, ...]
    upstream: Upstream | None
    cites: tuple[Citation, ...]  # EVERY citation of the entry, in file order (main, items, overrides)
    reviewed: Review | None
    path: Path
    line: int
    overrides: tuple[Override, ...] = ()
    probe: Probe | None = None
    exceptions: tuple[Item, ...] = ()  # when the main path does not hold
    main_cites: tuple[Citation, ...] = ()  # the top-level `cites`: the main path's own

    @property
    def group(self) -> str:
        return self.id[0]

    @property
    def number(self) -> int:
        return int(self.id[1:])

    @property
    def headline(self) -> str:
        return (self.question if self.kind == "decision" else self.title) or ""


@dataclass(frozen=True)
class NpmPackage:
    """An npm package of a map's source, placed at ``path`` in the tree.

    pi's packages ship compiled JavaScript, so their sources are rebuilt from the source maps; an
    extension ships its own files (``shipped``), which are taken as they are. ``integrity`` is the
    hash the pin records for the map's pinned version, checked against the registry's."""

    package: str
    path: str
    shipped: bool = False
    integrity: str | None = None


@dataclass(frozen=True)
class GitPin:
    url: str
    ref: str
    commit: str | None


@dataclass(frozen=True)
class Source:
    """Where a map's code comes from: npm packages or a git repository (exactly one)."""

    npm: tuple[NpmPackage, ...] = ()
    git: GitPin | None = None


@dataclass(frozen=True)
class Group:
    id: str
    title: str
    about: str | None


@dataclass(frozen=True)
class Section:
    title: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Side:
    decided_by: str
    answer: str
    overrides: tuple[Override, ...] = ()


@dataclass(frozen=True)
class OverlayChange:
    decision: str | None
    question: str | None
    related: tuple[str, ...]
    how: str
    without: Side
    with_: Side
    line: int
    # decisions of the map whose answer no longer holds once the extension is installed: an added
    # decision that takes their place (pi-turn-limit's turn limit, where pi sets none: G7)
    overridden: tuple[str, ...] = ()

    @property
    def linked(self) -> tuple[str, ...]:
        return ((self.decision,) if self.decision else ()) + self.related + self.overridden


@dataclass(frozen=True)
class OverlayLever:
    """One lever an extension uses, what it does with it and the decisions that use changes."""

    lever: str
    kind: str  # "event" | "api" | "process" | "network"
    decisions: tuple[str, ...]
    text: str
    cites: tuple[Citation, ...]
    line: int


@dataclass(frozen=True)
class Overlay:
    """An extension and the map's decisions it changes.

    With ``integrity`` it is pinned on npm: its citations point into the package's own files at
    ``version`` and are resolved, recorded and verified like the map's (see :func:`extension_map`)."""

    extension: str
    package: str | None
    version: str | None
    summary: str | None
    changes: tuple[OverlayChange, ...]
    path: Path
    line: int
    reviewed: Review | None = None
    source: str | None = None  # where the extension's own source is published, when it is
    integrity: str | None = None
    checked_at: str | None = None
    levers: tuple[OverlayLever, ...] = ()
    runs: tuple[Item, ...] = ()
    connects: tuple[Item, ...] = ()
    unchanged: tuple[Item, ...] = ()
    probe: Probe | None = None  # its script: extensions/probes/<name>.mjs; runs with the package loaded

    @property
    def pinned(self) -> bool:
        return self.integrity is not None

    @property
    def cites(self) -> tuple[Citation, ...]:
        """Every citation of the overlay, in file order."""
        items = (*self.levers, *self.runs, *self.connects, *self.unchanged)
        return tuple(sorted((c for item in items for c in item.cites), key=lambda c: c.line))

    @property
    def decisions(self) -> tuple[str, ...]:
        """The decisions the extension changes: its changes' and its levers', in first-seen order."""
        seen = [d for change in self.changes for d in change.linked] + [d for lever in self.levers
                                                                        for d in lever.decisions]
        return tuple(dict.fromkeys(seen))


@dataclass(frozen=True)
class LeverRow:
    """A row of the lever table (levers.yaml): a lever and the decisions it can change."""

    lever: str
    kind: str
    decisions: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class EditionCitation:
    """One citation's fate in a bump. Ranges are 1-based, inclusive."""

    id: str
    file: str
    old: tuple[int, int]
    new: tuple[int, int] | None
    checked_at: str
    status: str
    claim: str  # digest of the entry's claim when it was bumped
    line: int
    new_file: str | None = None  # where the code went, when it moved to another file

    @property
    def file_now(self) -> str:
        return self.new_file or self.file


@dataclass(frozen=True)
class EditionProbe:
    """A probe whose outcome differs between the two versions of a bump ("holds", "fails", "error")."""

    id: str
    before: str
    after: str


@dataclass(frozen=True)
class Edition:
    """A bump of a map from one version to another, and what it found."""

    from_version: str
    to_version: str
    date: str
    citations: tuple[EditionCitation, ...]
    path: Path
    probes: tuple[EditionProbe, ...] = ()  # the probes that flipped between the two versions
    settled: tuple[tuple[str, str], ...] = ()  # (entry ID, claim digest when a person settled it)
    # (entry ID, its answer, or a problem's description, as the map said it at `from_version`)
    before: tuple[tuple[str, str], ...] = ()

    def settled_claim(self, entry_id: str) -> str | None:
        return dict(self.settled).get(entry_id)

    def said_before(self, entry_id: str) -> str | None:
        """What the entry said at the old pin, when the edition records it."""
        return dict(self.before).get(entry_id)

    @property
    def slug(self) -> str:
        return f"{self.from_version}-to-{self.to_version}"


@dataclass(frozen=True)
class DecisionMap:
    name: str  # the folder name, e.g. "pi"
    folder: Path
    title: str
    repo: str
    version: str
    source: Source
    summary: str | None
    groups: tuple[Group, ...]
    sections: tuple[Section, ...]
    checked: str | None
    entries: tuple[Entry, ...] = field(default=())
    checked_at: str | None = None  # the version the citations' records hold at (default: the pin)
    overlays: tuple[Overlay, ...] = field(default=())
    path: Path = Path()
    editions: tuple[Edition, ...] = field(default=())  # oldest first
    shared_levers: str | None = None  # the decision listing what any extension can change
    levers: tuple[LeverRow, ...] = field(default=())  # levers.yaml: each lever and what it can change

    @property
    def recorded_version(self) -> str:
        """The version a citation without its own ``version`` was checked at."""
        return self.checked_at or self.version

    def checked_version(self, citation: Citation) -> str:
        return citation.version or self.recorded_version

    @property
    def decisions(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.kind == "decision")

    @property
    def problems(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.kind == "problem")

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    def permalink(self, citation: Citation, version: str | None = None) -> str:
        """The upstream URL of a citation's lines at a version (default: the pin)."""
        anchor = f"#L{citation.start}" if citation.start == citation.end else f"#L{citation.start}-L{citation.end}"
        return f"{self.repo.rstrip('/')}/blob/v{version or self.version}/{citation.file}{anchor}"


def npm_package_key(package: str) -> str:
    """A folder-safe name for an npm package (``@scope/name`` → ``scope+name``)."""
    return package.lstrip("@").replace("/", "+")


def extension_map(package: str, version: str, *, integrity: str | None = None, checked_at: str | None = None,
                  overlay: Overlay | None = None) -> DecisionMap:
    """An npm extension seen as a map of its own: the package's files as shipped, at ``version``.

    `levers` reads such a tree; a pinned overlay's citations are verified, fixed, recorded and
    bumped through it, as one entry named after the extension (its ID) holding every citation."""
    entries: tuple[Entry, ...] = ()
    path = folder = Path()
    if overlay is not None:
        texts = [overlay.summary or ""] + [i.text for i in (*overlay.levers, *overlay.runs, *overlay.connects,
                                                            *overlay.unchanged)]
        entries = (Entry(id=overlay.extension, kind="extension", question=None, decided_by=None, answer=None,
                         title=overlay.extension, description="\n".join(texts), changed_by=(), checks=None,
                         failures=(), upstream=None, cites=overlay.cites, reviewed=overlay.reviewed,
                         path=overlay.path, line=1),)
        path, folder = overlay.path, overlay.path.parent / overlay.extension
    return DecisionMap(name=f"npm-{npm_package_key(package)}", folder=folder, title=package,
                       repo=f"https://www.npmjs.com/package/{package}", version=version,
                       source=Source(npm=(NpmPackage(package, "", shipped=True, integrity=integrity),)),
                       summary=None, groups=(), sections=(), checked=None, entries=entries,
                       checked_at=checked_at, path=path)
