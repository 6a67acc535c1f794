// Reading: edge-list-events over streams of 10,000 and 100,000 events, in "all" mode (one message
// with the whole array) and "split" mode (one message per event, fetched a page at a time), with a
// plain undici paging loop (the same pages, parsed) as the peer, the three alternating run by run.
// Measures events per second and CPU per event (min / median / max over the runs), the ratio to
// the plain loop per run, and memory: the peak heap sampled during a run, and the live heap (after
// a forced GC) at a quarter, half and three quarters of a split run, to show that split holds a
// page at a time whatever the length of the stream.
"use strict";
const { performance } = require("node:perf_hooks");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode, catchNode } = require("./lib/node-red");
const { Pool } = require("undici");
const { cpuMs, median, round, sleep, spread } = require("./lib/stats");
const { fmt, mmm, table } = require("./lib/format");
const { runSection, progress } = require("./lib/section");

const PAGE = 1000;
const MB = 2 ** 20;

function gcHeap() {
  if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
  for (let i = 0; i < 2; i++) global.gc();
  return process.memoryUsage().heapUsed;
}

function listNode(id, mode, streamId, sink) {
  return {
    id,
    z: "tab",
    type: "edge-list-events",
    account: "acc",
    stream: streamId,
    limit: String(PAGE),
    start: "0",
    mode,
    maxEvents: "100000",
    wires: [[sink]],
  };
}

/** Runs one list; resolves when its last message is in, with time, peak and live memory. */
function listOnce(red, nodeId, sinkId, expected, { probe = false } = {}) {
  const node = red.getNode(nodeId);
  const sink = red.getNode(sinkId);
  return new Promise((resolve, reject) => {
    let events = 0;
    let peakHeap = 0;
    let peakRss = 0;
    const live = [];
    const sample = () => {
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    };
    const sampler = setInterval(sample, 5);
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${nodeId}: ${events}/${expected} events within 120 s`));
    }, 120000);
    const onInput = (msg, _send, done) => {
      events += Array.isArray(msg.payload) ? msg.payload.length : 1;
      // Live memory at a quarter, half and three quarters, after a full GC (in separate runs:
      // it costs time).
      if (probe && events % (expected / 4) === 0 && events < expected) live.push(gcHeap());
      done();
      if (events >= expected) {
        sample();
        const elapsedMs = performance.now() - t0;
        const cpu = cpuMs(cpu0);
        finish();
        resolve({ elapsedMs, cpu, peakHeap, peakRss, live: live.length ? Math.max(...live) : NaN });
      }
    };
    const caught = red.getNode("caughtR");
    const onError = (msg, _send, done) => {
      done();
      finish();
      reject(new Error(`${nodeId}: ${msg.error?.message}`));
    };
    function finish() {
      clearInterval(sampler);
      clearTimeout(timer);
      sink.removeListener("input", onInput);
      caught.removeListener("input", onError);
    }
    sink.on("input", onInput);
    caught.on("input", onError);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    node.receive({ payload: null });
  });
}

/** The peer: the same pages through undici, parsed, until `expected` events are read. */
async function plainOnce(pool, sim, streamId, expected) {
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
  };
  let peakHeap = 0;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 5);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let events = 0;
  try {
    for (let start = 0; events < expected; start += PAGE) {
      const path = `/v5.0/${sim.company}/event/${streamId}?limit=${PAGE}&start=${start}`;
      const res = await pool.request({ method: "GET", path, headers });
      const env = JSON.parse(await res.body.text());
      if (res.statusCode !== 200 || !Array.isArray(env.body) || env.body.length === 0) {
        throw new Error(`plain paging: ${res.statusCode} at ${start}`);
      }
      events += env.body.length;
    }
  } finally {
    clearInterval(sampler);
  }
  return { elapsedMs: performance.now() - t0, cpu: cpuMs(cpu0), peakHeap, live: NaN };
}

async function measure({ quick }) {
  const runs = quick ? 2 : 5;
  const sizes = quick ? [10000, 20000] : [10000, 100000];
  const sim = await startSimulator();
  const red = await startRuntime();
  const pool = new Pool(sim.url, { connections: 1, keepAliveTimeout: 30000 });
  try {
    const streams = {};
    for (const size of sizes) {
      const path = `/${sim.company}/bench/read-${size}`;
      const stream = await sim.control("POST", "/streams", { path, capacity: size });
      await sim.control("POST", "/events", {
        streamId: stream.id,
        count: size,
        elems: { temperature: 21.5, humidity: 40, status: "ok" },
      });
      streams[size] = stream.id;
    }
    // All 100,000 events in one message are about 19 MB of answers: above the default Max answer.
    const flow = [
      { id: "tab", type: "tab", label: "reading" },
      accountNode(sim, "acc", { maxAnswer: String(64 * MB) }),
      catchNode("catchR", "tab", null, "caughtR"),
      sinkNode("caughtR", "tab"),
    ];
    for (const size of sizes) {
      flow.push(listNode(`all-${size}`, "all", streams[size], `sink-all-${size}`));
      flow.push(sinkNode(`sink-all-${size}`, "tab"));
      flow.push(listNode(`split-${size}`, "split", streams[size], `sink-split-${size}`));
      flow.push(sinkNode(`sink-split-${size}`, "tab"));
    }
    await red.deploy(flow);

    // Warm-up on the small stream.
    await listOnce(red, `all-${sizes[0]}`, `sink-all-${sizes[0]}`, sizes[0]);
    await listOnce(red, `split-${sizes[0]}`, `sink-split-${sizes[0]}`, sizes[0]);
    await plainOnce(pool, sim, streams[sizes[0]], sizes[0]);

    const result = {};
    for (const size of sizes) {
      const peers = {
        all: () => listOnce(red, `all-${size}`, `sink-all-${size}`, size),
        split: () => listOnce(red, `split-${size}`, `sink-split-${size}`, size),
        plain: () => plainOnce(pool, sim, streams[size], size),
      };
      const samples = { all: [], split: [], plain: [] };
      for (let k = 0; k < runs; k++) {
        const order = k % 2 ? ["plain", "split", "all"] : ["all", "split", "plain"];
        for (const name of order) {
          await sleep(50);
          const base = gcHeap();
          const r = await peers[name]();
          samples[name].push({ ...r, base });
        }
        progress(
          `reading ${size}: ` +
            Object.entries(samples)
              .map(([n, list]) => `${n} ${round((size / list[k].elapsedMs) * 1000)} events/s`)
              .join(", "),
        );
      }
      for (const mode of ["all", "split", "plain"]) {
        const list = samples[mode];
        let liveHeapDuringMB = null;
        if (mode === "split") {
          await sleep(100);
          const base = gcHeap();
          const probed = await listOnce(red, `split-${size}`, `sink-split-${size}`, size, {
            probe: true,
          });
          liveHeapDuringMB = round((probed.live - base) / MB, 1);
        }
        result[`${mode}-${size}`] = {
          mode,
          events: size,
          eventsPerSec: spread(list.map((s) => (size / s.elapsedMs) * 1000)),
          cpuUsPerEvent: spread(
            list.map((s) => (s.cpu * 1000) / size),
            2,
          ),
          vsPlain:
            mode === "plain"
              ? null
              : spread(
                  list.map((s, k) => samples.plain[k].elapsedMs / s.elapsedMs),
                  2,
                ),
          peakHeapAboveBaseMB: round(median(list.map((s) => (s.peakHeap - s.base) / MB)), 1),
          liveHeapDuringMB,
          peakRssMB: mode === "plain" ? null : round(Math.max(...list.map((s) => s.peakRss)) / MB),
        };
      }
    }
    return { pageSize: PAGE, sizes, runs, modes: result };
  } finally {
    await pool.close();
    await red.stop();
    await sim.stop();
  }
}

function report(r) {
  const rows = [
    ["mode", "events", "events/s", "CPU µs/event", "vs plain loop", "peak heap MB", "live heap MB"],
  ];
  for (const v of Object.values(r.modes)) {
    rows.push([
      v.mode === "plain" ? "plain undici paging loop" : `edge-list-events, ${v.mode}`,
      fmt(v.events),
      mmm(v.eventsPerSec),
      mmm(v.cpuUsPerEvent, 2),
      v.vsPlain ? `${mmm(v.vsPlain, 2)}x` : "",
      fmt(v.peakHeapAboveBaseMB, 1),
      v.liveHeapDuringMB === null ? "-" : fmt(v.liveHeapDuringMB, 1),
    ]);
  }
  return [
    `Reading: pages of ${fmt(r.pageSize)}, min / median / max of ${r.runs} runs, the three alternating`,
    table(rows),
  ];
}

function targets(r, add) {
  const [small, large] = r.sizes;
  const a = r.modes[`split-${small}`].liveHeapDuringMB;
  const b = r.modes[`split-${large}`].liveHeapDuringMB;
  add(
    `Reading: split live heap, ${fmt(small)} vs ${fmt(large)} events`,
    `${fmt(a, 1)} / ${fmt(b, 1)} MB`,
    "flat (within 1 MB)",
    Math.abs(b - a) <= 1,
  );
}

module.exports = { measure, report, targets };
if (require.main === module) runSection("reading", measure);
