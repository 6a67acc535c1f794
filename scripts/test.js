#!/usr/bin/env node
// `npm test`: the build, then the two mocha passes, the parallel one and the serial one (the
// tarball, the fault harness and the first-command spec, which a loaded parallel pass failed).
// Chained with `&&`, a failure in the first pass hid the second, and nothing said it had not run
// (issue 37): each pass runs whatever the other did, and the end says what ran and how it ended.
// One spec alone: `npx mocha <file>` after `npm run build`.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const mocha = path.join(root, "node_modules", "mocha", "bin", "mocha.js");
const SERIAL = [
  "test/package/tarball.spec.js",
  "test/fuzz/*.spec.js",
  "test/reliability/first-commands.spec.js",
];

/** Runs a command with this process's output and environment (c8's coverage variable too). */
function run(what, command, args) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  const seconds = Math.round((Date.now() - started) / 1000);
  const status = result.status ?? 1;
  return { what, status, seconds, signal: result.signal };
}

const build = run("build", process.execPath, [path.join(root, "scripts", "build.js")]);
const passes = [build];
if (build.status === 0) {
  const ignores = SERIAL.flatMap((spec) => ["--ignore", spec]);
  passes.push(
    run("parallel pass (every spec but the serial ones)", process.execPath, [
      mocha,
      "--parallel",
      ...ignores,
      "test/**/*.spec.js",
    ]),
    run(`serial pass (${SERIAL.join(", ")})`, process.execPath, [mocha, ...SERIAL]),
  );
}

console.log("\nnpm test:");
for (const p of passes) {
  const how = p.status === 0 ? "passed" : `FAILED (exit ${p.signal ?? p.status})`;
  console.log(`  ${p.what}: ${how} in ${p.seconds} s`);
}
if (build.status !== 0) console.log("  the mocha passes did not run: the build failed");
process.exitCode = passes.some((p) => p.status !== 0) ? 1 : 0;
