"""Leads for reviewers: code an entry's citations do not cover that could make its sentences too wide.

An entry's citations show where pi decides; a sentence about that decision is too wide when some
other code decides it differently. This module points at such code without reading any prose: it
takes what the cited lines name (the functions they are in and call, the event names, setting
keys and environment variables they use) and lists the other places in the tree that name the
same thing, plus the other modes' versions of a cited mode file (print, RPC, interactive, SDK).

Every parsable file of the tree is read once per version into a :class:`SiteIndex` (tree-sitter
queries, the same parsed files `verify` uses); each entry then only looks names up.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

import tree_sitter

from ..map.model import Entry
from .resolve import SourceFile, _language, _name, has_grammar, symbol_path, to_line

# How much each kind of link is worth: a name the cited code is defined by (its callers, its events,
# its settings) says more about the claim than a helper it happens to call.
WEIGHTS = {"caller": 4.0, "event": 4.0, "env": 4.0, "setting": 4.0, "mode": 3.0, "property": 2.5, "callee": 1.5}
GENERIC = 60  # a name found at more places than this links nothing in particular: not a lead
# Leads shown per entry by default: a reviewer reads a short list, not a concordance, but an entry
# that cites much claims much, so the list grows with its citations.
LIMIT, PER_CITATION = 15, 2


def default_limit(entry: Entry) -> int:
    """How many leads an entry shows by default: two per citation, at least 15."""
    return max(LIMIT, PER_CITATION * len(entry.cites))

# A mode's entry file: print-mode.ts, rpc-mode.ts, interactive-mode.ts, and the SDK's sdk.ts.
_MODE_FILE = re.compile(r"(?:^|/)(?:[\w-]+-mode|sdk)\.[cm]?[jt]sx?$")
# Event names are snake_case or namespaced ("tool_call", "session:start"); environment variables
# are upper case with an underscore ("PI_CODING_AGENT_DIR").
_EVENT_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[_:][a-z0-9]+)+$")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
# A property or variable name long and particular enough (camelCase, at least this long) to link
# two places that read or write the same value: `grammarToolInputProperties`; not `type` or `options`.
_PROPERTY_LENGTH = 12
_PROPERTY = re.compile(r"^_?[a-z]+[A-Z][A-Za-z0-9]*$")
_IMPORTS = {"import_specifier", "export_specifier", "namespace_import", "import_clause"}  # a name moved, not used
_ACCESSOR = re.compile(r"^(?:get|set|is|has)([A-Z]\w*)$")
# Declarations whose name something can call.
_CALLABLE = {"function_declaration", "generator_function_declaration", "method_definition",
             "method_signature", "abstract_method_signature", "function_signature"}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
# Where a string is a type, not a value (`type: "tool_call"` in an interface), or a module path: not a
# use of it. (An export statement holds either: see _value_string.)
_TYPE_CONTEXTS = {"literal_type", "union_type", "type_annotation", "type_arguments", "property_signature",
                  "index_signature", "predefined_type", "import_statement", "import"}

_QUERY_TS = """
(call_expression function: (identifier) @call)
(call_expression function: (member_expression property: (property_identifier) @call))
(call_expression function: (member_expression property: (private_property_identifier) @call))
(string (string_fragment) @string)
(member_expression object: (member_expression object: (identifier) @_process property: (property_identifier) @_env)
  property: (property_identifier) @env (#eq? @_process "process") (#eq? @_env "env"))
(member_expression object: (_) @_settings property: (property_identifier) @setting (#match? @_settings "[Ss]ettings$"))
(member_expression property: (property_identifier) @property (#match? @property "^_?[a-z]+[A-Z][A-Za-z0-9]*$"))
(pair key: (property_identifier) @property (#match? @property "^_?[a-z]+[A-Z][A-Za-z0-9]*$"))
(shorthand_property_identifier) @property
(identifier) @property (#match? @property "^_?[a-z]+[A-Z][A-Za-z0-9]*$")
"""


@lru_cache(maxsize=None)
def _query(suffix: str) -> tree_sitter.Query | None:
    language = _language(suffix)
    return tree_sitter.Query(language, _QUERY_TS) if language is not None else None


def mode_file(path: str) -> bool:
    """Whether ``path`` is one mode's entry file (print, RPC, interactive) or the SDK's."""
    return bool(_MODE_FILE.search(path))


@dataclass(frozen=True)
class Site:
    """One place a name occurs: a file and a 0-based row."""

    file: str
    row: int


class SiteIndex:
    """Where each name occurs in one version's tree: calls, string literals used as values,
    `process.env` reads, properties of a settings object, and callable declarations."""

    def __init__(self, files: list[SourceFile]):
        self.files = {f.path: f for f in files}
        self.sites: dict[str, dict[str, list[Site]]] = {k: defaultdict(list) for k in
                                                         ("call", "string", "env", "setting", "property", "decl")}
        self._by_file: dict[str, list[tuple[int, str, str]]] = defaultdict(list)  # row, kind, name
        self._functions: dict[tuple[str, int], str] = {}
        for source in files:
            self._read(source)

    def _read(self, source: SourceFile) -> None:
        query = _query(source.suffix)
        if query is None or source.tree is None:
            return
        add = self.sites
        for name, nodes in tree_sitter.QueryCursor(query).captures(source.tree.root_node).items():
            if name.startswith("_"):
                continue
            for node in nodes:
                text = node.text.decode("utf-8", errors="replace") if node.text else ""
                if name == "string" and not _value_string(node):
                    continue
                if name == "property" and (len(text) < _PROPERTY_LENGTH or not _PROPERTY.match(text) or _called(node)
                                           or node.parent.type in _IMPORTS):
                    continue
                # a private method keeps its `#` (`this.#decide()`): its declaration is named `#decide`
                add[name][text].append(Site(source.path, node.start_point[0]))
                self._by_file[source.path].append((node.start_point[0], name, text))
        for names in source.declarations_by_name().values():
            for node in names:
                if _callable(node):
                    add["decl"][_declared_name(node)].append(Site(source.path, node.start_point[0]))

    def in_rows(self, path: str, first: int, last: int) -> dict[str, list[str]]:
        """The names of each kind used on rows first..last (0-based) of a file, in source order."""
        found: dict[str, list[str]] = defaultdict(list)
        for row, kind, name in self._by_file.get(path, ()):
            if first <= row <= last and name not in found[kind]:
                found[kind].append(name)
        return found

    def function_at(self, site: Site) -> str:
        """The dotted path of the function (or, outside any, the declaration) a place is in."""
        key = (site.file, site.row)
        if key not in self._functions:
            source = self.files[site.file]
            node = source.enclosing(site.row, site.row)
            # the function says more than a local variable it assigns (`const parsed = …`)
            node = _enclosing_declaration(node) or node
            self._functions[key] = symbol_path(node) if node is not None else ""
        return self._functions[key]

    def count(self, kind: str, name: str) -> int:
        return len(self.sites[kind].get(name, ()))

    def declared(self, name: str) -> bool:
        return name in self.sites["decl"]


def _value_string(fragment: tree_sitter.Node) -> bool:
    """A string used as a value (an argument, a case, a comparison, an object's value, a default
    export), not a type or a module path."""
    node = fragment.parent  # the string
    parent = node.parent if node is not None else None
    while parent is not None and parent.type in ("parenthesized_expression", "as_expression"):
        parent = parent.parent
    if parent is not None and parent.type == "export_statement":
        # `export … from "./mod"` names a module; `export default "tool_call"` exports a value
        return parent.child_by_field_name("source") != node
    return parent is not None and parent.type not in _TYPE_CONTEXTS


def _called(name: tree_sitter.Node) -> bool:
    """Whether a name is what a call calls (`b()`, `a.b()`: a call, indexed as one)."""
    callee = name if name.type == "identifier" else name.parent
    return callee is not None and callee.parent is not None and callee.parent.type == "call_expression" \
        and callee.parent.child_by_field_name("function") == callee


def _callable(node: tree_sitter.Node) -> bool:
    if node.type in _CALLABLE:
        return True
    if node.type in ("variable_declarator", "public_field_definition", "field_definition", "pair"):
        value = node.child_by_field_name("value")
        return value is not None and value.type in _FUNCTION_VALUES
    return False


def _declared_name(node: tree_sitter.Node) -> str:
    return _name(node) or ""


@dataclass(frozen=True)
class Seed:
    """A name the cited code uses, of one kind, and where the citation that gave it is."""

    kind: str  # caller | callee | event | env | setting | mode
    name: str
    file: str  # the cited file it came from
    line: int  # 1-based, the cited range's first line


@dataclass(frozen=True)
class Lead:
    """One place an entry's citations do not cover that names what the cited code names."""

    id: str
    file: str
    line: int  # 1-based
    symbol: str  # the name that links it to the cited code
    why: str  # a few words
    key: tuple  # what identifies it across versions: (id, file, the function it is in)

    def as_json(self) -> dict:
        return {"id": self.id, "file": self.file, "line": self.line, "symbol": self.symbol, "why": self.why}


@dataclass(frozen=True)
class EntryLeads:
    """An entry's leads, best first, and how many there were before the cap."""

    entry: Entry
    leads: tuple[Lead, ...]
    total: int


Range = tuple[str, int, int]  # a cited file and its rows, 0-based inclusive


def seeds_of(source: SourceFile, first: int, last: int, index: SiteIndex) -> list[Seed]:
    """The names rows first..last (0-based) of ``source`` link to, each with its kind."""
    seeds: dict[tuple[str, str], Seed] = {}
    line = to_line(first)

    def add(kind: str, name: str) -> None:
        seeds.setdefault((kind, name), Seed(kind, name, source.path, line))

    node = source.enclosing(first, last)
    while node is not None and not _callable(node):  # a cited statement: the function it is in
        node = _enclosing_declaration(node.parent)
    if node is not None:
        add("caller", _declared_name(node))
    for nodes in source.declarations_by_name().values():
        for declaration in nodes:
            if first <= declaration.start_point[0] <= last and _callable(declaration):
                add("caller", _declared_name(declaration))
    for kind, names in index.in_rows(source.path, first, last).items():
        for name in names:
            if kind == "call":
                accessor = _ACCESSOR.match(name)
                if accessor and _settings_receiver(source, first, last, name):
                    add("setting", _lower_first(accessor[1]))
                add("callee", name)
                if mode_file(source.path):
                    add("mode", name)
            elif kind == "string":
                if _ENV_NAME.match(name):
                    add("env", name)
                elif _EVENT_NAME.match(name):
                    add("event", name)
            elif kind in ("env", "setting", "property"):
                add(kind, name)
    return list(seeds.values())


def _settings_receiver(source: SourceFile, first: int, last: int, name: str) -> bool:
    """Whether a call of ``name`` in rows first..last is made on a settings object."""
    return any(re.search(rf"[Ss]ettings\w*(?:\(\))?\??\.{re.escape(name)}\(", line)
               for line in source.lines[first:last + 1])


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def _enclosing_declaration(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and not _callable(node):
        node = node.parent
    return node


def _sites(seed: Seed, index: SiteIndex) -> list[Site]:
    if seed.kind in ("caller", "callee"):
        return index.sites["call"].get(seed.name, [])
    if seed.kind == "event":
        return index.sites["string"].get(seed.name, [])
    if seed.kind == "env":
        return index.sites["env"].get(seed.name, []) + index.sites["string"].get(seed.name, [])
    if seed.kind == "setting":
        upper = seed.name[:1].upper() + seed.name[1:]
        accessors = [s for name in (f"get{upper}", f"set{upper}") for s in index.sites["call"].get(name, [])
                     if _settings_receiver(index.files[s.file], s.row, s.row, name)]
        return index.sites["setting"].get(seed.name, []) + accessors
    if seed.kind == "property":
        return index.sites["property"].get(seed.name, [])
    # mode: the same call, or a declaration of the same name, in another mode's file
    return [s for s in index.sites["call"].get(seed.name, []) + index.sites["decl"].get(seed.name, [])
            if mode_file(s.file) and s.file != seed.file]


def _worth(seed: Seed, index: SiteIndex, sites: list[Site]) -> float:
    """A seed's weight, less the more common its name (a name used everywhere links little)."""
    if seed.kind in ("caller", "callee", "mode") and not index.declared(seed.name):
        return 0.0  # a built-in's method (push, map, join): not pi's code
    count = len(sites) if seed.kind != "mode" else index.count("call", seed.name)
    if count == 0 or count > GENERIC:
        return 0.0
    return WEIGHTS[seed.kind] / (1.0 + math.log(count))


_WHY = {
    "caller": "also calls {name}, a function the entry cites",
    "callee": "also calls {name}, which the cited code calls",
    "event": "also emits or handles {name}",
    "env": "also reads or sets {name}",
    "setting": "also reads or writes the {name} setting",
    "mode": "another mode's version: also {name}",
    "property": "also uses {name}, as the cited code does",
}


def entry_leads(entry: Entry, ranges: list[Range], index: SiteIndex, limit: int | None) -> EntryLeads:
    """The leads of one entry, best first. A lead is a function (or a declaration) outside the cited
    ``ranges`` that names what the cited code names; it ranks by how much it shares with the cited
    code: the sum of the weights of the names it shares (a caller of a cited function, an event the
    cited code emits, a setting it reads weigh most; a name used all over the tree weighs little).
    Each lead points at the place of its weightiest name. ``limit`` keeps the first ones (0: all of
    them; None: :func:`default_limit`)."""
    covered: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for path, first, last in ranges:
        covered[path].append((first, last))
    best: dict[tuple[str, str], tuple[float, Seed]] = {}  # (kind, name): the seed, once however often cited
    for path, first, last in ranges:
        source = index.files.get(path)
        if source is None:
            continue
        for seed in seeds_of(source, first, last, index):
            if (seed.kind, seed.name) not in best:
                worth = _worth(seed, index, _sites(seed, index))
                if worth:
                    best[(seed.kind, seed.name)] = (worth, seed)
    # one lead per function: a reviewer reads the function, not each line that names a seed
    functions: dict[tuple[str, str], dict[str, tuple[float, Seed, Site]]] = defaultdict(dict)
    for worth, seed in best.values():
        for site in _sites(seed, index):
            if any(a <= site.row <= b for a, b in covered.get(site.file, ())):
                continue
            shared = functions[(site.file, index.function_at(site))]
            known = shared.get(seed.name)
            if known is None or (worth, -site.row) > (known[0], -known[2].row):
                shared[seed.name] = (worth, seed, site)
    cited_functions = {(path, index.function_at(Site(path, row))) for path, first, last in ranges
                       if path in index.files for row in (first, last)}
    cited_folders = {str(PurePosixPath(path).parent) for path, _, _ in ranges}
    ranked = []
    for (path, function), shared in functions.items():
        names = sorted(shared.values(), key=lambda x: (-x[0], x[2].row, x[1].name))
        worth, seed, site = names[0]
        score = sum(w for w, _, _ in names) * _nearness(path, function, covered, cited_functions, cited_folders)
        ranked.append((-score, -worth, path, site.row, seed, site, len(names) - 1))
    ranked.sort(key=lambda r: r[:4])
    if limit is None:
        limit = default_limit(entry)
    shown = ranked[:limit] if limit else ranked
    return EntryLeads(entry, tuple(_lead(entry, seed, site, index, more) for *_, seed, site, more in shown),
                      len(ranked))


def _nearness(path: str, function: str, covered: dict, cited_functions: set, cited_folders: set) -> float:
    """How near a place is to the cited code: the rest of a cited function (its other branches, its
    early exits) is where an answer most often turns out too wide, then the rest of a cited file,
    then its folder (a sibling provider, another mode)."""
    if (path, function) in cited_functions:
        return 3.0
    if path in covered:
        return 2.0
    if str(PurePosixPath(path).parent) in cited_folders:
        return 1.5
    return 1.0


def _lead(entry: Entry, seed: Seed, site: Site, index: SiteIndex, more: int = 0) -> Lead:
    where = index.function_at(site)
    symbol = f'"{seed.name}"' if seed.kind == "event" else seed.name
    why = _WHY[seed.kind].format(name=symbol)
    if seed.kind == "mode":
        why = f"{PurePosixPath(site.file).stem}'s version: also {symbol}"
    if more:
        why += f", and {more} more name(s) the cited code uses"
    if where:
        why += f" (in {where})"
    return Lead(entry.id, site.file, to_line(site.row), symbol, why, (entry.id, site.file, where))


def cited_ranges(results) -> dict[str, list[Range]]:
    """Each entry's cited ranges at the target of ``results`` (verify's resolutions): where its
    citations are found there; one that is not found covers nothing."""
    cited: dict[str, list[Range]] = defaultdict(list)
    for r in results:
        if r.resolved is not None:
            cited[r.entry.id].append((r.resolved_file, r.resolved[0] - 1, r.resolved[1] - 1))
    return cited


def recorded_ranges(results, version: str) -> dict[str, list[Range]]:
    """Each entry's cited ranges at ``version``, from the citations checked at it (before a bump)."""
    cited: dict[str, list[Range]] = defaultdict(list)
    for r in results:
        if r.checked_at == version:
            cited[r.entry.id].append((r.citation.file, r.recorded[0] - 1, r.recorded[1] - 1))
    return cited


def build_index(trees, version: str) -> SiteIndex:
    """The site index of every parsable file of the tree at ``version`` (each file parsed once,
    shared with whatever else uses ``trees``)."""
    tree = trees.tree(version)
    files = [f for path in sorted(tree.files) if has_grammar(path) and (f := trees.file(version, path)) is not None]
    return SiteIndex(files)


def map_leads(entries: list[Entry], cited: dict[str, list[Range]], index: SiteIndex,
              limit: int | None = None) -> list[EntryLeads]:
    """The leads of each entry, from the ranges ``cited`` holds for its ID (``limit``: as for
    :func:`entry_leads`)."""
    return [entry_leads(entry, cited.get(entry.id, []), index, limit) for entry in entries]


def new_leads(entries: list[Entry], results, trees, old: str, new: str) -> list[EntryLeads]:
    """For each entry whose code changed between ``old`` and ``new`` (a citation not `ok`), the
    leads at ``new`` that were not leads at ``old``: a function is new to the entry when it did not
    share a name with the entry's cited code before (``results``: verify's, from ``old`` to ``new``)."""
    changed = {r.entry.id for r in results if r.status != "ok"}
    entries = [e for e in entries if e.id in changed]
    if not entries:
        return []
    before = map_leads(entries, recorded_ranges(results, old), build_index(trees, old), 0)
    after = map_leads(entries, cited_ranges(results), build_index(trees, new), 0)
    found = []
    for was, now in zip(before, after):
        known = {lead.key for lead in was.leads}
        fresh = [lead for lead in now.leads if lead.key not in known]
        if fresh:
            found.append(EntryLeads(now.entry, tuple(fresh[:default_limit(now.entry)]), len(fresh)))
    return found
