// The one test flow of the node specs: a tab, an account on the simulator, the node under test
// ("n1") wired to a helper node "out", and a Catch node for the tab wired to a helper "caught".
// A spec gives only what differs: the node's type and properties, the account's, extra nodes.
"use strict";
const { load, account, helper, CORE } = require("./red");

const TAB = "tab";

/** The flow's nodes and credentials; every node without a `z` is put on the tab. */
function testFlow(
  sim,
  node,
  { account: accountProps = {}, credentials = {}, extraNodes = [] } = {},
) {
  const acc = account(sim, { z: TAB, ...accountProps }, credentials);
  const onTab = (n) => ({ z: TAB, ...n });
  return {
    nodes: [
      { id: TAB, type: "tab" },
      acc.node,
      onTab({ id: "n1", account: acc.node.id, wires: [["out"]], ...node }),
      onTab({ id: "out", type: "helper" }),
      onTab({ id: "c1", type: "catch", scope: null, uncaught: false, wires: [["caught"]] }),
      onTab({ id: "caught", type: "helper" }),
      ...extraNodes.map(onTab),
    ],
    credentials: acc.credentials,
  };
}

/**
 * Loads the test flow into the test helper's Node-RED; resolves with the node under test (n1),
 * the helper nodes out and caught, and get(id) for any other node.
 */
async function startNode(sim, node, options = {}) {
  const f = testFlow(sim, node, options);
  await load(f.nodes, f.credentials, [CORE.catch, ...(options.extraTypes ?? [])]);
  return {
    n1: helper.getNode("n1"),
    out: helper.getNode("out"),
    caught: helper.getNode("caught"),
    get: (id) => helper.getNode(id),
  };
}

module.exports = { testFlow, startNode, TAB };
