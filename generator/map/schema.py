"""The shape of the YAML files, written once.

The loader validates against these specs and ``python -m generator schema`` turns the same
specs into JSON Schema for editors, so the two can never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ID_PATTERN = r"^[A-Z][0-9]{1,4}$"
LINES_PATTERN = r"^[0-9]+(-[0-9]+)?$"
VERSION_PATTERN = r"^[0-9A-Za-z][0-9A-Za-z.+-]*$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DIGEST_PATTERN = r"^[0-9a-f]{12}$"
MAX_TEXT = 4000  # characters; a longer field is a mistake (or an attack), not prose


@dataclass(frozen=True)
class Spec:
    """A YAML value's expected shape; ``doc`` becomes the editor's hover text."""

    doc: str = ""


@dataclass(frozen=True)
class Text(Spec):
    """A string; ``pattern`` (a regex) restricts it, ``prose`` allows the limited Markdown."""

    pattern: str | None = None
    prose: bool = False
    max_length: int = MAX_TEXT
    max_words: int | None = None  # counted as len(text.split()); refused above, with ``words_hint``
    words_hint: str = ""


@dataclass(frozen=True)
class Choice(Spec):
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class Integer(Spec):
    minimum: int = 1


@dataclass(frozen=True)
class LineRange(Spec):
    """``42`` or ``"658-681"``: 1-based, inclusive."""


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec = field(default_factory=Spec)
    min_items: int = 0
    not_a_list: str = ""  # what to do when a single value is written where the list belongs


@dataclass(frozen=True)
class FlatMapping(Spec):
    """A mapping of names (``key_pattern``) to JSON scalars: text, numbers, true/false, null."""

    key_pattern: str = r"^[A-Za-z_][A-Za-z0-9_]*$"
    min_items: int = 1
    max_items: int = 40


@dataclass(frozen=True)
class Record(Spec):
    """A mapping with known keys; any other key is an error (typo protection)."""

    fields: dict[str, Spec] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    # required keys that depend on another key's value: {("kind", "problem"): ("title", ...)}
    required_when: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)
    one_of: tuple[tuple[str, ...], ...] = ()  # exactly one key of each tuple must be present


CITATION = Record(
    doc="A file:line citation into the pinned source.",
    fields={
        "file": Text(doc="Path inside the source tree, as in pi's git repository."),
        "lines": LineRange(doc="1-based inclusive range `A-B`, or one line `N`."),
        "version": Text(pattern=VERSION_PATTERN, doc="The version this citation was last checked at "
                        "(default: the map's version)."),
        "note": Text(prose=True, doc="What this citation shows, when an entry has several."),
        "record": Record(
            doc="Written by the tool (`record`, `fix`, `bump`, `accept`, `new`), never by hand: what the "
                "citation cites, so that a range or pin edited by hand, or code moved to another file, "
                "is caught.",
            fields={
                "symbol": Text(doc="The declaration the cited lines sit in (or span)."),
                "length": Integer(doc="How many lines are cited."),
                "digest": Text(pattern=DIGEST_PATTERN, doc="Digest of the cited text without whitespace."),
            },
            required=("symbol", "length", "digest"),
        ),
    },
    required=("file", "lines"),
)

CITES = ListOf(item=CITATION, min_items=1, doc="The citations that show it (at least one).")

MAIN_PATH_WORDS = 40  # what an answer or a description aims at
MAX_MAIN_PATH_WORDS = 60  # what the loader refuses above
MAIN_PATH_HINT = (f"keep the main path, at most {MAIN_PATH_WORDS} words, and move each exception to an "
                  "`exceptions` item with its citation")

ITEM = Record(
    doc="One cited sentence: an exception to the main path, or a lever that changes it.",
    fields={
        "text": Text(prose=True, doc="One sentence, true of the cited code."),
        "cites": CITES,
    },
    required=("text", "cites"),
)
EXCEPTIONS = ListOf(item=ITEM, min_items=1, doc="When the main path does not hold: one item per case, each one "
                    "sentence saying when and what happens then, with its own citations.")
CHANGED_BY = ListOf(item=ITEM, min_items=1, doc="Where a person, a setting or an extension can change it: one item "
                    "per lever, each with its own citations.",
                    not_a_list="write changed_by as a list of items, each with text and cites")

CAN_PATTERN = r"^(?![Cc]an )[^\n]*[^.\s]$"  # the words after "can": not "can" again, no full stop
WHO = Choice(options=("code", "model", "person"), doc="Who holds the judgment: plain code, an AI model, or a person.")


_OVERRIDE_FIELDS: dict[str, Spec] = {
    "by": Choice(options=("code", "model", "person"), doc="Who can overrule: code, model or person."),
    "when": Text(prose=True, doc="In what situation, and how, it overrules the default holder."),
    "can": Text(prose=True, max_length=48, max_words=6, pattern=CAN_PATTERN,
                words_hint="say it in a few words after 'can', e.g. `stop the run`",
                doc="What the holder can do, in a few words that follow 'can' (no full stop): e.g. "
                    "`stop the run`. The badge then says 'Person can stop the run' instead of 'Person "
                    "can overrule'."),
    "cites": CITES,
}
# An entry's override is cited like every other clause; an overlay's side's need not be (the seed
# extensions have no source to cite). Written out, not made by a function: the schema is built as
# the module is imported, before mutmut's mutants could change it; the committed JSON schemas pin it.
OVERRIDE = Record(doc="Another holder who can overrule the default one, and when, with the citations that show it.",
                  fields=_OVERRIDE_FIELDS, required=("by", "when", "cites"))
SIDE_OVERRIDE = Record(doc="Another holder who can overrule the default one, and when.", fields=_OVERRIDE_FIELDS,
                       required=("by", "when"))
OVERRIDES = ListOf(item=OVERRIDE, min_items=1, doc="Who can overrule the default holder (decided_by), and when: "
                   "e.g. code decides, and a person can veto. One item per lever, each cited.")
SIDE_OVERRIDES = ListOf(item=SIDE_OVERRIDE, min_items=1, doc="Who can overrule the default holder, and when.")

FAILURE = Record(
    doc="A recorded failure: an upstream issue or fix, never an invented one.",
    fields={
        "issue": Integer(doc="Issue or pull request number in the map's upstream tracker."),
        "title": Text(prose=True, doc="What went wrong, in a line."),
        "status": Text(prose=True, doc="What the tracker showed when checked."),
        "checked": Text(pattern=DATE_PATTERN, doc="When the status was checked (YYYY-MM-DD)."),
    },
    required=("issue", "title"),
)

UPSTREAM = Record(
    doc="The upstream report of a problem.",
    fields={
        "issue": Integer(doc="Issue number in the map's upstream tracker."),
        "status": Text(prose=True, doc="What the tracker showed when checked."),
        "checked": Text(pattern=DATE_PATTERN, doc="When the status was checked (YYYY-MM-DD)."),
        "fixed_in": Text(pattern=VERSION_PATTERN, doc="The release that fixed it, when one did (the site then "
                         "shows the problem as fixed from that release on)."),
    },
    required=("issue", "status", "checked"),
)

REVIEWED = Record(
    doc="The last independent reading of the entry against its cited code.",
    fields={
        "version": Text(pattern=VERSION_PATTERN, doc="Source version the claims were checked at."),
        "date": Text(pattern=DATE_PATTERN, doc="When (YYYY-MM-DD)."),
        "by": Text(prose=True, doc="Who or what read it."),
        "checked": Text(prose=True, doc="What the reader checked, e.g. every claim against the whole tree."),
    },
    required=("version", "date"),
)

PROBE = Record(
    doc="Executable evidence: the script decisions/<map>/probes/<ID>.mjs runs pi's own code in a sandbox "
        "and prints a JSON object; the probe holds when every key of `expect` has that value in it.",
    fields={
        "shows": Text(prose=True, max_length=400, doc="One sentence: what running pi demonstrates."),
        "expect": FlatMapping(doc="The result that makes the claim hold: names to JSON scalars, e.g. "
                              "{asked: false, ran: true}."),
    },
    required=("shows", "expect"),
)

ENTRY = Record(
    doc="One entry of a decision map: a decision, or a problem in the mapped code.",
    fields={
        "id": Text(pattern=ID_PATTERN, doc="Group letter and number, e.g. D1; the file is named after it."),
        "kind": Choice(options=("decision", "problem"), doc="decision (default) or problem."),
        "question": Text(prose=True, doc="The judgment, phrased as a user would ask it."),
        "decided_by": WHO,
        "overrides": OVERRIDES,
        "answer": Text(prose=True, max_words=MAX_MAIN_PATH_WORDS, words_hint=MAIN_PATH_HINT,
                       doc=f"The main path in one or two sentences (aim at {MAIN_PATH_WORDS} words, at most "
                           f"{MAX_MAIN_PATH_WORDS}), true of the cited code as written; exceptions go to "
                           "`exceptions`."),
        "exceptions": EXCEPTIONS,
        "title": Text(prose=True, doc="A problem's headline."),
        "description": Text(prose=True, max_words=MAX_MAIN_PATH_WORDS, words_hint=MAIN_PATH_HINT,
                            doc=f"What goes wrong, the main statement (aim at {MAIN_PATH_WORDS} words, at most "
                                f"{MAX_MAIN_PATH_WORDS}), true of the cited code; exceptions go to `exceptions`."),
        "changed_by": CHANGED_BY,
        "checks": Text(prose=True, doc="What in the mapped code checks this judgment."),
        "failures": ListOf(item=FAILURE, doc="Recorded failures (upstream issues or fixes)."),
        "upstream": UPSTREAM,
        "cites": ListOf(item=CITATION, min_items=1, doc="Where the main path is decided (the answer's or the "
                        "description's citations)."),
        "reviewed": REVIEWED,
        "probe": PROBE,
    },
    required=("id", "cites"),
    required_when={("kind", "decision"): ("question", "decided_by", "answer"),
                   ("kind", "problem"): ("title", "description")},
    defaults={"kind": "decision"},
)

NPM_PACKAGE = Record(
    fields={
        "package": Text(doc="npm package name, e.g. @earendil-works/pi-ai."),
        "path": Text(doc="Where its sources sit in the repository, e.g. packages/ai."),
    },
    required=("package", "path"),
)

GIT_SOURCE = Record(
    fields={
        "url": Text(doc="Clone URL (https://, file://, ...)."),
        "ref": Text(doc="Tag, branch or commit; `{version}` is replaced by the version."),
        "commit": Text(pattern=r"^[0-9a-f]{7,40}$", doc="The commit the ref must resolve to, when given."),
    },
    required=("url", "ref"),
)

GROUP = Record(
    fields={
        "id": Text(pattern=r"^[A-Z]$", doc="The group letter."),
        "title": Text(prose=True),
        "about": Text(prose=True),
    },
    required=("id", "title"),
)

SECTION = Record(
    doc="A section of the summary page.",
    fields={
        "title": Text(prose=True),
        "ids": ListOf(item=Text(pattern=ID_PATTERN), min_items=1),
    },
    required=("title", "ids"),
)

MAP = Record(
    doc="A decision map and the source it is pinned to.",
    fields={
        "title": Text(prose=True, doc="The map's title, e.g. How pi decides."),
        "repo": Text(pattern=r"^https://[^\s]+$", doc="Repository URL for permalinks."),
        "version": Text(pattern=VERSION_PATTERN, doc="The pinned release."),
        "checked_at": Text(pattern=VERSION_PATTERN, doc="Written by the tool: the release the citations' "
                           "records were taken at (a citation with its own `version` was checked at that one). "
                           "Editing `version` by hand and running `verify` resolves every citation from here."),
        "source": Record(
            fields={"npm": ListOf(item=NPM_PACKAGE, min_items=1), "git": GIT_SOURCE},
            one_of=(("npm", "git"),),
        ),
        "summary": Text(prose=True, doc="One paragraph that opens the summary page."),
        "groups": ListOf(item=GROUP, doc="The groups, by ID letter."),
        "sections": ListOf(item=SECTION, doc="The summary page's sections."),
        "checked": Text(pattern=DATE_PATTERN, doc="When the map was last checked as a whole."),
        "shared_levers": Text(pattern=ID_PATTERN, doc="The decision that lists what any loaded extension can "
                              "change in a run; every other decision's page points to it, so an entry's own "
                              "`changed_by` names only the levers particular to it."),
    },
    required=("title", "repo", "version", "source"),
)

SIDE = Record(
    fields={
        "decided_by": Choice(options=("code", "model", "person", "none")),
        "overrides": SIDE_OVERRIDES,
        "answer": Text(prose=True),
    },
    required=("decided_by", "answer"),
)

OVERLAY_CHANGE = Record(
    fields={
        "decision": Text(pattern=ID_PATTERN, doc="The map's decision this extension changes."),
        "question": Text(prose=True, doc="A decision the extension adds, which the map's agent does not make."),
        "related": ListOf(item=Text(pattern=ID_PATTERN),
                          doc="Decisions the change touches, linked from the extension's page; an added "
                              "decision is also linked from each of their pages."),
        "overridden": ListOf(item=Text(pattern=ID_PATTERN),
                             doc="Decisions of the map whose answer no longer holds once the extension is "
                                 "installed (an added decision takes their place); shown as overridden."),
        "how": Text(prose=True),
        "without": SIDE,
        "with": SIDE,
    },
    required=("how", "without", "with"),
    one_of=(("decision", "question"),),
)

LEVER_KINDS = ("event", "api", "process", "network")
INTEGRITY_PATTERN = r"^sha(1|256|384|512)-[A-Za-z0-9+/]+=*$"
EXTENSION_NAME_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"

ITEM = Record(
    doc="A statement with the code that shows it (the same item shape as an entry's exceptions).",
    fields={
        "text": Text(prose=True, doc="One or two sentences, true of the cited code."),
        "cites": ListOf(item=CITATION, min_items=1, doc="Where the extension's own code shows it (paths "
                        "inside the package, as npm ships it)."),
    },
    required=("text", "cites"),
)

UNCHANGED_ITEM = Record(
    doc="Something the extension does not change; cite its code when a reader could think it does.",
    fields={
        "text": Text(prose=True, doc="What stays as pi decides it."),
        "cites": ListOf(item=CITATION, min_items=1, doc="Code that shows it, when there is some to show."),
    },
    required=("text",),
)

OVERLAY_LEVER = Record(
    doc="One lever the extension uses (what `python -m generator levers` found), cited into its code.",
    fields={
        "lever": Text(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$", doc="The pi event or API call, the process or "
                      "the network call, as `levers` names it (tool_call, registerTool, child_process.spawn)."),
        "kind": Choice(options=LEVER_KINDS, doc="event, api, process or network."),
        "decisions": ListOf(item=Text(pattern=ID_PATTERN), doc="The decisions this use of the lever changes "
                            "(`levers` lists what the lever can change; keep those it does)."),
        "text": Text(prose=True, doc="What the extension does with it, true of the cited code."),
        "cites": ListOf(item=CITATION, min_items=1, doc="Where it does it."),
    },
    required=("lever", "kind", "decisions", "text", "cites"),
)

TAGLINE_WORDS = 16  # a line of the extensions index at 390 px wraps to two or three lines, no more

OVERLAY = Record(
    doc="An extension and the decisions it changes.",
    fields={
        "extension": Text(pattern=EXTENSION_NAME_PATTERN, doc="Its name; also the page's file name."),
        "package": Text(doc="Package name in its registry."),
        "version": Text(doc="The version described (an exact release when `integrity` pins it)."),
        "integrity": Text(pattern=INTEGRITY_PATTERN, doc="The npm registry's integrity hash of the package at "
                          "`version`: pins an extension on npm, whose citations point into its own files and are "
                          "verified like the map's."),
        "checked_at": Text(pattern=VERSION_PATTERN, doc="Written by the tool: the release the citations' records "
                           "were taken at, as in map.yaml."),
        "source": Text(pattern=r"^https://[^\s]+$", doc="Where the extension's source is published (an https address), when it is."),
        "summary": Text(prose=True),
        "tagline": Text(prose=True, max_length=120, max_words=TAGLINE_WORDS,
                        words_hint="one line for the extensions index: what it is, not everything it does",
                        doc=f"What the extension is, in one line of at most {TAGLINE_WORDS} words: the extensions "
                            "index shows it under its name."),
        "levers": ListOf(item=OVERLAY_LEVER, doc="Every lever the extension uses, each cited (a pinned overlay "
                         "needs at least one)."),
        "runs": ListOf(item=ITEM, doc="What it runs: child processes, with where it starts them."),
        "connects": ListOf(item=ITEM, doc="Where it connects: network calls, with where it makes them."),
        "unchanged": ListOf(item=UNCHANGED_ITEM, doc="What it does not change, where a reader could think it does."),
        "changes": ListOf(item=OVERLAY_CHANGE, min_items=1),
        "probe": PROBE,
        "reviewed": REVIEWED,
    },
    required=("extension", "changes"),
)

LEVER_ROW = Record(
    fields={
        "lever": Text(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$", doc="The event name, API call (`ctx.` for the "
                      "context's), process or network call."),
        "kind": Choice(options=LEVER_KINDS),
        "decisions": ListOf(item=Text(pattern=ID_PATTERN), doc="The decisions it can change (none: pi reads "
                            "nothing back from it)."),
    },
    required=("lever", "kind", "decisions"),
)

LEVERS = Record(
    doc="The levers a pi extension has and the decisions each can change (from the shared-levers decision).",
    fields={"levers": ListOf(item=LEVER_ROW, min_items=1)},
    required=("levers",),
)


# an edition row's entry: an ID of the map, or the name of an extension pinned on npm (its edition
# has one entry, named after it, holding every citation of its overlay)
EDITION_ID_PATTERN = r"^(?:[A-Z][0-9]{1,4}|[a-z0-9][a-z0-9._-]*)$"

EDITION_CITATION = Record(
    fields={
        "id": Text(pattern=EDITION_ID_PATTERN, doc="The entry's ID, or the "
                   "extension's name in an extension's edition."),
        "file": Text(),
        "old": LineRange(doc="The range at the earlier version."),
        "new_file": Text(doc="The file the code moved to, when it left its own."),
        "new": LineRange(doc="The range at the later version, when one was found (or set by a person)."),
        "checked_at": Text(pattern=VERSION_PATTERN, doc="The version the citation was checked at."),
        "status": Choice(options=("ok", "moved", "changed", "missing", "ambiguous")),
        "claim": Text(pattern=r"^[0-9a-f]{12}$", doc="Digest of the entry's claim at the bump."),
    },
    required=("id", "file", "old", "checked_at", "status", "claim"),
)

PROBE_OUTCOMES = ("holds", "fails", "error")

EDITION_PROBE = Record(
    doc="A probe whose outcome flipped between the two versions of a bump.",
    fields={
        "id": Text(pattern=ID_PATTERN),
        "before": Choice(options=PROBE_OUTCOMES, doc="At the earlier version."),
        "after": Choice(options=PROBE_OUTCOMES, doc="At the later version."),
    },
    required=("id", "before", "after"),
)

EDITION = Record(
    doc="What changed in a map's code between two versions; written by `bump`.",
    fields={
        "from": Text(pattern=VERSION_PATTERN),
        "to": Text(pattern=VERSION_PATTERN),
        "date": Text(pattern=DATE_PATTERN),
        "citations": ListOf(item=EDITION_CITATION),
        "probes": ListOf(item=EDITION_PROBE, doc="The probes whose outcome differs between the two versions."),
        "settled": FlatMapping(key_pattern=EDITION_ID_PATTERN, max_items=10_000,
                               doc="Written by `accept`: each entry's claim digest when a person settled it "
                                   "for this edition, so later edits are not counted as this edition's."),
        "before": FlatMapping(key_pattern=EDITION_ID_PATTERN, max_items=10_000,
                              doc="Written by `bump`: each entry's answer (a problem's description) as the map "
                                  "said it at `from`, so the edition page can set it beside what the entry "
                                  "says now, in a fresh clone and after later bumps alike."),
    },
    required=("from", "to", "date", "citations"),
)


def json_schema(spec: Spec, title: str | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a spec."""
    out = _json(spec)
    if title:
        out = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **out}
    return out


def _json(spec: Spec) -> dict:
    doc = {"description": spec.doc} if spec.doc else {}
    if isinstance(spec, Text):
        out = {"type": "string", "minLength": 1, "maxLength": spec.max_length}
        patterns = [spec.pattern] if spec.pattern else []
        if spec.max_words is not None:  # words as len(text.split()) counts them
            patterns.append(rf"^\s*\S+(\s+\S+){{0,{spec.max_words - 1}}}\s*$")
        if len(patterns) == 1:
            out["pattern"] = patterns[0]
        elif patterns:
            out["allOf"] = [{"pattern": p} for p in patterns]
        return {**out, **doc}
    if isinstance(spec, Choice):
        return {"enum": list(spec.options), **doc}
    if isinstance(spec, Integer):
        return {"type": "integer", "minimum": spec.minimum, **doc}
    if isinstance(spec, LineRange):
        return {"oneOf": [{"type": "integer", "minimum": 1},
                          {"type": "string", "pattern": LINES_PATTERN}], **doc}
    if isinstance(spec, ListOf):
        return {"type": "array", "items": _json(spec.item), "minItems": spec.min_items, **doc}
    if isinstance(spec, FlatMapping):
        scalar = {"type": ["string", "number", "boolean", "null"]}
        return {"type": "object", "propertyNames": {"pattern": spec.key_pattern}, "additionalProperties": scalar,
                "minProperties": spec.min_items, "maxProperties": spec.max_items, **doc}
    if isinstance(spec, Record):
        out: dict = {"type": "object", "properties": {k: _json(v) for k, v in spec.fields.items()},
                     "required": list(spec.required), "additionalProperties": False, **doc}
        # `properties` alone holds when the key is absent: a value other than the default must be present
        rules = [{"if": {"required": [key], "properties": {key: {"const": value}}}
                  if key not in spec.defaults or value != spec.defaults[key]
                  else {"anyOf": [{"not": {"required": [key]}}, {"properties": {key: {"const": value}}}]},
                  "then": {"required": list(needed)}}
                 for (key, value), needed in spec.required_when.items()]
        rules += [{"oneOf": [{"required": [k]} for k in keys]} for keys in spec.one_of]
        if rules:
            out["allOf"] = rules
        return out
    return doc


def is_safe_link(url: str) -> bool:
    """Links in prose may only go to http(s)."""
    return re.match(r"^https?://", url, re.IGNORECASE) is not None
