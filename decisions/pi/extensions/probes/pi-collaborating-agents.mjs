// pi-collaborating-agents: loaded into pi, it offers the model its `agent_message` and `subagent`
// tools, and its `tool_call` handler blocks a `write` to a path another live agent has reserved,
// while a write to any other path runs. The same session without it (the contrast) is offered
// neither tool and writes the reserved path.
import { mkdirSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { contrast } from "./_session.mjs";

const PACKAGE = "@baochunli/pi-collaborating-agents";

// Another agent, registered where the extension keeps its registry (~/.pi/agent/collaborating-agents,
// the sandbox's own home), reserves `locked.txt`. Its pid is this process's, so it counts as alive.
const registry = join(homedir(), ".pi", "agent", "collaborating-agents", "registry");
mkdirSync(registry, { recursive: true });
const now = new Date().toISOString();
writeFileSync(join(registry, "peer.json"), JSON.stringify({
	name: "peer", pid: process.pid, sessionId: "peer-session", cwd: "/elsewhere", model: "none",
	startedAt: now, lastSeenAt: now, reservations: [{ pattern: "locked.txt", reason: "probe", since: now }],
}));

// The model writes the reserved path, then another one.
async function run(s) {
	s.faux.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path: "locked.txt", content: "mine" })], { stopReason: "toolUse" }),
		fauxAssistantMessage([fauxToolCall("write", { path: "free.txt", content: "mine" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await s.session.prompt("write them");
	const results = s.session.messages.filter((m) => m.role === "toolResult" && m.toolName === "write");
	const text = (m) => (m ? m.content.map((c) => c.text ?? "").join(" ") : "");
	return {
		lockedError: Boolean(results[0]?.isError), lockedText: text(results[0]),
		lockedWritten: existsSync(join(s.cwd, "locked.txt")), freeWritten: existsSync(join(s.cwd, "free.txt")),
	};
}

const { plain, withIt } = await contrast(PACKAGE, () => ({ makeFolder: true }));
const offered = (s) => s.session.getActiveToolNames();
const ran = await run(withIt);
const ranPlain = await run(plain);

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: ["agent_message", "subagent"].every((t) => offered(withIt).includes(t)),
	offered_without: offered(plain).some((t) => ["agent_message", "subagent"].includes(t)),
	reserved_blocked: ran.lockedError && /Reserved by: peer/.test(ran.lockedText) && !ran.lockedWritten,
	reserved_written_without: ranPlain.lockedWritten,
	other_written: ran.freeWritten,
	block_reason: ran.lockedText.slice(0, 120),
}));
// Its inbox watcher and refresh timers keep Node running: end once the result is out.
process.exit(0);
