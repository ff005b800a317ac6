// P3: a context-overflow error in unfamiliar wording is not treated as an overflow.
// First pi-ai's isContextOverflow on three error texts; then two SDK sessions with automatic
// compaction on, whose scripted model fails the third request with an overflow error: once in a
// wording pi knows, once in words of its own. Only the known wording starts the overflow
// recovery (a compaction, then the request again).
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, isContextOverflow } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const KNOWN = "prompt is too long: 213462 tokens > 200000 maximum";
const UNFAMILIAR = "the conversation no longer fits in this model's memory (213462 of 200000)";
const failed = (errorMessage) => fauxAssistantMessage("", { stopReason: "error", errorMessage });

async function recovery(errorMessage) {
	const cwd = join(process.cwd(), errorMessage === KNOWN ? "known" : "unfamiliar");
	const agentDir = join(cwd, ".agent");
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory({ compaction: { enabled: true, keepRecentTokens: 50 }, retry: { enabled: false } });
	const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	const compactions = [];
	session.subscribe((event) => {
		if (event.type === "compaction_start") compactions.push(event.reason);
	});
	const long = (n) => fauxAssistantMessage(`answer ${n}: ${"words ".repeat(400)}`);
	faux.setResponses([long(1), long(2), failed(errorMessage)]);
	await session.prompt(`first ${"question ".repeat(200)}`);
	await session.prompt(`second ${"question ".repeat(200)}`);
	const before = faux.state.callCount;
	// whatever pi asks for after the failure (a summary, the request again) gets a short reply
	faux.appendResponses(Array.from({ length: 6 }, () => fauxAssistantMessage("ok")));
	await session.prompt("third");
	await session.waitForIdle?.();
	const requestsAfterFailure = faux.state.callCount - before - 1;
	session.dispose();
	return { overflowCompactions: compactions.filter((r) => r === "overflow").length, requestsAfterFailure };
}

const known = await recovery(KNOWN);
const unfamiliar = await recovery(UNFAMILIAR);
const asError = (text) => isContextOverflow(failed(text), 200000);

console.log(JSON.stringify({
	known_wording_is_overflow: asError(KNOWN),
	unfamiliar_wording_is_overflow: asError(UNFAMILIAR),
	rate_limit_wording_is_overflow: asError("rate limit: too many tokens per minute"),
	known_wording_recovers: known.overflowCompactions === 1 && known.requestsAfterFailure >= 2,
	unfamiliar_wording_recovers: unfamiliar.overflowCompactions > 0 || unfamiliar.requestsAfterFailure > 0,
	known_requests_after_failure: known.requestsAfterFailure,
	unfamiliar_requests_after_failure: unfamiliar.requestsAfterFailure,
}));
