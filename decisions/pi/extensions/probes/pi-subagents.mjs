// pi-subagents: loaded into pi, it offers the model its `subagent` and `bg_wait` tools, and the
// system prompt pi builds lists `subagent`. The same session without it (the contrast) has neither.
import { contrast } from "./_session.mjs";

const PACKAGE = "pi-subagents";

const { plain, withIt } = await contrast(PACKAGE);
const offered = (s) => ["subagent", "bg_wait"].every((t) => s.session.getActiveToolNames().includes(t));
const inPrompt = (s) => /^- subagent: /m.test(s.session.systemPrompt);

console.log(JSON.stringify({
	tools: withIt.session.getActiveToolNames().filter((t) => !plain.session.getActiveToolNames().includes(t)).join(","),
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: offered(withIt),
	offered_without: offered(plain),
	in_prompt_with: inPrompt(withIt),
	in_prompt_without: inPrompt(plain),
}));
process.exit(0);
