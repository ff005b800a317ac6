"""Render: a loaded, verified map → the site's pages as data (relative path → Markdown text).

The pages go through Jinja2 templates in ``templates/``, fed by the views of
:mod:`generator.site.pages`. Nothing here knows about MkDocs: the plugin hands these pages to
MkDocs, and ``python -m generator render --out DIR`` writes the same pages for any other
engine. Every value from YAML reaches a page only through the escaping filters of
:mod:`generator.site.prose`, so it is text, whatever it holds.

Page paths (for a map in ``decisions/pi/``)::

    index.md                       the home page: what pi is, where to start, the loop, the maps
    pi/index.md                    the summary ("How pi decides"): the loop, at a glance, problems
    pi/map.md                      the full map: a light index, one row per decision, filters
    pi/D1.md, pi/P1.md …           one page per decision and per problem, at its ID as written
    pi/problems.md                 the problems in the mapped code, open and fixed
    pi/census.md                   counts, the pin, the last check
    pi/editions/index.md           every move of the map to a new release, newest first
    pi/editions/<from>-to-<to>.md  one move: each entry's verdict (the code of what drifted is
                                   on each entry's page)
    extensions/<name>.md           an extension's page, with its overlay and its loop (and, for one
                                   pinned on npm, its levers with their code and its probe)
    extensions/index.md            every extension by decision group, filterable
    extensions/<name>/editions/<from>-to-<to>.md
                                   one move of an extension pinned on npm to another release:
                                   what happened to each of its citations, with the code
    downloads/pi-decision-map.md   the whole map as one Markdown file (a download, not a page)
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable, Mapping

from jinja2 import Environment
from markupsafe import Markup

from . import prose
from ..errors import DriftError, InputError, Problem
from ..map.model import DecisionMap
from .pages.diagram import Focus, loop_diagram
from .pages.editions import EDITIONS
from .pages.extensions import npm_changing
from .pages.environment import environment, file_size
from .search_index import entry_document
from .pages.views import DOWNLOADS, WHO_ABOUT, GroupView, MapView, OverlayView, gallery_view, map_view, overrule_actions
from ..citations.verify import Resolution, Trees, verify_map

OVERLAY_SLOT = "{{ overlay }}"  # the line of a hand-written extension page the overlay replaces
_ENTRY_PAGE = re.compile(r"^[^/]+/[A-Z][0-9]{1,4}\.md$")

__all__ = ["RenderedSite", "render_folder", "render_pages", "render_site", "site_nav", "is_download",
           "is_entry_page", "hand_written_collisions", "OVERLAY_SLOT", "DOWNLOADS", "EDITIONS"]

ProbeResults = Mapping[str, Any]  # entry ID -> the result of its probe (generator.probes.run.ProbeResult)


@dataclass(frozen=True)
class RenderedSite:
    """The loaded maps and every page rendered from them."""

    maps: tuple[DecisionMap, ...]
    pages: dict[str, str]  # relative path -> Markdown
    # an entry's page (relative path) -> its search hit's fields (generator.site.search_index.entry_document)
    search: dict[str, dict[str, str]] = field(default_factory=dict)


def render_folder(decisions: Path, pages_dir: Path | None = None, *, quiet: bool = True,
                  trees_for: Callable[[DecisionMap], Trees] | None = None,
                  probes: ProbeResults | Callable[[list[DecisionMap]], ProbeResults] | None = None) -> RenderedSite:
    """Load every map under ``decisions``, verify it at its pin, and render the whole site.

    ``trees_for`` may hand out source trees kept from an earlier build (``mkdocs serve``);
    ``probes`` holds the results of the probes run for this build, by entry ID (or is a function
    of the loaded maps that runs them and gives the results).
    Raises :class:`InputError` for bad entries or hand-written pages that generated ones would
    replace, and :class:`DriftError` when a citation is not ``ok``.
    """
    from ..map.load import load_maps

    maps = load_maps(decisions)
    if callable(probes):  # run once the maps are loaded (the site build runs them)
        probes = probes(maps)
    views: dict[str, MapView] = {}
    pages = render_site(maps, trees_for or (lambda m: Trees(m, quiet=quiet)), pages_dir, probes=probes, views=views)
    if pages_dir is not None:
        collisions = hand_written_collisions(pages, pages_dir)
        if collisions:
            raise InputError(collisions)
    search = {f"{name}/{card.page}": entry_document(card.entry, card, view.map.overlays)
              for name, view in views.items() for card in view.cards.values()}
    return RenderedSite(tuple(maps), pages, search)


def render_pages(decision_map: DecisionMap, trees: Trees, pages_dir: Path | None = None,
                 resolutions: list[Resolution] | None = None, probes: ProbeResults | None = None) -> dict[str, str]:
    """The pages of one map, as ``{relative path: Markdown}``.

    Every citation is resolved at the map's pinned version first; if any is not ``ok`` this
    raises :class:`DriftError` naming each one, and nothing is rendered. ``pages_dir`` holds
    the hand-written pages: ``extensions/<name>.md`` with an ``{{ overlay }}`` line becomes that
    extension's page, the line replaced by the generated overlay. ``probes`` maps entry IDs to
    the results of their probes; an entry's page shows its probe only when its result is there.
    """
    return _render_map(decision_map, trees, pages_dir, resolutions, probes)[0]


def _render_map(decision_map: DecisionMap, trees: Trees, pages_dir: Path | None,
                resolutions: list[Resolution] | None, probes: ProbeResults | None) -> tuple[dict[str, str], MapView]:
    if resolutions is None:
        resolutions = verify_map(decision_map, None, trees)
    _require_ok(decision_map, resolutions)
    view = map_view(decision_map, trees, resolutions, _probes_of(decision_map, probes))
    site, download = environment("site"), environment("markdown")
    name = decision_map.name
    loop = Markup(_diagram(view, "", "summary", table="#at-a-glance"))
    export = download.get_template("export.md.j2").render(m=view)
    site.globals["download_size"] = file_size(len(export.encode("utf-8")))  # shown next to its link
    pages = {
        f"{name}/index.md": site.get_template("summary.md.j2").render(m=view, loop=loop),
        f"{name}/map.md": site.get_template("map.md.j2").render(m=view),
        f"{name}/census.md": site.get_template("census.md.j2").render(m=view),
        view.download: export,
    }
    npm = _npm_views(decision_map, probes)
    site.globals["npm_changing"] = npm_changing(decision_map)  # the decision pages' "mapped npm extensions"
    entry_page = site.get_template("entry.md.j2")
    for card in view.cards.values():
        pages[f"{name}/{card.page}"] = entry_page.render(m=view, c=card)
    if view.problems:
        pages[f"{name}/problems.md"] = site.get_template("problems.md.j2").render(m=view)
    if view.editions:
        pages[f"{name}/{EDITIONS}/index.md"] = site.get_template("editions.md.j2").render(m=view)
        for edition in view.editions:
            pages[f"{name}/{edition.page}"] = site.get_template("edition.md.j2").render(m=view, x=edition)
    for overlay in view.overlays:
        focus = _focus(overlay)
        drawing = Markup(_diagram(view, f"../{name}/", f"ext-{overlay.name}", focus=focus, overlay=overlay))
        table = site.get_template("overlay.md.j2").render(m=view, o=overlay, loop=drawing).strip("\n")
        pin = site.get_template("_site.md.j2").module.pin(view, f"../{name}/")
        pages[overlay.page] = _extension_page(overlay, table, pages_dir, view, pin, npm.get(overlay.name), site)
    edition_page = site.get_template("extension-edition.md.j2")
    for found in npm.values():  # an extension's moves to other releases, each a page next to its own
        for x in found.editions:
            pages[f"extensions/{found.edition_page(x)}"] = edition_page.render(m=view, npm=found, x=x)
    return dict(sorted(pages.items())), view


def _npm_views(decision_map: DecisionMap, probes: ProbeResults | None) -> dict:
    """The views of the map's extensions pinned on npm, each verified at its own pin first (drift
    fails the build, as the map's does)."""
    from ..map.load import pinned_extension_map
    from .pages.extensions import npm_view

    views = {}
    for overlay in decision_map.overlays:
        if not overlay.pinned:
            continue
        extension = pinned_extension_map(overlay)
        trees = Trees(extension, quiet=True)
        _require_ok(extension, verify_map(extension, None, trees))
        views[overlay.extension] = npm_view(overlay, extension, trees, (probes or {}).get(overlay.extension))
    return views


def render_site(maps: list[DecisionMap], trees_for: Callable[[DecisionMap], Trees],
                pages_dir: Path | None = None, probes: ProbeResults | None = None,
                views: dict[str, MapView] | None = None) -> dict[str, str]:
    """The home page and the pages of every map; a page path generated twice is an error.
    ``views``, when given, receives each map's view by name (the search index is made from them)."""
    pages: dict[str, str] = {}
    owners: dict[str, Path] = {}
    views = {} if views is None else views
    problems: list[Problem] = []
    for decision_map in maps:
        rendered, views[decision_map.name] = _render_map(decision_map, trees_for(decision_map), pages_dir, None,
                                                         probes)
        for path, text in rendered.items():
            if path in pages:
                problems.append(Problem(decision_map.path, 0, f"generates {path}, which "
                                        f"{_shown(owners[path])} generates too; rename one of them"))
                continue
            pages[path] = text
            owners[path] = decision_map.path
    if problems:
        raise InputError(problems)
    if any(m.overlays for m in maps):  # the extensions index, by decision group
        from .pages.extensions import index_rows

        pages["extensions/index.md"] = environment("site").get_template("extensions-index.md.j2").render(
            maps=[(views[m.name], index_rows(views[m.name])) for m in maps if m.overlays and m.name in views])
    gallery = [gallery_view(m, views.get(m.name)) for m in maps]
    loops = {m.name: Markup(_diagram(views[m.name], f"{m.name}/", f"home-{m.name}",
                                     table=f"{m.name}/index.md#at-a-glance"))
             for m in maps if m.name in views}
    pages["index.md"] = environment("site").get_template("gallery.md.j2").render(
        maps=gallery, who_about=WHO_ABOUT, loops=loops)
    return dict(sorted(pages.items()))


def hand_written_collisions(pages: Iterable[str], pages_dir: Path) -> list[Problem]:
    """Hand-written pages that a generated page would silently replace (extension pages excepted)."""
    found = []
    for path in pages:
        if path.startswith("extensions/"):
            continue
        page = pages_dir / path
        if page.is_file():
            found.append(Problem(page, 0, f"is generated from decisions/ as {path}; move the "
                                 "hand-written page elsewhere"))
    return found


def is_download(path: str) -> bool:
    """Whether a rendered path is a file to download rather than a page of the site."""
    return PurePosixPath(path).parts[0] == DOWNLOADS


def is_entry_page(path: str) -> bool:
    """Whether a rendered path is the page of one decision or problem (``pi/D1.md``).

    These are reached from the map, the summary and the loop, not listed in the navigation."""
    return bool(_ENTRY_PAGE.match(path))


def site_nav(maps: list[DecisionMap], pages: Iterable[str], hand_written: Iterable[str] = ()) -> list:
    """A MkDocs ``nav``: home, each map's pages, the extensions, then other hand-written pages."""
    pages = set(pages)
    nav: list = [{"Home": "index.md"}]
    for decision_map in maps:
        name = decision_map.name
        items = [("Summary", f"{name}/index.md"), ("The full map", f"{name}/map.md"),
                 ("Problems in the code", f"{name}/problems.md"), ("Census", f"{name}/census.md")]
        # MkDocs themes print nav titles as they are, unescaped: give them escaped plain text
        label = html.escape(prose.words(decision_map.title), quote=False)
        section: list = [{title: path} for title, path in items if path in pages]
        editions = [("All editions", f"{name}/{EDITIONS}/index.md")] + [
            (f"{e.from_version} → {e.to_version}", f"{name}/{EDITIONS}/{e.slug}.md")
            for e in reversed(decision_map.editions)]
        if editions[0][1] in pages:
            section.append({"What changed": [{title: path} for title, path in editions if path in pages]})
        nav.append({label: section})
    extensions = sorted({p for p in list(pages) + list(hand_written) if p.startswith("extensions/")},
                        key=lambda p: (p != "extensions/index.md", p))
    if extensions:
        nav.append({"Extensions": [{_extension_title(p): p} for p in extensions]})
    listed = {p for item in nav for p in _nav_paths(item)}
    nav += sorted(p for p in hand_written if p not in listed)
    return nav


# --- pieces -------------------------------------------------------------------------------------


def _probes_of(decision_map: DecisionMap, probes: ProbeResults | None) -> dict[str, Any]:
    """The results that belong to this map (a result names its map when several are built)."""
    return {entry_id: result for entry_id, result in (probes or {}).items()
            if getattr(result, "map", decision_map.name) == decision_map.name}


def _require_ok(decision_map: DecisionMap, resolutions: list[Resolution]) -> None:
    bad = [r for r in resolutions if r.status != "ok"]
    if not bad:
        return
    problems = []
    for r in bad:
        where = f", now at {r.resolved[0]}-{r.resolved[1]}" if r.resolved else ""
        problems.append(Problem(r.citation.path, r.citation.line,
                                f"{r.entry.id} cites {r.citation.file}:{r.recorded[0]}-{r.recorded[1]}, "
                                f"which is {r.status} at {r.target}{where} ({r.symbol or 'top level'})"))
    raise DriftError(problems, decision_map.version)


def _focus(overlay: OverlayView) -> dict[str, Focus]:
    """The decisions an extension changes (drawn in the holder it gives them) and those it adds
    a decision next to."""
    focus: dict[str, Focus] = {}
    for change in overlay.changes:
        for related in change.change.related:
            focus.setdefault(related, Focus("related", None))
    for change in overlay.changes:
        side = change.change.with_
        holders = tuple(dict.fromkeys(o.by for o in getattr(side, "overrides", ())))
        actions = tuple(overrule_actions(getattr(side, "overrides", ())))
        if change.decision:
            focus[change.decision.id] = Focus("changed", side.decided_by, holders, actions)
        for overridden in getattr(change.change, "overridden", ()):
            focus[overridden] = Focus("changed", side.decided_by, holders, actions)
    return focus


def _diagram(view: MapView, base: str, name: str, *, table: str | None = None,
             focus: dict[str, Focus] | None = None, overlay: OverlayView | None = None) -> str:
    groups = view.groups
    if len(groups) >= 3:
        start, loop, end = groups[0], groups[1:-1], groups[-1]
        caption = (f"How a run of {_e(view.name)} goes: it starts ({_stage(start)}), goes round the loop once per "
                   f"turn ({', '.join(_stage(g) for g in loop)}) and ends ({_stage(end)}). Each tile is one "
                   "decision, placed where it happens; its colour and its shape say who decides. Select "
                   "one to read it.")
    else:
        caption = ("The decisions of " + _e(view.name) + ", stage by stage; the colour and the shape of each "
                   "tile say who decides. Select one to read it.")
    if overlay is not None:
        changed = sum(f.kind == "changed" for f in (focus or {}).values())
        caption = (f"The decisions {_e(overlay.name)} changes, in {_e(view.name)}’s loop: {changed} "
                   f"drawn with who decides once {_e(overlay.name)} is installed; the others faded. ") + caption
    return loop_diagram(groups, lambda card: base + view.href(card.id), name=name, caption=caption, table=table,
                        focus=focus)


def _stage(group: GroupView) -> str:
    """The stage's name inside a sentence: an ordinary first word lower-cased ("Ending a run", "A
    retry"), a name or an abbreviation kept ("K8s jobs", "LLM calls"), and the words after it as written."""
    stage = group.stage
    first = stage.split(" ", 1)[0]
    ordinary = first[:1].isupper() and (len(first) == 1 or first[1:].isalpha() and first[1:].islower())
    return _e(stage[:1].lower() + stage[1:] if ordinary else stage)


def _e(text: str) -> str:
    return prose.html_text(text)


def _extension_page(overlay: OverlayView, table: str, pages_dir: Path | None, view: MapView, pin: str,
                    npm, site: Environment) -> str:
    """``site``: the map's environment, which knows the download's size its strip shows."""
    hand_written = pages_dir / overlay.page if pages_dir else None
    if hand_written is None or not hand_written.is_file():
        return site.get_template("extension.md.j2").render(m=view, o=overlay, table=Markup(table), npm=npm)
    written = hand_written.read_text(encoding="utf-8")
    # counted in the page as written, so that an error names the line a person sees
    slots = [i for i, line in enumerate(written.split("\n")) if line.strip() == OVERLAY_SLOT]
    if len(slots) != 1:
        how = "has no" if not slots else f"has {len(slots)}"
        raise InputError([Problem(hand_written, slots[1] + 1 if slots else 0,
                                  f"{how} `{OVERLAY_SLOT}` lines; it needs exactly one, where the generated "
                                  f"table of the decisions {overlay.name} changes goes")])
    # the description and the strip added above it are one line each of escaped text: never the slot
    lines = _with_pin(_with_description(written, overlay), pin).split("\n")
    return "\n".join(table if line.strip() == OVERLAY_SLOT else line for line in lines)


def _with_description(text: str, overlay: OverlayView) -> str:
    """A hand-written page without front matter gets a description from its overlay's summary
    (for search engines and link previews); one with front matter is left as written."""
    summary = overlay.overlay.summary
    if text.startswith("---\n") or not summary:
        return text
    described = json.dumps(prose.html_text(prose.words(f"{overlay.name}: {summary}")), ensure_ascii=False)
    return f"---\ndescription: {described}\n---\n\n{text}"


def _with_pin(text: str, pin: str) -> str:
    """The map's strip (its version and its main pages) under the page's first heading, as on
    the map's own pages; a page without a "# " heading gets it first."""
    lines = text.split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
    if at == 0 and lines and lines[0] == "---":  # after the front matter
        at = next((i + 1 for i, line in enumerate(lines[1:], 1) if line == "---"), 0)
    return "\n".join(lines[:at] + ["", str(pin), ""] + lines[at:])


def _extension_title(path: str) -> str:
    """An extensions page's title in the navigation: the index, an extension, or one of its editions
    (``extensions/<name>/editions/<from>-to-<to>.md``), which follows its extension's page."""
    parts = PurePosixPath(path).parts
    if path == "extensions/index.md":
        return "All extensions"
    if len(parts) == 4 and parts[2] == EDITIONS:
        return f"{parts[1]} {PurePosixPath(path).stem.replace('-to-', ' → ')}"
    return PurePosixPath(path).stem


def _nav_paths(item) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        return [p for value in item.values() for p in _nav_paths(value)]
    if isinstance(item, list):
        return [p for value in item for p in _nav_paths(value)]
    return []


def _shown(path: Path) -> str:
    return str(Problem(path, 0, "")).rstrip(": ")
