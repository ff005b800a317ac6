// A tiny agent session: the pinned source of the site tests' demo map.
import { Hooks, Reply, ToolCall, Verdict } from "./types";

export class Session {
	private approvals = new Map<string, boolean>();

	constructor(private hooks: Hooks) {}

	async beforeToolCall(call: ToolCall): Promise<Verdict | undefined> {
		if (!this.hooks.has("tool_call")) {
			return undefined;
		}
		return this.hooks.run("tool_call", call);
	}

	describe(): string {
		// ```` four backticks in a comment must not close the fence around this excerpt
		return "</details></article><script>window.__fromCode = 1</script>";
	}

	isDone(reply: Reply): boolean {
		return reply.toolCalls.length === 0;
	}
}
