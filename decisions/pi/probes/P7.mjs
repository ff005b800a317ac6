// P7: an edit matched only loosely rewrites the rest of the lines it touches in plain ASCII.
// The first line of a file ends in three spaces and also holds curly quotes and an em dash.
// The edit tool, called as the model would call it, changes `v1` to `v2` with an oldText that
// leaves out the trailing spaces (so only the loose match finds it). We look at the quotes
// and the dash the edit did not ask to change, and at a line it did not touch. A second edit in
// the same call finds its own text exactly, on a line that also holds curly quotes.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 sends the oldText with the trailing spaces, so the exact match finds it and
// the quotes and dash stay: the probe must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const cwd = process.cwd();
const file = join(cwd, "notes.md");
const first = "title: \u201cDraft\u201d \u2014 v1   ";
const untouched = "Keep \u201cthese\u201d \u2014 as they are   ";
const exactLine = "count = 1 // \u201cone\u201d \u2014 first";
writeFileSync(file, `${first}\nbody\n${untouched}\n${exactLine}\n`);

const tool = createEditToolDefinition(cwd);
const oldText = COUNTER ? "v1   \nbody" : "v1\nbody";
const result = await tool.execute("probe-edit", {
	path: "notes.md",
	edits: [{ oldText, newText: "v2\nbody" }, { oldText: "count = 1", newText: "count = 2" }],
});

const lines = readFileSync(file, "utf8").split("\n");
const diff = String(result.details?.diff ?? "");
console.log(JSON.stringify({
	reported_success: /^Successfully replaced/.test(result.content[0]?.text ?? ""),
	edited_text_changed: lines[0].includes("v2"),
	curly_quotes_kept: lines[0].includes("\u201cDraft\u201d"),
	em_dash_kept: lines[0].includes("\u2014"),
	edited_line: lines[0],
	line_outside_edit_kept: lines[2] === untouched,
	exact_edit_applied: lines[3].startsWith("count = 2"),
	exact_edit_line_quotes_kept: lines[3].includes("\u201cone\u201d"),
	diff_marks_edited_line: diff.split("\n").some((line) => line.startsWith("+") && line.includes("v2")),
}));
