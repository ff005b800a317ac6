// pi-prompt-template-model: a prompt template whose front matter names a thinking level runs at
// that level, and the session's level is set back when the run is over. The same prompt typed
// without the template (the contrast) runs at the session's own level.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import { openSession, WITHOUT } from "./_session.mjs";

const PACKAGE = "pi-prompt-template-model";

const cwd = join(process.cwd(), "project");
// the extension finds templates where pi does, in the agent folder pi's getAgentDir() names
const agentDir = join(process.cwd(), "agent");
process.env.PI_CODING_AGENT_DIR = agentDir;
mkdirSync(join(agentDir, "prompts"), { recursive: true });
mkdirSync(cwd, { recursive: true });
writeFileSync(join(agentDir, "prompts", "review.md"),
	"---\ndescription: Review, thinking hard\nmodel: faux/main\nthinking: high\n---\nReview the last change.\n");

// replies stream at a model's pace: the extension waits to see its run start before waiting for its end
const faux = fauxProvider({ models: [{ id: "main", reasoning: true }], tokensPerSecond: 40 });
// a UI that answers nothing and records what the extension tells the person (its errors come this way)
const notes = [];
const none = async () => undefined;
const ui = {
	select: none, confirm: async () => false, input: none, editor: none, custom: none,
	notify(message, type) { notes.push(`${type}: ${message}`); },
	onTerminalInput: () => () => {}, setStatus() {}, setWorkingMessage() {}, setWorkingVisible() {},
	setWorkingIndicator() {}, setHiddenThinkingLabel() {}, setWidget() {}, setFooter() {}, setHeader() {},
	setTitle() {}, pasteToEditor() {}, setEditorText() {}, getEditorText: () => "", addAutocompleteProvider() {},
	setEditorComponent() {}, getEditorComponent: () => undefined, getAllThemes: () => [], getTheme: () => undefined,
	setTheme: () => ({ success: false }), getToolsExpanded: () => false, setToolsExpanded() {},
};

const { session, errors } = await openSession({
	cwd, agentDir, extension: WITHOUT ? null : PACKAGE, faux, model: faux.getModel("main"),
	create: {
		// the model in scope, as `pi --models faux/main` puts it: the extension takes a model in scope as
		// usable (availability is otherwise learned from the providers, which needs the network)
		scopedModels: [{ model: faux.getModel("main") }],
		thinkingLevel: "low",
	},
	bind: { uiContext: ui },
});

const answeredBy = [];  // the thinking level each reply was asked for
const reply = (context, options) => {
	answeredBy.push(options?.reasoning ?? "off");
	return fauxAssistantMessage("Reviewed: the change looks right to me, nothing more to do here.");
};
faux.setResponses([reply, reply]);

await session.prompt("Review the last change.");  // typed as it is: the session's level
const plain = answeredBy.at(-1);
await session.prompt("/review");
// the command's run may still be going when prompt() returns (see A16): wait for its reply, then
// for the extension's agent_end handler to switch back
for (let waited = 0; answeredBy.length < 2 && waited < 10000; waited += 50) {
	await new Promise((resolve) => setTimeout(resolve, 50));
}
await session.agent.waitForIdle?.();
await new Promise((resolve) => setTimeout(resolve, 300));
const templated = answeredBy.at(-1);

console.log(JSON.stringify({
	load_errors: errors.length,
	first_error: (errors[0] ?? "").slice(0, 300),
	plain_thinking: plain ?? null,
	template_thinking: templated ?? null,
	thinking_after: session.thinkingLevel ?? null,
	replies: answeredBy.length,
	notes: notes.slice(0, 5),
	commands: session.extensionRunner?.getRegisteredCommands?.().map((c) => c.name).slice(0, 10) ?? null,
}));
