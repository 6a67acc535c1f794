// Two ways a marker was handed a second time, found by the mutation-testing specs of issue 36;
// each spec failed on the code before its fix.
//  1. inbox-watch.ts, prune(): the horizon was the date of the newest event forgotten, and a read
//     skips only events dated before it (`d < need`), so an event dated exactly at the horizon,
//     no longer in `seen`, was read again as new and handed to a wait dated at or before it.
//  2. unclaimed-markers.ts, withId(): a marker that holds the id both in a string short enough to
//     index and in one too long to index (over 512 characters) was found by the index and by the
//     search, so it was listed twice, and claim() handed it to the wait twice.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");
const { UnclaimedMarkers } = lib("commands/unclaimed-markers");
const { markerOf } = lib("commands/markers");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0xe00000 + ++serial).toString(16).padStart(24, "0")}`;

function fakeClient() {
  const c = {
    events: [],
    limiter: { hasRoomForEarlyPoll: () => true, queuedIn: () => 0 },
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
    intervalMs: 60_000,
    got: [],
    onMarker: (event) => w.got.push(event.id),
    onError() {},
    onFinalRead() {},
    ...over,
  };
  return w;
}

describe("unit: commands/inbox-watch, a marker handed once", function () {
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

  it("should not hand again a marker dated at the newest date a watch forgot", async function () {
    const a = recorder(undefined, { since: T0 });
    const ha = watch.add(a);
    const m = { id: newId(), creationDate: T0 + 10, elems: { s: "COMMAND_COMPLETE" } };
    client.events.unshift(m);
    await clock.tickAsync(0);
    assert.deepEqual(a.got, [m.id]);
    ha.stop();
    // Another command keeps the inbox read once a minute past the 10 minutes it remembers.
    await clock.tickAsync(60_000);
    watch.add(recorder(newId()));
    await clock.tickAsync(12 * 60_000);
    const c = recorder(undefined, { since: T0 });
    watch.add(c);
    await clock.tickAsync(60_000);
    assert.deepEqual(c.got, [], "handed once already, to the first wait");
  });

  it("should list once a marker that holds an id in a short and in a long string", function () {
    const store = new UnclaimedMarkers();
    const event = {
      id: newId(),
      creationDate: 1,
      elems: { s: "COMMAND_COMPLETE", ref: "cmd-9", log: `${"x".repeat(600)} cmd-9` },
    };
    const one = {
      marker: markerOf(event),
      date: 1,
      readAt: 0,
      named: false,
      claimed: false,
      lengths: new Set(),
    };
    store.add(one, new Set([5]));
    assert.deepEqual(store.withId("cmd-9"), [one]);
  });

  it("should hand such a marker, read before its wait started, to the wait once", async function () {
    watch.add(recorder(newId(), { intervalMs: 1000 }));
    const id = newId();
    const m = {
      id: newId(),
      creationDate: T0 + 10,
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: id, log: `${"x".repeat(600)} ${id}` } },
    };
    client.events.unshift(m);
    await clock.tickAsync(0);
    const w = recorder(id, { since: T0 });
    watch.add(w);
    assert.deepEqual(w.got, [m.id]);
  });
});
