// pi-mermaid: loaded into pi, a reply holding a mermaid block is followed by the extension's
// message, sent from its `agent_end` handler while the run is still active, which pi queues as
// steering: the run goes on and the model is asked once more. The same session without it (the
// contrast) ends the run at that reply.
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const PACKAGE = "pi-mermaid";
// PROBE_WITHOUT=1 leaves the extension out: the probe must then fail
const WITHOUT = process.env.PROBE_WITHOUT === "1";
const DIAGRAM = "Here is the flow:\n\n```mermaid\ngraph TD\n  A[start] --> B[end]\n```\n";

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

// The model answers with a diagram and no tool call; a second reply is there if it is asked again.
async function run(s) {
	s.faux.setResponses([fauxAssistantMessage(DIAGRAM), fauxAssistantMessage("second reply")]);
	await s.session.prompt("draw it");
	const messages = s.session.messages;
	return {
		replies: messages.filter((m) => m.role === "assistant").length,
		mermaid: messages.filter((m) => m.role === "custom" && m.customType === "pi-mermaid").length,
	};
}

const plain = await session("plain", false);
const withIt = await session("with", !WITHOUT);
const ran = await run(withIt);
const ranPlain = await run(plain);

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	mermaid_message: ran.mermaid > 0,
	replies_with: ran.replies,
	replies_without: ranPlain.replies,
}));
