"""Edit decision YAML in place: only the bytes of the changed values move, and every file is
replaced atomically, so an interrupted ``fix`` or ``bump`` leaves each file as it was or done."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import WriteError
from .model import Citation, CitationRecord, Span


@dataclass(frozen=True)
class Edit:
    """Set a citation's range (1-based, inclusive), file, record and the version it was checked at
    (each only when given)."""

    citation: Citation
    lines: tuple[int, int] | None = None
    version: str | None = None
    file: str | None = None
    record: CitationRecord | None = None

    @property
    def changes_anything(self) -> bool:
        cite = self.citation
        return ((self.lines is not None and self.lines != (cite.start, cite.end))
                or (self.version is not None and self.version != cite.version)
                or (self.file is not None and self.file != cite.file)
                or (self.record is not None and self.record != cite.record))


def format_lines(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def apply_edits(edits: list[Edit], also: dict[Path, "str | Callable[[str], str]"] | None = None) -> list[Path]:
    """Apply edits grouped by file, and write ``also`` (whole files, or a change of a file's text made
    after its edits); returns the files rewritten.

    Every new text is written to a temporary file first; only when all are on disk are they
    renamed over the originals, so a failure while writing changes nothing."""
    by_file: dict[Path, list[Edit]] = {}
    for edit in edits:
        by_file.setdefault(edit.citation.path, []).append(edit)
    prepared = []
    also = dict(also or {})
    for path, file_edits in sorted(by_file.items()):
        original = path.read_bytes().decode("utf-8")
        bom = original.startswith("\ufeff")
        text = original[1:] if bom else original
        updated = _edit_text(text, file_edits)
        if callable(also.get(path)):  # a whole-file change of the same file, made after the citations'
            updated = also.pop(path)(updated)
        if updated != text:
            prepared.append((path, ("\ufeff" if bom else "") + updated))
    # (an extension's overlay holds its pin and its citations in one file: hence the callables)
    prepared += [(path, change(path.read_text(encoding="utf-8")) if callable(change) else change)
                 for path, change in also.items()]
    write_all_atomically(dict(prepared))
    return [p for p, _ in prepared]


def _edit_text(text: str, edits: list[Edit]) -> str:
    # Work from the end of the file backwards so earlier offsets stay valid.
    changes: list[tuple[int, int, str]] = []
    for edit in edits:
        cite = edit.citation
        if edit.lines is not None and edit.lines != (cite.start, cite.end):
            changes.append(_replaced(text, cite.lines_span, format_lines(*edit.lines)))
        if edit.file is not None and edit.file != cite.file:
            changes.append(_replaced(text, cite.file_span, edit.file))
        added = []  # keys the citation does not have yet, written after its `lines:` line
        if edit.version is not None and edit.version != cite.version:
            found = _key_value(text, cite, "version")
            if found:
                changes.append((*found, f'"{edit.version}"'))
            else:
                added.append(f'version: "{edit.version}"')
        if edit.record is not None and edit.record != cite.record:
            value = record_text(edit.record)
            if cite.record_span is not None:
                changes.append((cite.record_span.start, cite.record_span.end, value))
            else:
                added.append(f"record: {value}")
        if added:
            start, end, new = _added_keys(text, cite, added)
            if edit.record is not None and cite.mapping_indent is not None:
                # a comment that only names the symbol says what the record now says: it goes
                comment = re.match(rf"\r?\n {{{cite.mapping_indent}}}#[ \t]*(.*?)[ \t]*(?=\r?\n|\Z)", text[end:])
                if comment and comment.group(1) in (edit.record.symbol, cite.record.symbol if cite.record else None):
                    end += comment.end()
            changes.append((start, end, new))
    for start, end, new in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def record_text(record: CitationRecord) -> str:
    """A record as one YAML flow mapping, quoted only where YAML needs it."""
    digest = f'"{record.digest}"' if record.digest.isdigit() else record.digest  # all digits would read as a number
    return f"{{symbol: {_flow_scalar(record.symbol or '(top level)')}, length: {record.length}, digest: {digest}}}"


def _flow_scalar(value: str) -> str:
    # plain only when YAML reads it back as this text: no leading `#` (a comment), no YAML 1.1 boolean
    if re.fullmatch(r"[A-Za-z_$][\w$#.<>\[\]-]*", value) \
            and value.lower() not in ("true", "false", "null", "yes", "no", "on", "off"):
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _replaced(text: str, span: Span, new: str) -> tuple[int, int, str]:
    """Replace a scalar, keeping its quotes."""
    old = text[span.start:span.end]
    if old.startswith(("'", '"')):
        new = f"{old[0]}{new}{old[0]}"
    return span.start, span.end, new


def _key_value(text: str, cite: Citation, key: str) -> tuple[int, int] | None:
    """Where the value of one of the citation's own keys is, if it has that key."""
    start, end = cite.mapping_span.start, cite.mapping_span.end
    block = text[start:end]  # a block mapping's span runs on over the comments below it
    # Only a key counts: first in the mapping, or at the keys' indentation (never inside a comment).
    prefix = r"[{,]\s*" if cite.mapping_indent is None else rf"(?:\A|\n {{{cite.mapping_indent}}})"
    found = re.search(prefix + key + r":[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s,}#]+)", block)
    return (start + found.start(1), start + found.end(1)) if found else None


def _added_keys(text: str, cite: Citation, keys: list[str]) -> tuple[int, int, str]:
    """Add ``key: value`` items to a citation, in its own style."""
    start, end = cite.mapping_span.start, cite.mapping_span.end
    if cite.mapping_indent is None:  # flow style: {file: x, lines: 1-2}
        close = start + text[start:end].rfind("}")
        return close, close, "".join(f", {key}" for key in keys)
    # Block style: new lines after the `lines:` line, at the keys' indentation, with its line ending.
    line_end = text.find("\n", cite.lines_span.end)
    line_end = len(text) if line_end == -1 else line_end
    newline = "\r\n" if text.endswith("\r\n", 0, line_end + 1) else "\n"
    line_end -= len(newline) - 1  # before the "\r" of a CRLF
    return line_end, line_end, "".join(newline + " " * cite.mapping_indent + key for key in keys)


def set_top_level(text: str, key: str, value: str, after: str) -> str:
    """Set ``key: "value"`` at the top level of a YAML text, adding it after the ``after:`` line."""
    quoted = f'"{value}"'
    found = re.search(rf"^{key}:[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)", text, re.MULTILINE)
    if found:
        return text[:found.start(1)] + quoted + text[found.end(1):]
    anchor = re.search(rf"^{after}:.*$", text, re.MULTILINE)
    if anchor is None:
        return text.rstrip("\n") + f"\n{key}: {quoted}\n"
    newline = "\r\n" if text.endswith("\r", 0, anchor.end()) else "\n"
    end = anchor.end() - (1 if newline == "\r\n" else 0)
    return text[:end] + f"{newline}{key}: {quoted}" + text[end:]


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
            fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
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
    fd, temporary = tempfile.mkstemp(prefix=f"{JOURNAL}.{os.getpid()}.", suffix=".tmp", dir=folder)
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


# A temporary's name holds the process that wrote it: `.D1.yaml.<pid>.<random>.tmp`.
_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp$")


def finish_interrupted_writes(folder: Path) -> list[Path]:
    """Complete the renames of a multi-file write that was killed half-way (its journal says which),
    then remove the temporaries such a run left behind; returns the files replaced. Temporaries
    named in a journal are whole: they were written before the journal."""
    replaced = _finish_journals(folder)
    for pattern in (".*.tmp", "*/.*.tmp", "*/*/.*.tmp"):
        for temporary in folder.glob(pattern):
            found = _TEMPORARY.match(temporary.name)
            if found and not _running(int(found.group(1))):  # a live writer still needs its own
                _remove([temporary])
    return replaced


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but is another user's
        return True
    return True


def _finish_journals(folder: Path) -> list[Path]:
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
