"""A check of every built page: no Markdown or template syntax may reach a reader as text.

The renderer writes YAML text with every character that could be syntax turned into an entity
(``{`` as ``&#123;``, ``#`` as ``&#35;``), so in a built page's HTML source a literal ``{:`` or
``{ #id }`` (an attribute list that Markdown did not apply), ``## `` at the start of a line (a
heading it did not read), ``{{``/``{%``/``{#`` (template text) or ``](…`` (a link it did not read)
outside code can only come from a template or a hand-written page that went wrong. The
site build fails on it, naming the page and what leaked, instead of publishing it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_LEAKS = (
    (re.compile(r"\{:|\{ ?[#.][A-Za-z][\w-]*(?: [^{}]*)?\}"), "an attribute list ({: …}) that Markdown did not apply"),
    (re.compile(r"(?:^|\n)\s*#{1,6}(?: |$)"), "a Markdown heading that was not turned into a heading"),
    (re.compile(r"\{[{%#]|[%}]\}"), "template text ({{ … }}, {% … %} or {# … #})"),
    (re.compile(r"\]\((?:https?://|[^)\s]*\.md\b)"), "a Markdown link that was not turned into a link"),
)
_CODE = {"code", "pre", "script", "style", "textarea"}  # text here is shown as written, on purpose


def find_leaks(html: str) -> list[str]:
    """What leaked into the visible text of a page: one line per finding, with its context."""
    reader = _VisibleText()
    reader.feed(html)
    reader.close()
    found = []
    for line, text in reader.texts:
        for pattern, what in _LEAKS:
            for match in pattern.finditer(text):
                start = max(0, match.start() - 30)
                context = " ".join(text[start:match.end() + 30].split())
                found.append(f"line {line}: {what}: …{context}…")
    return found


class _VisibleText(HTMLParser):
    """Text nodes outside code, as written in the source (entities not decoded: an entity is text
    the renderer escaped on purpose)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.texts: list[tuple[int, str]] = []
        self._inside: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag in _CODE:
            self._inside.append(tag)

    def handle_endtag(self, tag) -> None:
        if self._inside and self._inside[-1] == tag:
            self._inside.pop()

    def handle_data(self, data) -> None:
        if not self._inside and data.strip():
            self.texts.append((self.getpos()[0], data))
