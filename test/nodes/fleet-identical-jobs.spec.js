// edge-fleet-command run twice with the same elems, and a full deploy while the second job's
// sends wait in the account's rate limiter (issue 28, high 3). What each device received is read
// from the simulator's own `:command` streams, not from what the node says.
"use strict";
const assert = require("node:assert/strict");
const { api, control, sleep } = require("../support/simulator");
const {
  deploy,
  helper,
  load,
  account,
  next,
  withRedAndSimulator,
  CORE,
} = require("../support/red");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const ELEMS = { "/lcd/txt1": "same twice" };
const DEVICES = Array.from({ length: 20 }, (_, i) => `twice-${i + 1}`);

/** The fleet node f1 (memory store) with helpers on its outputs, on an account of 5 sends a second. */
function flow(sim) {
  const acc = account(sim, { z: "t1", rate: 5, concurrency: 8, retries: 0 });
  return {
    nodes: [
      { id: "t1", type: "tab" },
      acc.node,
      {
        id: "f1",
        type: "edge-fleet-command",
        z: "t1",
        account: "acc",
        devices: DEVICES.join(","),
        filter: "",
        elems: "",
        ttl: "",
        rate: 0,
        concurrency: 20,
        maxFailures: 0,
        timeout: "20000",
        interval: 100,
        store: "",
        wires: [["report"], ["each"]],
      },
      { id: "report", type: "helper", z: "t1" },
      { id: "each", type: "helper", z: "t1" },
      { id: "c1", type: "catch", z: "t1", scope: null, uncaught: false, wires: [["caught"]] },
      { id: "caught", type: "helper", z: "t1" },
    ],
    credentials: acc.credentials,
  };
}

/** After a deploy the helper nodes are new: they queue what they receive, as load() sets up. */
function listen(id) {
  const node = helper.getNode(id);
  node.received = [];
  node.waiters = [];
  node.on("input", (msg) => {
    node.received.push(msg);
    for (const w of node.waiters.splice(0)) w();
  });
  return node;
}

/** The ids of the commands the simulator holds on a device's `:command` stream. */
async function commandIds(sim, device) {
  const path = `/${sim.company}/devices/${device}/:command`;
  const res = await api(sim, "GET", `/event?path=${encodeURIComponent(path)}&limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.json.body.map((e) => String(e.id));
}

describe("edge-fleet-command run twice with the same elems", function () {
  this.timeout(60000);
  const env = withRedAndSimulator({ commandDelayMs: 5 });

  it("sends the second job to every device after a full deploy that caught its sends waiting in the account's limiter, and reports only its own commands complete", async function () {
    const { sim } = env;
    for (const name of DEVICES) {
      const res = await control(sim, "POST", "/devices", { name, resources: ["/lcd/txt1"] });
      assert.equal(res.status, 201, res.text);
    }
    const { nodes, credentials } = flow(sim);
    await load(nodes, credentials, [FLEET, CORE.catch]);
    helper.getNode("f1").receive({ payload: ELEMS });
    const first = (await next(helper.getNode("report"), 20000)).payload;
    assert.equal(first.complete, 20, JSON.stringify(first));

    // The second job's first command is made at once but answered only after the deploy: that
    // device is on the wire when the deploy comes; eight more wait in the limiter (5 a second).
    await control(sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      answerDelayMs: 3000,
      count: 1,
    });
    helper.getNode("f1").receive({ payload: ELEMS });
    await sleep(1000);
    await deploy(nodes, "full", credentials);
    const report = listen("report");
    const caught = listen("caught");
    const second = (await next(report, 40000)).payload;
    assert.deepEqual(caught.received, []);

    assert.equal(second.restored, true);
    const firstIds = new Map(first.devices.map((d) => [d.device, d.commandId]));
    for (const name of DEVICES) {
      const received = await commandIds(sim, name);
      assert.equal(received.length, 2, `${name} received ${received.length} commands, not 2`);
    }
    assert.equal(
      second.complete,
      20,
      JSON.stringify(second.devices.filter((d) => d.outcome !== "complete")),
    );
    for (const d of second.devices) {
      const received = await commandIds(sim, d.device);
      assert.notEqual(d.commandId, firstIds.get(d.device), `${d.device}: the first job's command`);
      assert.ok(received.includes(d.commandId), `${d.device}: ${d.commandId} not received`);
    }
  });
});
