// Material for MkDocs' own search, run outside the browser: the search worker the built site ships
// (lunr and Material's query handling, unchanged) is loaded in a Node context and sent the messages
// the page sends it. Reads {"worker": path, "index": path, "queries": [...]} on stdin; prints, per
// query, the result links in the order the page lists them (a page, then its sections).
import fs from "node:fs";
import vm from "node:vm";

const request = JSON.parse(fs.readFileSync(0, "utf8"));
const index = JSON.parse(fs.readFileSync(request.index, "utf8"));
let listener = null;
let answer = null;
const context = { console, setTimeout, clearTimeout, Promise, URL };
context.self = context;
context.addEventListener = (type, fn) => { if (type === "message") listener = fn; };
context.postMessage = (message) => { answer = message; };
vm.createContext(context);
vm.runInContext(fs.readFileSync(request.worker, "utf8"), context);

async function send(message) {
  answer = null;
  await listener({ data: message });
  return answer;
}

// Material's message types: 0 setup, 1 ready, 2 query, 3 result
const ready = await send({ type: 0, data: { config: index.config, docs: index.docs, options: { suggest: false } } });
if (!ready || ready.type !== 1) throw new Error("the search worker did not get ready");
const out = [];
for (const query of request.queries) {
  const result = await send({ type: 2, data: query });
  const links = [];
  for (const group of result.data.items) {
    // as the page renders a group: its article first, then its sections
    const article = group.findIndex(doc => !doc.location.includes("#"));
    links.push(group[article].location, ...group.filter((_, i) => i !== article).map(doc => doc.location));
  }
  out.push({ query, links });
}
process.stdout.write(JSON.stringify(out));
