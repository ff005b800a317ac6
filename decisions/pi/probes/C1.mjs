// C1: what does the agent do next, answer or call tools, and which ones?
// The scripted model sees what pi sends it and answers with tool calls of every kind: valid,
// unknown, malformed, in a reply cut off at its length limit, and in a failed reply.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 installs an extension that blocks every call, so the model's choice of
// tools is overruled and the calls it asked for do not run; the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";
const blockAll = (pi) => pi.on("tool_call", async () => ({ block: true, reason: "blocked by probe" }));

const cwd = process.cwd();
const agentDir = join(cwd, ".agent");
const faux = fauxProvider();
const modelRuntime = await ModelRuntime.create({
	authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
});
modelRuntime.registerNativeProvider(faux.provider);
const settingsManager = SettingsManager.inMemory();
const resourceLoader = new DefaultResourceLoader({
	cwd, agentDir, settingsManager, extensionFactories: COUNTER ? [blockAll] : [],
});
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
	model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
});
await session.bindExtensions({});

let sent;
const call = (name, args, id) => fauxToolCall(name, args, { id });
faux.setResponses([
	(context) => {
		sent = context;
		return fauxAssistantMessage([
			fauxText("I will make two files."),
			call("bash", { command: "touch a" }, "a"),
			call("bash", { command: "touch b" }, "b"),
			call("no_such_tool", {}, "unknown"),
			call("bash", { cmd: "touch bad" }, "malformed"),
		], { stopReason: "toolUse" });
	},
	fauxAssistantMessage([call("bash", { command: "touch cut" }, "cut")], { stopReason: "length" }),
	fauxAssistantMessage([call("bash", { command: "touch failed" }, "failed")],
		{ stopReason: "error", errorMessage: "invalid request: probe" }),
	fauxAssistantMessage("a reply pi should never ask for"),
]);
await session.prompt("make the files");
const toolResults = session.agent.state.messages.filter((m) => m.role === "toolResult");
const results = new Map(toolResults.map((m) => [m.toolCallId, m]));
const text = (id) => results.get(id)?.content.map((c) => c.text ?? "").join("") ?? null;
session.dispose();

const system = sent.messages.find((m) => m.role === "system");
const made = (file) => existsSync(join(cwd, file));
console.log(JSON.stringify({
	system_prompt_sent: Object.values(system?.sections ?? {}).some((s) => s.length > 0),
	tools_declared: (system?.toolsAdded ?? []).map((t) => t.name).sort().join(","),
	prompt_sent_last: JSON.stringify(sent.messages.at(-1).content).includes("make the files"),
	valid_calls_ran: made("a") && made("b"),
	unknown_tool_result: text("unknown"),
	malformed_call_ran: made("bad") || results.get("malformed")?.isError !== true,
	cut_off_reply_call_ran: made("cut"),
	cut_off_reply_call_result_is_error: results.get("cut")?.isError === true,
	failed_reply_call_ran: made("failed") || results.has("failed"),
	requests: faux.state.callCount,
}));
