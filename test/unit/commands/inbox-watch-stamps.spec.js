// nodes/lib/commands/inbox-watch.ts and clock-steps.ts: markers that name no command, on a server
// whose dates cannot be trusted to run forward. A marker read before a command's request left is
// never that command's, whatever its date; a command dated before one made earlier (the server's
// clock stepped back) takes nothing by date, and is told of each result that could be its own
// (issue 35, the stamps property).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { InboxWatch } = lib("commands/inbox-watch");
const { ClockSteps } = lib("commands/clock-steps");

const { T0, inboxFakes, watchWorld } = require("../../support/inbox-fakes");

const fakes = inboxFakes({ idBase: 0x500000 });
const { newId, fakeClient } = fakes;
/** A wait on a command with an id its markers do not name; `undated` gets [id, step] pairs. */
function recorder(over = {}) {
  const w = fakes.recorder(newId(), over);
  w.onUndated = over.onUndated ?? ((event, stepMs) => w.undated.push([event.id, stepMs]));
  return w;
}

describe("unit: commands/inbox-watch, markers that name no command on a server whose clock steps", function () {
  const world = watchWorld(fakes);

  it("should not give a wait a result read before its command was sent, however it is dated", async function () {
    // The first command's answer, dated 1 ms before it: no date gives it to its own wait.
    const first = recorder({ since: T0 + 5000, sentAt: T0 });
    world.watch.add(first);
    const early = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 4999);
    await world.clock.tickAsync(1000);
    assert.deepEqual(first.got, []);
    // A later command, dated before that answer: by date alone the answer would be its own.
    const later = recorder({ since: T0 + 2000, sentAt: Date.now() });
    world.watch.add(later);
    await world.clock.tickAsync(0);
    assert.deepEqual(later.got, [], "read before the later command was sent");
    const own = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 2100);
    await world.clock.tickAsync(1000);
    assert.deepEqual(later.got, [["COMMAND_COMPLETE", own.id]]);
    assert.notEqual(own.id, early.id);
  });

  it("should give a wait without a known send time a result by date, as before", async function () {
    world.watch.add(recorder({ since: T0 + 5000, sentAt: T0 }));
    const early = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 4999);
    await world.clock.tickAsync(1000);
    const later = recorder({ since: T0 + 2000 });
    world.watch.add(later);
    assert.deepEqual(later.got, [["COMMAND_COMPLETE", early.id]]);
  });

  it("should let a live result go past a wait sent after it was read, to the next wait by date", async function () {
    const a = recorder({ since: T0 + 100, sentAt: T0 });
    world.watch.add(a);
    await world.clock.tickAsync(0);
    // A second wait whose command left 1 s later, dated (by the server's clock) at T0 + 50.
    world.clock.setSystemTime(T0 + 1000);
    const result = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 150);
    await world.clock.tickAsync(1000);
    assert.deepEqual(a.got, [["COMMAND_COMPLETE", result.id]]);
  });

  it("should take nothing by date for a command dated before one made before it left, and tell it of each result", async function () {
    const earlier = recorder({ since: T0 + 3000, sentAt: T0, madeBy: T0 + 10, dated: true });
    world.watch.add(earlier);
    await world.clock.tickAsync(0);
    // The server's clock steps back 3 s: a command sent at T0 + 50 is dated T0 + 50.
    const later = recorder({ since: T0 + 50, sentAt: T0 + 50, madeBy: T0 + 60, dated: true });
    world.watch.add(later);
    const old = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 2990);
    await world.clock.tickAsync(1000);
    assert.deepEqual(later.got, [], "the earlier command's answer by date: not taken");
    assert.deepEqual(later.undated, [[old.id, 2950]]);
    // The earlier wait's own dates are the server's before the step: it may take what is after.
    const own = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 3010);
    await world.clock.tickAsync(1000);
    assert.deepEqual(earlier.got, [["COMMAND_COMPLETE", own.id]]);
  });

  it("should take markers that name its id after a step, as always", async function () {
    world.watch.add(recorder({ since: T0 + 3000, sentAt: T0, madeBy: T0 + 10, dated: true }));
    const later = recorder({ since: T0 + 50, sentAt: T0 + 50, madeBy: T0 + 60, dated: true });
    world.watch.add(later);
    const e = {
      id: newId(),
      creationDate: T0 + 100,
      elems: { cmd: { status: "COMMAND_COMPLETE", ref: later.commandId } },
    };
    world.client.events.unshift(e);
    await world.clock.tickAsync(1000);
    assert.deepEqual(later.got, [["COMMAND_COMPLETE", e.id]]);
    assert.deepEqual(later.undated, []);
  });
});

describe("unit: commands/clock-steps", function () {
  const item = (wait) => ({ wait, stepMs: undefined });

  it("should mark a command dated before one made before its request left, by the step", function () {
    const steps = new ClockSteps();
    const a = item({ since: 10_000, sentAt: 0, madeBy: 5 });
    const b = item({ since: 7_000, sentAt: 5, madeBy: 9 });
    steps.add(a);
    steps.add(b);
    assert.equal(b.stepMs, 3000);
    assert.equal(a.stepMs, undefined, "the earlier one was made first, by a clock not yet back");
  });

  it("should mark nothing for commands whose requests were on the wire together", function () {
    const steps = new ClockSteps();
    const a = item({ since: 10_000, sentAt: 0, madeBy: 50 });
    const b = item({ since: 9_990, sentAt: 10, madeBy: 40 });
    steps.add(a);
    steps.add(b);
    assert.equal(a.stepMs, undefined);
    assert.equal(b.stepMs, undefined);
  });

  it("should mark nothing for commands dated in the order they were made", function () {
    const steps = new ClockSteps();
    const a = item({ since: 10_000, sentAt: 0, madeBy: 5 });
    const b = item({ since: 10_000, sentAt: 5, madeBy: 9 });
    const c = item({ since: 10_400, sentAt: 9, madeBy: 12 });
    for (const x of [a, b, c]) steps.add(x);
    assert.deepEqual([a.stepMs, b.stepMs, c.stepMs], [undefined, undefined, undefined]);
  });

  it("should mark a command noted before the earlier one it is dated before (waits restored in any order)", function () {
    const steps = new ClockSteps();
    const later = item({ since: 7_000, sentAt: 5, madeBy: 9 });
    const earlier = item({ since: 10_000, sentAt: 0, madeBy: 5 });
    steps.add(later);
    steps.add(earlier);
    assert.equal(later.stepMs, 3000);
    assert.equal(earlier.stepMs, undefined);
  });

  it("should keep the largest step seen", function () {
    const steps = new ClockSteps();
    steps.add(item({ since: 9_000, sentAt: 0, madeBy: 1 }));
    steps.add(item({ since: 10_000, sentAt: 1, madeBy: 2 }));
    const c = item({ since: 8_000, sentAt: 3, madeBy: 4 });
    steps.add(c);
    assert.equal(c.stepMs, 2000);
  });

  it("should forget the oldest half past 1,000 commands", function () {
    const steps = new ClockSteps();
    steps.add(item({ since: 1_000_000, sentAt: 0, madeBy: 0 }));
    for (let i = 1; i <= 1000; i++) steps.add(item({ since: i, sentAt: i, madeBy: i }));
    const late = item({ since: 5_000, sentAt: 2000, madeBy: 2001 });
    steps.add(late);
    assert.equal(late.stepMs, undefined, "the first command is forgotten");
    const kept = item({ since: 900, sentAt: 2002, madeBy: 2003 });
    steps.add(kept);
    assert.equal(kept.stepMs, 4100, "dated before the command of 2000, which is kept");
  });
});

describe("unit: commands/inbox-watch, an inbox refused for good", function () {
  const world = watchWorld(fakes, { client: false, watch: false });

  it("should tell each wait still pending once, and not a wait that another's end stopped", async function () {
    const { EdgeError } = lib("api/errors");
    const client = fakeClient();
    client.listEvents = async () => {
      throw new EdgeError("not-found", {}, { status: 404 });
    };
    const watch = new InboxWatch(client, { streamId: "in" }, () => {});
    const errors = [];
    const handles = {};
    // Each ends as a wait does at an error: its watch stops.
    const ending = (name, also = () => {}) =>
      recorder({
        onError: (err) => {
          errors.push([name, err.code]);
          handles[name].stop();
          also();
        },
      });
    // A fleet job that ends on its first device's error cancels its other devices.
    handles.first = watch.add(ending("first", () => handles.second.stop()));
    handles.second = watch.add(ending("second"));
    handles.third = watch.add(ending("third"));
    await world.clock.tickAsync(1000);
    watch.close();
    assert.deepEqual(errors, [
      ["first", "not-found"],
      ["third", "not-found"],
    ]);
  });
});

describe("unit: commands/inbox-watch, what a cancelled wait was handed", function () {
  const world = watchWorld(fakes);

  it("should give a cancelled wait's markers to the same wait resumed, and an ended wait's to none", async function () {
    const id = newId();
    const first = fakes.recorder(id, { since: T0 });
    const h = world.watch.add(first);
    const done = world.client.marker("COMMAND_COMPLETE", id, T0 + 10);
    await world.clock.tickAsync(1000);
    assert.deepEqual(first.got, [["COMMAND_COMPLETE", done.id]]);
    // A deploy stops the node while the wait holds its result: cancelled, it gives it back.
    h.stop(true);
    const resumed = fakes.recorder(id, { since: T0 });
    const h2 = world.watch.add(resumed);
    assert.deepEqual(resumed.got, [["COMMAND_COMPLETE", done.id]]);
    // Ended by it, a wait gives nothing back.
    h2.stop();
    const again = fakes.recorder(id, { since: T0 });
    world.watch.add(again);
    assert.deepEqual(again.got, []);
  });

  it("should give a marker handed by date back for a wait by date, not to one sent after it was read", async function () {
    const w = recorder({ since: T0, sentAt: T0 });
    const h = world.watch.add(w);
    const done = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 10);
    await world.clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", done.id]]);
    h.stop(true);
    const later = recorder({ since: T0, sentAt: Date.now() });
    world.watch.add(later);
    assert.deepEqual(later.got, [], "read before the later command left");
    const resumed = recorder({ since: T0, sentAt: T0 });
    world.watch.add(resumed);
    assert.deepEqual(resumed.got, [["COMMAND_COMPLETE", done.id]]);
  });
});

describe("unit: commands/inbox-watch, an event dated past what a steady clock could give it", function () {
  const world = watchWorld(fakes);

  it("should take nothing by date for a command read 0 ms after its send with an answer dated 2.4 s after it", async function () {
    // Another system's answer, written before the server's clock stepped back 3 s.
    const old = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 1900);
    const w = recorder({ since: T0 - 539, sentAt: T0, dated: true });
    world.watch.add(w);
    await world.clock.tickAsync(0);
    assert.deepEqual(w.got, []);
    assert.deepEqual(w.undated, [[old.id, 2439]]);
  });

  it("should take nothing by date after an event read before its send and dated after its command", async function () {
    world.watch.add(recorder({ since: T0 + 5000, sentAt: T0 }));
    world.client.marker("COMMAND_START", undefined, T0 + 4000);
    await world.clock.tickAsync(1000);
    const w = recorder({ since: T0 + 2000, sentAt: Date.now(), dated: true });
    world.watch.add(w);
    const next = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 2100);
    await world.clock.tickAsync(1000);
    assert.deepEqual(w.got, []);
    assert.deepEqual(w.undated, [[next.id, 2000]]);
  });

  it("should take by date an answer dated within 10 ms past the time that passed, and not one dated 11 ms past it", async function () {
    const w = recorder({ since: T0, sentAt: T0, dated: true });
    world.watch.add(w);
    await world.clock.tickAsync(0);
    // Read at T0 + 1000, 1 s after the send: dated 10 ms further on than that, at most.
    const done = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 1010);
    await world.clock.tickAsync(1000);
    assert.deepEqual(w.got, [["COMMAND_COMPLETE", done.id]]);
    assert.deepEqual(w.undated, []);
    const other = recorder({ since: T0 + 2000, sentAt: Date.now(), dated: true });
    world.watch.add(other);
    await world.clock.tickAsync(0);
    const ahead = world.client.marker("COMMAND_COMPLETE", undefined, T0 + 3011);
    await world.clock.tickAsync(1000);
    assert.deepEqual(other.got, []);
    assert.deepEqual(other.undated, [[ahead.id, 11]]);
  });
});
