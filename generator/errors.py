"""The one exception root and its narrow subclasses.

Every message a user sees reads ``path:line: what is wrong`` (or one plain line for a fetch),
so the command line and the MkDocs plugin can print it without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class DecisionMapError(Exception):
    """Root of every error this package raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, at a 1-based line of a file (0 when the file as a whole)."""

    path: Path
    line: int
    message: str
    # a value still holding what `new` wrote for a person to replace: the file is being written,
    # not broken, so a command that does not use it can leave it out (see load.load_finished_maps)
    placeholder: bool = False

    def __str__(self) -> str:
        where = f"{display_path(self.path)}:{self.line}" if self.line else display_path(self.path)
        return f"{where}: {self.message}"


class InputError(DecisionMapError):
    """The decisions folder (or a command-line argument) is wrong; holds every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (str(p.path), p.line, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))


class FetchError(DecisionMapError):
    """A pinned source tree could not be fetched or does not match its pin."""


class UsageError(DecisionMapError):
    """The command line asked for something that cannot be done."""


def display_path(path: Path) -> str:
    """Show a path relative to the working directory when it lies under it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class DriftError(InputError):
    """Citations that are not ``ok`` at the pinned version; the site is not built from them."""

    def __init__(self, problems: list[Problem], version: str):
        super().__init__(problems)
        self.version = version


class SiteError(DecisionMapError):
    """MkDocs could not build the site (its own message says why)."""


class WriteError(DecisionMapError):
    """A YAML file could not be written (a full disk, no permission); the message says what changed."""
