#!/usr/bin/env node
// npm run bench: every section in its own process (the simulator in yet another), then one report
// on stdout and the same figures in bench/results/latest.json. Each section module exports
// measure() (run in the child), report(result) (lines of text) and targets(result, add).
// Options: --quick (fewer messages and runs, to try the harness), --only=commands,fleet,...
// (a section, or a mode within one: --only=commands:burst).
"use strict";
const { fork } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { machine } = require("./lib/stats");
const { table } = require("./lib/format");

const SECTIONS = ["commands", "waiting", "latency", "watching", "reading", "load", "fleet"];
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = onlyArg ? onlyArg.slice(7).split(",") : SECTIONS;

function runSection(name) {
  const modes = only.filter((o) => o.startsWith(`${name}:`)).map((o) => o.slice(name.length + 1));
  const childArgs = [...(quick ? ["--quick"] : []), ...(modes.length ? [`--only=${modes}`] : [])];
  return new Promise((resolve, reject) => {
    process.stderr.write(`${name}...\n`);
    const started = Date.now();
    const child = fork(path.join(__dirname, `${name}.js`), childArgs, {
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    let result;
    child.on("message", (m) => {
      if (m && m.section === name) result = m.result;
    });
    child.on("exit", (code) => {
      process.stderr.write(`${name}: ${Math.round((Date.now() - started) / 1000)} s\n`);
      if (code === 0 && result) resolve(result);
      else reject(new Error(`${name} exited with ${code}`));
    });
  });
}

async function main() {
  const m = machine();
  const results = {};
  const lines = [
    `Machine: ${m.cpu}, ${m.cpus} CPUs, ${m.memoryGB} GB, ${m.os}, load average ${m.loadAverage.join(" ")}`,
    `Node ${m.node}, Node-RED ${m.nodeRed}, undici ${m.undici}`,
  ];
  const checks = [];
  const add = (name, value, target, met) => checks.push({ name, value, target, met });
  for (const name of SECTIONS) {
    if (!only.some((o) => o === name || o.startsWith(`${name}:`))) continue;
    try {
      results[name] = await runSection(name);
    } catch (err) {
      // One failed section costs its own figures, not the others'.
      results[name] = { error: err.message };
      lines.push("", `${name}: FAILED (${err.message}; its error is above)`);
      add(`${name}: the section ran`, "failed", "ran", false);
      continue;
    }
    const section = require(`./${name}`);
    lines.push("", ...section.report(results[name]));
    section.targets(results[name], add);
  }
  lines.push("", "Targets:");
  lines.push(
    table([
      ["", "measured", "target", ""],
      ...checks.map((t) => [t.name, t.value, t.target, t.met ? "met" : "MISSED"]),
    ]),
  );
  process.stdout.write(`\n${lines.join("\n")}\n`);
  const file = path.join(__dirname, "results", "latest.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const command = `npm run bench${args.length ? ` -- ${args.join(" ")}` : ""}`;
  const json = {
    date: new Date().toISOString(),
    command,
    quick,
    machine: m,
    results,
    targets: checks,
  };
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`\nJSON: ${path.relative(process.cwd(), file)}\n`);
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack}\n`);
  process.exit(1);
});
