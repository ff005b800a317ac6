// A tiny agent session: the pinned source of the site tests' demo map.
import { Hooks, Reply, ToolCall, Verdict } from "./types";

export class Session {
	private approvals = new Map<string, boolean>();

	async beforeToolCall(call: ToolCall): Promise<Verdict | undefined> {
		if (!this.hooks.has("tool_call")) {
			return undefined;
		}
		return this.hooks.run("tool_call", call);
	}

	describe(): string {
		return "<b>" + this.name + "</b>";
	}

	isDone(reply: Reply): boolean {
		return reply.toolCalls.length === 0;
	}
}
