// never ends, and leaves a detached child behind: both must be killed at the time limit
import { spawn } from "node:child_process";
spawn("sh", ["-c", "sleep 1000; echo decision-map-corpus-hang"], { detached: true, stdio: "ignore" }).unref();
setInterval(() => {}, 1000);
