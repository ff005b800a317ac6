// P1: piped text and the first message are joined with nothing between them.
// Runs `echo hello | pi -p "Translate"` as a person would: `pi` is the command the installed package
// names (its `bin`), found on PATH, with "hello\n" written to its stdin. The model is pi-ai's scripted
// fauxProvider, loaded as an extension, which records the text of the user message it is sent.
// A second run adds an @file argument: the file's block ends with a line break, so the message after
// it starts on a new line.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const cwd = process.cwd();
writeFileSync(join(cwd, "scripted-model.mjs"), `
import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
const text = (m) => typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("");
export default function (pi) {
	const faux = fauxProvider();
	pi.registerProvider(faux.provider);
	faux.setResponses([(context) => {
		const sent = context.messages.filter((m) => m.role === "user").map(text);
		appendFileSync(process.env.PROBE_LOG, JSON.stringify(sent) + "\\n");
		return fauxAssistantMessage("ok");
	}]);
}
`);
writeFileSync(join(cwd, "a.txt"), "body\n");

function pi(name, piped, args) {
	const home = join(cwd, name);
	mkdirSync(home, { recursive: true });
	const log = join(home, "requests.log");
	writeFileSync(log, "");
	const model = ["-e", join(cwd, "scripted-model.mjs"), "--model", "faux/faux-1"];
	return new Promise((resolve) => {
		const child = spawn("pi", ["-p", "--no-session", ...model, ...args], {
			cwd, env: { ...process.env, HOME: home, PI_OFFLINE: "1", PROBE_LOG: log },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout.on("data", (d) => { stdout += d; });
		child.stderr.resume();
		child.stdin.end(piped);
		child.on("close", (code) => {
			const requests = readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
			resolve({ code, stdout: stdout.trim(), sent: requests[0]?.[0] });
		});
	});
}

const [piped, withFile] = await Promise.all([
	pi("piped", "hello\n", ["Translate"]),
	pi("with-file", "hello\n", ["@a.txt", "Translate"]),
]);

console.log(JSON.stringify({
	message: piped.sent ?? null,
	joined_without_separator: piped.sent === "helloTranslate",
	exit: piped.code,
	answered: piped.stdout,
	message_after_file_starts_on_new_line: typeof withFile.sent === "string" && withFile.sent.endsWith("</file>\nTranslate"),
}));
