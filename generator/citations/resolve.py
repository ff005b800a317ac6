"""Resolve citations with tree-sitter: derive an anchor at one version, find it at another.

An anchor is the enclosing named declaration (``AgentSession._beforeToolCall``), the offset of
the cited lines inside it, and a fingerprint of the cited text. Tree-sitter rows are 0-based;
:func:`to_line` is the one place they become this package's 1-based, inclusive lines.
"""

from __future__ import annotations

import bisect
import difflib
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Iterable

import tree_sitter

# Declarations that give a piece of code a name, and the field that holds the name.
_NAME_FIELD = {
    "function_declaration": "name", "generator_function_declaration": "name",
    "class_declaration": "name", "abstract_class_declaration": "name", "class": "name",
    "interface_declaration": "name", "type_alias_declaration": "name", "enum_declaration": "name",
    "internal_module": "name", "module": "name", "function_signature": "name",
    "method_definition": "name", "method_signature": "name", "abstract_method_signature": "name",
    "public_field_definition": "name", "field_definition": "property", "property_signature": "name",
    "variable_declarator": "name", "pair": "key",
}
_NAME_KINDS = {"identifier", "type_identifier", "property_identifier", "private_property_identifier",
               "string", "number", "shorthand_property_identifier"}
_STRING_LEAVES = {"string_fragment", "escape_sequence", "template_string", "string", "regex_pattern"}


def to_line(row: int) -> int:
    """Tree-sitter's 0-based row as this package's 1-based line."""
    return row + 1


@lru_cache(maxsize=None)
def _language(suffix: str) -> tree_sitter.Language | None:
    if suffix in (".ts", ".mts", ".cts"):
        import tree_sitter_typescript as grammar

        return tree_sitter.Language(grammar.language_typescript())
    if suffix == ".tsx":
        import tree_sitter_typescript as grammar

        return tree_sitter.Language(grammar.language_tsx())
    if suffix in (".js", ".mjs", ".cjs", ".jsx"):
        import tree_sitter_javascript as grammar

        return tree_sitter.Language(grammar.language())
    return None


def has_grammar(path: str) -> bool:
    """Whether a file is code the resolver can parse (TypeScript or JavaScript)."""
    return _language(PurePosixPath(path).suffix) is not None


# Node kinds only one of the grammars has (a query naming an unknown kind does not compile).
_ONLY_JAVASCRIPT = {"field_definition"}
_ONLY_TYPESCRIPT = {"abstract_class_declaration", "interface_declaration", "type_alias_declaration",
                    "enum_declaration", "internal_module", "module", "function_signature",
                    "method_signature", "abstract_method_signature", "public_field_definition",
                    "property_signature"}


@lru_cache(maxsize=None)
def _declaration_query(suffix: str) -> tree_sitter.Query | None:
    language = _language(suffix)
    if language is None:
        return None
    skip = _ONLY_TYPESCRIPT if suffix in (".js", ".mjs", ".cjs", ".jsx") else _ONLY_JAVASCRIPT
    return tree_sitter.Query(language, "\n".join(f"({kind} {name_field}: (_) @name) @decl"
                                                 for kind, name_field in _NAME_FIELD.items() if kind not in skip))


class SourceFile:
    """One parsed file: its lines, its syntax tree, and indexes for finding cited text fast."""

    def __init__(self, path: str, data: bytes):
        self.path = path
        self.text = data.decode("utf-8", errors="replace")
        self.lines = self.text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()  # a final newline ends the last line; it does not start another
        self.suffix = PurePosixPath(path).suffix  # the grammar's, as has_grammar() reads it
        self._data = data
        self._tree: tree_sitter.Tree | None = None
        self._squeezed: tuple | None = None
        self._unexported: tuple | None = None
        self._row_offsets: list[int] | None = None
        self._declarations: dict[str, list[tree_sitter.Node]] | None = None
        self._by_path: dict[str, list[tree_sitter.Node]] = {}

    @property
    def tree(self) -> tree_sitter.Tree | None:
        """The syntax tree, parsed on first use: finding text in a file needs no parse."""
        if self._tree is None and self._data is not None:
            language = _language(self.suffix)
            self._tree = tree_sitter.Parser(language).parse(self._data) if language else None
            self._data = None
        return self._tree

    @property
    def line_count(self) -> int:
        return len(self.lines)

    # -- records: a digest of the cited text, to find it again by content --

    def digest(self, first: int, last: int) -> str:
        """The record digest of rows first..last (0-based): their text without whitespace."""
        offsets = self._offsets()
        text = self.squeezed()[0]
        return text_digest(text[offsets[first]:offsets[last + 1]])

    def places_of(self, digest: str, length: int) -> list[tuple[int, int]]:
        """Every run of ``length`` rows (0-based first, last) whose digest is ``digest``."""
        offsets = self._offsets()
        text = self.squeezed()[0]
        return [(row, row + length - 1) for row in range(0, self.line_count - length + 1)
                if text_digest(text[offsets[row]:offsets[row + length]]) == digest]

    def _offsets(self) -> list[int]:
        """Where each row starts in the whitespace-free text (one more entry: the end)."""
        if self._row_offsets is None:
            size, offsets = 0, []
            for line in self.lines:
                offsets.append(size)
                size += len("".join(line.split()))
            offsets.append(size)
            self._row_offsets = offsets
        return self._row_offsets

    # -- text without whitespace, for matching that ignores re-indentation and re-wrapping --

    def squeezed(self, unexported: bool = False) -> tuple[str, list[int], list[int], dict[int, int], dict[int, int]]:
        """The text without whitespace, and where each non-blank line starts and ends in it; with
        ``unexported``, each line without an `export` keyword in front."""
        if (self._unexported if unexported else self._squeezed) is None:
            parts, rows, starts, ends = [], [], {}, {}
            size = 0
            for row, line in enumerate(self.lines):
                bare = squeeze(line, unexported)
                if not bare:
                    continue
                starts[size] = row
                parts.append(bare)
                rows.append(row)
                size += len(bare)
                ends[size - 1] = row
            index = ("".join(parts), rows, sorted(starts), starts, ends)
            if unexported:
                self._unexported = index
            else:
                self._squeezed = index
        return self._unexported if unexported else self._squeezed

    def find(self, fingerprint: str, within: tuple[int, int] | None = None,
             unexported: bool = False) -> list[tuple[int, int]]:
        """Rows (first, last; 0-based) of each place whose text, without whitespace, is ``fingerprint``
        and which starts and ends on whole lines."""
        text, _, _, starts, ends = self.squeezed(unexported)
        found = []
        if not fingerprint:
            return found
        position = text.find(fingerprint)
        while position != -1:
            first_row = starts.get(position)
            last_row = ends.get(position + len(fingerprint) - 1)
            if first_row is not None and last_row is not None:
                if within is None or (within[0] <= first_row and last_row <= within[1]):
                    found.append((first_row, last_row))
            position = text.find(fingerprint, position + 1)
        return found

    # -- declarations --

    def declarations(self, symbol: str) -> list[tree_sitter.Node]:
        """The named declarations whose dotted path is ``symbol`` (``Class.method``), in source order."""
        if symbol not in self._by_path:
            last = symbol.rsplit(".", 1)[-1]
            self._by_path[symbol] = [n for n in self.declarations_by_name().get(last, []) if symbol_path(n) == symbol]
        return self._by_path[symbol]

    def declarations_by_name(self) -> dict[str, list[tree_sitter.Node]]:
        """Every named declaration, by its own name (the last part of its path), in source order."""
        if self._declarations is None:
            # Indexed by the last name only: full paths are computed just for the candidates.
            by_name: dict[str, list[tree_sitter.Node]] = {}
            query = _declaration_query(self.suffix)
            if query is not None and self.tree is not None:
                for _, captures in tree_sitter.QueryCursor(query).matches(self.tree.root_node):
                    node = captures["decl"][0]
                    name = _name(node)
                    if name is not None:
                        by_name.setdefault(name, []).append(node)
            self._declarations = by_name
        return self._declarations

    def enclosing(self, first: int, last: int) -> tree_sitter.Node | None:
        """The innermost named declaration holding rows first..last (0-based), if any."""
        if self.tree is None:
            return None
        start_col = len(self.lines[first]) - len(self.lines[first].lstrip())
        end_col = len(self.lines[last].rstrip())
        node = self.tree.root_node.descendant_for_point_range((first, start_col), (last, max(end_col - 1, 0)))
        while node is not None:
            named = node if _name(node) is not None else _unwrapped(node)
            if named is not None and named.start_point[0] <= first and named.end_point[0] >= last:
                return named
            node = node.parent
        return None

    def touched(self, first: int, last: int, parent: tree_sitter.Node | None) -> list[str]:
        """Paths of the named declarations directly under ``parent`` that rows first..last touch."""
        if self.tree is None:
            return []
        names = []
        stack = [parent or self.tree.root_node]
        while stack and len(names) < 8:
            node = stack.pop()
            for child in reversed(node.named_children):
                if child.end_point[0] < first or child.start_point[0] > last:
                    continue
                if _name(child) is not None:
                    names.append((child.start_point, symbol_path(child)))
                elif child.child_count and child.type != "statement_block":  # (a comment is a leaf)
                    stack.append(child)
        return [n for _, n in sorted(names)]

    def tokens(self, first: int, last: int) -> list[str]:
        """The syntax tokens on rows first..last; inside strings whitespace counts, elsewhere not."""
        if self.tree is None:
            return [_WHITESPACE.sub("", ln) for ln in self.lines[first:last + 1]]
        out = []
        stack = [self.tree.root_node]
        while stack:
            node = stack.pop()
            if node.end_point[0] < first or node.start_point[0] > last:
                continue
            if node.child_count == 0 or node.type in _STRING_LEAVES or node.type == "comment":
                text = node.text.decode("utf-8", errors="replace") if node.text else ""
                out.append(text if node.type in _STRING_LEAVES else _WHITESPACE.sub(" ", text).strip())
                continue
            stack.extend(reversed(node.children))
        return out


_WHITESPACE = re.compile(r"\s+")
_EXPORT = re.compile(r"^\s*export(?=\s|[{*])")


def squeeze(line: str, unexported: bool) -> str:
    """A line without whitespace (and, with ``unexported``, without an `export` keyword in front)."""
    if unexported:
        line = _EXPORT.sub("", line, count=1)
    return "".join(line.split())


def text_digest(squeezed: str) -> str:
    """The short digest a citation's record keeps of its text without whitespace."""
    return hashlib.sha256(squeezed.encode("utf-8")).hexdigest()[:12]


_WRAPPERS = {"export_statement", "lexical_declaration", "variable_declaration"}


def _unwrapped(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The one declaration inside ``export const x = …``: its keywords are outside the declarator,
    so a citation of the whole line lands on the wrapper, not on the name."""
    while node.type in _WRAPPERS:
        inner = [c for c in node.named_children if c.type not in ("comment", "decorator")]
        if len(inner) != 1:
            return None
        node = inner[0]
        if _name(node) is not None:
            return node
    return None


def _name(node: tree_sitter.Node) -> str | None:
    field = _NAME_FIELD.get(node.type)
    if field is None:
        return None
    name = node.child_by_field_name(field)
    if name is None or name.type not in _NAME_KINDS or name.text is None:
        return None
    return name.text.decode("utf-8", errors="replace").strip("'\"`")


def symbol_path(node: tree_sitter.Node) -> str:
    """The dotted path of named declarations from the file down to ``node``."""
    parts = []
    current: tree_sitter.Node | None = node
    while current is not None:
        name = _name(current)
        if name is not None:
            parts.append(name)
        current = current.parent
    return ".".join(reversed(parts))


@dataclass(frozen=True)
class Anchor:
    """What identifies a cited range independently of its line numbers."""

    symbol: str  # enclosing declaration path; "" at file level
    symbol_index: int  # which declaration of that path (overloads, getters and setters share one)
    offset: int  # rows from the declaration's first row (or the file's) to the cited range
    fingerprint: str  # the cited text without whitespace
    lead: int  # blank lines cited before the first non-blank line
    trail: int  # and after the last one
    occurrence: int  # which of the fingerprint's places inside the anchor this is
    occurrences: int  # how many places inside the anchor hold it
    display: str  # what a reader is shown: the symbol, or the declarations the range touches
    parts: tuple[str, ...]  # the declarations the range spans when no single one holds it, else ()
    first: int  # the cited rows (0-based)
    last: int


def anchor_for(source: SourceFile, first: int, last: int) -> Anchor:
    """Derive the anchor of rows first..last (0-based, inclusive) of ``source``."""
    lead = 0
    while first + lead <= last and not source.lines[first + lead].strip():
        lead += 1
    trail = 0
    while last - trail >= first + lead and not source.lines[last - trail].strip():
        trail += 1
    text_first, text_last = first + lead, last - trail
    if text_first > text_last:  # verify's check_citations and `record` refuse such a citation first
        raise ValueError(f"{source.path}: rows {first}-{last} are blank, nothing to anchor to")
    node = source.enclosing(text_first, text_last)
    symbol = symbol_path(node) if node is not None else ""
    siblings = source.declarations(symbol) if node is not None else []
    index = next((i for i, n in enumerate(siblings) if n.id == node.id), 0) if node is not None else 0
    scope = (node.start_point[0], node.end_point[0]) if node is not None else None
    fingerprint = "".join("".join(source.lines[text_first:text_last + 1]).split())
    places = source.find(fingerprint, scope)
    occurrence = next((i for i, p in enumerate(places) if p == (text_first, text_last)), 0)
    parts = _parts(source, text_first, text_last, node)
    display = ", ".join(parts[:3]) + (", …" if len(parts) > 3 else "") if parts else symbol
    return Anchor(symbol, index, text_first - (scope[0] if scope else 0), fingerprint, lead, trail,
                  occurrence, len(places), display, parts, first, last)


def describe(source: SourceFile, first: int, last: int) -> str:
    """What a reader is shown for rows first..last (0-based): the enclosing declaration, or the
    declarations the range spans; cheaper than a full anchor when nothing needs finding."""
    while first < last and not source.lines[first].strip():
        first += 1
    while last > first and not source.lines[last].strip():
        last -= 1
    node = source.enclosing(first, last)
    parts = _parts(source, first, last, node)
    if parts:
        return ", ".join(parts[:3]) + (", …" if len(parts) > 3 else "")
    return symbol_path(node) if node is not None else ""


def _parts(source: SourceFile, first: int, last: int, node: tree_sitter.Node | None) -> tuple[str, ...]:
    """The declarations rows first..last span when the enclosing one (if any) is not what is cited."""
    touched = source.touched(first, last, node)
    if node is not None and (len(touched) <= 1 or (node.start_point[0], node.end_point[0]) == (first, last)):
        return ()
    return tuple(touched)


def _anchored_at(source: SourceFile, rows: tuple[int, int]) -> tuple[str, tuple[str, ...]]:
    """The enclosing declaration and spanned declarations of rows (0-based) of ``source``."""
    node = source.enclosing(*rows)
    return (symbol_path(node) if node is not None else ""), _parts(source, *rows, node)


@dataclass(frozen=True)
class Placement:
    """Where an anchor was found at the target: a status and, when known, rows (0-based)."""

    status: str  # ok | moved | changed | missing | ambiguous
    rows: tuple[int, int] | None
    symbol: str


def place(anchor: Anchor, source: SourceFile, target: SourceFile | None) -> Placement:
    """Find ``anchor`` (derived from ``source``) in ``target`` and classify the result."""
    if target is None:
        return Placement("missing", None, anchor.display)
    scopes = _scopes(anchor, target)
    everywhere = target.find(anchor.fingerprint)
    everywhere = [p for p in everywhere if _same_tokens(source, anchor, target, p, ignore_export=False)]
    chosen = None
    if everywhere:
        inside = [p for p in everywhere if any(s[0] <= p[0] and p[1] <= s[1] for s in scopes)] if scopes else []
        pool = inside or everywhere
        # Among several places, the one whose declarations are the anchor's decides.
        alike = [p for p in pool if _anchored_at(target, p) == (anchor.symbol, anchor.parts)] \
            if len(pool) > 1 else pool
        if len(pool) == 1:
            chosen = pool[0]
        elif len(alike) == 1:
            chosen = alike[0]
        elif (closest := _by_context(source, anchor, target, pool)) is not None:
            chosen = closest
        elif len(pool) == anchor.occurrences and pool is inside:
            chosen = pool[anchor.occurrence]
        else:
            return Placement("ambiguous", None, anchor.display)
    if chosen is not None:
        rows = _with_blank_edges(anchor, target, chosen)
        status = "ok" if rows == (anchor.first, anchor.last) else "moved"
        return Placement(status, rows, anchor.display)
    if anchor.symbol and not scopes:
        return Placement("missing", None, anchor.display)
    if anchor.parts and not any(target.declarations(part) for part in anchor.parts):
        return Placement("missing", None, anchor.display)  # every declaration the range spans is gone
    return Placement("changed", _best_rows(anchor, source, target, scopes), anchor.display)


def _with_blank_edges(anchor: Anchor, target: SourceFile, chosen: tuple[int, int]) -> tuple[int, int]:
    """Cited blank lines around the code come along only where the target has blank lines too:
    never a line of other code in their place."""
    first, last = chosen
    while first > chosen[0] - anchor.lead and first > 0 and not target.lines[first - 1].strip():
        first -= 1
    while last < chosen[1] + anchor.trail and last < target.line_count - 1 and not target.lines[last + 1].strip():
        last += 1
    return first, last


def place_elsewhere(anchor: Anchor, source: SourceFile, others: Iterable[SourceFile]) -> list[tuple[SourceFile, Placement]]:
    """Where code that left its file went: each place in ``others`` holding the cited text
    (whitespace aside) under a declaration of the same name as the anchor's. Several places are
    returned as they are; the caller decides (or calls it ambiguous)."""
    wanted = _last_names(anchor.symbol, anchor.parts)
    if not anchor.fingerprint or not wanted:
        return []  # code at the top level of a file names nothing that could be looked for
    # A declaration that leaves its module for another gains (or loses) `export`: that is part of
    # the move, not a change to its code.
    first, last = anchor.first + anchor.lead, anchor.last - anchor.trail
    fingerprint = "".join(squeeze(line, unexported=True) for line in source.lines[first:last + 1])
    found = []
    for target in others:
        if fingerprint not in target.squeezed(unexported=True)[0]:  # cheap: no parse unless the text is there
            continue
        for rows in target.find(fingerprint, unexported=True):
            if not _same_tokens(source, anchor, target, rows, ignore_export=True):
                continue
            symbol, parts = _anchored_at(target, rows)
            if _last_names(symbol, parts) == wanted:
                found.append((target, Placement("moved", _with_blank_edges(anchor, target, rows),
                                                ", ".join(parts[:3]) + (", …" if len(parts) > 3 else "")
                                                if parts else symbol)))
    return found


def declared_elsewhere(anchor: Anchor, others: Iterable[SourceFile]) -> list[SourceFile]:
    """The files among ``others`` that declare the anchor's symbol (its whole dotted path)."""
    if not anchor.symbol:
        return []
    name = anchor.symbol.rsplit(".", 1)[-1]
    return [target for target in others if name in target.text and target.declarations(anchor.symbol)]


def _last_names(symbol: str, parts: tuple[str, ...]) -> tuple[str, ...]:
    """The names a range sits under, without the declarations around them (a method keeps its name
    when its class is renamed or it becomes a function of another module)."""
    return tuple(p.rsplit(".", 1)[-1] for p in parts) if parts else ((symbol.rsplit(".", 1)[-1],) if symbol else ())


def _by_context(source: SourceFile, anchor: Anchor, target: SourceFile,
                pool: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The one place whose neighbouring lines match the cited code's neighbours best on both sides,
    if one does (as patch(1) places a hunk): lines are compared outwards, whitespace aside, blank
    lines skipped. When one place wins above and another below, nothing decides."""
    above, below = _around(source, anchor.first + anchor.lead, anchor.last - anchor.trail)
    scores = []
    for rows in pool:
        new_above, new_below = _around(target, *rows)
        scores.append((_common(above, new_above), _common(below, new_below)))
    best = (max(a for a, _ in scores), max(b for _, b in scores))
    return pool[scores.index(best)] if sum(best) > 0 and scores.count(best) == 1 else None


_CONTEXT = 30  # non-blank lines compared on each side of a place


def _around(source: SourceFile, first: int, last: int) -> tuple[list[str], list[str]]:
    """The non-blank lines without whitespace above row ``first`` (nearest first) and below ``last``."""
    text, rows, positions, _, _ = source.squeezed()
    start, end = bisect.bisect_left(rows, first), bisect.bisect_right(rows, last)

    def bare(k: int) -> str:
        return text[positions[k]:positions[k + 1] if k + 1 < len(positions) else len(text)]

    return ([bare(k) for k in range(start - 1, max(start - 1 - _CONTEXT, -1), -1)],
            [bare(k) for k in range(end, min(end + _CONTEXT, len(rows)))])


def _common(old: list[str], new: list[str]) -> int:
    """How many leading items two lists share."""
    count = 0
    for a, b in zip(old, new):
        if a != b:
            break
        count += 1
    return count


def _scopes(anchor: Anchor, target: SourceFile) -> list[tuple[int, int]]:
    """Row ranges of the anchor's declaration at the target (the whole file at file level)."""
    if not anchor.symbol:
        return [(0, max(target.line_count - 1, 0))]
    nodes = target.declarations(anchor.symbol)
    return [(n.start_point[0], n.end_point[0]) for n in nodes]


def _same_tokens(source: SourceFile, anchor: Anchor, target: SourceFile, rows: tuple[int, int],
                 ignore_export: bool) -> bool:
    """True when the cited code and the candidate differ at most in whitespace outside strings
    (and, with ``ignore_export``, in an `export` keyword in front)."""
    first, last = anchor.first + anchor.lead, anchor.last - anchor.trail
    old = [ln.strip() for ln in source.lines[first:last + 1]]
    new = [ln.strip() for ln in target.lines[rows[0]:rows[1] + 1]]
    if old == new:  # only indentation moved: the common case, and cheap
        return True
    old_tokens, new_tokens = source.tokens(first, last), target.tokens(rows[0], rows[1])
    if ignore_export:
        old_tokens, new_tokens = ([t for t in tokens if t != "export"] for tokens in (old_tokens, new_tokens))
    return old_tokens == new_tokens


def _best_rows(anchor: Anchor, source: SourceFile, target: SourceFile,
               scopes: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Map the cited rows through a line diff of the anchor's old and new text."""
    if not scopes or not target.line_count:  # an empty file has no line to point at
        return None
    scope = scopes[anchor.symbol_index] if len(scopes) > anchor.symbol_index else scopes[0]
    old_scope_start = anchor.first + anchor.lead - anchor.offset
    # the anchor was taken from ``source``, so its declaration is there, at its index
    old_scope_end = (source.declarations(anchor.symbol)[anchor.symbol_index].end_point[0] if anchor.symbol
                     else source.line_count - 1)
    old = [_WHITESPACE.sub("", ln) for ln in source.lines[old_scope_start:old_scope_end + 1]]
    new = [_WHITESPACE.sub("", ln) for ln in target.lines[scope[0]:scope[1] + 1]]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)

    def mapped(row: int, end: bool) -> int:
        index = row - old_scope_start
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if i1 <= index < i2 or (tag == "insert" and i1 == index and not end):
                if tag == "equal":
                    return scope[0] + j1 + (index - i1)
                # a range's end goes to the last new line of a changed block, or to the line
                # above the block when it was deleted (j1 == j2: it has no new line)
                return scope[0] + (j2 - 1 if end else j1)
        return scope[0] + (len(new) - 1 if end else 0)

    first, last = mapped(anchor.first, False), mapped(anchor.last, True)
    # A declaration cut off at the end of the file ends on the row after its last line.
    end = target.line_count - 1
    first, last = min(first, end), min(last, end)
    return first, max(first, last)
