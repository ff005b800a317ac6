// a child process writes outside the probe's folder: refused by the sandbox's read-only file system
import { execSync } from "node:child_process";
execSync("touch /usr/local/decision-map-probe-escaped-child");
console.log(JSON.stringify({ ran: true }));
