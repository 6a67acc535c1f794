// nodes/lib/commands/read-schedule.ts: when an inbox with pending waits is read ahead of its
// interval. Just after the expected answer (the device's, else the account's), then after gaps of
// 50, 100, 200 ... ms until the gap reaches the interval; with no pace known at all, 125 ms after
// the command and then after doubling gaps. Plain numbers, no timers.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { ReadSchedule, FIRST_GAP_MS, COLD_FIRST_MS } = lib("commands/read-schedule");
const { AnswerTimes } = lib("commands/answer-times");

const options = () => ({ pace: "fast", answers: new AnswerTimes() });
let inboxes = 0;
/** A schedule of a device of its own (a key no other schedule has), or of `key`. */
const schedule = (opts, key = `path:/demo/devices/d${++inboxes}/:inbox`) =>
  new ReadSchedule(opts, key);

describe("read schedule (early inbox reads)", function () {
  it("reads a cold account's command 125 ms after it, then after doubling gaps up to the interval", function () {
    const s = schedule(options());
    s.expect(Date.now(), 0);
    assert.ok(s.next >= COLD_FIRST_MS - 5 && s.next <= COLD_FIRST_MS, String(s.next));
    // The first read may come a few ms early: the command was created a few ms before expect().
    const late = COLD_FIRST_MS - s.next;
    const reads = [];
    for (let i = 0; i < 20 && s.next !== Infinity; i++) {
      reads.push(s.next + late);
      s.missed(s.next, 1000);
    }
    // Three reads before the interval's own at 1,000 ms, then the interval alone.
    assert.deepEqual(reads, [125, 250, 500, 1000]);
  });

  it("plans the first read just after the device's learned answer time", function () {
    const s = schedule(options());
    const t = Date.now();
    s.learn(t - 10_000, t - 10_000 + 300);
    assert.equal(s.expectedAnswerMs, 300);
    s.expect(Date.now(), 0);
    // 300 ms after a command created now, plus a margin of a few ms; never before the answer.
    assert.ok(s.next >= 300 && s.next <= 340, String(s.next));
  });

  it("smooths the answer time: one slow answer moves it part of the way", function () {
    const s = schedule(options());
    s.learn(0, 200);
    s.learn(1000, 2000);
    assert.ok(s.expectedAnswerMs > 200 && s.expectedAnswerMs < 1000, String(s.expectedAnswerMs));
  });

  it("counts a queued command's answer time from the result before it", function () {
    const s = schedule(options());
    s.learn(0, 200);
    // Created at 0 but run after the first finished at 200: it took 200 ms, not 400.
    s.learn(0, 400);
    assert.equal(s.expectedAnswerMs, 200);
  });

  it("gives a device not heard from yet the account's pace", function () {
    const shared = options();
    schedule(shared).learn(0, 500);
    const other = schedule(shared);
    other.expect(Date.now(), 0);
    assert.ok(other.next >= 500 && other.next <= 540, String(other.next));
  });

  it("reads again after gaps that double until they reach the interval, then stops", function () {
    const s = schedule(options());
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
    const s = schedule(options());
    s.learn(0, 0);
    s.expect(Date.now(), 500);
    const planned = s.next;
    s.missed(100, 1000);
    assert.equal(s.next, planned);
  });

  for (const account of ["learned", "cold"])
    it(`tries an early read that gave way to queued reads again after growing gaps from 50 ms, ${account} account`, function () {
      const s = schedule(options());
      if (account === "learned") s.learn(0, 0);
      s.expect(Date.now(), 0);
      const gaps = [];
      let now = 0;
      for (let i = 0; i < 20 && s.next !== Infinity; i++) {
        // Gave way at `now`, while the plan was still `s.next`: missed() would keep it.
        s.deferred(now, 1000);
        if (s.next !== Infinity) gaps.push(s.next - now);
        now += 10;
      }
      assert.deepEqual(gaps, [FIRST_GAP_MS, 100, 200, 400, 800]);
      assert.equal(s.next, Infinity);
      // A read that comes (an interval's) starts the gaps again.
      s.expect(Date.now(), now);
      s.missed(now + 5000, 1000);
      s.deferred(now, 1000);
      assert.equal(s.next - now, FIRST_GAP_MS);
    });

  it("stops planning on stop()", function () {
    const s = schedule(options());
    s.learn(0, 0);
    s.expect(Date.now(), 0);
    s.stop();
    assert.equal(s.next, Infinity);
  });
});
