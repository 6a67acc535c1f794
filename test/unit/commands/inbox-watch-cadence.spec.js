// nodes/lib/commands/inbox-watch.ts, when the interval's reads come: counted from the start of the
// read before, however long it took; a wait that starts between two reads waits for the next one,
// and one that starts long after the last read reads at once; a server's pause moves a read later
// and never sooner.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const { EdgeError } = lib("api/errors");

const fakes = inboxFakes({
  idBase: 0xb00000,
  /** Virtual ms since T0 of each request. */
  request: () => Date.now() - T0,
});
const { newId } = fakes;

/** An empty inbox whose reads each take `delayMs`; failures are thrown by the next reads. */
const fakeClient = (delayMs = 0) => fakes.fakeClient({ delayMs });

/** A wait on a new command that records nothing. */
const recorder = (over = {}) => fakes.recorder(newId(), over);

describe("unit: commands/inbox-watch, the interval's cadence", function () {
  const world = watchWorld(fakes, { client: false, watch: false });
  const { watchOf } = world;

  it("should start each read an interval after the start of the one before, however long it took", async function () {
    const client = fakeClient(400);
    watchOf(client).add(recorder());
    await world.clock.tickAsync(2500);
    assert.deepEqual(client.requests, [0, 1000, 2000]);
  });

  it("should read for a wait that starts between two reads at the next one", async function () {
    const client = fakeClient();
    const watch = watchOf(client);
    watch.add(recorder());
    await world.clock.tickAsync(300);
    watch.add(recorder());
    await world.clock.tickAsync(699);
    assert.deepEqual(client.requests, [0], "not at once: the next read is due in 700 ms");
    await world.clock.tickAsync(1);
    assert.deepEqual(client.requests, [0, 1000]);
  });

  it("should read at once for a wait that starts more than an interval after the last read", async function () {
    const client = fakeClient();
    const watch = watchOf(client);
    const a = watch.add(recorder());
    await world.clock.tickAsync(100);
    a.stop();
    await world.clock.tickAsync(5000);
    watch.add(recorder());
    await world.clock.tickAsync(0);
    assert.deepEqual(client.requests, [0, 5100]);
  });

  it("should read no sooner than a pause shorter than the interval allows, and at the interval after it", async function () {
    const client = fakeClient();
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 1500 }));
    watchOf(client).add(recorder());
    await world.clock.tickAsync(3000);
    assert.deepEqual(client.requests, [0, 1500, 2500]);
  });

  it("should count a pause that comes at a later read from that read", async function () {
    const client = fakeClient();
    watchOf(client).add(recorder());
    await world.clock.tickAsync(0);
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 1500 }));
    await world.clock.tickAsync(4000);
    assert.deepEqual(client.requests, [0, 1000, 2500, 3500]);
  });
});
