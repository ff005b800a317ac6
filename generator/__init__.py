"""Generate a code-cited decision map, and keep its citations true as the code moves.

Pipeline: fetch → load → resolve → verify → render. The names below are the public surface;
everything else is internal to its stage. They are imported on first use, so `verify` does not
pay for the site's stages (and a missing dependency is reported by the command line, clearly).
"""

_PUBLIC = {
    "DecisionMapError": "errors", "FetchError": "errors", "InputError": "errors", "Problem": "errors",
    "UsageError": "errors", "load_maps": "load", "Citation": "model", "DecisionMap": "model",
    "Edition": "model", "Entry": "model", "Overlay": "model", "Resolution": "verify", "Trees": "verify",
    "verify_map": "verify", "render_folder": "render", "render_pages": "render", "build_site": "build",
    "bump_map": "bump", "run_probes": "probe", "ProbeResult": "probe",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'generator' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
