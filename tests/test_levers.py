"""`levers`, pinned extension overlays and `new --extension`: small inline packages for exact
assertions, real packages from the npm registry (fetched at test time, as pi is) for the rest."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

from generator.source.fetch import SourceTree
from generator.extensions.levers import NoExtension, extension_entries, read_levers
from generator.extensions.patterns import known_levers
from generator.map.load import load_maps

DECISIONS = ROOT / "decisions"


@pytest.fixture(autouse=True)
def registry_cache(request: pytest.FixtureRequest, pi_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that fetches from the registry uses the run's cache (pi's trees and installs, and the
    extensions', which the real site's build needs too) rather than fetching them into an empty one."""
    if request.node.get_closest_marker("network"):
        monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))


@functools.lru_cache(maxsize=None)
def table():
    # read once: the map is the same for every test here, and a mutation run reads it for each mutant
    return load_maps(DECISIONS, editions=False)[0].levers


def package(tmp_path: Path, files: dict[str, str | bytes]) -> SourceTree:
    """A package's files as npm ships them, as a source tree (text as UTF-8, bytes as they are)."""
    digests = {}
    for name, text in files.items():
        data = text.encode() if isinstance(text, str) else text
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
        digests[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return SourceTree(tmp_path, "1.0.0", digests)


MANIFEST = json.dumps({"name": "x", "pi": {"extensions": ["./index.ts"]}})


def found(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, **files}), "x", "1.0.0", table())
    return [(u.lever, u.file, u.line) for u in report.levers]


def test_handlers_through_an_alias_destructuring_and_a_wrapper_are_found_at_their_lines(tmp_path):
    index = """\
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { listen } from "./wrap";
export default function (pi: ExtensionAPI) {
  const api = pi;
  api.on("tool_call", async () => ({ block: true }));
  const { on, registerTool: add } = pi;
  on("turn_end", () => {});
  add({ name: "t" });
  function watch(name: string) {
    pi.on(name, () => {});
  }
  watch("input");
  watch("context");
  listen(pi, "agent_before_settle");
  for (const event of ["session_start", "message_end"]) pi.on(event, () => {});
  pi.on(computeName(), () => {});
}
"""
    wrap = """\
export function listen(api, event) {
  api.on(event, () => undefined);
}
"""
    assert found(tmp_path, {"index.ts": index, "wrap.ts": wrap}) == [
        ("tool_call", "index.ts", 5), ("turn_end", "index.ts", 7), ("registerTool", "index.ts", 8),
        ("input", "index.ts", 12), ("context", "index.ts", 13), ("agent_before_settle", "index.ts", 14),
        ("message_end", "index.ts", 15), ("session_start", "index.ts", 15)]
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index, "wrap.ts": wrap}), "x",
                         "1.0.0", table())
    assert report.unresolved == (("index.ts", 16),)  # a computed name is reported, not guessed
    assert report.files == ("index.ts", "wrap.ts")  # wrap.ts is read because index.ts imports it


def test_api_ctx_process_and_network_calls_and_their_decisions(tmp_path):
    index = """\
import { spawn as run } from "node:child_process";
import * as https from "https";
const cp = require("child_process");
export default (pi) => {
  pi.registerCommand("x", { handler: async (args, ctx) => {
    if (await ctx.ui.confirm("go?", "really")) ctx.abort();
    const ui = ctx.ui;
    await ui.select("pick", ["a"]);
  } });
  pi.sendMessage({ customType: "x", content: "y" }, { triggerTurn: true });
  run("git", ["status"]);
  cp.execFile("gh", []);
  https.request("https://example.com");
  fetch("https://example.com");
  new WebSocket("wss://example.com");
  pi.exec("ls", []);
  const controller = new AbortController();
  controller.abort();
};
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    got = {(u.lever, u.line): (u.kind, u.decisions) for u in report.levers}
    rows = {row.lever: row for row in table()}
    assert got == {
        ("registerCommand", 5): ("api", rows["registerCommand"].decisions),
        ("ctx.ui.confirm", 6): ("api", rows["ctx.ui.confirm"].decisions),
        ("ctx.abort", 6): ("api", rows["ctx.abort"].decisions),
        ("ctx.ui.select", 8): ("api", rows["ctx.ui.select"].decisions),
        ("sendMessage", 10): ("api", rows["sendMessage"].decisions),
        ("child_process.spawn", 11): ("process", ()),
        ("child_process.execFile", 12): ("process", ()),
        ("https.request", 13): ("network", ()),
        ("fetch", 14): ("network", ()),
        ("WebSocket", 15): ("network", ()),
        ("pi.exec", 16): ("process", ()),
    }  # an AbortController's abort() is not ctx.abort
    assert "G1" in rows["sendMessage"].decisions and "D1" in rows["ctx.ui.confirm"].decisions


def test_a_tools_context_is_found_by_its_type_whatever_its_name(tmp_path):
    """A tool's `execute` gets pi's context last; named `context` and typed as a tool's context, its
    `executeTool` (a call to another tool, through the same checks) is still a lever."""
    index = """\
import type { ExtensionAPI, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
export default (pi: ExtensionAPI) => {
  pi.registerTool({ name: "t", execute: async (id, params, signal, onUpdate, context: ExtensionToolContext) => {
    return context.executeTool("read", { path: "x" });
  } });
};
"""
    assert found(tmp_path, {"index.ts": index}) == [("registerTool", "index.ts", 3), ("ctx.executeTool", "index.ts", 4)]


def test_api_methods_called_through_a_cast_or_held_by_a_name_are_found(tmp_path):
    index = """\
export default function (pi: ExtensionAPI) {
  (pi as any).registerTool({ name: "a" });
  (pi.registerTool as (t: unknown) => unknown)({ name: "b" });
  const candidate = pi.appendEntry;
  const append = typeof candidate === "function" ? candidate.bind(pi) : undefined;
  append?.("x", {});
  if (typeof pi.setModel === "function") {}
  const onEvent = pi.on as unknown as (e: string, h: unknown) => void;
  onEvent("tool_call", () => ({ block: true }));
  const send = (pi as { sendUserMessage?: (m: string) => unknown }).sendUserMessage;
  send.call(pi, "go");
  const events = (pi as any).events;
  events?.on?.("input", () => {});
  pi.registerTool.length;
  if (!pi.setThinkingLevel || void pi.registerFlag) {}
}
"""
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("registerTool", 2), ("registerTool", 3), ("appendEntry", 4), ("appendEntry", 6), ("tool_call", 9),
        ("sendUserMessage", 10), ("sendUserMessage", 11)]  # `typeof pi.setModel` only tests for it, as `!` does
    # (no unary operator hands the method on); pi.events is pi's event bus between extensions, not `pi.on`


def test_pis_ui_handed_on_by_itself_is_found(tmp_path):
    index = """\
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
type AskUI = Pick<ExtensionUIContext, "select" | "input">;
export default function (pi: ExtensionAPI) {
  pi.registerCommand("x", { handler: async (args, ctx) => {
    const ui = ctx.hasUI ? ctx.ui : undefined;
    await ui?.input("t");
  } });
}
function approve(state: { ui?: ExtensionUIContext }) { return state.ui.select("t", ["a"]); }
function ask(options: { ui: AskUI }) { return options.ui.confirm("t", "m"); }
function field(ask: AskUI) { return ask.input("t"); }
function plain(ui) { return ui.editor("t", ""); }
function other(picker: Picker) { return picker.select("t"); }
"""
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("registerCommand", 4), ("ctx.ui.input", 6), ("ctx.ui.select", 9), ("ctx.ui.confirm", 10),
        ("ctx.ui.input", 11), ("ctx.ui.editor", 12)]  # a picker that is not pi's UI is not


def test_the_api_taken_out_of_an_object_and_a_process_call_held_by_a_name_are_found(tmp_path):
    index = """\
import { notice } from "./notice";
export default function (api: ExtensionAPI) {
  notice({ pi: api, state: 1 });
}
"""
    notice = """\
import { spawn } from "node:child_process";
import * as cp from "node:child_process";
export function notice({ pi, state }: { pi: ExtensionAPI; state: number }) { pi.sendMessage({}); }
export function later(input: { pi: ExtensionAPI }) { const { pi: api, ctx } = input; api.setModel(m); ctx.abort(); }
export function typed({ on }: ExtensionAPI) { on("input", () => {}); }
export function run(options: { spawn?: typeof spawn }) {
  const spawnImpl = options.spawn ?? spawn;
  spawnImpl("gh", []);
  const sync = cp.execFileSync;
  sync("git", []);
  const flags = cp.constants;
}
"""
    assert found(tmp_path, {"index.ts": index, "notice.ts": notice}) == [
        ("sendMessage", "notice.ts", 3), ("ctx.abort", "notice.ts", 4), ("setModel", "notice.ts", 4),
        ("input", "notice.ts", 5), ("child_process.spawn", "notice.ts", 8),
        ("child_process.execFileSync", "notice.ts", 10)]  # `input` holds the API; it is not the API


def test_a_file_the_extension_starts_as_its_own_process_or_worker_is_read(tmp_path):
    index = """\
import path from "node:path";
import { spawn } from "node:child_process";
export default function (pi: ExtensionAPI) {
  const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), "runner.ts");
  spawn(process.execPath, [runner]);
  new Worker(new URL("./lib/worker.mjs", import.meta.url));
  pi.sendMessage({ content: "see unused.ts" });
}
"""
    files = {"index.ts": index, "runner.ts": 'import { spawnSync } from "node:child_process";\nspawnSync("gh", []);\n',
             "lib/worker.mjs": 'fetch("https://example.com");\n', "unused.ts": 'fetch("https://example.com");\n'}
    assert found(tmp_path, files) == [
        ("child_process.spawn", "index.ts", 5), ("sendMessage", "index.ts", 7), ("fetch", "lib/worker.mjs", 1),
        ("child_process.spawnSync", "runner.ts", 2)]  # a file name in a message is not a file it runs


def test_a_network_module_handed_in_by_type_and_fetch_held_by_a_name_are_found(tmp_path):
    index = """\
export default function (pi: ExtensionAPI) {}
export function make(undiciImpl: typeof import("undici")) {
  return (u) => undiciImpl.fetch(u);
}
async function load() {
  let undici: typeof import("undici");
  undici = await import("undici");
  await undici.request("x");
}
function guarded(options: { fetch?: typeof fetch }) { const fetchImpl = options.fetch ?? fetch; return fetchImpl("u"); }
function mine(fetch: (u: string) => void) { const go = fetch; }
"""
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("fetch", 3), ("undici.request", 8), ("fetch", 10)]


def test_a_renderer_is_a_lever_with_no_decision_and_a_headless_browser_is_a_process(tmp_path):
    index = """\
import puppeteer from "puppeteer-core";
export default function (pi: ExtensionAPI) {
  pi.registerMessageRenderer("x", () => undefined);
  pi.registerToolRenderer(() => undefined);
  return puppeteer.launch({ headless: true });
}
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    assert [(u.lever, u.kind, u.line, u.decisions) for u in report.levers] == [
        ("registerMessageRenderer", "api", 3, ()), ("registerToolRenderer", "api", 4, ()),
        ("puppeteer.launch", "process", 5, ())]


def test_names_that_may_hold_the_api_a_context_or_a_process_call_through_a_choice_are_followed(tmp_path):
    index = """\
const cp = require("node:child_process");
const { spawn: run, exec } = require("child_process");
export default function (pi: ExtensionAPI) {
  const api = ready ? undefined : pi;
  api.registerTool({ name: "a" });
  const start = options.start || run;
  start("gh", []);
  const maybe = enabled && exec;
  maybe("ls");
  pi.on("input", async (event, ctx) => {
    const c = ctx;
    c.abort();
    const { ui: u, hasUI } = ctx;
    await u.confirm("go?", "really");
    hasUI.select("not pi's UI");
  });
  const { registerShortcut = undefined } = pi;
  registerShortcut("ctrl+x", {});
  cp.fork("worker.js");
  const first = run ?? fallback;
  first("git", []);
  pi.on("context", (event, ctx) => { const { pi: notApi } = ctx; notApi.setModel(m); });
  holder.api = pi;
  class Other { go() { this.api.setModel(m); } }
}
"""
    # `a && b` holds `b` only when `a` is truthy; a choice (`?:`, `||`, `??`) may hold either side
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("registerTool", 5), ("child_process.spawn", 7), ("input", 10), ("ctx.abort", 12), ("ctx.ui.confirm", 14),
        ("registerShortcut", 18), ("child_process.fork", 19), ("child_process.spawn", 21), ("context", 22)]
    # a context's `pi` property is not the API, nor is `this.api` of a class because `holder.api` holds it


def test_event_names_held_by_constants_loops_and_wrappers_are_found(tmp_path):
    index = """\
import "./polyfill";
const EVENTS = ["session_start", "session_shutdown"];
const TURN = "turn_end";
export default function (pi: ExtensionAPI) {
  for (const name of EVENTS) pi.on(name, () => {});
  for (const other of ["a", "b"]) pi.on(TURN, () => {});
  const watch = (event: string) => pi.on(event, () => {});
  watch(TURN);
  const hooks = { listen: function (event) { pi.on(event, () => {}); } };
  hooks.listen("input");
  helpers.attach = function (n) { pi.on(n, () => {}); };
  helpers.attach("context");
  console.log("not an event", "x");
  [1].forEach(function (event) { pi.on(event, () => {}); });
  for (const name of [computed, "input"]) pi.on(name, () => {});
}
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index, "polyfill.ts": ""}), "x",
                         "1.0.0", table())
    assert [(u.lever, u.line) for u in report.levers] == [
        ("session_shutdown", 5), ("session_start", 5), ("turn_end", 6), ("turn_end", 8), ("input", 10),
        ("context", 12)]
    # the event of a function with no name cannot be followed to its callers: reported, not guessed
    assert report.unresolved == (("index.ts", 14), ("index.ts", 15))


def test_a_default_import_called_is_its_module_and_a_bound_process_call_runs_nothing_yet(tmp_path):
    index = """\
import fetchUrl from "node-fetch";
import { /* the shell */ spawn } from "node:child_process";
import type { Ui } from "./types";
export default function (pi: ExtensionAPI) {
  fetchUrl("https://example.com");
  const git = spawn.bind(null, "git");
  spawn("ls");
  function ask({ ui: screen, pi: api }) { screen.select("t", ["a"]); api.setModel(m); }
}
"""
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("fetch", 5), ("child_process.spawn", 7), ("ctx.ui.select", 8), ("setModel", 8)]


def test_with_no_row_in_the_lever_table_a_lever_is_a_process_or_a_network_call_by_its_module(tmp_path):
    index = """\
import { execa } from "execa";
import spawn from "cross-spawn";
import puppeteer from "puppeteer";
import { spawnSync } from "node:child_process";
export default function (pi: ExtensionAPI) {
  execa("gh");
  spawn("gh");
  puppeteer.launch();
  spawnSync("gh");
  fetch("https://example.com");
  pi.registerTool({ name: "t" });
  https.get("https://example.com");
  pi.on("session_start", () => {});
  function listen(name) { pi.on(name, () => {}); }
  listen("turn_end");
}
"""
    index = 'import * as https from "node:https";\n' + index
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", ())
    assert [(u.lever, u.kind, u.line, u.decisions) for u in report.levers] == [
        ("execa", "process", 7, ()), ("cross-spawn", "process", 8, ()), ("puppeteer.launch", "process", 9, ()),
        ("child_process.spawnSync", "process", 10, ()), ("fetch", "network", 11, ()), ("https.get", "network", 13, ()),
        ("session_start", "event", 14, ()), ("turn_end", "event", 16, ())]  # an API call needs its row
    # `levers --json`: each lever with its kind, file, line and decisions
    rows = {row.lever: row for row in table()}
    tool = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    assert [u.as_json() for u in tool.levers if u.lever == "registerTool"] == [
        {"lever": "registerTool", "kind": "api", "file": "index.ts", "line": 12,
         "decisions": list(rows["registerTool"].decisions)}]


def test_the_api_kept_in_a_class_field_aliased_late_or_handed_to_a_local_function_is_found(tmp_path):
    index = """\
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
class Recorder {
  private api: ExtensionAPI;
  private host;
  constructor(host) { this.host = host; this.host.appendEntry("y", {}); }
  save() { this.api.appendEntry("x", {}); }
}
function later() { const c = b; c.registerTool({ name: "late" }); }
const b = a;
let a;
function setup(given) { const inner = given; inner.registerCommand("x", {}); }
function handle(hc, n) { const held = hc; held.abort(); }
export default (x) => {
  a = x;
  setup(x);
  x.on("input", (event, ctx) => handle(ctx, 1));
  const { exec, on: listen } = x;
  exec("ls", []);
  listen("agent_end", () => {});
  class Holder { constructor(p) { this.p = x; } run() { this.p.sendMessage({}); } }
};
function optional(cx?: ExtensionContext, ui?: Pick<ExtensionUIContext, "input">) { cx?.abort(); ui.input("t"); }
function typedApi(api: Readonly<ExtensionAPI>, part: Partial<ExtensionAPI>, holder: { pi: ExtensionAPI }) {
  api.setModel(m);
  part.setModel(m);
  holder.setModel(m);
}
"""
    # a name is taken to hold the API wherever in the file it is given it: `c` through `b` and `a`,
    # assigned after the function that uses it; `this.host` is some other object
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("appendEntry", 6), ("registerTool", 8), ("registerCommand", 11), ("ctx.abort", 12), ("input", 16),
        ("pi.exec", 18), ("agent_end", 19), ("sendMessage", 20), ("ctx.abort", 22), ("ctx.ui.input", 22),
        ("setModel", 24), ("setModel", 25)]  # `holder` holds the API; it is not the API


def test_a_context_handed_to_another_files_function_and_a_wrapper_of_a_wrapper_are_followed(tmp_path):
    index = """\
import { onInput, forward, none } from "./handlers";
export default function (pi: ExtensionAPI) {
  pi.on("input", async (event, ctx) => onInput(event, ctx));
  function subscribe(name, handler) { pi.on(name, handler); }
  function relay(n) { subscribe(n, () => {}); }
  relay("tool_result");
  forward(pi, 2);
  none(pi);
}
"""
    handlers = """\
export function onInput(event, c) { c.abort(); }
export function forward(api, n) { api.registerTool({ name: "t" }); }
export function none() { return 1; }
"""
    assert found(tmp_path, {"index.ts": index, "handlers.ts": handlers}) == [
        ("ctx.abort", "handlers.ts", 1), ("registerTool", "handlers.ts", 2), ("input", "index.ts", 3),
        ("tool_result", "index.ts", 6)]


def test_network_constructors_promisified_processes_and_methods_taken_but_not_called(tmp_path):
    index = """\
import WS from "ws";
import { exec } from "node:child_process";
import { promisify } from "node:util";
import * as undici from "undici";
export default function (pi: ExtensionAPI) {
  new WS("wss://example.com");
  new EventSource("https://example.com/events");
  new Map();
  const run = promisify(exec);
  const wait = promisify(setTimeout);
  const subscribe = pi.on;
  const bus = pi.events;
  const tool = (pi.registerTool as any);
  const held = pi.sendMessage!;
  (typeof pi.appendEntry === "function" ? pi.appendEntry : undefined)?.call(pi, "x", {});
  const send = pi.sendUserMessage;
  send.apply(pi, ["go"]);
  undici.stream("u");
  pi.registerTool({ name: "a" }); pi.registerTool({ name: "b" });
  pi.registerTool({
    name: "c",
  });
  (ready ? send : undefined).call(pi, "now");
  (ready ? undefined : send).apply(pi, ["later"]);
}
function viaType(client: typeof import("node:https")) { return client.get("u"); }
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    assert [(u.lever, u.kind, u.line) for u in report.levers] == [
        ("WebSocket", "network", 6), ("EventSource", "network", 7), ("child_process.exec", "process", 9),
        ("registerTool", "api", 13), ("sendMessage", "api", 14), ("appendEntry", "api", 15),
        ("sendUserMessage", "api", 16), ("sendUserMessage", "api", 17), ("undici.stream", "network", 18),
        ("registerTool", "api", 19), ("registerTool", "api", 20), ("sendUserMessage", "api", 23),
        ("sendUserMessage", "api", 24), ("https.get", "network", 26)]
    # two calls on one line are one use; a call over three lines is cited to its last line
    assert [(u.line, u.last) for u in report.levers if u.lever == "registerTool"] == [(13, 13), (19, 19), (20, 22)]


def test_a_javascript_extension_is_read_by_its_parameters_names(tmp_path):
    index = """\
import { attach } from "./attach.js";
import { later } from "./later.js";
export default function setup(host) {
  host.registerTool({ name: "t" });
  attach(host);
}
"""
    attach = """\
export function attach(api) {
  api.on("input", ctx => ctx.abort());
}
"""
    later = """\
export function later(pi) {
  pi.on("agent_end", function (event, ctx) { ctx.ui.confirm("again?", "run it again"); });
}
"""
    manifest = json.dumps({"name": "x", "pi": {"extensions": ["./index.js"]}})
    files = {"package.json": manifest, "index.js": index, "attach.js": attach, "later.js": later}
    report = read_levers(package(tmp_path, files), "x", "1.0.0", table())
    # JavaScript has no types: the default export's first parameter is the API (and what it is handed
    # to), and elsewhere `pi` and `ctx` are taken at their names
    assert [(u.lever, u.file, u.line) for u in report.levers] == [
        ("ctx.abort", "attach.js", 2), ("input", "attach.js", 2), ("registerTool", "index.js", 4),
        ("agent_end", "later.js", 2), ("ctx.ui.confirm", "later.js", 2)]


def test_wrappers_with_a_bare_an_optional_a_defaulted_or_a_commented_parameter_and_the_ui_by_type_or_name(tmp_path):
    index = """\
import { withDefault } from "./defaults.js";
import { plain } from "./plain";
export default function (pi: ExtensionAPI) {
  const watch = ev => pi.on(ev, () => {});
  watch("input");
  function maybe(ev?: string) { pi.on(ev, () => {}); }
  maybe("agent_start");
  function noted(/* the event */ ev: string) { pi.on(ev, () => {}); }
  noted("turn_end");
  withDefault(pi);
}
function direct(screen: ExtensionUIContext) { return screen.select("t", ["a"]); }
"""
    defaults = """\
export function withDefault(pi) {
  function listen(ev = "context") { pi.on(ev, () => {}); }
  listen("tool_call");
}
"""
    plain = """\
export function plain(ui) { return ui.editor("t", ""); }
"""
    assert found(tmp_path, {"index.ts": index, "defaults.js": defaults, "plain.ts": plain}) == [
        ("tool_call", "defaults.js", 3), ("input", "index.ts", 5), ("agent_start", "index.ts", 7),
        ("turn_end", "index.ts", 9), ("ctx.ui.select", "index.ts", 12), ("ctx.ui.editor", "plain.ts", 1)]


def test_template_names_comments_in_calls_type_assertions_and_generators(tmp_path):
    index = """\
import { relay } from "./relay";
export default function (pi: ExtensionAPI) {
  pi.on(`turn_start`, () => {});
  pi.on(`${prefix}_end`, () => {});
  pi.on(/* the event */ "model_select", () => {});
  (pi satisfies ExtensionAPI).registerTool({ name: "a" });
  (<ExtensionAPI>pi).registerCommand("x", {});
  options.pi.appendEntry("x", {});
  relay(pi);
  pi!.registerShortcut("ctrl+k", {});
  const viaArrow = (given) => { const kept = given; kept.setModel(m); };
  viaArrow(pi);
  none(pi);
}
function none() {}
"""
    relay = """\
export function* relay(api) { api.sendMessage({}); }
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index, "relay.ts": relay}), "x",
                         "1.0.0", table())
    assert [(u.lever, u.file, u.line) for u in report.levers] == [
        ("turn_start", "index.ts", 3), ("model_select", "index.ts", 5), ("registerTool", "index.ts", 6),
        ("registerCommand", "index.ts", 7), ("appendEntry", "index.ts", 8), ("registerShortcut", "index.ts", 10),
        ("setModel", "index.ts", 11), ("sendMessage", "relay.ts", 1)]
    assert report.unresolved == (("index.ts", 4),)  # a template with a substitution is not guessed


def test_a_method_called_through_a_cast_over_several_lines_is_one_call_and_a_bound_one_is_taken(tmp_path):
    index = """\
export default function (pi: ExtensionAPI) {
  (
    pi.registerTool as (t: unknown) => unknown
  )({ name: "a" });
  (
    pi.registerCommand!
  )("x", {});
  (
    pi.registerShortcut satisfies unknown
  )("k", {});
  const bound = pi.appendEntry.bind(pi);
  pi.on();
}
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    # a call is cited where it starts, not again where the method is named inside its cast
    assert [(u.lever, u.line) for u in report.levers] == [
        ("registerTool", 2), ("registerCommand", 5), ("registerShortcut", 8), ("appendEntry", 11)]
    assert report.unresolved == (("index.ts", 12),)  # `pi.on()` names no event


def test_a_module_held_through_a_default_import_a_late_alias_or_an_own_promisify_and_what_is_no_import(tmp_path):
    index = """\
import childProcess from "node:child_process";
import { exec } from "node:child_process";
export default function (pi: ExtensionAPI) {
  const run = childProcess.execFile;
  run("gh", []);
  const settings = config.get("https");
  settings.request("x");
  const plugin = require(pluginPath);
  const broken = require();
  const shell = promisify(exec);
  const here = new URL;
}
function later() { const go = launcher; go("git", []); }
const launcher = childProcess.spawn;
function promisify(f) { return (...args) => new Promise((done) => f(...args, done)); }
"""
    # `go` holds what `launcher`, declared after it, holds; a call given a string is not an import,
    # a require of a name (or of nothing) names no module, and a `new URL` with no arguments no file
    assert [(lever, line) for lever, _, line in found(tmp_path, {"index.ts": index})] == [
        ("child_process.execFile", 5), ("child_process.exec", 10), ("child_process.spawn", 13)]


def test_a_process_call_wrapped_by_a_promisify_from_anywhere_is_found(tmp_path):
    index = """\
import { execFile } from "node:child_process";
import { promisify } from "./helpers";
export default function (pi: ExtensionAPI) {
  const run = promisify(execFile);
}
"""
    helpers = """\
import { spawn } from "node:child_process";
import { promisify } from "bluebird";
export { promisify };
export const start = promisify(spawn);
"""
    # util's, the extension's own (here from its helpers file) or a library's: each wraps the call
    assert found(tmp_path, {"index.ts": index, "helpers.ts": helpers}) == [
        ("child_process.spawn", "helpers.ts", 4), ("child_process.execFile", "index.ts", 4)]


def test_an_alias_is_followed_however_many_aliases_declared_after_it_lead_to_the_api(tmp_path):
    index = """\
export default function (pi: ExtensionAPI) { a = pi; }
function later() { const e = d; e.setModel(m); }
const d = c;
const c = b;
const b = a;
let a;
"""
    # `e` holds what `d` holds, which holds `c`'s, … down to `a`, given the API: a name holds it
    # wherever in the file it is given it
    assert found(tmp_path, {"index.ts": index}) == [("setModel", "index.ts", 2)]


def test_api_methods_with_no_row_are_no_levers_and_wrappers_are_followed_by_their_last_name(tmp_path):
    index = """\
export default function (pi: ExtensionAPI) {
  const { getAllTools } = pi;
  getAllTools();
  const flag = pi.getFlag;
  flag.call(pi, "verbose");
  pi.registerTool({ name: "t" });
  function listen(handler, event) { pi.on(event, handler); }
  listen(() => {});
  listen(() => {}, "input");
  helpers.hooks.attach = function (n) { pi.on(n, () => {}); };
  helpers.hooks.attach("context");
  const watch = given ?? function (ev) { pi.on(ev, () => {}); };
  watch("turn_end");
}
"""
    report = read_levers(package(tmp_path, {"package.json": MANIFEST, "index.ts": index}), "x", "1.0.0", table())
    # reading the tools or a flag changes no decision: only methods with a row in the table are levers
    assert [(u.lever, u.line) for u in report.levers] == [("registerTool", 6), ("input", 9), ("context", 11)]
    # a function kept beside another one (`given ?? function …`) has no name to follow its callers by
    assert report.unresolved == (("index.ts", 12),)


def test_a_file_not_in_utf8_is_read_all_the_same(tmp_path):
    index = b"""\
export default function (pi: ExtensionAPI) {
  const title = "caf\xe9".toUpperCase();
  pi.registerCommand("menu", { description: "caf\xe9 au lait" });
}
"""
    assert found(tmp_path, {"index.ts": index}) == [("registerCommand", "index.ts", 3)]


def test_every_lever_the_code_can_name_has_a_row_in_the_table():
    assert known_levers() - {row.lever for row in table()} == set()


def test_no_overlay_gives_a_lever_a_decision_the_lever_table_does_not():
    # the table is what `levers` and `new --extension` show for a package not mapped yet: a decision
    # a mapped extension changes through a lever must be one the table gives that lever
    decision_map = load_maps(DECISIONS, editions=False)[0]
    rows = {row.lever: set(row.decisions) for row in decision_map.levers}
    beyond = [(o.extension, lever.lever, sorted(set(lever.decisions) - rows[lever.lever]))
              for o in decision_map.overlays for lever in o.levers if set(lever.decisions) - rows[lever.lever]]
    assert not beyond, beyond
    # what a registered tool changes, read in pi 1.6.0: the prompt's tool list and rules (C7), and
    # whether a reply's calls run together (E3)
    assert {"C7", "E3"} <= rows["registerTool"] and "C7" in rows["resources_discover"]


def test_entries_are_found_the_way_pis_package_manager_finds_them(tmp_path):
    tree = package(tmp_path / "a", {"package.json": json.dumps({"pi": {"video": "x"}}),
                                    "extensions/one.ts": "export default () => {}",
                                    "extensions/two/index.ts": "export default () => {}",
                                    "extensions/.hidden.ts": "", "index.ts": ""})
    assert extension_entries(tree, "a@1") == ["extensions/one.ts", "extensions/two/index.ts"]
    skills_only = package(tmp_path / "b", {"package.json": json.dumps({"pi": {"skills": ["./skills"]}}),
                                           "extensions/one.ts": "", "skills/s.md": ""})
    with pytest.raises(NoExtension, match="lists skills but no extension"):
        extension_entries(skills_only, "b@1")  # a manifest that lists resources is all pi reads
    bare = package(tmp_path / "c", {"package.json": "{}", "index.ts": "export default (pi) => pi.on('x')"})
    with pytest.raises(NoExtension, match="no `pi.extensions`"):
        extension_entries(bare, "c@1")  # a root index.ts is not found in an installed package


@pytest.mark.network
def test_levers_of_a_real_extension_agree_with_its_code():
    run = run_cli("levers", "pi-web-access@0.28.0", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["package"] == "pi-web-access" and report["version"] == "0.28.0"
    levers = {(u["lever"], u["file"], u["line"]) for u in report["levers"]}
    # read from index.ts at 0.28.0: four tools, three session events, the background fetch's messages
    assert {("registerTool", "index.ts", n) for n in (1782, 2380, 2479, 2823)} <= levers
    assert {("session_start", "index.ts", 1766), ("session_tree", "index.ts", 1767),
            ("session_shutdown", "index.ts", 1769), ("sendMessage", "index.ts", 1109),
            ("pi.exec", "index.ts", 859), ("http.createServer", "curator-server.ts", 353)} <= levers
    assert not any(u["kind"] == "event" and u["lever"] in ("tool_call", "context") for u in report["levers"])
    tool = next(u for u in report["levers"] if u["lever"] == "registerTool")
    assert set(tool) == {"lever", "kind", "file", "line", "decisions"} and "C5" in tool["decisions"]


@pytest.mark.network
@pytest.mark.parametrize("spec, words", [
    ("pi-no-such-package-ever-3c1f@1.0.0", ("does not exist",)),
    ("pi-web-access@0.0.1", ("no version 0.0.1", "0.28.0")),
    ("left-pad@1.3.0", ("holds no pi extension",)),
    ("pi-web-access@latest", ("not an exact version",)),
])
def test_levers_refuses_what_is_not_an_extension_release(spec, words):
    run = run_cli("levers", spec, "--quiet")
    assert run.code == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    for word in words:
        assert word in run.stderr, run.stderr


def _copy(tmp_path: Path) -> Path:
    decisions = tmp_path / "decisions"
    shutil.copytree(DECISIONS, decisions)
    return decisions


@pytest.mark.network
def test_verify_checks_an_extensions_citations_and_fails_when_it_moves_to_another_release(tmp_path):
    from generator.source.fetch import registry_integrity

    decisions = _copy(tmp_path)
    overlay = decisions / "pi" / "extensions" / "pi-web-access.yaml"
    run = run_cli("verify", "--decisions", decisions, "--format", "json", "--quiet", overlay)
    assert run.code == 0, run.stderr
    rows = json.loads(run.stdout)["citations"]
    assert rows and {r["map"] for r in rows} == {"npm-pi-web-access"} and {r["status"] for r in rows} == {"ok"}
    # moved by hand to an older real release: resolved from 0.28.0 to 0.13.0, and drift is found
    text = overlay.read_text()
    text = re.sub(r'^version: .*$', 'version: "0.13.0"', text, flags=re.M)
    text = re.sub(r'^integrity: .*$', f'integrity: {registry_integrity("pi-web-access@0.13.0")}', text, flags=re.M)
    overlay.write_text(text)
    run = run_cli("verify", "--decisions", decisions, "--format", "json", "--quiet", overlay)
    assert run.code == 1, run.stderr
    statuses = {r["status"] for r in json.loads(run.stdout)["citations"]}
    assert statuses - {"ok", "moved"}, statuses  # some cited code is not in the older release
    # a pin whose integrity is not the registry's is refused, not fetched
    overlay.write_text(re.sub(r'^integrity: .*$', f'integrity: {registry_integrity("pi-web-access@0.28.0")}',
                              text, flags=re.M))
    run = run_cli("verify", "--decisions", decisions, "--quiet", overlay)
    assert run.code == 2 and "integrity" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.network
def test_new_extension_scaffolds_an_overlay_that_loads_and_verifies_once_written(tmp_path):
    decisions = _copy(tmp_path)
    (decisions / "pi" / "extensions" / "pi-web-access.yaml").unlink()
    (decisions / "pi" / "extensions" / "probes" / "pi-web-access.mjs").unlink()  # a scaffold has no probe yet
    run = run_cli("new", "--decisions", decisions, "--extension", "pi-web-access@0.28.0")
    assert run.code == 0, run.stderr
    overlay = decisions / "pi" / "extensions" / "pi-web-access.yaml"
    text = overlay.read_text()
    assert text.count("- lever: ") == 9 and "lever: registerTool" in text and "runs:" in text
    assert 'version: "0.28.0"' in text and "integrity: sha512-" in text
    run = run_cli("verify", "--decisions", decisions, "--quiet", overlay)
    assert run.code == 2 and "placeholder" in run.stderr  # not before every TODO is written
    overlay.write_text(re.sub(r"TODO\b[^\n]*", "Written from the code.", text))
    run = run_cli("verify", "--decisions", decisions, "--format", "json", "--quiet", overlay)
    assert run.code == 0, run.stderr
    assert {r["status"] for r in json.loads(run.stdout)["citations"]} == {"ok"}


@pytest.mark.network
def test_an_overlay_still_being_written_stops_only_the_commands_that_use_it(tmp_path, pi_cache, monkeypatch):
    # a contributor has scaffolded an overlay and not written its TODOs yet: reading another package's
    # levers, reading the code, starting an entry and running probes of other entries go on
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    monkeypatch.setenv("DECISION_MAP_PROBE_CACHE", "off")
    decisions = _copy(tmp_path)
    run = run_cli("new", "--decisions", decisions, "--extension", "pi-aliases@1.0.7")
    assert run.code == 0, run.stderr
    overlay = decisions / "pi" / "extensions" / "pi-aliases.yaml"
    assert "TODO" in overlay.read_text()
    run = run_cli("levers", "pi-web-access@0.28.0", "--decisions", decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    assert "registerTool" in {u["lever"] for u in json.loads(run.stdout)["levers"]}
    for name in ("pi-aliases@1.0.7", "pi-aliases"):  # the one being written is read by its name too
        run = run_cli("source", "--decisions", decisions, "--extension", name)
        assert run.code == 0 and (Path(run.stdout.strip()) / "package.json").is_file(), run.stderr
    run = run_cli("probe", "P1", "--decisions", decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    assert [r["status"] for r in json.loads(run.stdout)["probes"]] == ["holds"]
    assert "pi-aliases.yaml still holds placeholders" in run.stderr  # said, not hidden
    # what a command would use is refused while it holds a placeholder
    run = run_cli("probe", "pi-aliases", "--decisions", decisions, "--quiet")
    assert run.code == 2 and "pi-aliases.yaml" in run.stderr and "placeholder" in run.stderr, run.stderr
    run = run_cli("verify", "--decisions", decisions, "--quiet")
    assert run.code == 2 and "placeholder" in run.stderr
    # a broken file (not an unfinished one) still stops them all
    (decisions / "pi" / "C5.yaml").write_text((decisions / "pi" / "C5.yaml").read_text().replace(
        "decided_by: code", "decided_by: coder", 1))
    run = run_cli("probe", "P1", "--decisions", decisions, "--quiet")
    assert run.code == 2 and "C5.yaml" in run.stderr and "Traceback" not in run.stderr


def test_the_lever_table_is_read_without_the_rest_of_the_map(tmp_path):
    from generator.errors import InputError
    from generator.map.load import load_lever_table

    decisions = _copy(tmp_path)
    (decisions / "pi" / "G1.yaml").write_text("id: G1\nkind: [broken\n")
    with pytest.raises(InputError):
        load_maps(decisions, editions=False)
    rows = {row.lever: row for row in load_lever_table(decisions)}
    assert rows["registerTool"].decisions == table_row("registerTool").decisions
    # its decision IDs are still checked: against the entry files there are
    levers = decisions / "pi" / "levers.yaml"
    levers.write_text(levers.read_text().replace("decisions: [C10, F9]", "decisions: [C10, F99]"))
    with pytest.raises(InputError) as caught:
        load_lever_table(decisions)
    assert "lever appendEntry names decision F99, which does not exist" in str(caught.value)


def table_row(lever: str):
    return next(row for row in table() if row.lever == lever)


@pytest.mark.network
def test_levers_follows_the_api_object_into_a_helper_module_of_a_scoped_package():
    # @aliou/pi-processes registers its tool_call handler in a helper that takes the API object
    run = run_cli("levers", "@aliou/pi-processes@0.12.0", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["package"] == "@aliou/pi-processes"
    assert {"lever": "tool_call", "kind": "event", "file": "extensions/processes/hooks/background-blocker.ts",
            "line": 186} == {k: v for k, v in next(u for u in report["levers"] if u["lever"] == "tool_call").items()
                             if k != "decisions"}
    assert "D2" in next(u for u in report["levers"] if u["lever"] == "tool_call")["decisions"]


@pytest.mark.network
def test_bump_extension_moves_it_to_another_release_with_its_own_edition(tmp_path):
    from generator.source.fetch import registry_integrity

    decisions = _copy(tmp_path)
    overlay = decisions / "pi" / "extensions" / "pi-web-access.yaml"
    run = run_cli("bump", "--extension", "pi-web-access", "0.13.0", "--decisions", decisions, "--quiet",
                  env={"DECISION_MAP_SKIP_PROBES": "1"})
    assert run.code == 1, run.stderr  # some cited code is not in 0.13.0: a person must re-read it
    text = overlay.read_text()
    assert 'version: "0.13.0"' in text and 'checked_at: "0.13.0"' in text
    assert registry_integrity("pi-web-access@0.13.0") in text
    edition = decisions / "pi" / "extensions" / "pi-web-access" / "editions" / "0.28.0-to-0.13.0.yaml"
    assert "id: pi-web-access" in edition.read_text()
    assert (decisions / "pi" / "map.yaml").read_text() == (DECISIONS / "pi" / "map.yaml").read_text()
    run = run_cli("verify", "--decisions", decisions, "--quiet", overlay)
    assert run.code == 1  # the drifted citations wait for a person, at the release they were checked at


@pytest.mark.network
def test_extension_probes_show_the_change_and_fail_where_it_is_not_seen():
    run = run_cli("probe", "pi-web-access", "pi-prompt-template-model", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    rows = {r["id"]: r for r in json.loads(run.stdout)["probes"]}
    assert rows["pi-web-access"]["result"]["offered_with"] is True
    assert rows["pi-prompt-template-model"]["result"]["template_thinking"] == "high"
    run = run_cli("probe", "pi-web-access", "pi-prompt-template-model", "--format", "json", "--quiet",
                  env={"PROBE_WITHOUT": "1"})  # the extension left out: neither change is seen
    assert run.code == 1, run.stderr
    assert {r["status"] for r in json.loads(run.stdout)["probes"]} == {"fails"}


def test_an_extension_probe_has_room_to_compile_the_extension_unless_a_person_set_the_limit(monkeypatch):
    from generator.probes.extension import EXTENSION_SECONDS, extension_limits
    from generator.probes.sandbox import Limits

    monkeypatch.delenv("DECISION_MAP_PROBE_TIMEOUT", raising=False)
    assert Limits.from_environment().seconds < EXTENSION_SECONDS
    assert extension_limits(Limits.from_environment()).seconds == EXTENSION_SECONDS
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "30")  # one limit for every probe, as README says
    assert extension_limits(Limits.from_environment()).seconds == 30


@pytest.mark.network
def test_the_site_shows_extensions_by_group_their_levers_and_the_decisions_they_change(pi_cache, monkeypatch):
    from generator.site.render import render_folder

    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    pages = render_folder(DECISIONS, ROOT / "site_src").pages
    index = pages["extensions/index.md"]
    for name in ("pi-web-access", "pi-prompt-template-model", "pi-turn-limit"):
        assert f"[{name}]({name}.md)" in index
    assert 'data-groups="CDG" data-npm="yes"' in index and "not on npm" in index
    page = pages["extensions/pi-web-access.md"]
    assert "## Its levers" in page and "<code>registerTool</code> · api" in page
    assert "](https://unpkg.com/pi-web-access@0.28.0/index.ts)" in page
    assert "## What it runs" in page and "## Where it connects" in page and "## What it does not change" in page
    assert "[C5](../pi/C5.md)" in page
    assert "[pi-web-access](../extensions/pi-web-access.md) (<code>registerTool</code>)" in pages["pi/C5.md"]
    assert "[pi-prompt-template-model](../extensions/pi-prompt-template-model.md)" in pages["pi/C6.md"]
    assert "Mapped npm extensions" not in pages["pi/E9.md"]
    for seed in ("pi-turn-limit", "pi-todo-loop", "pi-roundtable"):
        assert "is not in the npm registry" in pages[f"extensions/{seed}.md"]


@pytest.mark.network
def test_an_extension_page_says_it_changes_the_decisions_its_index_row_shows(pi_cache, monkeypatch):
    from generator.site.render import render_folder

    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    pages = render_folder(DECISIONS, ROOT / "site_src").pages
    index = pages["extensions/index.md"]
    overlays = load_maps(DECISIONS, editions=False)[0].overlays
    assert sum(o.pinned for o in overlays) >= 8
    for overlay in overlays:
        name = overlay.extension
        row = re.search(rf'<tr data-dm-ext [^>]*>\n<td markdown="span">\[{re.escape(name)}\]\({re.escape(name)}\.md\)'
                        r'(.*?)</tr>', index, re.S)
        assert row, name
        in_row = re.findall(r"\[([A-Z][0-9]+)\]\(", row.group(1))
        sentence = re.search(r"^\*\*This page describes\*\*(.*?) Marked ", pages[f"extensions/{name}.md"], re.M)
        assert sentence, name
        said = re.findall(r"\[([A-Z][0-9]+)\]\(", sentence.group(1))
        assert sorted(said) == sorted(in_row) and len(said) == len(set(said)), (name, said, in_row)
        if overlay.pinned:  # its levers' decisions are part of what it changes, on both
            assert {d for lever in overlay.levers for d in lever.decisions} - {"C10"} <= set(said), name
        assert overlay.tagline and prose_words(overlay.tagline) in prose_words(row.group(1)), name


def prose_words(text: str) -> str:
    return " ".join(re.sub(r"<[^>]+>|&#?[a-z0-9]+;", " ", text).split())


def test_the_loader_refuses_an_unpinned_overlay_that_cites_code_and_a_stray_extension_probe(tmp_path):
    from generator.errors import InputError

    decisions = _copy(tmp_path)
    (decisions / "pi" / "extensions" / "probes" / "stray.mjs").write_text("console.log('{}')\n")
    (decisions / "pi" / "extensions" / "probes" / "_unused.mjs").write_text("export const x = 1;\n")
    overlay = decisions / "pi" / "extensions" / "pi-web-access.yaml"
    overlay.write_text(re.sub(r"^integrity: .*\n", "", overlay.read_text(), flags=re.M))
    with pytest.raises(InputError) as caught:
        load_maps(decisions, editions=False)
    messages = [str(p) for p in caught.value.problems]
    assert any("stray.mjs: no overlay runs this probe" in m for m in messages), messages
    assert any("_unused.mjs: no probe imports this shared module" in m for m in messages), messages
    assert not any("_session.mjs" in m for m in messages), messages  # the probes' own shared module
    assert any("pi-web-access.yaml" in m and "needs the package pinned" in m for m in messages), messages


# What second readers found by hand in real packages and `levers` once missed, at the pinned release
# (issue 25): each (lever, file, line) read in the package's code.
HAND_READ = {
    "pi-mcp-adapter@2.36.0": {
        ("registerTool", "index.ts", 403), ("registerTool", "index.ts", 1503),  # (pi.registerTool as X)(…)
        ("registerTool", "namespace-tools.ts", 245),
        ("appendEntry", "init.ts", 186),  # const candidate = pi.appendEntry; …candidate.bind(pi)
        ("ctx.ui.select", "tool-approval.ts", 180),  # state.ui.select(…)
        ("ctx.ui.confirm", "sampling-handler.ts", 167), ("ctx.ui.select", "elicitation-handler.ts", 145),
        ("ctx.ui.input", "commands.ts", 411),  # const ui = ctx.hasUI ? ctx.ui : undefined
    },
    "pi-markdown-preview@0.16.0": {("puppeteer.launch", "index.ts", 1868)},
    "pi-mermaid@0.3.0": {("registerMessageRenderer", "index.ts", 474)},
    "@baochunli/pi-collaborating-agents@0.4.6": {
        ("registerMessageRenderer", "extensions/collaborating-agents/renderers.ts", 60)},
    "@aliou/pi-processes@0.12.0": {("registerMessageRenderer", "extensions/processes/message-renderer.ts", 18)},
    "pi-web-access@0.28.0": {
        ("fetch", "gemini-web.ts", 70),  # undiciImpl.fetch, undiciImpl: typeof import("undici")
        ("fetch", "ssrf-protection.ts", 238),  # const fetchImpl = options.fetch ?? fetch
    },
    "pi-subagents@0.67.0": {
        ("tool_call", "src/runs/shared/subagent-prompt-runtime.ts", 344),  # const onRuntimeEvent = pi.on as …
        ("context", "src/runs/shared/subagent-prompt-runtime.ts", 507),
        ("before_provider_request", "src/runs/shared/subagent-prompt-runtime.ts", 505),
        ("before_agent_start", "src/runs/shared/subagent-prompt-runtime.ts", 517),
        ("agent_start", "src/runs/shared/subagent-prompt-runtime.ts", 483),
        ("agent_end", "src/runs/shared/subagent-prompt-runtime.ts", 489),
        ("sendUserMessage", "src/runs/shared/subagent-prompt-runtime.ts", 394),  # (pi as {…}).sendUserMessage
        ("appendEntry", "src/intercom/native-supervisor-channel.ts", 523),
        ("registerCommand", "src/slash/prompt-workflows.ts", 254),  # const { pi, run } = input
        ("child_process.spawn", "src/inspectors/herdr/client.ts", 51),  # spawnImpl = options.spawn ?? spawn
        # the background runner, started as `node jiti runner.ts`: `gh gist create`, external CLIs
        ("child_process.spawnSync", "src/runs/background/subagent-runner.ts", 586),
        ("child_process.spawn", "src/runs/shared/external-cli-runner.ts", 330),
    },
}


@pytest.mark.network
@pytest.mark.parametrize("spec", sorted(HAND_READ))
def test_levers_finds_what_second_readers_found_by_hand(spec):
    run = run_cli("levers", spec, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    levers = {(u["lever"], u["file"], u["line"]) for u in json.loads(run.stdout)["levers"]}
    assert HAND_READ[spec] - levers == set()
