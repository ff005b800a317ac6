// writes outside its own folder: refused by Node's permission model
import { writeFileSync } from "node:fs";
writeFileSync("/var/tmp/decision-map-probe-escaped", "pwned");
console.log(JSON.stringify({ ran: true }));
