"""`leads`: code an entry's citations do not cover that names what its cited code names.

Small fixture trees for exact assertions, then pi's real tree at 1.6.0 (from the registry)."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from conftest import ACTOR, ROOT, assert_clean_failure, entry_yaml, make_project, run_cli, run_main

# A session that emits an event, reads a setting and an environment variable; a runner that calls
# the session's check, an extension that handles the event, and a type that only names it.
SESSION = """\
export class Session {
  check(call: string): boolean {
    if (!this.runner.hasHandlers("tool_call")) {
      return true;
    }
    const limit = this.settingsManager.getCallLimit();
    const home = process.env.DEMO_AGENT_HOME;
    return this.runner.emit({ type: "tool_call", call, limit, home });
  }

  again(call: string): boolean {
    return this.check(call);
  }

  async bindExtensions(bindings: object): Promise<void> {}
}
"""

RUNNER = """\
import { Session } from "./session";

export function runOne(session: Session, call: string): boolean {
  return session.check(call);
}

export function limits(settings: Settings): number {
  return settings.callLimit ?? 3;
}

export function home(): string | undefined {
  return process.env.DEMO_AGENT_HOME;
}
"""

EXTENSION = """\
export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event) => {
    return undefined;
  });
}

interface ToolCallEvent {
  type: "tool_call";
}
"""

PRINT_MODE = """\
export async function runPrint(session: Session): Promise<number> {
  await session.bindExtensions({ mode: "print" });
  return 0;
}
"""

RPC_MODE = """\
export async function runRpc(session: Session): Promise<void> {
  await session.bindExtensions({ mode: "rpc", shutdownHandler: () => {} });
}
"""

TREE = {"src/session.ts": SESSION, "src/runner.ts": RUNNER, "src/extension.ts": EXTENSION,
        "src/modes/print-mode.ts": PRINT_MODE, "src/modes/rpc-mode.ts": RPC_MODE}


def leads_of(run) -> list[tuple[str, str, int, str]]:
    return [(lead["id"], lead["file"], lead["line"], lead["symbol"]) for lead in run.json()["leads"]]


@pytest.fixture
def demo(tmp_path):
    entries = {"A1": entry_yaml("A1", [("src/session.ts", "2-9")]),
               "A2": entry_yaml("A2", [("src/modes/print-mode.ts", "2")]),
               "A3": entry_yaml("A3", [("src/session.ts", "2-9"), ("src/runner.ts", "3-5")])}
    return make_project(tmp_path, {"1": TREE}, entries)


def test_leads_of_a_cited_function_its_event_its_setting_and_its_environment_variable(demo, capsys):
    run = run_main(capsys, "leads", "A1", "--decisions", demo.decisions, "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    assert run.json()["target"] == "1"
    found = leads_of(run)
    # the other callers of the cited method, outside the cited lines (line 12 calls it from `again`)
    assert ("A1", "src/session.ts", 12, "check") in found
    assert ("A1", "src/runner.ts", 4, "check") in found
    # the other place that handles the event; the interface that only names its type is no lead
    assert ("A1", "src/extension.ts", 2, '"tool_call"') in found
    assert not any(f == "src/extension.ts" and line == 8 for _, f, line, _ in found)
    # the setting read through the settings object, and the environment variable read elsewhere
    assert ("A1", "src/runner.ts", 8, "callLimit") in found
    assert ("A1", "src/runner.ts", 12, "DEMO_AGENT_HOME") in found
    # nothing inside the cited range is a lead
    assert not any(f == "src/session.ts" and 2 <= line <= 9 for _, f, line, _ in found)
    assert {tuple(sorted(lead)) for lead in run.json()["leads"]} == {("file", "id", "line", "symbol", "why")}


def test_a_lead_a_citation_covers_is_left_out(demo, capsys):
    run = run_main(capsys, "leads", "A3", "--decisions", demo.decisions, "--format", "json", "--quiet")
    found = leads_of(run)
    assert ("A3", "src/session.ts", 12, "check") in found
    assert not any(f == "src/runner.ts" and 3 <= line <= 5 for _, f, line, _ in found)


def test_another_mode_s_version_of_a_cited_mode_file(demo, capsys):
    run = run_main(capsys, "leads", "A2", "--decisions", demo.decisions, "--format", "json", "--quiet")
    [lead] = [lead for lead in run.json()["leads"] if lead["file"] == "src/modes/rpc-mode.ts"]
    assert (lead["line"], lead["symbol"]) == (2, "bindExtensions")
    assert lead["why"].startswith("rpc-mode's version: also bindExtensions")


def test_the_text_says_how_the_list_is_ranked_and_capped(demo, capsys):
    run = run_main(capsys, "leads", "A1", "--decisions", demo.decisions, "--quiet", "--limit", "2")
    assert run.code == 0
    lines = run.stdout.splitlines()
    assert "ranked, best first, the best 2 of each entry (--limit 0 for all)" in lines[0]
    header = next(line for line in lines if line.startswith("A1: "))
    assert header.startswith("A1: 2 of ") and header.endswith("lead(s): Who decides A1?")
    assert [line.split(".")[0].strip() for line in lines if line.startswith("   ")] == ["1", "2"]
    everything = run_main(capsys, "leads", "A1", "--decisions", demo.decisions, "--quiet", "--limit", "0",
                          "--format", "json")
    assert len(everything.json()["leads"]) > 2
    assert everything.stdout.startswith('{\n "target": "1",\n "leads": [\n  {\n')  # as verify's JSON reads
    for limit, said in (("0", "ranked, best first, all of them"),
                        (None, "ranked, best first, the best two per citation of each entry, at least 15 "
                               "(--limit N for N, 0 for all)")):
        run = run_main(capsys, "leads", "A1", "--decisions", demo.decisions, "--quiet",
                       *(("--limit", limit) if limit else ()))
        assert run.stdout.splitlines()[0].endswith(said), run.stdout


CACHE = """\
export function cached(cache: Cache, settings: Settings): number {
  const a = cache.getCallLimit();
  const b = settings.getCallLimit();
  const c = cache.getCallLimit();
  return a + b + c;
}
export function fromCache(cache: Cache): number {
  return cache.getCallLimit();
}
"""
ADMIN = """\
export function raiseLimit(settings: Settings): void {
  settings.setCallLimit(9);
}
export function theme(settings: Settings): string {
  return settings.getTheme();
}
export function paint(settings: Settings): string {
  return settings.getTheme();
}
"""
ENV = """\
export function offline(): boolean {
  return readEnv("DEMO_AGENT_HOME") !== undefined && readEnv("DEMO_OFFLINE") === "1";
}
export function quiet(): boolean {
  return readEnv("DEMO_OFFLINE") === "1";
}
export function homeDir(): string | undefined {
  const key = "DEMO_OFFLINE";
  return process.env.DEMO_OFFLINE ?? readEnv(key);
}
"""


def test_settings_and_environment_variables_however_they_are_read(tmp_path, capsys):
    """A setting read through its accessor, on the settings (not `getCallLimit` on a cache, even below
    a settings read of it), or as the
    settings object's property, or written through its setter; a setting only ever read through its
    accessor; an environment variable read from `process.env` or named in a string."""
    p = make_project(tmp_path, {"1": {**TREE, "src/cache.ts": CACHE, "src/env.ts": ENV, "src/notes.md": "Limits\n",
                                      "src/admin.ts": ADMIN}},
                     {"A1": entry_yaml("A1", [("src/session.ts", "2-9")]),
                      "S1": entry_yaml("S1", [("src/runner.ts", "8")]), "S2": entry_yaml("S2", [("src/env.ts", "2")]),
                      "S3": entry_yaml("S3", [("src/cache.ts", "4")]),
                      "S4": entry_yaml("S4", [("src/notes.md", "1"), ("src/runner.ts", "8")]),
                      "S5": entry_yaml("S5", [("src/admin.ts", "5")])})
    found = leads_json(capsys, p, "A1", "S1", "S2", "S3", "S4", "S5")
    setting = "also reads or writes the callLimit setting"
    assert [lead for lead in found["A1"] if lead[0] == "src/cache.ts"] == [
        ("src/cache.ts", 3, "callLimit", f"{setting} (in cached)")]
    assert found["S1"] == [("src/admin.ts", 2, "callLimit", f"{setting} (in raiseLimit)"),  # a tie: by file
                           ("src/cache.ts", 3, "callLimit", f"{setting} (in cached)"),
                           ("src/session.ts", 6, "callLimit", f"{setting} (in Session.check)")]
    # (its lead's words are not pinned: the call on `settings` is also read as a setting named
    # `getTheme`, which the lead names, a flaw of its own)
    assert [(file, line) for file, line, _, _ in found["S5"]] == [("src/admin.ts", 8)]
    # a cited file that is not code (no names to read) comes first: the code cited after it still counts
    assert found["S4"] == found["S1"]
    env = "also reads or sets DEMO_AGENT_HOME"
    # (a function naming it twice, in a string and from `process.env`: its first line)
    assert found["S2"] == [("src/env.ts", 5, "DEMO_OFFLINE", "also reads or sets DEMO_OFFLINE (in quiet)"),
                           ("src/env.ts", 8, "DEMO_OFFLINE", "also reads or sets DEMO_OFFLINE (in homeDir)"),
                           ("src/runner.ts", 12, "DEMO_AGENT_HOME", f"{env} (in home)"),
                           ("src/session.ts", 7, "DEMO_AGENT_HOME", f"{env} (in Session.check)")]
    # `getCallLimit` on a cache, below a settings read of the same name: nothing to follow
    assert found["S3"] == []


FLOW = """\
export function other(x: number): number {
  return step(x);
}
export function flow(x: number): number {
  const a = step(x);
  const b = step(a);
  return b;
}
export function step(x: number): number { return x + 1; }
"""


def test_the_rest_of_a_cited_function_ranks_above_the_rest_of_its_file(tmp_path, capsys):
    """(and two callers of the cited function in another folder above both)"""
    start = "export function start(): number {\n  return flow(1);\n}\nexport function restart(): number {\n  return flow(2);\n}\n"
    p = make_project(tmp_path, {"1": {"src/flow.ts": FLOW, "src/ui/start.ts": start}},
                     {"F1": entry_yaml("F1", [("src/flow.ts", "5")])})
    assert leads_json(capsys, p, "F1")["F1"] == [
        ("src/ui/start.ts", 2, "flow", "also calls flow, a function the entry cites (in start)"),
        ("src/ui/start.ts", 5, "flow", "also calls flow, a function the entry cites (in restart)"),
        ("src/flow.ts", 6, "step", "also calls step, which the cited code calls (in flow)"),
        ("src/flow.ts", 2, "step", "also calls step, which the cited code calls (in other)")]


def test_the_best_linked_function_comes_first(demo, capsys):
    """The runner's `runOne` calls the cited method (a caller weighs most); the first lead of A1 is
    a caller of `check`, not the environment variable read in `home`."""
    run = run_main(capsys, "leads", "A1", "--decisions", demo.decisions, "--format", "json", "--quiet")
    assert run.json()["leads"][0]["symbol"] == "check"


def test_an_unknown_id_and_a_negative_limit_are_bad_usage(demo, capsys):
    assert_clean_failure(run_main(capsys, "leads", "A1", "Z9", "--decisions", demo.decisions, "--quiet"),
                         "no entry has the ID Z9")
    assert_clean_failure(run_main(capsys, "leads", "--limit", "-1", "--decisions", demo.decisions, "--quiet"),
                         "--limit -1")


def test_leads_of_every_map_under_the_folder_quietly_and_whatever_the_edition_records(tmp_path, capsys):
    """Two maps under --decisions, pinned at different releases: each entry's leads, of both, under
    the first map's pin; --quiet fetches both trees without a word; an edition record that cannot
    be read (only the pages read them) stops nothing."""
    first = make_project(tmp_path / "first", {"1": TREE}, {"A1": entry_yaml("A1", [("src/session.ts", "2-9")])})
    second = make_project(tmp_path / "second", {"7": TREE}, {"B1": entry_yaml("B1", [("src/runner.ts", "3-5")])})
    second.folder.rename(first.decisions / "other")
    (first.folder / "editions").mkdir()
    (first.folder / "editions" / "1-to-2.yaml").write_text("from_version: [not, a, version\n")
    run = run_main(capsys, "leads", "--decisions", first.decisions, "--quiet")
    assert (run.code, run.stderr) == (0, "")
    lines = run.stdout.splitlines()
    assert lines[0].startswith("leads at 1: code no citation of the entry covers that names what its cited code")
    assert [line for line in lines if line[:1] in ("A", "B")] == ["A1: 5 lead(s): Who decides A1?",
                                                                  "B1: 1 lead(s): Who decides B1?"]
    assert run.stdout.endswith("B1: 1 lead(s): Who decides B1?\n"
                               "   1. src/session.ts:12  also calls check, which the cited code calls (in Session.again)\n")


def test_every_file_is_parsed_once_for_the_whole_map(demo, capsys, parsed_files):
    run = run_main(capsys, "leads", "--decisions", demo.decisions, "--format", "json", "--quiet")
    assert run.code == 0
    assert sorted(parsed_files) == sorted(TREE)
    assert {lead["id"] for lead in run.json()["leads"]} == {"A1", "A2", "A3"}


def test_bump_lists_the_leads_new_at_the_target_for_entries_whose_code_changed(tmp_path, capsys):
    """At version 2 the cited method moves down (its code changed around it) and gains a new caller;
    the caller it had at 1 is no new lead."""
    v2 = dict(TREE)
    v2["src/session.ts"] = "// moved\n" + SESSION
    v2["src/audit.ts"] = "export function audit(session: Session): boolean {\n  return session.check(\"x\");\n}\n"
    p = make_project(tmp_path, {"1": TREE, "2": v2},
                     {"A1": entry_yaml("A1", [("src/session.ts", "2-9")]),
                      "A2": entry_yaml("A2", [("src/modes/print-mode.ts", "2")])})
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stdout + run.stderr
    block = run.stdout.split("new leads at 2 for the entries whose code changed")[1]
    lines = block.strip("\n").splitlines()
    assert lines[:3] == [": code that names what their cited code names and did not at 1; re-read each entry "
                         "against it (`python -m generator leads ID` lists every lead)", "", "A1: Who decides A1?"]
    assert lines[3].startswith("  src/audit.ts:2  also calls check, a function the entry cites (in audit)")
    assert "src/runner.ts" not in block  # a caller already there at 1
    assert "A2:" not in block  # its code did not change
    assert lines[-1].startswith("demo: pinned at 2")


def test_each_lead_s_place_wording_and_rank(demo, capsys):
    """The whole list a reviewer reads, in order: a caller in the cited function's own file first, then
    the rest by how much each shares; a place the entry cites (runner.ts:4 for A3) is left out, and
    the rest of a cited file (runner.ts) then ranks above the other files."""
    run = run_main(capsys, "leads", "A1", "A3", "--decisions", demo.decisions, "--quiet", "--limit", "0")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[2:] == [
        "A1: 5 lead(s): Who decides A1?",
        "   1. src/session.ts:12   also calls check, a function the entry cites (in Session.again)",
        "   2. src/runner.ts:4     also calls check, a function the entry cites (in runOne)",
        "   3. src/runner.ts:8     also reads or writes the callLimit setting (in limits)",
        "   4. src/runner.ts:12    also reads or sets DEMO_AGENT_HOME (in home)",
        '   5. src/extension.ts:2  also emits or handles "tool_call"',
        "",
        "A3: 4 lead(s): Who decides A3?",
        "   1. src/runner.ts:8     also reads or writes the callLimit setting (in limits)",
        "   2. src/runner.ts:12    also reads or sets DEMO_AGENT_HOME (in home)",
        "   3. src/session.ts:12   also calls check, a function the entry cites (in Session.again)",
        '   4. src/extension.ts:2  also emits or handles "tool_call"']


# A gate whose cited check calls a private method, a built-in, a long property and a short one, and
# emits an event; the rest of the file emits another event. The hooks around it name the same things,
# some only as a type.
GATE = """\
export class Gate {
  #decide(call: string): boolean {
    return call.length > 0;
  }

  check(call: string, options: GateOptions): boolean {
    const verdict = this.#decide(call);
    const copy = structuredClone(options);
    const order = call.localeCompare(options.toolCallMode) + copy.callCount + this.settings.size();
    this.events.emit("gate_opened", order);
    return verdict;
  }

  later(): void {
    this.events.emit("gate_closed");
  }

  recheck(call: string): boolean {
    return this.#decide(call);
  }
}
"""

HOOKS = """\
interface GateEvent {
  type: "gate_opened";
}

export function openedEvent(): GateEvent {
  return { type: "gate_opened" as const };
}

export function onClose(bus: Bus): void {
  bus.on("gate_closed", () => undefined);
}

export function modeOf(mode: Mode): string {
  const count = mode.callCount;
  const chosen = mode.toolCallMode;
  return chosen + count;
}

export function cloned(mode: Mode): Mode {
  return structuredClone(mode);
}

export function sorted(names: string[]): string[] {
  return names.sort((a, b) => a.localeCompare(b));
}

export function counted(mode: Mode): number {
  return mode.callCount;
}

export function guard(gate: Gate): boolean {
  return gate.check("x", {});
}
"""

GATE_TREE = {"src/core/gate.ts": GATE, "src/core/hooks.ts": HOOKS,
             # a file that names nothing a lead could follow
             "src/core/limits.ts": "export const LIMIT = 3;\n",
             # one mode calls a function another mode's file declares
             "src/modes/json-mode.ts": "export function runJson(out: Output): void {\n  flushOutput(out); out.end();\n}\n\n"
                                       "export function endJson(out: Output): void {\n  flushOutput(out);\n}\n",
             "src/modes/text-mode.ts": "// text mode writes as it goes\n\nexport function flushOutput(out: Output): void {"
                                       "\n  out.end();\n}\n",
             # another caller of the gate's check, in another folder
             "src/ui/panel.ts": "export function panel(gate: Gate): boolean {\n  return gate.check(\"y\", {});\n}\n",
             # two callers of the JSON mode
             "src/modes/main.ts": "export function main(out: Output): void {\n  runJson(out);\n}\n"
                                  "export function again(out: Output): void {\n  runJson(out);\n}\n"}


@pytest.fixture
def gate(tmp_path):
    entries = {"G1": entry_yaml("G1", [("src/core/gate.ts", "7-11")]),
               "G2": entry_yaml("G2", [("src/core/gate.ts", "2-4")]),
               "G3": entry_yaml("G3", [("src/modes/json-mode.ts", "2")]),
               "G4": entry_yaml("G4", [("src/core/limits.ts", "1")]),
               "G5": entry_yaml("G5", [("src/core/gate.ts", "7")])}
    project = make_project(tmp_path, {"1": GATE_TREE}, entries)
    # a file in Latin-1, not UTF-8 (a byte no UTF-8 text has, in a string): read, not a failure
    (project.upstream / "src/core/banner.ts").write_bytes(b'export function banner(): string {\n'
                                                          b'  return "caf\xe9 gate_opened";\n}\n')
    repo = git.Repo(project.upstream)
    repo.index.add(["src/core/banner.ts"])
    repo.create_tag("v1", ref=repo.index.commit("version 1, with a Latin-1 file", author=ACTOR, committer=ACTOR),
                    force=True)
    return project


def leads_json(capsys, project, *ids: str) -> dict[str, list[tuple[str, int, str, str]]]:
    run = run_main(capsys, "leads", *ids, "--decisions", project.decisions, "--format", "json", "--quiet",
                   "--limit", "0")
    assert run.code == 0, run.stderr
    found: dict[str, list[tuple[str, int, str, str]]] = {i: [] for i in ids}
    for lead in run.json()["leads"]:
        found[lead["id"]].append((lead["file"], lead["line"], lead["symbol"], lead["why"]))
    return found


def test_what_the_cited_code_names_and_what_it_does_not(gate, capsys):
    """G1 cites the body of `check`: another caller of `check` is a lead. Its event is a lead where it is a value (`as const` too), not in
    the interface that names it as a type; its long property (twelve letters) is one, the short one
    (`callCount`) is not; its private method's other caller is one; built-ins it calls
    (`structuredClone`, `localeCompare`) link to nothing, nor does the event the uncited `later`
    emits. A lead inside a `const` names the function it is in."""
    # (the event's lead and the caller next to the gate tie: the earlier line first; the caller in
    # another folder than the cited file's ranks below its namesake in the same folder)
    assert leads_json(capsys, gate, "G1")["G1"] == [
        ("src/core/hooks.ts", 6, '"gate_opened"', 'also emits or handles "gate_opened" (in openedEvent)'),
        ("src/core/hooks.ts", 32, "check", "also calls check, a function the entry cites (in guard)"),
        ("src/ui/panel.ts", 2, "check", "also calls check, a function the entry cites (in panel)"),
        ("src/core/hooks.ts", 15, "toolCallMode", "also uses toolCallMode, as the cited code does (in modeOf)"),
        ("src/core/gate.ts", 19, "#decide", "also calls #decide, which the cited code calls (in Gate.recheck)")]
    # one statement of `check` cited: the function it is in is what its callers call
    assert leads_json(capsys, gate, "G5")["G5"] == [
        ("src/core/hooks.ts", 32, "check", "also calls check, a function the entry cites (in guard)"),
        ("src/ui/panel.ts", 2, "check", "also calls check, a function the entry cites (in panel)"),
        ("src/core/gate.ts", 19, "#decide", "also calls #decide, which the cited code calls (in Gate.recheck)")]


def test_a_cited_private_method_s_callers_and_another_mode_s_declaration(gate, capsys):
    found = leads_json(capsys, gate, "G2", "G3", "G4")
    # both callers of the cited `#decide` (private: the `#` is part of its name), in order
    assert found["G2"] == [
        ("src/core/gate.ts", 7, "#decide", "also calls #decide, a function the entry cites (in Gate.check)"),
        ("src/core/gate.ts", 19, "#decide", "also calls #decide, a function the entry cites (in Gate.recheck)")]
    # the JSON mode's callers; then what the text mode's file declares and the JSON mode calls (the
    # declaration's own line; `out.end()`, a call of nothing pi declares, is no other mode's version);
    # the same call elsewhere in the JSON mode's own file is a call, not another mode's version
    assert found["G3"] == [("src/modes/main.ts", 2, "runJson", "also calls runJson, a function the entry cites (in main)"),
                           ("src/modes/main.ts", 5, "runJson", "also calls runJson, a function the entry cites (in again)"),
                           ("src/modes/text-mode.ts", 3, "flushOutput",
                            "text-mode's version: also flushOutput (in flushOutput)"),
                           ("src/modes/json-mode.ts", 6, "flushOutput",
                            "also calls flushOutput, which the cited code calls (in endJson)")]
    # a cited line that names nothing: no lead, and no failure
    assert found["G4"] == []


# Functions that are values: a constant, a class field (TypeScript's and JavaScript's) and an object's
# property, each called from elsewhere.
ARROWS = """\
export const viaConst = (x: number): boolean => x > 0;
export class Holder {
  viaField = (x: number): boolean => x > 1;
}
export const table = {
  viaPair: (x: number): boolean => x > 2,
};
"""
LEGACY = "export class Legacy {\n  viaJsField = (x) => x > 3;\n}\n"
USERS = """\
export function useAll(holder: Holder, legacy: Legacy): boolean {
  return viaConst(1) && holder.viaField(2) && table.viaPair(3) && legacy.viaJsField(4);
}
export function pairs(holder: Holder): boolean {
  const one = table.viaPair(5);
  return one && table.viaPair(6) && holder.viaField(7);
}
"""


def test_a_cited_function_that_is_a_value_has_its_callers_as_leads(tmp_path, capsys):
    p = make_project(tmp_path, {"1": {"src/arrows.ts": ARROWS, "src/legacy.js": LEGACY, "src/users.ts": USERS}},
                     {"C1": entry_yaml("C1", [("src/arrows.ts", "1")]), "C2": entry_yaml("C2", [("src/arrows.ts", "3")]),
                      "C3": entry_yaml("C3", [("src/arrows.ts", "6")]), "C4": entry_yaml("C4", [("src/legacy.js", "2")]),
                      "C5": entry_yaml("C5", [("src/arrows.ts", "1-3")])})
    found = leads_json(capsys, p, "C1", "C2", "C3", "C4", "C5")
    # lines 1-3 declare two functions (on the first line and on the last): both are cited; a function
    # calling both is one lead, at its rarer name (`viaField` is called twice, `viaConst` once)
    assert found.pop("C5") == [("src/users.ts", 2, "viaConst", "also calls viaConst, a function the entry cites, "
                                "and 1 more name(s) the cited code uses (in useAll)"),
                               ("src/users.ts", 6, "viaField", "also calls viaField, a function the entry cites (in pairs)")]
    assert found.pop("C2") == [
        ("src/users.ts", 2, "viaField", "also calls viaField, a function the entry cites (in useAll)"),
        ("src/users.ts", 6, "viaField", "also calls viaField, a function the entry cites (in pairs)")]
    # a function that calls it twice: its first call
    assert found.pop("C3") == [
        ("src/users.ts", 2, "viaPair", "also calls viaPair, a function the entry cites (in useAll)"),
        ("src/users.ts", 5, "viaPair", "also calls viaPair, a function the entry cites (in pairs)")]
    assert found == {entry: [("src/users.ts", 2, name, f"also calls {name}, a function the entry cites (in useAll)")]
                     for entry, name in (("C1", "viaConst"), ("C4", "viaJsField"))}


# Thirty one-line callers of a function, for the caps (seventeen more at 2), and two small files whose
# cited code is next to, or shares its function with, a place that calls what it calls.
CALLS = "".join(f"export function c{n:02}(): boolean {{ return decide({n}); }}\n" for n in range(1, 31))
MORE = "".join(f"export function n{n:02}(): boolean {{ return decide({n}); }}\n" for n in range(1, 18))
DECIDE = "export function decide(x: number): boolean {\n  return x > 0;\n}\n"
PASS = """\
export function pass(x: number): boolean {
  return x > 0;
}
export function gate(x: number): boolean {
  const first = pass(x);
  const second = pass(-x);
  return first && second && pass(0);
}
"""
ORDER = """\
export function pick(x: number): number {
  return x;
}
export const early = () => pick(0);
export function chooser(x: number): number {
  return pick(x) + 1;
}
export const late = () => pick(9);
"""


def test_the_default_cap_grows_with_the_citations(tmp_path, capsys):
    """Eight citations: sixteen leads shown by default (two per citation), not fifteen."""
    p = make_project(tmp_path, {"1": {"src/decide.ts": DECIDE, "src/calls.ts": CALLS}},
                     {"B5": entry_yaml("B5", [("src/calls.ts", str(n)) for n in range(1, 9)])})
    run = run_main(capsys, "leads", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stderr
    assert "B5: 16 of 22 lead(s): Who decides B5?" in run.stdout.splitlines()
    assert sum(line.startswith("  ") for line in run.stdout.splitlines()) == 16


def test_a_name_used_at_more_than_sixty_places_links_nothing(tmp_path, capsys):
    """Sixty calls of `decide`: each is a lead; sixty-one: `decide` is too common to link anything. The
    helper `decide` calls, called at one other place, ranks above a caller among sixty."""
    decide = "export function decide(x: number): boolean {\n  return clamp(x) > 0;\n}\n"
    helper = "export function clamp(x: number): number { return x; }\nexport function bounded(): number { return clamp(7); }\n"
    for callers, leads in ((60, 61), (61, 1)):
        calls = "".join(f"export function c{n:02}(): boolean {{ return decide({n}); }}\n" for n in range(1, callers + 1))
        p = make_project(tmp_path / str(callers), {"1": {"src/decide.ts": decide, "src/calls.ts": calls + helper}},
                         {"B4": entry_yaml("B4", [("src/decide.ts", "1-3")])})
        found = leads_json(capsys, p, "B4")["B4"]
        assert len(found) == leads
        assert found[0] == ("src/calls.ts", callers + 2, "clamp", "also calls clamp, which the cited code calls (in bounded)")


def test_an_entry_whose_code_is_gone_at_the_pin_has_no_leads(tmp_path, capsys):
    """The pin moved to 2 by hand (the citations still checked at 1): B6's cited file is gone at 2, so
    nothing of B6 is cited there and B6 has no lead; the others' leads are there."""
    v1 = {"src/decide.ts": DECIDE, "src/calls.ts": CALLS, "src/old.ts": "export function old(): boolean { return decide(0); }\n"}
    p = make_project(tmp_path, {"1": v1, "2": {"src/decide.ts": DECIDE, "src/calls.ts": CALLS}},
                     {"B4": entry_yaml("B4", [("src/decide.ts", "1-3")]), "B6": entry_yaml("B6", [("src/old.ts", "1")])})
    p.write_map("2")
    p.map_yaml.write_text(p.map_yaml.read_text() + 'checked_at: "1"\n')
    found = leads_json(capsys, p, "B4", "B6")
    assert len(found["B4"]) == 30 and found["B6"] == []


def test_bump_compares_the_lines_each_citation_covered_at_each_version(tmp_path, capsys):
    """At 2, `gate` calls `pass` once more above its cited lines: a new lead (its calls at 1 were all
    cited). `early` and `late`, right above and below `chooser`'s cited lines, were leads at 1 too: not
    new. `decide` had thirty callers at 1 and gains eighteen at 2, seventeen in the same file and one
    in a new file with the name of an old one (`c01`): only those eighteen are new, the best fifteen
    shown. B5's code did not change: it gets no new leads, though `decide` has new callers."""
    v1 = {"src/decide.ts": DECIDE, "src/calls.ts": CALLS, "src/pass.ts": PASS, "src/order.ts": ORDER}
    v2 = {"src/decide.ts": "// moved\n" + DECIDE, "src/calls.ts": CALLS + MORE,
          "src/extra.ts": "export function c01(): boolean { return decide(99); }\n",
          "src/pass.ts": PASS.replace("  const first", "  if (x === 1) return pass(1);\n  const first"),
          "src/order.ts": "// moved\n" + ORDER}
    p = make_project(tmp_path, {"1": v1, "2": v2},
                     {"B1": entry_yaml("B1", [("src/pass.ts", "5-7")]),
                      "B2": entry_yaml("B2", [("src/order.ts", "5-7")]),
                      "B4": entry_yaml("B4", [("src/decide.ts", "1-3")]),
                      "B5": entry_yaml("B5", [("src/calls.ts", str(n)) for n in range(1, 9)])})
    run = run_main(capsys, "bump", "2", "--decisions", p.decisions, "--quiet")
    assert run.code == 0, run.stdout + run.stderr
    block = run.stdout.split("new leads at 2 for the entries whose code changed")[1].strip("\n").splitlines()[2:-1]
    assert block == ["B1: Who decides B1?", "  src/pass.ts:5  also calls pass, which the cited code calls (in gate)",
                     "B4: Who decides B4? (best 15 of 18)",
                     *(f"  src/calls.ts:{30 + n}  also calls decide, a function the entry cites (in n{n:02})"
                       for n in range(1, 16))]


# --- pi's real tree at 1.6.0 ----------------------------------------------------------------------

PI_MAP = """\
title: pi at 1.6.0
repo: https://github.com/earendil-works/pi
version: "1.6.0"
source:
  npm:
    - package: "@earendil-works/pi-coding-agent"
      path: packages/coding-agent
    - package: "@earendil-works/pi-agent-core"
      path: packages/agent
    - package: "@earendil-works/pi-ai"
      path: packages/ai
"""
CODING_AGENT = "packages/coding-agent/src/"


# Three entries of a map of pi 1.6.0, each citing a few real lines; `leads` runs once for the three
# (each lists its own leads: a lead is left out only where its own entry's citations cover it), as
# it parses the whole of pi's tree each time (about 2 CPU-s a run).
REAL_ENTRIES = {"E1": [(CODING_AGENT + "core/agent-session.ts", "727-737")],
                "S1": [(CODING_AGENT + "core/sdk.ts", "433"), (CODING_AGENT + "core/package-manager.ts", "85")],
                "M1": [(CODING_AGENT + "modes/print-mode.ts", "99-100")]}


@pytest.fixture(scope="module")
def real_pi(tmp_path_factory: pytest.TempPathFactory, pi_cache: Path) -> dict:
    """`source` and `leads` (JSON, no cap) of a map of pi 1.6.0 holding REAL_ENTRIES: the folder of pi's
    tree, and each entry's leads."""
    decisions = tmp_path_factory.mktemp("real-leads") / "decisions"
    folder = decisions / "pi"
    folder.mkdir(parents=True)
    (folder / "map.yaml").write_text(PI_MAP)
    for entry_id, cites in REAL_ENTRIES.items():
        (folder / f"{entry_id}.yaml").write_text(entry_yaml(entry_id, cites))
    env = {"DECISION_MAP_CACHE": str(pi_cache)}
    source = run_cli("source", "--decisions", decisions, env=env)
    run = run_cli("leads", "--decisions", decisions, "--format", "json", "--limit", "0", "--quiet", env=env)
    assert source.code == 0 and run.code == 0, source.stderr + run.stderr
    leads: dict[str, list[dict]] = {entry_id: [] for entry_id in REAL_ENTRIES}
    for lead in run.json()["leads"]:
        leads[lead["id"]].append(lead)
    return {"source": Path(source.stdout.strip()), "leads": leads}


@pytest.mark.network
def test_real_pi_an_event_emitted_and_handled_in_several_places(real_pi):
    """The session asks whether any `tool_call` handler is there and emits the event (cited); the
    runner snapshots its handlers and pi's own MCP extension handles it: both are leads."""
    cited = (real_pi["source"] / CODING_AGENT / "core/agent-session.ts").read_text().splitlines()[726:737]
    assert any('hasHandlers("tool_call")' in line for line in cited), "the cited lines hold the event"
    event = {(lead["file"], lead["line"]) for lead in real_pi["leads"]["E1"] if lead["symbol"] == '"tool_call"'}
    assert (CODING_AGENT + "core/extensions/runner.ts", 1264) in event
    assert (CODING_AGENT + "extensions/mcp/index.ts", 1189) in event


@pytest.mark.network
def test_real_pi_a_setting_and_an_environment_variable_read_in_several_modules(real_pi):
    """The SDK reads `steeringMode` through the settings manager; the session reads and writes the
    same setting. The package manager reads PI_OFFLINE; interactive mode reads it too."""
    found = {(lead["file"], lead["symbol"]) for lead in real_pi["leads"]["S1"]}
    assert (CODING_AGENT + "core/agent-session.ts", "steeringMode") in found
    assert (CODING_AGENT + "core/settings-manager.ts", "steeringMode") in found
    assert (CODING_AGENT + "modes/interactive/interactive-mode.ts", "PI_OFFLINE") in found
    assert (CODING_AGENT + "modes/interactive/bug-report.ts", "PI_OFFLINE") in found


@pytest.mark.network
def test_real_pi_print_mode_s_counterparts_in_the_other_modes(real_pi):
    modes = {lead["file"] for lead in real_pi["leads"]["M1"] if lead["symbol"] == "bindExtensions"
             and "'s version" in lead["why"]}
    assert {CODING_AGENT + "modes/rpc/rpc-mode.ts", CODING_AGENT + "modes/interactive/interactive-mode.ts"} <= modes


@pytest.mark.network
def test_real_map_every_entry_has_leads_and_none_is_cited(pi_cache, monkeypatch):
    """The whole map: every entry gets leads, and no lead lies inside one of its entry's citations."""
    monkeypatch.setenv("DECISION_MAP_CACHE", str(pi_cache))
    run = run_cli("leads", "--format", "json", "--quiet")
    assert run.code == 0, run.stderr
    from generator.map.load import load_maps

    [pi] = load_maps(ROOT / "decisions")
    leads = run.json()["leads"]
    assert {lead["id"] for lead in leads} == {e.id for e in pi.entries}
    cited = {e.id: [(c.file, c.start, c.end) for c in e.cites] for e in pi.entries}
    for lead in leads:
        assert not any(lead["file"] == f and a <= lead["line"] <= b for f, a, b in cited[lead["id"]]), lead


def test_a_default_exported_event_name_is_a_use_and_a_module_re_exported_from_is_not(tmp_path, capsys):
    """`export default "session:start"` exports the event's name, a value like `export const`; the
    module path after `export … from` only names a module, even one that reads like an event
    (`node:os`, which the cited code imports)."""
    start = 'export async function start(bus: Bus): Promise<void> {\n  bus.emit("session:start", (await import("node:os")).hostname());\n}\n'
    p = make_project(tmp_path, {"1": {"src/start.ts": start, "src/names.ts": 'export default "session:start";\n',
                                      "src/host.ts": 'export { hostname } from "node:os";\n'}},
                     {"E1": entry_yaml("E1", [("src/start.ts", "2")])})
    assert leads_json(capsys, p, "E1")["E1"] == [("src/names.ts", 1, '"session:start"', 'also emits or handles "session:start"')]


def test_an_environment_variable_only_ever_named_in_strings(tmp_path, capsys):
    """No `process.env.DEMO_VERBOSE` anywhere: the other place naming it in a string is the lead."""
    flags = ('export function verbose(): boolean {\n  return readEnv("DEMO_VERBOSE") === "1";\n}\n'
             'export function loud(): boolean {\n  return readEnv("DEMO_VERBOSE") === "2";\n}\n')
    p = make_project(tmp_path, {"1": {"src/flags.ts": flags}}, {"V1": entry_yaml("V1", [("src/flags.ts", "2")])})
    assert leads_json(capsys, p, "V1")["V1"] == [
        ("src/flags.ts", 5, "DEMO_VERBOSE", "also reads or sets DEMO_VERBOSE (in loud)")]


# A print mode whose cited function calls what the RPC mode declares; a wrapper beside them calls
# the cited function. The caller (worth 4, in the cited folder: 4 x 1.5) and the RPC mode's version
# (worth 3, in a cited file: 3 x 2) score exactly the same.
TIE_PRINT = "export function runPrint(): void {\n  flushOutput();\n}\n"
TIE_RPC = "export function flushOutput(): void {}\nexport function other(): number {\n  return 1;\n}\n"
TIE_WRAPPER = "export function wrap(): void {\n  runPrint();\n}\n"
# A cited method that reads its setting through the accessor; `settings.limit()` elsewhere both
# calls a method named `limit` and reads the setting `limit`, each name found twice in the tree.
TIE_LIMITS = "export class Limits {\n  limit(): number {\n    return this.settings.getLimit();\n  }\n}\n"
TIE_USE = ("export function use(settings: Settings): number {\n  return settings.limit();\n}\n"
           "export function again(limits: Limits): number {\n  return limits.limit();\n}\n")


def test_exact_ties_between_leads_and_between_the_names_of_one_place(tmp_path, capsys):
    p = make_project(tmp_path, {"1": {"src/modes/print-mode.ts": TIE_PRINT, "src/modes/rpc-mode.ts": TIE_RPC,
                                      "src/modes/wrapper.ts": TIE_WRAPPER, "src/limits.ts": TIE_LIMITS,
                                      "src/use.ts": TIE_USE}},
                     {"T1": entry_yaml("T1", [("src/modes/print-mode.ts", "2"), ("src/modes/rpc-mode.ts", "3")]),
                      "T2": entry_yaml("T2", [("src/limits.ts", "3")])})
    found = leads_json(capsys, p, "T1", "T2")
    # the same score: the lead whose own name weighs more first (not the file name's order)
    assert found["T1"] == [
        ("src/modes/wrapper.ts", 2, "runPrint", "also calls runPrint, a function the entry cites (in wrap)"),
        ("src/modes/rpc-mode.ts", 1, "flushOutput", "rpc-mode's version: also flushOutput (in flushOutput)")]
    # one place, one name, two kinds of the same worth: the first the cited code gives (its
    # function's callers come before what its lines read) names the lead
    assert found["T2"] == [
        ("src/use.ts", 2, "limit", "also calls limit, a function the entry cites (in use)"),
        ("src/use.ts", 5, "limit", "also calls limit, a function the entry cites (in again)")]
