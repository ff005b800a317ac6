// pi-processes: loaded into pi, its `process` tool is offered to the model, and once its setting
// `interception.blockBackgroundCommands` is on, its `tool_call` handler blocks a `bash` call that
// puts a command in the background, while a plain `bash` call still runs.
// The same session without it (the contrast) is offered no `process` tool and blocks nothing.
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { contrast } from "./_session.mjs";

const PACKAGE = "@aliou/pi-processes";

// The extension reads its global settings from pi's agent folder (~/.pi/agent) when it loads: switch
// its background blocker on there (it is off by default).
const globalAgentDir = join(homedir(), ".pi", "agent");
mkdirSync(join(globalAgentDir, "extensions"), { recursive: true });
writeFileSync(join(globalAgentDir, "extensions", "processes.json"),
	JSON.stringify({ interception: { blockBackgroundCommands: true } }));

// The model asks for a command in the background, then a plain one.
async function run(s) {
	s.faux.setResponses([
		fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 30 &" })], { stopReason: "toolUse" }),
		fauxAssistantMessage([fauxToolCall("bash", { command: "echo plain" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await s.session.prompt("start it");
	const results = s.session.messages.filter((m) => m.role === "toolResult" && m.toolName === "bash");
	const text = (m) => (m ? m.content.map((c) => c.text ?? "").join(" ") : "");
	return { background: text(results[0]), backgroundError: Boolean(results[0]?.isError), plain: text(results[1]) };
}

const { plain, withIt } = await contrast(PACKAGE, (cwd) => ({
	makeFolder: true, agentDir: globalAgentDir, authPath: join(cwd, "auth.json"),
}));
const offered = (s) => s.session.getActiveToolNames();
const ran = await run(withIt);
const ranPlain = await run(plain);
for (const s of [plain, withIt]) await s.session.dispose?.();

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: offered(withIt).includes("process"),
	offered_without: offered(plain).includes("process"),
	background_blocked: ran.backgroundError && /background/i.test(ran.background),
	background_blocked_without: ranPlain.backgroundError && /background/i.test(ranPlain.background),
	plain_ran: /plain/.test(ran.plain),
	block_reason: ran.background.slice(0, 160),
}));
