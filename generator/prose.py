"""The little Markdown that YAML prose may use: inline code, emphasis, strong, http(s) links.

A field is parsed once into spans and written out in one of two forms: for the site (Markdown
whose text is made inert with HTML entities, and whose few allowed constructs are inline HTML
tags), or for the downloadable Markdown file (plain Markdown with everything else escaped).
Anything else in the text, raw HTML included, stays text: a ``<script>`` shows as ``<script>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .schema import is_safe_link

_ENTRY_ID = re.compile(r"(?<![\w-])[A-Z][0-9]{1,4}(?![\w-])")
_PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_URL = re.compile(r"https?://[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*", re.IGNORECASE)

# Characters that Python-Markdown or one of its extensions could read as syntax. Written as
# entities they are only text; letters, digits, spaces and quiet punctuation stay readable.
_SITE_ESCAPES = {ch: f"&#{ord(ch)};" for ch in "\\`*_{}[]#+!|~^=$"}
_SITE_ESCAPES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_SITE_TABLE = str.maketrans(_SITE_ESCAPES)
# Backslash escapes for CommonMark / GitHub Markdown; <, > and & as entities, which every
# Markdown reader decodes.
_MARKDOWN_ESCAPES = {ch: "\\" + ch for ch in "\\`*_{}[]#+!|~^=$"}
_MARKDOWN_ESCAPES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_MARKDOWN_TABLE = str.maketrans(_MARKDOWN_ESCAPES)
# what would open a list, a rule ("---") or a definition at the start of a paragraph
_BLOCK_START = re.compile(r"^(\s*)(\d+)([.)])(?=\s|$)|^(\s*)([-:])")


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Emphasis:
    children: tuple
    strong: bool


@dataclass(frozen=True)
class Link:
    children: tuple
    url: str


Span = Text | Code | Emphasis | Link


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a YAML text: a line break (a blank line in a folded scalar) starts one."""
    return [" ".join(part.split()) for part in text.strip().split("\n") if part.strip()]


def parse(text: str) -> tuple[Span, ...]:
    """Spans of one paragraph (whitespace already collapsed)."""
    return tuple(_merge(_Parser(text).spans(0, len(text), links=True)))


# --- the site: Markdown with entity-escaped text ------------------------------------------------


def site_text(text: str) -> str:
    """Plain text for a Markdown page of the site: every character that could be syntax is an entity."""
    return _guard_block_start(" ".join(str(text).split()).translate(_SITE_TABLE), site=True)


EntryLinks = Callable[[str], "str | None"]  # an entry ID -> the page and anchor of its card


def site_inline(text: str, links: EntryLinks | None = None) -> str:
    """A prose field as one line of the site's Markdown (paragraphs joined by a space).

    With ``links``, entry IDs in the text ("see D2") become links to their cards."""
    return _guard_block_start(" ".join(_site_spans(parse(p), links) for p in paragraphs(text)), site=True)


def site_block(text: str, links: EntryLinks | None = None) -> str:
    """A prose field as Markdown paragraphs of the site, separated by blank lines."""
    return "\n\n".join(_guard_block_start(_site_spans(parse(p), links), site=True) for p in paragraphs(text))


def _site_spans(spans, links: EntryLinks | None = None) -> str:
    out = []
    for span in spans:
        if isinstance(span, Text):
            out.append(_site_text_with_links(span.text, links))
        elif isinstance(span, Code):
            out.append(f"<code>{span.text.translate(_SITE_TABLE)}</code>")
        elif isinstance(span, Emphasis):
            tag = "strong" if span.strong else "em"
            out.append(f"<{tag}>{_site_spans(span.children, links)}</{tag}>")
        else:
            out.append(f'<a href="{_attribute(span.url)}">{_site_spans(span.children)}</a>')
    return "".join(out)


def _site_text_with_links(text: str, links: EntryLinks | None) -> str:
    if links is None:
        return text.translate(_SITE_TABLE)
    out, last = [], 0
    for match in _ENTRY_ID.finditer(text):
        href = links(match.group())
        if href is None:
            continue
        out.append(text[last:match.start()].translate(_SITE_TABLE))
        out.append(f"[{match.group()}]({href})")  # an ID and a generated path: nothing to escape
        last = match.end()
    out.append(text[last:].translate(_SITE_TABLE))
    return "".join(out)


def _attribute(value: str) -> str:
    return (value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;").replace("`", "&#96;"))


# --- the download: plain Markdown -------------------------------------------------------------


def markdown_text(text: str) -> str:
    """Plain text as Markdown that any reader shows exactly as written."""
    return _guard_block_start(" ".join(str(text).split()).translate(_MARKDOWN_TABLE), site=False)


def markdown_inline(text: str) -> str:
    """A prose field as one line of plain Markdown."""
    return _guard_block_start(" ".join(_markdown_spans(parse(p)) for p in paragraphs(text)), site=False)


def markdown_block(text: str) -> str:
    """A prose field as plain Markdown paragraphs."""
    return "\n\n".join(_guard_block_start(_markdown_spans(parse(p)), site=False) for p in paragraphs(text))


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, with a fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _markdown_spans(spans) -> str:
    out = []
    for span in spans:
        if isinstance(span, Text):
            out.append(span.text.translate(_MARKDOWN_TABLE))
        elif isinstance(span, Code):
            out.append(code_span(span.text))
        elif isinstance(span, Emphasis):
            mark = "**" if span.strong else "*"
            out.append(f"{mark}{_markdown_spans(span.children)}{mark}")
        else:
            url = span.url.replace("(", "%28").replace(")", "%29")
            out.append(f"[{_markdown_spans(span.children)}]({url})")
    return "".join(out)


def _guard_block_start(line: str, *, site: bool) -> str:
    """Keep a paragraph from opening a list ("1. ", "- "), a rule ("---") or a definition (": ")."""
    match = _BLOCK_START.match(line)
    if not match:
        return line
    if match.group(2):
        mark = match.group(3)
        escaped = f"&#{ord(mark)};" if site else "\\" + mark
        return match.group(1) + match.group(2) + escaped + line[match.end():]
    mark = match.group(5)
    escaped = f"&#{ord(mark)};" if site else "\\" + mark
    return match.group(4) + escaped + line[match.end():]


# --- the parser ---------------------------------------------------------------------------------


class _Parser:
    """A small, strict reader of the allowed constructs; what it does not recognize is text."""

    def __init__(self, text: str):
        self.text = text

    def spans(self, start: int, end: int, *, links: bool) -> list[Span]:
        text, out, plain, i = self.text, [], [], start
        while i < end:
            ch = text[i]
            if ch == "\\" and i + 1 < end and text[i + 1] in _PUNCTUATION:
                plain.append(text[i + 1])
                i += 2
                continue
            found = None
            if ch == "`":
                found = self._code(i, end)
            elif ch == "[" and links:
                found = self._link(i, end)
            elif ch in "*_":
                found = self._emphasis(i, end, links)
            if found is None:
                if ch == "`":  # an unclosed run of backticks is text, as a whole
                    run = len(text[i:end]) - len(text[i:end].lstrip("`"))
                    plain.append(text[i:i + run])
                    i += run
                    continue
                plain.append(ch)
                i += 1
                continue
            span, i = found
            if plain:
                out.append(Text("".join(plain)))
                plain = []
            out.append(span)
        if plain:
            out.append(Text("".join(plain)))
        return out

    def _code(self, i: int, end: int):
        text = self.text
        run = len(text[i:end]) - len(text[i:end].lstrip("`"))
        fence = "`" * run
        j = i + run
        while True:
            k = text.find(fence, j, end)
            if k < 0:
                return None
            after = k + run
            if (after < end and text[after] == "`") or text[k - 1] == "`":
                j = k + 1
                while j < end and text[j] == "`":
                    j += 1
                continue
            inner = text[i + run:k]
            if len(inner) > 2 and inner.startswith(" ") and inner.endswith(" ") and inner.strip():
                inner = inner[1:-1]
            return Code(inner), after

    def _link(self, i: int, end: int):
        text = self.text
        close = self._closing_bracket(i, end)
        if close is None or close + 1 >= end or text[close + 1] != "(":
            return None
        match = _URL.match(text, close + 2, end)
        if not match or match.end() >= end or text[match.end()] != ")" or not is_safe_link(match.group()):
            return None
        label = self.spans(i + 1, close, links=False)
        if not label:
            return None
        return Link(tuple(_merge(label)), match.group()), match.end() + 1

    def _closing_bracket(self, i: int, end: int) -> int | None:
        depth, j, text = 0, i, self.text
        while j < end:
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                code = self._code(j, end)
                if code is not None:
                    j = code[1]
                    continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        return None

    def _emphasis(self, i: int, end: int, links: bool):
        text = self.text
        mark = text[i]
        strong = text.startswith(mark * 2, i)
        width = 2 if strong else 1
        opener_end = i + width
        if opener_end >= end or text[opener_end].isspace() or text[opener_end] == mark:
            return None
        if mark == "_" and i > 0 and text[i - 1].isalnum():
            return None  # snake_case is not emphasis
        j = opener_end
        while j < end:
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                code = self._code(j, end)
                if code is not None:
                    j = code[1]
                    continue
            if text.startswith(mark * width, j) and not text[j - 1].isspace() and j > opener_end:
                after = j + width
                doubled = after < end and text[after] == mark
                if not doubled and not (mark == "_" and after < end and text[after].isalnum()):
                    children = self.spans(opener_end, j, links=links)
                    return Emphasis(tuple(_merge(children)), strong), after
            j += 1
        return None


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for span in spans:
        if out and isinstance(span, Text) and isinstance(out[-1], Text):
            out[-1] = Text(out[-1].text + span.text)
        else:
            out.append(span)
    return out
