// nodes/lib/fleet: a job resumed with a device left "sending" (stopped between its POST and the
// record of the answer), the record's check, and the one-job-at-a-time queue. Against the
// simulator, through the real client, inbox poller and device names.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { api, control, useSimulator } = require("../../support/simulator");
const { SEED } = require("../../support/seed");
const { commandsOf } = require("../../support/fleet");
const { startJob } = require("../../support/fleet-fakes");
const { savedJob } = require("../../support/saved-jobs");

const { FleetJob } = lib("fleet/fleet-job");
const { checkJobRecord } = lib("fleet/job");
const { Turns } = lib("fleet/turns");
const { InboxPoller } = lib("commands/inbox-poller");
const { DeviceNames } = lib("device/names");

const ELEMS = { "/lcd/txt1": "resumed" };

const record = (devices) => savedJob("j1", { settings: { elems: ELEMS }, devices });

/**
 * Runs the job to its end; resolves with what the hooks heard. `device` stands in for the node's
 * hook of a device's message, after it is heard.
 */
const run = (client, job, device, fromStore = false) =>
  startJob(client, job, { onDevice: device, fromStore }).heard.ended;

describe("unit: fleet/fleet-job", function () {
  const env = useSimulator({ commandDelayMs: 5 });

  it("should await, not send again, a device left sending whose command the server took", async function () {
    const sentAt = Date.now();
    const posted = await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/lcd-board/:command", elems: ELEMS },
    });
    assert.equal(posted.status, 201, posted.text);
    const job = record([{ device: "lcd-board", state: "sending", sentAt }]);
    const heard = await run(env.client(), job);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1);
    const [d] = job.devices;
    assert.equal(d.outcome, "complete");
    assert.equal(d.commandId, posted.json.body.id);
    // The simulator's markers name their command: matched by id, so no matchedBy.
    assert.equal(d.matchedBy, undefined);
    assert.equal(heard.devices.length, 1);
  });

  it("should end the job when a device's message throws: sent again without markers, the error on the device", async function () {
    const job = record([
      { device: "lcd-board", state: "pending" },
      { device: "pump-3", state: "pending" },
    ]);
    let thrown = 0;
    const heard = await run(env.client(), job, (r) => {
      // As the node's send throws for markers too deep to copy, before any wire has them.
      if (r.record.device === "lcd-board" && r.marker !== null) {
        thrown++;
        throw new Error("copy failed");
      }
    });
    assert.equal(thrown, 1);
    const byDevice = Object.fromEntries(job.devices.map((d) => [d.device, d]));
    assert.equal(byDevice["lcd-board"].outcome, "complete");
    assert.equal(byDevice["lcd-board"].error, "internal");
    assert.equal(byDevice["pump-3"].outcome, "complete");
    assert.equal(byDevice["pump-3"].error, undefined);
    const lcd = heard.devices.filter((r) => r.record.device === "lcd-board");
    assert.equal(lcd.length, 2);
    assert.deepEqual([lcd[1].marker, lcd[1].markers], [null, []]);
  });

  it("should send a device left sending whose command is not in its stream", async function () {
    // An older command with the same elems is not this job's: it was made before the send.
    await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/lcd-board/:command", elems: ELEMS },
    });
    const job = record([{ device: "lcd-board", state: "sending", sentAt: Date.now() + 60_000 }]);
    // Not found at once, it is looked for again once the send's request budget is over.
    await run(env.client({ timeoutMs: 300 }), job);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 2);
    assert.equal(job.devices[0].outcome, "complete");
  });

  it("should look up the pending devices of a job read back after a crash and send the unsent ones without waiting out a request budget", async function () {
    // A request budget of 11 s (1 s x (10 retries + 1)): the job's look-ups waited it out from
    // the resume, though the process that saved the record, and any send of it, ended before
    // this one started. The bound is one Timeout from that start, over by now.
    const timeoutMs = 1000;
    const client = env.client({ timeoutMs, retry: { retries: 10 } });
    const early = performance.timeOrigin + timeoutMs - Date.now();
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    const job = record([
      { device: "lcd-board", state: "pending" },
      { device: "pump-3", state: "pending" },
    ]);
    job.savedAt = Date.now() - 2000;
    // pump-3's command went out after the record on disk was saved (inside the flush window).
    const posted = await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/pump-3/:command", elems: ELEMS },
    });
    assert.equal(posted.status, 201, posted.text);
    const started = Date.now();
    await run(client, job, undefined, true);
    const took = Date.now() - started;
    assert.ok(took < 5000, `the job took ${took} ms`);
    const [lcd, pump] = job.devices;
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1);
    assert.equal(lcd.outcome, "complete");
    assert.equal(lcd.mayHaveBeenSent, undefined);
    // Found, so awaited, not sent again, and told as one that went out before the crash.
    assert.equal(await commandsOf(env.sim, "pump-3"), 1);
    assert.equal(pump.outcome, "complete");
    assert.equal(pump.commandId, posted.json.body.id);
    assert.equal(pump.mayHaveBeenSent, true);
  });

  it("should look a pending device up, not send it at once, when a job read back from a store is resumed from memory during its look-ups", async function () {
    // A redeploy while a job read back after a restart looks its devices up hands the next node
    // the record from memory: the window it was read back with goes with it (record.lookUp).
    const client = env.client({ timeoutMs: 1000, retry: { retries: 0 } });
    const job = record([{ device: "pump-3", state: "pending" }]);
    job.lookUp = { from: Date.now() - 2000, to: Date.now() };
    // A Node-RED that has run for an hour: its start bounds no look-up window here (mocha's
    // parallel workers found the window ending at the start plus a Timeout, before the resume).
    const started = performance.timeOrigin;
    Object.defineProperty(performance, "timeOrigin", {
      value: started - 3_600_000,
      configurable: true,
    });
    const posted = await api(env.sim, "POST", "/event", {
      body: { path: "/demo/devices/pump-3/:command", elems: ELEMS },
    });
    assert.equal(posted.status, 201, posted.text);
    try {
      await run(client, job, undefined, false);
    } finally {
      delete performance.timeOrigin;
    }
    assert.equal(await commandsOf(env.sim, "pump-3"), 1, "pump-3 sent twice");
    assert.equal(job.devices[0].commandId, posted.json.body.id);
    assert.equal(job.devices[0].outcome, "complete");
  });

  it("should keep the look-up window in the record of a job read back from a store, and none in a job that was not", async function () {
    const stored = record([{ device: "lcd-board", state: "pending" }]);
    const savedAt = Date.now() - 1000;
    stored.savedAt = savedAt;
    await run(env.client(), stored, undefined, true);
    // From the save the store held, to the resume.
    assert.equal(stored.lookUp?.from, savedAt, JSON.stringify(stored));
    assert.ok(stored.lookUp.to >= savedAt);
    const fresh = record([{ device: "lcd-board", state: "pending" }]);
    await run(env.client(), fresh);
    assert.equal(fresh.lookUp, undefined);
  });

  it("should not send again, and fail with send-uncertain and mayHaveBeenSent, when two commands of unknown sender could be its own", async function () {
    const sentAt = Date.now();
    for (let i = 0; i < 2; i++) {
      const posted = await api(env.sim, "POST", "/event", {
        body: { path: "/demo/devices/lcd-board/:command", elems: ELEMS },
      });
      assert.equal(posted.status, 201, posted.text);
    }
    const job = record([{ device: "lcd-board", state: "sending", sentAt }]);
    const heard = await run(env.client(), job);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 2);
    const [d] = job.devices;
    assert.equal(d.outcome, "failed");
    assert.equal(d.error, "send-uncertain");
    assert.equal(d.mayHaveBeenSent, true);
    assert.equal(heard.devices.length, 1);
  });

  it("should not send again, and fail with send-uncertain, when the stream cannot be read", async function () {
    await control(env.sim, "POST", "/faults", { method: "GET", path: "/event", status: 500 });
    const job = record([{ device: "lcd-board", state: "sending", sentAt: Date.now() }]);
    await run(env.client(), job);
    assert.equal(await commandsOf(env.sim, "lcd-board"), 0);
    assert.equal(job.devices[0].outcome, "failed");
    assert.equal(job.devices[0].error, "send-uncertain");
  });

  it("should record a device as sending, and save, before its POST, and not while it waits in the account's limiter", async function () {
    // One request at a time: a slow read holds the slot while the job's POST waits for it.
    const client = env.client({ rateLimit: { perSecond: 0, concurrent: 1 } });
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: `/device/${SEED.lcd.id}`,
      delayMs: 400,
      count: 1,
    });
    const other = client.getDevice(SEED.lcd.id);
    const job = record([{ device: "lcd-board", state: "pending" }]);
    const states = [];
    const posts = async () =>
      (await control(env.sim, "GET", "/requests?limit=50")).json.filter(
        (r) => r.method === "POST" && r.pathname.endsWith("/event"),
      ).length;
    let postsWhileSaving;
    const poller = new InboxPoller(client);
    const ended = new Promise((resolve) => {
      const fleet = new FleetJob(
        job,
        { client, names: new DeviceNames(client), poller },
        {},
        {
          save: async (r) => {
            states.push(r.devices[0].state);
            // The POST waits for this save: the server must not have it meanwhile.
            if (states.length === 1) {
              await new Promise((done) => setTimeout(done, 100));
              postsWhileSaving = await posts();
            }
          },
          device: () => {},
          progress: () => {},
          end: () => {
            poller.close();
            resolve();
          },
          describe: (err) => err.message,
        },
      );
      fleet.start();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Still waiting in the limiter behind the read: not recorded as being sent.
    assert.deepEqual(states, []);
    assert.equal(job.devices[0].state, "pending");
    await other;
    await ended;
    assert.equal(postsWhileSaving, 0);
    assert.equal(await posts(), 1);
    assert.equal(states[0], "sending", "saved as sending first");
    assert.ok(states.length >= 3, "saved at sending, sent and ended");
    assert.equal(job.devices[0].outcome, "complete");
  });

  it("should wait for room, not fail, when the account's queue is full of other requests", async function () {
    // One request at a time and one waiting: a slow read holds the slot, another read waits.
    const client = env.client({ rateLimit: { perSecond: 0, concurrent: 1, queueMax: 1 } });
    await control(env.sim, "POST", "/faults", {
      method: "GET",
      path: `/device/${SEED.lcd.id}`,
      delayMs: 400,
      count: 1,
    });
    const others = [client.getDevice(SEED.lcd.id), client.getDevice(SEED.lcd.id)];
    const job = record([{ device: "lcd-board", state: "pending" }]);
    const heard = await run(client, job);
    await Promise.all(others);
    assert.equal(job.devices[0].outcome, "complete", JSON.stringify(job.devices[0]));
    assert.equal(await commandsOf(env.sim, "lcd-board"), 1);
    assert.equal(heard.devices.length, 1);
  });

  it("should check a saved record field by field", function () {
    assert.equal(checkJobRecord(record([])).ok, true);
    assert.deepEqual(checkJobRecord({ ...record([]), v: 2 }), { ok: false, field: "v" });
    assert.deepEqual(checkJobRecord(record([{ device: "a", state: "sent" }])), {
      ok: false,
      field: "devices",
    });
    assert.deepEqual(checkJobRecord(record([{ device: "a", state: "ended" }])), {
      ok: false,
      field: "devices",
    });
    const bad = record([]);
    bad.settings.rate = "5";
    assert.deepEqual(checkJobRecord(bad), { ok: false, field: "settings" });
  });

  it("should give turns in order and refuse one past the queue", async function () {
    const turns = new Turns(1);
    const signal = new AbortController().signal;
    assert.equal(await turns.take(signal), true);
    const second = turns.take(signal);
    assert.throws(() => turns.take(signal), { code: "queue-full" });
    turns.release();
    assert.equal(await second, true);
    const aborted = new AbortController();
    const third = turns.take(aborted.signal);
    aborted.abort();
    assert.equal(await third, false);
    turns.release();
    assert.equal(await turns.take(signal), true);
  });
});

describe("unit: fleet/report, a device matched by date", function () {
  const { reportOf } = lib("fleet/report");
  const ended = (extra) => ({
    device: "pump-3",
    state: "ended",
    sentAt: 1,
    commandId: "7",
    outcome: "complete",
    elapsed: 5,
    ...extra,
  });

  it('should say matchedBy "date" for a device whose result marker named no command', function () {
    const job = record([ended({ matchedBy: "date" }), ended({ device: "lcd-board" })]);
    assert.equal(checkJobRecord(job).ok, true);
    const report = reportOf(job, { restored: false, dryRun: false, endedAt: 9 });
    assert.equal(report.devices[0].matchedBy, "date");
    assert.equal("matchedBy" in report.devices[1], false);
  });

  it("should refuse a saved device whose matchedBy is not date", function () {
    assert.deepEqual(checkJobRecord(record([ended({ matchedBy: "id" })])), {
      ok: false,
      field: "devices",
    });
  });
});
