// P8: `pi @folder "<message>"` ends in an uncaught EISDIR error with a stack trace.
// pi's own CLI is started in print mode with `@src` (a folder) and a message, stdin closed.
// No model is configured; a pi that got past the `@` arguments would stop with its "no models"
// error instead. We look at how it ends.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// PROBE_COUNTER=1 passes a file (`@src/a.txt`) instead of the folder: pi then reads it and
// goes on, so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const cwd = process.cwd();
const agentDir = join(cwd, "agent");
mkdirSync(agentDir, { recursive: true });
mkdirSync(join(cwd, "src"), { recursive: true });
writeFileSync(join(cwd, "src", "a.txt"), "hello\n");

// Node's own warnings (the harness may run Node with its permission flags, which children
// inherit) are not pi's output.
const withoutNodeWarnings = (text) =>
	text.split("\n").filter((line) => !/^\(node:\d+\)|^\(Use `node --trace-warnings/.test(line)).join("\n");

// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
const run = spawnSync("pi", ["--offline", "-p", COUNTER ? "@src/a.txt" : "@src", "Explain this"], {
	cwd,
	env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
	stdio: ["ignore", "pipe", "pipe"],
	encoding: "utf8",
	timeout: 15_000,
});
const stderr = withoutNodeWarnings(run.stderr ?? "");
console.log(JSON.stringify({
	exit_code: run.status,
	eisdir: stderr.includes("EISDIR"),
	stack_trace_shown: /\n\s+at .+\(.+:\d+:\d+\)/.test(stderr),
	stack_names_mime_sniffing: stderr.includes("detectSupportedImageMimeTypeFromFile"),
	reached_model_check: /model/i.test(stderr),
	// what pi printed on stderr, its start (the site shows it as what pi printed)
	observed: { stderr: stderr.slice(0, 500) },
}));
