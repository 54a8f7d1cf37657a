// Validate glTF / GLB files with the Khronos glTF-Validator (npm `gltf-validator`).
//
// Install it next to this script (node_modules stays out of git):
//   npm install --prefix tools --no-save --no-package-lock gltf-validator@2.0.0-dev.3.10
// Usage:
//   node tools/gltf_validate.mjs FILE.glb [FILE2.gltf ...]
// Prints one JSON report per file on stdout (one line each: uri, validator
// version, issue counts and the issue messages). Exit code: 0 when no file
// has errors, 1 when some file has errors, 2 when the validator is missing,
// a file cannot be read or the arguments are wrong.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let validator;
try {
  validator = require("gltf-validator");
} catch {
  console.error("gltf-validator is not installed: run " +
    "npm install --prefix tools --no-save --no-package-lock gltf-validator@2.0.0-dev.3.10");
  process.exit(2);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node tools/gltf_validate.mjs FILE.glb [FILE ...]");
  process.exit(2);
}

let failed = false;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (err) {
    console.error(`${file}: cannot read: ${err.message}`);
    process.exit(2);
  }
  let report;
  try {
    report = await validator.validateBytes(bytes, { uri: file, maxIssues: 0, writeTimestamp: false });
  } catch (err) {
    // The validator rejects input it cannot even recognise as glTF.
    console.log(JSON.stringify({ uri: file, numErrors: 1, numWarnings: 0, numInfos: 0, numHints: 0,
      messages: [{ code: "UNRECOGNIZED", severity: 0, message: String(err) }] }));
    failed = true;
    continue;
  }
  const issues = report.issues;
  console.log(JSON.stringify({
    uri: file, validator: report.validatorVersion,
    numErrors: issues.numErrors, numWarnings: issues.numWarnings,
    numInfos: issues.numInfos, numHints: issues.numHints,
    messages: issues.messages,
  }));
  failed ||= issues.numErrors > 0;
}
process.exit(failed ? 1 : 0);
