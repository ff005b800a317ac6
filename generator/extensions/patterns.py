"""The patterns by which an extension's code reaches a lever, read with tree-sitter.

A file is parsed once and its nodes are sorted by kind in one pass of tree-sitter's query engine,
so each pattern looks only at the kinds it needs (a Python walk of every node, once per pattern,
was most of `levers`' time on a package of 250 files). Names are resolved per file and without
flow: a name that holds the extension API object (or a context, a UI object, an imported module)
anywhere in the file is taken to hold it everywhere in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator

import tree_sitter

from ..citations.resolve import SourceFile, to_line
from ..map.model import LeverRow

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
    ("puppeteer", "launch"): "puppeteer.launch", ("puppeteer-core", "launch"): "puppeteer.launch",  # a browser
    ("ws", "default"): "WebSocket", ("ws", "WebSocket"): "WebSocket",
    ("axios", "default"): "axios", **{("axios", m): "axios" for m in ("get", "post", "put", "patch", "delete",
                                                                       "request", "head")},
}
_GLOBAL_CALLS = {"fetch": "fetch"}  # called with no import
_MODULE_LEVERS.update({("globalThis", name): lever for name, lever in _GLOBAL_CALLS.items()})  # held by a name
_GLOBAL_CONSTRUCTORS = {"WebSocket": "WebSocket", "EventSource": "EventSource"}


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



# --- a file's nodes by kind ----------------------------------------------------------------------

# The node kinds the patterns look at; a kind one grammar lacks is left out of its query.
_KINDS = ("call_expression", "new_expression", "member_expression", "variable_declarator", "assignment_expression",
          "import_statement", "export_statement", "formal_parameters", "arrow_function", "required_parameter",
          "optional_parameter", "public_field_definition", "field_definition", "function_declaration",
          "generator_function_declaration", "type_alias_declaration")


@lru_cache(maxsize=None)
def _kinds_query(language: tree_sitter.Language) -> tree_sitter.Query:
    known = [kind for kind in _KINDS if language.id_for_node_kind(kind, True) is not None]
    return tree_sitter.Query(language, "\n".join(f"({kind}) @{kind}" for kind in known))


class ParsedFile:
    """One file of the extension: its syntax tree and its nodes by kind, in the order of the text."""

    def __init__(self, path: str, source: SourceFile):
        self.path = path
        tree = source.tree
        self.root = tree.root_node if tree is not None else None
        self._nodes: dict[str, list[tree_sitter.Node]] = {}
        if tree is not None:
            captures = tree_sitter.QueryCursor(_kinds_query(tree.language)).captures(self.root)
            self._nodes = {kind: sorted(nodes, key=lambda n: n.start_byte) for kind, nodes in captures.items()}

    def of(self, *kinds: str) -> list[tree_sitter.Node]:
        """The file's nodes of these kinds, in the order of the text."""
        if len(kinds) == 1:
            return self._nodes.get(kinds[0], [])
        return sorted((n for kind in kinds for n in self._nodes.get(kind, ())), key=lambda n: n.start_byte)


# --- levers in the code --------------------------------------------------------------------------


@dataclass
class _Scope:
    """What one file's names stand for (flow-insensitive: a name means one thing in the file)."""

    pi: set[str] = field(default_factory=set)  # the extension API object
    pi_fields: set[str] = field(default_factory=set)  # `this.X` holding it
    pi_methods: dict[str, str] = field(default_factory=dict)  # destructured: local name → method
    ctx: set[str] = field(default_factory=set)  # a handler's or command's context
    ui: set[str] = field(default_factory=set)  # ctx.ui
    ui_types: set[str] = field(default_factory=set)  # local type aliases of (a part of) pi's UI
    modules: dict[str, tuple[str, str]] = field(default_factory=dict)  # local → (module, export or "*")
    strings: dict[str, list[str]] = field(default_factory=dict)  # const name → its literal string(s)
    functions: dict[str, list[tree_sitter.Node]] = field(default_factory=dict)  # name → its definitions


def find_levers(files: dict[str, ParsedFile], table: tuple[LeverRow, ...]) -> tuple[list[LeverUse], list[tuple[str, int]]]:
    """Every lever used in ``files`` (path → parsed file), with the decisions ``table`` gives it, and
    the `pi.on` calls whose event could not be named."""
    rows = {row.lever: row for row in table}
    found: dict[tuple[str, str, int], LeverUse] = {}
    unresolved: list[tuple[str, int]] = []
    wrappers: set[tuple[str, int]] = set()  # (function name, index of the parameter that names the event)
    roots = {path: code for path, code in files.items() if code.root is not None}
    scopes = {path: _scope(code) for path, code in roots.items()}
    # a function of another file called with the API object (or a context) takes it as that parameter
    passes = {p for path, code in roots.items() for p in _passes(code, scopes[path])}
    for path in roots:
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

    for path, code in roots.items():
        for node, event in _events(code, scopes[path]):
            if isinstance(event, list):
                for name in event:
                    add(name, "event", path, node)
            elif isinstance(event, tuple):
                wrappers.add(event)
            else:
                unresolved.append((path, to_line(node.start_point[0])))
        for node, lever, kind in _calls(code, scopes[path], rows):
            add(lever, kind, path, node)
    # a local function that hands its parameter to `pi.on`: its callers name the events
    done: set[tuple[str, int]] = set()
    while wrappers - done:
        wrapper = (wrappers - done).pop()
        done.add(wrapper)
        for path, code in roots.items():
            for node, event in _wrapper_calls(code, scopes[path], wrapper):
                if isinstance(event, list):
                    for name in event:
                        add(name, "event", path, node)
                elif isinstance(event, tuple):
                    wrappers.add(event)
    return sorted(found.values(), key=lambda u: (u.file, u.line, u.lever)), unresolved


def _scope(code: ParsedFile) -> _Scope:
    scope = _Scope(functions=_function_index(code))
    scope.ui_types = {_text(node.child_by_field_name("name")) for node in code.of("type_alias_declaration")
                      if "ExtensionUIContext" in _text(node.child_by_field_name("value"))}
    for node in code.of("required_parameter", "optional_parameter", "public_field_definition", "field_definition",
                        "export_statement", "import_statement"):
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
    for node in code.of("formal_parameters", "arrow_function"):
        if node.type == "formal_parameters":
            for param in node.named_children:
                if param.type == "identifier":
                    _parameter(scope, param, "")
        elif node.type == "arrow_function" and node.child_by_field_name("parameter") is not None:
            _parameter(scope, node.child_by_field_name("parameter"), "")
    # aliases of aliases, each declared before or after what it copies: a round follows one more
    # link, until one finds nothing new (what a name is found to hold is never taken back, so the
    # counts only grow, and the rounds end)
    while True:
        known = _known(scope)
        for node in code.of("variable_declarator", "assignment_expression", "call_expression"):
            if node.type == "variable_declarator":
                _declarator(scope, node.child_by_field_name("name"), node.child_by_field_name("value"))
            elif node.type == "assignment_expression":
                _declarator(scope, node.child_by_field_name("left"), node.child_by_field_name("right"))
            elif node.type == "call_expression":
                _passed_on(scope, node)
        if _known(scope) == known:
            return scope


def _known(scope: _Scope) -> tuple[int, ...]:
    """How many names the file's scope holds something for, by what they hold."""
    return (len(scope.pi), len(scope.pi_fields), len(scope.pi_methods), len(scope.ctx), len(scope.ui),
            len(scope.modules), len(scope.strings))


def _parameter(scope: _Scope, pattern: tree_sitter.Node | None, type_text: str) -> None:
    if pattern is None:
        return
    # typed as the API itself (or a part of it), not as an object that holds it (`input: { pi: ExtensionAPI }`)
    is_api = re.match(r"[:\s]*((Pick|Partial|Readonly)<\s*)?ExtensionAPI\b", type_text) is not None
    if pattern.type == "object_pattern" and is_api:
        scope.pi_methods.update(_destructured(pattern))  # `({ on, registerTool }: ExtensionAPI)`
    elif pattern.type == "object_pattern":
        _held_by_name(scope, pattern)
    elif pattern.type == "identifier":
        name = _text(pattern)
        typed_module = re.search(r"\btypeof\s+import\(\s*[\"']([^\"']+)[\"']\s*\)\s*$", type_text)
        if typed_module:  # `undiciImpl: typeof import("undici")`: the module handed in
            scope.modules.setdefault(name, (typed_module.group(1).removeprefix("node:"), "*"))
        elif is_api or name == "pi":
            scope.pi.add(name)
        elif re.search(r"\bExtension(Command|Tool)?Context\b", type_text) or name == "ctx":
            scope.ctx.add(name)
        elif name == "ui" or "ExtensionUIContext" in type_text or \
                any(re.search(rf"\b{re.escape(alias)}\b", type_text) for alias in scope.ui_types):
            scope.ui.add(name)  # pi's UI handed on by itself, as a `ui` or typed as (a part of) it


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
    if value.type == "ternary_expression" or (value.type == "binary_expression" and
                                              _text(value.child_by_field_name("operator")) in ("??", "||")):
        # `c ? ctx.ui : undefined`, `options.spawn ?? spawn`: the name may hold either side
        for side in ("consequence", "alternative") if value.type == "ternary_expression" else ("left", "right"):
            _declarator(scope, name, value.child_by_field_name(side))
        return
    if name.type == "identifier":
        local = _text(name)
        if (method := _pi_method(scope, value)) is not None:
            scope.pi_methods[local] = method  # `const on = pi.on as X`, `pi.appendEntry.bind(pi)`
        elif _is_pi(scope, value):
            scope.pi.add(local)
        elif _is_ctx(scope, value):
            scope.ctx.add(local)
        elif _is_ui(scope, value):
            scope.ui.add(local)
        elif (required := _required(value)) is not None:
            scope.modules.setdefault(local, (required, "*"))
        elif (imported := _imported(scope, value)) is not None:
            scope.modules.setdefault(local, imported)  # `const run = spawn`, `const run = cp.spawn`
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
        else:
            _held_by_name(scope, name)
    elif name.type == "member_expression" and _text(name.child_by_field_name("object")) == "this":
        if _is_pi(scope, value):
            scope.pi_fields.add(_text(name.child_by_field_name("property")))


def _held_by_name(scope: _Scope, pattern: tree_sitter.Node) -> None:
    """``{ pi, ctx, ui }`` taken out of an extension's own object (``function f({ pi, state })``,
    ``const { pi } = input``): each holds what its key names, as ``input.pi`` does."""
    for local, key in _destructured(pattern).items():
        {"pi": scope.pi, "ctx": scope.ctx, "ui": scope.ui}.get(key, set()).add(local)


def _imported(scope: _Scope, value: tree_sitter.Node) -> tuple[str, str] | None:
    """What a name given an import holds: ``spawn`` itself, or ``cp.spawn`` of ``import * as cp``."""
    if value.type == "identifier":
        name = _text(value)
        return scope.modules.get(name) or (("globalThis", name) if name in _GLOBAL_CALLS else None)
    if value.type == "member_expression":
        module = scope.modules.get(_text(value.child_by_field_name("object")))
        if module is not None and module[1] in ("*", "default"):
            return module[0], _text(value.child_by_field_name("property"))
    return None


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


def _passes(code: ParsedFile, scope: _Scope) -> Iterator[tuple[str, int, str]]:
    """(function name, argument index, "pi" or "ctx") for each call handing on the API or a context."""
    for node in code.of("call_expression"):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "identifier":
                for index, arg in enumerate(_args(node)):
                    if _is_pi(scope, arg):
                        yield _text(callee), index, "pi"
                    elif _is_ctx(scope, arg):
                        yield _text(callee), index, "ctx"


def _function_index(code: ParsedFile) -> dict[str, list[tree_sitter.Node]]:
    """A file's named functions (declarations, and consts holding a function), by name."""
    found: dict[str, list[tree_sitter.Node]] = {}
    for node in code.of("function_declaration", "generator_function_declaration", "variable_declarator"):
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
        # `<T>x` holds its type first and the expression last; the others hold the expression first
        node = node.named_children[-1 if node.type == "type_assertion" else 0]
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


def _pi_method(scope: _Scope, node: tree_sitter.Node | None) -> str | None:
    """The API method a value is: ``pi.X`` (through casts), ``m.bind(pi)`` of one, a name holding
    one, or either branch of ``c ? m : undefined``."""
    if node is None:
        return None
    node = _unwrap(node)
    if node.type == "member_expression" and _is_pi(scope, node.child_by_field_name("object")):
        return _text(node.child_by_field_name("property"))
    if node.type == "identifier":
        return scope.pi_methods.get(_text(node))
    if node.type == "call_expression":
        callee = _unwrap(node.child_by_field_name("function"))
        if callee.type == "member_expression" and _text(callee.child_by_field_name("property")) == "bind":
            return _pi_method(scope, callee.child_by_field_name("object"))
    if node.type == "ternary_expression":
        return _pi_method(scope, node.child_by_field_name("consequence")) or \
            _pi_method(scope, node.child_by_field_name("alternative"))
    return None


def _method_taken(scope: _Scope, member: tree_sitter.Node) -> str | None:
    """The API method ``pi.X`` names when it is taken as a value, not called there (nor only tested,
    with ``typeof`` or ``!``)."""
    if not _is_pi(scope, member.child_by_field_name("object")):
        return None
    outer = member
    while outer.parent is not None and outer.parent.type in ("as_expression", "parenthesized_expression",
                                                              "non_null_expression", "satisfies_expression"):
        outer = outer.parent
    parent = outer.parent
    if parent is None or (parent.type == "call_expression" and parent.child_by_field_name("function") == outer):
        return None
    if parent.type == "unary_expression":
        return None  # `typeof pi.X`, `!pi.X`, `void pi.X`: no unary operator hands the method on
    if parent.type == "member_expression" and _text(parent.child_by_field_name("property")) != "bind":
        return None  # `pi.events.on`: a member of a member, not the method itself
    return _text(member.child_by_field_name("property"))


def _is_ctx(scope: _Scope, node: tree_sitter.Node | None) -> bool:
    return node is not None and _unwrap(node).type == "identifier" and _text(_unwrap(node)) in scope.ctx


def _is_ui(scope: _Scope, node: tree_sitter.Node | None) -> bool:
    if node is None:
        return False
    node = _unwrap(node)
    if node.type == "identifier":
        return _text(node) in scope.ui
    # `ctx.ui`, and also `state.ui` or `options.ui`: pi's UI kept in an extension's own object
    return node.type == "member_expression" and _text(node.child_by_field_name("property")) == "ui"


def _events(code: ParsedFile, scope: _Scope) -> Iterator[tuple[tree_sitter.Node, list[str] | tuple | None]]:
    """Each `pi.on(…)` call: the event names it registers, a (function, parameter index) wrapper
    when the name is a parameter of the enclosing function, or None when it is not known."""
    for node in code.of("call_expression"):
        callee = node.child_by_field_name("function")
        if callee is None:
            continue
        callee = _unwrap(callee)
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


def _wrapper_calls(code: ParsedFile, scope: _Scope, wrapper: tuple[str, int]):
    """Calls of a wrapper function: the event names they pass, or a further wrapper."""
    name, index = wrapper
    for node in code.of("call_expression"):
        callee = node.child_by_field_name("function")
        called = _text(callee) if callee is not None and callee.type == "identifier" else \
            _text(callee.child_by_field_name("property")) if callee is not None and callee.type == "member_expression" \
            else None
        args = _args(node)
        if called == name and index < len(args):
            yield node, _event_name(scope, node, args[index])


def _calls(code: ParsedFile, scope: _Scope, rows: dict[str, LeverRow]):
    """Each API, process and network call: (node, lever, kind)."""
    for node in code.of("call_expression", "new_expression", "member_expression"):
        if node.type == "new_expression":
            constructor = node.child_by_field_name("constructor")
            name = _text(constructor)
            lever = _module_lever(scope.modules.get(name), None) if name in scope.modules \
                else _GLOBAL_CONSTRUCTORS.get(name)
            if lever:
                yield node, lever, "network"
            continue
        if node.type == "member_expression":
            method = _method_taken(scope, node)
            if method is not None and method != "on" and method in rows and rows[method].kind == "api":
                yield node, method, "api"  # taken to be called later: `const append = pi.appendEntry`
            continue
        callee = node.child_by_field_name("function")
        if callee is None:
            continue
        callee = _unwrap(callee)  # `(pi.registerTool as X)(…)` calls pi.registerTool
        if callee.type == "member_expression":
            target = callee.child_by_field_name("object")
            method = _text(callee.child_by_field_name("property"))
            if _is_pi(scope, target):
                if method == "exec":
                    yield node, "pi.exec", "process"
                elif method != "on" and method in rows and rows[method].kind == "api":
                    yield node, method, "api"
            elif method in ("call", "apply") and (held := _pi_method(scope, target)) is not None:
                if held != "on" and held in rows and rows[held].kind == "api":
                    yield node, held, "api"  # `append.call(pi, …)` on a method held by a name
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
            # promisify(exec): the call made through it runs the process (promisify imported from
            # util, as it usually is, from a library, or the extension's own: each wraps the call)
            elif name == "promisify":
                args = _args(node)
                if args and _text(args[0]) in scope.modules:
                    lever = _module_lever(scope.modules[_text(args[0])], None)
                    if lever:
                        yield node, lever, _kind(lever, rows)
            elif name in scope.modules:
                lever = _module_lever(scope.modules[name], None)
                if lever:
                    yield node, lever, _kind(lever, rows)
            elif name in _GLOBAL_CALLS:
                yield node, _GLOBAL_CALLS[name], "network"


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
    return "process" if lever.startswith(("child_process", "cross-spawn", "execa", "puppeteer")) else "network"


def known_levers() -> set[str]:
    """Every lever name this module can report for a process, a network call or `pi.exec` (the
    table must list each, so that none comes out without its row)."""
    return {*_MODULE_LEVERS.values(), *_GLOBAL_CALLS.values(), *_GLOBAL_CONSTRUCTORS.values(), "pi.exec"}


# --- tree-sitter plumbing ------------------------------------------------------------------------


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

