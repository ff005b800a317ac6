// pi-web-access: loaded into pi, its tools are offered to the model, which can call them.
// The same session without it (the contrast) is offered none of them.
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const PACKAGE = "pi-web-access";
// The sandbox's `fetch` throws and cannot be replaced, and the extension replaces the global
// `fetch` with a wrapper that only matters with a proxy; it skips that when the global is marked
// as its own wrapper, so mark it (nothing here goes through a proxy, or the network).
globalThis.fetch.__piWebAccessProxyFetch = true;
// PROBE_WITHOUT=1 leaves the extension out: the probe must then fail
const WITHOUT = process.env.PROBE_WITHOUT === "1";

async function session(name, withExtension) {
	const cwd = join(process.cwd(), name);
	const agentDir = join(cwd, ".agent");
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory();
	const resourceLoader = new DefaultResourceLoader({
		cwd, agentDir, settingsManager,
		additionalExtensionPaths: withExtension ? [join(process.cwd(), "node_modules", PACKAGE)] : [],
	});
	await resourceLoader.reload();
	const loaded = resourceLoader.getExtensions();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({});
	return { session, faux, errors: loaded.errors.map((e) => String(e.error)) };
}

const plain = await session("plain", false);
const withIt = await session("with", !WITHOUT);
const offered = (s) => s.session.getActiveToolNames();

// The model calls one of the extension's tools; a stored-result lookup needs no network.
withIt.faux.setResponses([
	fauxAssistantMessage([fauxToolCall("get_search_content", { responseId: "none" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("done"),
]);
await withIt.session.prompt("look it up");
const results = withIt.session.messages.filter((m) => m.role === "toolResult");
const called = results.find((m) => m.toolName === "get_search_content");
const text = called ? called.content.map((c) => c.text ?? "").join(" ") : "";

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: ["web_search", "fetch_content", "get_search_content"].every((t) => offered(withIt).includes(t)),
	offered_without: offered(plain).some((t) => ["web_search", "fetch_content", "get_search_content"].includes(t)),
	tool_ran: Boolean(called) && !/not found|unknown tool/i.test(text),
	tool_result: text.slice(0, 120),
}));
