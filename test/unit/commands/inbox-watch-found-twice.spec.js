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
const { lib } = require("../../support/lib");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const { UnclaimedMarkers } = lib("commands/unclaimed-markers");
const { markerOf } = lib("commands/markers");

const fakes = inboxFakes({ idBase: 0xe00000, intervalMs: 60_000, got: (event) => event.id });
const { newId, recorder } = fakes;

describe("unit: commands/inbox-watch, a marker handed once", function () {
  const world = watchWorld(fakes);

  it("should not hand again a marker dated at the newest date a watch forgot", async function () {
    const a = recorder(undefined, { since: T0 });
    const ha = world.watch.add(a);
    const m = { id: newId(), creationDate: T0 + 10, elems: { s: "COMMAND_COMPLETE" } };
    world.client.events.unshift(m);
    await world.clock.tickAsync(0);
    assert.deepEqual(a.got, [m.id]);
    ha.stop();
    // Another command keeps the inbox read once a minute past the 10 minutes it remembers.
    await world.clock.tickAsync(60_000);
    world.watch.add(recorder(newId()));
    await world.clock.tickAsync(12 * 60_000);
    const c = recorder(undefined, { since: T0 });
    world.watch.add(c);
    await world.clock.tickAsync(60_000);
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
    world.watch.add(recorder(newId(), { intervalMs: 1000 }));
    const id = newId();
    const m = {
      id: newId(),
      creationDate: T0 + 10,
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: id, log: `${"x".repeat(600)} ${id}` } },
    };
    world.client.events.unshift(m);
    await world.clock.tickAsync(0);
    const w = recorder(id, { since: T0 });
    world.watch.add(w);
    assert.deepEqual(w.got, [m.id]);
  });
});
