// P1: piped text and the first message are joined with nothing between them.
// Calls pi's own buildInitialMessage the way main.ts does for `echo hello | pi -p "Translate"`:
// the piped text arrives trimmed ("hello"), the message is the first command-line message.
import { buildInitialMessage } from "./node_modules/@earendil-works/pi-coding-agent/dist/cli/initial-message.js";

const piped = buildInitialMessage({ parsed: { messages: ["Translate"] }, stdinContent: "hello" });
// With an @file block between them, the file's own closing line break separates the message.
const withFile = buildInitialMessage({
	parsed: { messages: ["Translate"] },
	stdinContent: "hello",
	fileText: '<file name="a.txt">\nbody\n</file>\n',
});

console.log(JSON.stringify({
	message: piped.initialMessage,
	joined_without_separator: piped.initialMessage === "helloTranslate",
	message_after_file_starts_on_new_line: withFile.initialMessage.endsWith("</file>\nTranslate"),
}));
