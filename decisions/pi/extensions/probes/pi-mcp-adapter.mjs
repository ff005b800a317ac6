// pi-mcp-adapter: loaded into pi, with no MCP server configured, it offers the model its `mcp`
// gateway tool and its `mcpScript` tool, and their one-line snippets are in the system prompt pi
// sends. The same session without it (the contrast) has neither.
import { contrast } from "./_session.mjs";

const PACKAGE = "pi-mcp-adapter";

const { plain, withIt } = await contrast(PACKAGE);
const TOOLS = ["mcp", "mcpScript"];
const offered = (s) => TOOLS.every((t) => s.session.getActiveToolNames().includes(t));
const inPrompt = (s) => /^- mcp: MCP gateway/m.test(s.session.systemPrompt);

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
