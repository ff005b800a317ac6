// P6: in RPC mode, `--session <id>` of another project's session takes the client's first line
// as the answer to a yes/no question.
// A session is saved in one project folder; pi's own CLI is started in RPC mode from another
// folder with `--session <its id>`, the way an RPC client starts it, and the client's first
// command (`get_state`) is written to stdin. We record what comes back on stdout and whether
// pi is still running. A local endpoint in models.json gives RPC mode a model; nothing calls it.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// PROBE_COUNTER=1 saves the session in the folder pi is started from: the same command then
// opens it without a question and answers `get_state`, so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const root = process.cwd();
const agentDir = join(root, "agent");
const here = join(root, "this-project");
const other = COUNTER ? here : join(root, "other-project");
for (const dir of [agentDir, here, other]) mkdirSync(dir, { recursive: true });
writeFileSync(join(agentDir, "models.json"), JSON.stringify({
	providers: {
		local: {
			baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "unused",
			models: [{ id: "probe-model" }],
		},
	},
}));
process.env.PI_CODING_AGENT_DIR = agentDir;
const { SessionManager } = await import("@earendil-works/pi-coding-agent");

// A session file is written once it holds a user and an assistant message.
const saved = SessionManager.create(other);
saved.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
saved.appendMessage({
	role: "assistant", content: [{ type: "text", text: "hi" }], api: "openai-completions",
	provider: "local", model: "probe-model", stopReason: "stop", timestamp: Date.now(),
	usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
});

// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
const child = spawn("pi", ["--mode", "rpc", "--offline", "--session", saved.getSessionId()], {
	cwd: here,
	env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
	stdio: ["pipe", "pipe", "pipe"],
});
let stdout = "";
let stderr = "";
child.stdout.on("data", (chunk) => { stdout += chunk; });
child.stderr.on("data", (chunk) => { stderr += chunk; });
let exitCode;
const exited = new Promise((resolve) => child.on("exit", (code) => { exitCode = code; resolve(); }));
setTimeout(() => child.kill("SIGKILL"), 15_000).unref();

child.stdin.write(`${JSON.stringify({ id: "probe-1", type: "get_state" })}\n`);
// Wait for pi to end or to answer the command, whichever comes first.
await Promise.race([
	exited,
	new Promise((resolve) => {
		const poll = setInterval(() => { if (stdout.includes("probe-1")) { clearInterval(poll); resolve(); } }, 20);
		exited.then(() => clearInterval(poll));
	}),
]);
const answered = stdout.includes("probe-1");
const endedBeforeStdinClosed = exitCode !== undefined;
child.stdin.end();
await exited;

console.log(JSON.stringify({
	asked_on_stderr: stderr.includes("Fork this session into current directory?"),
	first_command_answered: answered,
	stdout_chars: stdout.length,
	ended_without_stdin_closing: endedBeforeStdinClosed,
	exit_code: exitCode,
	said_aborted: stderr.includes("Aborted."),
	// what pi printed on stderr (the site shows it as what pi printed)
	observed: { stderr: stderr.slice(0, 300) },
}));
