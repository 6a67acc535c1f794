// nodes/lib/commands/inbox-watch.ts, a server's pause and a wait's final read: the pause holds
// while any wait it was for is pending; a pause exactly as long as a wait's final tries is waited
// out; a pause that a failed final try cannot wait out ends the wait at once; a final read left
// pending by a failed read still ends at the next read after another wait stops; the last wait's
// stop cancels a read on the wire, and the next wait reads with a signal of its own.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const { EdgeError } = lib("api/errors");

const fakes = inboxFakes({
  idBase: 0x800000,
  codes: true,
  signals: true,
  /** Virtual ms since T0 of each request. */
  request: () => Date.now() - T0,
});
const { newId, recorder } = fakes;

const busy = (retryAfterMs) => new EdgeError("rate-limited", {}, { status: 429, retryAfterMs });

describe("unit: commands/inbox-watch, pauses and final reads", function () {
  const world = watchWorld(fakes);

  it("should keep a server's pause while one of the waits it was for is pending", async function () {
    const a = world.watch.add(recorder(newId()));
    world.watch.add(recorder(newId()));
    world.client.failures.push(busy(60_000));
    await world.clock.tickAsync(0);
    a.stop();
    await world.clock.tickAsync(59_999);
    assert.deepEqual(world.client.requests, [0], "paused for the wait left");
    await world.clock.tickAsync(1);
    assert.deepEqual(world.client.requests, [0, 60_000]);
  });

  it("should go back to the interval's cadence when the waits a pause was for end, with no read at the pause's end", async function () {
    const a = world.watch.add(recorder(newId()));
    world.client.failures.push(busy(2500));
    await world.clock.tickAsync(100);
    world.watch.add(recorder(newId()));
    await world.clock.tickAsync(100);
    a.stop();
    await world.clock.tickAsync(3200);
    assert.deepEqual(world.client.requests, [0, 1000, 2000, 3000]);
  });

  it("should wait out a pause exactly as long as the wait's three final tries", async function () {
    const w = recorder(newId());
    const h = world.watch.add(w);
    world.client.failures.push(busy(3000));
    await world.clock.tickAsync(0);
    h.finalRead();
    assert.deepEqual(w.finals, [], "not ended unread");
    await world.clock.tickAsync(3000);
    assert.deepEqual(world.client.requests, [0, 3000]);
    assert.deepEqual(w.finals, ["read"]);
  });

  it("should end a final read at once when a failed try leaves a pause longer than its tries left", async function () {
    const w = recorder(newId());
    const h = world.watch.add(w);
    await world.clock.tickAsync(0);
    // The final read's first try fails with a pause its three tries outlast not: 2.5 s of 3 s.
    world.client.failures.push(busy(2500), busy(2500));
    h.finalRead();
    await world.clock.tickAsync(0);
    assert.deepEqual(w.finals, []);
    await world.clock.tickAsync(2500);
    // The second try fails with 2.5 s more, past the two intervals left: ended, not waited out.
    assert.deepEqual(world.client.requests, [0, 0, 2500]);
    assert.deepEqual(w.finals, ["rate-limited"]);
  });

  it("should end a final read left by a failed read at the next read after another wait stops", async function () {
    const other = world.watch.add(recorder(newId()));
    const w = recorder(newId());
    const h = world.watch.add(w);
    await world.clock.tickAsync(0);
    world.client.failures.push(new EdgeError("reset", {}));
    h.finalRead();
    await world.clock.tickAsync(0);
    assert.deepEqual(w.finals, [], "one failed try of three");
    other.stop();
    await world.clock.tickAsync(1000);
    assert.deepEqual(world.client.requests, [0, 0, 1000]);
    assert.deepEqual(w.finals, ["read"]);
  });

  it("should cancel the read on the wire when the last wait stops, and read with a new signal for the next", async function () {
    const h = world.watch.add(recorder(newId()));
    world.client.hold = true;
    await world.clock.tickAsync(0);
    assert.equal(world.client.signals[0].aborted, false);
    h.stop();
    assert.equal(world.client.signals[0].aborted, true, "nobody waits for it");
    world.client.hold = false;
    world.client.release();
    await world.clock.tickAsync(0);
    const w = recorder(newId());
    world.watch.add(w);
    world.client.events.unshift({
      id: newId(),
      creationDate: Date.now(),
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: w.commandId } },
    });
    await world.clock.tickAsync(1000);
    assert.deepEqual(world.client.requests, [0, 1000], "an interval after the read cancelled");
    assert.equal(world.client.signals[1].aborted, false);
    assert.equal(w.got.length, 1);
  });
});
