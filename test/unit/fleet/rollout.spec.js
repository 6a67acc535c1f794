// nodes/lib/fleet/rollout.ts and send-room.ts on virtual time: devices start in order, at most
// `rate` a second and `concurrency` at once; the stop rule and msg.cancel leave the rest not sent;
// a resumed job runs its devices already sent first. The send room holds a job to the account's
// width, and its pauses end at the job's close.
"use strict";
const assert = require("node:assert/strict");
const FakeTimers = require("@sinonjs/fake-timers");
const { lib } = require("../../support/lib");

const { Rollout } = lib("fleet/rollout");
const { SendRoom, pauseAfter, isQueueFull, certainlyNotSent } = lib("fleet/send-room");
const { EdgeError } = lib("api/errors");

function job(n, over = {}) {
  return {
    v: 1,
    job: "j",
    startedAt: 0,
    settings: {},
    msg: "{}",
    devices: Array.from({ length: n }, (_, i) => ({ device: `d${i}`, state: "pending" })),
    ...over,
  };
}

/** A rollout whose devices end when the test says, with what it says. */
function harness(record, settings) {
  const h = { started: [], running: new Map(), ended: 0 };
  h.rollout = new Rollout(
    record,
    { rate: 0, concurrency: 1, maxFailures: 0, ...settings },
    (d) => {
      h.started.push(d.device);
      d.state = "sent";
      return new Promise((resolve, reject) => h.running.set(d.device, { d, resolve, reject }));
    },
    () => h.ended++,
  );
  h.finish = async (device, outcome = "complete", throws = false) => {
    const r = h.running.get(device);
    h.running.delete(device);
    r.d.state = "ended";
    r.d.outcome = outcome;
    h.rollout.outcome(r.d);
    if (throws) r.reject(new Error("bug"));
    else r.resolve();
    await new Promise((res) => setImmediate(res));
  };
  return h;
}

describe("unit: fleet/rollout", function () {
  let clock;
  beforeEach(function () {
    clock = FakeTimers.install({
      toFake: ["setTimeout", "clearTimeout", "performance", "setImmediate"],
    });
  });
  afterEach(function () {
    clock.uninstall();
  });

  const settle = () => clock.tickAsync(0);

  it("should start devices in order, no more at once than its concurrency, and end once", async function () {
    const record = job(5);
    const h = harness(record, { concurrency: 2 });
    h.rollout.start();
    assert.deepEqual(h.started, ["d0", "d1"]);
    const f = h.finish("d1");
    await settle();
    await f;
    assert.deepEqual(h.started, ["d0", "d1", "d2"]);
    for (const d of ["d0", "d2"]) {
      const p = h.finish(d);
      await settle();
      await p;
    }
    assert.deepEqual(h.started, ["d0", "d1", "d2", "d3", "d4"]);
    assert.equal(h.ended, 0);
    for (const d of ["d3", "d4"]) {
      const p = h.finish(d, "fault");
      await settle();
      await p;
    }
    assert.equal(h.ended, 1);
    assert.ok(record.devices.every((d) => d.state === "ended"));
    assert.equal(record.stopped, undefined, "no stop rule: failures do not stop it");
  });

  it("should start at most `rate` devices a second", async function () {
    const h = harness(job(4), { concurrency: 10, rate: 2 });
    h.rollout.start();
    assert.deepEqual(h.started, ["d0"]);
    await clock.tickAsync(499);
    assert.equal(h.started.length, 1);
    await clock.tickAsync(1);
    assert.equal(h.started.length, 2);
    await clock.tickAsync(1000);
    assert.equal(h.started.length, 4);
  });

  it("should stop starting devices at the stop rule and leave the rest not sent", async function () {
    const record = job(6);
    const h = harness(record, { concurrency: 2, maxFailures: 2 });
    h.rollout.start();
    let p = h.finish("d0", "failed");
    await settle();
    await p;
    assert.equal(h.rollout.stopping, false);
    assert.deepEqual(h.started, ["d0", "d1", "d2"]);
    p = h.finish("d1", "timed-out");
    await settle();
    await p;
    assert.equal(record.stopped, "aborted");
    assert.equal(h.rollout.stopping, true);
    assert.deepEqual(h.started, ["d0", "d1", "d2"], "no device starts after the rule");
    assert.equal(h.ended, 0, "d2 is still awaited");
    p = h.finish("d2", "complete");
    await settle();
    await p;
    assert.equal(h.ended, 1);
    assert.deepEqual(
      record.devices.map((d) => d.outcome),
      ["failed", "timed-out", "complete", "not-sent", "not-sent", "not-sent"],
    );
  });

  it("should leave the rest not sent after msg.cancel, and keep the reason the stop rule gave", async function () {
    const record = job(3);
    const h = harness(record, { concurrency: 1 });
    h.rollout.start();
    h.rollout.cancel();
    assert.equal(record.stopped, "cancelled");
    const p = h.finish("d0");
    await settle();
    await p;
    assert.equal(h.ended, 1);
    assert.deepEqual(
      record.devices.map((d) => d.outcome),
      ["complete", "not-sent", "not-sent"],
    );
    const aborted = job(1, { stopped: "aborted" });
    const a = harness(aborted, {});
    a.rollout.start();
    a.rollout.cancel();
    assert.equal(aborted.stopped, "aborted");
    assert.equal(a.ended, 1);
    assert.deepEqual(a.started, []);
  });

  it("should resume a job with its sent devices first and its earlier failures counted", async function () {
    const record = job(0, {
      devices: [
        { device: "p", state: "pending" },
        { device: "f", state: "ended", outcome: "fault" },
        { device: "s", state: "sent", sentAt: 1 },
        { device: "g", state: "sending", sentAt: 1 },
        { device: "q", state: "pending" },
      ],
    });
    const h = harness(record, { concurrency: 2, maxFailures: 2 });
    h.rollout.start();
    assert.deepEqual(h.started, ["s", "g"], "in flight before, run first, past the concurrency");
    const p = h.finish("s", "failed");
    await settle();
    await p;
    assert.equal(record.stopped, "aborted", "the fault before the restart counts");
    assert.deepEqual(h.started, ["s", "g"]);
  });

  it("should not start again a resumed device whose run put it back to pending", async function () {
    // The fault harness (fleet, seed 703, path 54): a device resumed as sending, not found on its
    // stream, goes back to pending inside its run to be sent there; when another device ended,
    // the rollout took it for the next to start and its second run sent it again.
    const record = job(0, {
      devices: [
        { device: "g", state: "sending", sentAt: 1 },
        { device: "h", state: "sending", sentAt: 1 },
        { device: "p", state: "pending" },
      ],
    });
    const runs = [];
    const ends = new Map();
    const rollout = new Rollout(
      record,
      { rate: 0, concurrency: 2, maxFailures: 0 },
      (d) => {
        runs.push(d.device);
        // Not found on its stream: pending again, its run goes on to send it.
        if (d.device === "g") d.state = "pending";
        return new Promise((resolve) => ends.set(d.device, resolve));
      },
      () => {},
    );
    rollout.start();
    const end = async (device) => {
      const d = record.devices.find((x) => x.device === device);
      d.state = "ended";
      d.outcome = "complete";
      rollout.outcome(d);
      ends.get(device)();
      await settle();
    };
    await end("h");
    assert.deepEqual(runs, ["g", "h", "p"], "g is not started twice");
    await end("g");
    await end("p");
    assert.deepEqual(runs, ["g", "h", "p"]);
    assert.equal(rollout.hasEnded, true);
  });

  it("should run only the pending devices of a resumed job, none that ended before", async function () {
    const record = job(0, {
      devices: [
        { device: "done", state: "ended", outcome: "complete" },
        { device: "p", state: "pending" },
        { device: "gone", state: "ended", outcome: "not-sent" },
      ],
    });
    const h = harness(record, { concurrency: 3 });
    h.rollout.start();
    assert.deepEqual(h.started, ["p"]);
    const p = h.finish("p");
    await settle();
    await p;
    assert.deepEqual(h.started, ["p"]);
    assert.equal(h.ended, 1);
  });

  it("should abort at once a resumed job whose failures reached the rule", function () {
    const record = job(0, {
      devices: [
        { device: "f", state: "ended", outcome: "failed" },
        { device: "p", state: "pending" },
      ],
    });
    const h = harness(record, { maxFailures: 1 });
    h.rollout.start();
    assert.equal(record.stopped, "aborted");
    assert.deepEqual(h.started, []);
    assert.equal(h.ended, 1);
    assert.equal(record.devices[1].outcome, "not-sent");
  });

  it("should end a job with no devices at once, and count a run that threw as ended", async function () {
    const empty = harness(job(0), {});
    empty.rollout.start();
    assert.equal(empty.ended, 1);
    const h = harness(job(2), { concurrency: 1 });
    h.rollout.start();
    const p = h.finish("d0", "complete", true);
    await settle();
    await p;
    assert.deepEqual(h.started, ["d0", "d1"]);
  });

  it("should stop where it is at close: no further start, no end", async function () {
    const record = job(3);
    const h = harness(record, { concurrency: 1, rate: 1 });
    h.rollout.start();
    h.rollout.close();
    const p = h.finish("d0");
    await clock.tickAsync(5000);
    await p;
    assert.deepEqual(h.started, ["d0"]);
    assert.equal(h.ended, 0);
    assert.equal(record.devices[1].state, "pending", "the record stays to resume from");
  });
});

describe("unit: fleet/send-room", function () {
  let clock;
  beforeEach(function () {
    clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(function () {
    clock.uninstall();
  });

  it("should let `width` sends in at once and the next in as one leaves, in order", async function () {
    const room = new SendRoom(2);
    assert.equal(await room.enter(), true);
    assert.equal(await room.enter(), true);
    const order = [];
    const third = room.enter().then((v) => order.push(["third", v]));
    const fourth = room.enter().then((v) => order.push(["fourth", v]));
    await clock.tickAsync(0);
    assert.deepEqual(order, []);
    room.leave();
    await third;
    assert.deepEqual(order, [["third", true]]);
    room.leave();
    await fourth;
    room.leave();
    room.leave();
    // Two left of the four: room for two again, not more.
    assert.equal(await room.enter(), true);
    assert.equal(await room.enter(), true);
    let fifth = false;
    void room.enter().then(() => (fifth = true));
    await clock.tickAsync(0);
    assert.equal(fifth, false);
  });

  it("should pause for the time asked, and end every wait and pause at close", async function () {
    const room = new SendRoom(1);
    let waited;
    void room.wait(100).then((v) => (waited = v));
    await clock.tickAsync(99);
    assert.equal(waited, undefined);
    await clock.tickAsync(1);
    assert.equal(waited, true);

    await room.enter();
    const queued = room.enter();
    const paused = room.wait(10_000);
    room.close();
    assert.equal(await queued, false);
    assert.equal(await paused, false);
    assert.equal(await room.enter(), false);
    assert.equal(await room.wait(5), false);
    assert.equal(clock.countTimers(), 0, "no timer left");
  });

  it("should double its pause after each queue-full, from 50 ms to 1 s", function () {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 20, 2000].map(pauseAfter),
      [50, 100, 200, 400, 800, 1000, 1000, 1000, 1000],
    );
  });

  it("should know a send that certainly did not leave", function () {
    const full = new EdgeError("queue-full", {});
    assert.equal(isQueueFull(full), true);
    assert.equal(isQueueFull(new EdgeError("deadline", {})), false);
    assert.equal(isQueueFull({ code: "queue-full" }), false);
    assert.equal(certainlyNotSent(full), true);
    assert.equal(certainlyNotSent(new EdgeError("deadline", {})), true);
    assert.equal(certainlyNotSent(new EdgeError("api", {}, { status: 429, apiStatus: 429 })), true);
    assert.equal(certainlyNotSent(new EdgeError("api", {}, { status: 503, apiStatus: 503 })), true);
    assert.equal(certainlyNotSent(new EdgeError("api", {}, { status: 503 })), false, "a gateway's");
    assert.equal(certainlyNotSent(new EdgeError("refused", {})), false);
    assert.equal(certainlyNotSent({ code: "queue-full" }), false);
    assert.equal(certainlyNotSent(undefined), false);
  });
});
