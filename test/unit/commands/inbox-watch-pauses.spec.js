// nodes/lib/commands/inbox-watch.ts, a server's pause and a wait's final read: the pause holds
// while any wait it was for is pending; a pause exactly as long as a wait's final tries is waited
// out; a pause that a failed final try cannot wait out ends the wait at once; a final read left
// pending by a failed read still ends at the next read after another wait stops; the last wait's
// stop cancels a read on the wire, and the next wait reads with a signal of its own.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");
const { EdgeError } = lib("api/errors");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0x800000 + ++serial).toString(16).padStart(24, "0")}`;

function fakeClient() {
  const c = {
    events: [],
    /** Virtual ms since T0 of each request. */
    requests: [],
    signals: [],
    failures: [],
    /** When set, each read waits for release() before it answers. */
    hold: false,
    pending: [],
    limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
    async listEvents(streamId, page, call) {
      c.requests.push(Date.now() - T0);
      c.signals.push(call.signal);
      if (c.hold) await new Promise((r) => c.pending.push(r));
      const f = c.failures.shift();
      if (f) throw f;
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
    onFinalRead: (err) => w.finals.push(err?.code ?? "read"),
    ...over,
  };
  return w;
}

const busy = (retryAfterMs) => new EdgeError("rate-limited", {}, { status: 429, retryAfterMs });

describe("unit: commands/inbox-watch, pauses and final reads", function () {
  let clock;
  let client;
  let watch;
  beforeEach(function () {
    clock = FakeTimers.install({
      now: T0,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
    client = fakeClient();
    watch = new InboxWatch(client, { streamId: "in" }, () => {});
  });
  afterEach(function () {
    watch.close();
    clock.uninstall();
  });

  it("should keep a server's pause while one of the waits it was for is pending", async function () {
    const a = watch.add(recorder(newId()));
    watch.add(recorder(newId()));
    client.failures.push(busy(60_000));
    await clock.tickAsync(0);
    a.stop();
    await clock.tickAsync(59_999);
    assert.deepEqual(client.requests, [0], "paused for the wait left");
    await clock.tickAsync(1);
    assert.deepEqual(client.requests, [0, 60_000]);
  });

  it("should go back to the interval's cadence when the waits a pause was for end, with no read at the pause's end", async function () {
    const a = watch.add(recorder(newId()));
    client.failures.push(busy(2500));
    await clock.tickAsync(100);
    watch.add(recorder(newId()));
    await clock.tickAsync(100);
    a.stop();
    await clock.tickAsync(3200);
    assert.deepEqual(client.requests, [0, 1000, 2000, 3000]);
  });

  it("should wait out a pause exactly as long as the wait's three final tries", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    client.failures.push(busy(3000));
    await clock.tickAsync(0);
    h.finalRead();
    assert.deepEqual(w.finals, [], "not ended unread");
    await clock.tickAsync(3000);
    assert.deepEqual(client.requests, [0, 3000]);
    assert.deepEqual(w.finals, ["read"]);
  });

  it("should end a final read at once when a failed try leaves a pause longer than its tries left", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    await clock.tickAsync(0);
    // The final read's first try fails with a pause its three tries outlast not: 2.5 s of 3 s.
    client.failures.push(busy(2500), busy(2500));
    h.finalRead();
    await clock.tickAsync(0);
    assert.deepEqual(w.finals, []);
    await clock.tickAsync(2500);
    // The second try fails with 2.5 s more, past the two intervals left: ended, not waited out.
    assert.deepEqual(client.requests, [0, 0, 2500]);
    assert.deepEqual(w.finals, ["rate-limited"]);
  });

  it("should end a final read left by a failed read at the next read after another wait stops", async function () {
    const other = watch.add(recorder(newId()));
    const w = recorder(newId());
    const h = watch.add(w);
    await clock.tickAsync(0);
    client.failures.push(new EdgeError("reset", {}));
    h.finalRead();
    await clock.tickAsync(0);
    assert.deepEqual(w.finals, [], "one failed try of three");
    other.stop();
    await clock.tickAsync(1000);
    assert.deepEqual(client.requests, [0, 0, 1000]);
    assert.deepEqual(w.finals, ["read"]);
  });

  it("should cancel the read on the wire when the last wait stops, and read with a new signal for the next", async function () {
    const h = watch.add(recorder(newId()));
    client.hold = true;
    await clock.tickAsync(0);
    assert.equal(client.signals[0].aborted, false);
    h.stop();
    assert.equal(client.signals[0].aborted, true, "nobody waits for it");
    client.hold = false;
    client.release();
    await clock.tickAsync(0);
    const w = recorder(newId());
    watch.add(w);
    client.events.unshift({
      id: newId(),
      creationDate: Date.now(),
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: w.commandId } },
    });
    await clock.tickAsync(1000);
    assert.deepEqual(client.requests, [0, 1000], "an interval after the read cancelled");
    assert.equal(client.signals[1].aborted, false);
    assert.equal(w.got.length, 1);
  });
});
