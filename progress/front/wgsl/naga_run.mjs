// progress's one caller of naga-wasm under Node (progress/front/wgsl/naga.py runs it).
// argv[2]: the folder holding node_modules/naga-wasm. Standard input: WGSL source (UTF-8).
// Exit 0: the SPIR-V words (naga's writer, debug names on) on standard output.
// Exit 1: naga refused the source: {"kind", "formatted"} as JSON on standard output.
// Any other failure: a message on standard error and another status.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const naga = await import(pathToFileURL(join(process.argv[2], "node_modules", "naga-wasm", "dist", "node.js")));
const source = readFileSync(0, "utf8");
let words;
try {
  const module = naga.parseWgsl(source);
  try {
    const info = naga.validate(module);
    try {
      words = naga.writeSpirv(module, info, { flags: { debug: true } });
    } finally {
      info.free();
    }
  } finally {
    module.free();
  }
} catch (error) {
  if (!(error instanceof naga.NagaError)) throw error;
  process.stdout.write(JSON.stringify({ kind: error.kind, formatted: error.formatted }));
  process.exitCode = 1;
}
if (words !== undefined) {
  process.stdout.write(Buffer.from(words.buffer, words.byteOffset, words.byteLength)); // pipes are synchronous on Linux
}
