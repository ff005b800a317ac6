"""Generate a code-cited decision map, and keep its citations true as the code moves.

Stages, each a subpackage that imports only from the ones before it: map (the model, schema,
loading and writing YAML) → source (fetching pinned code) → citations (resolve, verify, record,
report, leads) → probes (pi's code in a sandbox) → extensions (levers) → release (bump,
editions) → site (pages and the MkDocs plugin); the command line (cli, scaffold) sits on top.
The names below are the public surface; everything else is internal to its stage. They are imported on first use, so `verify` does not
pay for the site's stages (and a missing dependency is reported by the command line, clearly).
"""

_PUBLIC = {
    "DecisionMapError": "errors", "FetchError": "errors", "InputError": "errors", "Problem": "errors",
    "UsageError": "errors", "load_maps": "map.load", "Citation": "map.model", "DecisionMap": "map.model",
    "Edition": "map.model", "Entry": "map.model", "Overlay": "map.model", "Resolution": "citations.verify", "Trees": "citations.verify",
    "verify_map": "citations.verify", "render_folder": "site.render", "render_pages": "site.render", "build_site": "site.build",
    "bump_map": "release.bump", "run_probes": "probes.run", "ProbeResult": "probes.run",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'generator' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
