// P13: a folder that held nothing needing trust when pi set up the session stays trusted for the
// run, so resources added to it later load on a reload with no question, and in interactive mode
// the reload saves the folder as trusted.
// Part 1 runs pi's own command line (`pi -p`) with the person's `defaultProjectTrust` set to
// `never`: a scripted model writes a project extension, and a command of a command-line extension
// then asks pi to reload, as an extension may in any mode. Part 2 runs the step interactive mode
// takes after `/reload` (it needs a terminal, so it is called with the state main.ts gives it),
// then asks pi's own trust check what the next start will decide for that folder.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// PROBE_COUNTER=1 starts every folder with a `.pi/settings.json`, so that trust is settled at
// setup (untrusted, by `never`): the added extension then does not load and nothing is saved, so
// the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const root = process.cwd();
const dist = dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
const EXTENSION = "import { writeFileSync } from 'node:fs';\n" +
	"export default function () { writeFileSync('project-extension-ran', ''); }\n";

// The scripted model writes the extension with pi's `write` tool; `/reload-now` asks pi to reload.
writeFileSync(join(root, "scripted-model.mjs"), `
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
export default function (pi) {
	const faux = fauxProvider();
	pi.registerProvider(faux.provider);
	faux.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path: ".pi/extensions/mark.js", content: ${JSON.stringify(EXTENSION)} })],
			{ stopReason: "toolUse" }),
		fauxAssistantMessage("written"),
	]);
	pi.registerCommand("reload-now", { description: "reload", handler: async (_args, ctx) => { await ctx.reload(); } });
}
`);

// A home whose settings say never to trust an undecided folder, and an empty project folder.
function setup(name, { settingsAtStart = COUNTER } = {}) {
	const home = join(root, name, "home");
	const agentDir = join(home, ".pi", "agent");
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "never" }));
	const folder = join(root, name, "project");
	mkdirSync(folder, { recursive: true });
	if (settingsAtStart) {
		mkdirSync(join(folder, ".pi"), { recursive: true });
		writeFileSync(join(folder, ".pi", "settings.json"), "{}\n");
	}
	return { home, agentDir, folder };
}

function pi(name, { flags = [], reload = true, settingsAtStart } = {}) {
	const { home, agentDir, folder } = setup(name, { settingsAtStart });
	const prompts = reload ? ["write an extension", "/reload-now"] : ["write an extension"];
	return new Promise((resolve) => {
		const model = ["-e", join(root, "scripted-model.mjs"), "--model", "faux/faux-1"];
		const child = spawn("pi", ["-p", "--no-session", ...flags, ...model, ...prompts], {
			cwd: folder, env: { ...process.env, HOME: home, PI_OFFLINE: "1" }, stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		child.stdout.resume();
		child.stderr.on("data", (d) => { stderr += d; });
		// Node's own warnings (the sandbox may add them) are not pi's output and are dropped.
		const nodeWarning = /^\(node:\d+\) \w*Warning|^\(Use `node --trace-warnings/;
		child.on("close", (code) => resolve({
			code, stderr: stderr.split("\n").filter((l) => !nodeWarning.test(l)).join("\n").trim(),
			written: existsSync(join(folder, ".pi", "extensions", "mark.js")),
			loaded: existsSync(join(folder, "project-extension-ran")),
			trustFile: existsSync(join(agentDir, "trust.json")),
		}));
	});
}

const [reloaded, notReloaded, settledAtStart, refused] = await Promise.all([
	pi("reloaded"),
	pi("not-reloaded", { reload: false }),
	pi("settled-at-start", { settingsAtStart: true }),
	pi("refused", { flags: ["--no-approve"] }),
]);

// Part 2: interactive mode's step after `/reload`, with the state main.ts gives it for this folder.
const { home, agentDir, folder } = setup("interactive");
process.env.HOME = home;
process.env.PI_CODING_AGENT_DIR = agentDir;
const { SettingsManager, ProjectTrustStore, hasTrustRequiringProjectResources } =
	await import("@earendil-works/pi-coding-agent");
// Not exported by the package: loaded from their files, as main.ts imports them.
const { resolveProjectTrusted } = await import(pathToFileURL(join(dist, "core", "project-trust.js")).href);
const { InteractiveMode } =
	await import(pathToFileURL(join(dist, "modes", "interactive", "interactive-mode.js")).href);
const store = new ProjectTrustStore(agentDir);
const settings = SettingsManager.create(folder, agentDir);
const decide = () => resolveProjectTrusted({
	cwd: folder, trustStore: store, defaultProjectTrust: settings.getDefaultProjectTrust(),
	projectTrustContext: { cwd: folder, mode: "print", hasUI: false, ui: {} },
});
// At setup, as main.ts: the folder is marked for saving on reload only when nothing in it needs
// trust; its trust state is then the one pi's trust check gives.
const autoTrustOnReloadCwd = hasTrustRequiringProjectResources(folder) ? undefined : folder;
const trustedAtSetup = await decide();
// During the run, the extension appears; then `/reload` keeps the trust state and runs this step.
mkdirSync(join(folder, ".pi", "extensions"), { recursive: true });
writeFileSync(join(folder, ".pi", "extensions", "mark.js"), EXTENSION);
const warnings = [];
const interactive = {
	sessionManager: { getCwd: () => folder },
	settingsManager: SettingsManager.create(folder, agentDir, { projectTrusted: trustedAtSetup }),
	runtimeHost: { services: { agentDir } },
	autoTrustOnReloadCwd,
	showWarning: (message) => warnings.push(message),
};
const saved = InteractiveMode.prototype.maybeSaveImplicitProjectTrustAfterReload.call(interactive);
const trustFile = join(agentDir, "trust.json");
// trust.json keys folders by their real path; the one entry for this folder is looked up by its end.
const savedAnswer = existsSync(trustFile)
	? Object.entries(JSON.parse(readFileSync(trustFile, "utf8"))).find(([key]) => key.endsWith(join("interactive", "project")))?.[1] ?? null
	: null;
const subfolder = join(folder, "src");
mkdirSync(subfolder, { recursive: true });

console.log(JSON.stringify({
	extension_written_by_model: reloaded.written,
	loaded_after_reload: reloaded.loaded,
	loaded_without_reload: notReloaded.loaded,
	loaded_after_reload_when_settings_at_start: settledAtStart.loaded,
	loaded_after_reload_with_no_approve: refused.loaded,
	print_mode_saved_trust: reloaded.trustFile,
	print_mode_exit: reloaded.code,
	print_mode_stderr: reloaded.stderr.slice(0, 80),
	interactive_trusted_at_setup: trustedAtSetup,
	interactive_reload_saved_trust: saved,
	trust_json_answer: savedAnswer,
	next_start_trusted_despite_never: await decide(),
	subfolder_trusted: store.get(subfolder),
	warnings: warnings.length,
}));
