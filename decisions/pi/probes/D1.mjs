// D1: is a person asked before a tool call the model issued runs?
// A scripted model asks for `bash`; we watch whether anyone is asked and whether the command ran.
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

// PROBE_COUNTER=1 installs an extension that asks the person and blocks on "no": the
// setup the answer says it takes for a person to be asked, so the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

// A UI that says "no" to every question and counts them, so "nobody was asked" is observed
// rather than assumed (without a UI, a confirm could not be seen at all).
const questions = [];
const ask = (kind) => async (...args) => {
	questions.push([kind, args[0]]);
	return kind === "confirm" ? false : undefined;
};
const ui = {
	select: ask("select"), confirm: ask("confirm"), input: ask("input"), editor: ask("editor"),
	custom: ask("custom"), notify() {}, onTerminalInput: () => () => {}, setStatus() {},
	setWorkingMessage() {}, setWorkingVisible() {}, setWorkingIndicator() {}, setHiddenThinkingLabel() {},
	setWidget() {}, setFooter() {}, setHeader() {}, setTitle() {}, pasteToEditor() {}, setEditorText() {},
	getEditorText: () => "", addAutocompleteProvider() {}, setEditorComponent() {},
	getEditorComponent: () => undefined, getAllThemes: () => [], getTheme: () => undefined,
	setTheme: () => ({ success: false }), getToolsExpanded: () => false, setToolsExpanded() {},
};

// One SDK session (as createAgentSession builds it) on the scripted model, in its own folder.
async function runBash(name, extensions) {
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
	await session.bindExtensions({ uiContext: ui });
	faux.setResponses([
		fauxAssistantMessage([fauxToolCall("bash", { command: "mkdir -p out && touch out/ran" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await session.prompt("run it");
	session.dispose?.();
	return existsSync(join(cwd, "out", "ran"));
}

const askFirst = (pi) =>
	pi.on("tool_call", async (event, ctx) => {
		const yes = await ctx.ui.confirm("Run this?", String(event.input.command));
		return yes ? undefined : { block: true, reason: "the person said no" };
	});
let seen = 0;
const watchOnly = (pi) => pi.on("tool_call", async () => { seen++; });
const blockAll = (pi) => pi.on("tool_call", async () => ({ block: true, reason: "blocked by probe" }));
const throwing = (pi) => pi.on("tool_call", async () => { throw new Error("handler broke"); });

const ran = await runBash("plain", COUNTER ? [askFirst] : []);
const asked = questions.length;
const ranWithWatcher = await runBash("watched", [watchOnly]);
const ranWhenBlocked = await runBash("blocked", [blockAll]);
const ranWhenThrown = await runBash("thrown", [throwing]);

console.log(JSON.stringify({
	asked,
	ran,
	handler_saw_call: seen === 1,
	ran_with_passive_handler: ranWithWatcher,
	ran_with_blocking_handler: ranWhenBlocked,
	ran_with_throwing_handler: ranWhenThrown,
}));
