// pi-markdown-preview: loaded into pi, its `preview_export` tool is offered to the model and its
// one-line snippet and guidelines are in the system prompt pi sends. The same session without it
// (the contrast) has neither.
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const PACKAGE = "pi-markdown-preview";
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
const offered = (s) => s.session.getActiveToolNames().includes("preview_export");
const inPrompt = (s) => /- preview_export: /.test(s.session.systemPrompt) && /Use preview_export when/.test(s.session.systemPrompt);

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: offered(withIt),
	offered_without: offered(plain),
	in_prompt_with: inPrompt(withIt),
	in_prompt_without: inPrompt(plain),
}));
process.exit(0);
