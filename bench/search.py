"""Where the site's search ranks the entry each question asks for, with Material's own search code.

The questions are the browser test's (``SEARCH_QUESTIONS`` and ``SEARCH_MISSES`` in
``tests/test_browser.py``); the search is the worker the built site ships (lunr with Material's
query handling), run in Node on the built ``search/search_index.json`` by ``search_rank.mjs``, so
the ranks are the ones a reader's browser computes, in a second rather than a browser session.

    python bench/search.py [SITE_DIR]     # default: site/ (build it first: make site)

Prints each question's rank of its entry (1 = first; "-" = not among the results) and the first
three pages, then how many reach the first three, and the index's size.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def questions() -> list[tuple[str, str, bool]]:
    """(question, entry ID, held by the test) for every question the browser test asks or lists as missed."""
    tree = ast.parse((ROOT / "tests" / "test_browser.py").read_text(encoding="utf-8"))
    found: dict[str, list] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("SEARCH_QUESTIONS", "SEARCH_MISSES"):
                found[node.targets[0].id] = ast.literal_eval(node.value)
    held = [(q, entry, True) for q, entry in found.get("SEARCH_QUESTIONS", ())]
    missed = [(q, entry, False) for q, entry, *_ in found.get("SEARCH_MISSES", ())]
    return held + missed


def ranks(site: Path, asked: list[str]) -> dict[str, list[str]]:
    """The result links for each question, best first, as the site's own search worker lists them."""
    workers = sorted((site / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise SystemExit(f"{site}: no search worker; build the site first (make site)")
    request = {"worker": str(workers[0]), "index": str(site / "search" / "search_index.json"), "queries": asked}
    run = subprocess.run(["node", str(Path(__file__).with_name("search_rank.mjs"))], input=json.dumps(request),
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(run.stderr.strip() or f"node exited {run.returncode}")
    return {row["query"]: row["links"] for row in json.loads(run.stdout)}


def page(link: str) -> str:
    return link.split("#")[0].rstrip("/").rsplit("/", 1)[-1] or "home"


def main() -> None:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    asked = questions()
    found = ranks(site, [q for q, _, _ in asked])
    top3 = 0
    for question, entry, held in asked:
        pages = [page(link) for link in found[question]]
        rank = pages.index(entry) + 1 if entry in pages else None
        top3 += rank is not None and rank <= 3
        mark = "held  " if held else "missed"
        print(f"{mark} {rank or '-':>3}  {entry:<4} {question!r:<55} first three: {' '.join(pages[:3])}")
    size = (site / "search" / "search_index.json").stat().st_size
    print(f"{top3} of {len(asked)} questions find their entry in the first three; "
          f"search index {size:,} bytes ({size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
