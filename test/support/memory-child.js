// Run by test/reliability/memory.spec.js in a child Node.js with a small heap: deploys edge-list-events nodes
// on an account pointing at the hostile server given in EDGE_CASE, feeds them, and prints how
// each message ended as one JSON line. A crash (out of memory) prints nothing and exits non-zero.
"use strict";
const helper = require("node-red-node-test-helper");

helper.init(require.resolve("node-red"));

const NODES = [
  require("../../dist/nodes/edge-account/edge-account.js"),
  require("../../dist/nodes/edge-list-events/edge-list-events.js"),
  require("@node-red/nodes/core/common/25-catch.js"),
];

/** The most heap and resident memory used, sampled every 5 ms. */
let peak = 0;
let peakRss = 0;
setInterval(() => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
}, 5).unref();

async function main() {
  const {
    baseUrl,
    mode,
    messages,
    limit,
    maxEvents,
    account = {},
  } = JSON.parse(process.env.EDGE_CASE);
  await new Promise((resolve) => helper.startServer(resolve));
  const flow = [
    { id: "tab", type: "tab" },
    {
      id: "acc",
      type: "edge-account",
      baseUrl,
      company: "demo",
      rate: 0,
      retries: "0",
      ...account,
    },
    {
      id: "n1",
      z: "tab",
      type: "edge-list-events",
      account: "acc",
      stream: "s5f3c1a2b0000000000000011",
      limit: String(limit),
      start: "",
      mode,
      maxEvents: String(maxEvents ?? ""),
      wires: [["out"]],
    },
    { id: "out", z: "tab", type: "helper" },
    { id: "c1", z: "tab", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
    { id: "caught", z: "tab", type: "helper" },
  ];
  await helper.load(NODES, flow, { acc: { token: "memory-token-0123456789" } });
  const ended = [];
  const finished = new Promise((resolve) => {
    const end = (entry) => {
      ended.push(entry);
      if (ended.length === messages) resolve();
    };
    helper.getNode("out").on("input", (msg) => {
      end({ output: true, count: Array.isArray(msg.payload) ? msg.payload.length : 1 });
    });
    helper.getNode("caught").on("input", (msg) => {
      end({ code: msg.error.code, message: msg.error.message });
    });
  });
  for (let i = 0; i < messages; i++) helper.getNode("n1").receive({ payload: i });
  await finished;
  const heapMB = Math.round(process.memoryUsage().heapUsed / 1e6);
  const peakMB = Math.round(Math.max(peak, process.memoryUsage().heapUsed) / 1e6);
  const peakRssMB = Math.round(peakRss / 1e6);
  process.stdout.write(`${JSON.stringify({ ended, heapMB, peakMB, peakRssMB })}\n`);
  await helper.unload();
  await new Promise((resolve) => helper.stopServer(resolve));
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(2);
});
