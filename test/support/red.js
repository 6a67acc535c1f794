// Real Node-RED through the test helper, with every node of a loaded flow recorded for the token
// scan: what it sends, its statuses, errors, warnings and log lines.
"use strict";
const assert = require("node:assert/strict");
const helper = require("node-red-node-test-helper");
const { capture } = require("./capture");

helper.init(require.resolve("node-red"));

const NODES = {
  account: require("../../dist/nodes/edge-account/edge-account.js"),
  deviceState: require("../../dist/nodes/edge-device-state/edge-device-state.js"),
  sendCommand: require("../../dist/nodes/edge-send-command/edge-send-command.js"),
  listEvents: require("../../dist/nodes/edge-list-events/edge-list-events.js"),
  awaitCommand: require("../../dist/nodes/edge-await-command/edge-await-command.js"),
  watchEvents: require("../../dist/nodes/edge-watch-events/edge-watch-events.js"),
};
const ALL = Object.values(NODES);
const CORE = {
  catch: require("@node-red/nodes/core/common/25-catch.js"),
  join: require("@node-red/nodes/core/sequence/17-split.js"),
};

const WATCHED = ["send", "status", "error", "warn", "log"];
const watched = new WeakSet();

/** Loads a flow of our nodes (and any core nodes in `extra`), watching every node. */
async function load(flow, credentials = {}, extra = []) {
  await helper.load([...ALL, ...extra], flow, credentials);
  watch(flow);
}

/**
 * Watches the running nodes of `flow`: after load(), and after a deploy (deploy below) that
 * made new instances of them.
 */
function watch(flow) {
  for (const n of flow) {
    const node = helper.getNode(n.id);
    // A node the deploy left running is watched already.
    if (!node || watched.has(node)) continue;
    watched.add(node);
    for (const m of WATCHED)
      node.on(`call:${m}`, (call) => capture(`${n.type}.${m}`, ...call.args));
    if (n.type === "helper") {
      // One listener per helper node, queueing what arrives: Node-RED's input dispatch does not
      // tolerate listeners removing themselves, and a queue cannot miss an early message.
      node.received = [];
      node.waiters = [];
      node.on("input", (msg) => {
        capture("helper.input", msg);
        node.received.push(msg);
        for (const w of node.waiters.splice(0)) w();
      });
    }
  }
}

/**
 * Deploys `flow` as the editor would ("full", "nodes" or "flows") and waits for Node-RED's
 * flows:started, up to 20 s. The test helper's setFlows gives up 300 ms after the deploy's call
 * returns, which a loaded machine passes: a "full" deploy closing nodes with POSTs on the wire
 * failed "timeout waiting event" beside two busy CPUs (issue 36).
 */
async function deploy(flow, type, credentials = {}) {
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      helper._events.off("flows:started", onStarted);
      reject(new Error(`Node-RED did not start the flows within 20 s of a "${type}" deploy`));
    }, 20_000);
    function onStarted() {
      clearTimeout(timer);
      helper._events.off("flows:started", onStarted);
      resolve();
    }
    helper._events.on("flows:started", onStarted);
  });
  await helper._redNodes.setFlows(flow, credentials, type);
  await started;
}

async function unload() {
  const spy = helper.log && helper._logSpy;
  if (spy) for (const call of spy.getCalls()) capture("log", ...call.args);
  await helper.unload();
}

/**
 * The hooks of a spec against servers of its own: one test-helper server per file, the flow
 * unloaded after each test.
 */
function withRed() {
  before(function (done) {
    helper.startServer(done);
  });
  after(function (done) {
    helper.stopServer(done);
  });
  afterEach(async function () {
    await unload();
  });
}

/**
 * The hooks every node spec shares: those of withRed, and a fresh simulator per test, closed
 * after the flow is unloaded. Tests read the simulator as `env.sim`.
 */
function withRedAndSimulator(simOptions = {}) {
  const { startSim } = require("./simulator");
  const env = { sim: undefined };
  withRed();
  beforeEach(async function () {
    env.sim = await startSim(simOptions);
  });
  afterEach(async function () {
    await env.sim.close();
  });
  return env;
}

/** An account config node pointing at a simulator, and its credentials. */
function account(sim, extra = {}, creds = {}) {
  const node = {
    id: "acc",
    type: "edge-account",
    name: "sim",
    baseUrl: sim.url,
    company: sim.company,
    ...extra,
  };
  return { node, credentials: { acc: { user: sim.user, token: sim.token, ...creds } } };
}

/** Waits until the helper node has received at least `n` messages not yet taken. */
function waitCount(node, n, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${node.received.length}/${n} messages at ${node.id} within ${ms} ms`));
    }, ms);
    const check = () => {
      if (node.received.length >= n) {
        clearTimeout(timer);
        resolve(node.received.splice(0, n));
      } else {
        node.waiters.push(check);
      }
    };
    check();
  });
}

/** The next message a helper node receives (or has received and nobody took yet). */
async function next(node, ms = 5000) {
  return (await waitCount(node, 1, ms))[0];
}

/** The next n messages at a helper node. */
function collect(node, n, ms = 5000) {
  return waitCount(node, n, ms);
}

/** Resolves if the helper node receives nothing new within ms. */
function noMessage(node, ms) {
  return new Promise((resolve, reject) => {
    const before = node.received.length;
    setTimeout(() => {
      if (node.received.length > before)
        reject(
          new Error(
            `unexpected message at ${node.id}: ${JSON.stringify(node.received.at(-1).payload)}`,
          ),
        );
      else resolve();
    }, ms);
  });
}

/** The statuses a node showed, as {fill, shape, text}. */
function statuses(node) {
  const list = [];
  node.on("call:status", (call) => list.push(call.args[0]));
  return list;
}

/**
 * Node-RED copies a thrown error's `code` into the Catch node's msg.error from 4.1 on; 4.0 does
 * not, so there msg.error.code is missing and msg.edgeError.code is what flows read.
 */
const COPIES_CODE = !/^4\.0\./.test(require("node-red/package.json").version);

/** The error code a Catch node got, checked in both places a flow may read it. */
function caughtCode(msg) {
  assert.equal(msg.error.code, COPIES_CODE ? msg.edgeError?.code : undefined, "msg.error.code");
  return msg.edgeError?.code;
}

module.exports = {
  helper,
  deploy,
  caughtCode,
  NODES,
  CORE,
  load,
  watch,
  unload,
  account,
  next,
  collect,
  noMessage,
  statuses,
  withRed,
  withRedAndSimulator,
};
