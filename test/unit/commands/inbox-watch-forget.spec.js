// nodes/lib/commands/inbox-watch.ts, what a watch forgets: events read more than 10 minutes ago
// and older than every pending wait are never read again, so no marker goes to a second wait,
// and markers nobody claimed are dropped after 10 minutes.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");

const T0 = 1_700_000_000_000;
let serial = 0;
const newId = () => `e${(0xa00000 + ++serial).toString(16).padStart(24, "0")}`;

function fakeClient() {
  const c = {
    events: [],
    requests: [],
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
      c.requests.push([Date.now() - T0, page.start, page.limit]);
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
    onMarker: (event, name) => w.got.push([name, event.id]),
    onError() {},
    onFinalRead() {},
    ...over,
  };
  return w;
}

describe("unit: commands/inbox-watch, what a watch forgets", function () {
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

  it("should not read again events forgotten 10 minutes after they were read, for a wait dated before them", async function () {
    const a = recorder(undefined, { since: T0 });
    const ha = watch.add(a);
    const m = client.marker("COMMAND_COMPLETE", undefined, T0 + 5);
    // The newest event read then, not a marker.
    client.events.unshift({ id: newId(), creationDate: T0 + 10, elems: {} });
    await clock.tickAsync(0);
    assert.deepEqual(a.got, [["COMMAND_COMPLETE", m.id]]);
    ha.stop();
    // Another command keeps the inbox read, once a minute, past the 10 minutes.
    await clock.tickAsync(60_000);
    watch.add(recorder(newId()));
    await clock.tickAsync(10 * 60_000);
    // A wait dated before that marker (restored after a restart, say) starts.
    const c = recorder(undefined, { since: T0 });
    watch.add(c);
    await clock.tickAsync(60_000);
    assert.deepEqual(c.got, [], "handed once, to the first wait");
  });

  it("should keep a marker nobody claimed 10 minutes for a wait that starts later, then drop it", async function () {
    watch.add(recorder(newId()));
    const ids = [newId(), newId()];
    const kept = client.marker("COMMAND_COMPLETE", ids[0], T0 + 1);
    client.marker("COMMAND_COMPLETE", ids[1], T0 + 2);
    await clock.tickAsync(9 * 60_000);
    const first = recorder(ids[0], { since: T0 });
    watch.add(first);
    assert.deepEqual(first.got, [["COMMAND_COMPLETE", kept.id]], "kept 9 minutes");
    // The read at 10 minutes forgets the other.
    await clock.tickAsync(60_000);
    const second = recorder(ids[1], { since: T0 });
    watch.add(second);
    await clock.tickAsync(60_000);
    assert.deepEqual(second.got, []);
  });
});
