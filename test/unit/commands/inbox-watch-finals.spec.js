// nodes/lib/commands/inbox-watch.ts: a final read asked for while a read is on the wire is made
// after it, a marker without a usable date is dated when it was read, a wait that starts on a
// server's pause reads after it, and failed final reads end each wait after its own tries.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");
const { inboxFakes } = require("../../support/inbox-fakes");

const { InboxWatch } = lib("commands/inbox-watch");
const { EdgeError } = lib("api/errors");

const T0 = 1_700_000_000_000;
const { newId, fakeClient, recorder } = inboxFakes({
  idBase: 0x200000,
  list: true,
  dated: true,
  codes: true,
});

describe("unit: commands/inbox-watch, final reads and dates", function () {
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

  it("should make a final read asked for during a read after it, and only then say it is done", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    client.hold = true;
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 1);
    h.finalRead();
    client.release();
    await clock.tickAsync(0);
    assert.deepEqual(w.finals, [], "the read in flight started before the request");
    assert.equal(client.requests.length, 2, "another read at once");
    client.release();
    await clock.tickAsync(0);
    assert.deepEqual(w.finals, ["read"]);
  });

  it("should date a marker without a usable creation date when it was read", async function () {
    const w = recorder(undefined, { since: T0 + 500 });
    watch.add(w);
    await clock.tickAsync(0);
    client.events.unshift({
      id: "m1",
      creationDate: "yesterday",
      elems: { cmd: { status: "COMMAND_COMPLETE" } },
    });
    await clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", "m1", "yesterday"]]);
  });

  it("should read for a wait that starts during a server's pause once the pause is over", async function () {
    const first = recorder(newId());
    watch.add(first);
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 3000 }));
    await clock.tickAsync(0);
    const second = recorder(newId());
    watch.add(second);
    await clock.tickAsync(2999);
    assert.equal(client.requests.length, 1, "the pause holds for the waits pending when it came");
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 2);
  });

  it("should end the final reads of every wait when the reads fail, each after its own tries", async function () {
    const a = recorder(newId());
    const b = recorder(newId());
    const ha = watch.add(a);
    const hb = watch.add(b);
    await clock.tickAsync(0);
    for (let i = 0; i < 5; i++) client.failures.push(new EdgeError("reset", {}));
    ha.finalRead();
    await clock.tickAsync(0);
    hb.finalRead();
    await clock.tickAsync(0);
    // Both final reads failed at once; a's had two tries, b's one.
    assert.deepEqual([a.finals, b.finals], [[], []]);
    await clock.tickAsync(1000);
    assert.deepEqual([a.finals, b.finals], [["reset"], []]);
    await clock.tickAsync(1000);
    assert.deepEqual(b.finals, ["reset"]);
  });
});
