"""Edit decision YAML in place: only the bytes of the changed values move, and every file is
replaced atomically, so an interrupted ``fix`` or ``bump`` leaves each file as it was or done."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .model import Citation


@dataclass(frozen=True)
class Edit:
    """Set a citation's range (1-based, inclusive) and, optionally, the version it was checked at."""

    citation: Citation
    lines: tuple[int, int] | None = None
    version: str | None = None


def format_lines(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def apply_edits(edits: list[Edit], also: dict[Path, str] | None = None) -> list[Path]:
    """Apply edits grouped by file, and write ``also`` (whole files); returns the files rewritten.

    Every new text is written to a temporary file first; only when all are on disk are they
    renamed over the originals, so a failure while writing changes nothing."""
    by_file: dict[Path, list[Edit]] = {}
    for edit in edits:
        by_file.setdefault(edit.citation.path, []).append(edit)
    prepared = []
    for path, file_edits in sorted(by_file.items()):
        original = path.read_bytes().decode("utf-8")
        bom = original.startswith("\ufeff")
        text = original[1:] if bom else original
        updated = _edit_text(text, file_edits)
        if updated != text:
            prepared.append((path, ("\ufeff" if bom else "") + updated))
    prepared += list((also or {}).items())
    write_all_atomically(dict(prepared))
    return [p for p, _ in prepared]


def _edit_text(text: str, edits: list[Edit]) -> str:
    # Work from the end of the file backwards so earlier offsets stay valid.
    changes: list[tuple[int, int, str]] = []
    for edit in edits:
        cite = edit.citation
        if edit.lines is not None:
            old = text[cite.lines_span.start:cite.lines_span.end]
            new = format_lines(*edit.lines)
            if old.startswith(("'", '"')):
                new = f"{old[0]}{new}{old[0]}"
            changes.append((cite.lines_span.start, cite.lines_span.end, new))
        if edit.version is not None:
            changes.append(_version_change(text, cite, edit.version))
    for start, end, new in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _version_change(text: str, cite: Citation, version: str) -> tuple[int, int, str]:
    """Set or add the citation's ``version`` key, in the citation's own style."""
    start, end = cite.mapping_span.start, cite.mapping_span.end
    block = text[start:end]  # a block mapping's span runs on over the comments below it
    import re

    # Only a key counts: first in the mapping, or at the keys' indentation (never inside a comment).
    key = r"[{,]\s*" if cite.mapping_indent is None else rf"(?:\A|\n {{{cite.mapping_indent}}})"
    found = re.search(key + r"version:[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s,}#]+)", block)
    if found:
        return start + found.start(1), start + found.end(1), f'"{version}"'
    if cite.mapping_indent is None:  # flow style: {file: x, lines: 1-2}
        close = block.rfind("}")
        return start + close, start + close, f', version: "{version}"'
    # Block style: add a line after the `lines:` line, at the keys' indentation, with its line ending.
    line_end = text.find("\n", cite.lines_span.end)
    line_end = len(text) if line_end == -1 else line_end
    newline = "\r\n" if text.endswith("\r\n", 0, line_end + 1) else "\n"
    line_end -= len(newline) - 1  # before the "\r" of a CRLF
    return line_end, line_end, newline + " " * cite.mapping_indent + f'version: "{version}"'


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a reader sees the old file or the new, never half."""
    write_all_atomically({path: text})


def write_all_atomically(texts: dict[Path, str]) -> None:
    """Write every file to a temporary beside it, then rename them all into place."""
    temporaries: list[tuple[str, Path]] = []
    try:
        for path, text in texts.items():
            mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
            fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temporaries.append((temporary, path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, mode)
    except BaseException:
        for temporary, _ in temporaries:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
        raise
    for temporary, path in temporaries:  # renames only: nothing left that can fail half-way
        os.replace(temporary, path)
