"""Edit decision YAML in place: only the bytes of the changed values move, and every file is
replaced atomically, so an interrupted ``fix`` or ``bump`` leaves each file as it was or done."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import WriteError
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
    path = None
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
        # Several files change together (a bump moves ranges and the pin): a journal of the renames
        # lets the next run finish them if this one is killed between two renames.
        journal = _journal(temporaries) if len(temporaries) > 1 else None
    except BaseException as err:
        _remove(temporary for temporary, _ in temporaries)
        if isinstance(err, OSError):  # a full disk, a read-only folder: one clear line, not a traceback
            raise WriteError(f"cannot write {path}: {err.strerror or err}; nothing was changed") from None
        raise
    for done, (temporary, path) in enumerate(temporaries):  # renames only: each one atomic
        try:
            os.replace(temporary, path)
        except OSError as err:
            _remove(temporary for temporary, _ in temporaries[done:])
            if journal is not None:
                _remove([journal])
            written = ", ".join(str(p) for _, p in temporaries[:done]) or "none"
            raise WriteError(f"cannot replace {path}: {err.strerror or err}; already written: {written}; "
                             "the others were left as they were") from None
    if journal is not None:
        os.unlink(journal)


JOURNAL = ".decision-map-journal.json"


def _journal(temporaries: list[tuple[str, Path]]) -> Path:
    """Record, atomically, which temporaries are to replace which files."""
    folder = Path(os.path.commonpath([str(path.parent) for _, path in temporaries]))
    journal = folder / JOURNAL
    fd, temporary = tempfile.mkstemp(prefix=f"{JOURNAL}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps([[str(t), str(p)] for t, p in temporaries]))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, journal)
    except BaseException:
        _remove([temporary])
        raise
    return journal


def finish_interrupted_writes(folder: Path) -> list[Path]:
    """Complete the renames of a multi-file write that was killed half-way (its journal says which);
    returns the files replaced. Temporaries are whole: they were written before the journal."""
    replaced = []
    for journal in sorted(folder.glob(JOURNAL)) + sorted(folder.glob(f"*/{JOURNAL}")):
        try:
            pairs = json.loads(journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for temporary, path in pairs:
            if os.path.exists(temporary):
                os.replace(temporary, path)
                replaced.append(Path(path))
        journal.unlink()
    return replaced


def _remove(temporaries) -> None:
    for temporary in temporaries:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
