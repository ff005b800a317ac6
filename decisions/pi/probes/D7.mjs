// D7: should this project folder be trusted to load its own settings, extensions, skills and
// MCP servers?
// Part 1 calls pi's own `resolveProjectTrusted` (what startup runs) for a folder with a
// `.pi/settings.json`, with a stand-in UI that records the question and gives a chosen answer.
// Part 2 runs `pi -p` in a folder with a project extension, to see print mode decide alone.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DefaultResourceLoader, ProjectTrustStore, SettingsManager } from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 sets the global `defaultProjectTrust` to `always`, which (as the answer says)
// answers every undecided folder without a prompt; the prompted cases must then fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

const dist = dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
// Not exported by the package: loaded from its file, as main.ts imports it.
const { resolveProjectTrusted } = await import(pathToFileURL(join(dist, "core", "project-trust.js")).href);

const root = process.cwd();
const project = join(root, "work", "project");
mkdirSync(join(project, ".pi"), { recursive: true });
writeFileSync(join(project, ".pi", "settings.json"), "{}\n");
const plain = join(root, "work", "plain");
mkdirSync(plain, { recursive: true });
const agentDir = join(root, "agent");

// One startup decision: `answer` is the label the person picks (undefined: the prompt is closed).
async function decide({ answer, hasUI = true, saved, trustOverride, defaultProjectTrust, extensions, cwd = project }) {
	rmSync(agentDir, { recursive: true, force: true });
	const store = new ProjectTrustStore(agentDir);
	if (saved !== undefined) store.set(cwd, saved);
	const asked = [];
	const ui = {
		select: async (title, options) => { asked.push({ title, options }); return answer; },
		confirm: async () => false, input: async () => undefined, notify() {},
	};
	const trusted = await resolveProjectTrusted({
		cwd, trustStore: store, trustOverride, extensionsResult: extensions,
		defaultProjectTrust: COUNTER ? "always" : defaultProjectTrust,
		projectTrustContext: { cwd, mode: hasUI ? "interactive" : "print", hasUI, ui },
	});
	return {
		trusted, asked: asked.length, question: asked[0], saved: store.get(cwd),
		parentSaved: store.get(dirname(cwd)), file: existsSync(join(agentDir, "trust.json")),
	};
}

async function extensionSaying(trusted, remember) {
	const settingsManager = SettingsManager.inMemory();
	const loader = new DefaultResourceLoader({ cwd: plain, agentDir, settingsManager, extensionFactories: [
		(pi) => pi.on("project_trust", async () => ({ trusted, remember })),
	] });
	await loader.reload();
	return loader.getExtensions();
}

const prompt = await decide({ answer: "Trust" });
const labels = prompt.question?.options.map((o) => o.replace(/ \(\/.*\)$/, "")) ?? [];
const sessionOnly = await decide({ answer: "Trust (this session only)" });
const refused = await decide({ answer: "Do not trust" });
const refusedOnce = await decide({ answer: "Do not trust (this session only)" });
const parent = await decide({ answer: prompt.question?.options[1] });
const closed = await decide({ answer: undefined });
const noUI = await decide({ hasUI: false });
const flagOverSaved = await decide({ trustOverride: true, saved: false });
const noFlagOverSaved = await decide({ trustOverride: false, saved: true });
const extensionOverSaved = await decide({ saved: false, extensions: await extensionSaying("yes", true) });
const savedOverDefault = await decide({ saved: true, defaultProjectTrust: "never" });
const always = await decide({ defaultProjectTrust: "always" });
const never = await decide({ defaultProjectTrust: "never" });
const nothingGated = await decide({ cwd: plain });

// Part 2: the real command line in print mode, no saved answer, with and without --approve.
// The project extension leaves a file behind when pi loads it, which only a trusted folder does.
// `pi` is the command the installed package names (its `bin`), found on PATH as a user's `pi` is.
mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
writeFileSync(join(project, ".pi", "extensions", "mark.js"),
	"import { writeFileSync } from 'node:fs';\n" +
	"export default function () { writeFileSync('project-extension-ran', ''); }\n");
writeFileSync(join(root, "scripted-model.mjs"), `
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
export default function (pi) {
	const faux = fauxProvider();
	pi.registerProvider(faux.provider);
	faux.setResponses([fauxAssistantMessage("ok")]);
}
`);
function printRun(name, flags) {
	const home = join(root, name);
	mkdirSync(home, { recursive: true });
	rmSync(join(project, "project-extension-ran"), { force: true });
	return new Promise((resolve) => {
		const model = ["-e", join(root, "scripted-model.mjs"), "--model", "faux/faux-1"];
		const args = ["-p", "--no-session", ...flags, ...model, "hi"];
		const child = spawn("pi", args, {
			cwd: project, env: { ...process.env, HOME: home, PI_OFFLINE: "1" }, stdio: ["ignore", "pipe", "pipe"],
		});
		child.stdout.resume();
		child.stderr.resume();
		child.on("close", (code) => resolve({ code, loaded: existsSync(join(project, "project-extension-ran")) }));
	});
}
const printPlain = await printRun("home-plain", []);
const printApproved = await printRun("home-approved", ["--approve"]);

console.log(JSON.stringify({
	prompt_asked: prompt.asked,
	prompt_names_folder: prompt.question?.title.includes(project) ?? false,
	prompt_options: labels.join("|"),
	// "saved": the answer is in trust.json afterwards; session-only answers leave no file at all.
	trust_saved: prompt.trusted && prompt.saved === true && prompt.file,
	session_only_trusted_unsaved: sessionOnly.trusted && sessionOnly.saved === null && !sessionOnly.file,
	do_not_trust_saved: !refused.trusted && refused.saved === false,
	do_not_trust_once_unsaved: !refusedOnce.trusted && refusedOnce.saved === null && !refusedOnce.file,
	parent_saved: parent.trusted && parent.parentSaved === true,
	closed_prompt_untrusted_unsaved: !closed.trusted && closed.saved === null && !closed.file,
	no_ui_trusted: noUI.trusted,
	no_ui_asked: noUI.asked,
	approve_over_saved_no: flagOverSaved.trusted && flagOverSaved.asked === 0,
	no_approve_over_saved_yes: !noFlagOverSaved.trusted && noFlagOverSaved.asked === 0,
	extension_over_saved_no:
		extensionOverSaved.trusted && extensionOverSaved.saved === true && extensionOverSaved.asked === 0,
	saved_over_default_never: savedOverDefault.trusted,
	default_always: always.trusted && always.asked === 0,
	default_never: !never.trusted && never.asked === 0,
	no_gated_resources_trusted_unasked: nothingGated.trusted && nothingGated.asked === 0,
	print_mode_loaded_project_extension: printPlain.loaded,
	print_mode_exit: printPlain.code,
	print_mode_with_approve_loaded_project_extension: printApproved.loaded,
}));
