// P4: an edit of a file that is not UTF-8 rewrites its other non-ASCII bytes.
// A Latin-1 file holds `café` (byte 0xE9) on a line the edit does not touch; the edit tool,
// called as the model would call it, changes another line. We compare the untouched line's
// bytes before and after, and look at the diff pi reports.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 writes the same text as UTF-8 (0xC3 0xA9 for é): the file pi expects, where
// the untouched line keeps its bytes, so the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const cwd = process.cwd();
const file = join(cwd, "legacy.c");
const accented = COUNTER ? Buffer.from("é", "utf8") : Buffer.from([0xe9]);
const untouched = Buffer.concat([Buffer.from("/* caf"), accented, Buffer.from(" */")]);
writeFileSync(file, Buffer.concat([Buffer.from("int x = 1;\n"), untouched, Buffer.from("\n")]));

const tool = createEditToolDefinition(cwd);
const result = await tool.execute("probe-edit", {
	path: "legacy.c",
	edits: [{ oldText: "int x = 1;", newText: "int x = 2;" }],
});

const after = readFileSync(file);
const lines = after.toString("latin1").split("\n");
const diff = String(result.details?.diff ?? "");

console.log(JSON.stringify({
	reported_success: /^Successfully replaced/.test(result.content[0]?.text ?? ""),
	edited_line_changed: lines[0] === "int x = 2;",
	untouched_line_kept: after.includes(untouched),
	replacement_char_written: after.includes(Buffer.from([0xef, 0xbf, 0xbd])),
	// The diff pi shows marks changed lines with - and +; the untouched line appears, if at all,
	// as unchanged context.
	diff_marks_untouched_line: diff.split("\n").some((line) => /^[-+]/.test(line) && line.includes("caf")),
	// what pi reported and the diff it shows (the site shows them as what pi printed)
	observed: { "tool result": (result.content[0]?.text ?? "").slice(0, 200), "diff pi shows": diff.slice(0, 400) },
}));
