"""The MkDocs plugin: hands the rendered pages to MkDocs. It only wires stages (see ``render``).

``mkdocs.yml``::

    plugins:
      - search
      - decision-map:
          decisions: decisions

The pages are added as generated files; a hand-written ``extensions/<name>.md`` in the docs
folder gets its ``{{ overlay }}`` line replaced. The Markdown extensions the pages rely on
(attr_list, md_in_html, tables, pymdownx.highlight, pymdownx.superfences) are switched on when
``mkdocs.yml`` does not list them. Any bad entry or drifted citation fails the build with one
line per problem, ``path:line: what is wrong``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from .errors import DecisionMapError, InputError
from .model import DecisionMap
from .render import RenderedSite, is_download, render_folder, site_nav
from .verify import Trees

log = logging.getLogger("mkdocs.plugins.decision-map")

ASSETS = Path(__file__).parent / "assets"
ASSET_URI = "assets/decision-map/"
REQUIRED_EXTENSIONS = ("attr_list", "md_in_html", "tables", "pymdownx.highlight", "pymdownx.superfences")


class Config(base.Config):
    decisions = c.Type(str, default="decisions")
    """Folder of maps (one sub-folder per map, each with a ``map.yaml``), relative to ``mkdocs.yml``."""

    progress = c.Type(bool, default=False)
    """Print progress to stderr while a pinned source tree is fetched (only the first build fetches)."""

    nav = c.Type(bool, default=True)
    """Build the navigation from the maps when ``mkdocs.yml`` has no ``nav`` of its own."""


class DecisionMapPlugin(BasePlugin[Config]):
    """Verify every citation at its pin and add the decision map's pages to the site."""

    def __init__(self) -> None:
        self.site: RenderedSite | None = None

    def prepare(self, config: MkDocsConfig) -> RenderedSite:
        """Load, verify and render (once per build); raises :class:`DecisionMapError`."""
        if self.site is None:
            decisions = Path(config.config_file_path or ".").parent / self.config.decisions
            self.site = render_folder(decisions, Path(config.docs_dir), quiet=not self.config.progress,
                                      trees_for=lambda m: kept_trees(m, quiet=not self.config.progress))
        return self.site

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        try:
            site = self.prepare(config)
        except DecisionMapError as err:
            raise PluginError(failure_message(err)) from None
        for name in REQUIRED_EXTENSIONS:
            if name not in config.markdown_extensions:
                config.markdown_extensions.append(name)
        config.extra_css.append(ASSET_URI + "decision-map.css")
        config.extra_javascript.append(c.ExtraScriptValue(ASSET_URI + "decision-map.js"))
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
            files.append(kind.generated(config, path, content=text))
        for asset in sorted(ASSETS.iterdir()):
            files.append(File.generated(config, ASSET_URI + asset.name, content=asset.read_bytes()))
        return files

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


def failure_message(err: DecisionMapError) -> str:
    """The error as MkDocs should print it: one line per problem, no traceback."""
    if isinstance(err, InputError):
        lines = [str(p) for p in err.problems]
        head = "decision map: " + (lines[0] if len(lines) == 1 else f"{len(lines)} problems:")
        return "\n".join([head] + (lines if len(lines) > 1 else []))
    return f"decision map: {err}"


def _hand_written(docs_dir: Path) -> list[str]:
    if not docs_dir.is_dir():
        return []
    return sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md")
                  if not any(part.startswith(".") for part in p.relative_to(docs_dir).parts))
