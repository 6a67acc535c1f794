// The one test flow of the node specs: a tab, an account on the simulator, the nodes under test,
// and a Catch node for the tab wired to a helper "caught". A spec gives only what differs.
// startNode() is the common case: the node under test ("n1") wired to a helper "out".
"use strict";
const { load, account, helper, CORE } = require("./red");

const TAB = "tab";

/** The flow's nodes and credentials; every node without a `z` is put on the tab. */
function flowOf(sim, nodes, { account: accountProps = {}, credentials = {} } = {}) {
  const acc = account(sim, { z: TAB, ...accountProps }, credentials);
  const onTab = (n) => ({ z: TAB, ...n });
  return {
    nodes: [
      { id: TAB, type: "tab" },
      acc.node,
      ...nodes.map((n) => onTab(n.type?.startsWith("edge-") ? { account: acc.node.id, ...n } : n)),
      onTab({ id: "c1", type: "catch", scope: null, uncaught: false, wires: [["caught"]] }),
      onTab({ id: "caught", type: "helper" }),
    ],
    credentials: acc.credentials,
  };
}

/** Loads the flow into the test helper's Node-RED; resolves with get(id) for any of its nodes. */
async function startFlow(sim, nodes, options = {}) {
  const f = flowOf(sim, nodes, options);
  await load(f.nodes, f.credentials, [CORE.catch, ...(options.extraTypes ?? [])]);
  return { get: (id) => helper.getNode(id) };
}

/**
 * The node under test as "n1", wired to a helper "out"; resolves with n1, out, caught and get(id).
 * `options.extraNodes` join the flow.
 */
async function startNode(sim, node, options = {}) {
  const nodes = [
    { id: "n1", wires: [["out"]], ...node },
    { id: "out", type: "helper" },
    ...(options.extraNodes ?? []),
  ];
  const { get } = await startFlow(sim, nodes, options);
  return { n1: get("n1"), out: get("out"), caught: get("caught"), get };
}

/** An edge-send-command node to the lcd-board, as the await specs use it. */
function sendCommand(id, props = {}) {
  return {
    id,
    type: "edge-send-command",
    target: "device",
    device: "lcd-board",
    elems: "",
    ttl: "",
    ...props,
  };
}

/** An edge-await-command node "a1" and the helper nodes ok, fault and late on its outputs. */
function awaitCommand(props = {}) {
  return [
    {
      id: "a1",
      type: "edge-await-command",
      inbox: "",
      timeout: "",
      interval: 50,
      wires: [["ok"], ["fault"], ["late"]],
      ...props,
    },
    { id: "ok", type: "helper" },
    { id: "fault", type: "helper" },
    { id: "late", type: "helper" },
  ];
}

/**
 * A node that passes messages on and takes 600 ms to close, as a node that flushes something at
 * its close does: while a deploy restarts it, Node-RED has no node of its id to route a message to.
 */
function slowClose(RED) {
  RED.nodes.registerType("slow-close", function (config) {
    RED.nodes.createNode(this, config);
    this.on("input", (msg, send, done) => {
      send(msg);
      done();
    });
    this.on("close", (done) => setTimeout(done, 600));
  });
}

module.exports = {
  slowClose,
  flowOf,
  startFlow,
  startNode,
  sendCommand,
  awaitCommand,
  TAB,
};
