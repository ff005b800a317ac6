"""The little Markdown that YAML prose may use: inline code, emphasis, strong, http(s) links.

A field is parsed once into spans, by markdown-it-py with only those constructs switched on (raw
HTML, images, autolinks, entities and every block construct stay off), and written out in one of
two forms: for the site (Markdown whose text is made inert with HTML entities, and whose few
allowed constructs are inline HTML tags), or for the downloadable Markdown file (plain Markdown
with everything else escaped). Anything else in the text, raw HTML included, stays text: a
``<script>`` shows as ``<script>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..map.schema import is_safe_link

_ENTRY_ID = re.compile(r"(?<![\w-])[A-Z][0-9]{1,4}(?![\w-])")

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
# an address a link may go to: http(s), with nothing in it that would end an attribute or a tag
_LINK_ADDRESS = re.compile(r"https?://[^\s<>]+", re.IGNORECASE)


def _parser() -> MarkdownIt:
    # "zero": every rule off, and no raw HTML, linkify or typographer (its rules stay off, too)
    md = MarkdownIt("zero")
    md.enable(["escape", "backticks", "emphasis", "link"])
    # The address is kept as written (the writers below escape it for where it goes) and a link
    # to anything but http(s) is not a link at all: its brackets stay text. (A link's text is
    # never normalised: only autolinks and linkify do that, and both are off.)
    md.normalizeLink = lambda url: url
    md.validateLink = lambda url: bool(_LINK_ADDRESS.fullmatch(url)) and is_safe_link(url)
    return md


_MD: MarkdownIt | None = None  # made on first use, not at import (so mutation testing can reach _parser)


def _markdown() -> MarkdownIt:
    global _MD
    if _MD is None:
        _MD = _parser()
    return _MD


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
    if not text:
        return ()
    [inline] = [t for t in _markdown().parseInline(text) if t.type == "inline"]
    return tuple(_merge(_spans(iter(inline.children or []), closing=None)))


def _spans(tokens: Iterator[Token], closing: str | None) -> list[Span]:
    """The spans up to the token that closes ``closing`` (or the end)."""
    out: list[Span] = []
    for token in tokens:
        kind = token.type
        if kind == closing:
            break
        if kind == "code_inline":
            out.append(Code(token.content))
        elif kind in ("em_open", "strong_open"):
            out.append(Emphasis(tuple(_merge(_spans(tokens, kind.replace("_open", "_close")))),
                                kind == "strong_open"))
        elif kind == "link_open":
            children = tuple(_merge(_spans(tokens, "link_close")))
            url = str(token.attrs["href"])
            # `[x]()`: markdown-it makes an empty destination a link without asking validateLink;
            # it is no http(s) address, so it stays text like any other
            out += [Link(children, url)] if url else [Text("["), *children, Text("]()")]
        elif kind == "hardbreak":  # a backslash at a line's end (softbreaks come from a rule left off)
            out.append(Text(" "))
        else:  # "text"; nothing else is switched on, and should a rule slip through, its text stays text
            out.append(Text(token.content))
    return out


def words(text: str) -> str:
    """A prose field reduced to its words, paragraphs joined by a space (for a title or an option)."""
    def flat(spans) -> str:
        return "".join(s.text if isinstance(s, (Text, Code)) else flat(s.children) for s in spans)

    return " ".join(flat(parse(p)) for p in paragraphs(text))


# --- the site: Markdown with entity-escaped text ------------------------------------------------


_HTML_TABLE = str.maketrans({**_SITE_ESCAPES, '"': "&quot;", "'": "&#39;"})


def html_text(text: str) -> str:
    """Text for raw HTML written into a page of the site (an element's text or an attribute's value):
    HTML-escaped, and every character Markdown or a template could read as syntax is an entity."""
    return str(text).translate(_HTML_TABLE)


def site_text(text: str) -> str:
    """Plain text for a Markdown page of the site: every character that could be syntax is an entity."""
    return _guard_block_start(" ".join(str(text).split()).translate(_SITE_TABLE), site=True)


# An entry ID -> where its page is and its headline (shown on hover and focus), or None when the
# ID names no entry. A plain string is taken as the address alone.
EntryLinks = Callable[[str], "tuple[str, str] | str | None"]


def site_inline(text: str, links: EntryLinks | None = None) -> str:
    """A prose field as one line of the site's Markdown (paragraphs joined by a space).

    With ``links``, entry IDs in the text ("see D2") become links to their pages."""
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
        target = links(match.group())
        if target is None:
            continue
        href, headline = (target, "") if isinstance(target, str) else target
        out.append(text[last:match.start()].translate(_SITE_TABLE))
        # An ID and a generated path: nothing to escape there. The headline becomes the link's
        # title (Markdown's own link title, so no raw HTML), escaped like any text of the site, and
        # its `"` as an entity: a quote followed by `)` would end the title and the link early.
        title = f' "{site_text(headline).replace(chr(34), "&quot;")}"' if headline else ""
        out.append(f"[{match.group()}]({href}{title}){{ .dm-ref }}")
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
    # CommonMark takes one space off each end when both ends have one (unless the code is all spaces)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip()) else ""
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


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for span in spans:
        if out and isinstance(span, Text) and isinstance(out[-1], Text):
            out[-1] = Text(out[-1].text + span.text)
        else:
            out.append(span)
    return out


# --- sentences ----------------------------------------------------------------------------------

# a sentence ends at . ! or ? followed by a space, outside code spans; "e.g." and "i.e." do not end one
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+")


def first_sentences(text: str, at_least: int = 40, at_most: int = 220) -> str:
    """The opening of a prose field, as prose: whole sentences until ``at_least`` characters.

    A one-word opening ("No.") takes the next sentence with it. Longer than ``at_most``, the
    text is cut at a word and ends in an ellipsis; a cut never falls inside a code span or a link.
    """
    paragraph = (paragraphs(text) or [""])[0]
    shielded = _shield(paragraph)
    for match in _SENTENCE_END.finditer(shielded):
        taken = paragraph[:match.start()]
        if len(words(taken)) >= at_least:
            break
    else:
        taken = paragraph
    if len(words(taken)) <= at_most:
        return taken
    cut = [m.start() for m in re.finditer(r"\s", shielded[:len(taken)]) if len(words(paragraph[:m.start()])) <= at_most]
    return (paragraph[:cut[-1]] if cut else taken).rstrip(",;:") + " …"


def _shield(paragraph: str) -> str:
    """The paragraph with code spans, links and emphasis blanked out, so their spaces and dots are not
    taken for the end of a sentence or a place to cut (same length, so offsets hold)."""
    return re.sub(r"`[^`]*`|\[[^\]]*\]\([^)]*\)|\*\*[^*]+\*\*|\*[^*]+\*", lambda m: "x" * len(m.group()), paragraph)
