// nodes/lib/commands/inbox-watch.ts, when the interval's reads come: counted from the start of the
// read before, however long it took; a wait that starts between two reads waits for the next one,
// and one that starts long after the last read reads at once; a server's pause moves a read later
// and never sooner.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");
const { EdgeError } = lib("api/errors");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0xb00000 + ++serial).toString(16).padStart(24, "0")}`;

/** An empty inbox whose reads each take `delayMs`; failures are thrown by the next reads. */
function fakeClient(delayMs = 0) {
  const c = {
    /** Virtual ms since T0 of each request. */
    requests: [],
    failures: [],
    limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
    async listEvents() {
      c.requests.push(Date.now() - T0);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const f = c.failures.shift();
      if (f) throw f;
      return [];
    },
  };
  return c;
}

function recorder(over = {}) {
  return {
    commandId: newId(),
    since: Date.now(),
    intervalMs: 1000,
    onMarker() {},
    onError() {},
    onFinalRead() {},
    ...over,
  };
}

describe("unit: commands/inbox-watch, the interval's cadence", function () {
  let clock;
  const watches = [];
  const watchOf = (client) => {
    const w = new InboxWatch(client, { streamId: "in" }, () => {});
    watches.push(w);
    return w;
  };
  beforeEach(function () {
    clock = FakeTimers.install({
      now: T0,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
  });
  afterEach(function () {
    for (const w of watches.splice(0)) w.close();
    clock.uninstall();
  });

  it("should start each read an interval after the start of the one before, however long it took", async function () {
    const client = fakeClient(400);
    watchOf(client).add(recorder());
    await clock.tickAsync(2500);
    assert.deepEqual(client.requests, [0, 1000, 2000]);
  });

  it("should read for a wait that starts between two reads at the next one", async function () {
    const client = fakeClient();
    const watch = watchOf(client);
    watch.add(recorder());
    await clock.tickAsync(300);
    watch.add(recorder());
    await clock.tickAsync(699);
    assert.deepEqual(client.requests, [0], "not at once: the next read is due in 700 ms");
    await clock.tickAsync(1);
    assert.deepEqual(client.requests, [0, 1000]);
  });

  it("should read at once for a wait that starts more than an interval after the last read", async function () {
    const client = fakeClient();
    const watch = watchOf(client);
    const a = watch.add(recorder());
    await clock.tickAsync(100);
    a.stop();
    await clock.tickAsync(5000);
    watch.add(recorder());
    await clock.tickAsync(0);
    assert.deepEqual(client.requests, [0, 5100]);
  });

  it("should read no sooner than a pause shorter than the interval allows, and at the interval after it", async function () {
    const client = fakeClient();
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 1500 }));
    watchOf(client).add(recorder());
    await clock.tickAsync(3000);
    assert.deepEqual(client.requests, [0, 1500, 2500]);
  });

  it("should count a pause that comes at a later read from that read", async function () {
    const client = fakeClient();
    watchOf(client).add(recorder());
    await clock.tickAsync(0);
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 1500 }));
    await clock.tickAsync(4000);
    assert.deepEqual(client.requests, [0, 1000, 2500, 3500]);
  });
});
