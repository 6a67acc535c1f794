// Small numeric helpers and the description of the machine a result came from.
"use strict";
const os = require("node:os");

function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile, p in 0..100. */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank];
}

function median(values) {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function round(value, digits = 0) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** {min, median, max} of the runs' values, rounded: how every figure of the bench is given. */
function spread(values, digits = 0) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { min: null, median: null, max: null };
  return {
    min: round(Math.min(...finite), digits),
    median: round(median(finite), digits),
    max: round(Math.max(...finite), digits),
  };
}

/** CPU time (user + system) of this process since `since` (a process.cpuUsage()), in ms. */
function cpuMs(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** A full collection, so one run's garbage is not billed to the next. */
function collect() {
  if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
  global.gc();
  global.gc();
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    cpus: typeof os.availableParallelism === "function" ? os.availableParallelism() : cpus.length,
    memoryGB: round(os.totalmem() / 2 ** 30, 1),
    loadAverage: os.loadavg().map((l) => round(l, 2)),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    nodeRed: require("node-red/package.json").version,
    undici: require("undici/package.json").version,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { percentile, median, round, spread, cpuMs, collect, machine, sleep };
