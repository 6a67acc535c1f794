// nodes/lib/commands/read-schedule.ts: when an inbox with pending waits is read ahead of its
// interval. Nothing planned until a pace is known; then just after the expected answer, then after
// gaps of 50, 100, 200 ... ms until the gap reaches the interval. Plain numbers, no timers.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { ReadSchedule, FIRST_GAP_MS } = lib("commands/read-schedule");

const options = () => ({ pace: "fast", accountAnswerMs: undefined });

describe("read schedule (early inbox reads)", function () {
  it("plans nothing while neither the device nor the account has answered", function () {
    const s = new ReadSchedule(options());
    assert.equal(s.expect(Date.now(), 1000), false);
    assert.equal(s.next, Infinity);
  });

  it("plans the first read just after the device's learned answer time", function () {
    const s = new ReadSchedule(options());
    const t = Date.now();
    s.learn(t - 10_000, t - 10_000 + 300);
    assert.equal(s.expectedAnswerMs, 300);
    assert.equal(s.expect(Date.now(), 0), true);
    // 300 ms after a command created now, plus a margin of a few ms; never before the answer.
    assert.ok(s.next >= 300 && s.next <= 340, String(s.next));
  });

  it("smooths the answer time: one slow answer moves it part of the way", function () {
    const s = new ReadSchedule(options());
    s.learn(0, 200);
    s.learn(1000, 2000);
    assert.ok(s.expectedAnswerMs > 200 && s.expectedAnswerMs < 1000, String(s.expectedAnswerMs));
  });

  it("counts a queued command's answer time from the result before it", function () {
    const s = new ReadSchedule(options());
    s.learn(0, 200);
    // Created at 0 but run after the first finished at 200: it took 200 ms, not 400.
    s.learn(0, 400);
    assert.equal(s.expectedAnswerMs, 200);
  });

  it("gives a device not heard from yet the account's pace", function () {
    const shared = options();
    new ReadSchedule(shared).learn(0, 500);
    const other = new ReadSchedule(shared);
    assert.equal(other.expect(Date.now(), 0), true);
    assert.ok(other.next >= 500 && other.next <= 540, String(other.next));
  });

  it("reads again after gaps that double until they reach the interval, then stops", function () {
    const s = new ReadSchedule(options());
    s.learn(0, 0);
    s.expect(Date.now(), 0);
    const gaps = [];
    let started = s.next;
    for (let i = 0; i < 20 && s.next !== Infinity; i++) {
      s.missed(started, 1000);
      if (s.next !== Infinity) gaps.push(s.next - started);
      started = s.next;
    }
    assert.deepEqual(gaps, [FIRST_GAP_MS, 100, 200, 400, 800]);
  });

  it("keeps the plan when an interval read came before the early one", function () {
    const s = new ReadSchedule(options());
    s.learn(0, 0);
    s.expect(Date.now(), 500);
    const planned = s.next;
    s.missed(100, 1000);
    assert.equal(s.next, planned);
  });

  it("stops planning on stop()", function () {
    const s = new ReadSchedule(options());
    s.learn(0, 0);
    s.expect(Date.now(), 0);
    s.stop();
    assert.equal(s.next, Infinity);
  });
});
