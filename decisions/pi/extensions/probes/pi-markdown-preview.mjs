// pi-markdown-preview: loaded into pi, its `preview_export` tool is offered to the model and its
// one-line snippet and guidelines are in the system prompt pi sends. The same session without it
// (the contrast) has neither.
import { contrast } from "./_session.mjs";

const PACKAGE = "pi-markdown-preview";

const { plain, withIt } = await contrast(PACKAGE);
const offered = (s) => s.session.getActiveToolNames().includes("preview_export");
const inPrompt = (s) => /- preview_export: /.test(s.session.systemPrompt) && /Use preview_export when/.test(s.session.systemPrompt);

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: offered(withIt),
	offered_without: offered(plain),
	in_prompt_with: inPrompt(withIt),
	in_prompt_without: inPrompt(plain),
}));
process.exit(0);
