"""The search index, shaped so that a reader's question finds the decision that answers it.

The pages decide what is indexed: each entry's page is one search hit (its sections of code,
history and checks are marked ``data-search-exclude``), and the listings that repeat every
entry (the full map's rows, the summary's table, the edition pages' entries, the loop drawing)
are excluded where they are written.

After the build, each entry's hit is rewritten from the data (:func:`entry_document`):

- ``title``: the ID and the question (a problem: its title), weighed most;
- ``text``: the short answer (a problem: its description), which is all a result shows under the
  question, so a screen holds many results;
- ``more``: a field of our own that search reads but a result never shows: the exceptions, who
  can overrule it and how it can be changed, what checks it, the upstream report, the extensions
  that change it, and its evidence (reproduced or demonstrated by running pi, at which version,
  and what the probe shows), so "reproduced" or "timeout" finds what only the page's detail says.

The weights of the fields (:data:`FIELDS`) were tuned against the questions of
``tests/test_browser.py`` (``SEARCH_QUESTIONS``), with Material's own search run on the index.
Pages that are not entries weigh less (:data:`OTHER_PAGES`): a reader who types a question
wants the decision first, the page that lists every decision second.

One thing cannot be said in the pages: search ranks a term by how rare it is, so "D1", named in
many other entries' text ("see D1"), would rank below "D10", named in few, and a search for
"D1" (which also matches "D10") would list D10 first. So in every document but the entry's own
hit, an entry's ID is written with an invisible word joiner after its letter: it reads the
same in a result, but only the entry's own hit holds the ID as a search term. The entry pages'
boost (a hair higher for a shorter ID, see the entry template) then puts D1 before D10.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Iterable, Mapping

from . import prose

WORD_JOINER = "\u2060"
# Material's search weighs a match by the field it is in; tags hold the entry's ID.
FIELDS = {"title": {"boost": 8.0}, "text": {"boost": 4.0}, "more": {"boost": 1.0}, "tags": {"boost": 1.0}}
OTHER_PAGES = 0.4
# A longer answer (written before answers were kept short) shows its opening; all of it is searched.
SHOWN_WORDS = 60
SHOWN_CHARACTERS = 400
# Words a reader types for what the map says otherwise. Search matches the start of a word
# ("retry" finds "retrying", not "retries"), so a hit that says the map's word also holds the
# reader's, in its hidden field: "done" finds "finished", "escape" finds "abort".
READER_WORDS = (
    (r"finish(?:ed|es)?|complete[ds]?", "done"),
    (r"runs?|ran", "running"),
    (r"shell", "bash terminal"),
    (r"bash", "shell"),
    (r"abort(?:s|ed)?|stop(?:s|ped)?|interrupt(?:s|ed)?", "escape esc cancel"),
    (r"time limit|timeout", "timeout time limit"),
    (r"large|long", "big huge"),
    (r"switched on|active", "enabled"),
    (r"folders?", "directory directories"),
    (r"director(?:y|ies)", "folder"),
    (r"retr(?:y|ies|ied)", "retrying retries"),
    (r"asks?|asked", "asking prompt confirm"),
)
_READER_WORDS = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), words) for pattern, words in READER_WORDS)  # the boost of a hit that is not an entry's own page


def shape_search_index(path: Path, entry_pages: Mapping[str, str],
                       entry_docs: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Rewrite MkDocs' ``search_index.json`` at ``path`` in place.

    ``entry_pages`` maps each entry page's location in the index (``pi/D1/``) to its ID;
    ``entry_docs`` maps the same locations to the fields of :func:`entry_document`."""
    index = json.loads(path.read_text(encoding="utf-8"))
    index["docs"] = shaped_docs(index.get("docs", []), entry_pages, entry_docs or {})
    if entry_docs:
        index.setdefault("config", {})["fields"] = FIELDS
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def shaped_docs(docs: Iterable[dict], entry_pages: Mapping[str, str],
                entry_docs: Mapping[str, Mapping[str, str]] | None = None) -> list[dict]:
    ids = set(entry_pages.values())
    entry_docs = entry_docs or {}
    if not ids:
        return list(docs)
    mention = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ids), key=len, reverse=True)) + r")(?![\w-])")
    out = []
    for doc in docs:
        location = str(doc.get("location", ""))
        own = entry_pages.get(location) if "#" not in location else None
        doc = {**doc, **entry_docs.get(location, {})} if own else doc
        if entry_docs and not own and "boost" not in doc:
            doc = {**doc, "boost": OTHER_PAGES}

        def joined(match: re.Match) -> str:
            entry_id = match.group(1)
            return entry_id[0] + WORD_JOINER + entry_id[1:]

        out.append({**doc, **{key: mention.sub(joined, doc[key]) for key in ("title", "text", "more")
                              if isinstance(doc.get(key), str)}})
    return out


def entry_document(entry, card=None, overlays: Iterable = (), version: str = "") -> dict[str, str]:
    """An entry's search hit: ``text`` (shown under the question) and ``more`` (searched, not shown),
    as HTML-escaped text. ``card`` is the entry's view (for its probe), when there is one."""
    main = (entry.answer if entry.kind == "decision" else entry.description) or ""
    shown = main if len(main.split()) <= SHOWN_WORDS else prose.first_sentences(main, at_least=200, at_most=SHOWN_CHARACTERS)
    more: list[str] = [main] if shown != main else []
    more += [_item_text(x) for x in getattr(entry, "exceptions", ()) or ()]
    more += [o.when for o in entry.overrides]
    changed = entry.changed_by
    more += [changed] if isinstance(changed, str) else [_item_text(x) for x in changed or ()]
    if entry.checks:
        more.append(entry.checks)
    if entry.upstream is not None:
        more.append(f"upstream report issue {entry.upstream.issue} {entry.upstream.status}")
    more += [f"upstream report issue {f.issue} {f.title}" for f in entry.failures]
    probe = getattr(card, "probe", None)
    if probe is not None:
        verb = "reproduced" if entry.kind == "problem" else "demonstrated"
        more.append(f"{verb} by running pi {probe.version}, evidence from a probe: {probe.shows}")
    elif entry.kind == "problem":
        more.append("read in the code, not reproduced by a probe")
    for overlay in overlays:
        for change in overlay.changes:
            if entry.id in change.linked:
                more.append(f"extension {overlay.extension}: {change.how}")
    hidden = " ".join(_html(m) for m in more if m)
    said = " ".join((entry.headline, main, hidden))
    extra = " ".join(words for pattern, words in _READER_WORDS if pattern.search(said))
    exceptions = len(getattr(entry, "exceptions", ()) or ())  # the list is on the page; a result counts it
    counted = f" ({exceptions} exception{'' if exceptions == 1 else 's'})" if exceptions else ""
    return {"text": _html(shown) + counted, "more": f"{hidden} {extra}".strip()}


def _item_text(item) -> str:
    return item if isinstance(item, str) else str(getattr(item, "text", "") or getattr(item, "when", "") or "")


def _html(text: str) -> str:
    """A prose field as the HTML of a search result: escaped text, code spans as code."""
    out = []
    for paragraph in prose.paragraphs(text):
        out.append(_spans(prose.parse(paragraph)))
    return " ".join(out)


def _spans(spans) -> str:
    parts = []
    for span in spans:
        if isinstance(span, prose.Code):
            parts.append(f"<code>{html.escape(span.text)}</code>")
        elif isinstance(span, prose.Text):
            parts.append(html.escape(span.text, quote=False))
        else:
            parts.append(_spans(span.children))
    return "".join(parts)
