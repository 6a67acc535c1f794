// Commands: 5,000 messages through edge-send-command, through the equivalent hand-built flow of
// core nodes (function -> http request with persistent connections) in the same runtime, and
// through a plain undici loop, all at the same concurrency against the simulator in its own
// process. Variants are interleaved run by run so that drift on the machine hits all three.
"use strict";
const { performance } = require("node:perf_hooks");
const { Pool } = require("undici");
const { startSimulator } = require("./lib/sim");
const { startRuntime, accountNode, sinkNode, drive } = require("./lib/node-red");
const { median, percentile, round } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");

const CONCURRENCY = 16;
const DEVICE = "lcd-board";

function flows(sim) {
  const streamPath = `/${sim.company}/devices/${DEVICE}/:command`;
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
  };
  // What an integrator writes without this package: the URL, the headers and the body in a
  // function node, then an http request node that parses the JSON answer.
  const func = [
    `msg.method = "POST";`,
    `msg.url = ${JSON.stringify(`${sim.url}/v5.0/${sim.company}/event`)};`,
    `msg.headers = ${JSON.stringify(headers)};`,
    `msg.payload = { path: ${JSON.stringify(streamPath)}, elems: msg.payload };`,
    `return msg;`,
  ].join("\n");
  return [
    { id: "tab", type: "tab", label: "commands" },
    accountNode(sim, "acc", { concurrency: String(CONCURRENCY), rate: "0" }),
    {
      id: "send",
      z: "tab",
      type: "edge-send-command",
      account: "acc",
      target: "device",
      device: DEVICE,
      stream: "",
      elems: "",
      ttl: "",
      wires: [["sinkA"]],
    },
    sinkNode("sinkA", "tab"),
    {
      id: "fn",
      z: "tab",
      type: "function",
      func,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: "",
      finalize: "",
      libs: [],
      wires: [["http"]],
    },
    {
      id: "http",
      z: "tab",
      type: "http request",
      method: "use",
      ret: "obj",
      paytoqs: "ignore",
      url: "",
      tls: "",
      persist: true,
      proxy: "",
      insecureHTTPParser: false,
      authType: "",
      senderr: false,
      headers: [],
      wires: [["sinkB"]],
    },
    sinkNode("sinkB", "tab"),
  ];
}

/** The physical limit: undici on loopback with the same body, headers and concurrency. */
function undiciLoop(sim) {
  const pool = new Pool(sim.url, { connections: CONCURRENCY, keepAliveTimeout: 30000 });
  const path = `/v5.0/${sim.company}/event`;
  const streamPath = `/${sim.company}/devices/${DEVICE}/:command`;
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
    "content-type": "application/json",
  };
  return {
    async run(count) {
      const latencies = new Float64Array(count);
      let next = 0;
      let done = 0;
      let errors = 0;
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const worker = async () => {
        while (next < count) {
          const i = next++;
          const started = performance.now();
          const body = JSON.stringify({ path: streamPath, elems: { "/lcd/txt1": `m${i}` } });
          const res = await pool.request({ method: "POST", path, headers, body });
          const parsed = JSON.parse(await res.body.text());
          if (res.statusCode !== 201 || !parsed.head.ok) errors++;
          latencies[done++] = performance.now() - started;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const elapsedMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      return { elapsedMs, cpuMs, latencies: Array.from(latencies), errors };
    },
    close: () => pool.close(),
  };
}

function summary(r, total) {
  return {
    msgPerSec: round((total / r.elapsedMs) * 1000),
    p50Ms: round(percentile(r.latencies, 50), 2),
    p99Ms: round(percentile(r.latencies, 99), 2),
    // CPU of the measuring process per message: what the client side costs, whatever the load.
    cpuUsPerMsg: round((r.cpuMs * 1000) / total, 1),
    errors: r.errors,
  };
}

async function measure({ quick, only }) {
  const total = quick ? 1000 : 5000;
  const runs = quick ? 2 : 5;
  const warmup = quick ? 300 : 1000;
  const sim = await startSimulator();
  const red = await startRuntime();
  const loop = undiciLoop(sim);
  try {
    // An offline device queues its commands without working on them: the simulator then spends
    // its time answering, not producing markers nobody reads here.
    await sim.control("PUT", `/devices/${DEVICE}/online`, { online: false });
    await red.deploy(flows(sim));
    const send = red.getNode("send");
    const fn = red.getNode("fn");
    const http = red.getNode("http");
    const variants = {
      node: (count) =>
        drive({
          entry: send,
          sinks: [red.getNode("sinkA")],
          errorsFrom: [send],
          total: count,
          window: CONCURRENCY,
          make: (i) => ({ payload: { "/lcd/txt1": `m${i}` } }),
        }),
      handBuilt: async (count) => {
        const r = await drive({
          entry: fn,
          sinks: [red.getNode("sinkB")],
          errorsFrom: [fn, http],
          total: count,
          window: CONCURRENCY,
          make: (i) => ({ payload: { "/lcd/txt1": `m${i}` } }),
        });
        return r;
      },
      undici: (count) => loop.run(count),
    };
    // --only=node runs one variant (for the CPU profile in profile.js).
    for (const name of Object.keys(variants))
      if (only && !only.includes(name)) delete variants[name];
    for (const [name, run] of Object.entries(variants)) {
      progress(`commands: warm-up ${name}`);
      await run(warmup);
    }
    const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    for (let k = 0; k < runs; k++) {
      for (const [name, run] of Object.entries(variants)) {
        const r = await run(total);
        results[name].push(summary(r, total));
        const last = results[name].at(-1);
        progress(
          `commands: run ${k + 1}/${runs} ${name} ${last.msgPerSec} msg/s, ${last.cpuUsPerMsg} µs CPU/msg`,
        );
      }
    }
    const med = (name, key) => median(results[name].map((r) => r[key]));
    const table = {};
    for (const name of Object.keys(results)) {
      table[name] = {
        msgPerSec: med(name, "msgPerSec"),
        p50Ms: med(name, "p50Ms"),
        p99Ms: med(name, "p99Ms"),
        cpuUsPerMsg: med(name, "cpuUsPerMsg"),
        errors: results[name].reduce((s, r) => s + r.errors, 0),
      };
    }
    const stats = await sim.control("GET", "/stats");
    return {
      messages: total,
      runs,
      concurrency: CONCURRENCY,
      medians: table,
      ratios: only
        ? {}
        : {
            nodeVsUndici: round(table.node.msgPerSec / table.undici.msgPerSec, 2),
            nodeVsHandBuilt: round(table.node.msgPerSec / table.handBuilt.msgPerSec, 2),
          },
      simulatorRequests: stats.total,
      runsDetail: results,
    };
  } finally {
    await loop.close();
    await red.stop();
    await sim.stop();
  }
}

module.exports = { measure };
if (require.main === module) runSection("commands", measure);
