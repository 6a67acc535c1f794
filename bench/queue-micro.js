#!/usr/bin/env node
// Before / after on the rate limiter alone: 1,000 calls queued on one account with one shared
// abort signal (what a burst into one node makes), then served one by one. CPU µs per queued call,
// the two builds alternating, min / median / max of 9 rounds. No network, no Node-RED: the
// difference is the limiter's own cost.
// Usage: node --expose-gc bench/queue-micro.js --base=<dir of the other build> [--after=<dir>]
"use strict";
const path = require("node:path");
const { collect, cpuMs, spread } = require("./lib/stats");

const args = process.argv.slice(2);
const arg = (name, fallback) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const builds = {
  before: path.resolve(arg("base", "")),
  after: path.resolve(arg("after", path.join(__dirname, ".."))),
};
const N = 1000;

async function once(RateLimiter) {
  const limiter = new RateLimiter({ perSecond: 0, concurrent: 16, queueMax: 100000 });
  const controller = new AbortController();
  require("node:events").setMaxListeners(0, controller.signal);
  collect();
  const cpu0 = process.cpuUsage();
  const calls = [];
  for (let i = 0; i < N; i++)
    calls.push(limiter.acquire(controller.signal).then((release) => release()));
  await Promise.all(calls);
  return (cpuMs(cpu0) * 1000) / N;
}

async function main() {
  const limiters = Object.fromEntries(
    Object.entries(builds).map(([k, dir]) => [
      k,
      require(path.join(dir, "dist/nodes/lib/api/rate-limiter.js")).RateLimiter,
    ]),
  );
  const results = { before: [], after: [] };
  for (const k of Object.keys(limiters)) for (let w = 0; w < 5; w++) await once(limiters[k]);
  for (let r = 0; r < 9; r++) {
    const order = r % 2 ? ["after", "before"] : ["before", "after"];
    for (const k of order) results[k].push(await once(limiters[k]));
  }
  for (const k of Object.keys(results)) {
    const s = spread(results[k], 2);
    process.stdout.write(`${k}: ${s.min} / ${s.median} / ${s.max} µs CPU per queued call\n`);
  }
}

main();
