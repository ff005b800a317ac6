// G1: is the work finished, so the run may stop?
// Each run scripts more replies than it should need; what counts is how many pi asked for.
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 adds an extension whose before-settle handler asks to go on once in the
// plain run, so a reply without tool calls no longer ends it; the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

// One SDK session on the scripted model; `script(session)` returns the replies to queue.
async function requestsMade(name, script, extensions = []) {
	const cwd = join(process.cwd(), name);
	const agentDir = join(cwd, ".agent");
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory();
	const resourceLoader = new DefaultResourceLoader({
		cwd, agentDir, settingsManager, extensionFactories: extensions,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({});
	faux.setResponses(script(session));
	await session.prompt("work");
	session.dispose();
	return faux.state.callCount;
}
const text = (t) => fauxAssistantMessage(t);
const spare = () => text("a reply pi should never ask for");

// Asks for one more turn the first time the run is about to settle; the context must not end
// on an assistant reply to go on, so the handler adds a message to answer.
const goOnOnce = (pi) => {
	let asked = false;
	pi.on("agent_before_settle", async () => {
		if (asked) return undefined;
		asked = true;
		const nudge = { type: "custom_message", customType: "nudge", content: "keep going", display: false };
		return { continue: true, entries: [nudge] };
	});
};

const plain = await requestsMade("plain", () => [
	fauxAssistantMessage([fauxToolCall("bash", { command: "true" })], { stopReason: "toolUse" }),
	text("done"),
	spare(),
], COUNTER ? [goOnOnce] : []);
const afterError = await requestsMade("error", () => [
	fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid request: probe" }),
	spare(),
]);
const afterAbort = await requestsMade("aborted", () => [fauxAssistantMessage("", { stopReason: "aborted" }), spare()]);
// A follow-up queued while the model answers keeps the run going past a reply without tool calls.
const withFollowUp = await requestsMade("follow-up", (session) => [
	async () => { await session.followUp("one more thing"); return text("first"); },
	text("second"),
	spare(),
]);
const withSettleHook = await requestsMade("settle-hook", () => [text("first"), text("second"), spare()], [goOnOnce]);
// The same request without a message to answer: the conversation still ends on the reply, so
// pi does not grant it.
const bareContinue = (pi) => pi.on("agent_before_settle", async () => ({ continue: true }));
const withBareContinue = await requestsMade("bare-continue", () => [text("first"), spare()], [bareContinue]);

console.log(JSON.stringify({
	requests_tool_call_then_text: plain,
	requests_after_error_reply: afterError,
	requests_after_aborted_reply: afterAbort,
	requests_with_follow_up_queued: withFollowUp,
	requests_with_before_settle_continue: withSettleHook,
	requests_with_continue_but_nothing_to_answer: withBareContinue,
}));
