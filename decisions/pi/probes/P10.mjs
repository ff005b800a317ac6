// P10: an animated PNG reaches the model as its raw bytes in text, unless its animation chunk
// lies past the first 4,100 bytes; then it is sent as an image.
// Two valid two-frame animated PNGs are built; they differ only in the size of a text chunk
// placed before the animation chunk (`acTL`): 100 bytes in one, 5,000 in the other. The read
// tool, called as the model would call it, reads each; we record what it returns.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { createReadToolDefinition } from "@earendil-works/pi-coding-agent";

// PROBE_COUNTER=1 makes the second file's text chunk small too: pi then sees its animation
// chunk and both come back as text, so the probe must fail.
const COUNTER = process.env.PROBE_COUNTER === "1";

function chunk(type, data) {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body) >>> 0);
	return Buffer.concat([length, body, crc]);
}
const u32 = (...values) => Buffer.concat(values.map((value) => { const b = Buffer.alloc(4); b.writeUInt32BE(value); return b; }));

// A 1x1 RGB image with two frames; the text chunk comes before acTL, as PNG allows.
function animatedPng(textBytes) {
	const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	const pixels = deflateSync(Buffer.from([0, 255, 0, 0]));
	const frameControl = (sequence) =>
		chunk("fcTL", Buffer.concat([u32(sequence, 1, 1, 0, 0), Buffer.from([0, 1, 0, 10, 0, 0])]));
	return Buffer.concat([
		signature,
		chunk("IHDR", Buffer.concat([u32(1, 1), Buffer.from([8, 2, 0, 0, 0])])),
		chunk("tEXt", Buffer.concat([Buffer.from("Comment\0"), Buffer.alloc(textBytes, 0x61)])),
		chunk("acTL", u32(2, 0)),
		frameControl(0),
		chunk("IDAT", pixels),
		frameControl(1),
		chunk("fdAT", Buffer.concat([u32(2), pixels])),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

const cwd = process.cwd();
const tool = createReadToolDefinition(cwd);
async function readBack(name, textBytes) {
	const bytes = animatedPng(textBytes);
	writeFileSync(join(cwd, name), bytes);
	const result = await tool.execute("probe-read", { path: name });
	const text = result.content.find((block) => block.type === "text")?.text ?? "";
	return {
		acTL_offset: bytes.indexOf(Buffer.from("acTL")) - 4,
		sentAs: result.content.some((block) => block.type === "image") ? "image" : "text",
		rawBytesAsText: text.includes("IHDR"),
	};
}

const small = await readBack("small-chunk.png", 100);
const large = await readBack("large-chunk.png", COUNTER ? 100 : 5000);
console.log(JSON.stringify({
	small_chunk_acTL_offset: small.acTL_offset,
	small_chunk_sent_as: small.sentAs,
	small_chunk_raw_bytes_in_text: small.rawBytesAsText,
	large_chunk_acTL_offset: large.acTL_offset,
	large_chunk_sent_as: large.sentAs,
}));
