// pi-mcp-adapter: loaded into pi, with no MCP server configured, it offers the model its `mcp`
// gateway tool and its `mcpScript` tool, and their one-line snippets are in the system prompt pi
// sends. The same session without it (the contrast) has neither.
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const PACKAGE = "pi-mcp-adapter";
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
const TOOLS = ["mcp", "mcpScript"];
const offered = (s) => TOOLS.every((t) => s.session.getActiveToolNames().includes(t));
const inPrompt = (s) => /^- mcp: MCP gateway/m.test(s.session.systemPrompt);

console.log(JSON.stringify({
	tools: withIt.session.getActiveToolNames().filter((t) => !plain.session.getActiveToolNames().includes(t)).join(","),
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: offered(withIt),
	offered_without: offered(plain),
	in_prompt_with: inPrompt(withIt),
	in_prompt_without: inPrompt(plain),
}));
process.exit(0);
