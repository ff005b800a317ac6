// E3: when one reply asks for several tool calls, do they run at the same time?
// Two probe tools: `slow` lets the event loop turn (up to 50 times, no clock involved) until
// `quick` has finished, `quick` finishes at once. If they run together, `quick` finishes first;
// one at a time, `quick` cannot start, so `slow` stops waiting and finishes first.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

// PROBE_COUNTER=1 sets the agent's toolExecution to "sequential", as SDK code can; the
// default run's calls then no longer overlap and the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

let finished = [];
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const probeTools = (pi) => {
	const tool = (name, extra, run) => pi.registerTool({
		name, label: name, description: name, parameters: Type.Object({}), ...extra,
		async execute() {
			await run();
			finished.push(name);
			return { content: [{ type: "text", text: name }], details: {} };
		},
	});
	tool("slow", {}, async () => {
		for (let turn = 0; turn < 50 && !finished.includes("quick"); turn++) await nextTurn();
	});
	tool("quick", {}, async () => {});
	tool("one_at_a_time", { executionMode: "sequential" }, async () => {});
};

async function batch(name, calls, setup = () => {}) {
	const cwd = join(process.cwd(), name);
	const agentDir = join(cwd, ".agent");
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory();
	const resourceLoader = new DefaultResourceLoader({
		cwd, agentDir, settingsManager, extensionFactories: [probeTools],
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({});
	setup(session, cwd);
	finished = [];
	faux.setResponses([fauxAssistantMessage(calls, { stopReason: "toolUse" }), fauxAssistantMessage("done")]);
	await session.prompt("go");
	const resultOrder = session.agent.state.messages.filter((m) => m.role === "toolResult").map((m) => m.toolName);
	const mode = session.agent.toolExecution;
	session.dispose();
	return { finished: finished.join(","), results: resultOrder.join(","), mode, cwd };
}

const parallel = await batch("parallel", [fauxToolCall("slow", {}), fauxToolCall("quick", {})], (session) => {
	if (COUNTER) session.agent.toolExecution = "sequential";
});
const withSequentialTool = await batch("sequential-tool", [
	fauxToolCall("slow", {}), fauxToolCall("quick", {}), fauxToolCall("one_at_a_time", {}),
]);
// Two edits of one file in one reply: each reads the file and writes it back.
const sameFile = await batch("same-file", [
	fauxToolCall("edit", { path: "f.txt", edits: [{ oldText: "one", newText: "ONE" }] }),
	fauxToolCall("edit", { path: "f.txt", edits: [{ oldText: "two", newText: "TWO" }] }),
], (_session, cwd) => writeFileSync(join(cwd, "f.txt"), "one\ntwo\n"));

console.log(JSON.stringify({
	default_mode: parallel.mode,
	finish_order: parallel.finished,
	result_order: parallel.results,
	with_sequential_tool_finish_order: withSequentialTool.finished,
	same_file_edits_both_applied: readFileSync(join(sameFile.cwd, "f.txt"), "utf8") === "ONE\nTWO\n",
}));
