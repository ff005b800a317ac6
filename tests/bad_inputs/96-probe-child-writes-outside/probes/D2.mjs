// a child process writes outside the probe's folder: refused by the read-only mount namespace
import { execSync } from "node:child_process";
execSync("touch /tmp/decision-map-probe-escaped-child");
console.log(JSON.stringify({ ran: true }));
