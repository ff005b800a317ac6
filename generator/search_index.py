"""The search index, shaped so that a search for an entry's ID finds that entry first.

The pages decide what is indexed: each entry's page is one search hit (its sections of code,
history and checks are marked ``data-search-exclude``), and the listings that repeat every
entry (the full map's rows, the summary's table, the edition pages' entries, the loop drawing)
are excluded where they are written. Each entry's page carries its ID as a tag, which Material's
search weighs above everything else.

One thing cannot be said in the pages: search ranks a term by how rare it is, so "D1", named in
many other entries' text ("see D1"), would rank below "D10", named in few, and a search for
"D1" (which also matches "D10") would list D10 first. So in every document but the entry's own
page, an entry's ID is written with an invisible word joiner after its letter: it reads the
same in a result, but only the entry's own page holds the ID as a search term. The entry pages'
boost (a hair higher for a shorter ID, see the entry template) then puts D1 before D10.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Mapping

WORD_JOINER = "\u2060"


def shape_search_index(path: Path, entry_pages: Mapping[str, str]) -> None:
    """Rewrite MkDocs' ``search_index.json`` at ``path`` in place.

    ``entry_pages`` maps each entry page's location in the index (``pi/D1/``) to its ID."""
    index = json.loads(path.read_text(encoding="utf-8"))
    index["docs"] = shaped_docs(index.get("docs", []), entry_pages)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def shaped_docs(docs: Iterable[dict], entry_pages: Mapping[str, str]) -> list[dict]:
    ids = set(entry_pages.values())
    if not ids:
        return list(docs)
    mention = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ids), key=len, reverse=True)) + r")(?![\w-])")
    out = []
    for doc in docs:
        location = str(doc.get("location", ""))
        own = entry_pages.get(location) if "#" not in location else None

        def joined(match: re.Match) -> str:
            entry_id = match.group(1)
            return match.group() if entry_id == own else entry_id[0] + WORD_JOINER + entry_id[1:]

        out.append({**doc, **{key: mention.sub(joined, doc[key]) for key in ("title", "text")
                              if isinstance(doc.get(key), str)}})
    return out
