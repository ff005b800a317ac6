// E8: when an edit's old text does not match the file exactly, is a near match good enough?
// Calls pi's `edit` tool as `createEditTool` builds it for a session, on small files whose
// text differs from the old text in one known way each. The tool is called directly, not
// through a scripted session, so that the same probe runs on pi releases from before the
// session API it would need (0.79.8 rewrote the whole file in normalized form, issue 5899).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEditTool } from "@earendil-works/pi-coding-agent";

const cwd = process.cwd();
const edit = createEditTool(cwd);

// Runs one edit call on a fresh file; returns the file afterwards, or the error text.
async function tryEdit(name, content, edits) {
	const path = join(cwd, name);
	writeFileSync(path, content);
	try {
		await edit.execute(`probe-${name}`, { path: name, edits });
		return { ok: true, file: readFileSync(path, "utf8") };
	} catch (error) {
		return { ok: false, error: String(error?.message ?? error) };
	}
}

// Line 1 has curly quotes and trailing spaces; line 2 has curly quotes and an em dash and is
// never touched; line 3 is touched by an exact edit in the same call.
const near = await tryEdit("near.ts", [
	"const greeting = \u2018hello\u2019;   ",
	"// keep \u201Cthis\u201D \u2014 as is",
	"const other = \u201Cx\u201D;",
	"",
].join("\n"), [
	{ oldText: "const greeting = 'hello';", newText: "const greeting = \u2018bye\u2019;" },
	{ oldText: "const other", newText: "const another" },
]);
const lines = near.ok ? near.file.split("\n") : [];
// The same exact edit alone, with no near match in its call, leaves the rest of its line be.
const exactOnly = await tryEdit("exact.ts", "const other = \u201Cx\u201D;\n", [
	{ oldText: "const other", newText: "const another" },
]);

const tabs = await tryEdit("tabs.ts", "\tindented();\n", [{ oldText: "    indented();", newText: "done();" }]);
const spaces = await tryEdit("spaces.ts", "let a  =  1;\n", [{ oldText: "let a = 1;", newText: "let a = 2;" }]);
// The old text matches exactly once, but twice once quotes are made straight.
const twice = await tryEdit("twice.ts", "x = 'dup';\ny = \u2018dup\u2019;\n", [{ oldText: "'dup'", newText: "'one'" }]);
const overlap = await tryEdit("overlap.ts", "abcdef\n", [
	{ oldText: "abcd", newText: "1" },
	{ oldText: "cdef", newText: "2" },
]);

console.log(JSON.stringify({
	near_match_applied: near.ok,
	// The near-matched line: the new text as given (its curly quotes kept), trailing spaces gone.
	near_line: lines[0] ?? null,
	untouched_line_kept: lines[1] === "// keep \u201Cthis\u201D \u2014 as is",
	// Only an exact edit touched this line, yet its curly quotes came back straight.
	exact_edit_line_in_same_call: lines[2] ?? null,
	exact_edit_line_alone: exactOnly.ok ? exactOnly.file.split("\n")[0] : null,
	tabs_vs_spaces_matched: tabs.ok,
	inner_space_runs_matched: spaces.ok,
	duplicate_after_normalizing_rejected: !twice.ok && /2 occurrences/.test(twice.error),
	overlap_rejected: !overlap.ok && /overlap/.test(overlap.error),
}));
