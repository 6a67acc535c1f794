// A msg.command built by hand in a Function node, as users build one from an id they kept: no
// creationDate, an ISO date, a null one, an id that is a number. What the await node takes when
// the message comes, a deploy keeps: such a wait was taken and then dropped at the next full
// deploy ("A saved wait ... is not valid (field since)"), and its message never ended though the
// device completed the command (issue 28). Real Node-RED (test helper) against an inbox of the
// spec's own, whose markers it writes once the deploys are done.
"use strict";
const assert = require("node:assert/strict");
const {
  deploy: deployFlows,
  helper,
  collect,
  noMessage,
  load,
  watch,
  withRed,
  CORE,
} = require("../support/red");
const { flowOf, awaitCommand } = require("../support/flow");
const { inboxServer, account, marker } = require("../support/inbox-server");
const { hooks } = require("@node-red/util");
const FUNCTION = require("@node-red/nodes/core/function/10-function.js");

/** Each Function node builds one of these msg.command, in its own realm, and wires it to a1. */
const BUILT = {
  "no date": '{ id: "7", device: "lcd-board" }',
  "an ISO date": '{ id: "8", device: "lcd-board", creationDate: new Date().toISOString() }',
  "a null date": '{ id: "9", device: "lcd-board", creationDate: null }',
  "a date that is no date": '{ id: "11", device: "lcd-board", creationDate: "soon" }',
  "a Date object": '{ id: "12", device: "lcd-board", creationDate: new Date() }',
  "an id that is a number": "{ id: 10, device: 'lcd-board' }",
};

const builders = () =>
  Object.entries(BUILT).map(([what, command], i) => ({
    id: `fn${i}`,
    type: "function",
    name: what,
    func: `msg.command = ${command};\nreturn msg;`,
    outputs: 1,
    wires: [["a1"]],
  }));

describe("edge-await-command given a msg.command built in a Function node", function () {
  this.timeout(30_000);
  withRed();
  let server;

  beforeEach(async function () {
    server = await inboxServer([]);
  });
  afterEach(async function () {
    await server.close();
  });

  /** The flow: the builders, a1 and its outputs, a Catch node; deployed, watched, and `get`. */
  function flow(awaitProps = {}) {
    return flowOf(
      account(server),
      [...builders(), ...awaitCommand({ timeout: "20000", ...awaitProps })],
      { account: { rate: 0 } },
    );
  }

  async function deploy(type, awaitProps) {
    const f = flow(awaitProps);
    await deployFlows(f.nodes, type, f.credentials);
    watch(f.nodes);
  }

  it("keeps each wait across a full deploy and a modified-nodes deploy, and sends each result once", async function () {
    const f = flow();
    await load(f.nodes, f.credentials, [CORE.catch, FUNCTION]);
    const get = (id) => helper.getNode(id);
    const ids = Object.keys(BUILT).map((_, i) => {
      const msg = { _msgid: `m${i}`, keep: `kept ${i}` };
      get(`fn${i}`).receive(msg);
      return msg._msgid;
    });
    while (server.state.reads < 1) await new Promise((r) => setTimeout(r, 20));
    await deploy("full");
    // The await node changed: a "nodes" deploy restarts it alone.
    await deploy("nodes", { name: "renamed" });
    await noMessage(helper.getNode("caught"), 200);
    const now = Date.now();
    server.state.events.push(
      ...["7", "8", "9", 10, "11", "12"].map((ref, i) =>
        marker(now + i, { status: "COMMAND_COMPLETE", ref }),
      ),
    );
    const got = await collect(helper.getNode("ok"), ids.length, 15_000);
    assert.deepEqual(
      // msg.command leaves as it came: the id 10 is still a number.
      got.map((m) => String(m.command.id)).sort(),
      ["10", "11", "12", "7", "8", "9"],
      JSON.stringify(got.map((m) => m.command)),
    );
    for (const m of got) {
      assert.equal(m.restored, true);
      assert.equal(String(m.payload.elems.ref), String(m.command.id));
      assert.equal(m.keep, `kept ${ids.indexOf(m._msgid)}`);
    }
    await Promise.all([
      noMessage(helper.getNode("ok"), 300),
      noMessage(helper.getNode("fault"), 0),
      noMessage(helper.getNode("late"), 0),
      noMessage(helper.getNode("caught"), 0),
    ]);
    const dropped = (helper.log().args ?? []).filter((a) => /is not valid/.test(JSON.stringify(a)));
    assert.deepEqual(dropped, []);
  });

  for (const [what, id] of [
    ["-1", "-1"],
    ["7.5", "7.5"],
    ["0", "0"],
    ["true", "true"],
    ["an object", "{ n: 7 }"],
  ]) {
    it(`refuses a msg.command whose id is ${what} with no-command, and sends nothing on`, async function () {
      const { nodes, credentials } = flowOf(
        account(server),
        [
          {
            id: "fn",
            type: "function",
            func: `msg.command = { id: ${id}, device: "lcd-board", creationDate: Date.now() };\nreturn msg;`,
            outputs: 1,
            wires: [["a1"]],
          },
          ...awaitCommand({ timeout: "2000" }),
        ],
        { account: { rate: 0 } },
      );
      await load(nodes, credentials, [CORE.catch, FUNCTION]);
      helper.getNode("fn").receive({});
      const [caught] = await collect(helper.getNode("caught"), 1);
      assert.equal(caught.edgeError.code, "no-command");
      assert.match(caught.error.message, /its id is neither text nor a whole number above 0/);
      assert.equal(server.state.reads, 0);
      await noMessage(helper.getNode("late"), 100);
    });
  }

  // A message a node sent just before a deploy began reaches the await node once the deploy has
  // closed it: Node-RED delivers it there, to no listener, as it does for every node it stopped.
  // The package held such messages and handed them to the node in its place (seed 801, path 27 of
  // the fault harness); that hand-on skipped other packages' delivery hooks and gave a later wire
  // the msg a first wire's node had changed (issue 35). Node-RED's contract holds instead: the
  // message is dropped here as at a Function node in the await node's place, nothing is awaited
  // and nothing ends. Node-RED's preDeliver hook holds the delivery until the close.
  for (const type of ["edge-await-command", "function"]) {
    it(`leaves a message on its way to a ${type} node a full deploy closes to Node-RED, which drops it`, async function () {
      // The same flow, with a Function node as a1 for the core twin, loaded and deployed again.
      const shaped = () => {
        const f = flow();
        const a1 = f.nodes.find((n) => n.id === "a1");
        if (type === "function")
          Object.assign(a1, { type, func: "return msg;", outputs: 1, wires: [["ok"]] });
        return f;
      };
      const f = shaped();
      await load(f.nodes, f.credentials, [CORE.catch, FUNCTION]);
      const oldA1 = helper.getNode("a1");
      // Node-RED takes a node's input listeners away once its close listeners have run.
      const closed = new Promise((resolve) => {
        oldA1.on("close", () => setImmediate(resolve));
      });
      const HOLD = "preDeliver.await-hand-built-spec";
      hooks.add(HOLD, (event) => (event.msg?._msgid === "late" ? closed : undefined));
      try {
        helper.getNode("fn0").send({ _msgid: "late", command: { id: "21", device: "lcd-board" } });
        const again = shaped();
        await deployFlows(again.nodes, "full", again.credentials);
        watch(again.nodes);
        await closed;
      } finally {
        hooks.remove(HOLD);
      }
      assert.notEqual(helper.getNode("a1"), oldA1);
      server.state.events.push(marker(Date.now(), { status: "COMMAND_COMPLETE", ref: "21" }));
      await Promise.all([
        noMessage(helper.getNode("ok"), 600),
        noMessage(helper.getNode("caught"), 0),
        noMessage(helper.getNode("late"), 0),
      ]);
    });
  }

  // What the output says of how its result was matched (issue 35, item 10): a marker that names
  // the command's id is its own; one that names no command was taken by its date, and on such a
  // server two identical commands answered out of order swap results (msg.matchedBy).
  async function resultFor(elems) {
    const f = flowOf(account(server), awaitCommand({ timeout: "5000" }), {
      account: { rate: 0 },
    });
    await load(f.nodes, f.credentials, [CORE.catch]);
    const created = Date.now() - 1000;
    helper
      .getNode("a1")
      .receive({ command: { id: "41", device: "lcd-board", creationDate: created } });
    server.state.events.push(marker(created + 10, elems));
    const [got] = await collect(helper.getNode("ok"), 1, 10_000);
    return got;
  }

  it("leaves msg.matchedBy out when the result's marker names the command's id", async function () {
    const got = await resultFor({ status: "COMMAND_COMPLETE", ref: "41" });
    assert.equal(got.payload.elems.ref, "41");
    assert.equal("matchedBy" in got, false);
  });

  it('sets msg.matchedBy to "date" when the marker of the result names no command', async function () {
    const got = await resultFor({ status: "COMMAND_COMPLETE" });
    assert.equal(got.payload.elems.status, "COMMAND_COMPLETE");
    assert.equal(got.matchedBy, "date");
  });
});
