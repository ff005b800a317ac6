"""What Material's search is given of a page: the page without the sections it would drop.

Material's search plugin parses each page's content into sections, one per heading, and drops
the sections whose heading is marked ``data-search-exclude`` once they are parsed. On an entry's
page those sections are its cited code, its history and its checks: most of the page (pi/D1/
holds 4,606 highlighted spans): with the pi map built and its probes' results kept, Material's
parse of the pages was 40% of `make site` (12.3 CPU-s, 7.4 without it). :func:`searched_html`
leaves out what follows such a heading, up to the next heading: the sections Material keeps are
the same, and so is the index (tests/test_search_view.py compares them on every kind of page; the
real site's index and pages came out byte for byte the same). `make site` took 9.1 to 9.4 CPU-s
with it against 11.5 to 12.2 without, three builds each; the cut itself is 0.8 of that.

It is exact only where the cut is plain, and leaves the page whole anywhere else:

- the excluded heading stands at the top level of the content (inside no other element): in
  Material's parser, what follows it then goes to its section alone, and no element left open
  around it can carry its exclusion past the cut;
- what is cut, up to the next top-level heading or the content's end, holds no heading at any
  depth (a heading opens a section even inside an excluded element) and closes every element it
  opens, so the parser's stack of open elements is the same after it;
- the content holds nothing this module does not read: no script or style (their text is not
  markup), no ``<`` that starts no tag or comment.

:func:`index_lightly` makes the search plugin read pages through it. The page itself is not
changed: the search plugin reads its content through this view, then goes on with the page whole.
"""

from __future__ import annotations

import re
from typing import Iterable

# an attribute's value as written: quoted (so a quoted ">" ends no tag) or not
_VALUE = r"""(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?"""
_ATTRIBUTE = re.compile(r"""\s+([^\s"'>/=]+)""" + _VALUE)
# a comment, a tag (closing?, name, attributes, self-closed?), or any other "<"
_TOKEN = re.compile(r"""<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:\s+[^\s"'>/=]+""" + _VALUE + r""")*)\s*(/?)>|<""",
                    re.DOTALL)
_HEADINGS = frozenset(f"h{level}" for level in range(1, 7))
# the elements that have no end tag (Material's parser keeps none of them open, as here)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"})
_RAW_TEXT = frozenset({"script", "style"})


class _Unread(Exception):
    """Markup this module does not read: the page goes to the parser whole."""


def searched_html(content: str) -> str:
    """``content`` without what follows each top-level heading marked ``data-search-exclude``, up to the
    next top-level heading, wherever that cut leaves Material's sections as they were (see above)."""
    try:
        tags = list(_tags(content))
    except _Unread:
        return content
    kept, start, index = [], 0, 0
    open_names: list[str] = []
    while index < len(tags):
        closing, name, attributes, _ = tags[index]
        index += 1
        if closing:
            if not open_names or open_names[-1] != name:
                return content  # an end tag the parser would not match: its stack is not this one
            open_names.pop()
            continue
        open_names.append(name)
        if len(open_names) != 1 or name not in _HEADINGS or not _excluded(attributes):
            continue
        end = _closing_tag(tags, index, name)
        stop = _section_end(tags, end + 1) if end is not None else None
        if stop is None:
            continue
        kept.append(content[start:tags[end][3].end()])
        start = tags[stop][3].start() if stop < len(tags) else len(content)
        index, open_names = stop, []
    kept.append(content[start:])
    return "".join(kept)


def _excluded(attributes: str) -> bool:
    """Whether a tag's attributes (as written) hold ``data-search-exclude``, as Material's parser reads them."""
    return any(m.group(1).lower() == "data-search-exclude" for m in _ATTRIBUTE.finditer(attributes))


def _tags(content: str) -> Iterable[tuple[bool, str, str, re.Match]]:
    """Each tag of ``content``, in order: (closing, name, attributes, match); comments are skipped."""
    for match in _TOKEN.finditer(content):
        if match.group(0).startswith("<!--"):
            continue
        name = (match.group(2) or "").lower()
        if not name or name in _RAW_TEXT:
            raise _Unread
        if match.group(4) or name in _VOID:  # <rect/> and <br>: opened and closed at once
            if match.group(1):
                raise _Unread  # </br>
            continue
        yield bool(match.group(1)), name, match.group(3), match


def _closing_tag(tags: list, index: int, name: str) -> int | None:
    """Where the heading opened just before ``index`` closes, if nothing else is left open in it."""
    open_names = [name]
    for position in range(index, len(tags)):
        closing, tag, _, _ = tags[position]
        if not closing:
            if tag in _HEADINGS:
                return None
            open_names.append(tag)
        elif open_names[-1] != tag:
            return None
        else:
            open_names.pop()
            if not open_names:
                return position
    return None


def _section_end(tags: list, index: int) -> int | None:
    """The position of the next top-level heading's tag after ``index`` (or the end), if what lies between
    holds no heading and closes each element it opens; else None."""
    open_names: list[str] = []
    for position in range(index, len(tags)):
        closing, tag, _, _ = tags[position]
        if tag in _HEADINGS:
            # (a heading's end tag here closes nothing this opened: the caller, reading on from it, refuses it)
            return position if not open_names else None
        if not closing:
            open_names.append(tag)
        elif not open_names or open_names[-1] != tag:
            return None  # it closes an element opened before the heading, or another than it opened
        else:
            open_names.pop()
    return len(tags) if not open_names else None


def index_lightly(plugins: Iterable) -> None:
    """Have Material's search plugin (among ``plugins``) read each page through :func:`searched_html`.
    The page's content is put back as soon as the plugin has read it. (A search plugin without the
    index this wraps is left as it is: the site is the same, only its build slower.) Called once per
    build: the search plugin makes its index afresh in each build's configuration."""
    for plugin in plugins:
        index = getattr(plugin, "search_index", None)
        add = getattr(index, "add_entry_from_context", None)
        if add is None:
            continue

        def add_lightly(page, add=add):
            content = page.content
            page.content = searched_html(content)
            try:
                add(page)
            finally:
                page.content = content

        index.add_entry_from_context = add_lightly
