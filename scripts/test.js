#!/usr/bin/env node
// `npm test`: the build, then the two mocha passes, the parallel one and the serial one (the
// tarball, the install, the fault harness and the first-command spec, which a loaded parallel
// pass failed).
// Chained with `&&`, a failure in the first pass hid the second, and nothing said it had not run
// (issue 37): each pass runs whatever the other did, and the end says what ran and how it ended.
// One spec alone: `npx mocha <file>` after `npm run build`.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const mocha = path.join(root, "node_modules", "mocha", "bin", "mocha.js");
const SERIAL = [
  "test/package/tarball.spec.js",
  // Two `npm install`s of the whole package in real child processes: beside a loaded parallel
  // pass one outlasted its 10 min (issue 36), and it was the pass's longest file by far.
  "test/package/install.spec.js",
  "test/fuzz/*.spec.js",
  "test/reliability/first-commands.spec.js",
];

/**
 * Runs a command with this process's environment (c8's coverage variable too), its output passed on
 * as it comes and kept, so that the end can repeat the failures: CI shows only an output's tail, and
 * a failure printed minutes before the summary was cut off there.
 */
function run(what, command, args) {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: root,
    stdio: ["inherit", "pipe", "inherit"],
    // Mocha writes to a pipe here: FORCE_COLOR keeps its colours where the terminal had them.
    env: { ...process.env, ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}) },
  });
  const chunks = [];
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    chunks.push(chunk);
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const failures = failuresOf(Buffer.concat(chunks).toString());
      resolve({ what, status: code ?? 1, seconds, signal, failures });
    });
  });
}

/** Mocha's failure list (from "N failing" on), without colours, at most 6,000 characters. */
function failuresOf(out) {
  // eslint-disable-next-line no-control-regex
  const plain = out.replace(/\u001b\[[0-9;]*m/g, "");
  const at = plain.search(/^\s*\d+ failing\s*$/m);
  if (at < 0) return "";
  const list = plain.slice(at).trimEnd();
  return list.length > 6000 ? `${list.slice(0, 6000)}\n  (cut at 6,000 characters)` : list;
}

async function main() {
  const build = await run("build", process.execPath, [path.join(root, "scripts", "build.js")]);
  const passes = [build];
  if (build.status === 0) {
    const ignores = SERIAL.flatMap((spec) => ["--ignore", spec]);
    passes.push(
      await run("parallel pass (every spec but the serial ones)", process.execPath, [
        mocha,
        "--parallel",
        ...ignores,
        "test/**/*.spec.js",
      ]),
    );
    passes.push(
      await run(`serial pass (${SERIAL.join(", ")})`, process.execPath, [mocha, ...SERIAL]),
    );
  }
  summarise(build, passes);
}

function summarise(build, passes) {
  console.log("\nnpm test:");
  for (const p of passes) {
    const how = p.status === 0 ? "passed" : `FAILED (exit ${p.signal ?? p.status})`;
    console.log(`  ${p.what}: ${how} in ${p.seconds} s`);
  }
  for (const p of passes.filter((p) => p.failures))
    console.log(`\n${p.what}, again:\n${p.failures}`);
  if (build.status !== 0) console.log("  the mocha passes did not run: the build failed");
  process.exitCode = passes.some((p) => p.status !== 0) ? 1 : 0;
}

main();
