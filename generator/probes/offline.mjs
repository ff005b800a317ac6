// Loaded with `node --import` before every probe: every way out to the network throws.
// On Linux the probe also runs in a network namespace of its own, where nothing is reachable;
// this module is what still holds where that namespace cannot be made, and it fails loudly and
// at once, so a probe that tries the network is reported as such rather than as a slow timeout.
import { createRequire, syncBuiltinESMExports } from "node:module";

const require = createRequire(import.meta.url);
const MARK = "DECISION_MAP_PROBE_NETWORK";

function refuse(what) {
	return function blocked() {
		const error = new Error(`${MARK}: ${what} is blocked: probes run without the network`);
		error.code = "ERR_PROBE_NETWORK";
		throw error;
	};
}

const blocked = {
	net: ["connect", "createConnection", "createServer"],
	tls: ["connect", "createServer"],
	http: ["request", "get", "createServer"],
	https: ["request", "get", "createServer"],
	http2: ["connect", "createServer", "createSecureServer"],
	dgram: ["createSocket"],
	dns: ["lookup", "lookupService", "resolve", "resolve4", "resolve6", "resolveAny", "resolveCname",
		"resolveMx", "resolveNs", "resolveTxt", "resolveSrv", "reverse"],
};
for (const [name, functions] of Object.entries(blocked)) {
	const module = require(`node:${name}`);
	for (const fn of functions) {
		module[fn] = refuse(`${name}.${fn}`);
	}
}
const dnsPromises = require("node:dns").promises;
for (const fn of blocked.dns) {
	dnsPromises[fn] = refuse(`dns.promises.${fn}`);
}
const net = require("node:net");
net.Socket.prototype.connect = refuse("net.Socket.connect");
syncBuiltinESMExports();

for (const name of ["fetch", "WebSocket", "EventSource"]) {
	if (name in globalThis) {
		Object.defineProperty(globalThis, name, { value: refuse(name), writable: false, configurable: false });
	}
}
