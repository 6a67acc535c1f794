// The account's rate limiter on its own: the poll lane is served before commands, has a start
// window and a queue of its own, and both lanes share the concurrency limit. No timing is
// asserted: only the order in which slots are given and what is refused.
"use strict";
const assert = require("node:assert/strict");
const { getEventListeners } = require("node:events");
const { RateLimiter } = require("../../../dist/nodes/lib/api/rate-limiter");

/** Records the order in which acquire() calls get their slot. */
function recorder(limiter) {
  const order = [];
  const releases = [];
  const take = (name, lane) =>
    limiter.acquire(undefined, lane).then((release) => {
      order.push(name);
      releases.push(release);
      return release;
    });
  return { order, releases, take };
}

describe("rate limiter lanes", function () {
  const limiters = [];
  afterEach(function () {
    for (const l of limiters.splice(0)) l.close(new Error("closed"));
  });
  function make(limit) {
    const l = new RateLimiter(limit);
    limiters.push(l);
    return l;
  }

  it("should give a free slot to a waiting poll before commands that queued earlier", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 10 });
    const r = recorder(limiter);
    const first = await r.take("c0");
    const waiting = [r.take("c1"), r.take("c2"), r.take("p1", "poll"), r.take("c3")];
    assert.equal(limiter.queued, 4);
    assert.equal(limiter.queuedIn("poll"), 1);
    first();
    // Each slot is released as soon as it is given, so all four run one after another.
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      r.releases[r.releases.length - 1]();
    }
    await Promise.all(waiting);
    assert.deepEqual(r.order, ["c0", "p1", "c1", "c2", "c3"]);
  });

  it("should start a poll while the commands' per-second window is used up", async function () {
    this.timeout(10_000);
    const limiter = make({ perSecond: 1, concurrent: 8, queueMax: 10 });
    const r = recorder(limiter);
    (await r.take("c0"))();
    const command = r.take("c1");
    await r.take("p1", "poll");
    // The poll got its slot while the command still waits for the window to move.
    assert.deepEqual(r.order, ["c0", "p1"]);
    assert.equal(limiter.queuedIn("normal"), 1);
    await command;
    assert.deepEqual(r.order, ["c0", "p1", "c1"]);
  });

  it("should keep the poll lane's own per-second window", async function () {
    this.timeout(10_000);
    const limiter = make({ perSecond: 0, concurrent: 8, queueMax: 10, pollPerSecond: 2 });
    const r = recorder(limiter);
    await r.take("p1", "poll");
    await r.take("p2", "poll");
    const third = r.take("p3", "poll");
    // The poll window is full, the command lane is not limited: the command goes first.
    await r.take("c1");
    assert.deepEqual(r.order, ["p1", "p2", "c1"]);
    await third;
    assert.deepEqual(r.order, ["p1", "p2", "c1", "p3"]);
  });

  it("should limit polls to 100 a second by default, and not at all on an account without a rate limit", async function () {
    const limited = make({ perSecond: 20, concurrent: 1000, queueMax: 1000 });
    const free = make({ perSecond: 0, concurrent: 1000, queueMax: 1000 });
    const started = (l) => {
      let n = 0;
      for (let i = 0; i < 150; i++) if (l.tryAcquire("poll")) n++;
      return n;
    };
    assert.equal(started(limited), 100);
    assert.equal(started(free), 150);
  });

  it("should not refuse a poll when the command queue is full", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 2 });
    const r = recorder(limiter);
    const first = await r.take("c0");
    const queued = [r.take("c1"), r.take("c2")];
    await assert.rejects(limiter.acquire(), (err) => err.code === "queue-full");
    const poll = r.take("p1", "poll");
    assert.equal(limiter.queuedIn("poll"), 1);
    first();
    (await poll)();
    for (const p of queued) (await p)();
    assert.deepEqual(r.order, ["c0", "p1", "c1", "c2"]);
  });

  it("should bound the poll queue too", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 1 });
    const first = await limiter.acquire();
    const poll = limiter.acquire(undefined, "poll");
    await assert.rejects(limiter.acquire(undefined, "poll"), (err) => err.code === "queue-full");
    first();
    (await poll)();
  });

  it("should let an aborted poll leave its queue without taking a slot", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 5 });
    const r = recorder(limiter);
    const first = await r.take("c0");
    const controller = new AbortController();
    const poll = limiter.acquire(controller.signal, "poll");
    const command = r.take("c1");
    controller.abort(new Error("stop"));
    await assert.rejects(poll, /stop/);
    assert.equal(limiter.queuedIn("poll"), 0);
    first();
    (await command)();
    assert.deepEqual(r.order, ["c0", "c1"]);
  });

  it("should add one abort listener to a signal, however many calls wait with it", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 1000 });
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = Array.from({ length: 500 }, () => limiter.acquire(controller.signal));
    assert.equal(limiter.queued, 500);
    assert.equal(getEventListeners(controller.signal, "abort").length, 1);
    controller.abort(new Error("all stop"));
    for (const w of waiting) await assert.rejects(w, /all stop/);
    assert.equal(limiter.queued, 0);
    release();
    // The aborted calls left no trace: the next call gets the slot at once.
    (await limiter.acquire())();
  });

  it("should serve the calls behind an aborted one in order, and count only those", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 3 });
    const r = recorder(limiter);
    const first = await r.take("c0");
    const controller = new AbortController();
    const c1 = r.take("c1");
    const gone = limiter.acquire(controller.signal);
    const c2 = r.take("c2");
    controller.abort(new Error("gone"));
    await assert.rejects(gone, /gone/);
    assert.equal(limiter.queued, 2);
    // The aborted call's place is free again: the queue of 3 takes one more.
    const c3 = r.take("c3");
    await assert.rejects(limiter.acquire(), (err) => err.code === "queue-full");
    first();
    (await c1)();
    (await c2)();
    (await c3)();
    assert.deepEqual(r.order, ["c0", "c1", "c2", "c3"]);
  });

  it("should fail the waiters of both lanes on close", async function () {
    const limiter = make({ perSecond: 0, concurrent: 1, queueMax: 5 });
    await limiter.acquire();
    const a = limiter.acquire();
    const b = limiter.acquire(undefined, "poll");
    limiter.close(new Error("closed now"));
    await assert.rejects(a, /closed now/);
    await assert.rejects(b, /closed now/);
    assert.equal(limiter.queued, 0);
  });
});
