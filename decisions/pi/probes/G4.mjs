// G4: did the run end completed, in error, or aborted?
// One scripted reply per run, each with another stop reason; an extension records the
// outcome label pi hands to `turn_end` and `agent_before_settle`.
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import {
	AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 stands in for a pi that labels a reply cut off at its length limit as an
// error (it rewrites the stop reason before pi labels the turn); the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";
if (COUNTER) {
	const label = AgentSession.prototype._dispatchTurnEndBoundary;
	AgentSession.prototype._dispatchTurnEndBoundary = function (message, results) {
		const original = message.stopReason;
		if (original === "length") message.stopReason = "error";
		const pending = label.call(this, message, results); // the label is set before its first await
		message.stopReason = original;
		return pending;
	};
}

async function labels(stopReason) {
	const cwd = join(process.cwd(), stopReason);
	const agentDir = join(cwd, ".agent");
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory();
	const seen = {};
	const record = (pi) => {
		pi.on("turn_end", async (event) => { seen.turn_end = event.outcome; });
		pi.on("agent_before_settle", async (event) => { seen.before_settle = event.outcome; });
	};
	const resourceLoader = new DefaultResourceLoader({
		cwd, agentDir, settingsManager, extensionFactories: [record],
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({});
	// The error text is one pi does not retry, so the run ends on this reply.
	const errorMessage = stopReason === "error" ? "invalid request: probe" : undefined;
	faux.setResponses([fauxAssistantMessage("partial answer", { stopReason, errorMessage })]);
	await session.prompt("go");
	session.dispose();
	return seen;
}

const result = {};
for (const reason of ["stop", "length", "error", "aborted"]) {
	const seen = await labels(reason);
	result[`${reason}_turn_end`] = seen.turn_end ?? null;
	result[`${reason}_before_settle`] = seen.before_settle ?? null;
}
console.log(JSON.stringify(result));
