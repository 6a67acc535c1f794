// What the "edge devices" sidebar (GET /edge-account/sidebar) shows of a real edge-fleet-command
// job: one row while it runs, its counts as devices answer, "stopping" after msg.cancel while a
// sent command is still awaited, and how it ended once it has reported; a job cancelled through
// the sidebar's route (POST /edge-account/sidebar/cancel) as msg.cancel cancels it.
"use strict";
const assert = require("node:assert/strict");
const { control, waitFor } = require("../support/simulator");
const { helper, withRedAndSimulator, next, noMessage, statuses } = require("../support/red");
const { startFlow } = require("../support/flow");
const { addDevices, commandsOf, fleetNode } = require("../support/fleet");

const FLEET = require("../../dist/nodes/edge-fleet-command/edge-fleet-command.js");
const ELEMS = { "/lcd/txt1": "shift target 42" };

const TAB = require("../../locales/en-US/edge-account.json")["edge-account"].sidebar;
const fill = (text, params) => text.replace(/__(\w+)__/g, (w, n) => String(params[n] ?? w));
/** An ended job's state as the tab's row shows it (resources/edge-sidebar.js, jobState). */
const tabState = (row) => fill(TAB.end[row.state], { progress: fill(TAB.count, row) });

async function jobs() {
  const res = await helper.request().get("/edge-account/sidebar").expect(200);
  return res.body.accounts[0].jobs;
}

describe("edge devices sidebar: fleet jobs", function () {
  this.timeout(30000);
  const env = withRedAndSimulator({ commandDelayMs: 10 });

  it("lists a running job with its counts, then stopping after msg.cancel, then how it ended", async function () {
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

    // The device comes online and runs its command: the job ends, and its row says how.
    await control(env.sim, "PUT", "/devices/off-1/online", { online: true });
    const report = (await next(get("report"), 15000)).payload;
    assert.equal(report.complete, 3);
    list = await jobs();
    assert.equal(list.total, 1);
    const ended = list.rows[0];
    assert.equal(ended.id, row.id);
    assert.equal(ended.state, "cancelled");
    assert.deepEqual([ended.complete, ended.fault, ended.inFlight], [3, 1, 0]);
    assert.equal(ended.endedAt, report.endedAt);
  });

  it("cancels a running job from the sidebar's route as msg.cancel does, and lists it cancelled", async function () {
    const names = ["off-1", "off-2", "ok-1", "ok-2"];
    await addDevices(env.sim, names, { offline: ["off-1", "off-2"] });
    const { get } = await startFlow(
      env.sim,
      [
        fleetNode({
          devices: names.join(", "),
          // Two at once: the offline devices hold the job before the others are sent.
          concurrency: 2,
          timeout: "60000",
          wires: [["report"], []],
        }),
        { id: "report", type: "helper" },
      ],
      { account: { rate: 0, concurrency: 16 }, extraTypes: [FLEET] },
    );
    const logged = [];
    get("f1").on("call:log", (call) => logged.push(String(call.args[0])));
    const shown = statuses(get("f1"));
    // No msg.job: the node names the job itself, and the row says it was not given a name.
    get("f1").receive({ payload: ELEMS });
    const row = await waitFor(
      async () => {
        const r = (await jobs()).rows[0];
        return r?.inFlight === 2 ? r : undefined;
      },
      { timeoutMs: 10000, intervalMs: 50, what: "the job holding two sent commands" },
    );
    assert.equal(row.named, false);
    const cancel = (body) =>
      helper
        .request()
        .post("/edge-account/sidebar/cancel")
        .set("content-type", "application/json")
        .send(body);
    assert.deepEqual((await cancel({ account: "acc", job: "f1:nothing" }).expect(200)).body, {
      ok: true,
      cancelled: 0,
    });
    assert.deepEqual((await cancel({ account: "acc", job: row.id }).expect(200)).body, {
      ok: true,
      cancelled: 1,
    });
    assert.ok(
      logged.some((l) => l.includes(row.job)),
      logged.join("\n"),
    );
    assert.equal((await jobs()).rows[0].state, "stopping");
    // The sent commands are still awaited; the two devices never sent are not sent.
    await control(env.sim, "PUT", "/devices/off-1/online", { online: true });
    await control(env.sim, "PUT", "/devices/off-2/online", { online: true });
    const report = (await next(get("report"), 15000)).payload;
    assert.equal(report.cancelled, true);
    assert.deepEqual([report.complete, report.notSent], [2, 2]);
    assert.equal(await commandsOf(env.sim, "ok-1"), 0);
    const ended = (await jobs()).rows[0];
    assert.deepEqual([ended.id, ended.state, ended.named], [row.id, "cancelled", false]);
    // The node's status and the tab's row read the same count with the same word: 2 devices
    // complete of 4, never 4/4 for a job that sent 2.
    assert.equal(shown.at(-1).text, "cancelled: 2/4 complete");
    assert.equal(tabState(ended), "cancelled: 2/4 complete");
    // The job's message ended once, with its report: no error, no second report (issue 35: a
    // Cancel in the tab ends every message it cancels, a job with its report as msg.cancel does).
    await noMessage(get("report"), 200);
    await noMessage(get("caught"), 0);
  });
});
