// pi-web-access: loaded into pi, its tools are offered to the model, which can call them.
// The same session without it (the contrast) is offered none of them.
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { contrast } from "./_session.mjs";

const PACKAGE = "pi-web-access";
// The sandbox's `fetch` throws and cannot be replaced, and the extension replaces the global
// `fetch` with a wrapper that only matters with a proxy; it skips that when the global is marked
// as its own wrapper, so mark it (nothing here goes through a proxy, or the network).
globalThis.fetch.__piWebAccessProxyFetch = true;

const { plain, withIt } = await contrast(PACKAGE);
const offered = (s) => s.session.getActiveToolNames();

// The model calls one of the extension's tools; a stored-result lookup needs no network.
withIt.faux.setResponses([
	fauxAssistantMessage([fauxToolCall("get_search_content", { responseId: "none" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("done"),
]);
await withIt.session.prompt("look it up");
const results = withIt.session.messages.filter((m) => m.role === "toolResult");
const called = results.find((m) => m.toolName === "get_search_content");
const text = called ? called.content.map((c) => c.text ?? "").join(" ") : "";

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	offered_with: ["web_search", "fetch_content", "get_search_content"].every((t) => offered(withIt).includes(t)),
	offered_without: offered(plain).some((t) => ["web_search", "fetch_content", "get_search_content"].includes(t)),
	tool_ran: Boolean(called) && !/not found|unknown tool/i.test(text),
	tool_result: text.slice(0, 120),
}));
