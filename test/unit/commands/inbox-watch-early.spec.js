// nodes/lib/commands/inbox-watch.ts on the fast pace, when each read of an inbox is made: just
// after the device's learned answer time, then after gaps that double up to the interval; after a
// result, the next pending command's answer time; a new command's answer time when it comes
// before the timer set; a new wait's first read made through a rate limiter with no room when
// nothing else is queued; a final read that never gives way; what a result teaches.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const { AnswerTimes } = lib("commands/answer-times");

const fakes = inboxFakes({
  idBase: 0x700000,
  request: (streamId, page) => (page.start === 0 ? Date.now() - T0 : undefined),
});
const { newId, recorder } = fakes;

/** A client whose `reads` are the virtual ms since T0 of each read: its first request, from the top. */
function fakeClient() {
  const c = fakes.fakeClient();
  c.reads = c.requests;
  return c;
}

describe("unit: commands/inbox-watch, early reads on the fast pace", function () {
  const world = watchWorld({ fakeClient }, { watch: false });
  /** A watch on the fast pace whose device is known to answer in `answerMs`. */
  const fastWatch = (answerMs) => {
    const answers = new AnswerTimes();
    if (answerMs !== undefined) answers.learn("id:in", answerMs);
    return world.watchOf(world.client, { pace: "fast", answers });
  };

  it("should read 15 ms after the learned answer time, then after gaps that double, then at the interval", async function () {
    const watch = fastWatch(300);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await world.clock.tickAsync(4000);
    // Gaps of 50, 100, 200, 400 and 800 ms; 1,600 is past the interval, whose reads take over.
    assert.deepEqual(world.client.reads, [315, 365, 465, 665, 1065, 1865, 2865, 3865]);
  });

  it("should plan the next read for the next pending command's answer after a result", async function () {
    const watch = fastWatch(300);
    const a = recorder(newId(), { intervalMs: 5000 });
    const b = recorder(newId(), { intervalMs: 5000 });
    watch.add(a);
    watch.add(b);
    // The device runs them one after another: a's result at 300 ms, b's due 300 ms after it.
    world.client.marker("COMMAND_COMPLETE", a.commandId, T0 + 300);
    await world.clock.tickAsync(650);
    assert.deepEqual(
      world.client.reads,
      [315, 615],
      "not 50 ms after the read that found a's result",
    );
    assert.equal(a.got.length, 1);
    assert.equal(watch.expectedAnswerMs, 300);
  });

  it("should read for a new command at its answer time when that comes before the timer set", async function () {
    const watch = fastWatch(300);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await world.clock.tickAsync(3000);
    assert.deepEqual(world.client.reads, [315, 365, 465, 665, 1065, 1865, 2865]);
    world.client.reads.length = 0;
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await world.clock.tickAsync(340);
    assert.deepEqual(world.client.reads, [3315], "not at the interval's 3865");
  });

  it("should make a new wait's first read when the rate limiter has no room but nothing is queued, then give way to the interval", async function () {
    const watch = fastWatch(300);
    world.client.room = false;
    watch.add(recorder(newId(), { intervalMs: 2000 }));
    await world.clock.tickAsync(315);
    assert.deepEqual(world.client.reads, [], "the planned early read gave way");
    // Due now, through the lane, as the fixed pace reads a new wait's inbox at once (a timer of
    // 0 ms set while the fake clock ticks fires 1 ms later).
    await world.clock.tickAsync(1);
    assert.deepEqual(world.client.reads, [316]);
    await world.clock.tickAsync(2000);
    assert.deepEqual(world.client.reads, [316, 2316], "the early reads after it gave way");
    assert.ok(watch.gaveWay >= 10, `gave way ${watch.gaveWay} times`);
  });

  it("should make a final read at once while an early read is planned and the rate limiter has no room", async function () {
    const watch = fastWatch(300);
    world.client.room = false;
    world.client.queued = 2;
    const w = recorder(newId(), { intervalMs: 5000 });
    const h = watch.add(w);
    await world.clock.tickAsync(100);
    h.finalRead();
    await world.clock.tickAsync(0);
    assert.deepEqual(world.client.reads, [100]);
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should learn the answer time from a FAULT as from a COMPLETE, and not from a START", async function () {
    const watch = fastWatch(undefined);
    const w = recorder(newId(), { intervalMs: 1000 });
    watch.add(w);
    world.client.marker("COMMAND_START", w.commandId, T0 + 100);
    world.client.marker("COMMAND_FAULT", w.commandId, T0 + 400);
    await world.clock.tickAsync(1000);
    assert.deepEqual(
      w.got.map(([name]) => name),
      ["COMMAND_START", "COMMAND_FAULT"],
    );
    assert.equal(watch.expectedAnswerMs, 400);
  });

  it("should make a final read asked for during a read right after it, though the rate limiter has no room", async function () {
    const watch = fastWatch(300);
    world.client.room = false;
    world.client.queued = 2;
    const w = recorder(newId(), { intervalMs: 5000 });
    const h = watch.add(w);
    await world.clock.tickAsync(100);
    world.client.hold = true;
    h.finalRead();
    await world.clock.tickAsync(50);
    h.finalRead();
    world.client.hold = false;
    world.client.release();
    await world.clock.tickAsync(0);
    assert.deepEqual(world.client.reads, [100, 150]);
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should plan a new wait's first read from its own command after the last wait ended with an early read planned", async function () {
    const watch = fastWatch(300);
    const h = watch.add(recorder(newId(), { intervalMs: 1000 }));
    await world.clock.tickAsync(340);
    assert.deepEqual(world.client.reads, [315]);
    h.stop();
    await world.clock.tickAsync(4660);
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    await world.clock.tickAsync(340);
    assert.deepEqual(
      world.client.reads,
      [315, 5315],
      "not at once for the plan of the wait that ended",
    );
  });
});
