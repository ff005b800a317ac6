// P5: `pi -p "<message>"` waits for its stdin to close before it does anything.
// pi's own CLI is started twice at once, the message on the command line both times, as a
// script or supervisor starts it: once with stdin closed (`< /dev/null`), once with stdin an
// open pipe nobody writes to. No model is configured, so a pi that goes on stops at once with
// its "no models" error. The first run measures how long startup takes on this machine now;
// once it has ended we wait as long again (at least half a second) and look at the second, then
// close its stdin. Waiting as long again, not a fixed time: on a busy machine the second run may
// start well after the first, and a pi that went on would be judged before it got there.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

// PROBE_COUNTER=1 closes the second run's stdin at once too: it then goes on without waiting,
// so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";
const MARGIN_MS = 500;
const startedAt = Date.now();

// Node's own warnings (the harness may run Node with its permission flags, which children
// inherit) are not pi's output.
const withoutNodeWarnings = (text) =>
	text.split("\n").filter((line) => !/^\(node:\d+\)|^\(Use `node --trace-warnings/.test(line)).join("\n");

// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.

function start(name) {
	const cwd = join(process.cwd(), name);
	const agentDir = join(cwd, "agent");
	mkdirSync(agentDir, { recursive: true });
	const child = spawn("pi", ["--offline", "-p", "Say hello"], {
		cwd,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
		stdio: ["pipe", "pipe", "pipe"],
	});
	const run = { child, output: "", code: undefined };
	child.stdout.on("data", (chunk) => { run.output += chunk; });
	child.stderr.on("data", (chunk) => { run.output += chunk; });
	run.exited = new Promise((resolve) => child.on("exit", (code) => { run.code = code; resolve(code); }));
	setTimeout(() => child.kill("SIGKILL"), 60_000).unref();
	return run;
}

const reference = start("closed-stdin");
const open = start("open-stdin");
reference.child.stdin.end();
if (COUNTER) open.child.stdin.end();

await reference.exited;
const referenceMs = Date.now() - startedAt;
await new Promise((resolve) => setTimeout(resolve, Math.max(MARGIN_MS, referenceMs)));
const stillRunning = open.code === undefined;
const outputWhileWaiting = withoutNodeWarnings(open.output).trim().length;

const closedAt = Date.now();
open.child.stdin.end();
await open.exited;

console.log(JSON.stringify({
	closed_stdin_run_stopped_on_missing_model: /model/i.test(withoutNodeWarnings(reference.output)),
	open_stdin_still_running: stillRunning,
	open_stdin_output_chars: outputWhileWaiting,
	went_on_once_stdin_closed: typeof open.code === "number" && /model/i.test(withoutNodeWarnings(open.output)),
	seconds_from_close_to_exit: Math.round((Date.now() - closedAt) / 100) / 10,
	// what pi printed once stdin closed (the site shows it as what pi printed)
	observed: { "printed once stdin closed": withoutNodeWarnings(open.output).trim().slice(0, 300) },
}));
