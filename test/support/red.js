// Real Node-RED through the test helper, with every node of a loaded flow recorded for the token
// scan: what it sends, its statuses, errors, warnings and log lines.
"use strict";
const helper = require("node-red-node-test-helper");
const { capture } = require("./capture");

helper.init(require.resolve("node-red"));

const NODES = {
  account: require("../../dist/nodes/edge-account/edge-account.js"),
  deviceState: require("../../dist/nodes/edge-device-state/edge-device-state.js"),
  sendCommand: require("../../dist/nodes/edge-send-command/edge-send-command.js"),
  listEvents: require("../../dist/nodes/edge-list-events/edge-list-events.js"),
  awaitCommand: require("../../dist/nodes/edge-await-command/edge-await-command.js"),
};
const ALL = Object.values(NODES);
const CORE = {
  catch: require("@node-red/nodes/core/common/25-catch.js"),
  join: require("@node-red/nodes/core/sequence/17-split.js"),
};

const WATCHED = ["send", "status", "error", "warn", "log"];

/** Loads a flow of our nodes (and any core nodes in `extra`), watching every node. */
async function load(flow, credentials = {}, extra = []) {
  await helper.load([...ALL, ...extra], flow, credentials);
  for (const n of flow) {
    const node = helper.getNode(n.id);
    if (!node) continue;
    for (const m of WATCHED) node.on(`call:${m}`, (call) => capture(`${n.type}.${m}`, ...call.args));
    if (n.type === "helper") node.on("input", (msg) => capture("helper.input", msg));
  }
}

async function unload() {
  const spy = helper.log && helper._logSpy;
  if (spy) for (const call of spy.getCalls()) capture("log", ...call.args);
  await helper.unload();
}

/** An account config node pointing at a simulator, and its credentials. */
function account(sim, extra = {}, creds = {}) {
  const node = { id: "acc", type: "edge-account", name: "sim", baseUrl: sim.url, company: sim.company, ...extra };
  return { node, credentials: { acc: { user: sim.user, token: sim.token, ...creds } } };
}

/** Resolves with the next message a helper node receives, or rejects after ms. */
function next(node, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message at ${node.id} within ${ms} ms`)), ms);
    node.once("input", (msg) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
}

/** Collects n messages at a helper node. */
function collect(node, n, ms = 5000) {
  return new Promise((resolve, reject) => {
    const got = [];
    const timer = setTimeout(() => reject(new Error(`${got.length}/${n} messages at ${node.id} within ${ms} ms`)), ms);
    const on = (msg) => {
      got.push(msg);
      if (got.length === n) {
        clearTimeout(timer);
        node.removeListener("input", on);
        resolve(got);
      }
    };
    node.on("input", on);
  });
}

/** The statuses a node showed, as {fill, shape, text}. */
function statuses(node) {
  const list = [];
  node.on("call:status", (call) => list.push(call.args[0]));
  return list;
}

module.exports = { helper, NODES, CORE, load, unload, account, next, collect, statuses };
