"""The two Jinja2 environments: for the site's pages and for the downloadable Markdown file.

Every value from YAML reaches a page only through the escaping filters below (or the default
escaping, ``finalize``), so it is text, whatever it holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from .. import prose
from ...release.edition import VERDICTS
from .editions import CodeAt
from .views import WHO, WHO_PHRASE, WHO_SHORT, CitedCode, MapView, overrule_labels

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
_NUMBER_WORDS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")


def environment(kind: str) -> Environment:
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
        """Links from entry IDs in prose to their pages, for a page ``base`` away from the map folder."""
        if not site or m is None:
            return None
        return lambda entry_id: m.link(entry_id, base)

    env.filters.update(
        prose=lambda value, m=None, base="": Markup(
            prose.site_inline(value, entry_links(m, base)) if site else prose.markdown_inline(value)),
        prose_block=lambda value, m=None, base="": Markup(
            prose.site_block(value, entry_links(m, base)) if site else prose.markdown_block(value)),
        plain=lambda value: Markup(text(prose.words(value))),
        url=lambda value: Markup(url(value)),
        attr=lambda value: Markup(attribute(str(value))),
        html_attr=lambda value: Markup(html_attribute(prose.words(str(value)))),
        code=lambda value: Markup(f"<code>{prose.site_text(value)}</code>" if site else prose.code_span(str(value))),
        fence=lambda cited, numbered=True: Markup(fence(cited, numbered and site)),
        block=lambda text, language="text": Markup(code_block(str(text), language)),
        who_short=lambda who: WHO_SHORT[who],
        who_phrase=lambda who: WHO_PHRASE[who],
        overrule_labels=overrule_labels,
        count=count,
        front_matter_title=lambda value: Markup(json.dumps(prose.html_text(prose.words(str(value))), ensure_ascii=False)),
        sentence=lambda value: value if str(value).rstrip()[-1:] in (".", "!", "?", "") else str(value).rstrip() + ".",
    )
    env.globals.update(WHO=WHO, VERDICTS=VERDICTS, number_word=number_word, count=count, span=span,
                       who_list=who_list, download_size="")  # render sets the size once it is written
    return env


def url(value: str) -> str:
    """A URL made safe inside a Markdown link or an HTML attribute."""
    # any scheme but http(s) is refused, with or without "//" (javascript:, data:, vbscript:…)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value) and not re.match(r"^https?://", value, re.IGNORECASE):
        raise ValueError(f"refusing to link to {value!r}")
    return re.sub(r"""[\s()<>"'`\\\[\]{}|^]""", lambda m: f"%{ord(m.group()):02X}", value)


def attribute(value: str) -> str:
    """A value reduced to a safe class name or data attribute value."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", value)


def html_attribute(value: str) -> str:
    """Text inside a double-quoted HTML attribute written into a Markdown page (a title, a label).

    HTML-escaped, and every character Markdown could read as syntax is an entity too."""
    return prose.site_text(value).replace('"', "&quot;").replace("'", "&#39;")


def fence(cited: CitedCode | CodeAt, numbered: bool) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", cited.code)), default=2)
    ticks = "`" * max(3, longest + 1)
    options = f' linenums="{cited.start}"' if numbered else ""
    differs = getattr(cited, "differs", ())
    if numbered and differs:  # pymdownx.highlight counts these from 1 at the block's first line
        options += f' hl_lines="{" ".join(str(n) for n in differs)}"'
    return f"{ticks}{cited.language}{options}\n{cited.code}\n{ticks}"


def code_block(text: str, language: str) -> str:
    """Any text as a fenced code block, with a fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{attribute(language)}\n{text}\n{ticks}"


def span(lines: tuple[int, int]) -> str:
    """A 1-based inclusive range as a person writes it: "7" or "7-12"."""
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def file_size(size: int) -> str:
    """A size in bytes as a reader weighs a download: "902 KB", "1.4 MB"."""
    if size < 1_000_000:
        return f"{max(1, round(size / 1000))} KB"
    return f"{size / 1_000_000:.1f} MB"


def count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"


def number_word(number: int) -> str:
    return _NUMBER_WORDS[number] if 0 <= number < len(_NUMBER_WORDS) else str(number)


def who_list(holders) -> str:
    """Holders as a phrase: "a person", "plain code and a person"."""
    names = [WHO_PHRASE.get(h, h) for h in dict.fromkeys(holders)]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
