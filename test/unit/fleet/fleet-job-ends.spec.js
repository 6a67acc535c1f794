// nodes/lib/fleet/fleet-job.ts, how a job and its devices end, against the simulator through the
// real client and inbox poller: cancelled, closed, stopped by its failures, a device the server
// does not know, an inbox refused for good, a send refused and one that waits for a busy API.
"use strict";
const assert = require("node:assert/strict");
const { control, useSimulator } = require("../../support/simulator");
const { startJob } = require("../../support/fleet-fakes");
const { savedJob } = require("../../support/saved-jobs");

const record = (devices, settings = {}) =>
  savedJob("j1", {
    settings: { elems: { "/lcd/txt1": "ends" }, ...settings },
    devices: devices.map((device) => ({ device, state: "pending" })),
  });

/** Starts the job; `heard.ended` resolves at its end, with what the hooks heard. */
const start = (client, job, onDevice) =>
  startJob(client, job, { onDevice, describe: (err) => `said: ${err.code}` });

const byDevice = (job) => Object.fromEntries(job.devices.map((d) => [d.device, d]));

describe("unit: fleet/fleet-job, how it ends", function () {
  const env = useSimulator({ commandDelayMs: 5 });

  it("should end complete with each device's command and result, in elapsed time", async function () {
    const job = record(["lcd-board", "pump-3"]);
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    for (const d of job.devices) {
      assert.equal(d.state, "ended");
      assert.equal(d.outcome, "complete");
      assert.equal(typeof d.commandId, "string");
      assert.ok(d.elapsed >= 0 && d.elapsed < 5000, String(d.elapsed));
    }
    assert.equal(heard.devices.length, 2);
    assert.ok(heard.devices.every((r) => r.marker !== null && r.command.id === r.record.commandId));
    assert.ok(heard.saves >= 4, "saved as each device was sending, sent and ended");
    assert.ok(heard.progress >= 2);
  });

  it("should fail a device the server does not know, with its error's sentence, and go on", async function () {
    const job = record(["ghost-device", "lcd-board"]);
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    const d = byDevice(job);
    assert.equal(d["ghost-device"].outcome, "failed");
    assert.equal(d["ghost-device"].message, `said: ${d["ghost-device"].error}`);
    assert.equal(d["ghost-device"].commandId, undefined);
    assert.equal(d["lcd-board"].outcome, "complete");
    const ghost = heard.devices.find((r) => r.record.device === "ghost-device");
    assert.deepEqual([ghost.command, ghost.marker, ghost.markers], [null, null, []]);
  });

  it("should stop at its failures and leave the devices after them not sent", async function () {
    const job = record(["ghost-1", "ghost-2", "lcd-board", "pump-3"], {
      concurrency: 1,
      maxFailures: 2,
    });
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    assert.equal(job.stopped, "aborted");
    assert.deepEqual(
      job.devices.map((d) => d.outcome),
      ["failed", "failed", "not-sent", "not-sent"],
    );
  });

  it("should leave the devices not started not sent when cancelled, and await those sent", async function () {
    const job = record(["lcd-board", "pump-3", "sensor-hub"], { concurrency: 1 });
    let cancelled = false;
    const { heard } = start(env.client(), job, (_r, fleet) => {
      if (!cancelled) {
        cancelled = true;
        fleet.cancel();
        assert.equal(fleet.stopping, true);
      }
    });
    await heard.ended;
    heard.poller.close();
    assert.equal(job.stopped, "cancelled");
    assert.deepEqual(
      job.devices.map((d) => d.outcome),
      ["complete", "not-sent", "not-sent"],
    );
  });

  it("should not save or show a job again when its cancel ends it, so that no deploy resumes it", async function () {
    // One device a second: the second waits for the pace with nothing in flight, and the cancel
    // ends the job at once. Its save after that end put the ended record back, and the next
    // deploy reported the job twice (fleet seed 126, path 170).
    const job = record(["lcd-board", "pump-3"], { concurrency: 1, rate: 1 });
    let ended = false;
    const { fleet, heard } = start(env.client(), job);
    void heard.ended.then(() => (ended = true));
    for (let i = 0; i < 200 && job.devices[0].state !== "ended"; i++)
      await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setImmediate(r));
    assert.equal(ended, false);
    const { saves, progress } = heard;
    fleet.cancel();
    await heard.ended;
    assert.equal(job.stopped, "cancelled");
    assert.deepEqual(
      job.devices.map((d) => d.outcome),
      ["complete", "not-sent"],
    );
    assert.equal(heard.saves, saves, "saved after its end");
    assert.equal(heard.progress, progress, "shown busy after its end");
  });

  it("should stop where it is at close, and never end", async function () {
    const job = record(["lcd-board", "pump-3"], { concurrency: 1 });
    let ended = false;
    const { fleet, heard } = start(env.client(), job);
    void heard.ended.then(() => (ended = true));
    // Close once the first device is sent, before its result.
    for (let i = 0; i < 200 && job.devices[0].state !== "sent"; i++)
      await new Promise((r) => setTimeout(r, 2));
    fleet.close();
    await new Promise((r) => setTimeout(r, 300));
    heard.poller.close();
    assert.equal(ended, false);
    assert.equal(job.devices[0].state, "sent", "left to be awaited at the resume");
    assert.equal(job.devices[1].state, "pending");
  });

  it("should end a device timed out, not failed, when its inbox is refused for good", async function () {
    const job = record(["lcd-board"]);
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: "/event",
      status: 403,
      count: 50,
    });
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    const [d] = job.devices;
    assert.equal(d.outcome, "timed-out");
    assert.equal(typeof d.commandId, "string", "its command was sent");
    assert.equal(d.error, "auth");
  });

  it("should fail a device whose send the server refused, not sent again", async function () {
    const job = record(["lcd-board"]);
    await control(env.sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      status: 500,
      count: 1,
    });
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    const [d] = job.devices;
    assert.equal(d.outcome, "failed");
    assert.equal(d.mayHaveBeenSent, true, "a 500 may come after the command was made");
  });

  it("should send again, later, a device the API said it did not act on", async function () {
    const job = record(["lcd-board"]);
    await control(env.sim, "POST", "/faults", {
      method: "POST",
      path: "/event",
      status: 503,
      retryAfter: "0",
      count: 1,
    });
    const { heard } = start(env.client(), job);
    await heard.ended;
    heard.poller.close();
    assert.equal(job.devices[0].outcome, "complete");
  });
});
