// nodes/lib/commands/inbox-watch.ts, what each read of an inbox asks of the server and when: a
// small first page after a quiet read and the burst that makes it read again, a first page that
// answers every wait, answers dated a little before their command, and the fast pace's early
// reads, which learn the device's answer time and give way to a busy rate limiter.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");
const { inboxFakes } = require("../../support/inbox-fakes");

const { InboxWatch } = lib("commands/inbox-watch");
const { AnswerTimes } = lib("commands/answer-times");

const T0 = 1_700_000_000_000;
const { newId, fakeClient, recorder } = inboxFakes({ idBase: 0x100000, list: true, t0: T0 });

describe("unit: commands/inbox-watch, reads", function () {
  let clock;
  let client;
  const watches = [];
  const watchOf = (options) => {
    const w = new InboxWatch(client, { streamId: "in" }, () => {}, options);
    watches.push(w);
    return w;
  };

  beforeEach(function () {
    clock = FakeTimers.install({
      now: T0,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
    client = fakeClient();
  });
  afterEach(function () {
    for (const w of watches.splice(0)) w.close();
    clock.uninstall();
  });

  it("should read a burst after a quiet read again from the top, with a page that holds it", async function () {
    const watch = watchOf();
    const w = recorder(undefined, { since: T0 - 60_000 });
    watch.add(w);
    client.marker("COMMAND_START", "x", T0 - 30_000);
    await clock.tickAsync(0);
    client.requests.length = 0;
    for (let i = 0; i < 12; i++) client.marker("COMMAND_START", "y", T0 + i);
    await clock.tickAsync(1000);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [
        [0, 10],
        [0, 100],
      ],
    );
    assert.equal(w.got.length, 13, "every marker once");
    client.requests.length = 0;
    for (let i = 0; i < 3; i++) client.marker("COMMAND_START", "z", T0 + 100 + i);
    await clock.tickAsync(1000);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [[0, 100]],
      "after a read with 10 or more new events, the next starts with a full page",
    );
    client.requests.length = 0;
    await clock.tickAsync(1000);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [[0, 10]],
    );
  });

  it("should make one request of a first read whose page answers every wait", async function () {
    const watch = watchOf();
    const a = recorder(newId());
    const b = recorder(newId());
    client.marker("COMMAND_COMPLETE", a.commandId);
    client.marker("COMMAND_FAULT", b.commandId);
    watch.add(a);
    watch.add(b);
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 1);
    assert.equal(a.got.length + b.got.length, 2);
  });

  it("should read to the end when the first page answers only some waits", async function () {
    const watch = watchOf();
    const a = recorder(newId());
    const b = recorder(newId());
    client.marker("COMMAND_COMPLETE", a.commandId);
    client.marker("COMMAND_START", b.commandId);
    watch.add(a);
    watch.add(b);
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 2, "the first page, then an empty one");
  });

  it("should find its answer dated up to 5 s before its command, not one older", async function () {
    const watch = watchOf();
    const w = recorder(newId(), { since: T0 });
    const early = client.marker("COMMAND_COMPLETE", w.commandId, T0 - 4_000);
    for (let i = 0; i < 150; i++) client.marker("COMMAND_START", "other", T0 - 3_000 + i);
    watch.add(w);
    await clock.tickAsync(0);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", early.id]]);

    const c2 = fakeClient();
    const w2 = recorder(newId(), { since: T0 });
    c2.marker("COMMAND_COMPLETE", w2.commandId, T0 - 6_000);
    for (let i = 0; i < 5; i++) c2.marker("COMMAND_START", "other", T0 - 5_500 + i);
    const watch2 = new InboxWatch(c2, { streamId: "in2" }, () => {});
    watches.push(watch2);
    watch2.add(w2);
    await clock.tickAsync(0);
    // Read as far as 5 s before the command: the older answer lies past every read.
    assert.deepEqual(w2.got, []);
  });

  it("should read early on the fast pace, just after the device's learned answer time", async function () {
    const answers = new AnswerTimes();
    answers.learn("id:in", 300);
    const watch = watchOf({ pace: "fast", answers });
    assert.equal(watch.expectedAnswerMs, 300);
    const w = recorder(newId(), { intervalMs: 5000 });
    watch.add(w);
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 0, "not at once: its answer is not due");
    await clock.tickAsync(400);
    assert.ok(client.requests.length >= 1, "read before the interval");
    assert.ok(
      client.requests[0].at >= 300 && client.requests[0].at <= 330,
      String(client.requests[0].at),
    );
    const first = client.requests.length;
    client.marker("COMMAND_COMPLETE", w.commandId, T0 + 600);
    await clock.tickAsync(1000);
    assert.ok(client.requests.length > first, "read again after a growing gap");
    assert.equal(w.got.length, 1);
    assert.ok(watch.expectedAnswerMs > 300, "learned from the answer");
  });

  it("should give way on the fast pace when the rate limiter has no room, and read at the interval", async function () {
    const answers = AnswerTimes.withAccount(100);
    const watch = watchOf({ pace: "fast", answers });
    client.room = false;
    client.queued = 3;
    watch.add(recorder(newId(), { intervalMs: 2000 }));
    await clock.tickAsync(1999);
    assert.equal(client.requests.length, 0);
    assert.ok(watch.gaveWay >= 1);
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 1, "the interval's read does not give way");
  });
});
