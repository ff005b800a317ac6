"""`levers`: what a pi extension on npm can change, read from its own code with tree-sitter.

The package is fetched like pi (``npm pack`` at the exact version, integrity checked, cached);
its extension entry points are found the way pi's package manager finds them (the ``pi.extensions``
list of package.json, else an ``extensions/`` folder), and every file they import is read for
levers: events given to ``pi.on`` (also through an alias, destructuring or a local wrapper called
with literal names), calls on the extension API object and on a handler's ``ctx``, child processes
and network calls. Which decisions a lever can change comes from the map's lever table
(``levers.yaml``), never from this module.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import Iterator

import tree_sitter

from ..errors import FetchError, UsageError
from ..source.fetch import SourceTree, fetch_tree
from ..map.model import DecisionMap, LeverRow, extension_map
from ..citations.resolve import SourceFile, has_grammar, to_line
from ..map.schema import VERSION_PATTERN

RESOURCE_FIELDS = ("extensions", "skills", "prompts", "themes")  # what makes `pi` a resource manifest
_CODE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
_FUNCTIONS = {"function_declaration", "function_expression", "function", "arrow_function", "method_definition",
              "generator_function_declaration", "generator_function"}
# What a module's exports are as levers: (module, export) → lever; "default" and "*" name the module itself.
_PROCESS = {"spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"}
_MODULE_LEVERS = {
    **{("child_process", name): f"child_process.{name}" for name in _PROCESS},
    **{("http", name): f"http.{name}" for name in ("request", "get", "createServer")},
    **{("https", name): f"https.{name}" for name in ("request", "get", "createServer")},
    **{("net", name): f"net.{name}" for name in ("connect", "createConnection", "createServer")},
    ("tls", "connect"): "tls.connect",
    ("undici", "fetch"): "fetch", ("undici", "request"): "undici.request", ("undici", "stream"): "undici.stream",
    ("node-fetch", "default"): "fetch", ("cross-fetch", "default"): "fetch",
    ("cross-spawn", "default"): "cross-spawn", ("cross-spawn", "sync"): "cross-spawn",
    ("cross-spawn", "spawn"): "cross-spawn",
    ("execa", "execa"): "execa", ("execa", "execaCommand"): "execa", ("execa", "$"): "execa",
    ("execa", "default"): "execa",
    ("ws", "default"): "WebSocket", ("ws", "WebSocket"): "WebSocket",
    ("axios", "default"): "axios", **{("axios", m): "axios" for m in ("get", "post", "put", "patch", "delete",
                                                                       "request", "head")},
}
_GLOBAL_CALLS = {"fetch": "fetch"}  # called with no import
_GLOBAL_CONSTRUCTORS = {"WebSocket": "WebSocket", "EventSource": "EventSource"}


class NoExtension(UsageError):
    """The package holds no pi extension (pi would load nothing from it)."""


@dataclass(frozen=True)
class LeverUse:
    """One use of a lever in the package: ``line`` is 1-based, ``file`` relative to the package."""

    lever: str
    kind: str
    file: str
    line: int
    decisions: tuple[str, ...]
    last: int = 0  # the call's last line (1-based), for a citation of it

    def as_json(self) -> dict:
        return {"lever": self.lever, "kind": self.kind, "file": self.file, "line": self.line,
                "decisions": list(self.decisions)}


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
    files = reachable_files(tree, entries)
    found, unresolved = find_levers({path: SourceFile(path, tree.read(path)) for path in files}, table)
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
        if path.startswith(".."):
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
    """The entries and every file of the package they import, directly or not (relative imports)."""
    seen: list[str] = []
    todo = [e for e in entries if has_grammar(e)]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        parsed = SourceFile(path, tree.read(path)).tree
        for target in _relative_imports(parsed.root_node if parsed else None):
            found = _resolve_import(tree, posixpath.dirname(path), target)
            if found and found not in seen:
                todo.append(found)
    return seen


def _relative_imports(root: tree_sitter.Node | None) -> Iterator[str]:
    for node in _walk(root):
        if node.type in ("import_statement", "export_statement") and node.child_by_field_name("source"):
            source = _literal(node.child_by_field_name("source"))
        elif node.type == "call_expression" and _text(node.child_by_field_name("function")) in ("require", "import"):
            args = _args(node)
            source = _literal(args[0]) if args else None
        else:
            continue
        if source and source.startswith("."):
            yield source


def _resolve_import(tree: SourceTree, base: str, target: str) -> str | None:
    path = posixpath.normpath(posixpath.join(base, target))
    stem = re.sub(r"\.(m|c)?js$", "", path)
    candidates = [path, *(stem + s for s in (".ts", ".tsx", ".mts", ".cts")), *(path + s for s in _CODE_SUFFIXES),
                  *(f"{path}/index{s}" for s in (".ts", ".tsx", ".js", ".mjs"))]
    return next((c for c in candidates if tree.has_file(c) and has_grammar(c)), None)


# --- levers in the code --------------------------------------------------------------------------


@dataclass
class _Scope:
    """What one file's names stand for (flow-insensitive: a name means one thing in the file)."""

    pi: set[str] = field(default_factory=set)  # the extension API object
    pi_fields: set[str] = field(default_factory=set)  # `this.X` holding it
    pi_methods: dict[str, str] = field(default_factory=dict)  # destructured: local name → method
    ctx: set[str] = field(default_factory=set)  # a handler's or command's context
    ui: set[str] = field(default_factory=set)  # ctx.ui
    modules: dict[str, tuple[str, str]] = field(default_factory=dict)  # local → (module, export or "*")
    strings: dict[str, list[str]] = field(default_factory=dict)  # const name → its literal string(s)
    functions: dict[str, list[tree_sitter.Node]] = field(default_factory=dict)  # name → its definitions


def find_levers(files: dict[str, SourceFile], table: tuple[LeverRow, ...]) -> tuple[list[LeverUse], list[tuple[str, int]]]:
    """Every lever used in ``files`` (path → parsed file), with the decisions ``table`` gives it, and
    the `pi.on` calls whose event could not be named."""
    rows = {row.lever: row for row in table}
    found: dict[tuple[str, str, int], LeverUse] = {}
    unresolved: list[tuple[str, int]] = []
    wrappers: set[tuple[str, int]] = set()  # (function name, index of the parameter that names the event)
    roots = {path: source.tree.root_node for path, source in files.items() if source.tree is not None}
    scopes = {path: _scope(root) for path, root in roots.items()}
    # a function of another file called with the API object (or a context) takes it as that parameter
    passes = {p for path, root in roots.items() for p in _passes(root, scopes[path])}
    for path, root in roots.items():
        for name, index, what in passes:
            for function in scopes[path].functions.get(name, ()):
                params = _parameters(function)
                if index < len(params) and params[index].type == "identifier":
                    (scopes[path].pi if what == "pi" else scopes[path].ctx).add(_text(params[index]))

    def add(lever: str, kind: str, path: str, node: tree_sitter.Node) -> None:
        row = rows.get(lever)
        line = to_line(node.start_point[0])
        found.setdefault((lever, path, line), LeverUse(lever, row.kind if row else kind, path, line,
                                                       row.decisions if row else (), to_line(node.end_point[0])))

    for path, root in roots.items():
        for node, event in _events(root, scopes[path]):
            if isinstance(event, list):
                for name in event:
                    add(name, "event", path, node)
            elif isinstance(event, tuple):
                wrappers.add(event)
            else:
                unresolved.append((path, to_line(node.start_point[0])))
        for node, lever, kind in _calls(root, scopes[path], rows):
            add(lever, kind, path, node)
    # a local function that hands its parameter to `pi.on`: its callers name the events
    done: set[tuple[str, int]] = set()
    while wrappers - done:
        wrapper = (wrappers - done).pop()
        done.add(wrapper)
        for path, root in roots.items():
            for node, event in _wrapper_calls(root, scopes[path], wrapper):
                if isinstance(event, list):
                    for name in event:
                        add(name, "event", path, node)
                elif isinstance(event, tuple):
                    wrappers.add(event)
    return sorted(found.values(), key=lambda u: (u.file, u.line, u.lever)), unresolved


def _scope(root: tree_sitter.Node) -> _Scope:
    scope = _Scope(functions=_function_index(root))
    for node in _walk(root):
        kind = node.type
        if kind in ("required_parameter", "optional_parameter"):
            _parameter(scope, node.child_by_field_name("pattern"), _text(node.child_by_field_name("type")))
        elif kind in ("public_field_definition", "field_definition"):
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            if "ExtensionAPI" in _text(node.child_by_field_name("type")):
                scope.pi_fields.add(_text(name))
        elif kind == "export_statement" and any(c.type == "default" for c in node.children):
            target = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            params = _parameters(target) if target is not None else []
            if params:
                _parameter(scope, params[0], "ExtensionAPI")  # pi calls a default export with its API
        elif kind == "import_statement":
            _import(scope, node)
    # JavaScript parameters carry no type: a parameter named `pi` or `ctx` is taken at its name
    for node in _walk(root):
        if node.type == "formal_parameters":
            for param in node.named_children:
                if param.type == "identifier":
                    _parameter(scope, param, "")
        elif node.type == "arrow_function" and node.child_by_field_name("parameter") is not None:
            _parameter(scope, node.child_by_field_name("parameter"), "")
    for _ in range(3):  # aliases of aliases
        for node in _walk(root):
            if node.type == "variable_declarator":
                _declarator(scope, node.child_by_field_name("name"), node.child_by_field_name("value"))
            elif node.type == "assignment_expression":
                _declarator(scope, node.child_by_field_name("left"), node.child_by_field_name("right"))
            elif node.type == "call_expression":
                _passed_on(scope, node)
    return scope


def _parameter(scope: _Scope, pattern: tree_sitter.Node | None, type_text: str) -> None:
    if pattern is None:
        return
    if pattern.type == "object_pattern" and "ExtensionAPI" in type_text:
        scope.pi_methods.update(_destructured(pattern))
    elif pattern.type == "identifier":
        name = _text(pattern)
        if "ExtensionAPI" in type_text or name == "pi":
            scope.pi.add(name)
        elif re.search(r"\bExtension(Command)?Context\b", type_text) or name == "ctx":
            scope.ctx.add(name)


def _parameters(function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """A function's parameter patterns, in order."""
    if function.type == "arrow_function" and function.child_by_field_name("parameter") is not None:
        return [function.child_by_field_name("parameter")]
    params = function.child_by_field_name("parameters")
    if params is None:
        return []
    out = []
    for param in params.named_children:
        if param.type in ("required_parameter", "optional_parameter"):
            out.append(param.child_by_field_name("pattern"))
        elif param.type == "assignment_pattern":
            out.append(param.child_by_field_name("left"))
        elif param.type != "comment":
            out.append(param)
    return out


def _destructured(pattern: tree_sitter.Node) -> dict[str, str]:
    """``{ on, registerTool: rt }`` → {"on": "on", "rt": "registerTool"}."""
    out = {}
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            out[_text(part)] = _text(part)
        elif part.type == "pair_pattern":
            value = part.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                out[_text(value)] = _text(part.child_by_field_name("key"))
        elif part.type == "object_assignment_pattern":
            left = part.child_by_field_name("left")
            out[_text(left)] = _text(left)
    return out


def _declarator(scope: _Scope, name: tree_sitter.Node | None, value: tree_sitter.Node | None) -> None:
    if name is None or value is None:
        return
    value = _unwrap(value)
    if name.type == "identifier":
        local = _text(name)
        if _is_pi(scope, value):
            scope.pi.add(local)
        elif _is_ctx(scope, value):
            scope.ctx.add(local)
        elif _is_ui(scope, value):
            scope.ui.add(local)
        elif (required := _required(value)) is not None:
            scope.modules.setdefault(local, (required, "*"))
        elif (strings := _strings_of(scope, value)) is not None:
            scope.strings.setdefault(local, strings)
    elif name.type == "object_pattern":
        if _is_pi(scope, value):
            scope.pi_methods.update(_destructured(name))
        elif _is_ctx(scope, value):
            scope.ui.update(local for local, key in _destructured(name).items() if key == "ui")
        elif (required := _required(value)) is not None:
            for local, export in _destructured(name).items():
                scope.modules.setdefault(local, (required, export))
    elif name.type == "member_expression" and _text(name.child_by_field_name("object")) == "this":
        if _is_pi(scope, value):
            scope.pi_fields.add(_text(name.child_by_field_name("property")))


def _passed_on(scope: _Scope, call: tree_sitter.Node) -> None:
    """A local function called with the API object (or a context) takes it as that parameter."""
    callee = call.child_by_field_name("function")
    args = _args(call)
    if callee is None or callee.type != "identifier":
        return
    marks = [(i, "pi") for i, a in enumerate(args) if _is_pi(scope, a)]
    marks += [(i, "ctx") for i, a in enumerate(args) if _is_ctx(scope, a)]
    if not marks:
        return
    for function in scope.functions.get(_text(callee), ()):
        params = _parameters(function)
        for index, what in marks:
            if index < len(params) and params[index].type == "identifier":
                (scope.pi if what == "pi" else scope.ctx).add(_text(params[index]))


def _passes(root: tree_sitter.Node, scope: _Scope) -> Iterator[tuple[str, int, str]]:
    """(function name, argument index, "pi" or "ctx") for each call handing on the API or a context."""
    for node in _walk(root):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "identifier":
                for index, arg in enumerate(_args(node)):
                    if _is_pi(scope, arg):
                        yield _text(callee), index, "pi"
                    elif _is_ctx(scope, arg):
                        yield _text(callee), index, "ctx"


def _function_index(root: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """A file's named functions (declarations, and consts holding a function), by name."""
    found: dict[str, list[tree_sitter.Node]] = {}
    for node in _walk(root):
        if node.type in ("function_declaration", "generator_function_declaration"):
            found.setdefault(_text(node.child_by_field_name("name")), []).append(node)
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTIONS:
                found.setdefault(_text(node.child_by_field_name("name")), []).append(value)
    return found


def _import(scope: _Scope, node: tree_sitter.Node) -> None:
    module = _literal(node.child_by_field_name("source"))
    if module is None:
        return
    module = module.removeprefix("node:")
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        return
    for part in clause.named_children:
        if part.type == "identifier":
            scope.modules[_text(part)] = (module, "default")
        elif part.type == "namespace_import":
            name = next((c for c in part.named_children if c.type == "identifier"), None)
            if name is not None:
                scope.modules[_text(name)] = (module, "*")
        elif part.type == "named_imports":
            for spec in part.named_children:
                if spec.type != "import_specifier":
                    continue
                imported = _text(spec.child_by_field_name("name"))
                alias = spec.child_by_field_name("alias")
                scope.modules[_text(alias) if alias is not None else imported] = (module, imported)


def _required(value: tree_sitter.Node) -> str | None:
    """The module of ``require("m")`` or ``await import("m")``."""
    value = _unwrap(value)
    if value.type == "call_expression" and _text(value.child_by_field_name("function")) in ("require", "import"):
        args = _args(value)
        module = _literal(args[0]) if args else None
        return module.removeprefix("node:") if module else None
    return None


def _strings_of(scope: _Scope, value: tree_sitter.Node) -> list[str] | None:
    value = _unwrap(value)
    if (literal := _literal(value)) is not None:
        return [literal]
    if value.type == "array":
        items = [_literal(item) for item in value.named_children]
        return items if items and all(i is not None for i in items) else None
    return None


def _unwrap(node: tree_sitter.Node) -> tree_sitter.Node:
    """Through `as …`, `!`, parentheses, `satisfies` and `await`."""
    while node.type in ("as_expression", "non_null_expression", "parenthesized_expression", "satisfies_expression",
                        "await_expression", "type_assertion") and node.named_children:
        node = node.named_children[0]
    return node


def _is_pi(scope: _Scope, node: tree_sitter.Node | None) -> bool:
    if node is None:
        return False
    node = _unwrap(node)
    if node.type == "identifier":
        return _text(node) in scope.pi
    if node.type == "member_expression":
        prop = _text(node.child_by_field_name("property"))
        return (_text(node.child_by_field_name("object")) == "this" and prop in scope.pi_fields) or prop == "pi"
    return False


def _is_ctx(scope: _Scope, node: tree_sitter.Node | None) -> bool:
    return node is not None and _unwrap(node).type == "identifier" and _text(_unwrap(node)) in scope.ctx


def _is_ui(scope: _Scope, node: tree_sitter.Node | None) -> bool:
    if node is None:
        return False
    node = _unwrap(node)
    if node.type == "identifier":
        return _text(node) in scope.ui
    return node.type == "member_expression" and _text(node.child_by_field_name("property")) == "ui" and \
        _is_ctx(scope, node.child_by_field_name("object"))


def _events(root: tree_sitter.Node, scope: _Scope) -> Iterator[tuple[tree_sitter.Node, list[str] | tuple | None]]:
    """Each `pi.on(…)` call: the event names it registers, a (function, parameter index) wrapper
    when the name is a parameter of the enclosing function, or None when it is not known."""
    for node in _walk(root):
        if node.type != "call_expression":
            continue
        callee = node.child_by_field_name("function")
        if callee is None:
            continue
        if callee.type == "member_expression":
            if _text(callee.child_by_field_name("property")) != "on" or \
                    not _is_pi(scope, callee.child_by_field_name("object")):
                continue
        elif not (callee.type == "identifier" and scope.pi_methods.get(_text(callee)) == "on"):
            continue
        args = _args(node)
        yield node, _event_name(scope, node, args[0]) if args else None


def _event_name(scope: _Scope, call: tree_sitter.Node, arg: tree_sitter.Node) -> list[str] | tuple | None:
    arg = _unwrap(arg)
    if (literal := _literal(arg)) is not None:
        return [literal]
    if arg.type != "identifier":
        return None
    name = _text(arg)
    node = call.parent
    while node is not None:
        if node.type == "for_in_statement" and _text(node.child_by_field_name("left")).split()[-1:] == [name]:
            right = node.child_by_field_name("right")
            found = _strings_of(scope, right) if right is not None else None
            if found is None and right is not None and right.type == "identifier":
                found = scope.strings.get(_text(right))
            return found
        if node.type in _FUNCTIONS:
            params = [_text(p) for p in _parameters(node)]
            if name in params:
                function = _function_name(node)
                return (function, params.index(name)) if function else None
        node = node.parent
    return scope.strings.get(name)


def _function_name(function: tree_sitter.Node) -> str | None:
    name = function.child_by_field_name("name")
    if name is not None:
        return _text(name)
    parent = function.parent
    if parent is not None and parent.type in ("variable_declarator", "pair", "assignment_expression"):
        target = (parent.child_by_field_name("name") or parent.child_by_field_name("key")
                  or parent.child_by_field_name("left"))
        if target is not None:
            return _text(target).rsplit(".", 1)[-1]
    return None


def _wrapper_calls(root: tree_sitter.Node, scope: _Scope, wrapper: tuple[str, int]):
    """Calls of a wrapper function: the event names they pass, or a further wrapper."""
    name, index = wrapper
    for node in _walk(root):
        if node.type != "call_expression":
            continue
        callee = node.child_by_field_name("function")
        called = _text(callee) if callee is not None and callee.type == "identifier" else \
            _text(callee.child_by_field_name("property")) if callee is not None and callee.type == "member_expression" \
            else None
        args = _args(node)
        if called == name and index < len(args):
            yield node, _event_name(scope, node, args[index])


def _calls(root: tree_sitter.Node, scope: _Scope, rows: dict[str, LeverRow]):
    """Each API, process and network call: (node, lever, kind)."""
    for node in _walk(root):
        if node.type == "new_expression":
            constructor = node.child_by_field_name("constructor")
            name = _text(constructor)
            lever = _module_lever(scope.modules.get(name), None) if name in scope.modules \
                else _GLOBAL_CONSTRUCTORS.get(name)
            if lever:
                yield node, lever, "network"
            continue
        if node.type != "call_expression":
            continue
        callee = node.child_by_field_name("function")
        if callee is None:
            continue
        if callee.type == "member_expression":
            target = callee.child_by_field_name("object")
            method = _text(callee.child_by_field_name("property"))
            if _is_pi(scope, target):
                if method == "exec":
                    yield node, "pi.exec", "process"
                elif method != "on" and method in rows and rows[method].kind == "api":
                    yield node, method, "api"
            elif _is_ctx(scope, target) and f"ctx.{method}" in rows:
                yield node, f"ctx.{method}", "api"
            elif _is_ui(scope, target) and f"ctx.ui.{method}" in rows:
                yield node, f"ctx.ui.{method}", "api"
            elif target is not None and _text(target) in scope.modules:
                lever = _module_lever(scope.modules[_text(target)], method)
                if lever:
                    yield node, lever, _kind(lever, rows)
        elif callee.type == "identifier":
            name = _text(callee)
            if name in scope.pi_methods:
                method = scope.pi_methods[name]
                if method == "exec":
                    yield node, "pi.exec", "process"
                elif method != "on" and method in rows and rows[method].kind == "api":
                    yield node, method, "api"
            elif name in scope.modules:
                lever = _module_lever(scope.modules[name], None)
                if lever:
                    yield node, lever, _kind(lever, rows)
            elif name in _GLOBAL_CALLS:
                yield node, _GLOBAL_CALLS[name], "network"
            elif name == "promisify":  # promisify(exec): the call made through it runs the process
                args = _args(node)
                if args and _text(args[0]) in scope.modules:
                    lever = _module_lever(scope.modules[_text(args[0])], None)
                    if lever:
                        yield node, lever, _kind(lever, rows)


def _module_lever(imported: tuple[str, str] | None, member: str | None) -> str | None:
    """The lever a call reaches: ``member`` of an imported module object (None: the import called
    itself)."""
    if imported is None:
        return None
    module, export = imported
    if export in ("*", "default"):
        return _MODULE_LEVERS.get((module, member if member is not None else "default"))
    return _MODULE_LEVERS.get((module, export)) if member is None else None


def _kind(lever: str, rows: dict[str, LeverRow]) -> str:
    if lever in rows:
        return rows[lever].kind
    return "process" if lever.startswith(("child_process", "cross-spawn", "execa")) else "network"


def known_levers() -> set[str]:
    """Every lever name this module can report for a process, a network call or `pi.exec` (the
    table must list each, so that none comes out without its row)."""
    return {*_MODULE_LEVERS.values(), *_GLOBAL_CALLS.values(), *_GLOBAL_CONSTRUCTORS.values(), "pi.exec"}


# --- tree-sitter plumbing ------------------------------------------------------------------------


def _walk(root: tree_sitter.Node | None) -> Iterator[tree_sitter.Node]:
    if root is None:
        return
    cursor = root.walk()
    while True:
        yield cursor.node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _text(node: tree_sitter.Node | None) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else ""


def _args(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _literal(node: tree_sitter.Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions), else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children)
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return _text(node)[1:-1]
    return None


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
