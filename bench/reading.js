// Reading: edge-list-events over a stream of 100,000 events, in "all" mode (one message with the
// whole array) and "split" mode (one message per event, fetched a page at a time). Measures
// events per second and memory: the peak heap sampled during a run, and the live heap (after a
// forced GC) at a quarter, half and three quarters of a split run, for 10,000 and for 100,000
// events, to show that split holds a page at a time whatever the length of the stream.
"use strict";
const { performance } = require("node:perf_hooks");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode } = require("./lib/node-red");
const { median, round, sleep } = require("./lib/stats");
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
        finish();
        resolve({ elapsedMs, peakHeap, peakRss, live: live.length ? Math.max(...live) : NaN });
      }
    };
    function finish() {
      clearInterval(sampler);
      clearTimeout(timer);
      sink.removeListener("input", onInput);
    }
    sink.on("input", onInput);
    const t0 = performance.now();
    node.receive({ payload: null });
  });
}

async function measure({ quick }) {
  const runs = quick ? 1 : 3;
  const sizes = quick ? [10000, 20000] : [10000, 100000];
  const sim = await startSimulator();
  const red = await startRuntime();
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
    const flow = [{ id: "tab", type: "tab", label: "reading" }, accountNode(sim, "acc")];
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

    const result = {};
    for (const mode of ["all", "split"]) {
      for (const size of sizes) {
        const id = `${mode}-${size}`;
        const samples = [];
        for (let k = 0; k < runs; k++) {
          await sleep(100);
          const base = gcHeap();
          const r = await listOnce(red, id, `sink-${id}`, size);
          samples.push({ ...r, base });
          progress(`reading: ${id} ${round((size / r.elapsedMs) * 1000)} events/s`);
        }
        await sleep(100);
        const base = gcHeap();
        const probed = await listOnce(red, id, `sink-${id}`, size, { probe: true });
        result[id] = {
          mode,
          events: size,
          eventsPerSec: round(median(samples.map((s) => (size / s.elapsedMs) * 1000))),
          peakHeapAboveBaseMB: round(median(samples.map((s) => (s.peakHeap - s.base) / MB)), 1),
          // "all" sends one message: its live heap is the whole array, shown by the peak.
          liveHeapDuringMB: mode === "split" ? round((probed.live - base) / MB, 1) : null,
          peakRssMB: round(Math.max(...samples.map((s) => s.peakRss)) / MB),
        };
      }
    }
    return { pageSize: PAGE, sizes, runs, modes: result };
  } finally {
    await red.stop();
    await sim.stop();
  }
}

module.exports = { measure };
if (require.main === module) runSection("reading", measure);
