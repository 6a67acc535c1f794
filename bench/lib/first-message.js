// One run of the load section's "first message" measure, in a fresh process: a Node-RED runtime
// with this package installed, then a deploy (the examples, or the hand-built flow) and the first
// message after it, to its output. Sends {deployMs, firstMs} to the parent over IPC.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { handBuiltNodes, startRuntime } = require("./node-red");

const mode = process.argv[2];
const sim = JSON.parse(process.env.BENCH_SIM);
const DEVICE = "lcd-board";

function examples() {
  const dir = path.join(__dirname, "..", "..", "examples");
  const byId = new Map();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    for (const node of JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"))) {
      if (node.type === "edge-account") {
        node.baseUrl = sim.url;
        node.company = sim.company;
        node.credentials = { user: sim.user, token: sim.token };
      }
      byId.set(node.id, node);
    }
  }
  const flow = [...byId.values()];
  // Example 02's send-command; its output goes to the await node and to a debug node.
  const entry = flow.find((n) => n.type === "edge-send-command" && n.device === DEVICE);
  const sink = entry.wires[0].map((id) => byId.get(id)).find((n) => n.type === "debug");
  return { flow, entry: entry.id, sink: sink.id, msg: { payload: "first message" } };
}

function handBuilt() {
  const flow = [
    { id: "tab", type: "tab", label: "hand-built" },
    ...handBuiltNodes(sim, DEVICE, '{ "/lcd/txt1": msg.payload }', "dbg"),
    {
      id: "dbg",
      z: "tab",
      type: "debug",
      active: true,
      tosidebar: true,
      console: false,
      tostatus: false,
      complete: "payload",
      targetType: "msg",
      wires: [],
    },
  ];
  return { flow, entry: "fn", sink: "dbg", msg: { payload: "first message" } };
}

async function main() {
  const red = await startRuntime();
  const { flow, entry, sink, msg } = mode === "examples" ? examples() : handBuilt();
  const t0 = performance.now();
  await red.deploy(flow);
  const deployMs = performance.now() - t0;
  const out = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no output within 30 s")), 30000);
    red.getNode(sink).on("input", (m, _send, done) => {
      clearTimeout(timer);
      resolve(m);
      done();
    });
  });
  const t1 = performance.now();
  red.getNode(entry).receive(msg);
  const m = await out;
  const firstMs = performance.now() - t1;
  const ok = mode === "examples" ? typeof m.payload?.id === "string" : m.statusCode === 201;
  if (!ok) throw new Error(`the first message failed: ${JSON.stringify(m.payload)}`);
  await red.stop();
  process.send({ deployMs, firstMs }, () => process.exit(0));
}

main().catch((err) => {
  process.stderr.write(`first message (${mode}) failed: ${err.stack}\n`);
  process.exit(1);
});
