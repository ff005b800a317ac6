// Shared by the extension probes (not a probe: its name starts with "_"; each probe that imports it
// runs with a copy beside it, and a change to it runs those probes again). It builds what each of
// them needs: a pi session on the scripted model, with or without the extension, which pi loads
// through DefaultResourceLoader from the install's node_modules, as it loads a user's extension.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

// PROBE_WITHOUT=1 leaves the extension out: the probe must then fail
export const WITHOUT = process.env.PROBE_WITHOUT === "1";

// One session in `cwd`, with settings and the session in memory. `extension` is a package name in
// node_modules (null: none); `create` and `bind` add to what createAgentSession and bindExtensions
// are given. `errors` are the extension's load errors, as text.
export async function openSession({
	cwd, agentDir = join(cwd, ".agent"), authPath = join(agentDir, "auth.json"), makeFolder = false,
	extension = null, faux = fauxProvider(), model = faux.getModel(), create = {}, bind = {},
}) {
	// (a folder is made only where the probe needs one on disk: the others ran without, and still do)
	if (makeFolder) mkdirSync(cwd, { recursive: true });
	const modelRuntime = await ModelRuntime.create({ authPath, modelsPath: null, refreshOnCreate: false });
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory();
	const resourceLoader = new DefaultResourceLoader({
		cwd, agentDir, settingsManager,
		additionalExtensionPaths: extension ? [join(process.cwd(), "node_modules", extension)] : [],
	});
	await resourceLoader.reload();
	const loaded = resourceLoader.getExtensions();
	const { session } = await createAgentSession({
		cwd, agentDir, modelRuntime, settingsManager, resourceLoader,
		model, sessionManager: SessionManager.inMemory(cwd), ...create,
	});
	await session.bindExtensions(bind);
	return { cwd, session, faux, errors: loaded.errors.map((e) => String(e.error)) };
}

// The contrast every extension probe draws: `plain`, a session in ./plain without the extension,
// then `withIt`, one in ./with that loads it (unless PROBE_WITHOUT=1). `more(cwd)` gives each
// session's other options.
export async function contrast(extension, more = () => ({})) {
	const inFolder = (name, loaded) => {
		const cwd = join(process.cwd(), name);
		return openSession({ cwd, ...more(cwd), extension: loaded ? extension : null });
	};
	const plain = await inFolder("plain", false);
	const withIt = await inFolder("with", !WITHOUT);
	return { plain, withIt };
}
