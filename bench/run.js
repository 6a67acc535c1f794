#!/usr/bin/env node
// npm run bench: every section in its own process (the simulator in yet another), then one table
// on stdout and the same figures in bench/results/latest.json.
// Options: --quick (fewer messages and runs, to try the harness), --only=commands,waiting,...
"use strict";
const { fork } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { machine } = require("./lib/stats");

const SECTIONS = ["commands", "waiting", "watching", "reading", "load"];
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = onlyArg ? onlyArg.slice(7).split(",") : SECTIONS;

function runSection(name) {
  return new Promise((resolve, reject) => {
    process.stderr.write(`${name}...\n`);
    const child = fork(path.join(__dirname, `${name}.js`), quick ? ["--quick"] : [], {
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    let result;
    child.on("message", (m) => {
      if (m && m.section === name) result = m.result;
    });
    child.on("exit", (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`${name} exited with ${code}`));
    });
  });
}

const fmt = (n, d = 0) =>
  typeof n === "number" && Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d })
    : "-";

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
        .join("  "),
    )
    .join("\n");
}

function targets(r) {
  const out = [];
  const add = (name, value, goal, met) => out.push({ name, value, target: goal, met });
  if (r.commands) {
    const c = r.commands.ratios;
    add(
      "Commands: node vs plain undici",
      `${fmt(c.nodeVsUndici, 2)}x`,
      ">= 0.85x",
      c.nodeVsUndici >= 0.85,
    );
    add(
      "Commands: node vs hand-built flow",
      `${fmt(c.nodeVsHandBuilt, 2)}x`,
      ">= 1.5x",
      c.nodeVsHandBuilt >= 1.5,
    );
  }
  if (r.waiting) {
    const w = r.waiting;
    const perDev = w.inboxRequestsPerDevicePerInterval.max;
    add("Waiting: inbox requests per device per interval", fmt(perDev, 2), "<= 1", perDev <= 1.05);
    add(
      "Waiting: heap per pending await",
      `${fmt(w.heapBytesPerWait)} B`,
      "< 2048 B",
      w.heapBytesPerWait < 2048,
    );
    const limit = w.intervalMs + 50;
    add(
      "Waiting: marker to output (max)",
      `${fmt(w.markerToOutputMs.max)} ms`,
      `<= ${limit} ms`,
      w.markerToOutputMs.max <= limit,
    );
  }
  if (r.watching) {
    const w = r.watching;
    const reads = w.readsPerStreamPerInterval;
    add(
      "Watching: reads per stream per interval (max over runs)",
      fmt(reads.max, 2),
      "<= 1 (one per stream)",
      reads.max <= 1.05,
    );
    const limit = w.intervalMs + 50;
    add(
      "Watching: event to message p99 (max over runs)",
      `${fmt(w.latencyP99Ms.max)} ms`,
      `<= ${limit} ms`,
      w.latencyP99Ms.max <= limit,
    );
    add(
      "Watching: duplicates / missing messages",
      `${w.duplicates} / ${w.missing}`,
      "0 / 0",
      w.duplicates === 0 && w.missing === 0,
    );
  }
  if (r.reading) {
    const [small, large] = r.reading.sizes;
    const a = r.reading.modes[`split-${small}`].liveHeapDuringMB;
    const b = r.reading.modes[`split-${large}`].liveHeapDuringMB;
    add(
      `Reading: split live heap, ${fmt(small)} vs ${fmt(large)} events`,
      `${fmt(a, 1)} / ${fmt(b, 1)} MB`,
      "flat (within 1 MB)",
      Math.abs(b - a) <= 1,
    );
  }
  if (r.load) {
    const l = r.load;
    add(
      "Load: require + register + first account",
      `${fmt(l.totalMs, 1)} ms`,
      "< 100 ms",
      l.totalMs < 100,
    );
  }
  return out;
}

function report(m, r, checks) {
  const lines = [];
  lines.push(`Machine: ${m.cpu}, ${m.cpus} CPUs, ${m.memoryGB} GB, ${m.os}`);
  lines.push(`Node ${m.node}, Node-RED ${m.nodeRed}, undici ${m.undici}`);
  if (r.commands) {
    const c = r.commands;
    lines.push(
      "",
      `Commands: ${fmt(c.messages)} messages, ${c.concurrency} in flight, medians of ${c.runs} runs`,
    );
    const row = (label, v) => [
      label,
      fmt(v.msgPerSec),
      fmt(v.p50Ms, 2),
      fmt(v.p99Ms, 2),
      fmt(v.cpuUsPerMsg, 1),
      fmt(v.errors),
    ];
    lines.push(
      table([
        ["variant", "msg/s", "p50 ms", "p99 ms", "CPU µs/msg", "errors"],
        row("edge-send-command", c.medians.node),
        row("hand-built (function + http request)", c.medians.handBuilt),
        row("plain undici loop", c.medians.undici),
      ]),
    );
    lines.push(
      `ratios: node/undici ${fmt(c.ratios.nodeVsUndici, 2)}x, node/hand-built ${fmt(c.ratios.nodeVsHandBuilt, 2)}x`,
    );
  }
  if (r.waiting) {
    const w = r.waiting;
    lines.push(
      "",
      `Waiting: ${fmt(w.waits)} awaits over ${w.devices} devices, poll interval ${w.intervalMs} ms`,
    );
    lines.push(
      table([
        ["measure", "value"],
        [
          "inbox requests per device per interval (median / max)",
          `${fmt(w.inboxRequestsPerDevicePerInterval.median, 2)} / ${fmt(w.inboxRequestsPerDevicePerInterval.max, 2)}`,
        ],
        ["heap per pending await", `${fmt(w.heapBytesPerWait)} B`],
        [
          "marker to output p50 / p99 / max",
          `${fmt(w.markerToOutputMs.p50)} / ${fmt(w.markerToOutputMs.p99)} / ${fmt(w.markerToOutputMs.max)} ms`,
        ],
      ]),
    );
  }
  if (r.watching) {
    const w = r.watching;
    lines.push(
      "",
      `Watching: ${w.watches} edge-watch-events nodes on ${w.streams} streams, interval ${w.intervalMs} ms, ${fmt(w.events)} events per run; min / median / max of ${w.runs} runs`,
    );
    const mmm = (v, d = 0, unit = "") =>
      `${fmt(v.min, d)} / ${fmt(v.median, d)} / ${fmt(v.max, d)}${unit}`;
    lines.push(
      table([
        ["measure", "min / median / max"],
        ["reads per stream per interval, events arriving", mmm(w.readsPerStreamPerInterval, 2)],
        ["reads per stream per interval, quiet", mmm(w.quietReadsPerStreamPerInterval, 2)],
        ["reads per second (page 0)", mmm(w.readsPerSec, 1)],
        ["requests per second (all pages)", mmm(w.requestsPerSec, 1)],
        ["runtime CPU per read, quiet", mmm(w.cpuUsPerRead, 0, " µs")],
        ["event creation to message p50", mmm(w.latencyP50Ms, 0, " ms")],
        ["event creation to message p99", mmm(w.latencyP99Ms, 0, " ms")],
        ["event creation to message max", mmm(w.latencyMaxMs, 0, " ms")],
        ["heap per watch node", mmm(w.heapBytesPerWatch, 0, " B")],
        ["heap per inactive debug node (reference)", mmm(w.heapBytesPerDebugNode, 0, " B")],
        ["duplicates / missing messages", `${w.duplicates} / ${w.missing}`],
      ]),
    );
  }
  if (r.reading) {
    const rd = r.reading;
    lines.push(
      "",
      `Reading: edge-list-events, pages of ${fmt(rd.pageSize)}, medians of ${rd.runs} runs`,
    );
    const rows = [["mode", "events", "events/s", "peak heap MB", "live heap MB", "peak RSS MB"]];
    for (const v of Object.values(rd.modes)) {
      rows.push([
        v.mode,
        fmt(v.events),
        fmt(v.eventsPerSec),
        fmt(v.peakHeapAboveBaseMB, 1),
        v.liveHeapDuringMB === null ? "-" : fmt(v.liveHeapDuringMB, 1),
        fmt(v.peakRssMB),
      ]);
    }
    lines.push(table(rows));
  }
  if (r.load) {
    const l = r.load;
    lines.push("", `Load: medians of ${l.runs} runs`);
    lines.push(
      table([
        ["measure", "ms"],
        ["require the five nodes", fmt(l.requireMs, 1)],
        ["register them in the runtime", fmt(l.registerMs, 1)],
        ["first account's client (loads undici)", fmt(l.firstAccountMs, 1)],
        [
          "Node-RED start to 'Started flows', without / with",
          `${fmt(l.startWithoutMs)} / ${fmt(l.startWithMs)}`,
        ],
        ["difference (start-up noise is larger)", fmt(l.startAddedMs)],
      ]),
    );
  }
  lines.push("", "Targets:");
  lines.push(
    table([
      ["", "measured", "target", ""],
      ...checks.map((t) => [t.name, t.value, t.target, t.met ? "met" : "MISSED"]),
    ]),
  );
  return lines.join("\n");
}

async function main() {
  const m = machine();
  const results = {};
  for (const name of SECTIONS) if (only.includes(name)) results[name] = await runSection(name);
  const checks = targets(results);
  const text = report(m, results, checks);
  process.stdout.write(`\n${text}\n`);
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
