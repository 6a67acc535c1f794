// Fleet: one command to 1,000 devices. edge-fleet-command at rate 0 against what a user builds
// without it (the peer): split -> edge-send-command -> edge-await-command -> a change node per
// outcome -> join -> a function that counts the outcomes into a report. Both send the same
// command to the same 1,000 simulated devices (the simulator's --devices) through accounts with
// the same limits (rate limit off, 16 requests at once).
//   time     - from the message handed to the first node to the report leaving the last, paired
//              runs in alternating order; also the runtime's CPU and the simulator's requests per
//              device, and the outcomes each report counts;
//   heap     - the devices taken offline, so that every command sent stays pending: the heap
//              (after a full collection) once every command the job may have in flight is sent,
//              less the heap before the job, per device; the devices then come back online and
//              the job ends.
// Every figure is min / median / max over the runs.
"use strict";
const path = require("node:path");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode, ROOT } = require("./lib/node-red");
const { collect, round, sleep, spread } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");
const { fmt, mmm, table } = require("./lib/format");

const DEVICES = 1000;
/**
 * Devices in flight at once in the fleet node: all of them, as the hand-built flow has every
 * message between its send and its await at once (only the account's 16 requests bound both).
 */
const CONCURRENCY = DEVICES;
const TIMEOUT_MS = 60000;
const INTERVAL_MS = 1000;
const ELEMS = { "/lcd/txt1": "shift target 120" };

/** The fleet's device names, as the simulator of the build under test makes them. */
function names(count) {
  const { fleetName } = require(path.join(ROOT, "dist", "simulator"));
  return Array.from({ length: count }, (_, i) => fleetName(i + 1, count));
}

/** Ids never equal to a type: Node-RED takes a node without x and y for a config node and a
 * property naming another config node's id (type "split" and id "split") for a dependency. */
function flows(sim, devices) {
  const change = (id, outcome) => ({
    id,
    z: "tab",
    type: "change",
    rules: [
      {
        t: "set",
        p: "payload",
        pt: "msg",
        to: `{"device": command.device, "outcome": "${outcome}"}`,
        tot: "jsonata",
      },
    ],
    wires: [["joinH"]],
  });
  const count = [
    "const report = { total: msg.payload.length, complete: 0, fault: 0, timedOut: 0 };",
    "for (const d of msg.payload) {",
    '  if (d.outcome === "complete") report.complete++;',
    '  else if (d.outcome === "fault") report.fault++;',
    "  else report.timedOut++;",
    "}",
    "report.devices = msg.payload;",
    "msg.payload = report;",
    "return msg;",
  ].join("\n");
  return [
    { id: "tab", type: "tab", label: "fleet" },
    accountNode(sim, "accF"),
    accountNode(sim, "accH"),
    {
      id: "fleet",
      z: "tab",
      type: "edge-fleet-command",
      account: "accF",
      devices: devices.join("\n"),
      filter: "",
      elems: JSON.stringify(ELEMS),
      ttl: "",
      rate: 0,
      concurrency: CONCURRENCY,
      maxFailures: 0,
      timeout: String(TIMEOUT_MS),
      interval: INTERVAL_MS,
      store: "",
      wires: [["reportF"], ["eachF"]],
    },
    sinkNode("reportF", "tab"),
    sinkNode("eachF", "tab"),
    // The peer: the flow the issue describes a new user building.
    {
      id: "splitH",
      z: "tab",
      type: "split",
      splt: "\\n",
      spltType: "str",
      arraySplt: 1,
      arraySpltType: "len",
      stream: false,
      addname: "",
      wires: [["sendH"]],
    },
    {
      id: "sendH",
      z: "tab",
      type: "edge-send-command",
      account: "accH",
      target: "device",
      device: "{{payload}}",
      stream: "",
      elems: JSON.stringify(ELEMS),
      ttl: "",
      wires: [["awaitH"]],
    },
    {
      id: "awaitH",
      z: "tab",
      type: "edge-await-command",
      account: "accH",
      inbox: "",
      timeout: String(TIMEOUT_MS),
      interval: INTERVAL_MS,
      store: "",
      wires: [["completeH"], ["faultH"], ["timedOutH"]],
    },
    change("completeH", "complete"),
    change("faultH", "fault"),
    change("timedOutH", "timed-out"),
    {
      id: "joinH",
      z: "tab",
      type: "join",
      mode: "auto",
      build: "array",
      property: "payload",
      propertyType: "msg",
      key: "topic",
      joiner: "\\n",
      joinerType: "str",
      accumulate: false,
      timeout: "",
      count: "",
      reduceRight: false,
      wires: [["countH"]],
    },
    {
      id: "countH",
      z: "tab",
      type: "function",
      func: count,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: "",
      finalize: "",
      libs: [],
      wires: [["reportH"]],
    },
    sinkNode("reportH", "tab"),
  ];
}

/** Resolves with the first message that reaches `node` (within timeoutMs). */
function nextAt(node, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      node.removeListener("input", fn);
      reject(new Error(`nothing reached ${node.id} within ${timeoutMs} ms`));
    }, timeoutMs);
    const fn = (msg, _send, done) => {
      clearTimeout(timer);
      node.removeListener("input", fn);
      done?.();
      resolve(msg);
    };
    node.on("input", fn);
  });
}

/** Counts the messages that reach `node` until stop() is called. */
function counter(node) {
  let n = 0;
  const fn = (_msg, _send, done) => {
    n++;
    done?.();
  };
  node.on("input", fn);
  return () => {
    node.removeListener("input", fn);
    return n;
  };
}

/** The simulator's request counts: every request, and the commands (POST .../event). */
async function requests(sim) {
  const stats = await sim.control("GET", "/stats");
  const sends = Object.entries(stats.byRoute)
    .filter(([route]) => /^POST \/v5\.0\/[^/]+\/event$/.test(route))
    .reduce((sum, [, n]) => sum + n, 0);
  return { total: stats.total, sends };
}

/** The two peers: each starts one job over all the devices and resolves with its report. */
function peers(red, devices) {
  return {
    fleet: {
      start: () => red.getNode("fleet").receive({ payload: "" }),
      report: () => nextAt(red.getNode("reportF"), TIMEOUT_MS * 3),
      each: () => counter(red.getNode("eachF")),
      inFlight: Math.min(CONCURRENCY, devices.length),
    },
    handBuilt: {
      start: () => red.getNode("splitH").receive({ payload: [...devices] }),
      report: () => nextAt(red.getNode("reportH"), TIMEOUT_MS * 3),
      each: undefined,
      inFlight: devices.length,
    },
  };
}

/** The outcome counts of a report, the same for both peers. */
function outcomes(report) {
  const p = report.payload ?? {};
  return { total: p.total, complete: p.complete, fault: p.fault, timedOut: p.timedOut };
}

async function timeRun(sim, peer) {
  const before = await requests(sim);
  const stopEach = peer.each?.();
  const reported = peer.report();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  peer.start();
  const report = await reported;
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // The reads that were due when the report left are over before the count.
  await sleep(INTERVAL_MS);
  const after = await requests(sim);
  return {
    elapsedMs,
    cpuMsPerDevice: (cpu.user + cpu.system) / 1000 / DEVICES,
    requestsPerDevice: (after.total - before.total) / DEVICES,
    sendsPerDevice: (after.sends - before.sends) / DEVICES,
    perDeviceMessages: stopEach ? stopEach() : null,
    ...outcomes(report),
  };
}

async function setOnline(sim, devices, online) {
  // 25 at a time: the control interface is the simulator's, and this is not what is measured.
  for (let i = 0; i < devices.length; i += 25)
    await Promise.all(
      devices.slice(i, i + 25).map((d) => sim.control("PUT", `/devices/${d}/online`, { online })),
    );
}

async function heapRun(sim, peer, devices) {
  await setOnline(sim, devices, false);
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const before = await requests(sim);
  const reported = peer.report();
  peer.start();
  // Every command the job may have in flight is sent: they stay pending on offline devices.
  const deadline = Date.now() + TIMEOUT_MS / 2;
  for (;;) {
    const now = await requests(sim);
    if (now.sends - before.sends >= peer.inFlight) break;
    if (Date.now() > deadline) throw new Error(`only ${now.sends - before.sends} sent`);
    await sleep(100);
  }
  // One interval, so every wait has had its first read.
  await sleep(INTERVAL_MS);
  collect();
  const heapDuring = process.memoryUsage().heapUsed;
  await setOnline(sim, devices, true);
  const report = await reported;
  return {
    heapBytesPerDevice: (heapDuring - heapBefore) / devices.length,
    ...outcomes(report),
  };
}

async function measure({ quick, only }) {
  const runs = quick ? 2 : 5;
  const heapRuns = quick ? 1 : 3;
  const modes = ["time", "heap"].filter((m) => !only || only.includes(m));
  const sim = await startSimulator({ devices: DEVICES });
  const red = await startRuntime();
  try {
    const devices = names(DEVICES);
    await red.deploy(flows(sim, devices));
    const both = peers(red, devices);
    // BENCH_PEERS=handBuilt (say) runs one peer alone, for a CPU profile (profile.js).
    if (process.env.BENCH_PEERS)
      for (const p of Object.keys(both))
        if (!process.env.BENCH_PEERS.split(",").includes(p)) delete both[p];
    const result = { devices: DEVICES, concurrency: CONCURRENCY, ratePerSecond: 0 };
    // Warm-up: the JIT, the connections, and the awaits' learned answer time of every device.
    for (const peer of Object.values(both)) await timeRun(sim, peer);
    if (modes.includes("time")) {
      const samples = { fleet: [], handBuilt: [] };
      for (let k = 0; k < runs; k++) {
        // Alternating order: neither peer always runs on the warmer (or busier) machine.
        const order = k % 2 === 0 ? ["fleet", "handBuilt"] : ["handBuilt", "fleet"];
        const ran = order.filter((p) => both[p]);
        for (const name of ran) samples[name].push(await timeRun(sim, both[name]));
        progress(
          `fleet time run ${k + 1}/${runs}: ` +
            ran.map((p) => `${p} ${round(samples[p][k].elapsedMs)} ms`).join(", "),
        );
      }
      const of = (list, key, digits) =>
        spread(
          list.map((r) => r[key]),
          digits,
        );
      const summary = (list) => ({
        elapsedMs: of(list, "elapsedMs", 0),
        cpuMsPerDevice: of(list, "cpuMsPerDevice", 3),
        requestsPerDevice: of(list, "requestsPerDevice", 2),
        sendsPerDevice: of(list, "sendsPerDevice", 2),
        complete: of(list, "complete", 0),
        total: of(list, "total", 0),
        perDeviceMessages: of(list, "perDeviceMessages", 0),
      });
      result.time = {
        runs,
        fleet: summary(samples.fleet),
        handBuilt: summary(samples.handBuilt),
        fleetVsHandBuilt: spread(
          samples.fleet.map((f, k) => f.elapsedMs / samples.handBuilt[k]?.elapsedMs),
          2,
        ),
        runsDetail: samples,
      };
    }
    if (modes.includes("heap")) {
      const samples = { fleet: [], handBuilt: [] };
      for (let k = 0; k < heapRuns; k++) {
        const order = k % 2 === 0 ? ["fleet", "handBuilt"] : ["handBuilt", "fleet"];
        const ran = order.filter((p) => both[p]);
        for (const name of ran) samples[name].push(await heapRun(sim, both[name], devices));
        progress(
          `fleet heap run ${k + 1}/${heapRuns}: ` +
            ran.map((p) => `${p} ${round(samples[p][k].heapBytesPerDevice)} B/device`).join(", "),
        );
      }
      result.heap = {
        runs: heapRuns,
        inFlight: { fleet: both.fleet?.inFlight, handBuilt: both.handBuilt?.inFlight },
        fleet: spread(
          samples.fleet.map((r) => r.heapBytesPerDevice),
          0,
        ),
        handBuilt: spread(
          samples.handBuilt.map((r) => r.heapBytesPerDevice),
          0,
        ),
        complete: spread(
          [...samples.fleet, ...samples.handBuilt].map((r) => r.complete),
          0,
        ),
        runsDetail: samples,
      };
    }
    return result;
  } finally {
    await red.stop();
    await sim.stop();
  }
}

function report(r) {
  const lines = [
    `Fleet: one command to ${fmt(r.devices)} simulated devices, rate 0, the fleet node with` +
      ` ${fmt(r.concurrency)} in flight; accounts 16 at once, no rate limit.`,
    "min / median / max of paired runs, order alternating.",
  ];
  if (r.time) {
    const t = r.time;
    const rows = [
      ["peer", "time to report ms", "CPU ms/device", "req/device", "sends/device", "complete"],
    ];
    for (const [label, v] of [
      ["edge-fleet-command", t.fleet],
      ["hand-built (split/send/await/join)", t.handBuilt],
    ])
      rows.push([
        label,
        mmm(v.elapsedMs),
        mmm(v.cpuMsPerDevice, 3),
        mmm(v.requestsPerDevice, 2),
        mmm(v.sendsPerDevice, 2),
        `${fmt(v.complete.min)} of ${fmt(v.total.max)}`,
      ]);
    rows.push(["fleet / hand-built, per pair", `${mmm(t.fleetVsHandBuilt, 2)}x`, "", "", "", ""]);
    lines.push(table(rows));
    lines.push(`Per-device messages of the fleet node per run: ${mmm(t.fleet.perDeviceMessages)}`);
  }
  if (r.heap) {
    const h = r.heap;
    lines.push(
      `Heap per device in a job (devices offline, ${fmt(h.inFlight.fleet)} / ` +
        `${fmt(h.inFlight.handBuilt)} commands pending, ${h.runs} runs): fleet node ` +
        `${mmm(h.fleet)} B, hand-built ${mmm(h.handBuilt)} B; complete once back online: ` +
        `${mmm(h.complete)}`,
    );
  }
  return lines;
}

function targets(r, add) {
  if (r.time) {
    const f = r.time.fleet;
    add(
      "Fleet: every device complete in every report, one message each",
      `${fmt(f.complete.min)} / ${fmt(f.perDeviceMessages.min)} of ${fmt(r.devices)}`,
      `${fmt(r.devices)}`,
      f.complete.min === r.devices &&
        f.perDeviceMessages.min === r.devices &&
        f.perDeviceMessages.max === r.devices,
    );
    add(
      "Fleet: each device sent the command once",
      `${fmt(f.sendsPerDevice.max, 2)}`,
      "1.00",
      f.sendsPerDevice.min === 1 && f.sendsPerDevice.max === 1,
    );
    add(
      "Fleet: time to the report / hand-built (median of pairs)",
      `${fmt(r.time.fleetVsHandBuilt.median, 2)}x`,
      "<= 1.1x",
      r.time.fleetVsHandBuilt.median <= 1.1,
    );
  }
  if (r.heap) {
    add(
      "Fleet: heap per device in a job / hand-built (median)",
      `${fmt(r.heap.fleet.median)} / ${fmt(r.heap.handBuilt.median)} B`,
      "<= hand-built",
      r.heap.fleet.median <= r.heap.handBuilt.median,
    );
  }
}

module.exports = { measure, report, targets };
if (require.main === module) runSection("fleet", measure);
