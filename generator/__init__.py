"""Generate a code-cited decision map, and keep its citations true as the code moves.

Pipeline: fetch → load → resolve → verify → render. The names below are the public surface;
everything else is internal to its stage.
"""

from .errors import DecisionMapError, FetchError, InputError, Problem, UsageError
from .load import load_maps
from .model import Citation, DecisionMap, Edition, Entry, Overlay
from .verify import Resolution, Trees, verify_map

__all__ = ["Citation", "DecisionMap", "DecisionMapError", "Edition", "Entry", "FetchError", "InputError",
           "Overlay", "Problem", "Resolution", "Trees", "UsageError", "load_maps", "verify_map",
           "render_folder", "render_pages", "build_site", "bump_map"]


def __getattr__(name: str):
    # The later stages pull in Jinja2 and MkDocs; `verify` should not pay for them.
    if name in ("render_folder", "render_pages"):
        from . import render

        return getattr(render, name)
    if name == "build_site":
        from .build import build_site

        return build_site
    if name == "bump_map":
        from .bump import bump_map

        return bump_map
    raise AttributeError(name)
