// What the "edge devices" sidebar (GET /edge-account/sidebar) shows of watched streams: the nodes
// sharing one, the events delivered and the last event's date, and the state with its reason:
// reading, backing off after a failed read, stopped by a lasting refusal.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { helper, load, account, withRedAndSimulator } = require("../support/red");

function flow(sim, watches) {
  const { node: acc, credentials } = account(sim, {});
  const nodes = [{ id: "t1", type: "tab" }, acc];
  for (const w of watches) {
    nodes.push({
      type: "edge-watch-events",
      z: "t1",
      account: acc.id,
      interval: 250,
      start: "new",
      last: 10,
      store: "",
      ...w,
      wires: [[]],
    });
  }
  return { nodes, credentials };
}

async function watchRows() {
  const res = await helper.request().get("/edge-account/sidebar").expect(200);
  return res.body.accounts[0].watches.rows;
}

describe("edge devices sidebar: watched streams", function () {
  const env = withRedAndSimulator();

  it("lists a stream once with the nodes sharing it, its events and its last event", async function () {
    const path = `/${env.sim.company}/telemetry`;
    const { nodes, credentials } = flow(env.sim, [
      { id: "w1", stream: path },
      { id: "w2", stream: path },
    ]);
    await load(nodes, credentials);
    await waitFor(async () => (await watchRows()).some((r) => r.lastRead), {
      what: "a first read",
    });
    const created = Date.now();
    await control(env.sim, "POST", "/events", { path, elems: { t: 1 }, creationDate: created });
    await waitFor(async () => (await watchRows())[0]?.delivered === 2, {
      what: "the event delivered to both nodes",
    });
    const [row] = await watchRows();
    assert.equal(row.stream, path);
    assert.deepEqual([...row.nodes].sort(), ["w1", "w2"]);
    assert.equal(row.intervalMs, 250);
    assert.equal(row.lastEvent, created);
    assert.equal(row.state, "reading");
    assert.equal(row.gaps, 0);
  });

  it("shows a failed read as backing off with its code, then reading again", async function () {
    this.timeout(30000);
    // More failures than the client retries (3): the read itself fails.
    const path = `/${env.sim.company}/telemetry`;
    const { nodes, credentials } = flow(env.sim, [{ id: "w1", stream: path }]);
    await load(nodes, credentials);
    await waitFor(async () => (await watchRows()).some((r) => r.lastRead), {
      what: "a first read",
    });
    await control(env.sim, "POST", "/faults", { method: "GET", status: 503, count: 8 });
    await waitFor(async () => (await watchRows())[0].state === "backing-off", {
      timeoutMs: 15000,
      what: "backing off",
    });
    const [row] = await watchRows();
    assert.equal(row.reason.status, 503);
    assert.ok(row.retryAt > Date.now() - 1000);
    await waitFor(async () => (await watchRows())[0].state === "reading", {
      timeoutMs: 25000,
      what: "reading again",
    });
  });

  it("keeps a stream stopped by a lasting refusal listed, with why", async function () {
    const path = `/${env.sim.company}/no-such-stream`;
    const { nodes, credentials } = flow(env.sim, [{ id: "w1", stream: path }]);
    await load(nodes, credentials);
    await waitFor(async () => (await watchRows())[0]?.state === "stopped", {
      timeoutMs: 5000,
      what: "stopped",
    });
    const [row] = await watchRows();
    assert.equal(row.stream, path);
    assert.deepEqual(row.nodes, ["w1"]);
    assert.deepEqual(row.reason, { code: "not-found", status: 404 });
  });
});
