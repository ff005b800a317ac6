// F5: what does the summary that replaces the older conversation say?
// A scripted session reads and writes a file, then is compacted (as `/compact` does) twice;
// the scripted model sees the summary request and answers it. Then two bad answers are tried.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 has the scripted model's first summary stop at its length limit (the
// answer says such a reply is rejected), so no summary is saved and the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const cwd = process.cwd();
const agentDir = join(cwd, ".agent");
writeFileSync(join(cwd, "notes.txt"), "remember the plan\n");
const faux = fauxProvider();
const modelRuntime = await ModelRuntime.create({
	authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false,
});
modelRuntime.registerNativeProvider(faux.provider);
// Keep only the newest turn: each prompt below is long (about 50 tokens) and each reply short,
// so the cut falls on the newest prompt and every older turn is summarized in one request.
const settingsManager = SettingsManager.inMemory({ compaction: { keepRecentTokens: 20 } });
const long = (text) => `${text} ${".".repeat(200)}`;
const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
	model: faux.getModel(), sessionManager: SessionManager.inMemory(cwd),
});
await session.bindExtensions({});

const requests = [];
// A summary reply that records the request it answers (its prompt text and the model asked).
const summary = (text, options) => (context, _options, _state, model) => {
	requests.push({ text: JSON.stringify(context.messages), model: model.id });
	return fauxAssistantMessage(text, options);
};
async function compact(focus) {
	try {
		return (await session.compact(focus)).summary;
	} catch (error) {
		return `error: ${error.message}`;
	}
}

faux.setResponses([
	fauxAssistantMessage([
		fauxToolCall("read", { path: "notes.txt" }),
		fauxToolCall("write", { path: "out.txt", content: "x" }),
	], { stopReason: "toolUse" }),
	fauxAssistantMessage("done"),
]);
await session.prompt("read the notes, write out.txt");
faux.appendResponses([fauxAssistantMessage("nothing else")]);
await session.prompt(long("anything else?"));

faux.appendResponses([summary("## Goal\nfirst summary", COUNTER ? { stopReason: "length" } : {})]);
const first = await compact("keep file names");
faux.appendResponses([fauxAssistantMessage("ok"), summary("## Goal\nsecond summary")]);
await session.prompt(long("one more step"));
const second = await compact();
faux.appendResponses([fauxAssistantMessage("ok"), summary("## Goal\ncut sho", { stopReason: "length" })]);
await session.prompt(long("and another"));
const cut = await compact();
faux.appendResponses([fauxAssistantMessage([fauxToolCall("bash", { command: "true" })], { stopReason: "toolUse" })]);
const withTool = await compact();
const compactions = session.sessionManager.getEntries().filter((e) => e.type === "compaction").length;
session.dispose();

const firstRequest = requests[0]?.text ?? "";
const sections = ["## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress",
	"### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"];
console.log(JSON.stringify({
	asked_session_model: requests[0]?.model === faux.getModel().id,
	conversation_in_tags: /<conversation>[\s\S]*read the notes[\s\S]*<\/conversation>/.test(firstRequest),
	section_headings_asked: sections.filter((s) => firstRequest.includes(s)).length,
	focus_added: firstRequest.includes("Additional focus: keep file names"),
	summary_is_reply_then_files: first.startsWith("## Goal\nfirst summary\n\n<read-files>\nnotes.txt\n</read-files>"),
	modified_files_listed: /<modified-files>\nout\.txt\n<\/modified-files>/.test(first),
	second_request_has_previous_summary: /<previous-summary>\\n## Goal\\nfirst summary/.test(requests[1]?.text ?? ""),
	second_request_asks_update: (requests[1]?.text ?? "").includes("incorporate into the existing summary"),
	length_stopped_summary: cut.slice(0, 60),
	tool_calling_summary: withTool.slice(0, 60),
	compactions_saved: compactions,
}));
