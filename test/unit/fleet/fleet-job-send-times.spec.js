// nodes/lib/fleet/fleet-job.ts on virtual time against stand-in services: when a device counts as
// sent (its POST leaving, not its wait for the account's limiter, nor a retry of the client), the
// date its result is awaited from when the server's date cannot be used, and what a close, a
// resumed wait or a progress display see meanwhile.
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
const DAY = 86_400_000;

describe("unit: fleet/fleet-job, when a device counts as sent", function () {
  const v = useFleetClock();

  it("should date a device's send when its POST leaves, after its wait for the account's limiter", async function () {
    const dev = unique("dev");
    const client = standInClient({ slotMs: 400 });
    const record = jobRecord([dev]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(200);
    assert.equal(record.devices[0].state, "pending", "not sending while it waits for its slot");
    assert.equal(heard.progress, 1, "shown as started");
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.sentAt, d.firstSentAt], [T0 + 400, T0 + 400]);
    assert.equal(poller.waits[0].wait.startedAt, T0 + 400);
  });

  it("should keep a device's first send time and save it as sending once when the client tries its POST again", async function () {
    const dev = unique("dev");
    const client = standInClient({ resendMs: 300 });
    const record = jobRecord([dev]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.sentAt, d.firstSentAt], [T0, T0]);
    assert.deepEqual(
      heard.saves.map((s) => s.devices[0].state),
      ["sending", "sent"],
    );
  });

  it("should leave a device pending, unsaved, when the node closes while its POST waits for its slot", async function () {
    const dev = unique("dev");
    const client = standInClient({ slotMs: 400 });
    const record = jobRecord([dev]);
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(200);
    job.close();
    await v.clock.tickAsync(10_000);
    assert.equal(record.devices[0].state, "pending", "to be sent at the resume");
    assert.equal(record.devices[0].sentAt, undefined);
    assert.equal(client.posts.length, 0);
    assert.equal(heard.saves.length, 0);
  });

  it("should neither start nor show a device that waited for room when the node closes", async function () {
    const [a, b] = [unique("dev"), unique("dev")];
    const client = standInClient({
      concurrent: 1,
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { id: `c-${r.n}`, creationDate: Date.now(), elems: r.elems };
      },
    });
    const record = jobRecord([a, b], { concurrency: 10 });
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(50);
    assert.equal(heard.progress, 1, "a started; b waits for room");
    job.close();
    await v.clock.tickAsync(10_000);
    assert.equal(heard.progress, 1);
    assert.equal(client.tries, 1);
    assert.deepEqual(
      record.devices.map((d) => d.state),
      ["sending", "pending"],
    );
  });

  it("should show each device as it starts", async function () {
    const devs = [unique("dev"), unique("dev"), unique("dev")];
    const { job, heard, poller } = fleetJob(jobRecord(devs));
    job.start();
    await v.until(() => poller.waits.length === 3);
    assert.equal(heard.progress, 3);
  });

  it("should await a command without an id that the server dated far from now from its send less the skew", async function () {
    const dev = unique("dev");
    const client = standInClient({ post: () => ({ creationDate: T0 - DAY, elems: {} }) });
    const record = jobRecord([dev]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.since, d.dated], [T0 - SKEW, false]);
    assert.equal(poller.waits[0].wait.since, T0 - SKEW);
  });

  it("should await a command with an id from the server's date, however far from now", async function () {
    const dev = unique("dev");
    const client = standInClient({ post: () => ({ id: unique("c"), creationDate: T0 - DAY }) });
    const record = jobRecord([dev]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.since, d.dated], [T0 - DAY, true]);
  });

  it("should hand the inbox's observer to each device's wait", async function () {
    const observer = { seen: () => {} };
    const { job, poller } = fleetJob(jobRecord([unique("dev")]), { observer });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(poller.waits[0].wait.observer, observer);
  });

  it("should fail a device id-reused when a later send of this runtime to it gets its command's id", async function () {
    const dev = unique("dev");
    const id = unique("c");
    const server = () => ({ id, creationDate: Date.now() });
    const record = jobRecord([dev]);
    const { job, heard, poller } = fleetJob(record, { client: standInClient({ post: server }) });
    job.start();
    await v.until(() => poller.waits.length === 1);
    // Another job sends to the device, and the server gives its command the same id.
    const other = fleetJob(jobRecord([dev]), { client: standInClient({ post: server }) });
    other.job.start();
    await v.until(() => heard.ended === 1);
    const [d] = record.devices;
    assert.deepEqual([d.outcome, d.error, d.mayHaveBeenSent], ["failed", "id-reused", true]);
  });

  it("should tell a device whose inbox was refused for good with no markers", async function () {
    const dev = unique("dev");
    const { job, heard, poller } = fleetJob(jobRecord([dev]));
    job.start();
    await v.until(() => poller.waits.length === 1);
    poller.waits[0].wait.onMarker(marker("COMMAND_START", "c-0"), "COMMAND_START");
    poller.waits[0].wait.onError(new EdgeError("auth", {}));
    await v.until(() => heard.ended === 1);
    assert.deepEqual([heard.devices[0].marker, heard.devices[0].markers], [null, []]);
  });
});
