// Waiting: 1,000 edge-await-command waits pending at once over 10 devices. Measures the inbox
// requests per device per poll interval (the shared poller must make one, whatever the number
// of waits), the heap each pending wait holds, and the delay from a marker's creation in the
// simulator to the await node's output.
"use strict";
const { performance } = require("node:perf_hooks");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode } = require("./lib/node-red");
const { median, percentile, round, sleep } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");

const DEVICES = 10;
const WAITS = 1000;
const INTERVAL_MS = 1000;
const WATCH_INTERVALS = 5;

/** A made-up command event id, in the service's format, for wait number i. */
const commandId = (i) => `e${"0".repeat(16)}${i.toString(16).padStart(8, "0")}`;

function gcHeap() {
  if (typeof global.gc !== "function") throw new Error("run with --expose-gc");
  for (let i = 0; i < 3; i++) global.gc();
  return process.memoryUsage().heapUsed;
}

async function measure({ quick }) {
  const waits = quick ? 200 : WAITS;
  const sim = await startSimulator();
  const red = await startRuntime();
  try {
    const devices = [];
    for (let d = 0; d < DEVICES; d++) {
      const name = `bench-${d}`;
      await sim.control("POST", "/devices", { name, resources: ["/lcd/txt1"] });
      devices.push({ name, inbox: `/${sim.company}/devices/${name}/:inbox` });
    }
    await red.deploy([
      { id: "tab", type: "tab", label: "waiting" },
      accountNode(sim, "acc"),
      {
        id: "await",
        z: "tab",
        type: "edge-await-command",
        account: "acc",
        inbox: "",
        timeout: "600000",
        interval: String(INTERVAL_MS),
        wires: [["done"], ["fault"], ["late"]],
      },
      sinkNode("done", "tab"),
      sinkNode("fault", "tab"),
      sinkNode("late", "tab"),
    ]);
    const node = red.getNode("await");
    const poller = red.getNode("acc").poller;

    // The messages exist before the waits do: only what waiting adds is counted.
    const now = Date.now();
    const msgs = Array.from({ length: waits }, (_, i) => ({
      _msgid: `bench${i}`,
      payload: null,
      command: {
        id: commandId(i),
        creationDate: now,
        device: devices[i % DEVICES].name,
        sentAt: now,
      },
    }));
    const before = gcHeap();
    for (const msg of msgs) node.receive(msg);
    await sleep(50);
    const after = gcHeap();
    const heapPerWait = (after - before) / waits;
    progress(`waiting: ${waits} waits pending, ${round(heapPerWait)} B of heap each`);
    if (poller.size !== DEVICES) throw new Error(`${poller.size} inboxes polled, not ${DEVICES}`);

    // Requests per inbox per interval, from the simulator's request log.
    await sim.control("DELETE", "/requests");
    const t0 = Date.now();
    await sleep(WATCH_INTERVALS * INTERVAL_MS);
    const t1 = Date.now();
    const log = await sim.control("GET", "/requests?limit=10000");
    const perInbox = new Map(devices.map((d) => [d.inbox, 0]));
    for (const r of log) {
      if (r.method !== "GET" || r.time < t0 || r.time > t1) continue;
      const path = new URL(r.url, sim.url).searchParams.get("path");
      if (perInbox.has(path)) perInbox.set(path, perInbox.get(path) + 1);
    }
    const intervals = (t1 - t0) / INTERVAL_MS;
    const perInterval = [...perInbox.values()].map((n) => n / intervals);
    progress(
      `waiting: ${[...perInbox.values()].join(", ")} inbox requests in ${round(intervals, 1)} intervals`,
    );

    // Markers at an even pace over several intervals, so they land at every phase of a poll.
    const delays = [];
    const sink = red.getNode("done");
    let outputs = 0;
    const arrived = new Promise((resolve) => {
      sink.on("input", (msg, _send, done) => {
        delays.push(Date.now() - msg.payload.creationDate);
        if (++outputs === waits) resolve();
        done();
      });
    });
    const spreadMs = quick ? 2000 : 5000;
    const started = performance.now();
    for (let i = 0; i < waits; i++) {
      const due = (i * spreadMs) / waits;
      const wait = due - (performance.now() - started);
      if (wait > 1) await sleep(wait);
      const d = devices[i % DEVICES];
      await sim.control("POST", "/events", {
        path: d.inbox,
        elems: { cmd: { status: "COMMAND_COMPLETE", ref: commandId(i) } },
      });
    }
    const timeout = sleep(INTERVAL_MS * 3).then(() => "timeout");
    if ((await Promise.race([arrived, timeout])) === "timeout") {
      throw new Error(`${outputs}/${waits} waits ended within 3 intervals of the last marker`);
    }
    return {
      waits,
      devices: DEVICES,
      intervalMs: INTERVAL_MS,
      inboxRequestsPerDevicePerInterval: {
        median: round(median(perInterval), 2),
        max: round(Math.max(...perInterval), 2),
      },
      heapBytesPerWait: round(heapPerWait),
      markerToOutputMs: {
        p50: round(percentile(delays, 50)),
        p99: round(percentile(delays, 99)),
        max: round(Math.max(...delays)),
      },
      lateOrFault: red.getNode("late") && red.getNode("fault") ? 0 : null,
    };
  } finally {
    await red.stop();
    await sim.stop();
  }
}

module.exports = { measure };
if (require.main === module) runSection("waiting", measure);
