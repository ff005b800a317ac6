// P12: an untrusted project's `.pi/settings.json` still chooses where pi keeps its sessions, and so
// which saved session `--continue` takes up, and it colours the screens drawn before trust.
// Part 1 runs pi's own command line (`pi -p`) in a project that sets `sessionDir` and has an
// extension of its own, with no trust given: where is the session saved, does the extension run,
// and does `--continue` take up a session file the project ships? Part 2 builds the settings the
// way pi does before trust is settled and hands them to the function that draws the startup
// screens (the trust question among them), which needs no terminal until it is started.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// PROBE_COUNTER=1 gives every run `--session-dir`, which beats the project's setting: the sessions
// then go to the person's own folder and the shipped session is not taken up, so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const root = process.cwd();
const dist = dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.

// The scripted model logs the text of each message it is sent, one request a line.
writeFileSync(join(root, "scripted-model.mjs"), `
import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
const text = (m) => typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("");
export default function (pi) {
	const faux = fauxProvider();
	pi.registerProvider(faux.provider);
	faux.setResponses([(context) => {
		appendFileSync(process.env.PROBE_LOG, JSON.stringify(context.messages.map(text)) + "\\n");
		return fauxAssistantMessage("ok");
	}]);
}
`);

// A project as a repository could ship it: settings that name a session folder inside it, a theme
// and a colour depth, and an extension that leaves a file behind when pi loads it.
function project(name) {
	const dir = join(root, name, "project");
	mkdirSync(join(dir, ".pi", "extensions"), { recursive: true });
	writeFileSync(join(dir, ".pi", "settings.json"), JSON.stringify({
		sessionDir: "shipped-sessions", theme: "light", terminal: { trueColor: false },
	}));
	writeFileSync(join(dir, ".pi", "extensions", "mark.js"),
		"import { writeFileSync } from 'node:fs';\nexport default function () { writeFileSync('project-extension-ran', ''); }\n");
	return dir;
}

// A saved session the project ships: its header names the folder as `.`, which is wherever pi runs.
function shipSession(dir) {
	const now = new Date().toISOString();
	const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	const lines = [
		{ type: "session", version: 3, id: "0190aaaa-0000-7000-8000-000000000012", timestamp: now, cwd: "." },
		{ type: "message", id: "s1", parentId: null, timestamp: now,
			message: { role: "user", content: "shipped question", timestamp: Date.now() } },
		{ type: "message", id: "s2", parentId: "s1", timestamp: now,
			message: { role: "assistant", content: [{ type: "text", text: "shipped answer" }], api: "faux",
				provider: "faux", model: "faux-1", stopReason: "stop", timestamp: Date.now(), usage } },
	];
	mkdirSync(join(dir, "shipped-sessions"), { recursive: true });
	const file = join(dir, "shipped-sessions", "2026-01-01T00-00-00-000Z_0190aaaa-0000-7000-8000-000000000012.jsonl");
	writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
	return file;
}

const files = (dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".jsonl")) : []);

function pi(name, args) {
	const dir = project(name);
	const home = join(root, name, "home");
	mkdirSync(join(home, ".pi", "agent"), { recursive: true });
	const log = join(root, name, "requests.log");
	writeFileSync(log, "");
	const shipped = args.includes("-c") ? shipSession(dir) : undefined;
	const own = COUNTER ? ["--session-dir", join(home, "my-sessions")] : [];
	return new Promise((resolve) => {
		const model = ["-e", join(root, "scripted-model.mjs"), "--model", "faux/faux-1"];
		const child = spawn("pi", ["-p", ...own, ...args, ...model], {
			cwd: dir, env: { ...process.env, HOME: home, PI_OFFLINE: "1", PROBE_LOG: log },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout.on("data", (d) => { stdout += d; });
		child.stderr.resume();
		child.on("close", (code) => resolve({
			code, stdout: stdout.trim(),
			inProject: files(join(dir, "shipped-sessions")).length,
			inDefaultFolder: files(join(home, ".pi", "agent", "sessions")).length,
			extensionRan: existsSync(join(dir, "project-extension-ran")),
			requests: readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)),
			shippedLines: shipped ? readFileSync(shipped, "utf8").split("\n").filter(Boolean).length : 0,
		}));
	});
}

const [fresh, refused] = await Promise.all([
	// A new session, with the default for a folder nobody has answered for (print mode: untrusted).
	pi("fresh", ["hi"]),
	// `--continue`, with trust refused outright for this run.
	pi("continued", ["--no-approve", "-c", "next"]),
]);

// Part 2: the settings pi builds before trust is settled, and what the startup screen draws with.
// The terminal is said to take 24-bit colour; the person's own settings pick the dark theme.
process.env.COLORTERM = "truecolor";
const agentDir = join(root, "screens", "agent");
mkdirSync(agentDir, { recursive: true });
writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ theme: "dark" }));
process.env.PI_CODING_AGENT_DIR = agentDir;
const screensProject = project("screens");
const { SettingsManager } = await import("@earendil-works/pi-coding-agent");
const { createStartupTui } = await import(pathToFileURL(join(dist, "cli", "startup-ui.js")).href);
const { theme } = await import(pathToFileURL(join(dist, "modes", "interactive", "theme", "theme.js")).href);
async function screen(settings) {
	await createStartupTui(settings);
	const accent = theme.fg("accent", "x");
	return { name: theme.name, depth: accent.includes("38;2;") ? "24-bit" : accent.includes("38;5;") ? "256" : "none" };
}
const beforeTrust = await screen(SettingsManager.create(screensProject, agentDir));
const untrusted = await screen(SettingsManager.create(screensProject, agentDir, { projectTrusted: false }));

const sent = refused.requests[0] ?? [];
console.log(JSON.stringify({
	session_saved_in_project_folder: fresh.inProject === 1,
	sessions_in_default_folder: fresh.inDefaultFolder,
	project_extension_ran: fresh.extensionRan || refused.extensionRan,
	fresh_exit: fresh.code,
	continued_exit: refused.code,
	model_saw_shipped_conversation: sent.includes("shipped question") && sent.includes("shipped answer"),
	shipped_file_extended: refused.shippedLines > 3,
	messages_sent: sent.filter(Boolean).join(" | ").slice(0, 120),
	startup_screen_theme: beforeTrust.name,
	startup_screen_colours: beforeTrust.depth,
	theme_once_untrusted: untrusted.name,
	colours_once_untrusted: untrusted.depth,
}));
