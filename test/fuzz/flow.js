// The harness's flow in the test helper's Node-RED: every worker node on one account pointing at
// the fuzz server, helper nodes on every output and a Catch node, and a recorder that notes what
// reaches each helper (re-attached after every deploy, since a deploy makes new node instances),
// and what Node-RED itself dropped on its way to one (a deploy that stopped it meanwhile).
"use strict";
const helper = require("node-red-node-test-helper");
const { events, hooks } = require("@node-red/util");

helper.init(require.resolve("node-red"));
const { startFuzzServer } = require("./server");
const { nodeModules } = require("../support/node-types");

const TYPES = [
  ...nodeModules(),
  require("@node-red/nodes/core/common/25-catch.js"),
  require("@node-red/nodes/core/function/10-function.js"),
  require("@node-red/nodes/core/common/60-link.js"),
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

/**
 * The Function node on the first wire of the wiring flow's source: it makes the msg its own, as a
 * user's branch does (issue 35, item 1). A node on a later wire that saw this change would send
 * its command to dev5 with these elems, which the flow never asked for.
 */
const MUTATE = `
msg.deviceId = "dev5";
msg.payload = { "/fuzz/mut": msg.fuzz && msg.fuzz.n };
return msg;`;

/**
 * A node wired to two nodes, as users wire them (issue 35, section 1): the source (a Function
 * node that passes the msg on) has one output with two wires, the first to the Function node that
 * changes the msg, the second to a send node (Device empty, so msg.deviceId). Node-RED gives the
 * second wire its own copy.
 */
function wiringNodes(on) {
  return [
    on({ id: "src", type: "function", func: "return msg;", outputs: 1, wires: [["mut1", "s2"]] }),
    on({ id: "mut1", type: "function", func: MUTATE, outputs: 1, wires: [["mut.out"]] }),
    on({
      id: "s2",
      type: "edge-send-command",
      account: "acc",
      target: "device",
      device: "",
      wires: [["s2.out"]],
    }),
  ];
}

/** The subflow of the subflows property: its instances, and the nodes of its template. */
const SUBFLOW_INSTANCES = ["sfA", "sfB", "sfC"];
const SUBFLOW_NODES = ["sf.s", "sf.a"];

/**
 * Our nodes as users wire them into subflows and behind link nodes (issue 35, section 1): a
 * subflow "send and await" (a send node into an await node, its three outputs the subflow's),
 * instantiated three times. Its messages come in on `inA` straight into instance sfA; on `inB`
 * through a link out to a link in, into sfB; on `inC` through a link call to a link in, into
 * sfC, whose outputs all go to a link out in return mode, back to the link call.
 */
function subflowNodes(onTab, config, names) {
  const port = (p) => ({ x: 0, y: 0, wires: [{ id: "sf.a", port: p }] });
  // x and y make a node a flow node, as the editor saves one: a link node without them is taken
  // for a config node, and its links for a circle of dependencies (as in differential.spec.js).
  const at = (n) => ({ x: 100, y: 100, ...n });
  const inner = (n) => at({ z: "sf1", name: names[n.id] ?? "", ...n });
  const on = (n) => at(onTab(n));
  const pass = (id, to) =>
    on({ id, type: "function", func: "return msg;", outputs: 1, wires: [[to]] });
  return [
    {
      id: "sf1",
      type: "subflow",
      name: names.sf1 ?? "send and await",
      info: "",
      in: [{ x: 0, y: 0, wires: [{ id: "sf.s" }] }],
      out: [port(0), port(1), port(2)],
    },
    inner({
      id: "sf.s",
      type: "edge-send-command",
      account: "acc",
      target: "device",
      device: "",
      wires: [["sf.a"]],
    }),
    inner({
      id: "sf.a",
      type: "edge-await-command",
      account: "acc",
      inbox: "",
      timeout: String(config.awaitTimeout),
      interval: 50,
      wires: [[], [], []],
    }),
    pass("inA", "sfA"),
    on({ id: "sfA", type: "subflow:sf1", wires: [["sfA.ok"], ["sfA.fault"], ["sfA.late"]] }),
    pass("inB", "loB"),
    on({ id: "loB", type: "link out", mode: "link", links: ["liB"], wires: [] }),
    on({ id: "liB", type: "link in", links: ["loB"], wires: [["sfB"]] }),
    on({ id: "sfB", type: "subflow:sf1", wires: [["sfB.ok"], ["sfB.fault"], ["sfB.late"]] }),
    pass("inC", "lcC"),
    on({
      id: "lcC",
      type: "link call",
      links: ["liC"],
      linkType: "static",
      timeout: "30",
      wires: [["lcC.out"]],
    }),
    on({ id: "liC", type: "link in", links: [], wires: [["sfC"]] }),
    on({ id: "sfC", type: "subflow:sf1", wires: [["retC"], ["retC"], ["retC"]] }),
    on({ id: "retC", type: "link out", mode: "return", links: [], wires: [] }),
    ...SUB_SINKS.map((id) => on({ id, type: "helper" })),
  ];
}

/** The helper nodes of the subflows property (only its flows have them). */
const SUB_SINKS = ["sfA.ok", "sfA.fault", "sfA.late", "sfB.ok", "sfB.fault", "sfB.late", "lcC.out"];

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
  "mut.out",
  "s2.out",
];

/**
 * The flow of a run. `config` holds the drawn settings: account {timeout, retries, rate,
 * concurrency}, awaitTimeout, fleet {timeout, rate, concurrency}, watch (bool), and `names`, a
 * name per node id that deploys change to make Node-RED restart that node.
 */
function flowOf(server, config, names = {}, broken = false, disabled = null) {
  const z = "tab";
  // `disabled` (issue 35, item 5): "tab" disables the tab, a node id marks that node `d: true`,
  // as the editor's "Disable flow" and "Disable node" deploy them.
  const on = (n) => ({
    z,
    name: names[n.id] ?? "",
    ...n,
    ...(disabled === n.id ? { d: true } : {}),
  });
  const { account: a, fleet } = config;
  const nodes = [
    { id: z, type: "tab", label: "fuzz", ...(disabled === "tab" ? { disabled: true } : {}) },
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
  if (config.wiring) nodes.push(...wiringNodes(on));
  if (config.subflows) nodes.push(...subflowNodes(on, config, names));
  // A deploy that never starts: a node of a type no package installed (the editor's "deploy
  // anyway"). Node-RED stops the changed nodes and waits for the type (issue 35, item 2).
  if (broken) nodes.push(on({ id: "missing1", type: "fuzz-not-installed", wires: [] }));
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
/** Whether each message delivered was sent by one of this package's nodes. */
const sentByOurs = new WeakMap();
/** Between a deploy's flows:stopping and its flows:started, or its failure to start. */
let deploying = false;
const onStopping = () => {
  deploysBegun++;
  deploying = true;
};
const onRuntimeEvent = (event) => {
  if (event?.id === "runtime-state" && event.payload?.error) deploying = false;
};
const ours = (node) => typeof node?.type === "string" && node.type.startsWith("edge-");

/**
 * Another package's policy hook (issue 35, item 8): a message that carries `policyBlock` is not
 * delivered to the wiring flow's send node. Node-RED runs it for every delivery; a message handed
 * on past it would reach the node anyway.
 */
const blocked = [];

/**
 * A message Node-RED drops on its way to a node of the flow other than a helper: the node was
 * stopped by a deploy (its instance closed, or no node of its id while the deploy runs). Recorded
 * as a drop `midway`, with `sentBefore` true when the sender is not one of ours (Node-RED's
 * contract: it drops a message for a node that is not running) or sent it before that deploy
 * began; one of ours holds its outputs while a deploy is under way.
 */
function dropMidway(id, msg, sentBeforeClose) {
  if (!current || !msg || typeof msg !== "object") return;
  current(id, msg, { dropped: true, midway: true, sentBefore: sentBeforeClose });
}

const HOOKS = {
  "preRoute.fuzz-harness": (event) => {
    const id = event.destination?.id;
    if (!flowIds.has(id) || helper.getNode(id)) return;
    // Node-RED's router finds no node of that id: the message goes nowhere.
    dropMidway(id, event.msg, !ours(event.source?.node) || !deploying);
  },
  "preDeliver.fuzz-harness": (event) => {
    if (!event.msg || typeof event.msg !== "object") return undefined;
    sentAt.set(event.msg, deploysBegun);
    sentByOurs.set(event.msg, ours(event.source?.node));
    if (event.destination?.id === "s2" && event.msg.policyBlock) {
      blocked.push(event.msg.fuzz?.n);
      return false;
    }
    return undefined;
  },
  "onReceive.fuzz-harness": (event) => {
    const node = event.destination?.node;
    const entry = recorded.get(node);
    if (entry && entry.closedAt !== undefined) {
      const sent = sentAt.get(event.msg);
      entry.record(entry.id, event.msg, { dropped: true, sentBefore: sent < entry.closedAt });
      return;
    }
    const other = others.get(node);
    if (other && other.closedAt !== undefined) {
      const sent = sentAt.get(event.msg);
      dropMidway(other.id, event.msg, !sentByOurs.get(event.msg) || sent < other.closedAt);
    }
  },
};

/** Each helper node instance attached to a run: its id, the run's recorder, and its close. */
const recorded = new WeakMap();
/** Every other node instance of a run's flow: its id and when a deploy closed it. */
const others = new WeakMap();
/** The ids of the nodes of the flow loaded now. */
let flowIds = new Set();

/** Attaches the run's recorder to every helper node instance not yet attached. */
function attach(record) {
  for (const id of ["caught", ...SINKS, ...SUB_SINKS]) {
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
  for (const id of flowIds) {
    const node = helper.getNode(id);
    if (!node || recorded.has(node) || others.has(node)) continue;
    const entry = { id, closedAt: undefined };
    others.set(node, entry);
    node.on("close", () => {
      entry.closedAt = deploysBegun;
    });
  }
}

/**
 * The run's recorder, attached at every flows:started too: an output a node held through a deploy
 * (nodes/lib/node-red/deploying.ts) arrives at the helper node in place then, before the deploy's
 * promise resolves (redeploy()).
 */
let current;
const onStarted = () => {
  deploying = false;
  if (current) attach(current);
};

/** The ids of a flow's nodes that take messages, helper nodes and config nodes aside. */
const idsOf = (flow) => {
  const ids = new Set(
    flow.nodes
      .filter(
        (n) =>
          n.type !== "tab" &&
          n.type !== "edge-account" &&
          n.type !== "helper" &&
          n.type !== "subflow",
      )
      .map((n) => n.id),
  );
  // A subflow's nodes run in each instance as `<instance id>-<template id>` (Node-RED 4,
  // Subflow.js createNodeInSubflow): those are the ids its messages are routed to.
  for (const instance of SUBFLOW_INSTANCES) {
    if (!ids.has(instance)) continue;
    ids.delete("sf.s");
    ids.delete("sf.a");
    for (const id of SUBFLOW_NODES) ids.add(`${instance}-${id}`);
  }
  return ids;
};

/** The bearer token of the read-only user of the readers property (adminAuth below). */
const READER_TOKEN = "fuzz-reader-token";

/**
 * The editor's admin API as a runtime with adminAuth has it, for the readers property (issue 35,
 * section 1: the read-only user's attempts). The test helper gives nodes a stub of RED.auth
 * whose needsPermission lets every request through; Node-RED gives them its editor API's auth
 * (@node-red/registry util.js: `red.auth = runtime.adminApi.auth`). With `readers` the nodes'
 * RED.auth is that very module, set up with anonymous users of every permission (the other
 * properties' Cancels, as an admin's) and one user with "read" only, known by a bearer token.
 */
const realAuth = require("@node-red/editor-api/lib/auth");
let readersOn = false;
const createNodeApi = helper._registryUtil.createNodeApi;
helper._registryUtil.createNodeApi = function (...args) {
  const red = createNodeApi.apply(this, args);
  if (readersOn) red.auth = { needsPermission: realAuth.needsPermission };
  return red;
};
/** Set up at each load of the readers property: the helper's startServer sets it up anew. */
const readersAuth = () =>
  realAuth.init(
    {
      adminAuth: {
        type: "credentials",
        // Never logged in with: the reader comes with its token.
        users: [{ username: "reader", password: "-", permissions: "read" }],
        default: { permissions: "*" },
        tokens: [{ token: READER_TOKEN, user: "reader", scope: ["read"] }],
      },
    },
    { getSessions: () => Promise.resolve({}), saveSessions: () => Promise.resolve() },
  );

/** Loads a run's flow: one load per run, unloaded after it (unload()). */
async function load(flow, record, { readers = false } = {}) {
  readersOn = readers;
  if (readers) readersAuth();
  flowIds = idsOf(flow);
  blocked.length = 0;
  for (const [id, hook] of Object.entries(HOOKS)) hooks.add(id, hook);
  events.on("flows:stopping", onStopping);
  current = record;
  events.on("flows:started", onStarted);
  events.on("runtime-event", onRuntimeEvent);
  deploying = false;
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
    events.off("runtime-event", onRuntimeEvent);
    current = undefined;
  }
}

/**
 * Deploys the flow again as the editor would, "full", "nodes" or "flows". The helper gives up
 * waiting for Node-RED's "started" event after 300 ms: then wait for the nodes to be there.
 */
async function redeploy(flow, type, record) {
  flowIds = idsOf(flow);
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
    // A token per run: what an earlier run's flow still sends is seen as such (invariants.js).
    env.server = await startFuzzServer({ tokenPerRun: true });
  });
  after(async function () {
    await env.server?.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  });
  return env;
}

module.exports = {
  helper,
  flowOf,
  load,
  unload,
  redeploy,
  withFuzzServer,
  SINKS,
  SUB_SINKS,
  READER_TOKEN,
  blocked,
};
