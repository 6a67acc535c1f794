#!/usr/bin/env node
// `npm test`: the build, then one parallel mocha pass over every spec but the e2e ones.
// `npm run test:e2e` (this script with --e2e): the build, then the e2e specs, in parallel but for
// the serial ones (the tarball, its install, the wall-clock harness and the first-command spec:
// SERIAL below). Chained with `&&`, a failure in a first pass hid the second, and
// nothing said it had not run (issue 37): each pass runs whatever the other did, and the end says
// what ran and how it ended.
// One spec alone: `npx mocha <file>` after `npm run build`.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const mocha = path.join(root, "node_modules", "mocha", "bin", "mocha.js");
/**
 * `npm run test:e2e`: what only real processes, real ports and a real browser show (issue 36): the
 * packed tarball and its install, `npm start`, the editor in Chromium, real `node-red` processes
 * stopped and killed, the fault harness on the wall clock and real sockets, the first commands'
 * timing. Everything else is `npm test`: unit specs, the simulation, and Node-RED in this process.
 */
const E2E = [
  // The longest first, so that mocha's workers start them first: the restart property waits out
  // real stops, crashes and request budgets (about 2 min, a tenth of a CPU).
  "test/fuzz/restarts.spec.js",
  "test/package/tarball.spec.js",
  "test/package/install.spec.js",
  "test/package/start.spec.js",
  "test/package/examples.spec.js",
  "test/package/*browser.spec.js",
  "test/fuzz/*.spec.js",
  "test/reliability/first-commands.spec.js",
  "test/reliability/fleet-restart.spec.js",
  "test/reliability/fleet-crash.spec.js",
  "test/reliability/memory.spec.js",
  "test/nodes/*-restart.spec.js",
  "test/simulator/cli.spec.js",
];
/**
 * Of those, one at a time: the ones whose bounds are the wall clock's (the harness and its found
 * schedules on real sockets, the first commands' timing), which a loaded parallel pass failed,
 * and the two that keep both CPUs busy with npm (the tarball and its installs). The restart
 * property and the differential check wait on real processes and sockets: in the parallel pass.
 */
const SERIAL = [
  "test/package/tarball.spec.js",
  "test/package/install.spec.js",
  "test/fuzz/harness.spec.js",
  "test/fuzz/regressions.spec.js",
  "test/reliability/first-commands.spec.js",
  // Its 16 clicks at a person's pace, with the tab refreshing under them, failed beside the
  // parallel pass's browsers once the editor's spec ran as three files ("click 16 of 16 did
  // nothing", clean-clone CI of bc6c0b8; a load of 5 did the same to the old layout).
  "test/package/sidebar-actions-browser.spec.js",
  // Its device picker's list waited past 60 s there too (clean-clone CI of e1a8f79).
  "test/package/fleet-browser.spec.js",
];

/**
 * The longest spec files of `npm test`, given to mocha's workers first: started last (test/sim
 * sorts after most folders), the simulated harness's files kept one worker busy for a minute
 * after the others had ended.
 */
const FIRST = [/^test\/sim\/harness-/];

/** A pattern of E2E as a regular expression: `*` is any part of one path segment. */
function patternOf(glob) {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\*/g, "[^/]*")}$`);
}

/** Every spec file under test/ but the e2e ones, the longest first, then by name. */
function unitSpecs() {
  const e2e = E2E.map(patternOf);
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith(".spec.js") && !e2e.some((re) => re.test(rel))) files.push(rel);
    }
  };
  walk("test");
  files.sort();
  const first = files.filter((f) => FIRST.some((re) => re.test(f)));
  return [...first, ...files.filter((f) => !first.includes(f))];
}

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
  const e2e = process.argv.includes("--e2e");
  const build = await run("build", process.execPath, [path.join(root, "scripts", "build.js")]);
  const passes = [build];
  if (build.status === 0 && !e2e) {
    passes.push(
      await run("parallel pass (every spec but the e2e ones)", process.execPath, [
        mocha,
        "--parallel",
        // Four workers on two CPUs: most node specs wait on sockets and timers, not the CPU. On an
        // idle 2-CPU machine the pass took 181 s with three (.mocharc.json, which the e2e pass
        // keeps for its browsers) and 162 s with four.
        "--jobs",
        "4",
        ...unitSpecs(),
      ]),
    );
  } else if (build.status === 0) {
    const ignores = SERIAL.flatMap((spec) => ["--ignore", spec]);
    const parallel = E2E.filter((spec) => !SERIAL.includes(spec));
    passes.push(
      await run("e2e parallel pass", process.execPath, [
        mocha,
        "--parallel",
        ...ignores,
        ...parallel,
      ]),
    );
    passes.push(
      await run(`e2e serial pass (${SERIAL.join(", ")})`, process.execPath, [mocha, ...SERIAL]),
    );
  }
  summarise(build, passes, e2e ? "npm run test:e2e" : "npm test");
}

function summarise(build, passes, what) {
  console.log(`\n${what}:`);
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
