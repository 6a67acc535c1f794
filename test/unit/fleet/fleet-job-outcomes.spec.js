// nodes/lib/fleet/fleet-job.ts on virtual time against stand-in services: what a device's outcome
// carries when a hook of the node throws (its message, its error, the job going on), the wait a
// device resumed as sent gets, and a device's elapsed time at its edges.
"use strict";
const assert = require("node:assert/strict");
const {
  T0,
  unique,
  standInClient,
  jobRecord,
  fleetJob,
  useFleetClock,
  marker,
  EdgeError,
} = require("../../support/fleet-stand-in");

const SKEW = 5000;

describe("unit: fleet/fleet-job, outcomes and the node's hooks", function () {
  const v = useFleetClock();

  it("should tell a device again without its markers, with the hook's error, when its message cannot go out", async function () {
    const dev = unique("dev");
    const record = jobRecord([dev]);
    let throws = 1;
    const { job, heard, poller } = fleetJob(record, {
      hooks: {
        device: () => {
          if (throws-- > 0) throw new EdgeError("too-deep-msg", {});
        },
      },
    });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const done = marker("COMMAND_COMPLETE", "c-0");
    const saves = heard.saves.length;
    poller.waits[0].wait.onMarker(done, "COMMAND_COMPLETE");
    await v.until(() => heard.ended === 1);
    const [d] = record.devices;
    assert.equal(d.outcome, "complete");
    assert.equal(d.error, "too-deep-msg");
    assert.equal(d.message, `told: ${new EdgeError("too-deep-msg", {}).message}`);
    assert.equal(heard.devices.length, 2);
    assert.equal(heard.devices[0].marker, done);
    assert.deepEqual([heard.devices[1].marker, heard.devices[1].markers], [null, []]);
    assert.equal(heard.devices[1].command.id, "c-0", "its command is still told");
    assert.equal(heard.devices[1].record.error, "too-deep-msg");
    // Saved at its end, and again with the error.
    assert.equal(heard.saves.length, saves + 2);
    assert.equal(heard.saves.at(-1).devices[0].error, "too-deep-msg");
  });

  it("should give a hook's error that is not the API's as internal, and go on when the second message fails too", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const record = jobRecord([a, b]);
    const { job, heard, poller } = fleetJob(record, {
      hooks: {
        device: (r) => {
          if (r.record.device === a) throw new Error("copy failed");
        },
        describe: (err) => `${err.code}: ${err.params.detail ?? ""}`,
      },
    });
    job.start();
    await v.until(() => poller.waits.length === 2);
    const progress = heard.progress;
    poller.of(a).wait.onMarker(marker("COMMAND_COMPLETE", "c-0"), "COMMAND_COMPLETE");
    poller.of(b).wait.onMarker(marker("COMMAND_COMPLETE", "c-1"), "COMMAND_COMPLETE");
    await v.until(() => heard.ended === 1);
    const [da, db] = record.devices;
    assert.deepEqual(
      [da.outcome, da.error, da.message],
      ["complete", "internal", "internal: Error: copy failed"],
    );
    assert.deepEqual([db.outcome, db.error], ["complete", undefined]);
    assert.equal(heard.devices.filter((r) => r.record.device === a).length, 2);
    assert.equal(heard.progress, progress + 2, "each end shown");
  });

  it("should fail a device whose run throws, with that error, and go on with the job", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const record = jobRecord([a, b], { concurrency: 1 });
    let throws = 1;
    // The node's progress hook throws once, as the first device starts.
    const { job, heard, client } = fleetJob(record, {
      hooks: {
        progress: () => {
          if (throws-- > 0) throw new Error("progress failed");
        },
      },
    });
    job.start();
    await v.until(() => record.devices[0].state === "ended");
    const [da] = record.devices;
    assert.deepEqual([da.outcome, da.error], ["failed", "internal"]);
    assert.equal(heard.devices[0].record.device, a);
    await v.until(() => client.posts.length === 1);
    assert.equal(client.posts[0].path, `/demo/devices/${b}/:command`, "only b was sent");
  });

  it("should tell a device that failed once, and go on, when the progress hook throws as it ends", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const client = standInClient({
      refuse: (n) =>
        n === 0 ? new EdgeError("not-found", { device: a }, { status: 404 }) : undefined,
    });
    const record = jobRecord([a, b], { concurrency: 1 });
    let calls = 0;
    const { job, heard, poller } = fleetJob(record, {
      client,
      hooks: {
        // The first call shows a starting; the second, a's end, throws.
        progress: () => {
          if (++calls === 2) throw new Error("progress failed");
        },
      },
    });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      heard.devices.map((r) => [r.record.device, r.record.outcome, r.record.error]),
      [[a, "failed", "not-found"]],
    );
    assert.equal(client.posts.length, 1, "b was sent");
  });

  it("should keep a device's outcome, and not throw into the inbox poller, when a hook throws as it ends", async function () {
    const dev = unique("dev");
    const record = jobRecord([dev]);
    let failing = false;
    const { job, heard, poller } = fleetJob(record, {
      hooks: {
        progress: () => {
          if (failing) throw new Error("progress failed");
        },
      },
    });
    job.start();
    await v.until(() => poller.waits.length === 1);
    failing = true;
    assert.doesNotThrow(() =>
      poller.waits[0].wait.onMarker(marker("COMMAND_COMPLETE", "c-0"), "COMMAND_COMPLETE"),
    );
    await v.until(() => heard.ended === 1);
    assert.equal(record.devices[0].outcome, "complete");
  });

  it("should wait for a device resumed as sent from its send, for the rest of its Timeout, from its date less the skew when none was kept", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const record = jobRecord(
      [
        { device: a, state: "sent", sentAt: T0 - 1000, commandId: unique("c") },
        { device: b, state: "sent", commandId: unique("c"), since: T0 - 20, dated: true },
      ],
      { timeoutMs: 5000 },
    );
    const { job, heard, poller } = fleetJob(record);
    job.start();
    await v.until(() => poller.waits.length === 2);
    const wa = poller.of(a);
    const wb = poller.of(b);
    assert.deepEqual(
      [wa.wait.since, wa.wait.startedAt, wa.wait.sentAt, wa.wait.dated, wa.wait.madeBy],
      [T0 - 1000 - SKEW, T0 - 1000, T0 - 1000, false, T0],
    );
    assert.deepEqual(
      [wb.wait.since, wb.wait.startedAt, wb.wait.sentAt, wb.wait.dated],
      [T0 - 20, T0, undefined, true],
    );
    await v.clock.tickAsync(3999);
    assert.deepEqual([wa.finals, wb.finals], [0, 0]);
    await v.clock.tickAsync(1);
    assert.deepEqual([wa.finals, wb.finals], [1, 0], "a's Timeout ran from its send");
    wa.wait.onFinalRead(undefined);
    await v.clock.tickAsync(1000);
    assert.equal(wb.finals, 1);
    wb.wait.onFinalRead(undefined);
    await v.until(() => heard.ended === 1);
    assert.deepEqual(
      record.devices.map((d) => [d.outcome, d.elapsed]),
      [
        ["timed-out", 5000],
        ["timed-out", 0],
      ],
    );
  });

  it("should count no time for a device never sent, nor a negative time for one sent after now by its record", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const client = standInClient({
      refuse: () => new EdgeError("not-found", { device: a }, { status: 404 }),
    });
    const record = jobRecord([
      a,
      { device: b, state: "sent", sentAt: T0 + 60_000, commandId: unique("c") },
    ]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    poller.waits[0].wait.onError(new EdgeError("auth", {}));
    await v.until(() => heard.ended === 1);
    const [da, db] = record.devices;
    assert.deepEqual(
      [da.outcome, da.elapsed, da.sentAt, da.error],
      ["failed", 0, undefined, "not-found"],
    );
    assert.deepEqual([db.outcome, db.elapsed], ["timed-out", 0]);
  });
});
