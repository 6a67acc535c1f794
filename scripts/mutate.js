#!/usr/bin/env node
// `npm run mutate`: StrykerJS over the domain (stryker.config.json; docs/reliability.md,
// "Mutation testing"). Stryker 10, the release that takes mocha 12, refuses a Node older than 22,
// and the package supports Node 20: on an older Node this fetches Node 22 from the npm registry
// (the package `node` ships the binary, as .ci/compat uses it) into node_modules/.cache and puts
// it first on PATH, so Stryker, the build it runs in its sandbox and the specs all run on it.
// Arguments go to `stryker run`: `npm run mutate -- --incremental`.
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const stryker = path.join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
const NODE_MAJOR = 22;

/** A folder holding a Node of at least NODE_MAJOR, or undefined when this one is. */
function newerNodeBin() {
  if (Number(process.versions.node.split(".")[0]) >= NODE_MAJOR) return undefined;
  const dir = path.join(root, "node_modules", ".cache", `edgewire-node${NODE_MAJOR}`);
  const bin = path.join(dir, "node_modules", "node", "bin");
  if (!fs.existsSync(path.join(bin, "node"))) {
    console.log(
      `mutate: Node ${process.version} is older than ${NODE_MAJOR}; fetching node@${NODE_MAJOR}`,
    );
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), '{ "private": true }\n');
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    execFileSync(
      npm,
      ["install", "--no-audit", "--no-fund", "--loglevel=error", `node@${NODE_MAJOR}`],
      { cwd: dir, stdio: "inherit", shell: process.platform === "win32" },
    );
  }
  return bin;
}

const bin = newerNodeBin();
const env = { ...process.env };
if (bin) env.PATH = `${bin}${path.delimiter}${env.PATH}`;
const preload = `--require ${JSON.stringify(path.join(__dirname, "stryker-mocha12.js"))}`;
env.NODE_OPTIONS = env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ${preload}` : preload;
const node = bin ? path.join(bin, "node") : process.execPath;
const started = Date.now();
const child = spawn(node, [stryker, "run", ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: "inherit",
});
// Stopped by a signal (Ctrl-C reaches the whole group; a `kill` of this process does not),
// Stryker is told too, so that it ends its test runners and removes its sandboxes.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`mutate: ${code === 0 ? "done" : "FAILED"} in ${seconds} s`);
  process.exit(code ?? (signal ? 1 : 0));
});
