// A16: does a one-shot text run report success?
// Runs pi's own command line (`pi -p`) once per case, with an extension that puts the scripted
// model in place of a provider, and records what reaches stdout, stderr and the exit code.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// PROBE_COUNTER=1 runs every case with `--mode json`, where (as the answer says) this check
// does not run; the error cases then exit 0 and the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
const cwd = process.cwd();

// The extension reads its script from PROBE_REPLIES: one reply per entry, [stopReason, text].
// The model's output limit is 8 tokens (the scripted model counts 4 characters a token), so a
// "length" reply of 8 tokens or more stopped at the model's own limit.
// "/note" is a command that adds a custom message and makes no model request.
writeFileSync(join(cwd, "scripted-model.mjs"), `
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
export default function (pi) {
	const faux = fauxProvider({ models: [{ id: "faux-1", maxTokens: 8 }] });
	pi.registerProvider(faux.provider);
	faux.setResponses(JSON.parse(process.env.PROBE_REPLIES).map(([stopReason, text]) =>
		fauxAssistantMessage(text, {
			stopReason, errorMessage: stopReason === "error" ? "invalid request: scripted failure" : undefined,
		})));
	pi.registerCommand("note", { description: "note", handler: async () => {
		pi.sendMessage({ customType: "note", content: "noted", display: true });
	} });
}
`);

function pi(name, replies, prompts) {
	const home = join(cwd, name);
	mkdirSync(home, { recursive: true });
	const args = [COUNTER ? "--mode" : "-p", ...(COUNTER ? ["json"] : []), "--no-session",
		"-e", "./scripted-model.mjs", "--model", "faux/faux-1", ...prompts];
	return new Promise((resolve) => {
		const child = spawn("pi", args, {
			cwd, env: { ...process.env, HOME: home, PI_OFFLINE: "1", PROBE_REPLIES: JSON.stringify(replies) },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => { stdout += d; });
		child.stderr.on("data", (d) => { stderr += d; });
		// Only the start of each stream is kept: enough to compare, small enough to report. Node's
		// own warnings (a sandbox may add them) are not pi's output and are dropped.
		const nodeWarning = /^\(node:\d+\) \w*Warning|^\(Use `node --trace-warnings/;
		const pis = (text) => text.split("\n").filter((l) => !nodeWarning.test(l)).join("\n").trim().slice(0, 80);
		child.on("close", (code) => resolve({ code, stdout: pis(stdout), stderr: pis(stderr) }));
	});
}

// Independent runs of the command line, so they may run side by side.
const [ok, error, aborted, length, lengthShort, notReply, errorThenOk] = await Promise.all([
	pi("ok", [["stop", "all good"]], ["hi"]),
	pi("error", [["error", ""]], ["hi"]),
	pi("aborted", [["aborted", ""]], ["hi"]),
	pi("length", [["length", "an answer cut at the model limit"]], ["hi"]),
	// Cut off short of the model's own limit (a smaller limit elsewhere): reported, not expected.
	pi("length-short", [["length", "cut sho"]], ["hi"]),
	pi("not-reply", [], ["/note"]),
	pi("error-then-ok", [["error", ""], ["stop", "second answer"]], ["first", "second"]),
]);

console.log(JSON.stringify({
	ok_exit: ok.code,
	ok_stdout: ok.stdout,
	error_exit: error.code,
	error_stdout_empty: error.stdout === "",
	error_stderr: error.stderr,
	aborted_exit: aborted.code,
	aborted_stderr: aborted.stderr,
	length_exit: length.code,
	length_stdout: length.stdout,
	length_warned: /truncated/i.test(length.stderr),
	length_short_of_model_limit_exit: lengthShort.code,
	length_short_of_model_limit_stdout: lengthShort.stdout,
	length_short_of_model_limit_stderr: lengthShort.stderr,
	not_reply_exit: notReply.code,
	not_reply_stdout_empty: notReply.stdout === "",
	earlier_error_then_ok_exit: errorThenOk.code,
	earlier_error_then_ok_stdout: errorThenOk.stdout,
}));
