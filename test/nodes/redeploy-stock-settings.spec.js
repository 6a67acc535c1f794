// Redeploys on the settings Node-RED ships: a real Node-RED process whose settings.js has no
// `contextStorage`, where Node-RED deletes a node's context when the node closes (issue 19).
// Pending waits of edge-await-command and the position of edge-watch-events must survive a full
// deploy and a "nodes" or "flows" deploy that restarts the node, and go when the node is removed.
// What leaves the nodes is posted by core http request nodes to a collector in this process.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor, sleep } = require("../support/simulator");
const {
  withRestarts,
  deployFlows,
  commandFlow,
  watchFlow,
  pressInject,
} = require("../support/node-red-process");

const WAIT = 30000;
const INBOX_GETS = "GET /v5.0/demo/event";
/** Node-RED's settings.js as shipped leaves contextStorage out: the default memory store. */
const STOCK = {};
/** How many times the await node a1 said that a restart loses its waits. */
const toldVolatile = (red) =>
  red
    .output()
    .split(
      "[warn] [edge-await-command:a1] The context store of this node's pending waits is not persistent",
    ).length - 1;

/** The restart flow (test/support/node-red-process.js), store: default. */
const commandFlows = (sim, sink, awaitProps = {}) =>
  commandFlow(sim, sink, {
    label: "redeploy",
    text: "across a redeploy",
    keep: "kept",
    fields: "id: msg.command.id, keep: msg.keep, markers: msg.markers.length",
    awaitProps,
  });

const STARTED = /\[info\] Started (flows|modified nodes|modified flows)/g;

/**
 * Deploys and waits until Node-RED has started what it deployed: the deploy answers before, and
 * a node the deploy left running (the inject) could pass a message to one not yet started.
 */
async function deploy(red, flows, options) {
  const before = (red.output().match(STARTED) ?? []).length;
  await deployFlows(red.url, flows, options);
  await waitFor(() => (red.output().match(STARTED) ?? []).length > before, {
    timeoutMs: WAIT,
    intervalMs: 20,
    what: `the deploy to start\n${red.output().slice(-2000)}`,
  });
}

const inject = (red) => pressInject(red, WAIT);

describe("edge-await-command and edge-watch-events redeployed on Node-RED's stock settings", function () {
  this.timeout(180000);
  const env = withRestarts("/out", "/error", "/event", "/status");
  let sim;
  let sink;
  let posted;

  beforeEach(async function () {
    ({ sim, sink } = env);
    posted = sink.got["/out"];
    await control(sim, "PUT", "/devices/lcd-board/online", { online: false });
  });

  const commandsSent = async () =>
    (await control(sim, "GET", "/devices/lcd-board")).json.streams.command.count;

  /** Sends a command and waits until the await node has read the inbox at least once. */
  async function sendAndWait(n = 1) {
    await inject(env.red);
    await waitFor(async () => (await commandsSent()) === n, {
      timeoutMs: WAIT,
      what: "the command",
    });
    const polls = sim.stats().byRoute[INBOX_GETS] ?? 0;
    await waitFor(() => (sim.stats().byRoute[INBOX_GETS] ?? 0) > polls, {
      timeoutMs: WAIT,
      what: "an inbox poll",
    });
  }

  const outputs = (n) =>
    waitFor(() => posted.length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${n} outputs (got ${JSON.stringify(posted)}, errors ${JSON.stringify(sink.got["/error"])})`,
    });

  /** The flows as the editor sends them back, with the await node renamed: it restarts. */
  async function renamed(name) {
    const current = await (await fetch(`${env.red.url}/flows`)).json();
    return current.map((n) => (n.id === "a1" ? { ...n, name } : n));
  }

  const redeploys = {
    full: async () => deploy(env.red, await renamed("full")),
    nodes: async () => deploy(env.red, await renamed("nodes"), { type: "nodes" }),
    flows: async () => deploy(env.red, await renamed("flows"), { type: "flows" }),
  };

  for (const [type, redeploy] of Object.entries(redeploys)) {
    it(`should complete a wait pending across a "${type}" deploy that restarts the await node, once`, async function () {
      const red = await env.startRed(STOCK);
      await deploy(red, commandFlows(sim, sink));
      await sendAndWait();
      await redeploy();
      // A second deploy: the wait resumed once is carried on again, and still ends once.
      await redeploy();
      await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
      await outputs(1);
      const [out] = posted;
      assert.equal(out.output, 0, JSON.stringify(out));
      assert.equal(out.restored, true);
      assert.equal(out.keep, "kept");
      assert.equal(out.markers, 2);
      await sleep(1500);
      assert.equal(posted.length, 1, JSON.stringify(posted));
      assert.deepEqual(sink.got["/error"], []);
      assert.equal(await commandsSent(), 1, "the command was sent again");
      // Said once at the first deploy, not at every one: the node's name changed, not its id.
      assert.equal(toldVolatile(red), 1, red.output());
    });
  }

  it("should complete a wait pending across a deploy that moves the await node to another tab", async function () {
    await env.startRed(STOCK);
    await deploy(env.red, commandFlows(sim, sink));
    await sendAndWait();
    // Node-RED closes a moved node as changed, not removed, and starts it again on the new tab
    // (the whole flow moves, so that no wire crosses tabs).
    const current = await (await fetch(`${env.red.url}/flows`)).json();
    const moved = [
      ...current.map((n) => (n.z === "t1" ? { ...n, z: "t2" } : n)),
      { id: "t2", type: "tab", label: "moved" },
    ];
    await deploy(env.red, moved, { type: "nodes" });
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    await outputs(1);
    const [out] = posted;
    assert.equal(out.output, 0, JSON.stringify(out));
    assert.equal(out.restored, true);
    await sleep(1000);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.equal(await commandsSent(), 1, "the command was sent again");
  });

  it("should say once, per node, that a restart loses pending waits, and not with a persistent store", async function () {
    let red = await env.startRed(STOCK);
    await deploy(red, commandFlows(sim, sink));
    await waitFor(() => toldVolatile(red) > 0, { timeoutMs: WAIT, what: "the warning" });
    await deploy(red, commandFlows(sim, sink));
    await deploy(red, await renamed("again"), { type: "nodes" });
    await inject(red);
    assert.equal(toldVolatile(red), 1, red.output());
    await env.stopRed();
    // Restarted with a localfilesystem store (the flows saved above start first, and say it).
    red = await env.startRed();
    const mark = red.output().length;
    await deploy(red, commandFlows(sim, sink, { store: "file" }));
    await inject(red);
    assert.match(red.output().slice(mark), /Started flows/);
    assert.doesNotMatch(red.output().slice(mark), /is not persistent/);
  });

  it("should forget the waits of an await node that a deploy removed, also when its id comes back", async function () {
    const red = await env.startRed(STOCK);
    const nodes = commandFlows(sim, sink);
    await deploy(red, nodes);
    await sendAndWait();
    const first = (await control(sim, "GET", "/devices/lcd-board")).json;
    assert.equal(first.streams.command.count, 1);
    // The await node deleted and deployed (modified nodes), then restored (undo) and deployed.
    const without = nodes
      .filter((n) => n.id !== "a1")
      .map((n) => (n.id === "s1" ? { ...n, wires: [[]] } : n));
    await deploy(red, without, { type: "nodes" });
    await deploy(red, nodes, { type: "nodes" });
    await control(sim, "PUT", "/devices/lcd-board/online", { online: true });
    // A second command through the re-added node: its wait polls the inbox, where the first
    // command's markers are too. Only the second one's result may come out.
    await sendAndWait(2);
    await outputs(1);
    await sleep(1500);
    assert.equal(posted.length, 1, JSON.stringify(posted));
    assert.equal(posted[0].restored, false);
    assert.equal(posted[0].output, 0);
    assert.deepEqual(sink.got["/error"], []);
  });

  it("should print no MaxListenersExceededWarning with 12 await nodes, each resuming its wait", async function () {
    const red = await env.startRed(STOCK);
    // The device stays offline: each wait ends by its timeout, after the redeploys.
    const base = commandFlows(sim, sink, { timeout: "10000" });
    const awaits = Array.from({ length: 12 }, (_, i) => ({
      ...base.find((n) => n.id === "a1"),
      id: `a${i + 1}`,
    }));
    const nodes = [
      ...base.filter((n) => n.id !== "a1" && n.id !== "s1"),
      { ...base.find((n) => n.id === "s1"), wires: [awaits.map((a) => a.id)] },
      ...awaits,
    ];
    await deploy(red, nodes);
    await sendAndWait();
    await deploy(red, nodes);
    await deploy(red, nodes);
    await outputs(12);
    assert.ok(
      posted.every((o) => o.output === 2 && o.restored),
      JSON.stringify(posted),
    );
    await sleep(1000);
    assert.equal(posted.length, 12);
    assert.doesNotMatch(red.output(), /MaxListenersExceededWarning/);
    assert.equal((red.output().match(/is not persistent/g) ?? []).length, 12, red.output());
  });

  describe("edge-watch-events, resume", function () {
    /** The restart watch (test/support/node-red-process.js), its position in the default store. */
    const watchFlows = (stream) =>
      watchFlow(sim, sink, stream, { label: "redeploy", watchProps: { store: "" } });

    it("should send what arrived before each redeploy once, with no replay and no loss", async function () {
      const events = sink.got["/event"];
      const statuses = sink.got["/status"];
      const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/redeploys` });
      assert.equal(res.status, 201, res.text);
      const stream = res.json;
      const add = (round, count) =>
        control(sim, "POST", "/events", { streamId: stream.id, elems: { round }, count });
      const started = (n) =>
        waitFor(() => statuses.filter((s) => /^(watching|\d+ events)/.test(s.text)).length >= n, {
          timeoutMs: WAIT,
          intervalMs: 50,
          what: `start number ${n} (${JSON.stringify(statuses)})`,
        });
      const arrived = (n) =>
        waitFor(() => events.length >= n, {
          timeoutMs: WAIT,
          intervalMs: 50,
          what: `${n} events (got ${JSON.stringify(events)})`,
        });
      const red = await env.startRed(STOCK);
      await add("old", 3);
      await deploy(red, watchFlows(stream));
      await started(1);
      await add("before a full deploy", 2);
      await deploy(red, watchFlows(stream));
      await arrived(2);
      await started(2);
      await add("before a nodes deploy", 3);
      const current = await (await fetch(`${red.url}/flows`)).json();
      await deploy(
        red,
        current.map((n) => (n.id === "w1" ? { ...n, name: "renamed" } : n)),
        { type: "nodes" },
      );
      await arrived(5);
      await started(3);
      await add("before a flows deploy", 1);
      await deploy(
        red,
        current.map((n) => (n.id === "w1" ? { ...n, name: "renamed again" } : n)),
        { type: "flows" },
      );
      await arrived(6);
      // One more full deploy with nothing new: nothing is sent again.
      await deploy(red, watchFlows(stream));
      await started(5);
      await sleep(1000);
      assert.deepEqual(
        events.map((e) => `${e.round}#${e.seq}`),
        [
          "before a full deploy#0",
          "before a full deploy#1",
          "before a nodes deploy#0",
          "before a nodes deploy#1",
          "before a nodes deploy#2",
          "before a flows deploy#0",
        ],
      );
      assert.ok(events.every((e) => !e.gap));
      const told = red.output().match(/\[edge-watch-events:w1\].*is not persistent/g) ?? [];
      assert.equal(told.length, 1, red.output());
    });
  });
});
