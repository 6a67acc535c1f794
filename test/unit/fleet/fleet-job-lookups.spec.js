// nodes/lib/fleet/fleet-job.ts on virtual time against stand-in services: a device that may have
// been sent before a redeploy or a crash is looked for in its `:command` stream before it is sent.
// Which command of the stream is taken as its own (the time window, the elems, who sent it), when
// the stream is read again, and how it ends when it cannot be told.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const {
  T0,
  unique,
  standInClient,
  jobRecord,
  fleetJob,
  useFleetClock,
  EdgeError,
} = require("../../support/fleet-stand-in");

const { senderOf } = lib("fleet/fleet-job");
const { sentCommands } = lib("commands/sent-commands");

const SKEW = 5000;
const ELEMS = { "/lcd/txt1": "stand-in" };
// The stand-in's request budget (1000 ms, no retries) and the second before the POST.
const BUDGET = 2000;

const cmd = (id, creationDate, elems = ELEMS) => ({ id, creationDate, elems });
const pathOf = (dev) => `/demo/devices/${dev}/:command`;

describe("unit: fleet/fleet-job, a device looked for in its stream", function () {
  const v = useFleetClock();

  afterEach(function () {
    delete performance.timeOrigin;
  });

  it("should await, not send again, a device left sending whose command is on its stream, as the server dated it", async function () {
    const dev = unique("dev");
    // A server that gives ids as JSON numbers.
    const client = standInClient({ list: () => [cmd(4711, T0 - 300)] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - 400 }]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(client.posts.length, 0, "not sent again");
    assert.deepEqual(
      client.lists.map((r) => [r.path, r.limit, r.at]),
      [[pathOf(dev), 100, T0]],
    );
    const [d] = record.devices;
    assert.deepEqual(
      [d.state, d.commandId, d.since, d.dated, d.sentAt, d.mayHaveBeenSent],
      ["sent", "4711", T0 - 300, true, T0 - 400, undefined],
    );
    assert.equal(heard.saves.at(-1).devices[0].state, "sent");
    assert.equal(poller.waits[0].wait.commandId, "4711");
    assert.equal(poller.waits[0].wait.since, T0 - 300);
    // Found, it is this runtime's: a later send the server answers with its id is told so.
    const again = jobRecord([dev]);
    const second = fleetJob(again, {
      client: standInClient({ post: () => cmd("4711", Date.now()) }),
    });
    second.job.start();
    await v.until(() => second.heard.ended === 1);
    assert.equal(again.devices[0].outcome, "failed");
    assert.equal(again.devices[0].error, "id-reused");
  });

  it("should await a command found with an empty id as one without an id", async function () {
    const dev = unique("dev");
    const client = standInClient({ list: () => [cmd("", T0 - 30)] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.state, d.commandId, d.since], ["sent", undefined, T0 - 30]);
    assert.equal(poller.waits[0].wait.commandId, undefined);
    assert.equal(client.posts.length, 0);
  });

  it("should await a command found without an id as one without an id", async function () {
    const dev = unique("dev");
    const client = standInClient({ list: () => [{ creationDate: T0 - 30, elems: ELEMS }] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    const [d] = record.devices;
    assert.deepEqual([d.state, d.commandId, d.since], ["sent", undefined, T0 - 30]);
    assert.equal(client.posts.length, 0);
  });

  it("should skip a command this runtime sent for another sender when the server gives its id as a number", async function () {
    const dev = unique("dev");
    const id = 900_000 + Number(unique("n").split("-")[1]);
    sentCommands.remember(pathOf(dev), String(id), "flow elsewhere");
    const client = standInClient({ list: () => [cmd(id, T0)] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - BUDGET }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(client.posts.length, 1, "not taken: sent");
    assert.notEqual(record.devices[0].commandId, String(id));
  });

  it("should take a command dated as early as the send less the clock skew, and none earlier, nor of other elems or no date", async function () {
    const dev = unique("dev");
    const sentAt = T0 - 100;
    const client = standInClient({
      list: () => [
        cmd("early", sentAt - SKEW - 1),
        cmd("other-elems", sentAt, { "/lcd/txt1": "else" }),
        cmd("undated", String(sentAt)),
        cmd("edge", sentAt - SKEW),
      ],
    });
    const record = jobRecord([{ device: dev, state: "sending", sentAt }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(client.posts.length, 0);
    assert.equal(record.devices[0].commandId, "edge");
  });

  it("should take a command dated as late as its request could land plus the clock skew, and none later", async function () {
    const dev = unique("dev");
    const sentAt = T0 - 100;
    const client = standInClient({
      list: () => [cmd("late", sentAt + BUDGET + SKEW + 1), cmd("edge", sentAt + BUDGET + SKEW)],
    });
    const record = jobRecord([{ device: dev, state: "sending", sentAt }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(client.posts.length, 0);
    assert.equal(record.devices[0].commandId, "edge");
    assert.equal(record.devices[0].dated, true);
  });

  it("should move the window by how far the server dated the job's other commands from their sends, both ways", async function () {
    // The fault harness (stamps, seed 180, path 0): a server 6 s behind dated the command of a
    // POST cut off by a deploy outside the window on our clock alone; the job sent it again.
    const dev = unique("dev");
    const sentAt = T0 - 100;
    const behind = 6000;
    const client = standInClient({
      list: () => [
        cmd("too-early", sentAt - behind - SKEW - 1),
        cmd("edge", sentAt - behind - SKEW),
      ],
    });
    const record = jobRecord([
      { device: dev, state: "sending", sentAt },
      // Sent and dated by the server 6 s before our clock; another 2 s after (a step between).
      {
        device: unique("dev"),
        state: "sent",
        sentAt: T0 - 900,
        since: T0 - 900 - behind,
        dated: true,
      },
      {
        device: unique("dev"),
        state: "sent",
        sentAt: T0 - 800,
        since: T0 - 800 + 2000,
        dated: true,
      },
      // Dated by our clock (no server date): no evidence of the server's.
      { device: unique("dev"), state: "sent", sentAt: T0 - 700, since: T0 - 99_000, dated: false },
    ]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length >= 1);
    assert.equal(client.posts.length, 0, "not sent again");
    assert.equal(record.devices[0].commandId, "edge");
    const { clockOffsets } = lib("fleet/fleet-job");
    // The others' (the device found is now one too).
    assert.deepEqual(clockOffsets(record.devices.slice(1)), [-behind, 2000]);
    assert.deepEqual(clockOffsets([]), [0, 0]);
  });

  it("should take the command this job sent the device over one of unknown sender, and skip another sender's", async function () {
    const dev = unique("dev");
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const path = pathOf(dev);
    const mine = unique("mine");
    const theirs = unique("theirs");
    sentCommands.remember(path, mine, senderOf(record, record.devices[0]));
    sentCommands.remember(path, theirs, "flow elsewhere");
    const client = standInClient({
      list: () => [cmd(theirs, T0 + 1), cmd(unique("unknown"), T0 + 2), cmd(mine, T0 + 3)],
    });
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(record.devices[0].commandId, mine);
    assert.equal(client.posts.length, 0);
  });

  it("should read the stream again when its request could still land, then send a device whose command never came", async function () {
    const dev = unique("dev");
    const path = pathOf(dev);
    const theirs = unique("theirs");
    sentCommands.remember(path, theirs, "flow elsewhere");
    const client = standInClient({ list: () => [cmd(theirs, T0)] });
    // Its POST started 500 ms ago: it could land until 1500 ms from now. A redeploy, not a
    // restart: how long ago this process started bounds nothing.
    Object.defineProperty(performance, "timeOrigin", { value: T0 - 60_000, configurable: true });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - 500 }]);
    const { job, heard, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.lists.map((r) => r.at - T0),
      [0, 1500],
    );
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [1500],
    );
    // Not found: saved as not sent before it is sent again.
    const unsent = heard.saves.find((s) => s.devices[0].state === "pending");
    assert.ok(unsent);
    assert.equal("sentAt" in unsent.devices[0], false);
    assert.equal(record.devices[0].sentAt, T0 + 1500);
  });

  it("should wait at most one request budget before the second read, for a send time in the future", async function () {
    const dev = unique("dev");
    const client = standInClient({
      // No such stream yet: the POST never made it.
      list: () => {
        throw new EdgeError("not-found", {}, { status: 404 });
      },
    });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 + 60_000 }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.lists.map((r) => r.at - T0),
      [0, BUDGET],
    );
    assert.equal(client.posts.length, 1);
    assert.equal(record.devices[0].state, "sent");
  });

  it("should read the stream once, and send at once, when the request could land no more", async function () {
    const dev = unique("dev");
    const client = standInClient({ list: () => [] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - BUDGET }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.lists.map((r) => r.at - T0),
      [0],
    );
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [0],
    );
  });

  it("should read the stream only once a send of this runtime to the device has its answer, and not take that send's command", async function () {
    const dev = unique("dev");
    const made = [];
    const client = standInClient({
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const e = cmd(`c-${r.n}`, Date.now());
        made.push(e);
        return e;
      },
      list: () => made,
    });
    // Another job sends to the device; this one resumes it as sending meanwhile.
    const sender = fleetJob(jobRecord([dev]), { client });
    sender.job.start();
    await v.until(() => client.inFlight === 1);
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - BUDGET }]);
    const { job, poller } = fleetJob(record, { client });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.lists.map((r) => r.at - T0),
      [300],
    );
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [0, 300],
    );
    assert.equal(record.devices[0].commandId, "c-1", "sent, not given the other job's command");
  });

  it("should not read the stream when the node closes while a send of this runtime to the device is on its way", async function () {
    const dev = unique("dev");
    const client = standInClient({
      post: async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return cmd(`c-${r.n}`, Date.now());
      },
    });
    const sender = fleetJob(jobRecord([dev]), { client });
    sender.job.start();
    await v.until(() => client.inFlight === 1);
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - BUDGET }]);
    const { job } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(100);
    job.close();
    await v.clock.tickAsync(10_000);
    assert.equal(client.lists.length, 0);
    assert.equal(client.posts.length, 1);
    assert.equal(record.devices[0].state, "sending");
  });

  it("should fail send-uncertain, not send, when two commands of unknown sender could be its own", async function () {
    const dev = unique("dev");
    const client = standInClient({ list: () => [cmd(unique("u"), T0), cmd(unique("u"), T0)] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.until(() => heard.ended === 1);
    const [d] = record.devices;
    assert.deepEqual([d.outcome, d.error, d.mayHaveBeenSent], ["failed", "send-uncertain", true]);
    assert.match(d.message, /two or more commands with these elems/);
    assert.equal(client.posts.length, 0);
    assert.equal(heard.devices[0].command, null);
  });

  it("should fail id-reused, not send, when a command that could be its own shares its id with another", async function () {
    const dev = unique("dev");
    const id = unique("twice");
    const client = standInClient({
      list: () => [cmd(id, T0, { other: 1 }), cmd(id, T0)],
    });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.until(() => heard.ended === 1);
    const [d] = record.devices;
    assert.deepEqual([d.outcome, d.error, d.mayHaveBeenSent], ["failed", "id-reused", true]);
    assert.equal(client.posts.length, 0);
  });

  it("should fail send-uncertain with the read's reason, not send, when the stream cannot be read", async function () {
    const dev = unique("dev");
    const client = standInClient({
      list: () => {
        throw new EdgeError("http", {}, { status: 500 });
      },
    });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.until(() => heard.ended === 1);
    const [d] = record.devices;
    assert.deepEqual([d.outcome, d.error, d.mayHaveBeenSent], ["failed", "send-uncertain", true]);
    const reason = new EdgeError("http", {}, { status: 500 }).message;
    assert.ok(
      d.message.includes(`the stream could not be read: ${reason}`),
      `${d.message} names the read's error`,
    );
    assert.equal(client.lists.length, 1);
    assert.equal(client.posts.length, 0);
  });

  it("should stop looking, and neither send nor end the device, when the node closes while it waits to read again", async function () {
    const dev = unique("dev");
    const client = standInClient({ list: () => [] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 }]);
    const { job, heard } = fleetJob(record, { client });
    job.start();
    await v.clock.tickAsync(100);
    job.close();
    await v.clock.tickAsync(60_000);
    assert.equal(client.lists.length, 1);
    assert.equal(client.posts.length, 0);
    assert.equal(record.devices[0].state, "sending");
    assert.equal(heard.devices.length, 0);
  });

  it("should neither take nor fail a device whose stream read ends after the close", async function () {
    const dev = unique("dev");
    let answer;
    const client = standInClient({
      list: () => new Promise((resolve, reject) => (answer = { resolve, reject })),
    });
    const [a, b] = [
      jobRecord([{ device: dev, state: "sending", sentAt: T0 }]),
      jobRecord([{ device: dev, state: "sending", sentAt: T0 }]),
    ];
    const found = fleetJob(a, { client });
    found.job.start();
    await v.until(() => answer !== undefined);
    found.job.close();
    answer.resolve([cmd(unique("u"), T0)]);
    await v.clock.tickAsync(10_000);
    assert.deepEqual([a.devices[0].state, a.devices[0].commandId], ["sending", undefined]);
    answer = undefined;
    const failed = fleetJob(b, { client });
    failed.job.start();
    await v.until(() => answer !== undefined);
    failed.job.close();
    answer.reject(new EdgeError("http", {}, { status: 500 }));
    await v.clock.tickAsync(10_000);
    assert.deepEqual([b.devices[0].state, b.devices[0].outcome], ["sending", undefined]);
    assert.equal(failed.heard.devices.length + found.heard.devices.length, 0);
    assert.equal(client.posts.length, 0);
  });
});

describe("unit: fleet/fleet-job, a job read back from a store after a crash", function () {
  const v = useFleetClock();

  afterEach(function () {
    delete performance.timeOrigin;
  });

  /** This process started `ms` before now (virtual). */
  const startedAgo = (ms) =>
    Object.defineProperty(performance, "timeOrigin", { value: T0 - ms, configurable: true });

  it("should look its pending devices up from its clean stop, else its last save, else its start, never after the resume", function () {
    const cases = [
      [{ startedAt: T0 - 9000, savedAt: T0 - 5000, closedAt: T0 - 3000 }, T0 - 3000],
      [{ startedAt: T0 - 9000, savedAt: T0 - 5000 }, T0 - 5000],
      [{ startedAt: T0 - 9000 }, T0 - 9000],
      [{ startedAt: T0 - 9000, savedAt: T0 + 7000 }, T0],
    ];
    for (const [over, from] of cases) {
      const record = jobRecord([unique("dev")], {}, over);
      fleetJob(record, { fromStore: true });
      assert.deepEqual(record.lookUp, { from, to: T0 }, JSON.stringify(over));
    }
  });

  it("should await a pending device whose command went out after the save, as one that may have been told, from that save", async function () {
    startedAgo(10_000);
    const [a, b] = [unique("dev"), unique("dev")];
    const savedAt = T0 - 2000;
    const client = standInClient({
      list: (r) => (r.path === pathOf(b) ? [cmd(unique("u"), savedAt + 100)] : []),
    });
    const record = jobRecord([a, b], {}, { startedAt: T0 - 5000, savedAt });
    const { job, poller } = fleetJob(record, { client, fromStore: true });
    job.start();
    await v.until(() => poller.waits.length === 2);
    const [da, db] = record.devices;
    // This process started long ago: nothing it did not send can still land.
    assert.deepEqual(
      client.posts.map((p) => [p.path, p.at - T0]),
      [[pathOf(a), 0]],
    );
    assert.equal(da.mayHaveBeenSent, undefined);
    assert.deepEqual([db.state, db.sentAt, db.mayHaveBeenSent], ["sent", savedAt, true]);
  });

  it("should read a pending device's stream again until one Timeout after this process started, and no longer", async function () {
    // Started 500 ms ago with a 1000 ms Timeout: a request of the process before could land for
    // 500 ms more, not the whole budget from the resume.
    startedAgo(500);
    const dev = unique("dev");
    const client = standInClient({ list: () => [] });
    const record = jobRecord([dev], {}, { savedAt: T0 - 3000 });
    const { job, poller } = fleetJob(record, { client, fromStore: true });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.deepEqual(
      client.lists.map((r) => r.at - T0),
      [0, 500],
    );
    assert.deepEqual(
      client.posts.map((p) => p.at - T0),
      [500],
    );
    assert.equal(record.devices[0].mayHaveBeenSent, undefined);
  });

  it("should not say a device left sending before the crash may have been told when its command never came and it is sent now", async function () {
    startedAgo(60_000);
    const dev = unique("dev");
    const client = standInClient({ list: () => [] });
    const record = jobRecord([{ device: dev, state: "sending", sentAt: T0 - 100 }]);
    const { job, poller } = fleetJob(record, { client, fromStore: true });
    job.start();
    await v.until(() => poller.waits.length === 1);
    assert.equal(client.posts.length, 1);
    assert.deepEqual(
      [record.devices[0].state, record.devices[0].mayHaveBeenSent],
      ["sent", undefined],
    );
  });

  it("should say a device left sent or sending before the crash may have been told, and not one of a redeploy", async function () {
    startedAgo(60_000);
    const run = async (fromStore) => {
      const [a, b] = [unique("dev"), unique("dev")];
      const commandId = unique("c");
      const client = standInClient({ list: () => [cmd(unique("u"), T0 - 50)] });
      const record = jobRecord([
        { device: a, state: "sent", sentAt: T0 - 100, commandId, since: T0 - 90 },
        { device: b, state: "sending", sentAt: T0 - 100 },
      ]);
      const { job, poller } = fleetJob(record, { client, fromStore });
      job.start();
      await v.until(() => poller.waits.length === 2);
      assert.equal(client.posts.length, 0);
      assert.deepEqual(
        client.lists.map((r) => r.path),
        [pathOf(b)],
        "a sent device is awaited, not looked for",
      );
      assert.equal(record.devices[0].commandId, commandId);
      return record.devices.map((d) => d.mayHaveBeenSent);
    };
    assert.deepEqual(await run(true), [true, true]);
    assert.deepEqual(await run(false), [undefined, undefined]);
  });
});
