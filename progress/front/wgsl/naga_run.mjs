// progress's one caller of naga-wasm under Node (progress/front/wgsl/naga.py runs it).
// argv[2]: the folder holding node_modules/naga-wasm. argv[3]: "wgsl" (the default) or "spirv".
// "wgsl": standard input is WGSL source (UTF-8); exit 0 with the SPIR-V words (naga's
// writer, debug names on) on standard output.
// "spirv": standard input is a SPIR-V binary; exit 0 with naga's WGSL on standard output.
// Exit 1: naga refused the input: {"kind", "formatted"} as JSON on standard output.
// Any other failure: a message on standard error and another status.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const naga = await import(pathToFileURL(join(process.argv[2], "node_modules", "naga-wasm", "dist", "node.js")));
const fromSpirv = process.argv[3] === "spirv";
const input = readFileSync(0);
let output;
try {
  const module = fromSpirv ? naga.parseSpirv(new Uint8Array(input)) : naga.parseWgsl(input.toString("utf8"));
  try {
    const info = naga.validate(module);
    try {
      output = fromSpirv ? Buffer.from(naga.writeWgsl(module, info), "utf8")
        : naga.writeSpirv(module, info, { flags: { debug: true } });
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
if (output !== undefined) {
  process.stdout.write(Buffer.from(output.buffer, output.byteOffset, output.byteLength)); // pipes are synchronous on Linux
}
