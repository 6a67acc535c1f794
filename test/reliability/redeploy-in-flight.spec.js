// A deploy while edge-send-command's POSTs are in flight: the simulator makes each command at once
// and answers late (answerDelayMs), so the devices run the commands whatever the flow hears. Each
// message must still end once, at the node the deploy puts in place of the closed one: on its
// output with msg.restored, or with an error to its tab's Catch node that says the command may
// have been delivered. They once ended with done() alone: no output, no error (issue 28).
"use strict";
const assert = require("node:assert/strict");
const {
  deploy,
  helper,
  collect,
  noMessage,
  load,
  watch,
  withRedAndSimulator,
  CORE,
} = require("../support/red");
const { flowOf, sendCommand, slowClose } = require("../support/flow");
const { waitFor } = require("../support/simulator");
const { fault, requests, commandEvents } = require("../support/reliability");

const COUNT = 4;

/**
 * Every done() and done(err) of the nodes with id `id`, whichever instance: the redeployed node
 * ends its carried messages as the flows start, before a test could wrap that instance.
 */
function endsOf(id) {
  const Node = require("@node-red/runtime/lib/nodes/Node.js");
  const original = Node.prototype._complete;
  const ends = [];
  Node.prototype._complete = function (msg, err) {
    if (this.id === id) ends.push({ id: msg?._msgid, error: err });
    return original.call(this, msg, err);
  };
  return { ends, restore: () => (Node.prototype._complete = original) };
}

describe("edge-send-command redeployed while its commands are being sent", function () {
  this.timeout(30_000);
  const env = withRedAndSimulator();

  for (const [type, change] of [
    ["full", (nodes) => nodes],
    ["nodes", (nodes) => nodes.map((n) => (n.id === "send" ? { ...n, name: "renamed" } : n))],
  ]) {
    it(`ends each message once, with an error saying the command may have been sent, after a "${type}" deploy`, async function () {
      await fault(env.sim, { method: "POST", path: "/event", answerDelayMs: 20_000, count: COUNT });
      const { nodes, credentials } = flowOf(env.sim, [
        sendCommand("send", { wires: [["out"]] }),
        { id: "out", type: "helper" },
      ]);
      await load(nodes, credentials, [CORE.catch]);
      const ended = endsOf("send");
      const ids = [...Array(COUNT).keys()].map((i) => `m${i}`);
      try {
        for (const [i, _msgid] of ids.entries())
          helper.getNode("send").receive({ _msgid, payload: { "/lcd/txt1": `in flight ${i}` } });
        await waitFor(async () => (await requests(env.sim, "POST")).length === COUNT, {
          what: "the POSTs to reach the simulator",
        });
        await deploy(change(nodes), type, credentials);
        watch(nodes);
        const caught = await collect(helper.getNode("caught"), COUNT, 10_000);
        for (const c of caught) {
          assert.equal(c.edgeError.code, "aborted-uncertain", JSON.stringify(c.edgeError));
          assert.equal(c.edgeError.mayHaveBeenSent, true);
          assert.equal(c.restored, true);
          assert.match(c.error.message, /may or may not have been delivered/);
        }
        assert.deepEqual(caught.map((c) => c._msgid).sort(), ids);
        await Promise.all([
          noMessage(helper.getNode("out"), 300),
          noMessage(helper.getNode("caught"), 0),
        ]);
      } finally {
        ended.restore();
      }
      // Each ended once, with its error, whichever instance of the node ended it.
      assert.deepEqual(ended.ends.map((e) => e.id).sort(), ids);
      assert.ok(ended.ends.every((e) => e.error?.code === "aborted-uncertain"));
      // The devices ran each command once; nothing was sent again.
      assert.equal((await requests(env.sim, "POST")).length, COUNT);
      assert.equal((await commandEvents(env.sim, "lcd-board")).length, COUNT);
    });
  }

  it("ends each message once with its error when the deploy removes the node", async function () {
    await fault(env.sim, { method: "POST", path: "/event", answerDelayMs: 20_000, count: 2 });
    const { nodes, credentials } = flowOf(env.sim, [
      sendCommand("send", { wires: [["out"]] }),
      { id: "out", type: "helper" },
    ]);
    await load(nodes, credentials, [CORE.catch]);
    const ended = endsOf("send");
    try {
      for (const _msgid of ["m0", "m1"])
        helper.getNode("send").receive({ _msgid, payload: { "/lcd/txt1": "removed" } });
      await waitFor(async () => (await requests(env.sim, "POST")).length === 2, {
        what: "the POSTs to reach the simulator",
      });
      await deploy(
        nodes.filter((n) => n.id !== "send"),
        "nodes",
        credentials,
      );
    } finally {
      ended.restore();
    }
    assert.deepEqual(
      ended.ends.map((e) => `${e.id} ${e.error?.code}`).sort(),
      ["m0 aborted", "m1 aborted"].map((s) => `${s}-uncertain`),
    );
  });

  it("gives a result that came as the node closed to the redeployed node's output, with msg.restored", async function () {
    const { nodes, credentials } = flowOf(env.sim, [
      sendCommand("send", { wires: [["out"]] }),
      { id: "out", type: "helper" },
    ]);
    await load(nodes, credentials, [CORE.catch]);
    const send = helper.getNode("send");
    // The server answers, and the node closes before the send's step goes on with the answer.
    const account = helper.getNode("acc");
    const original = account.services.client.createEventByPath.bind(account.services.client);
    let answered;
    const answer = new Promise((resolve) => (answered = resolve));
    account.services.client.createEventByPath = async (...args) => {
      const event = await original(...args);
      answered();
      // Held until the deploy has closed the node.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return event;
    };
    send.receive({ _msgid: "r1", payload: { "/lcd/txt1": "answered" } });
    await answer;
    const changed = nodes.map((n) => (n.id === "send" ? { ...n, name: "renamed" } : n));
    await deploy(changed, "nodes", credentials);
    watch(changed);
    const [out] = await collect(helper.getNode("out"), 1, 10_000);
    assert.equal(out._msgid, "r1");
    assert.equal(out.restored, true);
    assert.equal(typeof out.command.id, "string");
    await noMessage(helper.getNode("caught"), 200);
    assert.equal((await commandEvents(env.sim, "lcd-board")).length, 1);
  });
  it("gives an answer that came while a deploy restarted the node after it to that node once it runs again", async function () {
    // The answer comes 300 ms after the POST, while "next" takes 600 ms to close: Node-RED drops a
    // message sent to a node the deploy is restarting, and the device had run the command.
    await fault(env.sim, { method: "POST", path: "/event", answerDelayMs: 300, count: 1 });
    const { nodes, credentials } = flowOf(env.sim, [
      sendCommand("send", { wires: [["next"]] }),
      { id: "next", type: "slow-close", name: "next", x: 200, y: 40, wires: [["out"]] },
      { id: "out", type: "helper" },
    ]);
    await load(nodes, credentials, [CORE.catch, slowClose]);
    helper.getNode("send").receive({ _msgid: "d1", payload: { "/lcd/txt1": "during a deploy" } });
    await waitFor(async () => (await requests(env.sim, "POST")).length === 1, {
      what: "the POST to reach the simulator",
    });
    const changed = nodes.map((n) => (n.id === "next" ? { ...n, name: "renamed" } : n));
    await deploy(changed, "nodes", credentials);
    const [out] = await collect(helper.getNode("out"), 1, 10_000);
    assert.equal(out._msgid, "d1");
    assert.equal(typeof out.command.id, "string");
    await Promise.all([
      noMessage(helper.getNode("out"), 300),
      noMessage(helper.getNode("caught"), 0),
    ]);
    assert.equal((await commandEvents(env.sim, "lcd-board")).length, 1);
  });
});
