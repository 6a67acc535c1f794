// nodes/lib/commands/inbox-watch.ts, which wait a marker that names an id of no pending wait goes
// to: only a wait without a command id takes it by date, live or read before the wait started;
// a wait with an id takes by date only markers that name no id at all; a wait whose dates say
// nothing passes such a marker on to the next wait without an id, and is told of results only.
"use strict";
const assert = require("node:assert/strict");
const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const fakes = inboxFakes({ idBase: 0x900000 });
const { newId, recorder } = fakes;

describe("unit: commands/inbox-watch, markers that name another command", function () {
  const world = watchWorld(fakes);

  it("should give a live marker naming an id of no wait to the oldest wait without an id, and one naming none to the oldest wait", async function () {
    const withId = recorder(newId(), { since: T0 - 100 });
    const without = recorder(undefined, { since: T0 });
    world.watch.add(withId);
    world.watch.add(without);
    await world.clock.tickAsync(0);
    const other = world.client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    const plain = world.client.marker("COMMAND_START", undefined, T0 + 20);
    await world.clock.tickAsync(1000);
    assert.deepEqual(without.got, [["COMMAND_COMPLETE", other.id]]);
    assert.deepEqual(withId.got, [["COMMAND_START", plain.id]]);
  });

  it("should pass a marker naming an id of no wait past a wait whose dates say nothing to the next wait without an id", async function () {
    const apart = recorder(undefined, { since: T0 - 300, datesApart: true });
    const withId = recorder(newId(), { since: T0 - 200 });
    const next = recorder(undefined, { since: T0 - 100 });
    world.watch.add(apart);
    world.watch.add(withId);
    world.watch.add(next);
    await world.clock.tickAsync(0);
    const other = world.client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    await world.clock.tickAsync(1000);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [other.id]);
    assert.deepEqual(withId.got, [], "it names another command than this one");
    assert.deepEqual(next.got, [["COMMAND_COMPLETE", other.id]]);
  });

  it("should let a wait with an id claim by date only markers read before it that name no id", async function () {
    const first = recorder(newId(), { since: T0 + 1000 });
    world.watch.add(first);
    await world.clock.tickAsync(0);
    const other = world.client.marker("COMMAND_COMPLETE", newId(), T0 + 10);
    const plain = world.client.marker("COMMAND_START", undefined, T0 + 20);
    await world.clock.tickAsync(1000);
    assert.deepEqual(first.got, [], "dated before it, and neither names it");
    const withId = recorder(newId(), { since: T0 });
    world.watch.add(withId);
    assert.deepEqual(withId.got, [["COMMAND_START", plain.id]]);
    const without = recorder(undefined, { since: T0 });
    world.watch.add(without);
    assert.deepEqual(without.got, [["COMMAND_COMPLETE", other.id]]);
  });

  it("should tell a wait whose dates say nothing, as it starts, of the results read before it only, and leave them", async function () {
    world.watch.add(recorder(newId(), { since: T0 + 1000 }));
    await world.clock.tickAsync(0);
    const start = world.client.marker("COMMAND_START", undefined, T0 + 10);
    const fault = world.client.marker("COMMAND_FAULT", undefined, T0 + 20);
    await world.clock.tickAsync(1000);
    const apart = recorder(undefined, { since: T0, datesApart: true });
    world.watch.add(apart);
    assert.deepEqual(apart.got, []);
    assert.deepEqual(apart.undated, [fault.id]);
    const next = recorder(undefined, { since: T0 });
    world.watch.add(next);
    assert.deepEqual(next.got, [
      ["COMMAND_START", start.id],
      ["COMMAND_FAULT", fault.id],
    ]);
  });

  it("should tell a wait whose dates say nothing of a result dated at its command, not of one dated before it", async function () {
    const apart = recorder(undefined, { since: T0 + 100, datesApart: true });
    const later = recorder(undefined, { since: T0 + 200 });
    world.watch.add(apart);
    world.watch.add(later);
    await world.clock.tickAsync(0);
    world.client.marker("COMMAND_COMPLETE", undefined, T0 + 99);
    await world.clock.tickAsync(1000);
    const at = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 100);
    await world.clock.tickAsync(1000);
    assert.deepEqual(apart.got, [], "taken by date by no wait whose dates say nothing");
    assert.deepEqual(apart.undated, [at.id]);
    assert.deepEqual(later.got, [], "both dated before the later wait");
  });

  it("should pass a result on past a wait whose dates say nothing that has no way to be told", async function () {
    const apart = recorder(undefined, { since: T0 - 100, datesApart: true });
    delete apart.onUndated;
    const next = recorder(undefined, { since: T0 });
    world.watch.add(apart);
    world.watch.add(next);
    await world.clock.tickAsync(0);
    const live = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await world.clock.tickAsync(1000);
    assert.deepEqual(next.got, [["COMMAND_COMPLETE", live.id]]);
    // And as it starts, from the markers read before it.
    const read = world.client.marker("COMMAND_FAULT", undefined, T0 + 20);
    const h = world.watch.add(recorder(newId(), { since: T0 + 60_000 }));
    next.got.length = 0;
    await world.clock.tickAsync(1000);
    h.stop();
    const late = recorder(undefined, { since: T0 + 15, datesApart: true });
    delete late.onUndated;
    world.watch.add(late);
    assert.deepEqual(late.got, []);
    assert.deepEqual(next.got, [["COMMAND_FAULT", read.id]]);
  });

  it("should give a marker read before two waits to the first that claims it by date, not to both", async function () {
    world.watch.add(recorder(newId(), { since: T0 + 1000 }));
    await world.clock.tickAsync(0);
    const m = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await world.clock.tickAsync(1000);
    const first = recorder(undefined, { since: T0 });
    const second = recorder(undefined, { since: T0 });
    world.watch.add(first);
    world.watch.add(second);
    assert.deepEqual(first.got, [["COMMAND_COMPLETE", m.id]]);
    assert.deepEqual(second.got, []);
  });
});
