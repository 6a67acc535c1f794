#!/usr/bin/env node
// Before / after: the command benchmark of one mode run alternately against another build of this
// package (a copy at --base, built, with node_modules) and this one, so that drift on a shared
// machine hits both. Each process pairs the node with the plain undici loop run by run; what is
// compared is that pairing (node / undici and the CPU the node adds per message), not raw msg/s.
// Usage: node bench/compare.js --base=/tmp/edgewire-before [--after=<dir>] [--mode=burst]
//        [--rounds=3]
"use strict";
const { fork } = require("node:child_process");
const path = require("node:path");
const { median, round } = require("./lib/stats");

const args = process.argv.slice(2);
const arg = (name, fallback) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const base = arg("base");
// Another copy to compare with, instead of this tree (so that building here cannot disturb a run).
const after = path.resolve(arg("after", path.join(__dirname, "..")));
const mode = arg("mode", "burst");
const rounds = Number(arg("rounds", "3"));
if (!base) throw new Error("--base=<dir of the build to compare with> is required");

function once(root) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "commands.js"), [`--only=${mode}`], {
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: { ...process.env, BENCH_PACKAGE_ROOT: root },
    });
    let result;
    child.on("message", (m) => (result = m.result));
    child.on("exit", (code) => {
      if (code !== 0 || !result) return reject(new Error(`commands.js exited with ${code}`));
      const m = result.modes[mode];
      const errors = m.peers.node.errors.max + m.peers.undici.errors.max;
      if (errors > 0) return reject(new Error(`${errors} messages failed: the run is not valid`));
      resolve({
        ratio: m.nodeVsUndici.median,
        cpuAdded: m.cpuAddedUsPerMsg.median,
        runs: m.runs,
        nodeCpu: m.peers.node.cpuUsPerMsg.median,
        undiciCpu: m.peers.undici.cpuUsPerMsg.median,
      });
    });
  });
}

async function main() {
  const results = { before: [], after: [] };
  for (let k = 0; k < rounds; k++) {
    const order = k % 2 === 0 ? ["before", "after"] : ["after", "before"];
    for (const which of order) {
      const r = await once(which === "before" ? path.resolve(base) : after);
      results[which].push(r);
      process.stderr.write(
        `${mode} ${which}: node/undici ${r.ratio}x, CPU ${r.nodeCpu} vs ${r.undiciCpu} µs/msg (+${r.cpuAdded})\n`,
      );
    }
  }
  const sum = (list, key) => {
    const v = list.map((r) => r[key]);
    return `${round(Math.min(...v), 2)} / ${round(median(v), 2)} / ${round(Math.max(...v), 2)}`;
  };
  for (const which of ["before", "after"]) {
    process.stdout.write(
      `${mode} ${which}: node/undici ${sum(results[which], "ratio")}x; CPU added ${sum(results[which], "cpuAdded")} µs/msg` +
        ` (min / median / max of ${rounds} processes' medians of ${results[which][0].runs} paired runs)\n`,
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
