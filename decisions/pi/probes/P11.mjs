// P11: a reply set aside for a compact-and-retry vanishes when there is nothing to compact.
// Runs pi's own command line (`pi -p`) once per case, with an extension that puts a scripted model
// in place of a provider, and records the exit code, stdout, stderr, the session file and what
// each model request contained.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// PROBE_COUNTER=1 gives pi replies it does not set aside: a reply cut off at the model's own output
// limit, and an error in words that are not an overflow. pi then reports them, and the probe must
// fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
const cwd = process.cwd();

// The model's output limit is 8 tokens; the scripted model counts about 4 characters a token, so
// "cut sho" (2 tokens) stops short of the limit and the 32-character reply stops at it.
const SHORT_CUT = "cut sho";
const FULL_CUT = "an answer cut at the model limit";
const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const OTHER_ERROR = "invalid request: scripted failure";
const cut = COUNTER ? FULL_CUT : SHORT_CUT;
const failure = COUNTER ? OTHER_ERROR : OVERFLOW;

// Each request's messages are logged as their roles, one request a line, to PROBE_LOG.
writeFileSync(join(cwd, "scripted-model.mjs"), `
import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
export default function (pi) {
	const faux = fauxProvider({ models: [{ id: "faux-1", maxTokens: 8 }] });
	pi.registerProvider(faux.provider);
	faux.setResponses(JSON.parse(process.env.PROBE_REPLIES).map(([stopReason, text]) => (context) => {
		appendFileSync(process.env.PROBE_LOG, context.messages.map((m) => m.role).join(",") + "\\n");
		return fauxAssistantMessage(stopReason === "error" ? "" : text, {
			stopReason, errorMessage: stopReason === "error" ? text : undefined,
		});
	}));
}
`);

function sessionEntries(home) {
	const root = join(home, ".pi", "agent", "sessions");
	const files = (dir) => readdirSync(dir, { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
	return (existsSync(root) ? files(root) : []).filter((f) => f.endsWith(".jsonl"))
		.flatMap((f) => readFileSync(f, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)));
}

function pi(name, replies, args, settings) {
	const home = join(cwd, name);
	mkdirSync(join(home, ".pi", "agent"), { recursive: true });
	if (settings) writeFileSync(join(home, ".pi", "agent", "settings.json"), JSON.stringify(settings));
	const log = join(home, "requests.log");
	writeFileSync(log, "");
	return new Promise((resolve) => {
		const child = spawn("pi", ["-p", ...args, "-e", "./scripted-model.mjs", "--model", "faux/faux-1"], {
			cwd, env: { ...process.env, HOME: home, PI_OFFLINE: "1", PROBE_REPLIES: JSON.stringify(replies), PROBE_LOG: log },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => { stdout += d; });
		child.stderr.on("data", (d) => { stderr += d; });
		// Node's own warnings (a sandbox may add them) are not pi's output and are dropped.
		const nodeWarning = /^\(node:\d+\) \w*Warning|^\(Use `node --trace-warnings/;
		const pis = (text) => text.split("\n").filter((l) => !nodeWarning.test(l)).join("\n").trim().slice(0, 80);
		child.on("close", (code) => resolve({
			code, stdout: pis(stdout), stderr: pis(stderr), home,
			requests: readFileSync(log, "utf8").split("\n").filter(Boolean),
		}));
	});
}

const history = "q ".repeat(300);
const [alone, overflow, twoPrompts, compactionOff, withHistory] = await Promise.all([
	// One prompt, a saved session, and a reply cut off short of the model's limit.
	pi("alone", [["length", cut]], ["hi"]),
	// One prompt, and a context-overflow error in a wording pi knows.
	pi("overflow", [["error", failure]], ["--no-session", "hi"]),
	// Two prompts: does the second request still carry the first, cut-off reply?
	pi("two-prompts", [["length", cut], ["stop", "second answer"]], ["--no-session", "first", "second"]),
	// The same cut-off reply with automatic compaction off: no recovery is tried.
	pi("compaction-off", [["length", cut]], ["--no-session", "hi"], { compaction: { enabled: false } }),
	// With an older exchange that compaction may summarise (it keeps only the newest 50 tokens
	// here), pi compacts, asks again, and prints the new answer.
	pi("with-history", [["stop", "a ".repeat(300)], ["length", cut], ["stop", "summary"], ["stop", "retried answer"]],
		["--no-session", history, "second"], { compaction: { keepRecentTokens: 50 } }),
]);

const entries = sessionEntries(alone.home);
const reply = entries.find((e) => e.type === "message" && e.message.role === "assistant");
const replyText = reply?.message.content.map((c) => c.text ?? "").join("") ?? "";
const hidden = entries.some((e) => e.type === "context_edit" && e.targetId === reply?.id && e.replacement === null);

console.log(JSON.stringify({
	cut_reply_exit: alone.code,
	cut_reply_stdout: alone.stdout,
	cut_reply_stderr: alone.stderr,
	cut_reply_requests: alone.requests.length,
	cut_reply_saved_in_session_file: replyText === cut,
	cut_reply_hidden_from_context: hidden,
	overflow_error_exit: overflow.code,
	overflow_error_stderr: overflow.stderr,
	overflow_error_requests: overflow.requests.length,
	next_prompt_sees_cut_reply: (twoPrompts.requests[1] ?? "").includes("assistant"),
	next_prompt_stdout: twoPrompts.stdout,
	compaction_off_exit: compactionOff.code,
	compaction_off_stdout: compactionOff.stdout,
	compaction_off_warned: /truncated/i.test(compactionOff.stderr),
	with_history_exit: withHistory.code,
	with_history_stdout: withHistory.stdout,
	with_history_requests: withHistory.requests.length,
}));
