// pi-mermaid: loaded into pi, a reply holding a mermaid block is followed by the extension's
// message, sent from its `agent_end` handler while the run is still active, which pi queues as
// steering: the run goes on and the model is asked once more. The same session without it (the
// contrast) ends the run at that reply.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { contrast } from "./_session.mjs";

const PACKAGE = "pi-mermaid";
const DIAGRAM = "Here is the flow:\n\n```mermaid\ngraph TD\n  A[start] --> B[end]\n```\n";

// The model answers with a diagram and no tool call; a second reply is there if it is asked again.
async function run(s) {
	s.faux.setResponses([fauxAssistantMessage(DIAGRAM), fauxAssistantMessage("second reply")]);
	await s.session.prompt("draw it");
	const messages = s.session.messages;
	return {
		replies: messages.filter((m) => m.role === "assistant").length,
		mermaid: messages.filter((m) => m.role === "custom" && m.customType === "pi-mermaid").length,
	};
}

const { plain, withIt } = await contrast(PACKAGE);
const ran = await run(withIt);
const ranPlain = await run(plain);

console.log(JSON.stringify({
	load_errors: withIt.errors.length,
	first_error: (withIt.errors[0] ?? "").slice(0, 300),
	mermaid_message: ran.mermaid > 0,
	replies_with: ran.replies,
	replies_without: ranPlain.replies,
}));
