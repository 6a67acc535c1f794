// `resume` across Node-RED restarts: a real Node-RED process with a `localfilesystem` context
// store, stopped and started again on the same user directory while events arrive at the
// simulator. What the watch node sends and shows is posted by core http request nodes to a small
// collector in this process, as a user's flow would forward it.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const { control, waitFor, sleep } = require("../support/simulator");
const { withRestarts, deployFlows, watchFlow } = require("../support/node-red-process");

const WAIT = 30000;

/** The restart watch (test/support/node-red-process.js), its position in the file store. */
const flows = (sim, stream, sink) => watchFlow(sim, sink, stream, { label: "restart" });

describe("edge-watch-events resume across Node-RED restarts", function () {
  this.timeout(180000);
  const env = withRestarts("/event", "/status");
  let sim;
  let sink;
  let events;
  let statuses;

  beforeEach(function () {
    ({ sim, sink } = env);
    events = sink.got["/event"];
    statuses = sink.got["/status"];
  });

  const watching = (n) =>
    waitFor(() => statuses.filter((s) => s.text === "watching").length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `status "watching" number ${n}`,
    });

  const eventsArrived = (n) =>
    waitFor(() => events.length >= n, {
      timeoutMs: WAIT,
      intervalMs: 50,
      what: `${n} events at the collector (got ${events.length})`,
    });

  it("should deliver what arrived while Node-RED was down or the node redeployed, once, also when it stopped before the first event", async function () {
    const res = await control(sim, "POST", "/streams", { path: `/${sim.company}/restarts` });
    assert.equal(res.status, 201, res.text);
    const stream = res.json;
    const add = (round, count) =>
      control(sim, "POST", "/events", { streamId: stream.id, elems: { round }, count });
    await add("before the first start", 3);
    let red;

    // Run 1: no saved position yet, so as `new`: the start is saved; stopped before any event.
    red = await env.startRed();
    await deployFlows(red.url, flows(sim, stream, sink));
    await watching(1);
    await env.stopRed();
    await add("while down 1", 4);

    // Run 2: the four that arrived while it was down; then two more, sent by the node that a
    // "modified nodes" deploy puts in its place, from the position the first one saved.
    red = await env.startRed();
    await eventsArrived(4);
    await add("before the redeploy", 2);
    const current = await (await fetch(`${red.url}/flows`)).json();
    await deployFlows(
      red.url,
      current.map((n) => (n.id === "w1" ? { ...n, name: "renamed" } : n)),
      { type: "nodes" },
    );
    await eventsArrived(6);
    await env.stopRed();
    await add("while down 2", 6);

    // Run 3: only the six.
    red = await env.startRed();
    await eventsArrived(12);
    await sleep(1500);
    await env.stopRed();

    const rounds = events.map((e) => `${e.round}#${e.seq}`);
    assert.deepEqual(rounds, [
      ...[0, 1, 2, 3].map((i) => `while down 1#${i}`),
      "before the redeploy#0",
      "before the redeploy#1",
      ...[0, 1, 2, 3, 4, 5].map((i) => `while down 2#${i}`),
    ]);
    assert.equal(new Set(events.map((e) => e.id)).size, 12, "an event came twice");
    assert.ok(events.every((e) => !e.gap));
    // The position lives in the store's files, under the node's id.
    const files = fs.readdirSync(`${env.userDir}/context`, { recursive: true }).join(" ");
    assert.match(files, /w1/);
  });
});
