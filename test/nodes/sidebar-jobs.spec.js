// What the "edge devices" sidebar (GET /edge-account/sidebar) shows of a real edge-fleet-command
// job: one row while it runs, its counts as devices answer, "stopping" after msg.cancel while a
// sent command is still awaited, and no row once the job has reported.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { helper, withRedAndSimulator, next } = require("../support/red");
const { startFlow } = require("../support/flow");
const { addDevices, fleetNode } = require("../support/fleet");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const ELEMS = { "/lcd/txt1": "shift target 42" };

async function jobs() {
  const res = await helper.request().get("/edge-account/sidebar").expect(200);
  return res.body.accounts[0].jobs;
}

describe("edge devices sidebar: fleet jobs", function () {
  this.timeout(30000);
  const env = withRedAndSimulator({ commandDelayMs: 10 });

  it("lists a running job with its counts, then stopping after msg.cancel, then not at all", async function () {
    const names = ["ok-1", "bad-1", "off-1", "ok-2"];
    await addDevices(env.sim, names, { faulty: ["bad-1"], offline: ["off-1"] });
    const { get } = await startFlow(
      env.sim,
      [
        fleetNode({
          devices: names.join(", "),
          // The offline device's command stays awaited for as long as the test looks.
          timeout: "60000",
          wires: [["report"], []],
        }),
        { id: "report", type: "helper" },
      ],
      { account: { rate: 0, concurrency: 16 }, extraTypes: [FLEET] },
    );
    assert.deepEqual(await jobs(), { total: 0, rows: [] });
    get("f1").receive({ payload: ELEMS, job: "rollout B" });

    await waitFor(async () => (await jobs()).rows[0]?.complete === 2, {
      what: "the two answering devices counted complete",
    });
    let list = await waitFor(
      async () => {
        const j = await jobs();
        return j.rows[0]?.fault === 1 ? j : undefined;
      },
      { timeoutMs: 10000, intervalMs: 50, what: "the faulting device counted" },
    );
    assert.equal(list.total, 1);
    const row = list.rows[0];
    assert.equal(row.node, "f1");
    assert.equal(row.job, "rollout B");
    assert.equal(row.state, "running");
    assert.equal(row.restored, false);
    assert.deepEqual(
      [row.total, row.sent, row.inFlight, row.timedOut, row.failed, row.notSent],
      [4, 4, 1, 0, 0, 0],
    );
    assert.ok(row.startedAt <= Date.now());

    // Cancelled: nothing more is sent, the offline device's command is still awaited.
    get("f1").receive({ cancel: true });
    list = await waitFor(
      async () => {
        const j = await jobs();
        return j.rows[0]?.state === "stopping" ? j : undefined;
      },
      { timeoutMs: 10000, intervalMs: 50, what: "the job listed as stopping" },
    );
    assert.equal(list.rows[0].inFlight, 1);

    // The device comes online and runs its command: the job ends and leaves the list.
    await control(env.sim, "PUT", "/devices/off-1/online", { online: true });
    const report = (await next(get("report"), 15000)).payload;
    assert.equal(report.complete, 3);
    assert.deepEqual(await jobs(), { total: 0, rows: [] });
  });
});
