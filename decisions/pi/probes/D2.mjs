// D2: can anything block a tool call?
// Scripted model calls go through `tool_call` handlers of inline extensions; we watch which
// handlers are asked, what the model is told, and what runs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	createMcpExtension,
	DefaultResourceLoader,
	ExtensionRunner,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

// PROBE_COUNTER=1 swaps in a runner that asks every handler even after a block, as a pi
// without the early return would; the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";
if (COUNTER) {
	ExtensionRunner.prototype.emitToolCall = async function (event) {
		let result;
		for (const ext of this.extensions) {
			for (const handler of ext.handlers.get("tool_call") ?? []) {
				result = (await handler(event, this.createContext())) ?? result;
			}
		}
		return result;
	};
}

// One SDK session on the scripted model, in its own folder; returns what the run left behind.
async function run(name, extensions, calls) {
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
	faux.setResponses([fauxAssistantMessage(calls, { stopReason: "toolUse" }), fauxAssistantMessage("done")]);
	await session.prompt("go");
	const result = session.agent.state.messages.find((m) => m.role === "toolResult");
	session.dispose();
	return { cwd, result, text: result?.content?.[0]?.text, requests: faux.state.callCount };
}
const bash = (file) => fauxToolCall("bash", { command: `touch ${file}` });

// Two handlers in extension order: the first blocks with a reason, the second only notes it was asked.
let laterAsked = false;
const blockWith = (reason, extra = {}) => (pi) => pi.on("tool_call", async () => ({ block: true, reason, ...extra }));
const noteAsked = (pi) => pi.on("tool_call", async () => { laterAsked = true; });
const blocked = await run("blocked", [blockWith("first says no"), noteAsked], [bash("ran")]);
const noReason = await run("no-reason", [blockWith(undefined)], [bash("ran")]);
const terminated = await run("terminate", [blockWith("stop", { terminate: true })], [bash("ran")]);

// pi's own built-in MCP extension, with no servers configured, has a tool_call handler.
const withMcp = await run("mcp", [createMcpExtension()], [bash("ran")]);

// A handler that edits the input in place: the edited call runs, and its new value is not
// checked against the tool's schema again (a number where a string is declared gets through).
let seenType;
const echoTool = (pi) => pi.registerTool({
	name: "echo_type", label: "echo_type", description: "reports the type of x",
	parameters: Type.Object({ x: Type.String() }),
	async execute(_id, params) {
		seenType = typeof params.x;
		return { content: [{ type: "text", text: seenType }], details: {} };
	},
});
const rewrite = (pi) => pi.on("tool_call", async (event) => {
	if (event.toolName === "bash") event.input.command = "touch rewritten";
	if (event.toolName === "echo_type") event.input.x = 42;
});
const edited = await run("edited", [echoTool, rewrite], [bash("original"), fauxToolCall("echo_type", { x: "text" })]);

console.log(JSON.stringify({
	ran_when_blocked: existsSync(join(blocked.cwd, "ran")),
	later_handler_asked: laterAsked,
	block_is_error: blocked.result?.isError === true,
	model_told: blocked.text,
	model_told_without_reason: noReason.text,
	requests_after_blocked: blocked.requests,
	requests_after_block_with_terminate: terminated.requests,
	ran_with_builtin_mcp_extension: existsSync(join(withMcp.cwd, "ran")),
	edited_command_ran: existsSync(join(edited.cwd, "rewritten")) && !existsSync(join(edited.cwd, "original")),
	edited_input_revalidated: seenType !== "number",
}));
