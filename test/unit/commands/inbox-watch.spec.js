// nodes/lib/commands/inbox-watch.ts on virtual time, against a stand-in inbox served newest first:
// markers go to the wait they name, or by date to the oldest wait without an id; a marker read
// before its wait started is claimed when it starts; final reads, failed reads, a server's pause,
// lasting refusals, overruns and paging, as a wait sees them.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");
const { inboxFakes } = require("../../support/inbox-fakes");

const { InboxWatch, inboxKey } = lib("commands/inbox-watch");
const { InboxPoller } = lib("commands/inbox-poller");
const { AnswerTimes } = lib("commands/answer-times");
const { EdgeError } = lib("api/errors");

const T0 = 1_700_000_000_000;
const { newId, fakeClient, recorder } = inboxFakes({ list: true });

function observer() {
  const o = { states: [], overruns: 0 };
  o.onReadState = (err) => o.states.push(err?.code);
  o.onOverrun = () => o.overruns++;
  return o;
}

describe("unit: commands/inbox-watch", function () {
  let clock;
  let client;
  let watch;
  let idle;

  beforeEach(function () {
    clock = FakeTimers.install({
      now: T0,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
    client = fakeClient();
    idle = 0;
    watch = new InboxWatch(client, { streamId: "inbox1" }, () => idle++);
  });

  afterEach(function () {
    watch.close();
    clock.uninstall();
  });

  it("should read the inbox at once and every interval after, through the poll lane, untried", async function () {
    watch.add(recorder(newId()));
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 1);
    assert.deepEqual(client.requests[0], {
      streamId: "inbox1",
      start: 0,
      limit: 100,
      lane: "poll",
      retries: 0,
    });
    await clock.tickAsync(999);
    assert.equal(client.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 2);
    assert.equal(client.requests[1].limit, 10, "a read after a quiet one starts small");
  });

  it("should hand a marker to the wait whose command id it names, whatever the order", async function () {
    const a = recorder(newId());
    const b = recorder(newId());
    watch.add(a);
    watch.add(b);
    await clock.tickAsync(0);
    const mb = client.marker("COMMAND_COMPLETE", b.commandId);
    const ma = client.marker("COMMAND_START", a.commandId);
    await clock.tickAsync(1000);
    assert.deepEqual(a.got, [["COMMAND_START", ma.id]]);
    assert.deepEqual(b.got, [["COMMAND_COMPLETE", mb.id]]);
    await clock.tickAsync(1000);
    assert.equal(a.got.length + b.got.length, 2, "each marker once");
  });

  it("should hand a marker that names no command to the oldest wait created at or before it", async function () {
    const old = recorder(undefined, { since: T0 - 500 });
    const young = recorder(undefined, { since: T0 });
    watch.add(young);
    watch.add(old);
    await clock.tickAsync(0);
    const m = client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await clock.tickAsync(1000);
    assert.deepEqual(old.got, [["COMMAND_COMPLETE", m.id]]);
    assert.deepEqual(young.got, []);
  });

  it("should keep a marker dated before every wait for a wait that starts at or before it", async function () {
    const w = recorder(undefined, { since: T0 + 5000 });
    watch.add(w);
    await clock.tickAsync(0);
    const m = client.marker("COMMAND_COMPLETE", undefined, T0 + 100);
    await clock.tickAsync(1000);
    assert.deepEqual(w.got, []);
    const earlier = recorder(undefined, { since: T0 + 50 });
    watch.add(earlier);
    assert.deepEqual(earlier.got, [["COMMAND_COMPLETE", m.id]], "claimed as it starts");
  });

  it("should give a marker read before its wait started to that wait as it starts", async function () {
    const other = recorder(newId());
    watch.add(other);
    await clock.tickAsync(0);
    const id = newId();
    const m = client.marker("COMMAND_COMPLETE", id);
    await clock.tickAsync(1000);
    assert.deepEqual(other.got, []);
    const w = recorder(id, { since: T0 });
    watch.add(w);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", m.id]]);
  });

  it("should keep the late marker of an ended wait for that wait resumed, not another", async function () {
    const id = newId();
    const first = recorder(id);
    const other = recorder(undefined, { since: T0 - 1000 });
    const h = watch.add(first);
    watch.add(other);
    await clock.tickAsync(0);
    h.stop();
    const m = client.marker("COMMAND_COMPLETE", id);
    await clock.tickAsync(1000);
    assert.deepEqual(other.got, [], "a marker naming an ended wait is not taken by date");
    const resumed = recorder(id, { since: T0 - 1000 });
    watch.add(resumed);
    assert.deepEqual(resumed.got, [["COMMAND_COMPLETE", m.id]]);
  });

  it("should tell a wait whose dates say nothing of a result it cannot claim, and give it on", async function () {
    const apart = recorder(undefined, { since: T0 - 100, datesApart: true });
    const next = recorder(undefined, { since: T0 });
    watch.add(apart);
    watch.add(next);
    await clock.tickAsync(0);
    const start = client.marker("COMMAND_START", undefined, T0 + 10);
    const m = client.marker("COMMAND_COMPLETE", undefined, T0 + 20);
    await clock.tickAsync(1000);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [m.id], "told of the result only");
    assert.deepEqual(next.got, [
      ["COMMAND_START", start.id],
      ["COMMAND_COMPLETE", m.id],
    ]);
  });

  it("should take event ids sent as numbers, and skip events without one", async function () {
    const w = recorder(undefined, { since: T0 });
    watch.add(w);
    await clock.tickAsync(0);
    client.events.unshift(
      { id: 42, creationDate: T0 + 5, elems: { cmd: { status: "COMMAND_COMPLETE" } } },
      { creationDate: T0 + 4, elems: { cmd: { status: "COMMAND_START" } } },
    );
    await clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", "42"]]);
  });

  it("should make a final read at once and say so after a read that started after it", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    await clock.tickAsync(0);
    await clock.tickAsync(300);
    h.finalRead();
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 2, "not at the interval");
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should try a final read that fails three times, then end it with the error", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    await clock.tickAsync(0);
    for (let i = 0; i < 3; i++) client.failures.push(new EdgeError("reset", {}));
    h.finalRead();
    await clock.tickAsync(0);
    assert.deepEqual(w.finals, []);
    await clock.tickAsync(1000);
    assert.deepEqual(w.finals, []);
    await clock.tickAsync(1000);
    assert.deepEqual(
      w.finals.map((e) => e.code),
      ["reset"],
    );
    assert.equal(client.requests.length, 4);
  });

  it("should end every wait with a refusal for good, and read no more", async function () {
    const a = recorder(newId());
    const b = recorder(undefined);
    watch.add(a);
    watch.add(b);
    client.failures.push(new EdgeError("api", {}, { status: 403 }));
    await clock.tickAsync(0);
    assert.equal(a.errors[0].status, 403);
    assert.equal(b.errors[0].status, 403);
    for (const lasting of [
      new EdgeError("auth", {}),
      new EdgeError("not-found", {}),
      new EdgeError("bad-config", {}),
      new EdgeError("api", {}, { status: 401 }),
      new EdgeError("api", {}, { status: 404 }),
      new EdgeError("api", {}, { status: 410 }),
    ]) {
      const c = fakeClient();
      const iw = new InboxWatch(c, { path: "/co/devices/x/:inbox" }, () => {});
      const w = recorder(newId());
      iw.add(w);
      c.failures.push(lasting);
      await clock.tickAsync(0);
      assert.equal(w.errors.length, 1, lasting.code);
      assert.equal(c.requests[0].streamId, "path:/co/devices/x/:inbox");
      iw.close();
    }
  });

  it("should tell each node once that reads fail, then that they work again, and keep the waits", async function () {
    const o = observer();
    const a = recorder(newId(), { observer: o });
    const b = recorder(newId(), { observer: o });
    watch.add(a);
    watch.add(b);
    client.failures.push(new EdgeError("api", {}, { status: 500 }), new EdgeError("timeout", {}));
    await clock.tickAsync(0);
    await clock.tickAsync(1000);
    assert.deepEqual(o.states, ["api", "timeout"]);
    await clock.tickAsync(1000);
    assert.deepEqual(o.states, ["api", "timeout", undefined]);
    await clock.tickAsync(1000);
    assert.equal(o.states.length, 3, "a working read after a working read says nothing");
    assert.deepEqual([a.errors, b.errors], [[], []]);
  });

  it("should read no sooner than a server's Retry-After, and end a final read it would outlast", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 10_000 }));
    await clock.tickAsync(0);
    h.finalRead();
    assert.equal(w.finals.length, 1, "a pause past three intervals ends the final read unread");
    assert.equal(w.finals[0].retryAfterMs, 10_000);
    await clock.tickAsync(9_999);
    assert.equal(client.requests.length, 1, "paused");
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 2);
  });

  it("should wait out a short pause before a final read", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 2_000 }));
    await clock.tickAsync(0);
    h.finalRead();
    assert.deepEqual(w.finals, []);
    await clock.tickAsync(1_999);
    assert.equal(client.requests.length, 1);
    await clock.tickAsync(1);
    assert.equal(client.requests.length, 2);
    assert.deepEqual(w.finals, [undefined]);
  });

  it("should end a server's pause with the waits it was for: a later wait reads", async function () {
    const w = recorder(newId());
    const h = watch.add(w);
    const other = recorder(newId(), { since: T0 });
    client.failures.push(new EdgeError("rate-limited", {}, { status: 429, retryAfterMs: 600_000 }));
    await clock.tickAsync(0);
    watch.add(other);
    h.stop();
    await clock.tickAsync(1000);
    assert.equal(client.requests.length, 2, "the pause ended with the wait it was for");
  });

  it("should page on from what it read and stop at events it read before", async function () {
    const w = recorder(undefined, { since: T0 - 60_000 });
    watch.add(w);
    for (let i = 0; i < 150; i++) client.marker("COMMAND_START", "x", T0 - 1000 + i);
    await clock.tickAsync(0);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [
        [0, 100],
        [100, 500],
        [150, 500],
      ],
      "an inbox read deep to its end: only an empty page ends it",
    );
    assert.equal(w.got.length, 150);
    for (let i = 0; i < 3; i++) client.marker("COMMAND_START", "y", T0 + i);
    client.requests.length = 0;
    await clock.tickAsync(1000);
    assert.deepEqual(
      client.requests.map((r) => [r.start, r.limit]),
      [[0, 100]],
      "stops at events read before",
    );
    assert.equal(w.got.length, 153);
  });

  it("should report an overrun when a read cannot reach what it read before", async function () {
    const o = observer();
    const w = recorder(undefined, { since: T0 - 60_000, observer: o });
    watch.add(w);
    client.marker("COMMAND_START", "x", T0 - 1000);
    await clock.tickAsync(0);
    assert.equal(o.overruns, 0);
    // The server dropped what was read before, and more than a read takes arrived.
    client.events = [];
    for (let i = 0; i < 5; i++) client.marker("COMMAND_START", "y", T0 + i);
    await clock.tickAsync(1000);
    assert.equal(o.overruns, 1);
  });

  it("should stop reading when its last wait ends, and let go of the inbox 10 minutes later", async function () {
    const a = watch.add(recorder(newId()));
    await clock.tickAsync(0);
    a.stop();
    assert.equal(watch.waiting, 0);
    await clock.tickAsync(5 * 60_000);
    assert.equal(client.requests.length, 1);
    assert.equal(idle, 0);
    const b = watch.add(recorder(newId()));
    await clock.tickAsync(0);
    b.stop();
    await clock.tickAsync(10 * 60_000 - 1);
    assert.equal(idle, 0, "the linger starts again at the last wait's end");
    await clock.tickAsync(1);
    assert.equal(idle, 1);
  });

  it("should read at the shortest interval a pending wait asked for", async function () {
    watch.add(recorder(newId(), { intervalMs: 5000 }));
    const fast = watch.add(recorder(newId(), { intervalMs: 200 }));
    await clock.tickAsync(0);
    await clock.tickAsync(1000);
    assert.equal(client.requests.length, 6);
    fast.stop();
    client.requests.length = 0;
    await clock.tickAsync(4000);
    assert.ok(client.requests.length <= 1, `reads: ${client.requests.length}`);
  });

  it("should read nothing after close", async function () {
    watch.add(recorder(newId()));
    await clock.tickAsync(0);
    watch.close();
    await clock.tickAsync(5000);
    assert.equal(client.requests.length, 1);
  });

  it("should key an inbox by its id, else by its path", function () {
    assert.equal(inboxKey({ streamId: "s", path: "/p" }), "id:s");
    assert.equal(inboxKey({ path: "/p" }), "path:/p");
    assert.equal(inboxKey({}), "path:");
  });
});

describe("unit: commands/inbox-poller", function () {
  let clock;
  beforeEach(function () {
    clock = FakeTimers.install({
      now: T0,
      toFake: ["setTimeout", "clearTimeout", "Date", "performance"],
    });
  });
  afterEach(function () {
    clock.uninstall();
  });

  it("should read one inbox once for all its waits, and count only inboxes with a pending wait", async function () {
    const client = fakeClient();
    const poller = new InboxPoller(client);
    poller.pace = "fixed";
    assert.equal(poller.pace, "fixed");
    const a = poller.watch({ streamId: "i1" }, recorder(newId()));
    poller.watch({ streamId: "i1" }, recorder(newId()));
    const c = poller.watch({ streamId: "i2" }, recorder(newId()));
    assert.equal(poller.size, 2);
    await clock.tickAsync(0);
    assert.deepEqual(client.requests.map((r) => r.streamId).sort(), ["i1", "i2"]);
    c.stop();
    assert.equal(poller.size, 1);
    a.stop();
    assert.equal(poller.size, 1);
    assert.equal(poller.gaveWay, 0);
    poller.close();
  });

  it("should share the account's answer times and start on the fast pace", function () {
    const answers = AnswerTimes.withAccount(250);
    const poller = new InboxPoller(fakeClient(), answers);
    assert.equal(poller.answers, answers);
    assert.equal(poller.pace, "fast");
    assert.equal(new InboxPoller(fakeClient()).answers.account, undefined);
  });

  it("should forget an inbox 10 minutes after its last wait, and read it anew after", async function () {
    const client = fakeClient();
    const poller = new InboxPoller(client);
    poller.pace = "fixed";
    const h = poller.watch({ path: "/p" }, recorder(newId()));
    await clock.tickAsync(0);
    h.stop();
    await clock.tickAsync(10 * 60_000);
    poller.watch({ path: "/p" }, recorder(newId()));
    assert.equal(poller.size, 1);
    await clock.tickAsync(0);
    assert.equal(client.requests.length, 2);
    poller.close();
  });
});
