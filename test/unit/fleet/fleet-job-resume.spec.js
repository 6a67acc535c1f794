// nodes/lib/fleet/fleet-job.ts: a job read back from a store after a restart (its pending devices
// may have been sent after its last save), the command a device's message describes, and the
// commands of a resumed job remembered as its own. Against the simulator where it sends.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { api, useSimulator } = require("../../support/simulator");
const { commandsOf } = require("../../support/fleet");
const { startJob } = require("../../support/fleet-fakes");
const { savedJob } = require("../../support/saved-jobs");

const { senderOf, rememberJob, commandOf } = lib("fleet/fleet-job");
const { sentCommands } = lib("commands/sent-commands");

const ELEMS = { "/lcd/txt1": "from-store" };

const record = (devices, over = {}) => ({
  ...savedJob("j-store", { startedAt: Date.now() - 1000, settings: { elems: ELEMS }, devices }),
  ...over,
});

/** Runs the job to its end; resolves with each device's message. */
const run = async (client, job, fromStore) =>
  (await startJob(client, job, { fromStore, describe: (err) => err.code }).heard.ended).devices;

describe("unit: fleet/fleet-job, resumed from a store", function () {
  const env = useSimulator({ commandDelayMs: 5 });

  it("should await, not send again, a pending device whose command went out after the last save", async function () {
    const savedAt = Date.now() - 500;
    const posted = await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/lcd-board/:command", elems: ELEMS },
    });
    assert.equal(posted.status, 201, posted.text);
    const job = record([{ device: "lcd-board", state: "pending" }], { savedAt });
    const heard = await run(env.client(), job, true);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1);
    const [d] = job.devices;
    assert.equal(d.outcome, "complete");
    assert.equal(d.commandId, posted.json.body.id);
    assert.equal(d.mayHaveBeenSent, true, "its outcome may have been told before the crash");
    assert.equal(heard.length, 1);
  });

  it("should send a pending device whose stream holds no command of the job", async function () {
    const job = record([{ device: "pump-3", state: "pending" }], { savedAt: Date.now() });
    await run(env.client({ timeoutMs: 300 }), job, true);
    assert.equal(await commandsOf(env.sim, "pump-3"), 1);
    assert.equal(job.devices[0].outcome, "complete");
    assert.equal(job.devices[0].mayHaveBeenSent, undefined);
  });

  it("should say a device sent before the crash may have been told, and not without a store", async function () {
    const posted = await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/lcd-board/:command", elems: ELEMS },
    });
    const sent = () => ({
      device: "lcd-board",
      state: "sent",
      sentAt: Date.now() - 100,
      commandId: posted.json.body.id,
      since: posted.json.body.creationDate,
    });
    const fromStore = record([sent()]);
    await run(env.client(), fromStore, true);
    assert.equal(fromStore.devices[0].outcome, "complete");
    assert.equal(fromStore.devices[0].mayHaveBeenSent, true);
    const redeployed = record([sent()]);
    await run(env.client(), redeployed, false);
    assert.equal(redeployed.devices[0].outcome, "complete");
    assert.equal(redeployed.devices[0].mayHaveBeenSent, undefined);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1, "never sent again");
  });
});

describe("unit: fleet/fleet-job, a device's command and sender", function () {
  const job = record([], { settings: { ...record([]).settings, ttl: 30 } });

  it("should describe the command of a device that was sent, and none of one that was not", function () {
    const pathOf = () => "/co/devices/lcd/:command";
    assert.deepEqual(
      commandOf(
        { device: "lcd", state: "ended", outcome: "complete", sentAt: 5, commandId: "c", since: 4 },
        job,
        pathOf,
      ),
      {
        id: "c",
        creationDate: 4,
        device: "lcd",
        path: "/co/devices/lcd/:command",
        ttl: 30,
        sentAt: 5,
      },
    );
    assert.deepEqual(
      commandOf(
        { device: "lcd", state: "ended", outcome: "timed-out", sentAt: 5 },
        record([]),
        pathOf,
      ),
      { creationDate: 5, device: "lcd", path: "/co/devices/lcd/:command", sentAt: 5 },
    );
    const throws = () => {
      throw new Error("no path");
    };
    for (const d of [
      { device: "a/b", state: "ended", outcome: "failed", sentAt: 5 },
      { device: "a/b", state: "ended", outcome: "not-sent" },
      { device: "a/b", state: "pending" },
    ])
      assert.equal(commandOf(d, job, throws), null, JSON.stringify(d));
  });

  it("should name a job's device as its sender, by job, start and device", function () {
    assert.equal(senderOf(job, { device: "lcd" }), `fleet j-store ${job.startedAt} lcd`);
  });

  it("should remember the commands of a job read back, skipping devices without one or a path", function () {
    const path = (device) => {
      if (device.includes("/")) throw new Error("no path");
      return `/co/devices/${device}/:command`;
    };
    const back = record([
      { device: "a", state: "sent", sentAt: 1, commandId: "store-c1" },
      { device: "x/y", state: "sent", sentAt: 1, commandId: "store-c2" },
      { device: "b", state: "pending" },
      { device: "c", state: "ended", outcome: "complete", sentAt: 1, commandId: "store-c3" },
    ]);
    rememberJob(back, path);
    assert.equal(
      sentCommands.senderOf("/co/devices/a/:command", "store-c1"),
      senderOf(back, back.devices[0]),
    );
    assert.equal(
      sentCommands.senderOf("/co/devices/c/:command", "store-c3"),
      senderOf(back, back.devices[3]),
    );
  });
});
