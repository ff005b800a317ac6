"""`levers`: what a pi extension on npm can change, read from its own code with tree-sitter.

The package is fetched like pi (``npm pack`` at the exact version, integrity checked, cached);
its extension entry points are found the way pi's package manager finds them (the ``pi.extensions``
list of package.json, else an ``extensions/`` folder), and every file they import (or start as a
process of their own) is read for levers: events given to ``pi.on`` (also through an alias, a cast,
destructuring or a local wrapper called with literal names), calls on the extension API object, on a
handler's ``ctx`` and on pi's UI, child processes and network calls (patterns.py). Which decisions a lever can change comes from the map's lever table
(``levers.yaml``), never from this module.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Iterator

from ..errors import FetchError, UsageError
from ..source.fetch import SourceTree, fetch_tree
from ..map.model import LeverRow, extension_map
from ..citations.resolve import SourceFile, has_grammar
from ..map.schema import VERSION_PATTERN
from .patterns import LeverUse, ParsedFile, _args, _literal, _text, find_levers


RESOURCE_FIELDS = ("extensions", "skills", "prompts", "themes")  # what makes `pi` a resource manifest
_CODE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")


class NoExtension(UsageError):
    """The package holds no pi extension (pi would load nothing from it)."""


@dataclass(frozen=True)
class LeverReport:
    package: str
    version: str
    levers: tuple[LeverUse, ...]
    entries: tuple[str, ...]  # the extension's entry points, as pi finds them
    files: tuple[str, ...]  # every file read: the entries and what they import
    unresolved: tuple[tuple[str, int], ...] = ()  # `pi.on` calls whose event name is not a literal

    def as_json(self) -> dict:
        return {"package": self.package, "version": self.version,
                "levers": [use.as_json() for use in self.levers],
                "entries": list(self.entries), "unresolved": [{"file": f, "line": n} for f, n in self.unresolved]}


def parse_spec(text: str) -> tuple[str, str]:
    """``PACKAGE@VERSION`` (``@scope/name@1.2.3`` too) → (package, version); the version must be exact."""
    package, at, version = text.rpartition("@")
    if not at or not package or package == "@":
        raise UsageError(f"{text!r}: give PACKAGE@VERSION with an exact version, e.g. pi-web-access@0.28.0")
    if not re.fullmatch(VERSION_PATTERN, version) or not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+.*", version):
        raise UsageError(f"{text!r}: {version!r} is not an exact version (like 1.2.3); the levers are read at one "
                         "release")
    return package, version


def package_levers(spec: str, table: tuple[LeverRow, ...], quiet: bool = True) -> LeverReport:
    """Fetch ``spec`` (PACKAGE@VERSION) and find every lever its pi extension uses."""
    package, version = parse_spec(spec)
    try:
        tree = fetch_tree(extension_map(package, version), version, quiet=quiet)
    except FetchError as err:
        raise FetchError(_why_not_fetched(package, version, str(err))) from None
    return read_levers(tree, package, version, table)


def read_levers(tree: SourceTree, package: str, version: str, table: tuple[LeverRow, ...]) -> LeverReport:
    """The levers of the extension in ``tree`` (a package's files as shipped)."""
    entries = extension_entries(tree, f"{package}@{version}")
    files = _reachable(tree, entries)
    found, unresolved = find_levers(files, table)
    return LeverReport(package, version, tuple(found), tuple(entries), tuple(files), tuple(unresolved))


def _why_not_fetched(package: str, version: str, message: str) -> str:
    """Say whether the package or only its version is unknown, when npm says "not in the registry"."""
    if "not in the npm registry" not in message:
        return message
    from ..source.fetch import _npm

    try:
        versions = json.loads(_npm(["view", package, "versions", "--json"], package) or "[]")
    except (FetchError, ValueError):
        return f"{package} does not exist in the npm registry"
    versions = versions if isinstance(versions, list) else [versions]
    shown = ", ".join(versions[-8:])
    return f"{package} has no version {version} in the npm registry (its latest releases: {shown})"


# --- where pi finds the extension in a package ---------------------------------------------------


def extension_entries(tree: SourceTree, spec: str) -> list[str]:
    """The package's extension entry points, as pi's package manager collects them: the ``pi``
    manifest's ``extensions`` when the manifest lists any resource, else the ``extensions/`` folder."""
    manifest = _manifest(tree, "package.json")
    if manifest is not None and any(key in manifest for key in RESOURCE_FIELDS):
        entries = manifest.get("extensions")
        found = _manifest_entries(tree, "", entries) if _strings(entries) else []
        if not found:
            listed = [key for key in RESOURCE_FIELDS if key in manifest]
            raise NoExtension(f"{spec} holds no pi extension: its package.json `pi` lists {', '.join(listed)} "
                              "but no extension file that exists in the package")
        return found
    found = _auto_entries(tree, "extensions")
    if not found:
        raise NoExtension(f"{spec} holds no pi extension: its package.json has no `pi.extensions` and it has no "
                          "extensions/ folder with code in it, so pi would load no extension from it")
    return found


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _manifest(tree: SourceTree, path: str) -> dict | None:
    if not tree.has_file(path):
        return None
    try:
        pkg = json.loads(tree.read(path).decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return None
    pi = pkg.get("pi") if isinstance(pkg, dict) else None
    return pi if isinstance(pi, dict) else None


def _manifest_entries(tree: SourceTree, base: str, entries: list[str]) -> list[str]:
    found: list[str] = []
    for entry in entries:
        if entry.startswith(("!", "+", "-")):
            continue  # a pattern that switches files on or off, not a source of files
        path = posixpath.normpath(posixpath.join(base, entry))
        if path == ".." or path.startswith("../"):  # out of the package ("..x.ts" is a file in it)
            continue
        if any(c in entry for c in "*?[{"):
            found += [f for f in sorted(tree.files) if fnmatch.fnmatch(f, path) and f.endswith(_CODE_SUFFIXES)]
        elif tree.has_file(path):
            found.append(path)
        elif _is_folder(tree, path):
            found += _auto_entries(tree, path)
    return list(dict.fromkeys(found))


def _is_folder(tree: SourceTree, path: str) -> bool:
    prefix = "" if path in ("", ".") else path + "/"
    return any(f.startswith(prefix) for f in tree.files)


def _folder_entries(tree: SourceTree, folder: str) -> list[str] | None:
    """A folder's own entries: its package.json's extensions, else its index.ts or index.js."""
    manifest = _manifest(tree, posixpath.join(folder, "package.json"))
    if manifest is not None and _strings(manifest.get("extensions")):
        listed = [p for e in manifest["extensions"]
                  if tree.has_file(p := posixpath.normpath(posixpath.join(folder, e)))]
        if listed:
            return listed
    for index in ("index.ts", "index.js"):
        if tree.has_file(posixpath.join(folder, index)):
            return [posixpath.join(folder, index)]
    return None


def _auto_entries(tree: SourceTree, folder: str) -> list[str]:
    """pi's discovery in a folder: its own entries, else its .ts/.js files and its subfolders' entries."""
    if not _is_folder(tree, folder):
        return []
    own = _folder_entries(tree, folder)
    if own:
        return own
    found, folders = [], set()
    for path in sorted(tree.files):
        rest = path[len(folder) + 1:]
        if not path.startswith(folder + "/") or rest.startswith("."):
            continue
        head, _, tail = rest.partition("/")
        if not tail and rest.endswith((".ts", ".js")):
            found.append(path)
        elif tail and head != "node_modules" and not head.startswith(".") and head not in folders:
            folders.add(head)
            found += _folder_entries(tree, f"{folder}/{head}") or []
    return found


# --- the files an extension is made of -----------------------------------------------------------


def reachable_files(tree: SourceTree, entries: list[str]) -> list[str]:
    """The entries and every file of the package they import, directly or not (relative imports), or
    start as a process of their own (a runner named beside the file that spawns it)."""
    return list(_reachable(tree, entries))


def _reachable(tree: SourceTree, entries: list[str]) -> dict[str, ParsedFile]:
    """The files ``reachable_files`` names, each parsed once: path → parsed file."""
    seen: dict[str, ParsedFile] = {}
    todo = [e for e in entries if has_grammar(e)]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        code = seen[path] = ParsedFile(path, SourceFile(path, tree.read(path)))
        for target in _relative_imports(code):
            found = _resolve_import(tree, posixpath.dirname(path), target)
            if found and found not in seen:
                todo.append(found)
    return seen


def _relative_imports(code: ParsedFile) -> Iterator[str]:
    """The package's files this one imports, or names to run, as paths relative to it."""
    for node in code.of("import_statement", "export_statement", "call_expression"):
        if node.type in ("import_statement", "export_statement") and node.child_by_field_name("source"):
            source = _literal(node.child_by_field_name("source"))
        elif node.type == "call_expression" and _text(node.child_by_field_name("function")) in ("require", "import"):
            args = _args(node)
            source = _literal(args[0]) if args else None
        else:
            continue
        if source and source.startswith("."):
            yield source
    # a file of the package started as its own process or worker: `spawn(node, [path.join(here,
    # "runner.ts")])`, `new URL("./worker.mjs", import.meta.url)`; it runs what the extension asks
    for node in code.of("call_expression", "new_expression"):
        callee = node.child_by_field_name("function" if node.type == "call_expression" else "constructor")
        name = _text(callee).rsplit(".", 1)[-1]
        if name in ("join", "resolve") or (node.type == "new_expression" and name == "URL"):
            for arg in _args(node):
                named = _literal(arg) or ""
                if named.endswith(_CODE_SUFFIXES) and (named.startswith(".") or "/" not in named):
                    yield named if named.startswith(".") else "./" + named  # a bare name: beside this file


def _resolve_import(tree: SourceTree, base: str, target: str) -> str | None:
    path = posixpath.normpath(posixpath.join(base, target))
    stem = re.sub(r"\.(m|c)?js$", "", path)
    candidates = [path, *(stem + s for s in (".ts", ".tsx", ".mts", ".cts")), *(path + s for s in _CODE_SUFFIXES),
                  *(f"{path}/index{s}" for s in (".ts", ".tsx", ".js", ".mjs"))]
    return next((c for c in candidates if tree.has_file(c) and has_grammar(c)), None)


def report_text(report: LeverReport, seconds: float | None = None) -> str:
    """The text form: one row per lever use, then the entries and what could not be named."""
    lines = [f"{report.package}@{report.version}: {len(report.levers)} lever use(s) in {len(report.files)} file(s); "
             f"entries: {', '.join(report.entries)}"]
    width = max((len(u.lever) for u in report.levers), default=5)
    for use in report.levers:
        decisions = ", ".join(use.decisions) if use.decisions else "-"
        lines.append(f"  {use.lever:<{width}}  {use.kind:<7}  {use.file}:{use.line}  {decisions}")
    for file, line in report.unresolved:
        lines.append(f"  note: {file}:{line}: `pi.on` with an event name that is not a literal; read it by hand")
    if seconds is not None:
        lines.append(f"({seconds:.1f} s)")
    return "\n".join(lines)
