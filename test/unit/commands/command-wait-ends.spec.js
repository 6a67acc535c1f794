// nodes/lib/commands/command-wait.ts with a stand-in poller, on virtual time: the one outcome a
// wait ends with, what it holds while this runtime's POSTs to the device are on the wire, an id
// the server gave again, a result the clocks cannot place, and the final read at the deadline.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { CommandWait } = lib("commands/command-wait");
const { sentCommands } = lib("commands/sent-commands");
const { EdgeError } = lib("api/errors");

const T0 = Date.UTC(2026, 0, 15, 12);
let serial = 0;

class RecordingWait extends CommandWait {
  outcomes = [];
  starts = [];
  ended(outcome) {
    this.outcomes.push(outcome);
  }
  onStartMarker(marker) {
    this.starts.push(marker.id);
  }
}

/** A poller whose handles record what the wait asks of them; `onWatch` runs inside watch(). */
function fakePoller(onWatch = () => {}) {
  const p = { watched: [], stopped: 0, finals: 0 };
  p.watch = (inbox, wait) => {
    p.watched.push({ inbox, wait });
    onWatch(wait);
    return { stop: () => p.stopped++, finalRead: () => p.finals++ };
  };
  return p;
}

function wait(over = {}) {
  return new RecordingWait({
    commandId: `cmd-${++serial}-x`,
    since: T0 - 100,
    intervalMs: 100,
    timeoutMs: 1000,
    startedAt: T0,
    ...over,
  });
}

const ev = (id) => ({ id, creationDate: T0 + 10, elems: {} });

describe("unit: commands/command-wait, how it ends", function () {
  let clock;
  beforeEach(function () {
    clock = FakeTimers.install({ now: T0, toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(function () {
    clock.uninstall();
  });

  it("should end complete on its COMPLETE with every marker so far and the time it took", async function () {
    const p = fakePoller();
    const w = wait();
    w.start(p, { streamId: "in" }, 1000);
    assert.equal(p.watched[0].wait, w);
    await clock.tickAsync(40);
    w.onMarker(ev("s"), "COMMAND_START");
    assert.deepEqual(w.starts, ["s"]);
    assert.deepEqual(w.outcomes, []);
    w.onMarker(ev("c"), "COMMAND_COMPLETE");
    assert.deepEqual(w.outcomes, [
      { kind: "complete", marker: ev("c"), markers: [ev("s"), ev("c")], elapsed: 40 },
    ]);
    assert.equal(p.stopped, 1, "its watch stopped");
    w.onMarker(ev("f"), "COMMAND_FAULT");
    w.cancel();
    assert.equal(w.outcomes.length, 1, "once");
    await clock.tickAsync(5000);
    assert.equal(p.finals, 0, "its timer stopped");
  });

  it("should end fault on its FAULT", function () {
    const w = wait();
    w.start(fakePoller(), { streamId: "in" }, 1000);
    w.onMarker(ev("f"), "COMMAND_FAULT");
    assert.equal(w.outcomes[0].kind, "fault");
    assert.equal(w.outcomes[0].elapsed, 0);
  });

  it("should ask for a final read at its deadline, and end timed out only after it", async function () {
    const p = fakePoller();
    const w = wait({ startedAt: T0 - 500 });
    w.start(p, { streamId: "in" }, 500);
    await clock.tickAsync(499);
    assert.equal(p.finals, 0);
    await clock.tickAsync(1);
    assert.equal(p.finals, 1);
    assert.deepEqual(w.outcomes, []);
    w.onMarker(ev("s"), "COMMAND_START");
    const readError = new EdgeError("timeout", {});
    w.onFinalRead(readError);
    assert.deepEqual(w.outcomes, [
      { kind: "timed-out", markers: [ev("s")], elapsed: 1000, readError },
    ]);
    const plain = wait();
    plain.start(fakePoller(), { streamId: "in" }, 10);
    plain.onFinalRead(undefined);
    assert.deepEqual(plain.outcomes, [{ kind: "timed-out", markers: [], elapsed: 500 }]);
  });

  it("should end with the error of an inbox refused for good", function () {
    const w = wait();
    w.start(fakePoller(), { streamId: "in" }, 1000);
    const err = new EdgeError("auth", {});
    w.onError(err);
    assert.deepEqual(w.outcomes, [{ kind: "error", error: err }]);
  });

  it("should end with clock-apart, not timed out, after a result the clocks could not place", function () {
    const w = wait({ commandId: undefined, since: T0 - 25 * 3600_000 });
    assert.equal(w.datesApart, true);
    w.start(fakePoller(), { streamId: "in" }, 1000);
    w.onUndated(ev("u"));
    w.onFinalRead(undefined);
    assert.equal(w.outcomes[0].kind, "error");
    assert.equal(w.outcomes[0].error.code, "clock-apart");
    assert.equal(w.outcomes[0].error.params.hours, 25);
    assert.equal(wait().datesApart, false);
  });

  it("should end with clock-stepped, naming the step, after a result the server's stepped clock could not place", function () {
    const w = wait({ commandId: undefined, since: T0 });
    w.start(fakePoller(), { streamId: "in" }, 1000);
    w.onUndated(ev("u"), 2954.4);
    w.onFinalRead(undefined);
    assert.equal(w.outcomes.length, 1);
    assert.equal(w.outcomes[0].kind, "error");
    assert.equal(w.outcomes[0].error.code, "clock-stepped");
    assert.equal(w.outcomes[0].error.params.ms, 2954);
    assert.equal(w.outcomes[0].error.mayHaveBeenSent, true);
  });

  it("should do nothing when cancelled before it started, and stop a watch a marker ended inside it", function () {
    const early = wait();
    early.cancel();
    const p = fakePoller();
    early.start(p, { streamId: "in" }, 1000);
    assert.deepEqual(early.outcomes, [{ kind: "cancelled" }]);
    assert.equal(p.watched.length, 0);

    const q = fakePoller((w) => w.onMarker(ev("c"), "COMMAND_COMPLETE"));
    const w = wait();
    w.start(q, { streamId: "in" }, 1000);
    assert.equal(w.outcomes[0].kind, "complete");
    assert.equal(q.stopped, 1, "the entry does not stay on the inbox");
  });

  it("should hold a result while this runtime's POST to the device is on the wire, and end after it", async function () {
    const path = `/co/devices/held-${serial}/:command`;
    const w = wait({ stream: { origin: "http://o", path } });
    const p = fakePoller();
    w.start(p, { streamId: "in" }, 1000);
    const done = sentCommands.leaving(path);
    w.onMarker(ev("c"), "COMMAND_COMPLETE");
    assert.deepEqual(w.outcomes, []);
    await clock.tickAsync(2000);
    assert.equal(p.finals, 0, "a held result asks for no final read");
    w.onFinalRead(undefined);
    assert.deepEqual(w.outcomes, [], "nor ends timed out");
    done();
    await clock.tickAsync(0);
    assert.equal(w.outcomes[0].kind, "complete");
  });

  it("should end with id-reused when the server gives its id to a later command of ours", function () {
    const path = `/co/devices/reuse-${serial}/:command`;
    const w = wait({ stream: { origin: "http://o", path } });
    sentCommands.claim("http://o", path, w.commandId);
    w.start(fakePoller(), { streamId: "in" }, 1000);
    const err = sentCommands.claim("http://o", path, w.commandId);
    assert.equal(err.code, "id-reused");
    assert.equal(w.outcomes[0].kind, "error");
    assert.equal(w.outcomes[0].error.code, "id-reused");

    const late = wait({ commandId: w.commandId, stream: { origin: "http://o", path } });
    const p = fakePoller();
    late.start(p, { streamId: "in" }, 1000);
    assert.equal(late.outcomes[0].error.code, "id-reused", "told at its start");
    assert.equal(p.watched.length, 0);
  });

  it("should stop listening for its id given again once it ended", function () {
    const path = `/co/devices/unwatch-${serial}/:command`;
    const w = wait({ stream: { origin: "http://o", path } });
    sentCommands.claim("http://o", path, w.commandId);
    w.start(fakePoller(), { streamId: "in" }, 1000);
    w.cancel();
    sentCommands.claim("http://o", path, w.commandId);
    assert.deepEqual(w.outcomes, [{ kind: "cancelled" }]);
  });
});
