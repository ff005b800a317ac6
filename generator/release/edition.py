"""What an edition says about each entry of a map: unchanged, moved, changed or re-written.

An edition (``decisions/<map>/editions/<from>-to-<to>.yaml``, written by ``bump``) records each
citation's fate between two versions, and a digest of its entry's claim at the bump. Read
against the map as it is now, the rows of one entry give its verdict:

- ``unchanged``: every citation held the same code at the same lines;
- ``moved``: some code moved to other lines, none of it changed;
- ``changed``: some cited code changed (or is gone, or is found twice) and the entry's text is
  what it was at the bump: a person re-read the code and the claim holds;
- ``rewritten``: the entry's text differs from what it was at the bump: it was re-written.

An entry the edition knows but the map no longer holds is ``removed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bump import claim_digest
from ..map.model import DecisionMap, Edition, EditionCitation, Entry

VERDICTS = ("rewritten", "changed", "moved", "unchanged")  # most in need of a reader first
DRIFTED = ("changed", "missing", "ambiguous")  # the citation statuses a person had to settle


@dataclass(frozen=True)
class EntryVerdict:
    """One entry's verdict in one edition, with its edition rows (in the order of its citations)."""

    entry_id: str
    entry: Entry | None  # None: the entry has left the map since the bump
    verdict: str  # one of VERDICTS, or "removed"
    citations: tuple[EditionCitation, ...]

    @property
    def drifted(self) -> tuple[EditionCitation, ...]:
        return tuple(row for row in self.citations if row.status in DRIFTED)

    @property
    def moved(self) -> tuple[EditionCitation, ...]:
        return tuple(row for row in self.citations if row.status == "moved")

    @property
    def unmoved(self) -> tuple[EditionCitation, ...]:
        return tuple(row for row in self.citations if row.status == "ok")

    @property
    def needs_recheck(self) -> bool:
        """A problem whose cited code changed: a fix may have landed upstream."""
        return self.entry is not None and self.entry.kind == "problem" and bool(self.drifted)


def entry_verdicts(decision_map: DecisionMap, edition: Edition) -> tuple[EntryVerdict, ...]:
    """The verdict of every entry the edition holds, in the order of its rows (the entries' IDs)."""
    rows: dict[str, list[EditionCitation]] = {}
    for row in edition.citations:
        rows.setdefault(row.id, []).append(row)
    return tuple(_verdict(entry_id, decision_map.entry(entry_id), tuple(found), edition)
                 for entry_id, found in rows.items())


def _verdict(entry_id: str, entry: Entry | None, rows: tuple[EditionCitation, ...], edition: Edition) -> EntryVerdict:
    if entry is None:
        verdict = "removed"
    # Every row of an entry carries the digest of its claim at the bump. Once the edition records
    # what the entry said when a person settled it, later edits are not this edition's re-write;
    # an edition that records nothing compares with the text as it is now.
    elif any(row.claim != (_settled(edition, entry_id, rows) or claim_digest(entry)) for row in rows):
        verdict = "rewritten"
    elif any(row.status in DRIFTED for row in rows):
        verdict = "changed"
    elif any(row.status == "moved" for row in rows):
        verdict = "moved"
    else:
        verdict = "unchanged"
    return EntryVerdict(entry_id, entry, verdict, rows)


def _settled(edition: Edition, entry_id: str, rows: tuple[EditionCitation, ...]) -> str | None:
    """The entry's claim when it was settled for this edition: as accepted, or, in an edition that
    records settlements, as it was at the bump when nobody had to accept it."""
    if not edition.settled:
        return None
    return edition.settled_claim(entry_id) or rows[0].claim
