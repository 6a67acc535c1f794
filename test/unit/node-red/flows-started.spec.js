// nodes/lib/node-red/flows-started.ts: one `flows:started` listener per runtime, whatever the
// number of nodes waiting for it, each called once. The runtime's events are an EventEmitter.
"use strict";
const assert = require("node:assert/strict");
const { EventEmitter } = require("node:events");
const { lib } = require("../../support/lib");

const { onNextFlowsStarted } = lib("node-red/flows-started");

describe("unit: node-red/flows-started", function () {
  it("should hold one listener for 12 nodes, call each once, and then none", function () {
    const events = new EventEmitter();
    const calls = [];
    for (let i = 0; i < 12; i++) onNextFlowsStarted(events, () => calls.push(i));
    assert.equal(events.listenerCount("flows:started"), 1);
    events.emit("flows:started", {});
    assert.deepEqual(calls, [...Array(12).keys()]);
    assert.equal(events.listenerCount("flows:started"), 0);
    events.emit("flows:started", {});
    assert.equal(calls.length, 12);
  });

  it("should not call a cancelled function, and go on after one that throws", function () {
    const events = new EventEmitter();
    const calls = [];
    const cancel = onNextFlowsStarted(events, () => calls.push("cancelled"));
    onNextFlowsStarted(events, () => {
      throw new Error("boom");
    });
    onNextFlowsStarted(events, () => calls.push("second"));
    cancel();
    events.emit("flows:started", {});
    assert.deepEqual(calls, ["second"]);
  });

  it("should keep runtimes apart, and wait for the next start after one", function () {
    const a = new EventEmitter();
    const b = new EventEmitter();
    const calls = [];
    onNextFlowsStarted(a, () => calls.push("a"));
    onNextFlowsStarted(b, () => calls.push("b"));
    a.emit("flows:started", {});
    assert.deepEqual(calls, ["a"]);
    onNextFlowsStarted(a, () => calls.push("a again"));
    a.emit("flows:started", {});
    b.emit("flows:started", {});
    assert.deepEqual(calls, ["a", "a again", "b"]);
  });
});
