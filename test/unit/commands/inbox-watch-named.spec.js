// nodes/lib/commands/inbox-watch.ts, which wait a marker that names an id of no pending wait goes
// to: only a wait without a command id takes it by date, live or read before the wait started;
// a wait with an id takes by date only markers that name no id at all; a wait whose dates say
// nothing passes such a marker on to the next wait without an id, and is told of results only.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0x900000 + ++serial).toString(16).padStart(24, "0")}`;

function fakeClient() {
  const c = {
    events: [],
    limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
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
      return c.events.slice(page.start, page.start + page.limit).map((e) => ({ ...e }));
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
    undated: [],
    onMarker: (event, name) => w.got.push([name, event.id]),
    onUndated: (event) => w.undated.push(event.id),
    onError() {},
    onFinalRead() {},
    ...over,
  };
  return w;
}

describe("unit: commands/inbox-watch, markers that name another command", function () {
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

  it("should give a live marker naming an id of no wait to the oldest wait without an id, and one naming none to the oldest wait", async function () {
    const withId = recorder(newId(), { since: T0 - 100 });
    const without = recorder(undefined, { since: T0 });
    watch.add(withId);
    watch.add(without);
    await clock.tickAsync(0);
    const other = client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    const plain = client.marker("COMMAND_START", undefined, T0 + 20);
    await clock.tickAsync(1000);
    assert.deepEqual(without.got, [["COMMAND_COMPLETE", other.id]]);
    assert.deepEqual(withId.got, [["COMMAND_START", plain.id]]);
  });

  it("should pass a marker naming an id of no wait past a wait whose dates say nothing to the next wait without an id", async function () {
    const apart = recorder(undefined, { since: T0 - 300, datesApart: true });
    const withId = recorder(newId(), { since: T0 - 200 });
    const next = recorder(undefined, { since: T0 - 100 });
    watch.add(apart);
    watch.add(withId);
    watch.add(next);
    await clock.tickAsync(0);
    const other = client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    await clock.tickAsync(1000);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [other.id]);
    assert.deepEqual(withId.got, [], "it names another command than this one");
    assert.deepEqual(next.got, [["COMMAND_COMPLETE", other.id]]);
  });

  it("should let a wait with an id claim by date only markers read before it that name no id", async function () {
    const first = recorder(newId(), { since: T0 + 1000 });
    watch.add(first);
    await clock.tickAsync(0);
    const other = client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    const plain = client.marker("COMMAND_START", undefined, T0 + 20);
    await clock.tickAsync(1000);
    assert.deepEqual(first.got, [], "dated before it, and neither names it");
    const withId = recorder(newId(), { since: T0 });
    watch.add(withId);
    assert.deepEqual(withId.got, [["COMMAND_START", plain.id]]);
    const without = recorder(undefined, { since: T0 });
    watch.add(without);
    assert.deepEqual(without.got, [["COMMAND_COMPLETE", other.id]]);
  });

  it("should tell a wait whose dates say nothing, as it starts, of the results read before it only, and leave them", async function () {
    watch.add(recorder(newId(), { since: T0 + 1000 }));
    await clock.tickAsync(0);
    const start = client.marker("COMMAND_START", undefined, T0 + 10);
    const fault = client.marker("COMMAND_FAULT", undefined, T0 + 20);
    await clock.tickAsync(1000);
    const apart = recorder(undefined, { since: T0, datesApart: true });
    watch.add(apart);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [fault.id]);
    const next = recorder(undefined, { since: T0 });
    watch.add(next);
    assert.deepEqual(next.got, [
      ["COMMAND_START", start.id],
      ["COMMAND_FAULT", fault.id],
    ]);
  });

  it("should tell a wait whose dates say nothing of a result dated at its command, not of one dated before it", async function () {
    const apart = recorder(undefined, { since: T0 + 100, datesApart: true });
    const later = recorder(undefined, { since: T0 + 200 });
    watch.add(apart);
    watch.add(later);
    await clock.tickAsync(0);
    client.marker("COMMAND_COMPLETE", undefined, T0 + 99);
    await clock.tickAsync(1000);
    const at = client.marker("COMMAND_COMPLETE", undefined, T0 + 100);
    await clock.tickAsync(1000);
    assert.deepEqual(apart.got, [], "taken by date by no wait whose dates say nothing");
    assert.deepEqual(apart.undated, [at.id]);
    assert.deepEqual(later.got, [], "both dated before the later wait");
  });

  it("should pass a result on past a wait whose dates say nothing that has no way to be told", async function () {
    const apart = recorder(undefined, { since: T0 - 100, datesApart: true });
    delete apart.onUndated;
    const next = recorder(undefined, { since: T0 });
    watch.add(apart);
    watch.add(next);
    await clock.tickAsync(0);
    const live = client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await clock.tickAsync(1000);
    assert.deepEqual(next.got, [["COMMAND_COMPLETE", live.id]]);
    // And as it starts, from the markers read before it.
    const read = client.marker("COMMAND_FAULT", undefined, T0 + 20);
    const h = watch.add(recorder(newId(), { since: T0 + 60_000 }));
    next.got.length = 0;
    await clock.tickAsync(1000);
    h.stop();
    const late = recorder(undefined, { since: T0 + 15, datesApart: true });
    delete late.onUndated;
    watch.add(late);
    assert.deepEqual(late.got, []);
    assert.deepEqual(next.got, [["COMMAND_FAULT", read.id]]);
  });

  it("should give a marker read before two waits to the first that claims it by date, not to both", async function () {
    watch.add(recorder(newId(), { since: T0 + 1000 }));
    await clock.tickAsync(0);
    const m = client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await clock.tickAsync(1000);
    const first = recorder(undefined, { since: T0 });
    const second = recorder(undefined, { since: T0 });
    watch.add(first);
    watch.add(second);
    assert.deepEqual(first.got, [["COMMAND_COMPLETE", m.id]]);
    assert.deepEqual(second.got, []);
  });
});
