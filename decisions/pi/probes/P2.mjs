// P2: output of a `!` command that lost its early chunks must be marked as cut.
// Runs the `!` path of an SDK session (AgentSession.executeBash, as interactive mode does when no
// extension takes the command) with scripted shell output: one chunk larger than the rolling
// window, then a short last line. pi drops the large chunk from memory; what remains fits within
// the line and byte limits, so only the record of the dropped chunk can mark the output as cut.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import {
	convertToLlm,
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const cwd = process.cwd();
const agentDir = join(cwd, ".agent");
const faux = fauxProvider();
const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
modelRuntime.registerNativeProvider(faux.provider);
const settingsManager = SettingsManager.inMemory();
const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
	model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
});

const early = "early output line\n".repeat(7000); // 126,000 characters: more than twice 50 KB
const operations = {
	async exec(_command, _cwd, { onData }) {
		onData(Buffer.from(early));
		onData(Buffer.from("last line\n"));
		return { exitCode: 0 };
	},
};
const result = await session.executeBash("make build", undefined, { operations });
const [forModel] = convertToLlm(session.messages.filter((m) => m.role === "bashExecution"));
const text = forModel?.content?.[0]?.text ?? "";
session.dispose();
// The full-output file is written through a stream that finishes after executeBash returns.
const savedSize = async (path) => {
	for (let i = 0; path && i < 50; i++, await new Promise((r) => setTimeout(r, 20))) {
		if (existsSync(path) && statSync(path).size > early.length) return statSync(path).size;
	}
	return 0;
};

console.log(JSON.stringify({
	early_output_dropped: !result.output.includes("early output line"),
	truncated: result.truncated,
	full_output_saved: (await savedSize(result.fullOutputPath)) > early.length,
	model_told_of_cut: text.includes("[Output truncated. Full output:"),
	// what pi sent the model for the command, its end (the site shows it as what pi sent)
	observed: { "sent to the model, the end": text.slice(-160) },
}));
