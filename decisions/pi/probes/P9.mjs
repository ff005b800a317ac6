// P9: a project's `"defaultTools": []` does not turn the tools off when the user's settings
// name tools.
// The user's settings.json sets `defaultTools` to read, bash and grep; the project's
// .pi/settings.json sets it to an empty list, which pi's settings docs describe as disabling
// all built-in tools. A session is built from those two files (the project counts as trusted,
// as it does once the person has trusted it) and we list the tools it starts with.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgentSession, SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 leaves `defaultTools` out of the user's settings: the project's empty list
// then applies and no tool starts, so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const root = process.cwd();
const agentDir = join(root, "agent");
const project = join(root, "project");
mkdirSync(agentDir, { recursive: true });
mkdirSync(join(project, ".pi"), { recursive: true });
writeFileSync(join(agentDir, "settings.json"), JSON.stringify(COUNTER ? {} : { defaultTools: ["read", "bash", "grep"] }));
writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ defaultTools: [] }));

process.env.PI_OFFLINE = "1";
const settingsManager = SettingsManager.create(project, agentDir, { projectTrusted: true });
const { session } = await createAgentSession({
	cwd: project, agentDir, settingsManager, sessionManager: SessionManager.inMemory(project),
});
const active = session.getActiveToolNames();
session.dispose?.();

console.log(JSON.stringify({
	project_setting_read: Array.isArray(settingsManager.getProjectSettings().defaultTools),
	resolved_default_tools: (settingsManager.getDefaultTools() ?? []).join(","),
	active_tools: active.join(","),
	tool_count: active.length,
}));
