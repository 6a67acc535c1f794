// The small parts of a fleet job: its devices counted per outcome (counts.ts), the report on
// output 1 (report.ts), the check of a saved record (job.ts), the comparison of elems whatever
// the key order (same-json.ts) and one job at a time per node (turns.ts).
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { countsOf, summaryOf, outcomeCounts, progressCounts } = lib("fleet/counts");
const { reportOf } = lib("fleet/report");
const { checkJobRecord, isFailure } = lib("fleet/job");
const { sameJson } = lib("fleet/same-json");
const { Turns } = lib("fleet/turns");

const DEVICES = [
  { device: "a", state: "pending" },
  { device: "b", state: "sending", sentAt: 1 },
  { device: "c", state: "sent", sentAt: 1 },
  { device: "d", state: "ended", outcome: "complete" },
  { device: "e", state: "ended", outcome: "fault" },
  { device: "f", state: "ended", outcome: "timed-out" },
  { device: "g", state: "ended", outcome: "failed" },
  { device: "h", state: "ended", outcome: "not-sent" },
  { device: "i", state: "ended", outcome: "complete" },
];

function jobRecord(over = {}) {
  return {
    v: 1,
    job: "j1",
    startedAt: 1000,
    settings: {
      elems: { "/x": 1 },
      timeoutMs: 5000,
      intervalMs: 100,
      rate: 0,
      concurrency: 2,
      maxFailures: 0,
    },
    devices: [],
    msg: "{}",
    ...over,
  };
}

describe("unit: fleet/counts", function () {
  it("should count each device once per outcome, and what was sent and is in flight", function () {
    assert.deepEqual(countsOf(DEVICES), {
      total: 9,
      sent: 5,
      complete: 2,
      fault: 1,
      timedOut: 1,
      failed: 1,
      notSent: 1,
      inFlight: 2,
      pending: 1,
    });
    assert.deepEqual(countsOf([]), {
      total: 0,
      sent: 0,
      complete: 0,
      fault: 0,
      timedOut: 0,
      failed: 0,
      notSent: 0,
      inFlight: 0,
      pending: 0,
    });
  });

  it("should read a job by its complete devices of all, and its failures of any kind", function () {
    assert.deepEqual(summaryOf(countsOf(DEVICES)), { complete: 2, total: 9, failed: 3 });
  });

  it("should hand the report and the sidebar only their own counts, in their order", function () {
    const c = { ...countsOf(DEVICES), secret: "x" };
    assert.deepEqual(Object.keys(outcomeCounts(c)), [
      "total",
      "complete",
      "fault",
      "timedOut",
      "failed",
      "notSent",
    ]);
    assert.deepEqual(progressCounts(c), {
      total: 9,
      sent: 5,
      complete: 2,
      fault: 1,
      timedOut: 1,
      failed: 1,
      notSent: 1,
      inFlight: 2,
    });
    assert.deepEqual(Object.keys(progressCounts(c)), [
      "total",
      "sent",
      "complete",
      "fault",
      "timedOut",
      "failed",
      "notSent",
      "inFlight",
    ]);
  });
});

describe("unit: fleet/report", function () {
  it("should tell each device's outcome, with null for what it does not have", function () {
    const job = jobRecord({
      devices: [
        { device: "a", state: "pending" },
        {
          device: "b",
          state: "ended",
          outcome: "complete",
          commandId: "c1",
          elapsed: 40,
          matchedBy: "date",
        },
        {
          device: "c",
          state: "ended",
          outcome: "failed",
          error: "timeout-uncertain",
          message: "no answer",
          mayHaveBeenSent: true,
        },
        { device: "d", state: "ended", outcome: "fault", mayHaveBeenSent: false },
      ],
      stopped: "cancelled",
    });
    assert.deepEqual(reportOf(job, { restored: true, dryRun: false, endedAt: 2000 }), {
      job: "j1",
      total: 4,
      complete: 1,
      fault: 1,
      timedOut: 0,
      failed: 1,
      notSent: 0,
      aborted: false,
      cancelled: true,
      restored: true,
      dryRun: false,
      startedAt: 1000,
      endedAt: 2000,
      devices: [
        { device: "a", outcome: "not-sent", commandId: null, elapsed: null, error: null },
        {
          device: "b",
          outcome: "complete",
          commandId: "c1",
          elapsed: 40,
          error: null,
          matchedBy: "date",
        },
        {
          device: "c",
          outcome: "failed",
          commandId: null,
          elapsed: null,
          error: "timeout-uncertain",
          message: "no answer",
          mayHaveBeenSent: true,
        },
        { device: "d", outcome: "fault", commandId: null, elapsed: null, error: null },
      ],
    });
  });

  it("should say a job the stop rule stopped was aborted, and a dry run", function () {
    const r = reportOf(jobRecord({ stopped: "aborted" }), {
      restored: false,
      dryRun: true,
      endedAt: 3,
    });
    assert.equal(r.aborted, true);
    assert.equal(r.cancelled, false);
    assert.equal(r.dryRun, true);
    assert.equal(r.restored, false);
    const plain = reportOf(jobRecord(), { restored: false, dryRun: false, endedAt: 3 });
    assert.equal(plain.aborted, false);
    assert.equal(plain.cancelled, false);
  });
});

describe("unit: fleet/job, the check of a saved record", function () {
  it("should take a record as it is saved", function () {
    const job = jobRecord({
      generated: true,
      savedAt: 5,
      closedAt: 6,
      stopped: "aborted",
      settings: { ...jobRecord().settings, ttl: 60 },
      devices: DEVICES.map((d) => ({ ...d })).concat([
        {
          device: "z",
          state: "ended",
          outcome: "complete",
          sentAt: 1,
          firstSentAt: 1,
          commandId: "c",
          since: 2,
          elapsed: 3,
          error: "e",
          message: "m",
          mayHaveBeenSent: false,
          matchedBy: "date",
        },
      ]),
    });
    assert.deepEqual(checkJobRecord(job), { ok: true, job });
    const queued = jobRecord({ queued: { given: ["a"], dryRun: false } });
    assert.equal(checkJobRecord(queued).ok, true);
    const filtered = jobRecord({ queued: { given: [], filter: "x", dryRun: true } });
    assert.equal(checkJobRecord(filtered).ok, true);
  });

  it("should name the first wrong field of a record", function () {
    const cases = [
      [null, "v"],
      [[], "v"],
      [{ ...jobRecord(), v: 2 }, "v"],
      [jobRecord({ job: 1 }), "job"],
      [jobRecord({ generated: false }), "generated"],
      [jobRecord({ startedAt: "1" }), "startedAt"],
      [jobRecord({ startedAt: NaN }), "startedAt"],
      [jobRecord({ startedAt: Infinity }), "startedAt"],
      [jobRecord({ savedAt: "x" }), "savedAt"],
      [jobRecord({ closedAt: null }), "closedAt"],
      [jobRecord({ msg: {} }), "msg"],
      [jobRecord({ settings: null }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, elems: [] } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, ttl: "1" } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, timeoutMs: "1" } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, intervalMs: null } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, rate: undefined } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, concurrency: NaN } }), "settings"],
      [jobRecord({ settings: { ...jobRecord().settings, maxFailures: "0" } }), "settings"],
      [jobRecord({ devices: {} }), "devices"],
      [jobRecord({ stopped: "done" }), "stopped"],
      [jobRecord({ queued: { given: ["a"], dryRun: false }, devices: DEVICES }), "queued"],
      [jobRecord({ queued: { given: [], dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: [" "], dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: [1], dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: "a", dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: ["a"], filter: " ", dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: ["a"], filter: 1, dryRun: false } }), "queued"],
      [jobRecord({ queued: { given: ["a"], dryRun: "no" } }), "queued"],
      [jobRecord({ queued: ["a"] }), "queued"],
    ];
    for (const [value, field] of cases)
      assert.deepEqual(checkJobRecord(value), { ok: false, field }, JSON.stringify(value));
  });

  it("should refuse a device record that is wrong in any field", function () {
    const good = { device: "a", state: "sent", sentAt: 1 };
    const bad = [
      null,
      [],
      "a",
      { ...good, device: 1 },
      { ...good, state: 1 },
      { ...good, state: "lost" },
      { ...good, sentAt: "1" },
      { ...good, firstSentAt: "1" },
      { ...good, commandId: 1 },
      { ...good, since: "1" },
      { ...good, outcome: 1 },
      { ...good, outcome: "done" },
      { ...good, elapsed: "1" },
      { ...good, error: 1 },
      { ...good, message: 1 },
      { ...good, mayHaveBeenSent: "yes" },
      { ...good, matchedBy: "id" },
      { device: "a", state: "sent" },
      { device: "a", state: "sending" },
      { device: "a", state: "ended" },
    ];
    assert.equal(checkJobRecord(jobRecord({ devices: [good] })).ok, true);
    for (const d of bad)
      assert.deepEqual(
        checkJobRecord(jobRecord({ devices: [good, d] })),
        { ok: false, field: "devices" },
        JSON.stringify(d),
      );
  });

  it("should count fault, timed out and failed as failures, no other outcome", function () {
    assert.deepEqual(
      ["complete", "fault", "timed-out", "failed", "not-sent", undefined].map(isFailure),
      [false, true, true, true, false, false],
    );
  });
});

describe("unit: fleet/same-json", function () {
  it("should take objects with their keys in another order as the same", function () {
    assert.equal(
      sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 }),
      true,
    );
    assert.equal(sameJson("x", "x"), true);
    assert.equal(sameJson(null, null), true);
  });

  it("should tell values apart", function () {
    const cases = [
      [1, 2],
      [1, "1"],
      [{ a: 1 }, null],
      [null, { a: 1 }],
      [{ a: 1 }, 1],
      [1, { a: 1 }],
      [[1], { 0: 1 }],
      [{ 0: 1 }, [1]],
      [[1, 2], [1]],
      [[1], [1, 2]],
      [
        [1, 2],
        [2, 1],
      ],
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: 1 }, { b: 1 }],
      [{ a: undefined }, { b: undefined }],
      [{ a: { b: 1 } }, { a: { b: 2 } }],
    ];
    for (const [a, b] of cases) assert.equal(sameJson(a, b), false, JSON.stringify([a, b]));
  });

  it("should stop comparing past 64 levels", function () {
    const deep = (n) => (n === 0 ? 1 : { x: deep(n - 1) });
    assert.equal(sameJson(deep(64), deep(64)), true);
    assert.equal(sameJson(deep(66), deep(66)), false);
  });
});

describe("unit: fleet/turns", function () {
  it("should give turns one at a time, in order", async function () {
    const turns = new Turns(5);
    const signal = new AbortController().signal;
    assert.equal(await turns.take(signal), true);
    const order = [];
    const second = turns.take(signal).then((v) => order.push(["second", v]));
    const third = turns.take(signal).then((v) => order.push(["third", v]));
    assert.equal(turns.queued, 2);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, []);
    turns.release();
    await second;
    assert.deepEqual(order, [["second", true]]);
    turns.release();
    await third;
    turns.release();
    assert.equal(turns.queued, 0);
    assert.equal(await turns.take(signal), true, "free again once all released");
  });

  it("should refuse a message past the most that may wait", async function () {
    const turns = new Turns(1);
    const signal = new AbortController().signal;
    await turns.take(signal);
    void turns.take(signal);
    assert.throws(
      () => turns.take(signal),
      (err) => err.code === "queue-full" && err.params.max === 1,
    );
  });

  it("should give no turn once the node closed, and drop a waiting one", async function () {
    const turns = new Turns(5);
    const ac = new AbortController();
    const open = new AbortController();
    await turns.take(open.signal);
    const waiting = turns.take(ac.signal);
    const after = turns.take(open.signal);
    ac.abort();
    assert.equal(await waiting, false);
    assert.equal(turns.queued, 1);
    assert.equal(await turns.take(ac.signal), false);
    turns.release();
    assert.equal(await after, true);
  });
});
