// The harness's flow in the test helper's Node-RED: every worker node on one account pointing at
// the fuzz server, helper nodes on every output and a Catch node, and a recorder that notes what
// reaches each helper (re-attached after every deploy, since a deploy makes new node instances),
// and what Node-RED itself dropped on its way to one (a deploy that stopped it meanwhile).
"use strict";
const helper = require("node-red-node-test-helper");
const { events, hooks } = require("@node-red/util");

helper.init(require.resolve("node-red"));
// The nodes get RED.hooks, as a real runtime gives them (test/support/runtime-hooks.js).
require("../support/runtime-hooks").giveRuntimeHooks(helper);
const { startFuzzServer } = require("./server");

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

/**
 * Messages Node-RED itself drops at a deploy (README, Reliability: "a message any node had already
 * sent on to a node that the deploy restarts can still be dropped by Node-RED"). Node-RED hands a
 * sent message to its receiver in a later turn of the event loop (setImmediate); a deploy that
 * stops the receiver in between leaves it without input listeners, and the message goes nowhere.
 * A node's end that left before the deploy began (`flows:stopping`) is then lost through no fault
 * of the node. Seen through Node-RED's own message hooks, never through what the nodes say: each
 * message delivered to a helper instance already closed is recorded with `sentBefore`, whether it
 * was sent before the deploy that closed that instance began.
 */
let deploysBegun = 0;
const sentAt = new WeakMap();
const onStopping = () => {
  deploysBegun++;
};
const HOOKS = {
  "preDeliver.fuzz-harness": (event) => {
    if (event.msg && typeof event.msg === "object") sentAt.set(event.msg, deploysBegun);
  },
  "onReceive.fuzz-harness": (event) => {
    const entry = recorded.get(event.destination?.node);
    if (!entry || entry.closedAt === undefined) return;
    const sent = sentAt.get(event.msg);
    entry.record(entry.id, event.msg, { dropped: true, sentBefore: sent < entry.closedAt });
  },
};

/** Each helper node instance attached to a run: its id, the run's recorder, and its close. */
const recorded = new WeakMap();

/** Attaches the run's recorder to every helper node instance not yet attached. */
function attach(record) {
  for (const id of ["caught", ...SINKS]) {
    const node = helper.getNode(id);
    if (!node || recorded.has(node)) continue;
    const entry = { id, record, closedAt: undefined };
    recorded.set(node, entry);
    node.on("input", (msg) => record(id, msg));
    // Node-RED takes a node's input listeners away as it closes it.
    node.on("close", () => {
      entry.closedAt = deploysBegun;
    });
  }
}

/**
 * The run's recorder, attached at every flows:started too: a message the nodes hand to the helper
 * node a deploy put in place of the one it closed (nodes/lib/node-red/late-input.ts) arrives there
 * then, before the deploy's promise resolves (redeploy()).
 */
let current;
const onStarted = () => {
  if (current) attach(current);
};

/** Loads a run's flow: one load per run, unloaded after it (unload()). */
async function load(flow, record) {
  for (const [id, hook] of Object.entries(HOOKS)) hooks.add(id, hook);
  events.on("flows:stopping", onStopping);
  current = record;
  events.on("flows:started", onStarted);
  await helper.load(TYPES, flow.nodes, flow.credentials);
  attach(record);
}

/** Unloads a run's flow, and stops watching Node-RED's messages for it. */
async function unload() {
  try {
    await helper.unload();
  } finally {
    for (const id of Object.keys(HOOKS)) hooks.remove(id);
    events.off("flows:stopping", onStopping);
    events.off("flows:started", onStarted);
    current = undefined;
  }
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

/**
 * The fuzz server and the test helper's Node-RED for a mocha describe(): started before its
 * tests, stopped after; `env.server` is the server.
 */
function withFuzzServer() {
  const env = { server: undefined };
  before(async function () {
    await new Promise((resolve) => helper.startServer(resolve));
    env.server = await startFuzzServer();
  });
  after(async function () {
    await env.server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });
  return env;
}

module.exports = { helper, flowOf, load, unload, redeploy, withFuzzServer, SINKS };
