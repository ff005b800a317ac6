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

Material's search matches each word of a query as the start of a word (it adds a wildcard), and
a wildcard word skips lunr's stop-word filter: "a" would match every word that starts with an
"a", "when" every "whenever". The index's ``separator`` (:data:`SEPARATOR`, Material's setting of
that name) therefore also splits on the words lunr's filter drops (:data:`STOP_WORDS`), so a
query loses them before it is run, and on punctuation, so "(see" or "/compact" hold the word.

A wildcard word is not stemmed either: "compaction" does not find "compacted", nor "reading"
"read". So each entry's hit also carries, in fields a result never shows, the noun and "-ing"
forms of its words found anywhere in the index (:func:`word_family`: "compacted" brings
"compaction" and "compacting") and the reader's words for the map's (:data:`READER_WORDS`):
``question_words`` for the words of the question, weighed as the question, ``answer_words`` for
the short answer's, and the rest in ``more``. They are words the entry already says, in other
forms.

The weights of the fields (:data:`FIELDS`) were tuned against the questions of
``tests/test_browser.py`` (``SEARCH_QUESTIONS``), with Material's own search run on the index
(``bench/search.py``). Pages that are not entries weigh less (:data:`OTHER_PAGES`): a reader who
types a question wants the decision first, the page that lists every decision second.

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
# Material's search weighs a match by the field it is in; tags hold the entry's ID. The other forms
# of a field's words weigh as that field's words.
FIELDS = {"title": {"boost": 8.0}, "question_words": {"boost": 8.0}, "text": {"boost": 4.0},
          "answer_words": {"boost": 4.0}, "more": {"boost": 1.0}, "tags": {"boost": 1.0}}
# The words lunr's English stop-word filter (the one Material's search runs) leaves out of the index.
STOP_WORDS = (
    "a able about across after all almost also am among an and any are as at be because been but by can cannot "
    "could dear did do does either else ever every for from get got had has have he her hers him his how however "
    "i if in into is it its just least let like likely may me might most must my neither no nor not of off often "
    "on only or other our own rather said say says she should since so some than that the their them then there "
    "these they this tis to too twas us wants was we were what when where which while who whom why will with "
    "would yet you your").split()
# Material's `separator`: what splits text, and a query, into words. Blanks and dashes (Material's
# default), punctuation (a dot only before a non-digit, so "1.6.0" stays whole; an apostrophe stays,
# so "pi's" is not "pi" and a lone "s"), HTML entities, and the stop words, whole, as written at the
# start of a sentence too. No lookbehind and no group that is all lookahead: Material's highlighter
# drops those when it marks the words on the page a result opens.
SEPARATOR = (r"[\s\-,:;!?()\[\]{}\"/“”]+|\.(?!\d)|&(?:quot|amp|lt|gt|#\d+);|\b(?:"
             + "|".join(f"[{w[0].upper()}{w[0]}]{w[1:]}" for w in sorted(STOP_WORDS, key=len, reverse=True))
             + r")\b")
_WORD_SPLIT = re.compile(SEPARATOR)
OTHER_PAGES = 0.4  # the boost of a hit that is not an entry's own page
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
    (r"(?:switched|turned) on|active", "enabled"),
    (r"(?:switched|turned) off|inactive", "disabled"),
    (r"nothing else is (?:configured|set|given)", "default"),
    (r"folders?", "directory directories"),
    (r"director(?:y|ies)", "folder"),
    (r"retr(?:y|ies|ied)", "retrying retries"),
    (r"asks?|asked", "asking prompt confirm"),
)
# Endings taken off to find a word's family, longest first ("ies" before "s").
# ("-ion" only after a "t" or an "s", as the Porter stemmer has it: "region" keeps its "ion".)
_ENDINGS = (("ations", "ate"), ("ation", "ate"), ("tions", "t"), ("tion", "t"), ("sions", "s"), ("sion", "s"),
            ("ies", "y"), ("ied", "y"), ("ying", "y"), ("ings", ""), ("ing", ""), ("sses", "ss"), ("shes", "sh"),
            ("ches", "ch"), ("xes", "x"), ("ed", ""), ("es", "e"), ("s", ""))
_TAG = re.compile(r"<[^>]*>")
# The forms added: the noun and the "-ing" form ("compaction", "reading"), which a reader types for
# a verb and which a prefix cannot reach. Not every form: a reader's "call" matches "calls", and a
# hit that also held "called" and "calling" would score that word three times.
_FORMS_ADDED = ("ion", "ions", "ing")
_READER_WORDS = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), words) for pattern, words in READER_WORDS)


def shape_search_index(path: Path, entry_pages: Mapping[str, str],
                       entry_docs: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Rewrite MkDocs' ``search_index.json`` at ``path`` in place.

    ``entry_pages`` maps each entry page's location in the index (``pi/D1/``) to its ID;
    ``entry_docs`` maps the same locations to the fields of :func:`entry_document`."""
    index = json.loads(path.read_text(encoding="utf-8"))
    index["docs"] = shaped_docs(index.get("docs", []), entry_pages, entry_docs or {})
    if entry_docs:
        index.setdefault("config", {}).update(fields=FIELDS, separator=SEPARATOR)
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
    if entry_docs:
        families = word_families(out)
        out = [_with_reader_words(doc, families) if entry_pages.get(str(doc.get("location", ""))) else doc
               for doc in out]
    return out


def words(text: str) -> list[str]:
    """The words search indexes in a field's text (its HTML tags left out), lower-cased."""
    return [w.lower() for w in _WORD_SPLIT.split(_TAG.sub(" ", text)) if w and not w.isspace()]


def word_family(word: str) -> str:
    """What the forms of a word have in common, found by taking off an ending: "compaction",
    "compacted" and "compacts" give "compact", "retries" and "retrying" give "retry". Cautious: a
    word it cannot tell is its own family, as a form missed costs no search what it finds today,
    while a wrong family would file a word under an entry that does not say it."""
    w = word.lower()
    if not w.isalpha() or len(w) < 4:
        return w
    for ending, instead in _ENDINGS:
        if ending == "s" and w.endswith(("ss", "us", "is")):  # process, status, analysis
            break
        if w.endswith(ending) and len(w) - len(ending) + len(instead) >= 3:
            stem = w[:len(w) - len(ending)] + instead
            if ending in ("ed", "ing") and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # stopped, running
            return stem[:-1] if stem.endswith("e") and len(stem) > 3 else stem
    return w[:-1] if w.endswith("e") else w


def word_families(docs: Iterable[dict]) -> dict[str, set[str]]:
    """Every word of the index, by family (:func:`word_family`)."""
    families: dict[str, set[str]] = {}
    for doc in docs:
        for key in ("title", "text", "more"):
            if isinstance(doc.get(key), str):
                for word in words(doc[key]):
                    families.setdefault(word_family(word), set()).add(word)
    return families


def _with_reader_words(doc: dict, families: Mapping[str, set[str]]) -> dict:
    """An entry's hit with the other forms of its words and the reader's words for them, each by
    the field it stands for (see the module's docstring)."""
    extra = {}
    for field, into in (("title", "question_words"), ("text", "answer_words"), ("more", "more")):
        said = doc.get(field) if isinstance(doc.get(field), str) else ""
        own = set(words(said))
        found = {w for pattern, reader in _READER_WORDS if pattern.search(said) for w in reader.split()} - own
        if into != "more":  # the detail's forms would add more noise than answers (and weight)
            found |= {w for word in own for w in families.get(word_family(word), ())
                      if w.endswith(_FORMS_ADDED) and not any(w.startswith(o) for o in own)}
        # a word that starts another one found or said adds nothing: search matches starts of words
        kept = sorted(w for w in found if not any(o != w and o.startswith(w) for o in found | own))
        if kept:
            extra[into] = f"{said} {' '.join(kept)}" if into == field else " ".join(kept)
    return {**doc, **extra}


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
    exceptions = len(getattr(entry, "exceptions", ()) or ())  # the list is on the page; a result counts it
    counted = f" ({exceptions} exception{'' if exceptions == 1 else 's'})" if exceptions else ""
    return {"text": _html(shown) + counted, "more": hidden}


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
