"""A check of every built page: no Markdown or template syntax may reach a reader as text.

The renderer writes YAML text with every character that could be syntax turned into an entity
(``{`` as ``&#123;``, ``#`` as ``&#35;``), so in a built page's HTML source a literal ``{:`` or
``{ #id }`` (an attribute list that Markdown did not apply), ``## `` at the start of a line (a
heading it did not read), ``{{``/``{%``/``{#`` (template text) or ``](…`` (a link it did not read)
outside code can only come from a template or a hand-written page that went wrong. So can a
line that starts with a list marker (``- ``, ``* ``, ``+ ``, ``1. ``) or a table row (``| a | b``,
``|---|``): YAML prose has its ``*``, ``+`` and ``|`` as entities and a ``-`` or a number that
would open a paragraph guarded, so such a line is a list or a table Markdown did not read (a
template that lost the blank line before it, say). The site build fails on it, naming the page
and what leaked, instead of publishing it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_LEAKS = (
    (re.compile(r"\{:|\{ ?[#.][A-Za-z][\w-]*(?: [^{}]*)?\}"), "an attribute list ({: …}) that Markdown did not apply"),
    (re.compile(r"(?:^|\n)\s*#{1,6}(?: |$)"), "a Markdown heading that was not turned into a heading"),
    # a whole {{ … }} is one finding, not one for each end; an end on its own is one too
    (re.compile(r"\{\{[^\n]*?\}\}|\{%[^\n]*?%\}|\{#[^\n]*?#\}|\{[{%#]|[%}]\}"),
     "template text ({{ … }}, {% … %} or {# … #})"),
    (re.compile(r"\]\((?:https?://|[^)\s]*\.md\b)"), "a Markdown link that was not turned into a link"),
)
# These need a line of their own: a "- " or a "|" inside a sentence is ordinary text.
_LINE_LEAKS = (
    (re.compile(r"(?:^|\n)[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?=\S|$)"),
     "a Markdown list item that was not turned into a list"),
    (re.compile(r"(?:^|\n)[ \t]*\|[^\n]*\||(?:^|\n)[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|"),
     "a Markdown table row that was not turned into a table"),
)
_CODE = {"code", "pre", "script", "style", "textarea"}  # text here is shown as written, on purpose
# after one of these opens or closes, the text that follows starts a line as the reader sees it
_BLOCK = {"address", "article", "aside", "blockquote", "body", "br", "dd", "details", "div", "dl", "dt",
          "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li",
          "main", "nav", "ol", "p", "section", "summary", "table", "tbody", "td", "th", "thead", "tr", "ul"}


# A quick first look: code elements cut out and every tag and entity made a line break, so that
# every text starts a line. That finds every leak the exact reading below finds (and some it would
# not), so a page where it finds nothing needs no exact reading: most pages, whose bulk is code.
_CODE_ELEMENT = re.compile(rf"<({'|'.join(sorted(_CODE))})\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG_OR_ENTITY = re.compile(r"<[^>]*>|&#?\w+;")
# the same patterns, where ^ and $ also hold at each line break: a text's ends in the first look
_ROUGH = [re.compile(pattern.pattern, re.MULTILINE) for pattern, _ in (*_LEAKS, *_LINE_LEAKS)]


def find_leaks(html: str) -> list[str]:
    """What leaked into the visible text of a page: one line per finding, with its context."""
    rough = _TAG_OR_ENTITY.sub("\n", _CODE_ELEMENT.sub("\n", html))
    if not any(pattern.search(rough) for pattern in _ROUGH):
        return []
    reader = _VisibleText()
    reader.feed(html)
    reader.close()
    found = []
    for line, text, starts_line in reader.texts:
        # text that follows an inline tag on the same line cannot start a list item or a row
        checked = ((pattern, what, text) for pattern, what in _LEAKS)
        lines = ((pattern, what, text if starts_line else "\0" + text) for pattern, what in _LINE_LEAKS)
        for pattern, what, seen in (*checked, *lines):
            for match in pattern.finditer(seen):
                start = max(0, match.start() - 30)
                context = " ".join(seen[start:match.end() + 30].replace("\0", "").split())
                found.append(f"line {line}: {what}: …{context}…")
    return found


class _VisibleText(HTMLParser):
    """Text nodes outside code, as written in the source (entities not decoded: an entity is text
    the renderer escaped on purpose)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.texts: list[tuple[int, str, bool]] = []  # (line, text, whether it starts a line)
        self._inside: list[str] = []
        self._line_start = True

    def handle_starttag(self, tag, attrs) -> None:
        if tag in _CODE:
            self._inside.append(tag)
        self._line_start = tag in _BLOCK

    def handle_startendtag(self, tag, attrs) -> None:
        self._line_start = tag in _BLOCK

    def handle_endtag(self, tag) -> None:
        if self._inside and self._inside[-1] == tag:
            self._inside.pop()
        self._line_start = tag in _BLOCK

    def handle_data(self, data) -> None:
        if not self._inside and data.strip():
            self.texts.append((self.getpos()[0], data, self._line_start))
        if data.strip():
            self._line_start = data.rstrip(" \t").endswith("\n")

    def handle_entityref(self, name) -> None:
        self._line_start = False

    def handle_charref(self, name) -> None:
        self._line_start = False
