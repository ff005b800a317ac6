"""The MkDocs plugin: hands the rendered pages to MkDocs. It only wires stages (see ``render``).

``mkdocs.yml``::

    plugins:
      - search
      - decision-map:
          decisions: decisions

The pages are added as generated files; a hand-written ``extensions/<name>.md`` in the docs
folder gets its ``{{ overlay }}`` line replaced. Each entry's own page (``pi/D1.md``) is left
out of the navigation: the map, the summary and the loop lead to it. The Markdown extensions the
pages rely on (attr_list, md_in_html, tables, pymdownx.highlight, pymdownx.superfences) are
switched on when ``mkdocs.yml`` does not list them. Any bad entry or drifted citation fails the
build with one line per problem, ``path:line: what is wrong``; so does a built page that shows
Markdown or template syntax as text (:mod:`generator.site.page_check`). After the build, the search
index is shaped so that an entry's ID finds that entry first (:mod:`generator.site.search_index`); the
search plugin reads each page without the sections it would drop (:mod:`generator.site.search_view`).
The theme's 404 page is replaced by one that offers ways on (``theme/404.html``), and its logo
gets an empty alt text: the link around it already says where it goes.
"""

from __future__ import annotations

import html
import logging
import re
import subprocess
from pathlib import Path, PurePosixPath

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from . import prose
from ..errors import DecisionMapError, InputError
from ..map.model import DecisionMap
from .page_check import find_leaks
from .render import RenderedSite, is_download, is_entry_page, render_folder, site_nav
from .search_index import shape_search_index
from .search_view import index_lightly
from ..citations.verify import Trees

log = logging.getLogger("mkdocs.plugins.decision-map")

ASSETS = Path(__file__).parent / "assets"
THEME = Path(__file__).parent / "theme"  # the theme's pieces this site words its own way (404, logo)
ASSET_URI = "assets/decision-map/"
REQUIRED_EXTENSIONS = ("attr_list", "md_in_html", "tables", "pymdownx.highlight", "pymdownx.superfences")
# a relative link to a page in raw HTML (the loop drawing), which MkDocs leaves as written
_RAW_PAGE_LINK = re.compile(r'(\shref=")([^":?#]+\.md)((?:#[^"]*)?)"')


class Config(base.Config):
    decisions = c.Type(str, default="decisions")
    """Folder of maps (one sub-folder per map, each with a ``map.yaml``), relative to ``mkdocs.yml``."""

    progress = c.Type(bool, default=False)
    """Print progress to stderr while a pinned source tree is fetched (only the first build fetches)."""

    nav = c.Type(bool, default=True)
    """Build the navigation from the maps when ``mkdocs.yml`` has no ``nav`` of its own."""

    repository = c.Type(str, default="")
    """This site's own source repository (https://github.com/owner/name): each page's footer links
    it, offers to edit the file the page is made from, and to report a mistake on the page."""

    branch = c.Type(str, default="main")
    """The repository's branch that "Edit this page" opens."""

    probes = c.Type(bool, default=True)
    """Run every entry's probe at the pin and fail the build when one does not hold (as a drifted
    citation does); $DECISION_MAP_SKIP_PROBES skips them too."""


class DecisionMapPlugin(BasePlugin[Config]):
    """Verify every citation at its pin and add the decision map's pages to the site."""

    def __init__(self) -> None:
        self.site: RenderedSite | None = None
        self.files: Files | None = None
        self.leaks: list[str] = []

    def prepare(self, config: MkDocsConfig) -> RenderedSite:
        """Load, verify and render (once per build); raises :class:`DecisionMapError`."""
        if self.site is None:
            decisions = Path(config.config_file_path or ".").parent / self.config.decisions
            self.site = render_folder(decisions, Path(config.docs_dir), quiet=not self.config.progress,
                                      trees_for=lambda m: kept_trees(m, quiet=not self.config.progress),
                                      probes=self._probes)
        return self.site

    def _probes(self, maps: list[DecisionMap]) -> dict:
        if not self.config.probes:
            return {}
        from ..probes.run import site_probes

        return site_probes(maps, quiet=not self.config.progress)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        try:
            site = self.prepare(config)
        except DecisionMapError as err:
            raise PluginError(failure_message(err)) from None
        for name in REQUIRED_EXTENSIONS:
            if name not in config.markdown_extensions:
                config.markdown_extensions.append(name)
        # after a custom_dir of mkdocs.yml, which still wins, and before the theme itself
        config.theme.dirs.insert(1 if config.theme.custom_dir else 0, str(THEME))
        config.extra_css.append(ASSET_URI + "decision-map.css")
        config.extra_javascript.append(c.ExtraScriptValue(ASSET_URI + "decision-map.js"))
        config.extra_javascript[-1].defer = True
        config.extra_javascript.append(c.ExtraScriptValue(ASSET_URI + "extensions.js"))  # the extensions index
        config.extra_javascript[-1].defer = True
        if config.nav is None and self.config.nav:
            config.nav = site_nav(list(site.maps), site.pages, _hand_written(Path(config.docs_dir)))
        for decision_map in site.maps:
            citations = sum(len(e.cites) for e in decision_map.entries)
            log.info(f"{decision_map.name}: {len(decision_map.entries)} entries, {citations} citations, "
                     f"all ok at {decision_map.version}")
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        assert self.site is not None  # on_config ran
        for path, text in self.site.pages.items():
            replaced = files.get_file_from_path(path)
            if replaced is not None:  # a hand-written extension page, now with its overlay
                files.remove(replaced)
            kind = _Download if is_download(path) else File
            inclusion = InclusionLevel.NOT_IN_NAV if is_entry_page(path) else InclusionLevel.UNDEFINED
            files.append(kind.generated(config, path, content=text, inclusion=inclusion))
        for asset in sorted(ASSETS.iterdir()):
            files.append(File.generated(config, ASSET_URI + asset.name, content=asset.read_bytes()))
        self.files = files
        self.leaks = []
        # every plugin's on_config has run: the search plugin's index is there to read pages lightly
        index_lightly(config.plugins.values())
        return files

    def on_env(self, env, /, *, config: MkDocsConfig, files: Files):
        """The 404 page's ways on: each map's summary, full map and problems (see theme/404.html)."""
        maps = self.site.maps if self.site else ()
        env.globals["decision_map_ways"] = not_found_ways(maps, files)
        first = next(((m.name, m.decisions[0].id) for m in maps if m.decisions), None)
        env.globals["decision_map_example"] = html.escape(f"{first[0]}/{first[1]}/") if first else ""
        root = Path(config.config_file_path or ".").parent
        commit, day = build_source(root)
        env.globals["decision_map_links"] = {"repository": self.config.repository.rstrip("/"),
                                             "branch": self.config.branch, "commit": commit, "built": day}
        return env

    def on_page_context(self, context, /, *, page: Page, config: MkDocsConfig, nav):
        """The file a page is made from, for its "Edit this page" link (see theme/partials/copyright.html)."""
        source = page_source(page.file.src_uri, Path(config.config_file_path or ".").parent, Path(config.docs_dir),
                             self.config.decisions, self.site)
        if source:
            page.meta["dm_source"] = source
        return context

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Resolve the ``.md`` links that MkDocs leaves alone because they are in raw HTML."""
        def resolve(match: re.Match) -> str:
            target = PurePosixPath(page.file.src_uri).parent / match.group(2)
            found = files.get_file_from_path(_normalized(target))
            if found is None:
                return match.group()
            return f'{match.group(1)}{found.url_relative_to(page.file)}{match.group(3)}"'

        html = _RAW_PAGE_LINK.sub(resolve, html)
        # The page's own content, as Markdown made it: the theme's navigation and titles print
        # YAML titles unescaped by design, so only this part can tell a leak from text.
        self.leaks += [f"{page.file.src_uri}: {leak}" for leak in find_leaks(html)]
        return html

    @event_priority(-100)  # after the search plugin has written the index, wherever it is listed
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.leaks:
            head = "decision map: Markdown or template text shows on built pages; fix the template or page:"
            raise PluginError("\n".join([head, *self.leaks[:20]] +
                                         ([f"… and {len(self.leaks) - 20} more"] if len(self.leaks) > 20 else [])))
        index = Path(config.site_dir) / "search" / "search_index.json"
        if index.is_file() and self.files is not None and self.site is not None:
            pages, docs = {}, {}
            for path in self.site.pages:
                page_file = self.files.get_file_from_path(path)
                if is_entry_page(path) and page_file is not None:
                    pages[page_file.url] = PurePosixPath(path).stem
                    if path in self.site.search:
                        docs[page_file.url] = self.site.search[path]
            shape_search_index(index, pages, docs)

    def on_serve(self, server, /, *, config: MkDocsConfig, builder):
        server.watch(str(Path(config.config_file_path or ".").parent / self.config.decisions))
        return server


# `mkdocs serve` makes a new plugin for every rebuild; the parsed source trees outlive them, so a
# rebuild after a YAML edit re-reads only the YAML: each pinned file is parsed once per process.
_KEPT: dict[tuple, Trees] = {}


def kept_trees(decision_map: DecisionMap, quiet: bool) -> Trees:
    """The map's source trees from an earlier build in this process, or new ones."""
    key = (str(decision_map.folder.resolve()), decision_map.source)
    trees = _KEPT.get(key)
    if trees is None:
        trees = _KEPT[key] = Trees(decision_map, quiet=quiet)
    trees.map = decision_map  # the same source: only the entries may have changed
    return trees


class _Download(File):
    """A generated Markdown file that is offered as a download, not rendered as a page."""

    def is_documentation_page(self) -> bool:
        return False


def not_found_ways(maps, files: Files) -> list[dict[str, str]]:
    """Where a reader who followed a stale link can go on: each map's main pages, by URL from the
    site's root, with titles escaped (the theme's templates do not escape)."""
    ways = []
    for decision_map in maps:
        title = prose.words(decision_map.title)
        for path, label, about in ((f"{decision_map.name}/index.md", f"{title}, in short", "the summary"),
                                   (f"{decision_map.name}/map.md", "The full map", "every decision, one row each"),
                                   (f"{decision_map.name}/problems.md", "Problems in the code", "")):
            found = files.get_file_from_path(path)
            if found is not None:
                ways.append({"url": found.url or ".", "title": html.escape(label), "about": html.escape(about)})
    return ways


def build_source(root: Path) -> tuple[str, str]:
    """The commit the site is built from and that commit's date (not the clock's: two builds of one
    commit are the same, byte for byte), or empty strings outside a git checkout. A checkout
    with edits not committed says so after the commit."""
    def git(*args: str) -> str:
        try:
            run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return ""
        return run.stdout.strip() if run.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return "", ""
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " with local edits"
    return commit, git("log", "-1", "--format=%cs")


def page_source(src_uri: str, root: Path, docs_dir: Path, decisions: str, site: RenderedSite | None) -> str | None:
    """The file (relative to the repository) a page is made from and a reader can edit: an entry's
    YAML, a hand-written page, or an extension's overlay when its page is generated. None for the
    pages generated from the whole map."""
    def relative(path: Path) -> str | None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return None

    if is_entry_page(src_uri):
        folder, name = src_uri.split("/", 1)
        return relative(root / decisions / folder / (PurePosixPath(name).stem + ".yaml"))
    hand_written = docs_dir / src_uri
    if hand_written.is_file():
        return relative(hand_written)
    if src_uri.startswith("extensions/") and site is not None:
        name = PurePosixPath(src_uri).stem
        for decision_map in site.maps:
            for overlay in decision_map.overlays:
                if overlay.extension == name:
                    return relative(overlay.path)
    return None


def failure_message(err: DecisionMapError) -> str:
    """The error as MkDocs should print it: one line per problem, no traceback."""
    if isinstance(err, InputError):
        lines = [str(p) for p in err.problems]
        head = "decision map: " + (lines[0] if len(lines) == 1 else f"{len(lines)} problems:")
        return "\n".join([head] + (lines if len(lines) > 1 else []))
    return f"decision map: {err}"


def _normalized(path: PurePosixPath) -> str:
    """``a/b/../c.md`` as ``a/c.md`` (a path inside the docs folder, as MkDocs keys its files)."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _hand_written(docs_dir: Path) -> list[str]:
    if not docs_dir.is_dir():
        return []
    return sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md")
                  if not any(part.startswith(".") for part in p.relative_to(docs_dir).parts))
