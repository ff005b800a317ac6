"""Generate a code-cited decision map, and keep its citations true as the code moves.

Pipeline: fetch → load → resolve → verify → render. The names below are the public surface.
"""

from .errors import DecisionMapError, FetchError, InputError, Problem, UsageError
from .load import load_maps
from .model import Citation, DecisionMap, Entry, Overlay

__all__ = ["Citation", "DecisionMap", "DecisionMapError", "Entry", "FetchError", "InputError",
           "Overlay", "Problem", "UsageError", "load_maps"]
