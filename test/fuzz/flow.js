// The harness's flow in the test helper's Node-RED: every worker node on one account pointing at
// the fuzz server, helper nodes on every output and a Catch node, and a recorder that notes what
// reaches each helper (re-attached after every deploy, since a deploy makes new node instances).
"use strict";
const helper = require("node-red-node-test-helper");

helper.init(require.resolve("node-red"));

const TYPES = [
  require("../../dist/nodes/edge-account/edge-account.js"),
  require("../../dist/nodes/edge-device-state/edge-device-state.js"),
  require("../../dist/nodes/edge-send-command/edge-send-command.js"),
  require("../../dist/nodes/edge-list-events/edge-list-events.js"),
  require("../../dist/nodes/edge-await-command/edge-await-command.js"),
  require("../../dist/nodes/edge-watch-events/edge-watch-events.js"),
  require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js"),
  require("@node-red/nodes/core/common/25-catch.js"),
  require("@node-red/nodes/core/function/10-function.js"),
];

/**
 * What the Function node between send and await does to msg.command: what a user's flow that
 * builds the reference by hand passes on (issue 28, item 1).
 */
const SHAPE_COMMAND = `
const c = msg.command;
const shape = msg.fuzz && msg.fuzz.shape;
if (shape === "idDevice") msg.command = { id: c.id, device: c.device };
else if (shape === "iso") msg.command = { id: c.id, device: c.device, creationDate: new Date(c.creationDate).toISOString() };
else if (shape === "null") msg.command = { id: c.id, device: c.device, creationDate: null };
return msg;`;

/** The helper nodes, by the output they stand for. */
const SINKS = [
  "a1.ok",
  "a1.fault",
  "a1.late",
  "m1.out",
  "l1.out",
  "f1.report",
  "f1.each",
  "w1.out",
];

/**
 * The flow of a run. `config` holds the drawn settings: account {timeout, retries, rate,
 * concurrency}, awaitTimeout, fleet {timeout, rate, concurrency}, watch (bool), and `names`, a
 * name per node id that deploys change to make Node-RED restart that node.
 */
function flowOf(server, config, names = {}) {
  const z = "tab";
  const on = (n) => ({ z, name: names[n.id] ?? "", ...n });
  const { account: a, fleet } = config;
  const nodes = [
    { id: z, type: "tab", label: "fuzz" },
    on({
      id: "acc",
      type: "edge-account",
      baseUrl: server.url,
      company: server.company,
      timeout: String(a.timeout),
      retries: String(a.retries),
      rate: String(a.rate),
      concurrency: String(a.concurrency),
    }),
    on({ id: "s1", type: "edge-send-command", account: "acc", target: "device", device: "" }),
    on({ id: "fn1", type: "function", func: SHAPE_COMMAND, outputs: 1, wires: [["a1"]] }),
    on({
      id: "a1",
      type: "edge-await-command",
      account: "acc",
      inbox: "",
      timeout: String(config.awaitTimeout),
      interval: 50,
      wires: [["a1.ok"], ["a1.fault"], ["a1.late"]],
    }),
    on({ id: "m1", type: "edge-device-state", account: "acc", device: "", mode: "merge" }),
    on({ id: "l1", type: "edge-list-events", account: "acc", stream: "", mode: "page" }),
    on({
      id: "f1",
      type: "edge-fleet-command",
      account: "acc",
      devices: "",
      filter: "",
      elems: "",
      ttl: "",
      rate: fleet.rate,
      concurrency: fleet.concurrency,
      maxFailures: 0,
      timeout: String(fleet.timeout),
      interval: 50,
      store: "",
      wires: [["f1.report"], ["f1.each"]],
    }),
    on({ id: "c1", type: "catch", scope: null, uncaught: false, wires: [["caught"]] }),
    on({ id: "caught", type: "helper" }),
    ...SINKS.map((id) => on({ id, type: "helper" })),
  ];
  const node = (id) => nodes.find((n) => n.id === id);
  node("s1").wires = [["fn1"]];
  node("m1").wires = [["m1.out"]];
  node("l1").wires = [["l1.out"]];
  if (config.watch)
    nodes.push(
      on({
        id: "w1",
        type: "edge-watch-events",
        account: "acc",
        stream: server.telemetryPath,
        interval: 250,
        start: config.watchStart ?? "new",
        last: 10,
        store: "",
        wires: [["w1.out"]],
      }),
    );
  return { nodes, credentials: { acc: { token: server.token } } };
}

const recorded = new WeakSet();

/** Attaches the run's recorder to every helper node instance not yet attached. */
function attach(record) {
  for (const id of ["caught", ...SINKS]) {
    const node = helper.getNode(id);
    if (!node || recorded.has(node)) continue;
    recorded.add(node);
    node.on("input", (msg) => record(id, msg));
  }
}

/** Loads a run's flow: one load per run, unloaded after it. */
async function load(flow, record) {
  await helper.load(TYPES, flow.nodes, flow.credentials);
  attach(record);
}

/**
 * Deploys the flow again as the editor would, "full", "nodes" or "flows". The helper gives up
 * waiting for Node-RED's "started" event after 300 ms: then wait for the nodes to be there.
 */
async function redeploy(flow, type, record) {
  try {
    await helper.setFlows(flow.nodes, type, flow.credentials);
  } catch {
    for (let i = 0; i < 100 && !helper.getNode("caught"); i++)
      await new Promise((r) => setTimeout(r, 20));
  }
  attach(record);
}

module.exports = { helper, flowOf, load, redeploy, SINKS };
