// nodes/lib/commands/inbox-watch.ts on the fast pace, when each read of an inbox is made: just
// after the device's learned answer time, then after gaps that double up to the interval; after a
// result, the next pending command's answer time; a new command's answer time when it comes
// before the timer set; a new wait's first read made through a rate limiter with no room when
// nothing else is queued; a final read that never gives way; what a result teaches.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");
const { AnswerTimes } = lib("commands/answer-times");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0x700000 + ++serial).toString(16).padStart(24, "0")}`;

function fakeClient() {
  const c = {
    events: [],
    /** Virtual ms since T0 of each read: its first request, from the top. */
    reads: [],
    room: true,
    queued: 0,
    /** When set, each read waits for release() before it answers. */
    hold: false,
    pending: [],
    limiter: { hasRoomForEarlyPoll: () => c.room, queuedIn: () => c.queued },
    marker(status, ref, at = Date.now()) {
      const e = {
        id: newId(),
        creationDate: at,
        elems: { cmd: { status, ...(ref ? { ref } : {}) } },
      };
      c.events.unshift(e);
      return e;
    },
    async listEvents(streamId, page) {
      if (page.start === 0) c.reads.push(Date.now() - T0);
      if (c.hold) await new Promise((r) => c.pending.push(r));
      return c.events.slice(page.start, page.start + page.limit).map((e) => ({ ...e }));
    },
    release() {
      for (const r of c.pending.splice(0)) r();
    },
  };
  return c;
}

function recorder(commandId, over = {}) {
  const w = {
    commandId,
    since: Date.now(),
    intervalMs: 1000,
    got: [],
    finals: [],
    onMarker: (event, name) => w.got.push([name, event.id]),
    onError() {},
    onFinalRead: (err) => w.finals.push(err),
    ...over,
  };
  return w;
}

describe("unit: commands/inbox-watch, early reads on the fast pace", function () {
  let clock;
  let client;
  const watches = [];
  /** A watch on the fast pace whose device is known to answer in `answerMs`. */
  const fastWatch = (answerMs) => {
    const answers = new AnswerTimes();
    if (answerMs !== undefined) answers.learn("id:in", answerMs);
    const w = new InboxWatch(client, { streamId: "in" }, () => {}, { pace: "fast", answers });
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

  it("should read 15 ms after the learned answer time, then after gaps that double, then at the interval", async function () {
    const watch = fastWatch(300);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await clock.tickAsync(4000);
    // Gaps of 50, 100, 200, 400 and 800 ms; 1,600 is past the interval, whose reads take over.
    assert.deepEqual(client.reads, [315, 365, 465, 665, 1065, 1865, 2865, 3865]);
  });

  it("should plan the next read for the next pending command's answer after a result", async function () {
    const watch = fastWatch(300);
    const a = recorder(newId(), { intervalMs: 5000 });
    const b = recorder(newId(), { intervalMs: 5000 });
    watch.add(a);
    watch.add(b);
    // The device runs them one after another: a's result at 300 ms, b's due 300 ms after it.
    client.marker("COMMAND_COMPLETE", a.commandId, T0 + 300);
    await clock.tickAsync(650);
    assert.deepEqual(client.reads, [315, 615], "not 50 ms after the read that found a's result");
    assert.equal(a.got.length, 1);
    assert.equal(watch.expectedAnswerMs, 300);
  });

  it("should read for a new command at its answer time when that comes before the timer set", async function () {
    const watch = fastWatch(300);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await clock.tickAsync(3000);
    assert.deepEqual(client.reads, [315, 365, 465, 665, 1065, 1865, 2865]);
    client.reads.length = 0;
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await clock.tickAsync(340);
    assert.deepEqual(client.reads, [3315], "not at the interval's 3865");
  });

  it("should make a new wait's first read when the rate limiter has no room but nothing is queued, then give way to the interval", async function () {
    const watch = fastWatch(300);
    client.room = false;
    watch.add(recorder(newId(), { intervalMs: 2000 }));
    await clock.tickAsync(315);
    assert.deepEqual(client.reads, [], "the planned early read gave way");
    // Due now, through the lane, as the fixed pace reads a new wait's inbox at once (a timer of
    // 0 ms set while the fake clock ticks fires 1 ms later).
    await clock.tickAsync(1);
    assert.deepEqual(client.reads, [316]);
    await clock.tickAsync(2000);
    assert.deepEqual(client.reads, [316, 2316], "the early reads after it gave way");
    assert.ok(watch.gaveWay >= 10, `gave way ${watch.gaveWay} times`);
  });

  it("should make a final read at once while an early read is planned and the rate limiter has no room", async function () {
    const watch = fastWatch(300);
    client.room = false;
    client.queued = 2;
    const w = recorder(newId(), { intervalMs: 5000 });
    const h = watch.add(w);
    await clock.tickAsync(100);
    h.finalRead();
    await clock.tickAsync(0);
    assert.deepEqual(client.reads, [100]);
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should learn the answer time from a FAULT as from a COMPLETE, and not from a START", async function () {
    const watch = fastWatch(undefined);
    const w = recorder(newId(), { intervalMs: 1000 });
    watch.add(w);
    client.marker("COMMAND_START", w.commandId, T0 + 100);
    client.marker("COMMAND_FAULT", w.commandId, T0 + 400);
    await clock.tickAsync(1000);
    assert.deepEqual(
      w.got.map(([name]) => name),
      ["COMMAND_START", "COMMAND_FAULT"],
    );
    assert.equal(watch.expectedAnswerMs, 400);
  });

  it("should make a final read asked for during a read right after it, though the rate limiter has no room", async function () {
    const watch = fastWatch(300);
    client.room = false;
    client.queued = 2;
    const w = recorder(newId(), { intervalMs: 5000 });
    const h = watch.add(w);
    await clock.tickAsync(100);
    client.hold = true;
    h.finalRead();
    await clock.tickAsync(50);
    h.finalRead();
    client.hold = false;
    client.release();
    await clock.tickAsync(0);
    assert.deepEqual(client.reads, [100, 150]);
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should plan a new wait's first read from its own command after the last wait ended with an early read planned", async function () {
    const watch = fastWatch(300);
    const h = watch.add(recorder(newId(), { intervalMs: 1000 }));
    await clock.tickAsync(340);
    assert.deepEqual(client.reads, [315]);
    h.stop();
    await clock.tickAsync(4660);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await clock.tickAsync(340);
    assert.deepEqual(client.reads, [315, 5315], "not at once for the plan of the wait that ended");
  });
});
