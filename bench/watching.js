// Watching: 200 edge-watch-events nodes on 100 streams (two per stream), 1 s interval, against the
// simulator in its own process. Per run: reads per stream per interval (page-0 requests from the
// simulator's request log; the shared watcher must make one per stream, not one per node), all
// requests per second, the runtime's CPU time per read, the delay from each event's creationDate
// to each node's message while events arrive at an even pace on every stream, every event
// delivered exactly once to both nodes, and the heap each watch node holds.
"use strict";
const { performance } = require("node:perf_hooks");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode } = require("./lib/node-red");
const { median, percentile, round, sleep } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");
const { fmt, mmm, table } = require("./lib/format");
const { plainQuietReads } = require("./lib/plain-reads");

const STREAMS = 100;
const PER_STREAM = 2;
const INTERVAL_MS = 1000;
const RUNS = 3;
const EVENTS = 2000;
const SPREAD_MS = 10_000;
const QUIET_MS = 5000;

/**
 * Reads per stream per interval from the simulator's log: per stream, the page-0 requests over
 * the time between its first and last one (window edges would cut whole rounds of reads, since
 * the streams' reads start together), averaged over the streams.
 */
function readsPerInterval(log, t0, t1) {
  const byStream = new Map();
  for (const r of log) {
    if (r.method !== "GET" || r.time < t0 || r.time > t1 || !/[?&]start=0(&|$)/.test(r.url))
      continue;
    const key = r.url.replace(/[?&](start|limit)=\d+/g, "");
    const times = byStream.get(key) ?? [];
    times.push(r.time);
    byStream.set(key, times);
  }
  const rates = [...byStream.values()]
    .filter((t) => t.length > 1)
    .map((t) => ((t.length - 1) * INTERVAL_MS) / (t.at(-1) - t[0]));
  if (byStream.size !== STREAMS) throw new Error(`${byStream.size} streams read, not ${STREAMS}`);
  return rates.reduce((a, b) => a + b, 0) / rates.length;
}

function gcHeap() {
  if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
  for (let i = 0; i < 3; i++) global.gc();
  return process.memoryUsage().heapUsed;
}

/** The account with the poll lane's default 100 reads/s: exactly what 100 streams at 1 s need. */
function flows(sim, streams, watches) {
  const nodes = [
    { id: "tab", type: "tab", label: "watching" },
    accountNode(sim, "acc"),
    sinkNode("sink", "tab"),
  ];
  if (!watches) return nodes;
  streams.forEach((s, i) => {
    for (let k = 0; k < PER_STREAM; k++)
      nodes.push({
        id: `w${i}-${k}`,
        z: "tab",
        type: "edge-watch-events",
        account: "acc",
        stream: i % 2 === 0 ? s.path : s.id,
        interval: String(INTERVAL_MS),
        start: "new",
        last: "10",
        store: "",
        wires: [["sink"]],
      });
  });
  return nodes;
}

async function once(sim, red, run, quick) {
  const events = quick ? 400 : EVENTS;
  const spreadMs = quick ? 4000 : SPREAD_MS;
  const streams = [];
  for (let i = 0; i < STREAMS; i++) {
    const s = await sim.control("POST", "/streams", { path: `/${sim.company}/bench-${run}-${i}` });
    await sim.control("POST", "/events", { streamId: s.id, elems: { seed: true }, count: 20 });
    streams.push(s);
  }

  // Heap: the same flow without and with the 200 watch nodes, after they all made a first read;
  // and with 200 inactive debug nodes instead, for what any Node-RED node costs.
  await red.deploy(flows(sim, streams, false));
  await sleep(200);
  const before = gcHeap();
  const plain = flows(sim, streams, false);
  for (let i = 0; i < STREAMS * PER_STREAM; i++) plain.push(sinkNode(`d${i}`, "tab"));
  await red.deploy(plain);
  await sleep(200);
  const nodeBytes = (gcHeap() - before) / (STREAMS * PER_STREAM);
  await red.deploy(flows(sim, streams, false));
  await sleep(200);
  const before2 = gcHeap();
  await red.deploy(flows(sim, streams, true));
  const watcher = red.getNode("acc").services.watcher;
  const startDeadline = Date.now() + 30_000;
  while (watcher.size !== STREAMS || watcher.reads < STREAMS) {
    if (Date.now() > startDeadline) throw new Error(`${watcher.size} streams watched`);
    await sleep(50);
  }
  await sleep(INTERVAL_MS);
  const heapPerWatch = (gcHeap() - before2) / (STREAMS * PER_STREAM);

  // Quiet: nothing new on any stream, so the CPU time is the reads' own.
  await sim.control("DELETE", "/requests");
  const q0 = Date.now();
  const cpuQ = process.cpuUsage();
  const readsQ = watcher.reads;
  await sleep(QUIET_MS);
  const cpuQuiet = process.cpuUsage(cpuQ);
  const quietReads = watcher.reads - readsQ;
  const q1 = Date.now();
  const quietLog = await sim.control("GET", "/requests?limit=10000");
  const quietPerInterval = readsPerInterval(quietLog, q0, q1);
  // The peer's requests: the very GETs the watches made while quiet (made once the watches are
  // gone, below).
  const quietUrls = [
    ...new Set(
      quietLog
        .filter((r) => r.method === "GET" && r.time >= q0 && r.time <= q1)
        .filter((r) => /[?&]start=0(&|$)/.test(r.url))
        .map((r) => r.url),
    ),
  ];

  // Events at an even pace, round robin over the streams; every node's message is timed.
  const latencies = [];
  const seen = new Map();
  let duplicates = 0;
  const sink = red.getNode("sink");
  const onInput = (msg, _send, done) => {
    latencies.push(Date.now() - msg.payload.creationDate);
    const key = `${msg.eventId}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > PER_STREAM) duplicates++;
    done?.();
  };
  sink.on("input", onInput);
  await sim.control("DELETE", "/requests");
  const t0 = Date.now();
  const started = performance.now();
  for (let i = 0; i < events; i++) {
    const wait = (i * spreadMs) / events - (performance.now() - started);
    if (wait > 1) await sleep(wait);
    await sim.control("POST", "/events", {
      streamId: streams[i % STREAMS].id,
      elems: { value: i },
    });
  }
  const t1 = Date.now();
  const log = await sim.control("GET", "/requests?limit=10000");
  const deadline = Date.now() + 5 * INTERVAL_MS;
  while (latencies.length < events * PER_STREAM && Date.now() < deadline) await sleep(50);
  sink.removeListener("input", onInput);

  const inWindow = log.filter((r) => r.method === "GET" && r.time >= t0 && r.time <= t1);
  const pageZero = inWindow.filter((r) => /[?&]start=0(&|$)/.test(r.url)).length;
  const seconds = (t1 - t0) / 1000;
  const missing = events * PER_STREAM - latencies.length + duplicates;
  // The peer of the quiet read, in this process with the watches removed: plain undici making the
  // same GETs at the same pace. A quiet read cannot cost less than its request.
  await red.deploy(flows(sim, streams, false));
  const peer = await plainQuietReads(sim, quietUrls, { intervalMs: INTERVAL_MS, ms: QUIET_MS });
  const result = {
    readsPerStreamPerInterval: readsPerInterval(log, t0, t1),
    quietReadsPerStreamPerInterval: quietPerInterval,
    readsPerSec: pageZero / seconds,
    requestsPerSec: inWindow.length / seconds,
    cpuUsPerRead: (cpuQuiet.user + cpuQuiet.system) / quietReads,
    plainCpuUsPerRead: peer.cpuUsPerRead,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    latencyMaxMs: Math.max(...latencies),
    heapBytesPerWatch: heapPerWatch,
    heapBytesPerDebugNode: nodeBytes,
    messages: latencies.length,
    duplicates,
    missing,
  };
  progress(
    `watching run ${run + 1}: ${round(result.readsPerStreamPerInterval, 2)} reads/stream/interval, ` +
      `${round(result.cpuUsPerRead)} µs CPU/read, p99 ${round(result.latencyP99Ms)} ms, ` +
      `${round(heapPerWatch)} B/watch (${round(nodeBytes)} B/debug node), ` +
      `${result.messages} messages, ${duplicates} duplicates, ${missing} missing`,
  );
  return result;
}

const spread = (values, digits = 0) => ({
  min: round(Math.min(...values), digits),
  median: round(median(values), digits),
  max: round(Math.max(...values), digits),
});

async function measure({ quick }) {
  const runs = quick ? 1 : RUNS;
  const sim = await startSimulator();
  const red = await startRuntime();
  try {
    const results = [];
    for (let run = 0; run < runs; run++) results.push(await once(sim, red, run, quick));
    const pick = (k) => results.map((r) => r[k]);
    return {
      streams: STREAMS,
      watches: STREAMS * PER_STREAM,
      intervalMs: INTERVAL_MS,
      events: quick ? 400 : EVENTS,
      runs,
      readsPerStreamPerInterval: spread(pick("readsPerStreamPerInterval"), 2),
      quietReadsPerStreamPerInterval: spread(pick("quietReadsPerStreamPerInterval"), 2),
      readsPerSec: spread(pick("readsPerSec"), 1),
      requestsPerSec: spread(pick("requestsPerSec"), 1),
      cpuUsPerRead: spread(pick("cpuUsPerRead")),
      plainCpuUsPerRead: spread(pick("plainCpuUsPerRead")),
      latencyP50Ms: spread(pick("latencyP50Ms")),
      latencyP99Ms: spread(pick("latencyP99Ms")),
      latencyMaxMs: spread(pick("latencyMaxMs")),
      heapBytesPerWatch: spread(pick("heapBytesPerWatch")),
      heapBytesPerDebugNode: spread(pick("heapBytesPerDebugNode")),
      duplicates: Math.max(...pick("duplicates")),
      missing: Math.max(...pick("missing")),
    };
  } finally {
    await red.stop();
    await sim.stop();
  }
}

function report(w) {
  return [
    `Watching: ${w.watches} edge-watch-events nodes on ${w.streams} streams, interval ${w.intervalMs} ms, ${fmt(w.events)} events per run; min / median / max of ${w.runs} runs`,
    table([
      ["measure", "min / median / max"],
      ["reads per stream per interval, events arriving", mmm(w.readsPerStreamPerInterval, 2)],
      ["reads per stream per interval, quiet", mmm(w.quietReadsPerStreamPerInterval, 2)],
      ["reads per second (page 0)", mmm(w.readsPerSec, 1)],
      ["requests per second (all pages)", mmm(w.requestsPerSec, 1)],
      ["runtime CPU per read, quiet", mmm(w.cpuUsPerRead, 0, " µs")],
      [
        "plain undici CPU per request, the same GETs at the same pace",
        mmm(w.plainCpuUsPerRead, 0, " µs"),
      ],
      ["event creation to message p50", mmm(w.latencyP50Ms, 0, " ms")],
      ["event creation to message p99", mmm(w.latencyP99Ms, 0, " ms")],
      ["event creation to message max", mmm(w.latencyMaxMs, 0, " ms")],
      ["heap per watch node", mmm(w.heapBytesPerWatch, 0, " B")],
      ["heap per inactive debug node (reference)", mmm(w.heapBytesPerDebugNode, 0, " B")],
      ["duplicates / missing messages", `${w.duplicates} / ${w.missing}`],
    ]),
  ];
}

function targets(w, add) {
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
    "Watching: CPU per quiet read against plain undici's per request (median)",
    `${fmt(w.cpuUsPerRead.median)} vs ${fmt(w.plainCpuUsPerRead.median)} µs`,
    "<= 1.5 x plain",
    w.cpuUsPerRead.median <= 1.5 * w.plainCpuUsPerRead.median,
  );
  add(
    "Watching: duplicates / missing messages",
    `${w.duplicates} / ${w.missing}`,
    "0 / 0",
    w.duplicates === 0 && w.missing === 0,
  );
}

module.exports = { measure, report, targets };
if (require.main === module) runSection("watching", measure);
