// nodes/lib/events/stream-watcher.ts, what one read asks of the server: enough events for each
// watch's start and no more, and the creation dates it remembers. On virtual time, with the
// stand-in stream of stream-watcher.spec.js.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { StreamWatcher } = lib("events/stream-watcher");

function fakeClient() {
  const c = {
    origin: "http://edge.test",
    events: [],
    requests: [],
    push(...events) {
      c.events.unshift(...events.slice().reverse());
    },
    async listEvents(streamId, page) {
      c.requests.push([page.start, page.limit]);
      return c.events.slice(page.start, page.start + page.limit).map((e) => ({ ...e }));
    },
  };
  return c;
}

const ev = (id, creationDate) => ({ id, creationDate });

function recorder(intervalMs = 1000, nodeId) {
  const w = { intervalMs, nodeId, reads: [], onError() {} };
  w.onRead = (r) => w.reads.push(r);
  w.ids = () => w.reads.flatMap((r) => r.events.map((e) => e.id));
  return w;
}

describe("unit: events/stream-watcher, what a read asks", function () {
  let clock;
  let client;
  let watcher;
  beforeEach(function () {
    clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
    client = fakeClient();
    watcher = new StreamWatcher(client);
  });
  afterEach(function () {
    watcher.close();
    clock.uninstall();
  });

  it("should read on past a first page of one date to find the stream's head", async function () {
    for (let i = 0; i < 15; i++) client.push(ev(`same${i}`, 100));
    client.push(ev("new", 200));
    const w = recorder();
    watcher.watch({ streamId: "s" }, w, { kind: "new" });
    await clock.tickAsync(0);
    // The first page holds "new" (200) and nine at 100: older than the newest, enough.
    assert.deepEqual(client.requests, [[0, 10]]);
    assert.deepEqual(w.reads[0].position, { date: 200, ids: ["new"] });

    const c2 = fakeClient();
    const w2 = new StreamWatcher(c2);
    for (let i = 0; i < 15; i++) c2.push(ev(`same${i}`, 100));
    const r = recorder();
    w2.watch({ streamId: "s" }, r, { kind: "new" });
    await clock.tickAsync(0);
    // Every listed event at one date: the head is not known until a page shows an older one,
    // or the end. A later page starts at the last event of the one before, to join on to it.
    assert.deepEqual(c2.requests, [
      [0, 10],
      [9, 100],
    ]);
    assert.equal(r.reads[0].position.ids.length, 15);
    w2.close();
  });

  it("should ask a first page past the ids kept at a position's date", async function () {
    const ids = Array.from({ length: 20 }, (_, i) => `p${i}`);
    for (const id of ids) client.push(ev(id, 50));
    const w = recorder();
    watcher.watch({ streamId: "s" }, w, { kind: "position", position: { date: 50, ids } });
    await clock.tickAsync(0);
    assert.deepEqual(client.requests, [[0, 30]]);
    assert.deepEqual(w.reads[0].events, []);
    assert.equal(w.reads[0].moved, false);
  });

  it("should read to the stream's end for a watch whose position is an empty stream", async function () {
    for (let i = 1; i <= 12; i++) client.push(ev(`e${i}`, i));
    const w = recorder();
    watcher.watch({ streamId: "s" }, w, { kind: "position", position: { date: null, ids: [] } });
    await clock.tickAsync(0);
    assert.deepEqual(client.requests, [
      [0, 10],
      [9, 100],
    ]);
    assert.equal(w.reads[0].events.length, 12);
    assert.equal(w.reads[0].gap, false, "the end was reached");
  });

  it("should need one more than N events to hand on the last N, and the stream's end will do", async function () {
    for (let i = 1; i <= 3; i++) client.push(ev(`e${i}`, i));
    const w = recorder();
    watcher.watch({ streamId: "s" }, w, { kind: "last", count: 5 });
    await clock.tickAsync(0);
    assert.deepEqual(client.requests, [[0, 10]]);
    assert.deepEqual(w.ids(), ["e1", "e2", "e3"]);
  });

  it("should read as far as the watch that needs most, and no further", async function () {
    for (let i = 1; i <= 200; i++) client.push(ev(`e${i}`, i));
    watcher.watch({ streamId: "s" }, recorder(), { kind: "new" });
    watcher.watch({ streamId: "s" }, recorder(), {
      kind: "position",
      position: { date: 150, ids: ["e150"] },
    });
    await clock.tickAsync(0);
    assert.deepEqual(client.requests, [
      [0, 11],
      [10, 100],
    ]);
  });

  for (const [newer, again] of [
    [999, false],
    [1000, true],
  ]) {
    it(`should ${again ? "" : "not "}hand on again an event re-dated after ${newer} newer ones`, async function () {
      client.push(ev("old", 1));
      const w = recorder(1000);
      watcher.watch({ streamId: "s" }, w, { kind: "new" });
      await clock.tickAsync(0);
      // The stream drops "old" while `newer` events arrive, then lists it again with a new date.
      client.events = [];
      for (let i = 0; i < newer; i++) client.push(ev(`n${i}`, 10 + i));
      await clock.tickAsync(1000);
      assert.equal(w.ids().length, newer);
      client.push(ev("old", 5000));
      await clock.tickAsync(1000);
      const last = w.reads.at(-1);
      assert.deepEqual(
        last.events.map((e) => e.id),
        again ? ["old"] : [],
      );
      assert.equal(last.redated, !again);
    });
  }

  it("should show at most 50 of a stream's nodes in the sidebar", async function () {
    for (let i = 0; i < 55; i++)
      watcher.watch({ streamId: "s" }, recorder(1000, `n${i}`), { kind: "new" });
    watcher.watch({ streamId: "s" }, recorder(1000), { kind: "new" });
    const row = watcher.list().rows[0];
    assert.equal(row.nodes.length, 50);
    assert.equal(row.nodes[49], "n49");
  });
});
