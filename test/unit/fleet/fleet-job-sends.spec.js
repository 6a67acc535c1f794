// nodes/lib/fleet/fleet-job.ts on virtual time against stand-in services: what a job sends, what
// each device's record says from its send to its result, the pauses of a send the account kept
// back, the room a job takes in the account's limiter, and what a cancel or a close leaves.
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
const queueFull = () => new EdgeError("queue-full", {});
/** The API's own 429 (its envelope says so), asking to come back after `ms`. */
const busy = (ms) =>
  new EdgeError(
    "http",
    {},
    { status: 429, apiStatus: 429, retryAfterMs: ms, mayHaveBeenSent: true },
  );

describe("unit: fleet/fleet-job, sends on virtual time", function () {
  const v = useFleetClock();

  it("should send each device once, save it as sending before its POST and as sent with the server's id and date after", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const record = jobRecord([a, b], { ttl: 30 });
    const { job, heard, client, poller } = fleetJob(record);
    job.start();
    await v.until(() => poller.waits.length === 2);
    assert.deepEqual(
      client.posts.map((p) => [p.path, p.elems, p.metadata]),
      [
        [`/demo/devices/${a}/:command`, record.settings.elems, { ttl: 30 }],
        [`/demo/devices/${b}/:command`, record.settings.elems, { ttl: 30 }],
      ],
    );
    const [da, db] = record.devices;
    assert.deepEqual(
      { ...da },
      {
        device: a,
        state: "sent",
        sentAt: T0,
        firstSentAt: T0,
        commandId: "c-0",
        since: T0 - 7,
        dated: true,
      },
    );
    assert.equal(db.commandId, "c-1");
    // Saved as sending (before its POST) and then as sent, for each device.
    const statesOf = (dev) => heard.saves.map((s) => s.devices.find((d) => d.device === dev).state);
    assert.deepEqual(statesOf(a).slice(0, 1), ["sending"]);
    assert.ok(statesOf(a).includes("sent"));
    assert.equal(heard.saves.at(-1).devices[0].commandId, "c-0");
    // Each waits on its device's inbox for that command, from the server's date of it.
    const w = poller.of(a).wait;
    assert.equal(w.commandId, "c-0");
    assert.equal(w.since, T0 - 7);
    assert.equal(w.dated, true);
    assert.equal(w.sentAt, T0);
    assert.equal(heard.devices.length, 0);
    assert.equal(heard.ended, 0);
  });

  it("should end a device complete on its result, with its command, its markers and its time from the first send", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { id: `c-${r.n}`, creationDate: Date.now() - 10, elems: r.elems };
      },
    });
    const record = jobRecord([dev], { ttl: 30 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    await v.clock.tickAsync(1200);
    const start = marker("COMMAND_START", "c-0");
    const done = marker("COMMAND_COMPLETE", "c-0");
    poller.waits[0].wait.onMarker(start, "COMMAND_START");
    poller.waits[0].wait.onMarker(done, "COMMAND_COMPLETE");
    const [d] = record.devices;
    assert.equal(d.state, "ended");
    assert.equal(d.outcome, "complete");
    assert.equal(d.elapsed, 1500, "from the POST's start, before its 300 ms on the wire");
    assert.equal(d.matchedBy, undefined, "its result named its command");
    assert.equal(d.error, undefined);
    assert.equal(heard.devices.length, 1);
    assert.deepEqual(heard.devices[0].command, {
      id: "c-0",
      creationDate: T0 + 290,
      device: dev,
      path: `/demo/devices/${dev}/:command`,
      ttl: 30,
      sentAt: T0,
    });
    assert.equal(heard.devices[0].marker, done);
    assert.deepEqual(heard.devices[0].markers, [start, done]);
    assert.equal(heard.saves.at(-1).devices[0].outcome, "complete");
    await v.until(() => heard.ended === 1);
  });

  it("should say matchedBy date for a result that names no command, and end fault on a fault", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const record = jobRecord([a, b]);
    const { job, heard, poller } = fleetJob(record);
    job.start();
    await v.until(() => poller.waits.length === 2);
    poller.of(a).wait.onMarker(marker("COMMAND_COMPLETE", "someone-else"), "COMMAND_COMPLETE");
    poller.of(b).wait.onMarker(marker("COMMAND_FAULT", "c-1"), "COMMAND_FAULT");
    const [da, db] = record.devices;
    assert.equal(da.outcome, "complete");
    assert.equal(da.matchedBy, "date");
    assert.equal(db.outcome, "fault");
    assert.equal(db.matchedBy, undefined);
    assert.equal(heard.devices.length, 2);
    await v.until(() => heard.ended === 1);
  });

  it("should read the inbox once more at the device's Timeout from its send, and end timed out with that read's error", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord([dev], { timeoutMs: 5000 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const w = poller.waits[0];
    await v.clock.tickAsync(T0 + 4999 - Date.now());
    assert.equal(w.finals, 0);
    await v.clock.tickAsync(1);
    assert.equal(w.finals, 1, "at the send plus its Timeout");
    const readError = new EdgeError("timeout", {});
    w.wait.onFinalRead(readError);
    const [d] = record.devices;
    assert.equal(d.outcome, "timed-out");
    assert.equal(d.elapsed, 5000);
    assert.equal(d.error, "timeout");
    assert.equal(d.message, `told: ${readError.message}`);
    assert.equal(heard.devices[0].marker, null);
    assert.equal(heard.devices[0].command.id, "c-0");
  });

  it("should end a device timed out with the error of an inbox refused for good, and failed, not timed out, on clock-apart or id-reused", async function () {
    const devs = [unique("dev"), unique("dev"), unique("dev"), unique("dev")];
    const record = jobRecord(devs);
    const { job, heard, poller } = fleetJob(record);
    job.start();
    await v.until(() => poller.waits.length === 4);
    await v.clock.tickAsync(250);
    poller.of(devs[0]).wait.onError(new EdgeError("auth", {}));
    poller.of(devs[1]).wait.onError(new EdgeError("clock-apart", {}));
    poller.of(devs[2]).wait.onError(new EdgeError("id-reused", {}));
    poller.of(devs[3]).wait.onFinalRead(undefined);
    const [auth, apart, reused, plain] = record.devices;
    assert.deepEqual(
      [auth.outcome, auth.error, auth.elapsed, auth.mayHaveBeenSent],
      ["timed-out", "auth", 250, undefined],
    );
    assert.deepEqual(
      [apart.outcome, apart.error, apart.mayHaveBeenSent],
      ["failed", "clock-apart", true],
    );
    assert.deepEqual(
      [reused.outcome, reused.error, reused.mayHaveBeenSent],
      ["failed", "id-reused", true],
    );
    assert.deepEqual(
      [plain.outcome, plain.error, plain.message],
      ["timed-out", undefined, undefined],
    );
    // A failed device's message describes no command, one timed out its command.
    const told = Object.fromEntries(heard.devices.map((r) => [r.record.device, r.command]));
    assert.equal(told[devs[1]], null);
    assert.equal(told[devs[0]].id, "c-0");
    await v.until(() => heard.ended === 1);
  });

  it("should wait from the server's date less the clock skew for a command the server gave no id", async function () {
    const dev = unique("dev");
    const client = standInClient({ post: () => ({ creationDate: T0 - 3, elems: {} }) });
    const record = jobRecord([dev]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.equal(d.state, "sent");
    assert.equal("commandId" in d, false);
    assert.equal(d.since, T0 - 3 - SKEW);
    assert.equal(d.dated, false);
    assert.equal(poller.waits[0].wait.since, T0 - 3 - SKEW);
    assert.equal(poller.waits[0].wait.commandId, undefined);
    poller.waits[0].wait.onMarker(marker("COMMAND_COMPLETE", "x"), "COMMAND_COMPLETE");
    assert.equal(d.matchedBy, "date");
    assert.deepEqual(heard.devices[0].command, {
      creationDate: T0 - 3 - SKEW,
      device: dev,
      path: `/demo/devices/${dev}/:command`,
      sentAt: T0,
    });
  });

  it("should try a send the account kept back again after doubling pauses, its time counted from the first try", async function () {
    const dev = unique("dev");
    const client = standInClient({ refuse: (n) => (n < 3 ? queueFull() : undefined) });
    const record = jobRecord([dev], { timeoutMs: 5000 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    // Tries at 0, 50, 150 and 350 ms: pauses of 50, 100 and 200.
    assert.equal(client.tries, 4);
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [350],
    );
    const [d] = record.devices;
    assert.equal(d.sentAt, T0 + 350);
    assert.equal(d.firstSentAt, T0 + 350, "never recorded as sending before its POST left");
    // Kept back, it was saved pending (nothing left), and it was never failed.
    assert.ok(heard.saves.some((s) => s.devices[0].state === "pending"));
    assert.equal(d.error, undefined);
  });

  it("should try again after the API's Retry-After, and count the device's time from its first POST", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: (r) => {
        if (r.n === 0) throw busy(700);
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord([dev], { timeoutMs: 5000 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [0, 700],
    );
    const [d] = record.devices;
    assert.equal(d.sentAt, T0 + 700);
    assert.equal(d.firstSentAt, T0);
    assert.equal(d.commandId, "c-1");
    const refused = heard.saves.find((s) => s.devices[0].state === "pending");
    assert.ok(refused, "saved as not sent after the refusal");
    assert.equal("sentAt" in refused.devices[0], false);
    await v.clock.tickAsync(300);
    poller.waits[0].wait.onMarker(marker("COMMAND_COMPLETE", "c-1"), "COMMAND_COMPLETE");
    assert.equal(d.elapsed, 1000);
    assert.equal(d.mayHaveBeenSent, undefined);
  });

  it("should fail a device kept back when the next pause would reach its Timeout, with the refusal's error", async function () {
    const dev = unique("dev");
    // Tries at 0 and 50 ms; the next pause (100) is all that is left of the 150 ms Timeout.
    const client = standInClient({ refuse: () => queueFull() });
    const record = jobRecord([dev], { timeoutMs: 150 });
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.until(() => heard.ended === 1);
    assert.equal(client.tries, 2);
    assert.equal(Date.now(), T0 + 50);
    const [d] = record.devices;
    assert.deepEqual(
      [d.outcome, d.error, d.message, d.mayHaveBeenSent],
      ["failed", "queue-full", `told: ${queueFull().message}`, undefined],
    );
    assert.equal(heard.devices[0].command, null);
    assert.equal(client.posts.length, 0);
  });

  it("should fail, not try again, a refusal that came when the Timeout was over, keeping its send time", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        throw busy(0);
      },
    });
    const record = jobRecord([dev], { timeoutMs: 150 });
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.until(() => heard.ended === 1);
    assert.equal(client.posts.length, 1);
    const [d] = record.devices;
    assert.equal(d.outcome, "failed");
    assert.equal(d.mayHaveBeenSent, true);
    assert.equal(d.sentAt, T0);
    assert.equal(d.elapsed, 150);
    assert.ok(heard.saves.every((s) => s.devices[0].state !== "pending"));
  });

  it("should hold no more of a job's sends in the account's limiter than its At once", async function () {
    const devs = Array.from({ length: 5 }, () => unique("dev"));
    const client = standInClient({
      concurrent: 2,
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord(devs, { concurrency: 10 });
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 5);
    assert.equal(client.maxInFlight, 2);
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [0, 0, 100, 100, 200],
    );
  });

  it("should leave the devices that waited for room not sent when the job is cancelled, and save and show the cancel", async function () {
    const [a, b, c] = [unique("dev"), unique("dev"), unique("dev")];
    const client = standInClient({
      concurrent: 1,
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord([a, b, c], { concurrency: 10 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(50);
    const progress = heard.progress;
    const saves = heard.saves.length;
    job.cancel();
    assert.equal(job.stopping, true);
    assert.equal(heard.progress, progress + 1, "shown");
    assert.equal(heard.saves.length, saves + 1, "saved");
    assert.equal(heard.saves.at(-1).stopped, "cancelled");
    await v.until(() => poller.waits.length === 1);
    await v.clock.tickAsync(100);
    assert.equal(client.posts.length, 1);
    poller.waits[0].wait.onMarker(marker("COMMAND_COMPLETE", "c-0"), "COMMAND_COMPLETE");
    await v.until(() => heard.ended === 1);
    assert.deepEqual(
      record.devices.map((d) => d.outcome),
      ["complete", "not-sent", "not-sent"],
    );
  });

  it("should stop at close: a device's wait is cancelled and nothing more is told, sent or saved", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const client = standInClient({ concurrent: 1 });
    const record = jobRecord([a, b], { concurrency: 1 });
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const saves = heard.saves.length;
    job.close();
    assert.equal(poller.waits[0].stopped, 1, "its inbox watch stopped");
    await v.clock.tickAsync(60_000);
    assert.deepEqual(
      record.devices.map((d) => d.state),
      ["sent", "pending"],
    );
    assert.equal(client.posts.length, 1);
    assert.equal(heard.devices.length, 0);
    assert.equal(heard.ended, 0);
    assert.equal(heard.saves.length, saves);
  });

  it("should not send a device whose node closed while its sending was being saved, nor one in a pause", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const releases = [];
    const client = standInClient({ refuse: (n) => (n === 0 ? queueFull() : undefined) });
    const record = jobRecord([a, b], { concurrency: 10 });
    const { job, heard } = fleetJob(record, {
      client,
      hooks: {
        save: (r) =>
          r.devices.some((d) => d.device === b && d.state === "sending")
            ? new Promise((resolve) => releases.push(resolve))
            : undefined,
      },
    });
    job.start();
    // a was kept back and pauses; b's sending is being saved.
    await v.until(() => releases.length > 0);
    job.close();
    for (const release of releases) release();
    await v.clock.tickAsync(60_000);
    assert.equal(client.posts.length, 0, "nothing left");
    assert.equal(client.tries, 2, "a was not tried again after its pause");
    assert.deepEqual(
      record.devices.map((d) => d.state),
      ["pending", "sending"],
    );
    assert.equal(heard.devices.length, 0);
    assert.equal(heard.ended, 0);
  });

  it("should leave a device whose answer came after the close as sending, to be looked up at the resume", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord([dev]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(50);
    job.close();
    await v.clock.tickAsync(60_000);
    assert.equal(client.posts.length, 1);
    const [d] = record.devices;
    assert.equal(d.state, "sending");
    assert.equal(d.commandId, undefined);
    assert.equal(poller.waits.length, 0);
    assert.equal(heard.devices.length, 0);
  });
});
