// nodes/lib/commands/inbox-watch.ts: markers read before their wait, claimed as it starts (by an
// id of a length no wait had, by date, or left for another wait when the dates say nothing), a
// marker dated at its wait's own date, an infinite date, a close during a read and a final read
// asked twice.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");
const { inboxFakes } = require("../../support/inbox-fakes");

const { InboxWatch } = lib("commands/inbox-watch");

const T0 = 1_700_000_000_000;
const { newId, fakeClient, recorder } = inboxFakes({ idBase: 0x300000, countFinals: true });

describe("unit: commands/inbox-watch, claims", function () {
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

  it("should give a marker read before its wait to a wait whose id is of a length no wait had", async function () {
    // Its read goes back to 2 s before the start; the marker names an id of the service's shape,
    // so no date gives it to a wait.
    watch.add(recorder(newId(), { since: T0 + 3000 }));
    await clock.tickAsync(0);
    const m = client.marker("COMMAND_COMPLETE", "job 77 of e5f3c1a2b0000000000000abc");
    await clock.tickAsync(1000);
    const w = recorder("77", { since: T0 - 1000 });
    watch.add(w);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", m.id]]);
  });

  it("should leave a marker that only a date could give for the next wait whose dates say something", async function () {
    watch.add(recorder(newId(), { since: T0 + 3000 }));
    await clock.tickAsync(0);
    const start = client.marker("COMMAND_START", undefined, T0 + 10);
    const done = client.marker("COMMAND_COMPLETE", undefined, T0 + 20);
    await clock.tickAsync(1000);
    const apart = recorder(undefined, { since: T0, datesApart: true });
    watch.add(apart);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [done.id], "told of the result, not of the start");
    const next = recorder(undefined, { since: T0 });
    watch.add(next);
    assert.deepEqual(next.got, [
      ["COMMAND_START", start.id],
      ["COMMAND_COMPLETE", done.id],
    ]);
  });

  it("should give a wait a marker dated at its own date, and keep one a millisecond older", async function () {
    const w = recorder(undefined, { since: T0 + 500 });
    watch.add(w);
    await clock.tickAsync(0);
    const older = client.marker("COMMAND_START", undefined, T0 + 499);
    const same = client.marker("COMMAND_COMPLETE", undefined, T0 + 500);
    await clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", same.id]]);
    const earlier = recorder(undefined, { since: T0 + 499 });
    watch.add(earlier);
    assert.deepEqual(earlier.got, [["COMMAND_START", older.id]]);
  });

  it("should date a marker with an infinite creation date when it was read", async function () {
    const w = recorder(undefined, { since: T0 + 500 });
    watch.add(w);
    await clock.tickAsync(0);
    client.events.unshift({
      id: "inf",
      creationDate: Infinity,
      elems: { cmd: { status: "COMMAND_COMPLETE" } },
    });
    await clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", "inf"]]);
  });

  it("should read no more after a close that came during a read", async function () {
    watch.add(recorder(newId()));
    client.hold = true;
    await clock.tickAsync(0);
    assert.equal(client.requests, 1);
    watch.close();
    client.hold = false;
    for (const r of client.pending.splice(0)) r();
    await clock.tickAsync(10_000);
    assert.equal(client.requests, 1);
  });

  it("should make one final read for a final read asked twice", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    await clock.tickAsync(0);
    await clock.tickAsync(10);
    h.finalRead();
    h.finalRead();
    await clock.tickAsync(0);
    assert.equal(client.requests, 2);
    assert.equal(w.finals, 1);
  });

  it("should ask no final read for a wait that stopped", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    watch.add(recorder(newId()));
    await clock.tickAsync(0);
    h.stop();
    h.stop();
    h.finalRead();
    await clock.tickAsync(0);
    assert.equal(client.requests, 1, "no read at once");
    assert.equal(w.finals, 0);
    assert.equal(watch.waiting, 1);
  });
});
