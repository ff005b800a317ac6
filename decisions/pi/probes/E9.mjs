// E9: how long may a shell command run before it is killed?
// The scripted model calls `bash` with and without `timeout`; a wrapper around setTimeout
// notes every timer of 200 ms or more armed while each call runs (the tool's own output
// throttling uses shorter ones), so "no timer" is observed, not inferred from a quick command.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 installs an extension that gives every bash call without a timeout a
// 30-second one (the answer's own way to change it); the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";
const defaultTimeout = (pi) => pi.on("tool_call", async (event) => {
	if (event.toolName === "bash" && event.input.timeout === undefined) event.input.timeout = 30;
});

const timers = new Map(); // tool call id -> delays of long timers armed while it ran
let running;
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = function (fn, ms, ...rest) {
	if (running && ms >= 200) timers.get(running).push(ms);
	return realSetTimeout.call(this, fn, ms, ...rest);
};

const cwd = process.cwd();
const agentDir = join(cwd, ".agent");
const faux = fauxProvider();
const modelRuntime = await ModelRuntime.create({
	authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
});
modelRuntime.registerNativeProvider(faux.provider);
const settingsManager = SettingsManager.inMemory();
const resourceLoader = new DefaultResourceLoader({
	cwd, agentDir, settingsManager, extensionFactories: COUNTER ? [defaultTimeout] : [],
});
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
	model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
});
await session.bindExtensions({});
const started = new Map();
const took = new Map();
session.subscribe((event) => {
	if (event.type === "tool_execution_start") {
		running = event.toolCallId;
		timers.set(running, []);
		started.set(running, Date.now());
	}
	if (event.type === "tool_execution_end") {
		running = undefined;
		took.set(event.toolCallId, Date.now() - started.get(event.toolCallId));
	}
});

// One call per reply, so only one command runs at a time.
const calls = {
	none: { command: "sleep 0.3; echo finished" },
	short: { command: "echo partial; sleep 5; echo never", timeout: 0.4 },
	zero: { command: "touch zero-ran", timeout: 0 },
	negative: { command: "touch negative-ran", timeout: -1 },
	too_long: { command: "touch too-long-ran", timeout: 2147484 },
	longest: { command: "echo ok", timeout: 2147483 },
};
faux.setResponses([
	...Object.entries(calls).map(([id, args]) =>
		fauxAssistantMessage([fauxToolCall("bash", args, { id })], { stopReason: "toolUse" })),
	fauxAssistantMessage("done"),
]);
await session.prompt("run the commands");
const toolResults = session.agent.state.messages.filter((m) => m.role === "toolResult");
const results = new Map(toolResults.map((m) => [m.toolCallId, m]));
const text = (id) => results.get(id)?.content.map((c) => c.text ?? "").join("") ?? "";
// Rejected: an error result naming the timeout, and the command's file never made.
const rejected = (id, file) =>
	results.get(id)?.isError === true && text(id).includes("Invalid timeout") && !existsSync(join(cwd, file));
session.dispose();

console.log(JSON.stringify({
	no_timeout_timers_armed: timers.get("none")?.length ?? -1,
	no_timeout_ran_to_end: text("none").includes("finished") && !results.get("none").isError,
	timeout_timer_ms: timers.get("short")?.[0] ?? null,
	timeout_killed_with_output_so_far: text("short").includes("partial") && !text("short").includes("never"),
	timeout_note: /timed out after 0\.4 seconds/.test(text("short")),
	timeout_stopped_early: took.get("short") < 3000,
	zero_rejected_before_start: rejected("zero", "zero-ran"),
	negative_rejected_before_start: rejected("negative", "negative-ran"),
	above_max_rejected_before_start: rejected("too_long", "too-long-ran"),
	max_accepted: results.get("longest")?.isError === false,
}));
