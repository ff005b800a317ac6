// F1: when must the conversation be compacted?
// `shouldCompact` is checked at and next to the line, then real sessions are run whose model
// window puts the reported size of the reply exactly at, or one token over, that line.
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
	shouldCompact,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 runs the sessions with a reserve one token above the one the answer names,
// as a pi with another default would; the run placed at the answer's line must then compact.
const COUNTER = process.env.PROBE_COUNTER === "1";
const counterSettings = COUNTER ? { reserveTokens: 16385 } : {};

// Count the times pi decides to compact, and how many model requests had been made by then,
// so a check before the next request is told apart from the check after the run.
const compactions = [];
let currentFaux;
const runAutoCompaction = AgentSession.prototype._runAutoCompaction;
AgentSession.prototype._runAutoCompaction = function (reason, willRetry) {
	compactions.push({ reason, afterRequests: currentFaux.state.callCount });
	return runAutoCompaction.call(this, reason, willRetry);
};

// The line is placed with the reserve the answer names; pi's own default is reported beside it.
const CLAIMED_RESERVE = 16384;
const defaults = SettingsManager.inMemory().getCompactionSettings();
const reserve = CLAIMED_RESERVE;

// Every session shares this folder (nothing is written), so the system prompt, and with it
// the size the scripted model reports, is the same from one run to the next.
const cwd = process.cwd();
const agentDir = join(cwd, ".agent");
const bigPrompt = "please read this: " + "lorem ipsum ".repeat(800);

async function run(contextWindow, replies, settings = {}) {
	const faux = fauxProvider({ models: [{ id: "faux-window", contextWindow, maxTokens: 4096 }] });
	currentFaux = faux;
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory({ compaction: { ...counterSettings, ...settings } });
	const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({});
	const before = compactions.length;
	faux.setResponses([...replies, fauxAssistantMessage("## Goal\nsummary"), fauxAssistantMessage("spare")]);
	await session.prompt(bigPrompt);
	const reply = session.agent.state.messages.find((m) => m.role === "assistant");
	const made = compactions.slice(before);
	session.dispose();
	return { size: reply.usage.totalTokens, made };
}

// First learn the size the scripted model reports for this conversation, with compaction off.
const { size } = await run(1_000_000, [fauxAssistantMessage("ok")], { enabled: false });
const exactly = await run(size + reserve, [fauxAssistantMessage("ok")]);
const oneOver = await run(size + reserve - 1, [fauxAssistantMessage("ok")]);
const oneOverOff = await run(size + reserve - 1, [fauxAssistantMessage("ok")], { enabled: false });
// In a run: the first reply is under the line, but a large tool result pushes the estimate
// for the next request over it, so pi compacts before asking the model again.
const inRun = await run(size + reserve + 2000, [
	fauxAssistantMessage([fauxToolCall("bash", { command: "head -c 40000 /dev/zero | tr '\\0' a" })],
		{ stopReason: "toolUse" }),
	fauxAssistantMessage("ok"),
]);

console.log(JSON.stringify({
	reserve_default: defaults.reserveTokens,
	should_compact_at_line: shouldCompact(100_000 - defaults.reserveTokens, 100_000, defaults),
	should_compact_one_over: shouldCompact(100_000 - defaults.reserveTokens + 1, 100_000, defaults),
	should_compact_one_over_disabled:
		shouldCompact(100_000 - defaults.reserveTokens + 1, 100_000, { ...defaults, enabled: false }),
	session_at_line_compacted: exactly.made.length > 0,
	session_one_over_compacted: oneOver.made.map((c) => c.reason).join(",") || "none",
	session_one_over_compacted_after_request: oneOver.made[0]?.afterRequests ?? null,
	session_one_over_disabled_compacted: oneOverOff.made.length > 0,
	in_run_compacted_before_request: inRun.made[0]?.afterRequests ?? null,
	in_run_reason: inRun.made[0]?.reason ?? "none",
}));
