// nodes/lib/commands/inbox-watch.ts, what a watch forgets: events read more than 10 minutes ago
// and older than every pending wait are never read again, so no marker goes to a second wait,
// and markers nobody claimed are dropped after 10 minutes.
"use strict";
const assert = require("node:assert/strict");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const fakes = inboxFakes({
  idBase: 0xa00000,
  intervalMs: 60_000,
  request: (streamId, page) => [Date.now() - T0, page.start, page.limit],
});
const { newId, recorder } = fakes;

describe("unit: commands/inbox-watch, what a watch forgets", function () {
  const world = watchWorld(fakes);

  it("should not read again events forgotten 10 minutes after they were read, for a wait dated before them", async function () {
    const a = recorder(undefined, { since: T0 });
    const ha = world.watch.add(a);
    const m = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 5);
    // The newest event read then, not a marker.
    world.client.events.unshift({ id: newId(), creationDate: T0 + 10, elems: {} });
    await world.clock.tickAsync(0);
    assert.deepEqual(a.got, [["COMMAND_COMPLETE", m.id]]);
    ha.stop();
    // Another command keeps the inbox read, once a minute, past the 10 minutes.
    await world.clock.tickAsync(60_000);
    world.watch.add(recorder(newId()));
    await world.clock.tickAsync(10 * 60_000);
    // A wait dated before that marker (restored after a restart, say) starts.
    const c = recorder(undefined, { since: T0 });
    world.watch.add(c);
    await world.clock.tickAsync(60_000);
    assert.deepEqual(c.got, [], "handed once, to the first wait");
  });

  it("should keep a marker nobody claimed 10 minutes for a wait that starts later, then drop it", async function () {
    world.watch.add(recorder(newId()));
    const ids = [newId(), newId()];
    const kept = world.client.marker("COMMAND_COMPLETE", ids[0], T0 + 1);
    world.client.marker("COMMAND_COMPLETE", ids[1], T0 + 2);
    await world.clock.tickAsync(9 * 60_000);
    const first = recorder(ids[0], { since: T0 });
    world.watch.add(first);
    assert.deepEqual(first.got, [["COMMAND_COMPLETE", kept.id]], "kept 9 minutes");
    // The read at 10 minutes forgets the other.
    await world.clock.tickAsync(60_000);
    const second = recorder(ids[1], { since: T0 });
    world.watch.add(second);
    await world.clock.tickAsync(60_000);
    assert.deepEqual(second.got, []);
  });
});
