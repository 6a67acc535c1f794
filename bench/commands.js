// Commands: edge-send-command against a plain undici loop (the physical limit of this machine),
// in three modes, both peers in every run, paired and interleaved in alternating order:
//   window   - 16 in flight, refilled on each output (rate limit off, 16 at once);
//   burst    - N messages handed to the node at once (rate limit off, 16 at once); the plain loop
//              drains the same N with 16 workers;
//   defaults - the account as a user gets it (20/s, 8 at once, queue 1,000), a burst of 60; the
//              plain loop drains it with 8 workers behind the same sliding one-second window.
// The hand-built flow (function + http request) runs in window mode as a third peer. Every figure
// is min / median / max over the runs; ratios are taken per pair (the same run), then spread.
// Counts are measured: outputs and errors (through a Catch node) per message, the requests the
// simulator saw per message, and in defaults mode the most requests it saw start in any second.
"use strict";
const { Pool } = require("undici");
const { startSimulator } = require("./lib/sim");
const {
  startRuntime,
  accountNode,
  sinkNode,
  catchNode,
  drive,
  handBuiltNodes,
} = require("./lib/node-red");
const { collect, percentile, round, sleep, spread } = require("./lib/stats");
const { runSection, progress } = require("./lib/section");
const { fmt, mmm, table } = require("./lib/format");

const DEVICE = "lcd-board";

const MODES = {
  // A window run of 10,000 lasts about half a second on this machine: shorter ones swung by 2x.
  window: { account: "accW", concurrency: 16, rate: 0, window: 16, total: 10000, quick: 1000 },
  burst: { account: "accW", concurrency: 16, rate: 0, window: Infinity, total: 1000, quick: 500 },
  defaults: { account: "accD", concurrency: 8, rate: 20, window: Infinity, total: 60, quick: 40 },
};

function flows(sim) {
  const streamPath = `/${sim.company}/devices/${DEVICE}/:command`;
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
  };
  const send = (id, account, sink) => ({
    id,
    z: "tab",
    type: "edge-send-command",
    account,
    target: "device",
    device: DEVICE,
    stream: "",
    elems: "",
    ttl: "",
    wires: [[sink]],
  });
  return [
    { id: "tab", type: "tab", label: "commands" },
    accountNode(sim, "accW", { concurrency: "16", rate: "0", queue: "100000" }),
    // Blank limits: the account's defaults, as a user who never opens those fields gets them.
    accountNode(sim, "accD", { timeout: "", retries: "", rate: "", concurrency: "", queue: "" }),
    send("sendW", "accW", "sinkW"),
    sinkNode("sinkW", "tab"),
    send("sendD", "accD", "sinkD"),
    sinkNode("sinkD", "tab"),
    catchNode("catchS", "tab", ["sendW", "sendD"], "caughtS"),
    sinkNode("caughtS", "tab"),
    ...handBuiltNodes(sim, DEVICE, "msg.payload", "sinkH"),
    sinkNode("sinkH", "tab"),
    catchNode("catchH", "tab", ["fn", "http"], "caughtH"),
    sinkNode("caughtH", "tab"),
    {
      id: "bare",
      z: "tab",
      type: "bench-bare-request",
      url: sim.url,
      path: `/v5.0/${sim.company}/event`,
      streamPath,
      headers,
      connections: "16",
      wires: [["sinkB"]],
    },
    sinkNode("sinkB", "tab"),
    catchNode("catchB", "tab", ["bare"], "caughtB"),
    sinkNode("caughtB", "tab"),
  ];
}

/**
 * The peer: undici on loopback with the same body and headers, `workers` at once, each request
 * started only when a sliding one-second window of `rate` starts allows (0: no limit).
 */
function undiciLoop(sim, workers, rate) {
  const pool = new Pool(sim.url, { connections: workers, keepAliveTimeout: 30000 });
  const path = `/v5.0/${sim.company}/event`;
  const streamPath = `/${sim.company}/devices/${DEVICE}/:command`;
  const headers = {
    "x-auth-token": sim.token,
    "x-auth-user": sim.user,
    accept: "application/json",
    "content-type": "application/json",
  };
  return {
    async run(count, burst, make) {
      const latencies = new Float64Array(count);
      const starts = [];
      let next = 0;
      let done = 0;
      let errors = 0;
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      // A burst is N messages that exist at once, as the node's do; a window makes each in turn.
      const burstMsgs = burst ? Array.from({ length: count }, (_, i) => make(i)) : undefined;
      const slot = async () => {
        if (rate === 0) return;
        for (;;) {
          const now = performance.now();
          if (starts.length < rate || now - starts[starts.length - rate] >= 1000) {
            starts.push(now);
            return;
          }
          const wait = starts[starts.length - rate] + 1000 - now;
          await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(wait))));
        }
      };
      const worker = async () => {
        while (next < count) {
          const i = next++;
          await slot();
          const started = burst ? t0 : performance.now();
          let msg;
          if (burstMsgs) {
            msg = burstMsgs[i];
            burstMsgs[i] = undefined;
          } else msg = make(i);
          const body = JSON.stringify({ path: streamPath, elems: msg.payload });
          try {
            const res = await pool.request({ method: "POST", path, headers, body });
            const parsed = JSON.parse(await res.body.text());
            if (res.statusCode !== 201 || !parsed.head.ok) errors++;
          } catch {
            errors++;
          }
          // Every message of a burst is handed over at t0, as the node's are.
          latencies[done++] = performance.now() - started;
        }
      };
      await Promise.all(Array.from({ length: workers }, worker));
      const elapsedMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      return {
        elapsedMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        latencies: Array.from(latencies),
        outputs: count - errors,
        errors,
      };
    },
    close: () => pool.close(),
  };
}

/** The most requests the simulator saw start within any one second. */
function busiestSecond(log) {
  const times = log.map((r) => r.time).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function figures(r, total, requests) {
  return {
    msgPerSec: (total / r.elapsedMs) * 1000,
    cpuUsPerMsg: (r.cpuMs * 1000) / total,
    p50Ms: percentile(r.latencies, 50),
    p99Ms: percentile(r.latencies, 99),
    outputs: r.outputs,
    errors: r.errors,
    requestsPerMsg: requests / total,
  };
}

function summarize(runs) {
  const of = (key, digits) =>
    spread(
      runs.map((r) => r[key]),
      digits,
    );
  return {
    msgPerSec: of("msgPerSec", 0),
    cpuUsPerMsg: of("cpuUsPerMsg", 1),
    p50Ms: of("p50Ms", 2),
    p99Ms: of("p99Ms", 2),
    outputs: of("outputs", 0),
    errors: of("errors", 0),
    requestsPerMsg: of("requestsPerMsg", 2),
    ...(runs[0].busiestSecond !== undefined ? { busiestSecond: of("busiestSecond", 0) } : {}),
  };
}

async function measure({ quick, only }) {
  // Nine paired runs where a run takes well under a second, five in defaults mode (3 s each).
  // BENCH_RUNS: more, for a CPU profile (profile.js), so the runs outweigh the start-up.
  const runsOf = (mode) =>
    Number(process.env.BENCH_RUNS) || (quick ? 3 : mode === "defaults" ? 5 : 9);
  const modes = Object.keys(MODES).filter((m) => !only || only.includes(m));
  const sim = await startSimulator();
  const red = await startRuntime();
  const loops = {};
  try {
    // An offline device queues its commands without working on them: the simulator then spends
    // its time answering, not producing markers nobody reads here.
    await sim.control("PUT", `/devices/${DEVICE}/online`, { online: false });
    await red.deploy(flows(sim));
    const caughtS = red.getNode("caughtS");
    const make = (i) => ({ payload: { "/lcd/txt1": `m${i}` } });
    const requestsSeen = async () => (await sim.control("GET", "/stats")).total;

    const result = {};
    for (const mode of modes) {
      const m = MODES[mode];
      const runs = runsOf(mode);
      const total = quick ? m.quick : m.total;
      const loop = (loops[mode] = undiciLoop(sim, m.concurrency, m.rate));
      const send = red.getNode(m.account === "accW" ? "sendW" : "sendD");
      const sink = red.getNode(m.account === "accW" ? "sinkW" : "sinkD");
      const peers = {
        node: (count) =>
          drive({
            entry: send,
            sinks: [sink],
            errorSinks: [caughtS],
            total: count,
            window: Math.min(count, m.window),
            make,
          }),
        undici: (count) => loop.run(count, !Number.isFinite(m.window), make),
      };
      if (mode !== "defaults") {
        // Node-RED's floor: the same request from the barest node (bare-node/bare-request.js).
        peers.bare = (count) =>
          drive({
            entry: red.getNode("bare"),
            sinks: [red.getNode("sinkB")],
            errorSinks: [red.getNode("caughtB")],
            total: count,
            window: Math.min(count, m.window),
            make,
          });
      }
      if (mode === "window") {
        peers.handBuilt = (count) =>
          drive({
            entry: red.getNode("fn"),
            sinks: [red.getNode("sinkH")],
            errorSinks: [red.getNode("caughtH")],
            total: count,
            window: m.window,
            make,
          });
      }
      // BENCH_PEERS=node (say) runs one peer alone, for a CPU profile (profile.js).
      if (process.env.BENCH_PEERS) {
        for (const p of Object.keys(peers))
          if (!process.env.BENCH_PEERS.split(",").includes(p)) delete peers[p];
      }
      // A full collection before the warm-up, never between measured runs: a run right after a
      // forced full GC cost every peer about twice the CPU per message (burst of 1,000: the plain
      // loop 85 µs instead of 45; neither a 300 ms pause nor 300 messages of re-warming took it
      // away), which no user's Node-RED sees. The warm-up absorbs it; the garbage one peer leaves
      // to the next evens out in the alternating order.
      collect();
      // Warm-up: the JIT, the connections, the simulator's own.
      for (const run of Object.values(peers))
        await run(mode === "defaults" ? 20 : quick ? 500 : 2000);
      const samples = Object.fromEntries(Object.keys(peers).map((p) => [p, []]));
      for (let k = 0; k < runs; k++) {
        // Alternating order: the node first in even runs, the plain loop first in odd ones, so
        // that neither always runs on the warmer (or busier) machine.
        const order =
          k % 2 === 0
            ? ["node", "undici", "bare", "handBuilt"]
            : ["handBuilt", "bare", "undici", "node"];
        for (const name of order.filter((p) => peers[p])) {
          if (mode === "defaults") {
            // Each run starts with an empty one-second window, as the plain loop's always does.
            await sleep(1100);
            await sim.control("DELETE", "/requests");
          }
          const before = await requestsSeen();
          const r = await peers[name](total);
          const requests = (await requestsSeen()) - before;
          const f = figures(r, total, requests);
          if (mode === "defaults") {
            f.busiestSecond = busiestSecond(
              await sim.control("GET", `/requests?limit=${total * 2}`),
            );
          }
          samples[name].push(f);
        }
        if (!samples.node?.[k] || !samples.undici?.[k]) continue;
        const ratio = samples.node[k].msgPerSec / samples.undici[k].msgPerSec;
        progress(
          `commands ${mode} run ${k + 1}/${runs}: ` +
            Object.entries(samples)
              .map(
                ([p, list]) =>
                  `${p} ${round(list[k].msgPerSec)} msg/s ${round(list[k].cpuUsPerMsg, 1)} µs`,
              )
              .join(", ") +
            `, node/undici ${round(ratio, 2)}`,
        );
      }
      if (!samples.node || !samples.undici) {
        result[mode] = { messages: total, runs, runsDetail: samples };
        continue;
      }
      const pairs = samples.node.map((n, k) => ({
        ratio: n.msgPerSec / samples.undici[k].msgPerSec,
        cpuAddedUs: n.cpuUsPerMsg - samples.undici[k].cpuUsPerMsg,
      }));
      result[mode] = {
        messages: total,
        runs,
        concurrency: m.concurrency,
        ratePerSecond: m.rate,
        inFlight: Number.isFinite(m.window) ? m.window : total,
        peers: Object.fromEntries(Object.entries(samples).map(([p, s]) => [p, summarize(s)])),
        nodeVsUndici: spread(
          pairs.map((p) => p.ratio),
          2,
        ),
        cpuAddedUsPerMsg: spread(
          pairs.map((p) => p.cpuAddedUs),
          1,
        ),
        ...(samples.bare
          ? {
              bareVsUndici: spread(
                samples.bare.map((b, k) => b.msgPerSec / samples.undici[k].msgPerSec),
                2,
              ),
              nodeVsBare: spread(
                samples.node.map((n, k) => n.msgPerSec / samples.bare[k].msgPerSec),
                2,
              ),
              cpuOverBareUsPerMsg: spread(
                samples.node.map((n, k) => n.cpuUsPerMsg - samples.bare[k].cpuUsPerMsg),
                1,
              ),
            }
          : {}),
        ...(samples.handBuilt
          ? {
              nodeVsHandBuilt: spread(
                samples.node.map((n, k) => n.msgPerSec / samples.handBuilt[k].msgPerSec),
                2,
              ),
            }
          : {}),
        runsDetail: samples,
      };
    }
    return { modes: result };
  } finally {
    for (const loop of Object.values(loops)) await loop.close();
    await red.stop();
    await sim.stop();
  }
}

const PEER_LABELS = {
  node: "edge-send-command",
  undici: "plain undici loop",
  bare: "barest Node-RED node, same request",
  handBuilt: "hand-built (function + http request)",
};

function report(r) {
  const lines = [
    "Commands: min / median / max of paired runs, order alternating; burst and defaults hand all",
    "messages over at once. CPU is the runtime process's time per message.",
  ];
  const rows = [
    ["mode", "peer", "msg/s", "CPU µs/msg", "p50 ms", "p99 ms", "out+err/msg", "req/msg"],
  ];
  for (const [mode, m] of Object.entries(r.modes)) {
    if (!m.peers) continue;
    let first = true;
    for (const [peer, v] of Object.entries(m.peers)) {
      const label = first
        ? `${mode} (${fmt(m.messages)}, ${m.concurrency} at once${m.ratePerSecond ? `, ${m.ratePerSecond}/s` : ""})`
        : "";
      first = false;
      const ended = (v.outputs.median + v.errors.median) / m.messages;
      rows.push([
        label,
        PEER_LABELS[peer],
        mmm(v.msgPerSec),
        mmm(v.cpuUsPerMsg, 1),
        fmt(v.p50Ms.median, 1),
        fmt(v.p99Ms.median, 1),
        `${fmt(ended, 2)}${v.errors.max ? ` (${fmt(v.errors.max)} err)` : ""}`,
        fmt(v.requestsPerMsg.median, 2),
      ]);
    }
    rows.push([
      "",
      "node / undici, per pair",
      `${mmm(m.nodeVsUndici, 2)}x`,
      `+${mmm(m.cpuAddedUsPerMsg, 1)}`,
      "",
      "",
      "",
      "",
    ]);
    if (m.bareVsUndici) {
      rows.push([
        "",
        "bare node / undici (Node-RED's floor)",
        `${mmm(m.bareVsUndici, 2)}x`,
        "",
        "",
        "",
        "",
        "",
      ]);
      rows.push([
        "",
        "node / bare node, per pair",
        `${mmm(m.nodeVsBare, 2)}x`,
        `+${mmm(m.cpuOverBareUsPerMsg, 1)}`,
        "",
        "",
        "",
        "",
      ]);
    }
    if (m.nodeVsHandBuilt)
      rows.push([
        "",
        "node / hand-built, per pair",
        `${mmm(m.nodeVsHandBuilt, 2)}x`,
        "",
        "",
        "",
        "",
        "",
      ]);
    if (m.peers.node.busiestSecond) {
      rows.push([
        "",
        "requests started in the busiest second (node / undici)",
        `${mmm(m.peers.node.busiestSecond)} / ${mmm(m.peers.undici.busiestSecond)}`,
        "",
        "",
        "",
        "",
        "",
      ]);
    }
  }
  lines.push(table(rows));
  return lines;
}

function targets(r, add) {
  const m = r.modes;
  if (m.window?.nodeVsUndici) {
    add(
      "Commands, window: node / undici (median of pairs)",
      `${fmt(m.window.nodeVsUndici.median, 2)}x`,
      ">= 0.95x",
      m.window.nodeVsUndici.median >= 0.95,
    );
    add(
      "Commands, window: CPU added per message (median)",
      `${fmt(m.window.cpuAddedUsPerMsg.median, 1)} µs`,
      "<= 15 µs",
      m.window.cpuAddedUsPerMsg.median <= 15,
    );
    add(
      "Commands, window: node / hand-built (median)",
      `${fmt(m.window.nodeVsHandBuilt.median, 2)}x`,
      ">= 1.5x",
      m.window.nodeVsHandBuilt.median >= 1.5,
    );
  }
  if (m.burst?.nodeVsUndici) {
    add(
      "Commands, burst: node / undici (median of pairs)",
      `${fmt(m.burst.nodeVsUndici.median, 2)}x`,
      ">= 0.9x",
      m.burst.nodeVsUndici.median >= 0.9,
    );
    add(
      "Commands, burst: CPU added per message (median)",
      `${fmt(m.burst.cpuAddedUsPerMsg.median, 1)} µs`,
      "<= 15 µs",
      m.burst.cpuAddedUsPerMsg.median <= 15,
    );
  }
  for (const [mode, v] of Object.entries(m)) {
    if (!v.peers?.node) continue;
    const ended = v.peers.node.outputs.min + v.peers.node.errors.min;
    add(
      `Commands, ${mode}: every message ended once, no error`,
      `${fmt(v.peers.node.errors.max)} errors`,
      "0",
      v.peers.node.errors.max === 0 && ended === v.messages,
    );
  }
}

module.exports = { measure, report, targets };
if (require.main === module) runSection("commands", measure);
