// nodes/lib/api/timer-delay.ts: every delay becomes one a Node timer keeps; past 2^31 - 1 ms a
// timer fires after 1 ms instead, with a TimeoutOverflowWarning.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { timerDelay, MAX_TIMER_MS } = lib("api/timer-delay");

describe("unit: api/timer-delay", function () {
  it("should keep a delay a timer can take, rounded up to a whole ms", function () {
    assert.equal(timerDelay(0), 0);
    assert.equal(timerDelay(1500), 1500);
    assert.equal(timerDelay(0.2), 1);
    assert.equal(timerDelay(MAX_TIMER_MS), MAX_TIMER_MS);
  });

  it("should clamp what a timer would overflow on, and make a negative or NaN delay 0", function () {
    assert.equal(MAX_TIMER_MS, 2 ** 31 - 1);
    for (const ms of [MAX_TIMER_MS + 1, 99_999_999_000, Infinity])
      assert.equal(timerDelay(ms), MAX_TIMER_MS, String(ms));
    for (const ms of [-5, -Infinity, NaN]) assert.equal(timerDelay(ms), 0, String(ms));
  });

  it("should give a timer no TimeoutOverflowWarning for the largest delay a server can cause", async function () {
    const names = [];
    const on = (w) => names.push(w.name);
    process.on("warning", on);
    try {
      clearTimeout(setTimeout(() => {}, timerDelay(99_999_999_000)));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", on);
    }
    assert.deepEqual(names, []);
  });
});
